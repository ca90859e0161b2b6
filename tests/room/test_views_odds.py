"""Live odds while the roll form is edited (check_odds) and the form's re-render when the
player picks another skill or attribute (check_form)."""

import pytest
from django.urls import reverse

from rolls import services
from rolls.models import Check
from rolls.systems.mana.models import ManaSkill
from rolls.systems.mana.services import traits_set
from rolls.templatetags.dice import percent
from rules import mana, pool
from sheets.services import character_create
from tests.helpers import HTMX, db_snapshot
from tests.rolls.room_setup import ask, mana_params, odds, roll_mana, url

# Mana -------------------------------------------------------------------------------------------


def test_mana_odds_part_by_part_with_the_exact_chance(mana_table, as_user, player):
    check = ask(mana_table, mana_table.mira, target=3)
    html = odds(as_user(player), mana_table, check, **mana_params(mana_table, spend_a=1, spend_b=1))
    assert "1 free + 2 mana + 1 synergy = 4d10" in html
    assert f'<b class="chance">{percent(mana.success_probability(4, 3))}</b>' in html
    assert "Mana: blue 3/3 · white 2/2 · colorless 4/4" in html
    assert "<html" not in html


def test_mana_odds_count_colorless_pairs_and_traits(mana_table, as_user, player):
    traits_set(character=mana_table.mira, traits=["Athletic"])
    check = ask(mana_table, mana_table.mira, target=2)
    html = odds(
        as_user(player),
        mana_table,
        check,
        **mana_params(mana_table, mana_table.jump, spend_a=1, spend_b=0, colorless=4),
    )
    # 1 red + 2 colorless pairs = 3 units; no synergy (no green); trait: ceil(3 / 2) = 2.
    assert "1 free + 3 mana + 2 trait = 6d10" in html
    assert percent(mana.success_probability(6, 2)) in html
    assert "Mana: red 1/1 · green 0/0 · colorless 4/4" in html


def test_reattempt_odds_add_the_reroll_dice(mana_table, as_user, player):
    check = ask(mana_table, mana_table.mira, target=3)
    roll_mana(check, player, mana_table.gather, (7, 10, 4, 2))
    services.check_allow_reattempt(check=check)
    html = odds(as_user(player), mana_table, check, **mana_params(mana_table, spend_a=1, spend_b=1))
    assert "1 free + 2 mana + 1 synergy + 1 reroll = 5d10" in html
    assert "Mana: blue 2/3 · white 1/2" in html


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"spend_a": 4}, "Not enough blue mana: you spend 4, the pool has 3."),
        ({"colorless": 3}, "Colorless mana is spent in pairs"),
        ({"color_a": "red"}, "Gather Information is rolled with blue and white mana"),
        ({"spend_b": "x"}, "White: Enter a whole number."),
        ({"spend_a": -2}, "Blue: Ensure this value is greater than or equal to 0."),
        ({"colorless": 10**6}, "Colorless: Ensure this value is less than or equal to 100."),
        ({"skill": 12345}, "Skill: Choose one of this campaign&#x27;s skills."),
    ],
)
def test_mana_odds_say_why_a_spend_would_be_refused(
    mana_table, as_user, player, overrides, message
):
    check = ask(mana_table, mana_table.mira, target=3)
    html = odds(as_user(player), mana_table, check, **mana_params(mana_table, **overrides))
    assert message in html
    assert 'class="chance"' not in html


def test_the_room_shows_the_first_odds(mana_table, as_user, player):
    ask(mana_table, mana_table.mira, target=1, mana_skill=mana_table.jump)
    html = as_user(player).get(url("room", mana_table)).content.decode()
    # The skill asked for, fixed.
    assert f'<input type="hidden" name="skill" value="{mana_table.jump.id}">' in html
    form = html[html.index('<form class="roll"') :]
    assert "<select" not in form[: form.index("</form>")]
    assert "1 free = 1d10" in html
    assert percent(mana.success_probability(1, 1)) in html  # 30.0%
    assert 'hx-trigger="input changed delay:120ms, change"' in html


def test_odds_change_nothing(mana_table, as_user, player):
    check = ask(mana_table, mana_table.mira, target=3)
    before = db_snapshot()
    odds(
        as_user(player),
        mana_table,
        check,
        **mana_params(mana_table, spend_a=3, spend_b=2, colorless=4),
    )
    assert db_snapshot() == before


# Pool -------------------------------------------------------------------------------------------


def pool_params(pool_table, **overrides):
    params = {
        "attribute": pool_table.strength.id,
        "skill": pool_table.jump.id,
        "shift_d6": 0,
        "shift_d10": 0,
    }
    return {**params, "bonus_effect": "", **overrides}


def test_pool_odds(pool_table, as_user, player):
    check = ask(pool_table, pool_table.ilse, target=8)
    html = odds(as_user(player), pool_table, check, **pool_params(pool_table))
    assert "3d6 + 2d10" in html
    assert percent(pool.success_probability(3, 2, 8)) in html


