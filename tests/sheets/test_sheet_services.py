from rolls.systems.mana.models import COLORLESS, ManaSettings, has_trait, palette_of, traits_of
from rolls.systems.mana.services import traits_set
from rolls.systems.pool.models import hp_max_of, settings_of, sheet_of
from rules import sheet as pool_sheet
from sheets import services

# character_create ------------------------------------------------------------------------------


def test_pool_character_has_attributes_and_fixed_skills_at_zero(ana_hero, pool_campaign):
    ratings = list(ana_hero.ratings.all())
    attributes = [r.attribute for r in ratings if r.is_attribute]
    assert sorted(attributes) == sorted(pool_sheet.ATTRIBUTES)
    assert len(attributes) == 8
    skills = {(r.attribute, r.skill) for r in ratings if not r.is_attribute}
    expected = {(a, s) for a in pool_sheet.ATTRIBUTES for s in pool_sheet.fixed_skills(a)}
    assert skills == expected
    assert len(ratings) == 8 + len(expected)
    assert all(r.value == 0 and r.is_approved and not r.custom for r in ratings)
    assert not any(pool_sheet.is_template(r.skill) for r in ratings)
    full = settings_of(pool_campaign).hp_max_for(0)
    assert sheet_of(ana_hero).hp_current == hp_max_of(ana_hero) == full
    assert not ana_hero.mana.exists()


def test_mana_character_has_a_pool_per_color_and_colorless(ana_mage, mana_campaign):
    pools = list(ana_mage.mana.all())
    assert [p.color for p in pools] == [*palette_of(mana_campaign), COLORLESS]
    assert all(p.current == 0 and p.maximum == 0 for p in pools)
    assert not ana_mage.ratings.exists()


def test_mana_character_follows_a_custom_palette(mana_campaign, player):
    palette = ["gold", "colorless", "ash"]
    ManaSettings.objects.update_or_create(campaign=mana_campaign, defaults={"palette": palette})
    character = services.character_create(campaign=mana_campaign, owner=player, name="Ilse")
    assert [p.color for p in character.mana.all()] == ["gold", "colorless", "ash"]


# Model methods ---------------------------------------------------------------------------------


def test_set_traits_drops_blanks_and_repeats(ana_mage):
    traits_set(character=ana_mage, traits=["Athletic", " ", "sharp   eyes", "ATHLETIC"])
    ana_mage.refresh_from_db()
    assert traits_of(ana_mage) == ["Athletic", "sharp eyes"]
    assert has_trait(ana_mage, "athletic")
