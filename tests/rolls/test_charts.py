"""Charts drawn on the server (rolls.charts): self-contained SVG, no script, no URL."""

import re
from fractions import Fraction

from django.urls import reverse

from rolls import charts, insights
from rolls.insights import Row
from rolls.rules.luck import Tally
from tests.rolls.insight_setup import build_known_log


def rows():
    first, second = Tally(), Tally()
    first.add(True, Fraction(1, 2))
    first.add(False, Fraction(1, 4))
    second.add(True, Fraction(1, 10))
    return [Row("Session 1", first), Row("Outside a session", second)]


def assert_self_contained(svg):
    assert svg.startswith("<svg ") and svg.endswith("</svg>")
    assert not re.search(r"(?i)https?:|//[a-z0-9]|url\(|@import|<\?xml", svg)
    assert "<script" not in svg.lower() and "<!--" not in svg and "href" not in svg


def test_luck_by_session_is_a_self_contained_svg():
    svg = charts.luck_by_session(rows())
    assert_self_contained(svg)
    assert 'viewBox="0 0 480 320"' in svg and "width=" not in svg.split(">")[0]
    assert "currentColor" in svg and "transparent" in svg
    assert ">Session 1<" in svg and ">Outside a session<" in svg
    assert ">Observed<" in svg and ">Expected<" in svg
    assert ">0.75<" in svg  # expected in session 1: 1/2 + 1/4


def test_no_rolls_no_chart():
    assert charts.luck_by_session([]) is None


def test_the_luck_page_shows_the_chart_inline(mana_table, as_user, player):
    build_known_log(mana_table)
    html = as_user(player).get(reverse("campaign_luck", args=[mana_table.campaign.id]))
    html = html.content.decode()
    svg = html[html.index("<svg ") : html.index("</svg>") + 6]
    assert_self_contained(svg)
    assert ">Session 2<" in svg


def test_the_luck_page_without_rolls_has_no_chart(mana_table, as_user, player):
    html = as_user(player).get(reverse("campaign_luck", args=[mana_table.campaign.id]))
    assert "<svg" not in html.content.decode()


def test_rolled_against_exact_is_a_self_contained_svg():
    dist = insights.Distribution(
        "2d10",
        "successes",
        3,
        [
            insights.Bin("0", 2, Fraction(49, 100), Fraction(147, 100)),
            insights.Bin("1+", 1, Fraction(51, 100), Fraction(153, 100)),
        ],
    )
    svg = charts.rolled_against_exact(dist)
    assert_self_contained(svg)
    assert ">2d10: successes, rolled and expected<" in svg and ">1.53<" in svg
