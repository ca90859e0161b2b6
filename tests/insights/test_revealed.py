"""A GM-secret roll once revealed counts wherever a public roll does (issue 28): a session's
summary and the luck page count it for every player, and everyone's export holds its dice,
and the reveal's row the text whose sha256 is the commitment the players saw."""

import csv
import hashlib
import io
import json

from django.urls import reverse

from campaigns.models import GameSession
from insights import reports as insights
from rolls import services
from tests.insights.insight_setup import build_known_log

WARDEN = 5  # the GM's Warden fails in secret at 3/10 (build_known_log)


def reveal(table):
    return services.roll_reveal(campaign=table.campaign, seq=WARDEN, by=table.gm)


def summary(table, viewer):
    session = GameSession.objects.get(campaign=table.campaign, number=1)
    return insights.session_summary(table.campaign, session, viewer.pk)


def test_a_revealed_roll_counts_in_the_players_session_summary(mana_table):
    build_known_log(mana_table)
    before = summary(mana_table, mana_table.player)
    assert WARDEN not in [e.seq for e in before.rolls] and before.hidden == 2
    reveal(mana_table)
    after = summary(mana_table, mana_table.player)
    assert [e.seq for e in after.rolls] == [2, 3, WARDEN] and after.hidden == 1  # Bo's private
    assert after.tally.rolls == before.tally.rolls + 1
    assert after.unluckiest.seq == WARDEN  # it failed at 3/10


def test_the_summary_page_no_longer_says_the_revealed_roll_is_hidden(mana_table, as_user, player):
    build_known_log(mana_table)
    url = reverse("session_summary", args=[mana_table.campaign.id, 1])
    assert "2 hidden rolls not counted." in as_user(player).get(url).getvalue().decode()
    reveal(mana_table)
    html = as_user(player).get(url).getvalue().decode()
    assert "1 hidden roll not counted." in html and "The Warden" in html


def test_a_revealed_roll_counts_in_the_players_luck(mana_table):
    build_known_log(mana_table)
    before = insights.luck(mana_table.campaign, mana_table.player.pk).total
    reveal(mana_table)
    after = insights.luck(mana_table.campaign, mana_table.player.pk).total
    assert (after.rolls, after.observed) == (before.rolls + 1, before.observed)


def test_the_export_carries_the_revealed_dice_and_the_preimage(mana_table, as_user, player):
    build_known_log(mana_table)
    entry = reveal(mana_table)
    url = reverse("log_csv", args=[mana_table.campaign.id])
    rows = list(csv.DictReader(io.StringIO(as_user(player).get(url).getvalue().decode())))
    warden = next(r for r in rows if r["seq"] == str(WARDEN))
    assert warden["hidden"] == "False" and warden["character"] == "The Warden"
    assert warden["dice"] and warden["faces"] and warden["success"] == "False"
    shown = next(r for r in rows if r["seq"] == str(entry.seq))
    assert shown["kind"] == "reveal" and shown["about"] == f"Reveal of #{WARDEN}"
    commitment = entry.data["commitment"]
    assert shown["note"] == f"commitment {commitment}"
    assert hashlib.sha256(shown["result"].encode()).hexdigest() == commitment

    url = reverse("log_json", args=[mana_table.campaign.id])
    log = json.loads(as_user(player).get(url).getvalue())
    [shown] = [e for e in log["entries"] if e["seq"] == entry.seq]
    assert hashlib.sha256(shown["data"]["preimage"].encode()).hexdigest() == commitment


def test_an_unrevealed_secret_roll_stays_a_stub_for_a_player(mana_table, as_user, player):
    build_known_log(mana_table)
    url = reverse("log_csv", args=[mana_table.campaign.id])
    rows = list(csv.DictReader(io.StringIO(as_user(player).get(url).getvalue().decode())))
    warden = next(r for r in rows if r["seq"] == str(WARDEN))
    assert warden["hidden"] == "True" and warden["dice"] == "" and warden["character"] == ""
