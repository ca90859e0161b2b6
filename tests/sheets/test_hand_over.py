"""The GM makes sheets for players and hands NPCs over: the owner field of character_create,
sheets.services.character_hand_over and its view."""

import re

import pytest
from django.urls import reverse

from rolls import services as rolls_services
from rolls.models import SECRET, Check, LogEntry
from sheets.models import Character
from sheets.services import character_hand_over
from tests.helpers import HTMX, db_snapshot, raises_refused, unchanged
from tests.rolls.room_setup import ask, script_dice
from tests.sheets.helpers import sheet_url


def hand_over_url(t, character):
    return reverse("character_hand_over", args=[t.campaign.id, character.id])


# A sheet made for a player -----------------------------------------------------------------------


def test_the_gm_chooses_whose_character_it_is(as_user, gm, player, outsider, pool_campaign):
    create = reverse("character_create", args=[pool_campaign.id])
    html = as_user(gm).get(create).content.decode()
    owners = re.search(r'<select name="owner".*?</select>', html, re.S).group(0)
    assert re.findall(r"<option[^>]*>([^<]*)</option>", owners) == ["Me (an NPC)", "ana", "ben"]
    response = as_user(gm).post(create, {"name": "Ada", "owner": player.id})
    character = Character.objects.get()
    assert response.status_code == 302 and (character.owner, character.name) == (player, "Ada")
    assert character.ratings.count() > 8  # a full sheet, as the player's own would be


def test_the_gm_left_as_owner_makes_an_npc(as_user, gm, pool_campaign):
    as_user(gm).post(reverse("character_create", args=[pool_campaign.id]), {"name": "Innkeeper"})
    assert Character.objects.get().owner == gm


def test_a_new_sheet_tells_the_room_once_made_and_a_refused_one_nothing(
    as_user, gm, player, pool_campaign, pushes, django_capture_on_commit_callbacks
):
    """The party gains a row: every page showing it fetches it again (a public facts push)."""
    create = reverse("character_create", args=[pool_campaign.id])
    with django_capture_on_commit_callbacks(execute=True):
        as_user(gm).post(create, {"name": "Ada", "owner": player.id})
    ada = Character.objects.get()
    assert pushes.facts() == [{"facts": True, "all": f"<!--facts {ada.id}-->"}]
    with django_capture_on_commit_callbacks(execute=True):
        as_user(gm).post(create, {"name": "", "owner": player.id})
    assert len(pushes.sent) == 1


@pytest.mark.parametrize("owner", ["outsider", "gm", "x", "9" * 30])
def test_a_sheet_for_a_non_player_is_refused(as_user, gm, outsider, pool_campaign, owner):
    owner = {"outsider": outsider.id, "gm": gm.id}.get(owner, owner)
    with unchanged():
        response = as_user(gm).post(
            reverse("character_create", args=[pool_campaign.id]), {"name": "Ada", "owner": owner}
        )
    assert response.status_code == 200
    assert "Choose a player of this campaign." in response.content.decode()


def test_a_player_makes_characters_for_themselves_only(
    as_user, player, other_player, pool_campaign
):
    create = reverse("character_create", args=[pool_campaign.id])
    assert 'name="owner"' not in as_user(player).get(create).content.decode()
    as_user(player).post(create, {"name": "Ada", "owner": other_player.id})
    assert Character.objects.get().owner == player


# Handing an NPC over: the service ----------------------------------------------------------------


def test_an_npc_handed_over_takes_its_live_checks_along(
    mana_table, pushes, django_capture_on_commit_callbacks
):
    t = mana_table
    live = ask(t, t.npc, note="Guard the gate")
    done = ask(t, t.npc)
    rolls_services.check_cancel(check=done)
    with django_capture_on_commit_callbacks(execute=True):
        character_hand_over(campaign=t.campaign, character=t.npc, to=t.player)
    t.npc.refresh_from_db()
    assert t.npc.owner == t.player
    # The live check's card: new for its new player, with the roll form; the GM's loses it.
    [message] = pushes.checks()
    roll_url = reverse("check_roll", args=[t.campaign.id, live.id])
    player_card = message["users"][str(t.player.id)]
    assert player_card.startswith('<div hx-swap-oob="afterbegin:#checks">')
    assert roll_url in player_card and "Guard the gate" in player_card
    assert 'hx-swap-oob="outerHTML"' in message["gm"] and roll_url not in message["gm"]
    assert "Waiting for ana to roll" in message["gm"]
    assert set(message["users"]) == {str(t.player.id)} and pushes.entries() == []
    # The party's pages learn whose it is now: every member (a public fact).
    [facts] = pushes.facts()
    assert set(facts) == {"facts", "all"} and str(t.npc.pk) in facts["all"]


