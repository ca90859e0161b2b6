"""The odds calculator of the rules page (insights.views.odds_calculator): open to everyone,
as an htmx fragment or the whole rules page, exact chances from the engine, clear refusals."""

from fractions import Fraction

import pytest
from django.urls import reverse

from rules import mana, pool
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
