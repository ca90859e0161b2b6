"""The odds calculator of the rules page (insights.views.odds_calculator): open to everyone,
as an htmx fragment or the whole rules page, exact chances from the engine, clear refusals."""

from fractions import Fraction

import pytest
from django.test import override_settings
from django.urls import reverse
from django.utils.html import escape
from hypothesis import given
from hypothesis import strategies as st

from rolls.templatetags.dice import percent
from rules import MAX_DICE, MAX_TARGET, mana, odds, pool
from tests.helpers import HTMX

CALC = reverse("odds_calculator")


def calc(client, htmx=True, **params):
    response = client.get(CALC, params, **(HTMX if htmx else {}))
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.django_db
def test_the_rules_page_shows_both_calculators_to_anyone(client):
    html = client.get(reverse("rules")).content.decode()
    assert 'id="calculator"' in html
    assert 'name="system" value="mana"' in html and 'name="system" value="pool"' in html
    assert f'hx-get="{CALC}"' in html


@pytest.mark.django_db
def test_mana_from_the_spend(client):
    html = calc(client, system="mana", spend_a=1, spend_b=1, colorless=0, difficulty=3)
    assert "1 free + 2 mana + 1 synergy = 4d10" in html
    assert mana.success_probability(4, 3) == Fraction(2307, 10000)
    assert '<b class="chance">23.1%</b>' in html and "exactly 2307/10000" in html
    assert "<html" not in html


@pytest.mark.django_db
def test_mana_trait_and_earlier_attempts(client):
    html = calc(client, system="mana", spend_a=1, colorless=2, trait="on", previous=3, difficulty=2)
    # 2 units, no synergy (no second color), trait ceil(2 / 2) = 1, reroll floor(3 / 2) = 1
    assert "1 free + 2 mana + 1 trait + 1 reroll = 5d10" in html
    assert f"exactly {mana.success_probability(5, 2)}" in html


@pytest.mark.django_db
def test_mana_dice_count_wins_over_the_spend(client):
    html = calc(client, system="mana", dice=7, spend_a=1, difficulty=3)
    assert "7d10" in html and "exactly 132351/250000" in html


@pytest.mark.django_db
def test_pool_exact(client):
    html = calc(client, system="pool", d6=3, d10=2, tn=8)
    chance = pool.success_probability(3, 2, 8)
    # a d6 reaches 8 by 6 then 2+: 5/36; a d10 by 8, 9 or 0: 3/10
    assert chance == 1 - Fraction(31, 36) ** 3 * Fraction(7, 10) ** 2
    assert "3d6 + 2d10" in html and f"exactly {chance}" in html


@pytest.mark.django_db
def test_a_plain_get_answers_the_whole_page_with_the_values_kept(client):
    html = calc(client, htmx=False, system="pool", d6=1, d10=0, tn=6)
    assert "<html" in html and "The rules as Rollroom plays them" in html
    assert "exactly 1/6" in html
    assert 'name="d6" min="0" max="100" inputmode="numeric" value="1"' in html


@pytest.mark.django_db
@pytest.mark.parametrize(
    "params, message",
    [
        ({"system": "mana", "difficulty": "x"}, "Difficulty: Enter a whole number."),
        ({"system": "mana", "difficulty": 0}, "Difficulty: Ensure this value is greater than"),
        ({"system": "mana", "colorless": 1, "difficulty": 2}, "spent in pairs"),
        ({"system": "mana", "previous": 2, "difficulty": 2}, "must spend at least one new"),
        ({"system": "mana", "spend_a": 100, "spend_b": 100, "difficulty": 2}, "at most 100"),
        ({"system": "pool", "d6": 0, "d10": 0, "tn": 3}, "A pool needs at least one die."),
        ({"system": "pool", "d6": 60, "d10": 60, "tn": 3}, "at most 100 dice"),
        ({"system": "pool", "d6": 1, "tn": 1001}, "TN: Ensure this value is less than"),
        ({"system": "dice"}, "Choose the Mana or the Pool calculator."),
        ({}, "Choose the Mana or the Pool calculator."),
    ],
)
def test_bad_input_is_a_clear_message(client, params, message):
    html = calc(client, **params)
    assert '<span class="error">' in html and message in html


