"""Charts drawn on the server (insights.charts): images of self-contained SVG, no script, no URL."""

import base64
import re
from fractions import Fraction

from django.urls import reverse

from insights import charts
from insights import reports as insights
from insights.reports import Row
from rules.luck import Tally
from tests.insights.insight_setup import build_known_log


def rows():
    first, second = Tally(), Tally()
    first.add(True, Fraction(1, 2))
    first.add(False, Fraction(1, 4))
    second.add(True, Fraction(1, 10))
    return [Row("Session 1", first), Row("Outside a session", second)]


IMAGE = re.compile(r'<img class="chart" src="data:image/svg\+xml;base64,([^"]+)" alt="([^"]*)"')


def svgs(html):
    """The SVG of every chart image in ``html``."""
    return [base64.b64decode(data).decode() for data, _alt in IMAGE.findall(html)]


def assert_self_contained(svg):
    assert svg.startswith("<svg ") and svg.endswith("</svg>")
    names = re.sub(r'xmlns(:\w+)?="[^"]*"', "", svg)  # namespaces name, they fetch nothing
    assert not re.search(r"(?i)https?:|//[a-z0-9]|url\(|@import|<\?xml", names)
    assert "<script" not in svg.lower() and "<!--" not in svg and "href" not in svg


def test_luck_by_session_is_an_image_of_a_self_contained_svg():
    image = charts.luck_by_session(rows())
    [(_data, alt)] = IMAGE.findall(image)
    assert alt == "Successes per session: observed and expected"
    [svg] = svgs(image)
    assert_self_contained(svg)
    assert 'viewBox="0 0 480 320"' in svg and "width=" not in svg.split(">")[0]
    assert "#fffdf8" in svg  # a light background of its own, in either theme
    assert ">Session 1<" in svg and ">Outside a session<" in svg
    assert ">Observed<" in svg and ">Expected<" in svg
    assert ">0.75<" in svg  # expected in session 1: 1/2 + 1/4


def test_no_rolls_no_chart():
    assert charts.luck_by_session([]) is None


def test_the_luck_page_shows_the_chart_as_an_image(mana_table, as_user, player):
    build_known_log(mana_table)
    html = as_user(player).get(reverse("campaign_luck", args=[mana_table.campaign.id]))
    html = html.content.decode()
    assert "<svg" not in html  # its styles would be refused in the page itself
    svg = svgs(html)[0]
    assert_self_contained(svg)
    assert ">Session 2<" in svg


def test_the_luck_page_without_rolls_has_no_chart(mana_table, as_user, player):
    html = as_user(player).get(reverse("campaign_luck", args=[mana_table.campaign.id]))
    assert 'class="chart"' not in html.content.decode().split("<main ")[1]


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
    [svg] = svgs(charts.rolled_against_exact(dist))
    assert_self_contained(svg)
    assert ">2d10: successes, rolled and expected<" in svg and ">1.53<" in svg
