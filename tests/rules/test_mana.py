"""Mana checks: dice from a spend, successes, rolls and exact odds (rules.mana)."""

import dataclasses
import math
import random
from collections import Counter
from fractions import Fraction
from itertools import product

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from rules import MAX_DICE, MAX_TARGET, RulesError, mana
from tests.rules.scripted_rng import ScriptedRng

# --- the rules' worked example --------------------------------------------------------------------


def test_worked_example_first_attempt():
    dice = mana.dice_for(1, 1, 0)
    assert dice.parts == [("free", 1), ("mana", 2), ("synergy", 1)]
    assert dice.describe() == "1 free + 2 mana + 1 synergy = 4d10"
    assert (dice.dice, dice.units) == (4, 2)

    rng = ScriptedRng(7, 10, 4, 2)  # 10 is the face marked "0"
    result = mana.roll(dice.dice, 3, rng)
    assert rng.calls == [(1, 10)] * 4
    assert result == mana.ManaRoll(faces=(7, 10, 4, 2), successes=2, difficulty=3, success=False)


def test_worked_example_re_attempt():
    dice = mana.dice_for(1, 1, 0, previous_units=2)
    assert dice.parts == [("free", 1), ("mana", 2), ("synergy", 1), ("reroll", 1)]
    assert dice.describe() == "1 free + 2 mana + 1 synergy + 1 reroll = 5d10"

    result = mana.roll(dice.dice, 3, ScriptedRng(1, 10, 9, 8, 6))
    assert result.faces == (1, 10, 9, 8, 6)
    assert (result.successes, result.success) == (4, True)


# --- dice_for -------------------------------------------------------------------------------------


def test_free_die_alone():
    dice = mana.dice_for(0, 0, 0)
    assert dice == mana.ManaDice(free=1, mana=0, synergy=0, trait=0, reroll=0)
    assert dice.parts == [("free", 1)]
    assert dice.describe() == "1 free = 1d10"


def test_one_color_gives_no_synergy():
    assert mana.dice_for(3, 0, 0).synergy == 0
    assert mana.dice_for(0, 3, 0).synergy == 0


@pytest.mark.parametrize("spend", [(1, 0, 2), (0, 1, 2), (0, 0, 4)])
def test_colorless_pairs_are_units_but_never_synergy(spend):
    dice = mana.dice_for(*spend)
    assert dice.units == 2
    assert dice.synergy == 0
    assert dice.dice == 3


@pytest.mark.parametrize(
    ("spend", "trait_dice"),
    [
        ((0, 0, 0), 0),
        ((1, 0, 0), 1),
        ((1, 1, 0), 1),
        ((2, 1, 0), 2),
        ((1, 1, 2), 2),
        ((4, 0, 0), 2),
    ],
)
def test_trait_dice_round_up(spend, trait_dice):
    assert mana.dice_for(*spend, has_trait=True).trait == trait_dice
    assert mana.dice_for(*spend).trait == 0


def test_three_units_with_trait():
    dice = mana.dice_for(2, 1, 0, has_trait=True)
    assert dice.parts == [("free", 1), ("mana", 3), ("synergy", 1), ("trait", 2)]
    assert dice.describe() == "1 free + 3 mana + 1 synergy + 2 trait = 7d10"


@pytest.mark.parametrize(("previous", "reroll"), [(0, 0), (1, 0), (2, 1), (3, 1), (4, 2), (7, 3)])
def test_reroll_dice_round_down(previous, reroll):
    assert mana.dice_for(1, 0, 0, previous_units=previous).reroll == reroll


def test_trait_counts_only_this_attempts_units():
    assert mana.dice_for(1, 0, 0, has_trait=True, previous_units=6).trait == 1


def test_dice_limit_is_inclusive():
    assert mana.dice_for(99, 0, 0).dice == MAX_DICE
    assert mana.dice_for(97, 0, 0, previous_units=4).dice == MAX_DICE
    with pytest.raises(RulesError, match="101 dice"):
        mana.dice_for(100, 0, 0)
    with pytest.raises(RulesError, match="at most 100"):
        mana.dice_for(40, 40, 0, has_trait=True)


def test_results_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        mana.dice_for(1, 1, 0).mana = 5
    with pytest.raises(dataclasses.FrozenInstanceError):
        mana.roll(1, 1, ScriptedRng(8)).success = False


# --- successes and roll ---------------------------------------------------------------------------


def test_face_values():
    assert [mana.successes([face]) for face in range(1, 11)] == [0] * 7 + [1, 1, 2]
    assert mana.successes([]) == 0
    assert mana.successes((8, 9, 10, 10)) == 6


def test_success_needs_difficulty_reached_exactly_or_more():
    assert mana.roll(2, 2, ScriptedRng(8, 9)).success is True
    assert mana.roll(1, 2, ScriptedRng(10)).success is True
    assert mana.roll(2, 3, ScriptedRng(8, 9)).success is False


def test_seeded_rolls_are_reproducible():
    first = mana.roll(10, 3, random.Random(7))
    again = mana.roll(10, 3, random.Random(7))
    assert first == again
    assert all(1 <= face <= 10 for face in first.faces)
    assert first.successes == mana.successes(first.faces)


# --- exact odds -----------------------------------------------------------------------------------


def test_single_die_odds():
    assert mana.success_probability(1, 1) == Fraction(3, 10)
    assert mana.success_probability(1, 2) == Fraction(1, 10)
    assert mana.success_probability(1, 3) == 0
    assert mana.success_probability(MAX_DICE, 2 * MAX_DICE) == Fraction(1, 10**MAX_DICE)
    assert mana.success_probability(MAX_DICE, MAX_TARGET) == 0


