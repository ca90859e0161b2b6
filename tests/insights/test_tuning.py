"""Difficulty tuning for the GM (insights.reports.tuning, insights.views.campaign_tuning)."""

from fractions import Fraction

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from insights import reports as insights
from rules import mana
from tests.insights.insight_setup import add_rolls, build_known_log, free_die
from tests.rolls.room_setup import ask, roll_mana

F = Fraction


def build(table):
    """The known log, then a near-certain ask (9 dice against 1) and a near-hopeless one (the
    free die against 3: it can show 2 successes at most)."""
    build_known_log(table)
    check = ask(table, table.mira, target=1)
    roll_mana(check, table.player, table.gather, (1,) * 8 + (8,), spend_a=3, spend_b=2, colorless=4)
    free_die(table, table.mira, table.player, 3, 10)


def test_per_target_against_the_expectation(mana_table):
    build(mana_table)
    rows, asks = insights.tuning(mana_table.campaign)
    certain = mana.success_probability(9, 1)
    assert certain == 1 - F(7, 10) ** 9 > F(95, 100)
    figures = [
        (r.target, r.tally.rolls, r.tally.observed, r.tally.expected, r.certain, r.hopeless)
        for r in rows
    ]
    assert figures == [
        (1, 5, 3, F(6, 5) + certain, 1, 0),  # 3/10 four times (ana twice, ben, the Warden's)
        (2, 2, 1, F(1, 5), 0, 0),
        (3, 1, 0, F(0), 0, 1),
    ]
    assert [(a.seq, a.character, a.chance, a.success) for a in asks["near-certain"]] == [
        (10, "Mira", certain, True)
    ]
    assert [(a.seq, a.target, a.chance) for a in asks["near-hopeless"]] == [(11, 3, F(0))]


def page(client, table):
    return client.get(reverse("tuning", args=[table.campaign.id]))


def test_the_page_for_the_gm(mana_table, as_user, gm):
    build(mana_table)
    response = page(as_user(gm), mana_table)
    assert response.status_code == 200
    html = response.content.decode()
    assert '<th scope="row">1</th><td>5</td><td>3 (60%)</td><td>2.16 ± 0.94</td>' in html
    assert "#10 · Mira against difficulty 1: 96.0%, succeeded" in html
    assert "#11 · Mira against difficulty 3: 0.0%, failed" in html


def test_the_luck_page_links_the_gm_to_it(mana_table, as_user, gm, player):
    url = reverse("tuning", args=[mana_table.campaign.id])
    luck = reverse("campaign_luck", args=[mana_table.campaign.id])
    assert url in as_user(gm).get(luck).content.decode()
    assert url not in as_user(player).get(luck).content.decode()


def test_gm_only(mana_table, as_user, player, outsider):
    assert page(as_user(None), mana_table).status_code == 302
    assert page(as_user(outsider), mana_table).status_code == 404
    assert page(as_user(player), mana_table).status_code == 403
    url = reverse("tuning", args=[mana_table.campaign.id])
    assert as_user(mana_table.gm).post(url).status_code == 405


def test_pool_names_the_tn(pool_table, as_user, gm):
    html = page(as_user(gm), pool_table).content.decode()
    assert '<th scope="col">TN</th>' in html and "No rolls yet." in html


@pytest.mark.parametrize("more", [(1, 290)])
def test_a_fixed_number_of_queries(mana_table, as_user, gm, more):
    build_known_log(mana_table)
    client = as_user(gm)
    counts = []
    for n in more:
        add_rolls(mana_table, n)
        with CaptureQueriesContext(connection) as queries:
            assert page(client, mana_table).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1] <= 6