def test_pool_odds_with_a_shift(pool_table, as_user, player):
    check = ask(pool_table, pool_table.ilse, target=8)
    client = as_user(player)
    html = odds(client, pool_table, check, **pool_params(pool_table, shift_d6=2))
    assert "1d6 + 2d10 (2d6 shifted)" in html
    assert percent(pool.success_probability(1, 2, 8)) in html
    assert "Name the bonus effect the shifted dice are for." in html
    html = odds(
        client, pool_table, check, **pool_params(pool_table, shift_d6=2, bonus_effect="quietly")
    )
    assert "The GM agrees to the shift (or not) before the dice are rolled." in html


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"shift_d6": 3, "shift_d10": 2}, "At least one die must stay in the pool."),
        ({"shift_d10": 3}, "You cannot shift more dice than the pool has."),
        ({"attribute": "AGILITY"}, "Choose one of your character&#x27;s attributes."),
        ({"shift_d6": "lots"}, "Shift d6: Enter a whole number."),
    ],
)
def test_pool_odds_say_why_a_roll_would_be_refused(pool_table, as_user, player, overrides, message):
    check = ask(pool_table, pool_table.ilse, target=8)
    html = odds(as_user(player), pool_table, check, **pool_params(pool_table, **overrides))
    assert message in html


def test_pool_odds_refuse_a_skill_of_another_attribute(pool_table, as_user, player):
    check = ask(pool_table, pool_table.ilse, target=8)
    html = odds(
        as_user(player),
        pool_table,
        check,
        **pool_params(pool_table, attribute=pool_table.agility.id),
    )
    assert "Jump is a skill of Strength, not of Agility." in html


# Access -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["check_odds", "check_form"])
def test_only_the_owner_gets_odds_and_forms(mana_table, as_user, gm, other_player, outsider, name):
    check = ask(mana_table, mana_table.mira)
    path = reverse(name, args=[mana_table.campaign.id, check.id])
    assert as_user(other_player).get(path, mana_params(mana_table)).status_code == 403
    assert as_user(gm).get(path, mana_params(mana_table)).status_code == 403
    assert as_user(outsider).get(path, mana_params(mana_table)).status_code == 404
    response = as_user(None).get(path, mana_params(mana_table))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))


@pytest.mark.parametrize("name", ["check_odds", "check_form"])
def test_another_campaigns_check_is_404(mana_table, as_user, player, elsewhere, name):
    _campaign, _character, _skill, check = elsewhere
    path = reverse(name, args=[mana_table.campaign.id, check.id])
    assert as_user(player).get(path).status_code == 404


def test_odds_of_a_check_that_cannot_be_rolled(mana_table, as_user, player):
    check = ask(mana_table, mana_table.mira)
    Check.objects.filter(pk=check.pk).update(status=Check.DONE)
    assert "This check cannot be rolled now." in odds(as_user(player), mana_table, check)


# The form again after another skill or attribute ------------------------------------------------


def form(client, table, check, **params):
    path = reverse("check_form", args=[table.campaign.id, check.id])
    response = client.get(path, params, **HTMX)
    assert response.status_code == 200
    return response.content.decode()


def test_another_mana_skill_brings_its_two_colors(mana_table, as_user, player):
    check = ask(mana_table, mana_table.mira, target=2)
    html = form(
        as_user(player),
        mana_table,
        check,
        skill=mana_table.jump.id,
        color_a="blue",
        color_b="white",
        spend_a=2,
        spend_b=1,
        colorless=2,
        intent="Run",
    )
    assert html.lstrip().startswith("<form")
    assert '<input type="hidden" name="color_a" value="red">' in html
    assert '<input type="hidden" name="color_b" value="green">' in html
    assert "<label>Red " in html and "<label>Green " in html and "Blue" not in html
    assert f'name="spend_a" id="roll-{check.id}-spend_a" min="0" value="0"' in html
    assert f'name="colorless" id="roll-{check.id}-colorless" min="0" value="2"' in html
    assert 'value="Run"' in html
    assert "1 free + 1 mana = 2d10" in html  # the odds of the new form


def test_a_color_both_skills_share_keeps_its_amount(mana_table, as_user, player, mana_campaign):
    sneak = ManaSkill.objects.create(
        campaign=mana_campaign, name="Sneak", color_a="black", color_b="blue"
    )
    check = ask(mana_table, mana_table.mira)
    html = form(
        as_user(player),
        mana_table,
        check,
        skill=sneak.id,
        color_a="blue",
        color_b="white",
        spend_a=2,
        spend_b=1,
    )
    assert f'name="spend_b" id="roll-{check.id}-spend_b" min="0" value="2"' in html  # blue


def test_another_attribute_brings_its_skills(pool_table, as_user, player):
    check = ask(pool_table, pool_table.ilse)  # any attribute
    html = form(
        as_user(player),
        pool_table,
        check,
        attribute=pool_table.agility.id,
        skill=pool_table.jump.id,
        shift_d6=1,
        bonus_effect="quietly",
    )
    assert f'<option value="{pool_table.agility.id}" selected>Agility 1d6</option>' in html
    assert "Jump" not in html  # Strength's skill is gone, and not selected
    assert "Parkour" not in html  # pending
    assert "— Agility alone —" in html
    assert 'value="quietly"' in html
    assert "At least one die must stay in the pool." in html  # 1d6, shifted 1


def test_the_form_of_a_check_that_cannot_be_rolled(mana_table, as_user, player):
    check = ask(mana_table, mana_table.mira)
    Check.objects.filter(pk=check.pk).update(status=Check.FAILED)
    assert "This check cannot be rolled now." in form(as_user(player), mana_table, check)


def test_a_campaign_without_skills(mana_campaign, gm, player, as_user):
    character = character_create(campaign=mana_campaign, owner=player, name="Solo")
    services.check_ask(campaign=mana_campaign, character=character, by=gm, target=1)
    html = as_user(player).get(reverse("room", args=[mana_campaign.id])).content.decode()
    assert "The GM has not set up any skills yet." in html