@pytest.mark.parametrize("dice", [1, 2, 3, 4])
def test_odds_match_enumeration_of_every_face_tuple(dice):
    tally = Counter(mana.successes(faces) for faces in product(range(1, 11), repeat=dice))
    for difficulty in range(1, 2 * dice + 3):
        ways = sum(count for total, count in tally.items() if total >= difficulty)
        assert mana.success_probability(dice, difficulty) == Fraction(ways, 10**dice)


def test_seeded_rolls_agree_with_exact_odds():
    rng = random.Random(1234)
    trials, dice, difficulty = 20_000, 6, 3
    hits = sum(mana.roll(dice, difficulty, rng).success for _ in range(trials))
    p = mana.success_probability(dice, difficulty)
    assert abs(hits - trials * p) <= 4 * math.sqrt(trials * p * (1 - p))


@given(st.integers(1, MAX_DICE), st.integers(1, 2 * MAX_DICE + 1))
def test_odds_are_probabilities_falling_with_difficulty(dice, difficulty):
    p = mana.success_probability(dice, difficulty)
    assert isinstance(p, Fraction)
    assert 0 <= p <= 1
    assert mana.success_probability(dice, difficulty + 1) <= p


@given(st.integers(1, MAX_DICE - 1), st.integers(1, MAX_TARGET))
def test_odds_never_fall_with_more_dice(dice, difficulty):
    assert mana.success_probability(dice + 1, difficulty) >= mana.success_probability(
        dice, difficulty
    )


spends = st.tuples(
    st.integers(0, 15),
    st.integers(0, 15),
    st.integers(0, 15).map(lambda pairs: 2 * pairs),
    st.booleans(),
    st.integers(0, 40),
)


@given(spends)
def test_more_mana_never_means_fewer_dice(spend):
    a, b, colorless, has_trait, previous = spend
    assume(a + b + colorless > 0 or previous == 0)
    base = mana.dice_for(a, b, colorless, has_trait=has_trait, previous_units=previous)
    assert base.dice == 1 + base.units + base.synergy + base.trait + base.reroll
    assert base.units == a + b + colorless // 2
    more = [
        mana.dice_for(a + 1, b, colorless, has_trait=has_trait, previous_units=previous),
        mana.dice_for(a, b + 1, colorless, has_trait=has_trait, previous_units=previous),
        mana.dice_for(a, b, colorless + 2, has_trait=has_trait, previous_units=previous),
        mana.dice_for(a, b, colorless, has_trait=True, previous_units=previous),
    ]
    if a + b + colorless:
        more.append(
            mana.dice_for(a, b, colorless, has_trait=has_trait, previous_units=previous + 1)
        )
    assert all(other.dice >= base.dice for other in more)


# --- refused inputs -------------------------------------------------------------------------------


def _assert_readable(error):
    message = str(error)
    assert isinstance(error, ValueError)
    assert message[0].isupper() and message.endswith(".")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: mana.dice_for(-1, 0, 0), "cannot be negative"),
        (lambda: mana.dice_for(0, -1, 0), "cannot be negative"),
        (lambda: mana.dice_for(0, 0, -2), "cannot be negative"),
        (lambda: mana.dice_for(0, 0, 0, previous_units=-1), "cannot be negative"),
        (lambda: mana.dice_for(0, 0, 3), "in pairs"),
        (lambda: mana.dice_for(1, 0, 1), "in pairs"),
        (lambda: mana.dice_for(0, 0, 0, previous_units=2), "at least one new mana unit"),
        (lambda: mana.dice_for(100, 0, 0), "at most 100"),
        (lambda: mana.dice_for(50, 0, 0, previous_units=100), "at most 100"),
        (lambda: mana.dice_for(1.5, 0, 0), "whole number"),
        (lambda: mana.dice_for(1.0, 0, 0), "whole number"),
        (lambda: mana.dice_for(True, 0, 0), "whole number"),
        (lambda: mana.dice_for(0, "1", 0), "whole number"),
        (lambda: mana.dice_for(0, 0, None), "whole number"),
        (lambda: mana.dice_for(0, 0, 0, previous_units=False), "whole number"),
        (lambda: mana.dice_for(1, 0, 0, has_trait="yes"), "yes or no"),
        (lambda: mana.successes([0]), "at least 1"),
        (lambda: mana.successes([11]), "at most 10"),
        (lambda: mana.successes([True]), "whole number"),
        (lambda: mana.successes([8.0]), "whole number"),
        (lambda: mana.roll(0, 1, random.Random(1)), "at least 1"),
        (lambda: mana.roll(101, 1, random.Random(1)), "at most 100"),
        (lambda: mana.roll(2, 0, random.Random(1)), "at least 1"),
        (lambda: mana.roll(2, -3, random.Random(1)), "at least 1"),
        (lambda: mana.roll(True, 1, random.Random(1)), "whole number"),
        (lambda: mana.roll(3, 1.5, random.Random(1)), "whole number"),
        (lambda: mana.success_probability(0, 1), "at least 1"),
        (lambda: mana.success_probability(-1, 1), "at least 1"),
        (lambda: mana.success_probability(101, 1), "at most 100"),
        (lambda: mana.success_probability(3, 0), "at least 1"),
        (lambda: mana.success_probability(3, MAX_TARGET + 1), "at most 1000"),
        (lambda: mana.success_probability(2.0, 1), "whole number"),
        (lambda: mana.success_probability(3, True), "whole number"),
    ],
)
def test_bad_input_raises_readable_rules_error(call, message):
    with pytest.raises(RulesError, match=message) as caught:
        call()
    _assert_readable(caught.value)


def test_re_attempt_message_is_exact():
    with pytest.raises(RulesError) as caught:
        mana.dice_for(0, 0, 0, previous_units=1)
    assert str(caught.value) == "A re-attempt must spend at least one new mana unit."
