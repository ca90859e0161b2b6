"""Luck against the stored chances (insights.reports.luck) and its page
(insights.views.campaign_luck): exact figures over what each viewer may see, a fixed
number of queries whatever the log's size, members only."""

from fractions import Fraction
from io import StringIO

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from insights import reports as insights
from rolls.models import LogEntry, entitled
from rules import luck
from tests.insights.insight_setup import add_rolls, build_known_log


def figures(rows):
    return {
        row.label: (row.tally.rolls, row.tally.observed, row.tally.expected, row.tally.variance)
        for row in rows
    }


F = Fraction


def test_a_player_counts_the_public_rolls_and_their_own_private_ones(mana_table):
    build_known_log(mana_table)
    seen = insights.luck(mana_table.campaign, mana_table.player.pk)
    assert figures(seen.players) == {"ana": (4, 2, F(4, 5), F(3, 5))}
    assert figures(seen.characters) == {"Mira": (4, 2, F(4, 5), F(3, 5))}
    assert figures(seen.sessions) == {
        "Session 1": (2, 1, F(2, 5), F(21, 100) + F(9, 100)),
        "Session 2": (1, 1, F(1, 10), F(9, 100)),
        "Outside a session": (1, 0, F(3, 10), F(21, 100)),
    }
    assert [row.label for row in seen.sessions] == ["Session 1", "Session 2", "Outside a session"]
    # 2 successes against 0.8 expected: gap 1.2, 2 sd = 2 * sqrt(0.6) = 1.55
    assert seen.total.verdict == luck.WITHIN
    # Session 2: 1 success against 0.1, 2 sd = 0.6
    assert seen.sessions[1].tally.verdict == luck.LUCKY


def test_the_other_player_sees_their_private_roll_not_anas(mana_table):
    build_known_log(mana_table)
    seen = insights.luck(mana_table.campaign, mana_table.other_player.pk)
    assert figures(seen.players) == {
        "ana": (3, 1, F(7, 10), F(21, 100) * 2 + F(9, 100)),
        "ben": (1, 1, F(3, 10), F(21, 100)),
    }
    assert "The Warden" not in figures(seen.characters)


def test_the_gm_counts_every_roll(mana_table):
    build_known_log(mana_table)
    seen = insights.luck(mana_table.campaign, mana_table.gm.pk)
    assert figures(seen.players) == {
        "ana": (4, 2, F(4, 5), F(3, 5)),
        "ben": (1, 1, F(3, 10), F(21, 100)),
        "gm": (1, 0, F(3, 10), F(21, 100)),
    }
    assert (seen.total.rolls, seen.total.observed, seen.total.expected) == (6, 3, F(7, 5))
    assert figures(seen.sessions)["Session 1"][:3] == (4, 2, F(1))


def test_the_query_filter_is_entitled(mana_table):
    """``visible_entries`` keeps exactly the entries ``models.entitled`` allows."""
    build_known_log(mana_table)
    gm_id = mana_table.campaign.gm_id()
    for user in (mana_table.gm, mana_table.player, mana_table.other_player):
        allowed = [
            e.seq
            for e in LogEntry.objects.filter(campaign=mana_table.campaign)
            if entitled(e.visibility, viewer_id=user.pk, roller_id=e.actor_id, gm_id=gm_id)
        ]
        found = insights.visible_entries(mana_table.campaign, user.pk).order_by("seq")
        assert [e.seq for e in found] == allowed


# The page ---------------------------------------------------------------------------------------


def page(client, table):
    return client.get(reverse("campaign_luck", args=[table.campaign.id]))


def test_the_page_shows_the_figures_as_text(mana_table, as_user, player):
    build_known_log(mana_table)
    response = page(as_user(player), mana_table)
    assert response.status_code == 200
    html = response.content.decode()
    assert "<b>2</b> successes in 4 rolls" in html and "0.80 ± 0.77 expected" in html
    assert "<b>within what chance explains</b>" in html
    summary = reverse("session_summary", args=[mana_table.campaign.id, 2])
    row = f'<a href="{summary}">Session 2</a></th><td>1</td><td>1</td><td>0.10</td><td>± 0.30</td>'
    assert row + '<td class="ok">unusually lucky</td>' in html
    assert ">Bo<" not in html and "The Warden" not in html


def test_the_room_links_to_the_page(mana_table, as_user, player):
    html = as_user(player).get(reverse("room", args=[mana_table.campaign.id])).content.decode()
    assert reverse("campaign_luck", args=[mana_table.campaign.id]) in html


def test_names_are_escaped(mana_table, as_user, player):
    mana_table.mira.name = "<b>Mira</b>"
    mana_table.mira.save()
    build_known_log(mana_table)
    html = page(as_user(player), mana_table).content.decode()
    assert "<b>Mira</b>" not in html and "&lt;b&gt;Mira&lt;/b&gt;" in html


def test_members_only(mana_table, as_user, outsider, gm, other_player):
    assert page(as_user(None), mana_table).status_code == 302
    assert page(as_user(outsider), mana_table).status_code == 404
    assert page(as_user(gm), mana_table).status_code == 200
    assert page(as_user(other_player), mana_table).status_code == 200
    client = as_user(gm)
    assert client.post(reverse("campaign_luck", args=[mana_table.campaign.id])).status_code == 405
    assert client.get(reverse("campaign_luck", args=[2**63])).status_code == 404


def test_an_empty_log(mana_table, as_user, player):
    html = page(as_user(player), mana_table).content.decode()
    assert html.count("No rolls yet.") == 3 and "<b>0</b> successes in 0 rolls" in html


@pytest.mark.parametrize("viewer", ["gm", "player"])
def test_a_fixed_number_of_queries_from_10_to_300_entries(mana_table, as_user, viewer):
    build_known_log(mana_table)
    client = as_user(getattr(mana_table, viewer))
    counts = []
    for more in (1, 290):  # 9 entries of the known log: 10, then 300 entries
        add_rolls(mana_table, more)
        with CaptureQueriesContext(connection) as queries:
            assert page(client, mana_table).status_code == 200
        counts.append(len(queries))
    assert LogEntry.objects.filter(campaign=mana_table.campaign).count() == 300
    assert counts[0] == counts[1] <= 8


def test_a_chance_of_hundreds_of_digits_is_kept_counted_and_verified(mana_table):
    """A hundred dice give an exact chance of about 200 characters (a large Pool pool, of
    thousands): the roll is logged and kept whole, on PostgreSQL as on SQLite, and counts."""
    from django.core.management import call_command
    from django.db import transaction

    from rolls import services
    from rules import mana

    chance = mana.success_probability(100, 30)
    assert len(str(chance)) > 150
    faces = [8] * 30 + [1] * 70
    data = {"system": "mana", "skill": "Gather Information", "dice": 100, "faces": faces}
    data |= {"successes": 30, "target": 30, "success": True, "chance": str(chance)}
    with transaction.atomic():
        entry = services.log_append(
            campaign=mana_table.campaign,
            kind=LogEntry.ROLL,
            actor=mana_table.player,
            character=mana_table.mira,
            data=data,
        )
    assert LogEntry.objects.get(pk=entry.pk).chance == str(chance)
    total = insights.luck(mana_table.campaign, mana_table.player.pk).total
    assert (total.rolls, total.observed, total.expected) == (1, 1, chance)
    call_command("verify_rolls", campaign=mana_table.campaign.pk, stdout=StringIO())
