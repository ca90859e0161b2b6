"""The Pool system's sheet actions (rolls/systems/pool/views.py): the GM rates, the owner (or
GM) sets HP, takes template skills and proposes custom ones."""

import pytest
from django.urls import reverse

from rolls.systems.pool.models import Rating, hp_max_of, rating_of, settings_of, sheet_of
from rolls.systems.pool.services import skill_propose
from tests.helpers import HTMX, unchanged
from tests.sheets.helpers import sheet_url

HUGE = "9" * 30


def rating_url(character, rating):
    return sheet_url("rating_set", character, rating.id)


# rating_set (GM) -------------------------------------------------------------------------------


def test_gm_sets_a_rating(as_user, gm, ana_hero):
    jump = rating_of(ana_hero, "Strength", "Jump")
    response = as_user(gm).post(rating_url(ana_hero, jump), {"value": "3"}, **HTMX)
    assert response.status_code == 200
    assert b'id="sheet-pool"' in response.content and b"3d10" in response.content
    jump.refresh_from_db()
    assert jump.value == 3


def test_gm_sets_an_attribute_and_endurance_moves_hp_max(as_user, gm, ana_hero, pool_campaign):
    client = as_user(gm)
    client.post(rating_url(ana_hero, rating_of(ana_hero, "Strength")), {"value": "2"}, **HTMX)
    response = client.post(
        rating_url(ana_hero, rating_of(ana_hero, "Strength", "Endurance")), {"value": "4"}, **HTMX
    )
    html = response.content.decode()
    assert "2d6" in html
    row = settings_of(pool_campaign)
    assert f"HP {row.hp_max_for(0)} / {row.hp_max_for(4)}" in html


def test_plain_rating_post_redirects(as_user, gm, ana_hero):
    jump = rating_of(ana_hero, "Strength", "Jump")
    response = as_user(gm).post(rating_url(ana_hero, jump), {"value": "1"})
    assert response.status_code == 302


@pytest.mark.parametrize("value", ["-1", "abc", "101", HUGE, "", "2.5"])
def test_bad_rating_changes_nothing(as_user, gm, ana_hero, value):
    jump = rating_of(ana_hero, "Strength", "Jump")
    with unchanged():
        response = as_user(gm).post(rating_url(ana_hero, jump), {"value": value}, **HTMX)
    assert response.status_code == 422
    assert b'class="error" role="alert">Rating:' in response.content


def test_bad_rating_in_a_plain_post_shows_the_page(as_user, gm, ana_hero):
    jump = rating_of(ana_hero, "Strength", "Jump")
    with unchanged():
        response = as_user(gm).post(rating_url(ana_hero, jump), {"value": "-3"})
    assert response.status_code == 200
    assert b"<html" in response.content and b'role="alert"' in response.content


def test_pending_skill_cannot_be_rated(as_user, gm, ana_hero):
    pending = skill_propose(character=ana_hero, attribute="Trick", name="Juggling")
    with unchanged():
        response = as_user(gm).post(rating_url(ana_hero, pending), {"value": "2"}, **HTMX)
    assert response.status_code == 422
    assert b"Juggling is pending" in response.content


def test_rating_access(as_user, player, outsider, gm, ana_hero, ben_hero, elsewhere_hero):
    jump = rating_of(ana_hero, "Strength", "Jump")
    url = rating_url(ana_hero, jump)
    with unchanged():
        assert as_user(player).post(url, {"value": "5"}, **HTMX).status_code == 403
        assert as_user(outsider).post(url, {"value": "5"}, **HTMX).status_code == 404
        assert as_user(None).post(url, {"value": "5"}).status_code == 302
        client = as_user(gm)
        assert client.get(url).status_code == 405
        # A rating of another character, an unknown rating, another campaign's character.
        assert client.post(rating_url(ben_hero, jump), {"value": "5"}).status_code == 404
        unknown = sheet_url("rating_set", ana_hero, 99999)
        assert client.post(unknown, {"value": "5"}).status_code == 404
        other = rating_of(elsewhere_hero, "Strength", "Jump")
        wrong = reverse("rating_set", args=[ana_hero.campaign_id, elsewhere_hero.id, other.id])
        assert client.post(wrong, {"value": "5"}).status_code == 404


