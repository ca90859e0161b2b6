"""Pool's writes on a character: its ratings, skills and HP (rolls.systems.pool.services)."""

import pytest

from rolls.systems.pool import services
from rolls.systems.pool.models import Rating, hp_max_of, rating_of, settings_of, sheet_of
from rolls.systems.pool.services import hp_set
from tests.helpers import raises_refused, unchanged

# rating_set ----------------------------------------------------------------------------------


def test_rating_set_changes_the_value(ana_hero):
    jump = rating_of(ana_hero, "Strength", "Jump")
    services.rating_set(rating=jump, value=4)
    jump.refresh_from_db()
    assert jump.value == 4


@pytest.mark.parametrize("value", [-1, 101])
def test_rating_set_refuses_values_out_of_range(ana_hero, value):
    jump = rating_of(ana_hero, "Strength", "Jump")
    with unchanged(), raises_refused(match="between 0 and 100"):
        services.rating_set(rating=jump, value=value)


def test_rating_set_refuses_a_pending_skill(ana_hero):
    pending = services.skill_propose(character=ana_hero, attribute="Trick", name="Juggling")
    with unchanged(), raises_refused(match="Juggling is pending"):
        services.rating_set(rating=pending, value=2)


def test_lowering_endurance_lowers_current_hp_to_the_new_maximum(ana_hero, pool_campaign):
    endurance = rating_of(ana_hero, "Strength", "Endurance")
    services.rating_set(rating=endurance, value=5)
    ana_hero.refresh_from_db()
    hp_set(character=ana_hero, value=settings_of(pool_campaign).hp_max_for(5))
    services.rating_set(rating=endurance, value=2)
    ana_hero.refresh_from_db()
    assert sheet_of(ana_hero).hp_current == settings_of(pool_campaign).hp_max_for(2)


def test_raising_endurance_keeps_current_hp(ana_hero, pool_campaign):
    services.rating_set(rating=rating_of(ana_hero, "Strength", "Endurance"), value=3)
    ana_hero.refresh_from_db()
    assert sheet_of(ana_hero).hp_current == settings_of(pool_campaign).hp_max_for(0)
    assert hp_max_of(ana_hero) == settings_of(pool_campaign).hp_max_for(3)


# skill_take ------------------------------------------------------------------------------------


def test_skill_take_fills_the_blank(ana_hero):
    rating = services.skill_take(
        character=ana_hero,
        attribute="Education",
        template="Geography: {Region}",
        fill="  Northern   Marches ",
    )
    assert (rating.attribute, rating.skill, rating.value) == (
        "Education",
        "Geography: Northern Marches",
        0,
    )
    assert rating.is_approved and not rating.custom


def test_skill_take_allows_several_names(ana_hero):
    for region in ("Northern Marches", "Salt Coast"):
        services.skill_take(
            character=ana_hero, attribute="Education", template="Geography: {Region}", fill=region
        )
    assert ana_hero.ratings.filter(skill__startswith="Geography: ").count() == 2


def test_skill_take_refuses_a_duplicate_in_any_case(ana_hero):
    services.skill_take(
        character=ana_hero, attribute="Social", template="Manners: {Society}", fill="Court"
    )
    with unchanged(), raises_refused(match="already has Manners: Court"):
        services.skill_take(
            character=ana_hero, attribute="Social", template="Manners: {Society}", fill="COURT"
        )


def test_skill_take_refuses_a_vocation_named_like_an_existing_skill(ana_hero):
    with unchanged(), raises_refused(match="already has Alchemy"):
        services.skill_take(
            character=ana_hero, attribute="Education", template="{Vocation}", fill="alchemy"
        )


@pytest.mark.parametrize(
    ("attribute", "template", "fill", "message"),
    [
        ("Education", "Geography: {Region}", "   ", "Name the Region"),
        ("Education", "Geography: {Region}", "x" * 61, "at most 60"),
        ("Education", "Geography: {Region}", "{Evil}", "braces"),
        ("Education", "Manners: {Society}", "Court", "no template skill"),
        ("Strength", "Jump", "High", "no template skill"),
        ("Lore", "Geography: {Region}", "North", "not an attribute"),
    ],
)
def test_skill_take_refuses_bad_input(ana_hero, attribute, template, fill, message):
    with unchanged(), raises_refused(match=message):
        services.skill_take(character=ana_hero, attribute=attribute, template=template, fill=fill)


# skill_propose and skill_decide ----------------------------------------------------------------


def test_skill_propose_adds_a_pending_custom_skill(ana_hero):
    rating = services.skill_propose(character=ana_hero, attribute="Trick", name=" Card  tricks ")
    assert (rating.attribute, rating.skill, rating.status, rating.custom) == (
        "Trick",
        "Card tricks",
        Rating.PENDING,
        True,
    )


@pytest.mark.parametrize(
    ("attribute", "name", "message"),
    [
        ("Strength", "jump", "already has Jump"),
        ("Trick", "Agility", "already has Agility"),
        ("Trick", "", "1 to 60"),
        ("Trick", "y" * 61, "1 to 60"),
        ("Trick", "Geo {x}", "braces"),
        ("Magic", "Sparks", "not an attribute"),
    ],
)
def test_skill_propose_refuses_bad_input(ana_hero, attribute, name, message):
    with unchanged(), raises_refused(match=message):
        services.skill_propose(character=ana_hero, attribute=attribute, name=name)


def test_skill_propose_refuses_a_name_already_declined(ana_hero):
    rating = services.skill_propose(character=ana_hero, attribute="Trick", name="Juggling")
    services.skill_decide(rating=rating, approve=False)
    with unchanged(), raises_refused(match=r"Juggling \(declined\)"):
        services.skill_propose(character=ana_hero, attribute="Agility", name="juggling")


@pytest.mark.parametrize(("approve", "status"), [(True, "approved"), (False, "declined")])
def test_skill_decide(ana_hero, approve, status):
    rating = services.skill_propose(character=ana_hero, attribute="Trick", name="Juggling")
    services.skill_decide(rating=rating, approve=approve)
    rating.refresh_from_db()
    assert rating.status == status


def test_skill_decide_twice_is_refused(ana_hero):
    rating = services.skill_propose(character=ana_hero, attribute="Trick", name="Juggling")
    services.skill_decide(rating=rating, approve=True)
    with unchanged(), raises_refused(match="already approved"):
        services.skill_decide(rating=rating, approve=False)


def test_skill_decide_refuses_a_seed_skill(ana_hero):
    jump = rating_of(ana_hero, "Strength", "Jump")
    with unchanged(), raises_refused():
        services.skill_decide(rating=jump, approve=False)


# hp_set -----------------------------------------------------------------------------------------


def test_set_hp_current_within_range(ana_hero):
    hp_set(character=ana_hero, value=0)
    ana_hero.refresh_from_db()
    assert sheet_of(ana_hero).hp_current == 0
    for value in (-1, hp_max_of(ana_hero) + 1):
        with unchanged(), raises_refused(match="between 0 and"):
            hp_set(character=ana_hero, value=value)