@pytest.mark.parametrize(
    ("character", "to", "message"),
    [
        (
            "mira",
            "other_player",
            "Only the GM's own characters (NPCs) and former members' can be handed over.",
        ),
        ("npc", "gm", "Choose a player of this campaign."),
        ("npc", "outsider", "Choose a player of this campaign."),
        ("npc", None, "Choose a player of this campaign."),
    ],
)
def test_a_refused_hand_over_changes_nothing(mana_table, outsider, pushes, character, to, message):
    t = mana_table
    t.outsider = outsider
    before = db_snapshot()
    with raises_refused(match=message.replace("(", r"\(").replace(")", r"\)")):
        character_hand_over(
            campaign=t.campaign, character=getattr(t, character), to=getattr(t, to) if to else None
        )
    assert db_snapshot() == before and pushes.sent == []


def test_an_npc_with_a_live_secret_check_stays_the_gms(mana_table, pushes):
    t = mana_table
    ask(t, t.npc, visibility=SECRET)
    with unchanged(), raises_refused(match="live GM-secret check"):
        character_hand_over(campaign=t.campaign, character=t.npc, to=t.player)
    assert pushes.sent == []


# Handing an NPC over: the view -------------------------------------------------------------------


def test_the_gm_hands_an_npc_over_and_the_player_plays_it(
    mana_table, as_user, monkeypatch, pushes, django_capture_on_commit_callbacks
):
    t = mana_table
    sheet = sheet_url("character_detail", t.npc)
    assert as_user(t.player).get(sheet).status_code == 404  # an NPC: unknown to the players
    html = as_user(t.gm).get(sheet).content.decode()
    assert hand_over_url(t, t.npc) in html
    check = ask(t, t.npc)
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(t.gm).post(hand_over_url(t, t.npc), {"to": t.player.id}, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="sheet-header"' in html and "Played by ana" in html
    assert hand_over_url(t, t.npc) not in html  # a player's character now
    # The player sees its whole sheet and rolls its check; the GM keeps the GM's rights.
    html = as_user(t.player).get(sheet).content.decode()
    assert "The Warden" in html and "blue" in html
    script_dice(monkeypatch, 8, 9, 1, 1)
    roll = {
        "skill": t.gather.id,
        "color_a": "blue",
        "color_b": "white",
        "spend_a": 1,
        "spend_b": 1,
        "colorless": 0,
    }
    roll_url = reverse("check_roll", args=[t.campaign.id, check.id])
    assert as_user(t.gm).post(roll_url, roll, **HTMX).status_code == 403
    assert as_user(t.player).post(roll_url, roll, **HTMX).status_code == 204
    assert LogEntry.objects.get().actor == t.player
    edit = sheet_url("character_edit", t.npc)
    assert as_user(t.gm).post(edit, {"name": "The Old Warden"}).status_code == 302
    assert as_user(t.other_player).get(sheet).status_code == 200
    assert (
        as_user(t.gm).post(hand_over_url(t, t.npc), {"to": t.other_player.id}, **HTMX).status_code
        == 422
    )


def test_a_handed_over_pool_npc_is_asked_of_its_player(
    pool_table, as_user, pushes, django_capture_on_commit_callbacks
):
    t = pool_table
    as_user(t.gm).post(hand_over_url(t, t.npc), {"to": t.other_player.id}, **HTMX)
    with django_capture_on_commit_callbacks(execute=True):
        data = {
            "character": t.npc.id,
            "suggestion": "Strength",
            "target": 5,
            "visibility": "public",
        }
        assert (
            as_user(t.gm).post(reverse("check_ask", args=[t.campaign.id]), data, **HTMX).status_code
            == 200
        )
    [message] = pushes.checks()
    check = Check.objects.get()
    assert set(message["users"]) == {str(t.other_player.id)}
    assert (
        reverse("check_roll", args=[t.campaign.id, check.id])
        in message["users"][str(t.other_player.id)]
    )


@pytest.mark.parametrize("to", ["", "x", "outsider", "gm", "9" * 30])
def test_bad_hand_overs_are_refused(
    mana_table, as_user, outsider, pushes, django_capture_on_commit_callbacks, to
):
    t = mana_table
    to = {"outsider": outsider.id, "gm": t.gm.id}.get(to, to)
    before = db_snapshot()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = as_user(t.gm).post(hand_over_url(t, t.npc), {"to": to}, **HTMX)
    assert response.status_code == 422
    assert (
        "Choose a player of this campaign." in response.content.decode()
        or "required" in response.content.decode()
    )
    assert db_snapshot() == before and callbacks == [] and pushes.sent == []


def test_only_the_gm_hands_over(mana_table, as_user, outsider):
    t = mana_table
    for user, status in ((t.player, 403), (t.other_player, 403), (outsider, 404)):
        with unchanged():
            response = as_user(user).post(hand_over_url(t, t.npc), {"to": t.player.id}, **HTMX)
        assert response.status_code == status
    with unchanged():
        response = as_user(t.gm).post(hand_over_url(t, t.mira), {"to": t.other_player.id}, **HTMX)
    assert response.status_code == 422
    assert (
        "Only the GM&#x27;s own characters (NPCs) and former members&#x27; can be handed over."
        in response.content.decode()
    )
    assert (
        hand_over_url(t, t.mira)
        not in as_user(t.gm).get(sheet_url("character_detail", t.mira)).content.decode()
    )