def test_no_ratings_in_a_mana_campaign(as_user, gm, ana_mage):
    assert as_user(gm).post(sheet_url("rating_set", ana_mage, 1), {"value": "1"}).status_code == 404


# character_hp (owner or GM) --------------------------------------------------------------------


@pytest.mark.parametrize("who", ["player", "gm"])
def test_owner_and_gm_set_hp(as_user, request, ana_hero, who):
    response = as_user(request.getfixturevalue(who)).post(
        sheet_url("character_hp", ana_hero), {"hp_current": "4"}, **HTMX
    )
    assert response.status_code == 200
    assert f"HP 4 / {hp_max_of(ana_hero)}".encode() in response.content
    ana_hero.refresh_from_db()
    assert sheet_of(ana_hero).hp_current == 4


@pytest.mark.parametrize("value", ["-1", "abc", "11", HUGE, ""])
def test_bad_hp_changes_nothing(as_user, player, ana_hero, value):
    assert hp_max_of(ana_hero) == 10
    with unchanged():
        response = as_user(player).post(
            sheet_url("character_hp", ana_hero), {"hp_current": value}, **HTMX
        )
    assert response.status_code == 422
    assert b"Current HP:" in response.content


def test_hp_access(as_user, other_player, outsider, gm, ana_hero, elsewhere_hero, ana_mage):
    url = sheet_url("character_hp", ana_hero)
    with unchanged():
        assert as_user(other_player).post(url, {"hp_current": "1"}, **HTMX).status_code == 403
        assert as_user(outsider).post(url, {"hp_current": "1"}, **HTMX).status_code == 404
        assert as_user(None).post(url, {"hp_current": "1"}).status_code == 302
        wrong = reverse("character_hp", args=[ana_hero.campaign_id, elsewhere_hero.id])
        assert as_user(gm).post(wrong, {"hp_current": "1"}).status_code == 404
        mana = sheet_url("character_hp", ana_mage)
        assert as_user(gm).post(mana, {"hp_current": "0"}).status_code == 404


# skill_take (owner or GM) ----------------------------------------------------------------------

GEOGRAPHY = {"attribute": "Education", "template": "Geography: {Region}"}


def take(client, character, fill, **data):
    return client.post(
        sheet_url("skill_take", character), {**GEOGRAPHY, "fill": fill, **data}, **HTMX
    )


def test_owner_takes_template_skills(as_user, player, ana_hero):
    client = as_user(player)
    assert take(client, ana_hero, "Northern Marches").status_code == 200
    response = take(client, ana_hero, "Salt Coast")
    assert response.status_code == 200
    assert b"Geography: Salt Coast" in response.content
    taken = ana_hero.ratings.filter(skill__startswith="Geography: ").order_by("skill")
    assert [(r.attribute, r.skill, r.value, r.status) for r in taken] == [
        ("Education", "Geography: Northern Marches", 0, "approved"),
        ("Education", "Geography: Salt Coast", 0, "approved"),
    ]


def test_gm_takes_a_template_skill_for_a_player(as_user, gm, ana_hero):
    response = as_user(gm).post(
        sheet_url("skill_take", ana_hero),
        {"attribute": "Social", "template": "Manners: {Society}", "fill": "Court"},
        **HTMX,
    )
    assert response.status_code == 200
    assert rating_of(ana_hero, "Social", "Manners: Court") is not None


def test_duplicate_template_skill_is_refused(as_user, player, ana_hero):
    client = as_user(player)
    take(client, ana_hero, "Northern Marches")
    with unchanged():
        response = take(client, ana_hero, "northern marches")
    assert response.status_code == 422
    assert b"This sheet already has Geography: Northern Marches." in response.content


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"fill": ""}, b"Name the Region."),
        ({"fill": "   "}, b"Name the Region."),
        ({"fill": "x" * 61}, b"Name: Ensure this value has at most 60 characters"),
        ({"fill": "{x}"}, b"braces"),
        ({"fill": "North", "attribute": "Lore"}, b"Attribute: Select a valid choice."),
        ({"fill": "North", "attribute": "Social"}, b"Social has no template skill"),
        ({"fill": "North", "template": "Jump"}, b"Education has no template skill"),
        ({"fill": "North", "template": ""}, b"Template: This field is required."),
    ],
)
def test_bad_template_skill_changes_nothing(as_user, player, ana_hero, data, message):
    with unchanged():
        response = as_user(player).post(
            sheet_url("skill_take", ana_hero), {**GEOGRAPHY, **data}, **HTMX
        )
    assert response.status_code == 422
    assert message in response.content


