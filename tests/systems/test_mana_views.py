"""Mana's own views (rolls/systems/mana/views.py): the GM's mana fragment (maxima, refills) and
traits."""

import re

import pytest
from django.urls import reverse

from rolls.services import check_ask
from rolls.systems.mana.models import COLORLESS, palette_of, traits_of
from rolls.systems.mana.services import check_roll_mana, mana_refill, mana_set_maxima, traits_set
from tests.helpers import HTMX, unchanged
from tests.sheets.helpers import pools, sheet_url

HUGE = "9" * 30


def mana_url(campaign):
    return reverse("gm_mana", args=[campaign.id])


def maxima_data(character, **values):
    """Every color's field of ``character``'s maxima form, 0 unless given."""
    colors = [*palette_of(character.campaign), COLORLESS]
    return {f"c{character.id}-{color}": values.get(color, "0") for color in colors}


# gm_mana ---------------------------------------------------------------------------------------


def test_gm_sees_every_pool(as_user, gm, mana_campaign, ana_mage, ben_mage):
    mana_set_maxima(character=ana_mage, maxima={"red": 3})
    response = as_user(gm).get(mana_url(mana_campaign), **HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<section id="gm-mana"')
    assert "Mira" in html and "Tobin" in html and "Refill everyone" in html
    assert f'name="c{ana_mage.id}-red" value="3"' in html
    assert f'name="c{ben_mage.id}-{COLORLESS}" value="0"' in html


def test_gm_mana_query_count_is_bounded(
    as_user, gm, mana_campaign, ana_mage, ben_mage, django_assert_max_num_queries
):
    client = as_user(gm)
    with django_assert_max_num_queries(5):
        assert client.get(mana_url(mana_campaign)).status_code == 200


def test_gm_mana_access(as_user, player, outsider, gm, mana_campaign, pool_campaign):
    assert as_user(player).get(mana_url(mana_campaign)).status_code == 403
    assert as_user(outsider).get(mana_url(mana_campaign)).status_code == 404
    assert as_user(None).get(mana_url(mana_campaign)).status_code == 302
    assert as_user(gm).get(mana_url(pool_campaign)).status_code == 404


# mana_maxima -----------------------------------------------------------------------------------


def test_gm_sets_maxima_and_current_follows_down(as_user, gm, ana_mage):
    mana_set_maxima(character=ana_mage, maxima={"blue": 5})
    mana_refill(campaign=ana_mage.campaign, character=ana_mage)
    data = maxima_data(ana_mage, blue="2", red="4", colorless="6")
    response = as_user(gm).post(sheet_url("mana_maxima", ana_mage), data, **HTMX)
    assert response.status_code == 200
    assert b'id="gm-mana"' in response.content
    assert pools(ana_mage) == {
        "white": (0, 0),
        "blue": (2, 2),
        "black": (0, 0),
        "red": (0, 4),
        "green": (0, 0),
        COLORLESS: (0, 6),
    }


@pytest.mark.parametrize("value", ["-1", "abc", "100", HUGE, ""])
def test_bad_maxima_change_nothing(as_user, gm, ana_mage, value):
    data = maxima_data(ana_mage, blue="3", red=value)
    with unchanged():
        response = as_user(gm).post(sheet_url("mana_maxima", ana_mage), data, **HTMX)
    assert response.status_code == 422
    assert b"Mira: red:" in response.content


def test_plain_maxima_post_goes_back_to_the_panel(as_user, gm, ana_mage):
    data = maxima_data(ana_mage, blue="3")
    response = as_user(gm).post(sheet_url("mana_maxima", ana_mage), data)
    assert response.status_code == 302
    assert response["Location"] == reverse("gm_panel", args=[ana_mage.campaign_id])
    assert pools(ana_mage)["blue"] == (0, 3)


def test_bad_maxima_in_a_plain_post_show_the_panel(as_user, gm, ana_mage):
    data = maxima_data(ana_mage, blue="3", red="-1")
    with unchanged():
        response = as_user(gm).post(sheet_url("mana_maxima", ana_mage), data)
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" in html and "GM panel" in html and "Mira: red:" in html
    assert html.count('id="gm-mana"') == 1  # in place of the section that loads itself


def test_missing_color_changes_nothing(as_user, gm, ana_mage):
    data = maxima_data(ana_mage, blue="3")
    del data[f"c{ana_mage.id}-green"]
    with unchanged():
        response = as_user(gm).post(sheet_url("mana_maxima", ana_mage), data, **HTMX)
    assert response.status_code == 422


def test_maxima_access(as_user, player, outsider, gm, ana_mage, elsewhere_mage, ana_hero):
    url = sheet_url("mana_maxima", ana_mage)
    data = maxima_data(ana_mage, blue="3")
    with unchanged():
        assert as_user(player).post(url, data, **HTMX).status_code == 403
        assert as_user(outsider).post(url, data, **HTMX).status_code == 404
        assert as_user(None).post(url, data).status_code == 302
        client = as_user(gm)
        assert client.get(url).status_code == 405
        wrong = reverse("mana_maxima", args=[ana_mage.campaign_id, elsewhere_mage.id])
        assert client.post(wrong, data).status_code == 404
        unknown = reverse("mana_maxima", args=[ana_mage.campaign_id, 99999])
        assert client.post(unknown, data).status_code == 404
        assert client.post(sheet_url("mana_maxima", ana_hero), data).status_code == 404


# refills ---------------------------------------------------------------------------------------


@pytest.fixture
def drained(ana_mage, ben_mage):
    for character in (ana_mage, ben_mage):
        mana_set_maxima(character=character, maxima={"white": 3, COLORLESS: 2})


def test_gm_refills_one_character(as_user, gm, ana_mage, ben_mage, drained):
    response = as_user(gm).post(sheet_url("mana_refill_one", ana_mage), **HTMX)
    assert response.status_code == 200 and b'id="gm-mana"' in response.content
    assert pools(ana_mage)["white"] == (3, 3) and pools(ana_mage)[COLORLESS] == (2, 2)
    assert pools(ben_mage)["white"] == (0, 3)


def test_gm_refills_everyone(as_user, gm, mana_campaign, ana_mage, ben_mage, drained):
    response = as_user(gm).post(reverse("mana_refill_all", args=[mana_campaign.id]), **HTMX)
    assert response.status_code == 200
    assert pools(ana_mage)["white"] == pools(ben_mage)["white"] == (3, 3)


def test_refill_access(
    as_user, player, outsider, gm, mana_campaign, pool_campaign, ana_mage, elsewhere_mage, drained
):
    one = sheet_url("mana_refill_one", ana_mage)
    everyone = reverse("mana_refill_all", args=[mana_campaign.id])
    mana_set_maxima(character=elsewhere_mage, maxima={"white": 1})
    with unchanged():
        for url in (one, everyone):
            assert as_user(player).post(url, **HTMX).status_code == 403
            assert as_user(outsider).post(url, **HTMX).status_code == 404
            assert as_user(None).post(url).status_code == 302
            assert as_user(gm).get(url).status_code == 405
        client = as_user(gm)
        wrong = reverse("mana_refill_one", args=[mana_campaign.id, elsewhere_mage.id])
        assert client.post(wrong).status_code == 404
        unknown = reverse("mana_refill_one", args=[mana_campaign.id, 99999])
        assert client.post(unknown).status_code == 404
        assert client.post(reverse("mana_refill_all", args=[pool_campaign.id])).status_code == 404


# character_traits (GM) -------------------------------------------------------------------------


def test_gm_sets_traits(as_user, gm, ana_mage, mana_campaign):
    mana_campaign.mana_skills.create(name="Jump", color_a="red", color_b="green", trait="Athletic")
    response = as_user(gm).post(
        sheet_url("character_traits", ana_mage),
        {"traits": "Athletic,  sharp eyes , athletic,,"},
        **HTMX,
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="sheet-mana"')
    assert "has it" in html
    ana_mage.refresh_from_db()
    assert traits_of(ana_mage) == ["Athletic", "sharp eyes"]


def test_gm_clears_traits(as_user, gm, ana_mage):
    traits_set(character=ana_mage, traits=["Athletic"])
    as_user(gm).post(sheet_url("character_traits", ana_mage), {"traits": ""}, **HTMX)
    ana_mage.refresh_from_db()
    assert traits_of(ana_mage) == []


@pytest.mark.parametrize("traits", ["t" * 61, "ok, " + "t" * 61, "x" * 1001])
def test_bad_traits_change_nothing(as_user, gm, ana_mage, traits):
    with unchanged():
        response = as_user(gm).post(
            sheet_url("character_traits", ana_mage), {"traits": traits}, **HTMX
        )
    assert response.status_code == 422
    assert b"Traits:" in response.content


def test_traits_access(as_user, player, outsider, gm, ana_mage, elsewhere_mage, ana_hero):
    url = sheet_url("character_traits", ana_mage)
    with unchanged():
        assert as_user(player).post(url, {"traits": "Brave"}, **HTMX).status_code == 403
        assert as_user(outsider).post(url, {"traits": "Brave"}, **HTMX).status_code == 404
        assert as_user(None).post(url, {"traits": "Brave"}).status_code == 302
        client = as_user(gm)
        wrong = reverse("character_traits", args=[ana_mage.campaign_id, elsewhere_mage.id])
        assert client.post(wrong, {"traits": "Brave"}).status_code == 404
        pool = sheet_url("character_traits", ana_hero)
        assert client.post(pool, {"traits": "Brave"}).status_code == 404


# What the table sees ---------------------------------------------------------------------------


def pool_rows(html):
    """The mana pool table's rows (color, current, maximum) in a sheet page."""
    return re.findall(r"<tr><td>.*?</span>(\w+)</span></td><td>(\d+)</td><td>(\d+)</td></tr>", html)


def test_private_mana_roll_spends_out_of_other_players_sight(
    as_user, gm, other_player, player, mana_campaign, ana_mage
):
    mana_set_maxima(character=ana_mage, maxima={"red": 5, "green": 4})
    mana_refill(campaign=mana_campaign, character=ana_mage)
    skill = mana_campaign.mana_skills.create(name="Jump", color_a="red", color_b="green")
    url = sheet_url("character_detail", ana_mage)
    section = url + "?section=mana"

    def other_players_view():
        client = as_user(other_player)
        pages = [client.get(url).content.decode(), client.get(section, **HTMX).content.decode()]
        for html in pages:
            assert "Jump" in html  # the rest of the sheet is the table's
            assert pool_rows(html) == []
            assert "Only ana and the GM see this pool." in html
        return pages

    before = other_players_view()
    check = check_ask(
        campaign=mana_campaign, character=ana_mage, by=gm, target=2, visibility="private"
    )
    check_roll_mana(check=check, by=player, skill=skill, spend_a=2, spend_b=1, colorless=0)
    assert pools(ana_mage)["red"] == (3, 5)
    assert other_players_view()[1] == before[1]  # the mana section, byte for byte

    for viewer in (player, gm):
        html = as_user(viewer).get(url).content.decode()
        assert ("red", "3", "5") in pool_rows(html) and ("green", "3", "4") in pool_rows(html)