@pytest.mark.django_db
def test_typed_text_is_escaped_on_the_plain_page(client):
    html = calc(client, htmx=False, system="pool", d6="<script>x</script>", tn=3)
    assert "<script>x</script>" not in html
    assert "&lt;script&gt;x&lt;/script&gt;" in html


@pytest.mark.django_db
def test_only_get(client):
    assert client.post(CALC, {"system": "pool"}).status_code == 405


# The ends of the ranges (issue #43): fractions of thousands of digits ----------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "params, about",
    [
        ({"d6": 0, "d10": 45, "tn": 1000}, "about 4.5e-99"),  # terms of ~4,500 digits
        ({"d6": 100, "tn": 350}, "about 6.13827345096750"),  # ~4,600
        ({"d6": 50, "d10": 50, "tn": 1000}, "about 5e-99"),
        ({"d10": 100, "tn": 1000}, "about 1e-98"),  # ~10,000
        ({"d6": 50, "d10": 50, "tn": 12}, "about 1-0.0021895093050136"),  # ~200: near certain
    ],
)
def test_a_fraction_too_long_to_write_shows_its_approximation_to_anyone(client, params, about):
    """An anonymous visitor's calculator answered 500 here: Python refuses to write an integer
    of more than 4,300 digits."""
    for htmx in (True, False):
        html = calc(client, htmx=htmx, system="pool", **params)
        assert about in html and "the exact fraction is too long to write" in html
        assert "exactly" not in html.split('id="calculator"')[-1]
    d6, d10, tn = params.get("d6", 0), params.get("d10", 0), params["tn"]
    assert escape(percent(pool.success_probability(d6, d10, tn))) in html


@pytest.mark.django_db
def test_a_long_fraction_that_fits_is_still_exact(client):
    html = calc(client, system="mana", dice=100, difficulty=1)  # the longest Mana chance
    chance = mana.success_probability(100, 1)
    assert f"exactly {chance}" in html and len(str(chance.denominator)) == 101


@pytest.mark.django_db
@override_settings(WRITE_LIMITS={})  # the previews' limit has tests of its own (test_throttle)
@given(
    d6=st.one_of(st.integers(0, MAX_DICE), st.sampled_from([0, 1, MAX_DICE])),
    d10=st.one_of(st.integers(0, MAX_DICE), st.sampled_from([0, 1, MAX_DICE])),
    tn=st.one_of(st.integers(1, MAX_TARGET), st.sampled_from([1, 2, 606, 607, MAX_TARGET])),
)
def test_every_pool_calculation_the_form_accepts_answers(d6, d10, tn):
    from django.test import Client

    html = calc(Client(), system="pool", d6=d6, d10=d10, tn=tn)
    if not 1 <= d6 + d10 <= MAX_DICE:
        assert '<span class="error">' in html
        return
    chance = pool.success_probability(d6, d10, tn)
    assert f'<b class="chance">{escape(percent(chance))}</b>' in html
    text = odds.as_text(chance)
    assert (f"exactly {text}" if odds.is_exact(chance) else f"about {text[1:]}") in html


spend = st.one_of(st.integers(0, 100), st.sampled_from([0, 1, 99, 100]), st.none())


@pytest.mark.django_db
@override_settings(WRITE_LIMITS={})  # the previews' limit has tests of its own (test_throttle)
@given(
    dice=st.one_of(st.none(), st.integers(1, MAX_DICE), st.sampled_from([1, MAX_DICE])),
    spend_a=spend,
    spend_b=spend,
    colorless=spend,
    trait=st.booleans(),
    previous=st.one_of(st.integers(0, 300), st.sampled_from([0, 1, 300]), st.none()),
    difficulty=st.one_of(st.integers(1, MAX_TARGET), st.sampled_from([1, 200, MAX_TARGET])),
)
def test_every_mana_calculation_the_form_accepts_answers(
    dice, spend_a, spend_b, colorless, trait, previous, difficulty
):
    from django.test import Client

    typed = {"dice": dice, "spend_a": spend_a, "spend_b": spend_b, "colorless": colorless}
    typed |= {"previous": previous, "difficulty": difficulty} | ({"trait": "on"} if trait else {})
    html = calc(Client(), system="mana", **{k: v for k, v in typed.items() if v is not None})
    assert '<span class="error">' in html or "exactly " in html  # Mana's: always exact