def test_take_access(as_user, other_player, outsider, gm, ana_hero, elsewhere_hero, ana_mage):
    url = sheet_url("skill_take", ana_hero)
    data = {**GEOGRAPHY, "fill": "North"}
    with unchanged():
        assert as_user(other_player).post(url, data, **HTMX).status_code == 403
        assert as_user(outsider).post(url, data, **HTMX).status_code == 404
        assert as_user(None).post(url, data).status_code == 302
        wrong = reverse("skill_take", args=[ana_hero.campaign_id, elsewhere_hero.id])
        assert as_user(gm).post(wrong, data).status_code == 404
        assert as_user(gm).post(sheet_url("skill_take", ana_mage), data).status_code == 404


# skill_propose (owner or GM) -------------------------------------------------------------------


def propose(client, character, **data):
    return client.post(sheet_url("skill_propose", character), data, **HTMX)


def test_owner_proposes_a_skill(as_user, player, ana_hero):
    response = propose(as_user(player), ana_hero, attribute="Trick", name="Card tricks")
    assert response.status_code == 200
    assert b"Card tricks" in response.content and b"pending GM approval" in response.content
    rating = rating_of(ana_hero, "Trick", "Card tricks")
    assert (rating.custom, rating.status, rating.value) == (True, Rating.PENDING, 0)


def test_declined_skill_is_marked(as_user, player, ana_hero):
    rating = skill_propose(character=ana_hero, attribute="Trick", name="Juggling")
    Rating.objects.filter(pk=rating.pk).update(status=Rating.DECLINED)
    html = as_user(player).get(sheet_url("character_detail", ana_hero)).content.decode()
    assert "Juggling" in html and "declined" in html


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"attribute": "Strength", "name": "jump"}, b"This sheet already has Jump."),
        ({"attribute": "Trick", "name": "Climb"}, b"This sheet already has Climb."),
        ({"attribute": "Magic", "name": "Sparks"}, b"Attribute: Select a valid choice."),
        ({"attribute": "Trick", "name": ""}, b"New skill: This field is required."),
        ({"attribute": "Trick", "name": "n" * 61}, b"at most 60 characters"),
        ({"attribute": "Trick", "name": "{Blank}"}, b"braces"),
        ({"name": "Sparks"}, b"Attribute: This field is required."),
    ],
)
def test_bad_proposal_changes_nothing(as_user, player, ana_hero, data, message):
    with unchanged():
        response = propose(as_user(player), ana_hero, **data)
    assert response.status_code == 422
    assert message in response.content


def test_duplicate_proposal_is_refused(as_user, player, ana_hero):
    client = as_user(player)
    propose(client, ana_hero, attribute="Trick", name="Juggling")
    with unchanged():
        response = propose(client, ana_hero, attribute="Agility", name="JUGGLING")
    assert response.status_code == 422
    assert b"This sheet already has Juggling (pending)." in response.content


def test_propose_access(as_user, other_player, outsider, gm, ana_hero, elsewhere_hero, ana_mage):
    url = sheet_url("skill_propose", ana_hero)
    data = {"attribute": "Trick", "name": "Juggling"}
    with unchanged():
        assert as_user(other_player).post(url, data, **HTMX).status_code == 403
        assert as_user(outsider).post(url, data, **HTMX).status_code == 404
        assert as_user(None).post(url, data).status_code == 302
        wrong = reverse("skill_propose", args=[ana_hero.campaign_id, elsewhere_hero.id])
        assert as_user(gm).post(wrong, data).status_code == 404
        assert as_user(gm).post(sheet_url("skill_propose", ana_mage), data).status_code == 404
