"""What the dice showed against the exact distributions (insights.reports.distributions), on the
luck page with a chart per pool."""

from fractions import Fraction

from django.urls import reverse

from insights import reports as insights
from rolls.systems.pool import services as pool_services
from rules import distribution, pool
from tests.insights.insight_setup import build_known_log
from tests.rolls.room_setup import ask
from tests.rules.scripted_rng import ScriptedRng

F = Fraction


def bins(dist):
    return [(b.label, b.rolled, b.chance, b.expected) for b in dist.bins]


def test_mana_successes_per_dice_count(mana_table):
    build_known_log(mana_table)
    # ana sees four free-die rolls of Mira's: an 8, a 9, a 3 and a 0 (10)
    (dist,) = insights.distributions(mana_table.campaign, mana_table.player.pk)
    assert (dist.title, dist.what, dist.rolls) == ("1d10", "successes", 4)
    assert bins(dist) == [
        ("0", 1, F(7, 10), F(14, 5)),
        ("1", 2, F(1, 5), F(4, 5)),
        ("2+", 1, F(1, 10), F(2, 5)),
    ]
    (gm_view,) = insights.distributions(mana_table.campaign, mana_table.gm.pk)
    assert gm_view.rolls == 6  # and Bo's 0 and the Warden's 1
    assert [b.rolled for b in gm_view.bins] == [2, 2, 2]


def test_pool_highest_totals_per_pool(pool_table, player):
    for faces in [(6, 3, 2, 1), (4, 4, 5), (1, 1, 2)]:
        check = ask(pool_table, pool_table.ilse, target=4)
        pool_services.check_roll_pool(
            check=check, by=player, attribute=pool_table.strength, rng=ScriptedRng(*faces)
        )
    pool_table.campaign.refresh_from_db()
    (dist,) = insights.distributions(pool_table.campaign, player.pk)
    assert (dist.title, dist.what, dist.rolls) == ("3d6", "highest total", 3)
    # the last bin starts where P(highest >= t) falls below 1 %, or at the highest rolled
    last = next(t for t in range(2, 40) if pool.success_probability(3, 0, t) < F(1, 100))
    assert dist.bins[-1].label == f"{last}+" and last > 9
    exactly, above = distribution.pool_highest(3, 0, last - 1)
    assert [b.chance for b in dist.bins] == [*exactly, above]
    rolled = {b.label: b.rolled for b in dist.bins if b.rolled}
    assert rolled == {"9": 1, "5": 1, "2": 1}
    assert all(b.expected == 3 * b.chance for b in dist.bins)


def test_the_luck_page_shows_each_pool_as_chart_and_table(mana_table, as_user, player):
    build_known_log(mana_table)
    html = as_user(player).get(reverse("campaign_luck", args=[mana_table.campaign.id]))
    html = html.content.decode()
    assert "<caption>1d10, 4 rolls</caption>" in html
    assert '<th scope="row">2+</th><td>1</td><td>0.40</td><td>10.0%</td>' in html
    assert html.count('<img class="chart"') == 2 and "<script" not in html.split("<main ")[1]
