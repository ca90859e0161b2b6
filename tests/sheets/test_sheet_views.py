"""Character creation, the sheet page and editing its free text."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from rolls.systems.mana.models import palette_of
from rolls.systems.mana.services import mana_set_maxima, traits_set
from rolls.systems.pool.models import Rating, hp_max_of, sheet_of
from rolls.systems.pool.services import skill_propose
from sheets.models import Character
from tests.helpers import HTMX, SESSION_READ, unchanged
from tests.sheets.helpers import sheet_url


def create_url(campaign):
    return reverse("character_create", args=[campaign.id])


# character_create ------------------------------------------------------------------------------


def test_player_gets_the_creation_form(as_user, player, pool_campaign):
    response = as_user(player).get(create_url(pool_campaign))
    assert response.status_code == 200
    assert b'name="name"' in response.content


def test_player_creates_a_character(as_user, player, pool_campaign):
    response = as_user(player).post(
        create_url(pool_campaign), {"name": "Ada", "concept": "Scout", "history": "Born..."}
    )
    character = Character.objects.get()
    assert response.status_code == 302
    assert response.url == sheet_url("character_detail", character)
    assert (character.owner, character.campaign, character.concept) == (
        player,
        pool_campaign,
        "Scout",
    )
    assert character.ratings.count() > 8


def test_gm_creates_an_npc_owned_by_the_gm(as_user, gm, mana_campaign):
    as_user(gm).post(create_url(mana_campaign), {"name": "Harbor master"})
    character = Character.objects.get()
    assert character.owner == gm
    assert character.mana.count() == len(palette_of(mana_campaign)) + 1


@pytest.mark.parametrize(
    "data",
    [{"name": ""}, {"name": "   "}, {"name": "x" * 81}, {"name": "Ada", "concept": "c" * 201}],
)
def test_invalid_creation_shows_the_form_and_creates_nothing(as_user, player, pool_campaign, data):
    response = as_user(player).post(create_url(pool_campaign), data)
    assert response.status_code == 200
    assert b"errorlist" in response.content
    assert not Character.objects.exists()


def test_outsider_cannot_create(as_user, outsider, pool_campaign):
    assert as_user(outsider).get(create_url(pool_campaign)).status_code == 404
    assert as_user(outsider).post(create_url(pool_campaign), {"name": "X"}).status_code == 404
    assert not Character.objects.exists()


def test_anonymous_is_sent_to_login(as_user, pool_campaign):
    response = as_user(None).post(create_url(pool_campaign), {"name": "X"})
    assert response.status_code == 302 and "/login/" in response.url
    assert not Character.objects.exists()


def test_unknown_campaign_is_404(as_user, player, pool_campaign):
    assert as_user(player).get(reverse("character_create", args=[99999])).status_code == 404


# character_detail ------------------------------------------------------------------------------


def test_owner_sees_the_whole_pool_sheet(as_user, player, ana_hero):
    skill_propose(character=ana_hero, attribute="Trick", name="Juggling")
    response = as_user(player).get(sheet_url("character_detail", ana_hero))
    html = response.content.decode()
    assert response.status_code == 200
    for text in (
        "Ada",
        "Scout",
        "Played by ana",
        "Agility",
        "Dodge",
        "0d6",
        "0d10",
        "Geography (name a region)",
        "Manners (name a society)",
        "Vocation (name a vocation)",
        "e.g. “Geography: Northern Marches”",
        "Juggling",
        "pending GM approval",
        f"HP {sheet_of(ana_hero).hp_current} / {hp_max_of(ana_hero)}",
        'id="sparetime"',
        f"/campaigns/{ana_hero.campaign_id}/room/",
        f'hx-get="/campaigns/{ana_hero.campaign_id}/characters/{ana_hero.id}/sparetime/"',
        "Propose a new skill",
        "Edit name, concept and history",
    ):
        assert text in html, text
    assert "rating-form" not in html  # only the GM rates
    # A template's braces never show: only in the value its form sends back.
    for blank in ("{Region}", "{Society}", "{Vocation}"):
        assert html.count(blank) == 1
        assert re.search(r'<input type="hidden" name="template" value="[^"]*' + blank, html)
    # Each name field has its label and its hint.
    assert '<label for="take-education-region">Geography (name a region)</label>' in html
    assert 'id="take-education-region" name="fill"' in html
    assert 'aria-describedby="take-education-region-hint"' in html


def test_gm_sees_rating_forms(as_user, gm, ana_hero):
    html = as_user(gm).get(sheet_url("character_detail", ana_hero)).content.decode()
    assert "rating-form" in html
    assert "Edit name, concept and history" in html


def test_other_player_views_the_sheet_without_edit_forms(as_user, other_player, ana_hero):
    response = as_user(other_player).get(sheet_url("character_detail", ana_hero))
    html = response.content.decode()
    assert response.status_code == 200
    assert "Ada" in html
    for form in ("Edit name", "Propose a new skill", "Update HP", "rating-form", "take-skill"):
        assert form not in html


def test_mana_sheet_shows_skills_traits_and_pool(as_user, player, ana_mage, mana_campaign):
    mana_campaign.mana_skills.create(name="Jump", color_a="red", color_b="green", trait="Athletic")
    mana_campaign.mana_skills.create(name="Gather Information", color_a="blue", color_b="white")
    traits_set(character=ana_mage, traits=["athletic", "Stubborn"])
    mana_set_maxima(character=ana_mage, maxima={"blue": 4})
    html = as_user(player).get(sheet_url("character_detail", ana_mage)).content.decode()
    for text in (
        "Jump",
        "red + green",
        "Athletic",
        "has it",
        "Gather Information",
        "Stubborn",
        "colorless",
        'swatch-blue" aria-hidden="true"></span>blue</span></td><td>0</td><td>4</td>',
    ):
        assert text in html, text
    assert "Set traits" not in html  # the GM sets traits
    assert 'id="sparetime"' not in html  # sparetime is Pool only


def test_gm_sees_the_traits_form(as_user, gm, ana_mage):
    assert b"Set traits" in as_user(gm).get(sheet_url("character_detail", ana_mage)).content


def test_htmx_may_ask_for_one_section(as_user, player, ana_hero):
    url = sheet_url("character_detail", ana_hero) + "?section=pool"
    response = as_user(player).get(url, **HTMX)
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="sheet-pool"')
    assert 'id="sheet-pool"' in html and "<html" not in html


def test_a_section_of_the_other_system_gets_the_whole_page(as_user, player, ana_hero):
    url = sheet_url("character_detail", ana_hero) + "?section=mana"
    assert b"<html" in as_user(player).get(url, **HTMX).content


def test_detail_access(as_user, outsider, gm, ana_hero, elsewhere_hero, pool_campaign):
    url = sheet_url("character_detail", ana_hero)
    assert as_user(outsider).get(url).status_code == 404
    assert as_user(None).get(url).status_code == 302
    # Another campaign's character through this campaign's URL.
    wrong = reverse("character_detail", args=[pool_campaign.id, elsewhere_hero.id])
    assert as_user(gm).get(wrong).status_code == 404
    unknown = reverse("character_detail", args=[pool_campaign.id, 9999])
    assert as_user(gm).get(unknown).status_code == 404
    assert as_user(gm).post(url).status_code == 405


def sheet_queries(client, character):
    with CaptureQueriesContext(connection) as queries:
        assert client.get(sheet_url("character_detail", character)).status_code == 200
    return len(queries)


def test_sheet_query_count_does_not_grow_with_ratings(
    as_user, player, ana_hero, django_assert_max_num_queries
):
    client = as_user(player)
    before = sheet_queries(client, ana_hero)
    Rating.objects.bulk_create(
        Rating(character=ana_hero, attribute="Trick", skill=f"Trick {i}", custom=True)
        for i in range(30)
    )
    assert sheet_queries(client, ana_hero) == before
    # Five and the saved rolls (#47), and the session where it is read from the database.
    with django_assert_max_num_queries(6 + SESSION_READ):
        assert client.get(sheet_url("character_detail", ana_hero)).status_code == 200


def test_mana_sheet_query_count_is_bounded(
    as_user, player, ana_mage, mana_campaign, django_assert_max_num_queries
):
    for i in range(10):
        mana_campaign.mana_skills.create(name=f"Skill {i}", color_a="red", color_b="blue")
    client = as_user(player)
    # Five and the saved rolls (#47), and the session where it is read from the database.
    with django_assert_max_num_queries(6 + SESSION_READ):
        assert client.get(sheet_url("character_detail", ana_mage)).status_code == 200


# character_edit --------------------------------------------------------------------------------

EDIT = {"name": "Ada the Bold", "concept": "Scout", "history": "Raised by wolves."}


def test_owner_edits_in_place(as_user, player, ana_hero):
    response = as_user(player).post(sheet_url("character_edit", ana_hero), EDIT, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert html.startswith('<section id="sheet-header"')
    assert "Ada the Bold" in html and "Raised by wolves." in html
    ana_hero.refresh_from_db()
    assert (ana_hero.name, ana_hero.history) == ("Ada the Bold", "Raised by wolves.")


def test_plain_post_redirects_to_the_sheet(as_user, player, ana_hero):
    response = as_user(player).post(sheet_url("character_edit", ana_hero), EDIT)
    assert response.status_code == 302
    assert response.url == sheet_url("character_detail", ana_hero)


def test_gm_edits_a_players_character(as_user, gm, ana_hero):
    as_user(gm).post(sheet_url("character_edit", ana_hero), EDIT, **HTMX)
    ana_hero.refresh_from_db()
    assert ana_hero.name == "Ada the Bold"


@pytest.mark.parametrize(
    "data", [{**EDIT, "name": ""}, {**EDIT, "name": "n" * 81}, {**EDIT, "concept": "c" * 201}, {}]
)
def test_invalid_edit_changes_nothing(as_user, player, ana_hero, data):
    with unchanged():
        response = as_user(player).post(sheet_url("character_edit", ana_hero), data, **HTMX)
    assert response.status_code == 422
    html = response.content.decode()
    assert "errorlist" in html and '<details id="sheet-header-edit" open>' in html
    assert "<h1>Ada</h1>" in html  # the unsaved text is not shown as the character's


def test_invalid_plain_post_shows_the_page_with_errors(as_user, player, ana_hero):
    with unchanged():
        response = as_user(player).post(sheet_url("character_edit", ana_hero), {"name": ""})
    assert response.status_code == 200
    assert b"<html" in response.content and b"errorlist" in response.content


def test_edit_access(
    as_user, player, outsider, other_player, gm, ana_hero, elsewhere_hero, pool_campaign
):
    url = sheet_url("character_edit", ana_hero)
    with unchanged():
        assert as_user(other_player).post(url, EDIT, **HTMX).status_code == 403
        assert as_user(outsider).post(url, EDIT, **HTMX).status_code == 404
        assert as_user(None).post(url, EDIT).status_code == 302
        assert as_user(player).get(url).status_code == 405
        wrong = reverse("character_edit", args=[pool_campaign.id, elsewhere_hero.id])
        assert as_user(gm).post(wrong, EDIT, **HTMX).status_code == 404


def test_the_gms_npc_is_hidden_from_players(as_user, gm, player, pool_campaign):
    from sheets.services import character_create

    npc = character_create(campaign=pool_campaign, owner=gm, name="Innkeeper")
    with unchanged():
        response = as_user(player).post(sheet_url("character_edit", npc), EDIT, **HTMX)
    assert response.status_code == 404
    assert as_user(player).get(sheet_url("character_detail", npc)).status_code == 404
    assert as_user(gm).get(sheet_url("character_detail", npc)).status_code == 200
