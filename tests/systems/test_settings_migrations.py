"""The systems' fields moved from columns of the shared models to the systems' own models:
Mana's palette to ``ManaSettings`` (mana 0002), Pool's costs and hit points to ``PoolSettings``
(pool 0001), a Mana character's traits to ``ManaSheet`` (mana 0003), a Pool character's current
HP to ``PoolSheet`` (pool 0002), a check's skill to ``ManaCheck`` (mana 0004) and its binding
and shift to ``PoolCheck`` (pool 0003; rolls 0007 drops the columns). A database migrated from
before a move keeps every value, read through the new place; migrated back, the columns hold
them again, those written after the move too."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType

from campaigns.models import Campaign
from campaigns.services import campaign_create
from rolls.models import Check
from rolls.services import check_ask
from rolls.systems.mana.models import (
    DEFAULT_PALETTE,
    ManaCheck,
    ManaSettings,
    ManaSheet,
    ManaSkill,
    palette_of,
    traits_of,
)
from rolls.systems.mana.models import check_of as mana_check_of
from rolls.systems.mana.services import traits_set
from rolls.systems.pool.models import (
    PoolCheck,
    PoolSettings,
    PoolSheet,
    Rating,
    settings_of,
    sheet_of,
)
from rolls.systems.pool.models import check_of as pool_check_of
from rolls.systems.pool.services import check_answer_shift, hp_set, rating_set
from sheets.models import Character
from sparetime.models import SparetimeEntry
from tests.systems.test_mana_migrations import migrate

#: Before the move: the settings columns of the campaign.
BEFORE = [("campaigns", "0005_manaskill_moves_to_mana"), ("mana", "0001_initial")]
#: After it: every installed app at its latest (the tests' Fate-style system too, whose
#: migration going back to BEFORE undid).
AFTER = None
#: A Pool campaign's settings, by field name.
POOL = ("attribute_cost", "skill_cost", "hp_base", "hp_per_endurance")


@pytest.mark.django_db(transaction=True)
def test_palettes_written_before_the_move_are_manas_after_it_and_back():
    old = migrate(BEFORE)
    try:
        OldCampaign = old.get_model("campaigns", "Campaign")
        harbor = OldCampaign.objects.create(name="Harbor", system="mana", palette=["sun", "moon"])
        plain = OldCampaign.objects.create(name="Plain", system="mana")
        marches = OldCampaign.objects.create(name="Marches", system="pool")
    finally:
        migrate(AFTER)

    assert palette_of(Campaign.objects.get(pk=harbor.pk)) == ["sun", "moon"]
    assert palette_of(Campaign.objects.get(pk=plain.pk)) == DEFAULT_PALETTE
    assert set(ManaSettings.objects.values_list("campaign_id", flat=True)) == {harbor.pk, plain.pk}
    assert Campaign.objects.filter(pk=marches.pk).exists()

    gm = get_user_model().objects.create(username="gm")
    tide = campaign_create(user=gm, name="Tide", system="mana", palette=["salt", "foam"])
    old = migrate(BEFORE)
    try:
        palettes = dict(old.get_model("campaigns", "Campaign").objects.values_list("id", "palette"))
        assert palettes == {
            harbor.pk: ["sun", "moon"],
            plain.pk: DEFAULT_PALETTE,
            marches.pk: DEFAULT_PALETTE,
            tide.pk: ["salt", "foam"],
        }
    finally:
        migrate(AFTER)


@pytest.mark.django_db(transaction=True)
def test_pool_settings_written_before_the_move_are_pools_after_it_and_back():
    old = migrate(BEFORE)
    try:
        OldCampaign = old.get_model("campaigns", "Campaign")
        marches = OldCampaign.objects.create(
            name="Marches",
            system="pool",
            attribute_cost=3,
            skill_cost=2,
            hp_base=12,
            hp_per_endurance=4,
        )
        plain = OldCampaign.objects.create(name="Plain", system="pool")
        harbor = OldCampaign.objects.create(name="Harbor", system="mana", skill_cost=9)
    finally:
        migrate(AFTER)

    row = settings_of(Campaign.objects.get(pk=marches.pk))
    assert [getattr(row, f) for f in POOL] == [3, 2, 12, 4]
    assert row.hp_max_for(2) == 20
    assert [getattr(settings_of(Campaign.objects.get(pk=plain.pk)), f) for f in POOL] == [
        1,
        1,
        10,
        2,
    ]
    assert set(PoolSettings.objects.values_list("campaign_id", flat=True)) == {marches.pk, plain.pk}
    assert not PoolSettings.objects.filter(campaign_id=harbor.pk).exists()

    gm = get_user_model().objects.create(username="gm")
    wilds = campaign_create(
        user=gm,
        name="Wilds",
        system="pool",
        attribute_cost=5,
        skill_cost=4,
        hp_base=0,
        hp_per_endurance=7,
    )
    old = migrate(BEFORE)
    try:
        rows = old.get_model("campaigns", "Campaign").objects.values_list("id", *POOL)
        assert {pk: values for pk, *values in rows} == {
            marches.pk: [3, 2, 12, 4],
            plain.pk: [1, 1, 10, 2],
            harbor.pk: [1, 1, 10, 2],
            wilds.pk: [5, 4, 0, 7],
        }
    finally:
        migrate(AFTER)


#: Before the traits' move: the column of the character.
BEFORE_TRAITS = [
    ("sheets", "0003_manapool_moves_to_mana"),
    ("mana", "0002_mana_settings"),
    ("campaigns", "0007_pool_settings_move_to_pool"),
]


@pytest.mark.django_db(transaction=True)
def test_traits_written_before_the_move_are_manas_after_it_and_back():
    old = migrate(BEFORE_TRAITS)
    try:
        User = old.get_model("auth", "User")
        OldCampaign = old.get_model("campaigns", "Campaign")
        OldCharacter = old.get_model("sheets", "Character")
        ana = User.objects.create(username="ana")
        harbor = OldCampaign.objects.create(name="Harbor", system="mana")
        marches = OldCampaign.objects.create(name="Marches", system="pool")
        mira = OldCharacter.objects.create(
            campaign=harbor, owner=ana, name="Mira", traits=["Athletic", "sharp eyes"]
        )
        ilse = OldCharacter.objects.create(campaign=harbor, owner=ana, name="Ilse")
        hero = OldCharacter.objects.create(campaign=marches, owner=ana, name="Hero", traits=["x"])
    finally:
        migrate(AFTER)

    assert traits_of(Character.objects.get(pk=mira.pk)) == ["Athletic", "sharp eyes"]
    assert traits_of(Character.objects.get(pk=ilse.pk)) == []
    assert set(ManaSheet.objects.values_list("character_id", flat=True)) == {mira.pk, ilse.pk}
    assert Character.objects.filter(pk=hero.pk).exists()

    traits_set(character=Character.objects.get(pk=ilse.pk), traits=["Stubborn"])
    old = migrate(BEFORE_TRAITS)
    try:
        traits = dict(old.get_model("sheets", "Character").objects.values_list("id", "traits"))
        assert traits == {mira.pk: ["Athletic", "sharp eyes"], ilse.pk: ["Stubborn"], hero.pk: []}
    finally:
        migrate(AFTER)


#: Before the HP's move: the column of the character.
BEFORE_HP = [
    ("sheets", "0004_traits_move_to_mana"),
    ("pool", "0001_initial"),
    ("mana", "0003_mana_sheet"),
    ("campaigns", "0007_pool_settings_move_to_pool"),
]


@pytest.mark.django_db(transaction=True)
def test_hp_written_before_the_move_is_pools_after_it_and_back():
    old = migrate(BEFORE_HP)
    try:
        User = old.get_model("auth", "User")
        OldCampaign = old.get_model("campaigns", "Campaign")
        OldCharacter = old.get_model("sheets", "Character")
        ana = User.objects.create(username="ana")
        marches = OldCampaign.objects.create(name="Marches", system="pool")
        harbor = OldCampaign.objects.create(name="Harbor", system="mana")
        aria = OldCharacter.objects.create(campaign=marches, owner=ana, name="Aria", hp_current=7)
        bram = OldCharacter.objects.create(campaign=marches, owner=ana, name="Bram")
        mira = OldCharacter.objects.create(campaign=harbor, owner=ana, name="Mira", hp_current=3)
    finally:
        migrate(AFTER)

    assert sheet_of(Character.objects.get(pk=aria.pk)).hp_current == 7
    assert sheet_of(Character.objects.get(pk=bram.pk)).hp_current == 0
    assert set(PoolSheet.objects.values_list("character_id", flat=True)) == {aria.pk, bram.pk}
    assert Character.objects.filter(pk=mira.pk).exists()

    hp_set(character=Character.objects.get(pk=bram.pk), value=5)
    old = migrate(BEFORE_HP)
    try:
        hp = dict(old.get_model("sheets", "Character").objects.values_list("id", "hp_current"))
        assert hp == {aria.pk: 7, bram.pk: 5, mira.pk: 0}
    finally:
        migrate(AFTER)


#: Before the check's system fields moved: Pool's binding and shift, Mana's skill, columns of
#: the check.
BEFORE_CHECKS = [
    ("rolls", "0006_mana_skill_moves_to_mana"),
    ("pool", "0002_pool_sheet"),
    ("mana", "0003_mana_sheet"),
    ("campaigns", "0007_pool_settings_move_to_pool"),
    ("sheets", "0005_hp_moves_to_pool"),
]
#: What a check's columns held, read back from the old database: status, then the Pool
#: columns, then Mana's skill.
OLD_CHECK = (
    "status",
    "asked_attribute",
    "asked_skill",
    "attribute_id",
    "skill_id",
    "shift_d6",
    "shift_d10",
    "bonus_effect",
    "shift_declined",
    "decline_reason",
    "mana_skill_id",
)


@pytest.mark.django_db(transaction=True)
def test_a_checks_binding_and_shift_written_before_the_move_are_the_systems_after_it_and_back():
    old = migrate(BEFORE_CHECKS)
    try:
        User = old.get_model("auth", "User")
        OldCampaign = old.get_model("campaigns", "Campaign")
        OldCharacter = old.get_model("sheets", "Character")
        OldRating = old.get_model("sheets", "Rating")
        OldSkill = old.get_model("mana", "ManaSkill")
        OldCheck = old.get_model("rolls", "Check")
        gm = User.objects.create(username="gm")
        ana = User.objects.create(username="ana")
        marches = OldCampaign.objects.create(name="Marches", system="pool")
        harbor = OldCampaign.objects.create(name="Harbor", system="mana")
        aria = OldCharacter.objects.create(campaign=marches, owner=ana, name="Aria")
        strength = OldRating.objects.create(character=aria, attribute="Strength", value=3)
        jump = OldRating.objects.create(character=aria, attribute="Strength", skill="Jump", value=2)
        mira = OldCharacter.objects.create(campaign=harbor, owner=ana, name="Mira")
        mend = OldSkill.objects.create(
            campaign=harbor, name="Mend", color_a="white", color_b="green"
        )
        made = {"created_by": gm}
        shifted = OldCheck.objects.create(
            campaign=marches,
            character=aria,
            status="shift",
            asked_attribute="Strength",
            asked_skill="Jump",
            attribute=strength,
            skill=jump,
            shift_d6=1,
            bonus_effect="land silently",
            intent="leap the gap",
            **made,
        )
        declined = OldCheck.objects.create(
            campaign=marches,
            character=aria,
            shift_declined=True,
            decline_reason="the floor is ice",
            **made,
        )
        asked = OldCheck.objects.create(campaign=harbor, character=mira, mana_skill=mend, **made)
        any_skill = OldCheck.objects.create(campaign=harbor, character=mira, **made)
    finally:
        migrate(AFTER)

    own = pool_check_of(Check.objects.get(pk=shifted.pk))
    assert (own.asked_attribute, own.asked_skill, own.attribute, own.skill) == (
        "Strength",
        "Jump",
        Rating.objects.get(pk=strength.pk),
        Rating.objects.get(pk=jump.pk),
    )
    assert (own.shift_d6, own.shift_d10, own.bonus_effect) == (1, 0, "land silently")
    assert Check.objects.get(pk=shifted.pk).intent == "leap the gap"
    own = pool_check_of(Check.objects.get(pk=declined.pk))
    assert (own.shift_declined, own.decline_reason, own.attribute) == (
        True,
        "the floor is ice",
        None,
    )
    assert mana_check_of(Check.objects.get(pk=asked.pk)).skill == ManaSkill.objects.get()
    assert mana_check_of(Check.objects.get(pk=any_skill.pk)).skill is None
    assert set(PoolCheck.objects.values_list("pk", flat=True)) == {shifted.pk, declined.pk}
    assert set(ManaCheck.objects.values_list("pk", flat=True)) == {asked.pk, any_skill.pk}

    # Written after the move, through the systems' writes: the GM declines the shift, and a
    # new Mana check binds the skill.
    check_answer_shift(check=Check.objects.get(pk=shifted.pk), approve=False, reason="not now")
    harbor_now = Campaign.objects.get(pk=harbor.pk)
    later = check_ask(
        campaign=harbor_now,
        character=Character.objects.get(pk=mira.pk),
        by=get_user_model().objects.get(pk=gm.pk),
        target=2,
        mana_skill=ManaSkill.objects.get(),
    )
    old = migrate(BEFORE_CHECKS)
    try:
        rows = old.get_model("rolls", "Check").objects.values_list("pk", *OLD_CHECK)
        columns = {pk: tuple(values) for pk, *values in rows}
        pool_empty = ("", "", None, None, 0, 0, "", False, "")
        assert columns == {
            shifted.pk: ("open", "Strength", "Jump", strength.pk, jump.pk)
            + (0, 0, "", True, "not now", None),
            declined.pk: ("open", "", "", None, None, 0, 0, "", True, "the floor is ice", None),
            asked.pk: ("open", *pool_empty, mend.pk),
            any_skill.pk: ("open", *pool_empty, None),
            later.pk: ("open", *pool_empty, mend.pk),
        }
    finally:
        migrate(AFTER)


#: Before Pool's ratings moved from sheets (pool 0004, sparetime 0004, sheets 0006).
BEFORE_RATINGS = [
    ("pool", "0003_pool_check"),
    ("sparetime", "0003_counter_entries"),
    ("sheets", "0005_hp_moves_to_pool"),
    ("rolls", "0007_check_fields_move_to_systems"),
    "campaigns",
    "mana",
]


@pytest.mark.django_db(transaction=True)
def test_ratings_written_before_the_move_are_pools_after_it_and_back():
    old = migrate(BEFORE_RATINGS)
    try:
        User = old.get_model("auth", "User")
        OldContentType = old.get_model("contenttypes", "ContentType")
        OldCampaign = old.get_model("campaigns", "Campaign")
        OldCharacter = old.get_model("sheets", "Character")
        OldRating = old.get_model("sheets", "Rating")
        OldCheck = old.get_model("rolls", "Check")
        OldPoolCheck = old.get_model("pool", "PoolCheck")
        OldEntry = old.get_model("sparetime", "SparetimeEntry")
        gm = User.objects.create(username="gm")
        ana = User.objects.create(username="ana")
        marches = OldCampaign.objects.create(name="Marches", system="pool")
        aria = OldCharacter.objects.create(campaign=marches, owner=ana, name="Aria")
        strength = OldRating.objects.create(character=aria, attribute="Strength", value=3)
        jump = OldRating.objects.create(
            character=aria, attribute="Strength", skill="Jump", value=2, custom=True
        )
        check = OldCheck.objects.create(campaign=marches, character=aria, created_by=gm)
        OldPoolCheck.objects.create(check_ref=check, attribute=strength, skill=jump)
        spend = OldEntry.objects.create(
            campaign=marches, character=aria, kind="spend", amount=-1, rating=jump, created_by=ana
        )
        spend.targets.add(strength, jump)
        OldContentType.objects.get_or_create(app_label="sheets", model="rating")
    finally:
        migrate(AFTER)

    assert Rating._meta.db_table == "sheets_rating"
    aria_now = Character.objects.get(pk=aria.pk)
    assert {(r.pk, r.label, r.value, r.custom) for r in aria_now.ratings.all()} == {
        (strength.pk, "Strength", 3, False),
        (jump.pk, "Jump", 2, True),
    }
    own = pool_check_of(Check.objects.get(pk=check.pk))
    assert (own.attribute.pk, own.skill.pk) == (strength.pk, jump.pk)
    entry = SparetimeEntry.objects.get(pk=spend.pk)
    assert entry.rating == Rating.objects.get(pk=jump.pk)
    assert set(entry.targets.values_list("pk", flat=True)) == {strength.pk, jump.pk}
    assert ContentType.objects.get_for_model(Rating).app_label == "pool"
    assert not ContentType.objects.filter(app_label="sheets", model="rating").exists()

    # Written after the move, through Pool's write: the GM raises Jump.
    rating_set(rating=Rating.objects.get(pk=jump.pk), value=4)
    old = migrate(BEFORE_RATINGS)
    try:
        OldRating = old.get_model("sheets", "Rating")
        assert dict(OldRating.objects.values_list("pk", "value")) == {strength.pk: 3, jump.pk: 4}
        OldEntry = old.get_model("sparetime", "SparetimeEntry")
        assert OldEntry.objects.get(pk=spend.pk).rating_id == jump.pk
        OldContentType = old.get_model("contenttypes", "ContentType")
        assert OldContentType.objects.filter(app_label="sheets", model="rating").exists()
    finally:
        migrate(AFTER)
