"""A user's own data in one file (insights.views.my_data): their characters' sheets and what
they may see of each campaign's log, by the log export's rules (``export_batches``)."""

import json

from django.urls import reverse

from rolls import services as rolls_services
from rolls.models import PRIVATE, SECRET
from rules import notation
from sheets.services import saved_roll_add
from tests.campaigns.leaving import played

MY_DATA = reverse("my_data")


def body(response):
    return json.loads(b"".join(response.streaming_content))


def test_a_player_takes_her_sheets_and_what_she_may_see(
    as_user, pool_table, player, gm, other_player
):
    played(pool_table)
    campaign = pool_table.campaign
    pool_table.ilse.campaign = campaign
    saved_roll_add(campaign=campaign, character=pool_table.ilse, name="Sword", notation="1d8")
    # What she may not see: the GM's secret roll (a stub), ben's private one (a stub), ben's
    # whisper to the GM (not there at all).
    rolls_services.free_roll_make(
        campaign=campaign, by=gm, notation=notation.parse("1d20"), visibility=SECRET
    )
    rolls_services.free_roll_make(
        campaign=campaign, by=other_player, notation=notation.parse("3d6"), visibility=PRIVATE
    )
    rolls_services.message_send(campaign=campaign, by=other_player, text="secret plan", to=gm)
    response = as_user(player).get(MY_DATA)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert "attachment" in response["Content-Disposition"]
    data = body(response)
    assert data["user"] == "ana"
    [mine] = data["campaigns"]
    assert (mine["campaign"], mine["system"], mine["role"]) == ("The Marches", "pool", "player")
    [ilse] = mine["characters"]  # Tor is ben's, the Ogre the GM's
    assert ilse["name"] == "Ilse"
    ratings = {(r["attribute"], r["skill"]): r["value"] for r in ilse["sheet"]["ratings"]}
    assert ratings[("Strength", "Jump")] == 2
    assert [row["kind"] for row in ilse["sheet"]["sparetime"]] == ["grant", "spend"]
    assert ilse["saved_rolls"] == [
        {"name": "Sword", "notation": "1d8", "check": None, "target": None}
    ]
    entries = mine["entries"]
    text = json.dumps(entries)
    assert "secret plan" not in text
    assert "psst, Tor" in text and "what, Ilse?" in text
    hidden = [e for e in entries if e["hidden"]]
    assert [(e["player"], e["data"]) for e in hidden] == [("gm", None), ("ben", None)]
    assert mine["fingerprint"].endswith(entries[-1]["fingerprint"])


def test_the_same_entries_as_the_log_export(as_user, pool_table, player):
    played(pool_table)
    client = as_user(player)
    log = body(client.get(reverse("log_json", args=[pool_table.campaign.id])))
    [mine] = body(client.get(MY_DATA))["campaigns"]
    assert mine["entries"] == log["entries"]
    assert mine["fingerprint"] == log["fingerprint"]


def test_a_mana_sheet_and_no_campaign(as_user, mana_table, player, outsider):
    [mine] = body(as_user(player).get(MY_DATA))["campaigns"]
    [mira] = mine["characters"]
    assert {"color": "blue", "current": 3, "maximum": 3} in mira["sheet"]["mana"]
    assert mine["entries"] == [] and mine["fingerprint"] is None
    assert body(as_user(outsider).get(MY_DATA)) == {"user": "zed", "campaigns": []}


def test_a_former_members_entries_name_nobody(as_user, pool_table, player, other_player):
    from campaigns.services import account_delete
    from tests.conftest import PASSWORD

    played(pool_table)
    account_delete(user=player, password=PASSWORD)
    [mine] = body(as_user(other_player).get(MY_DATA))["campaigns"]
    messages = [e for e in mine["entries"] if e["kind"] == "message"]
    assert {e["player"] for e in messages} == {"a former member", "ben"}
    assert [e["to"] for e in messages if e["visibility"] == "whisper"] == [
        "ben",
        "a former member",
    ]


def test_anonymous_logs_in_and_a_post_is_refused(client, as_user, player):
    response = client.get(MY_DATA)
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert as_user(player).post(MY_DATA).status_code == 405
