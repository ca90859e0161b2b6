"""Luck against the exact odds (rules.luck): expected successes, spread, verdict."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import luck


def tally(*rolls):
    result = luck.Tally()
    for success, chance in rolls:
        result.add(success, Fraction(chance))
    return result


def test_sums_are_exact():
    t = tally((True, "1/2"), (False, "1/4"), (True, "9/10"))
    assert (t.rolls, t.observed) == (3, 2)
    assert t.expected == Fraction(1, 2) + Fraction(1, 4) + Fraction(9, 10) == Fraction(33, 20)
    assert t.variance == Fraction(1, 4) + Fraction(3, 16) + Fraction(9, 100) == Fraction(211, 400)
    assert t.verdict == luck.WITHIN


def test_two_standard_deviations_is_the_line():
    # 4 rolls at 1/2: expected 2, variance 1, sd 1; 4 successes are exactly 2 sd above
    assert tally(*[(True, "1/2")] * 4).verdict == luck.WITHIN
    # 16 rolls at 1/2: expected 8, sd 2; 13 successes are 2.5 sd above, 3 are 2.5 sd below
    assert tally(*[(True, "1/2")] * 13, *[(False, "1/2")] * 3).verdict == luck.LUCKY
    assert tally(*[(True, "1/2")] * 3, *[(False, "1/2")] * 13).verdict == luck.UNLUCKY
    assert tally(*[(True, "1/2")] * 12, *[(False, "1/2")] * 4).verdict == luck.WITHIN


def test_certain_rolls_and_no_rolls():
    assert tally().verdict == luck.WITHIN and tally().spread == 0
    assert tally((True, 1), (False, 0)).verdict == luck.WITHIN
    assert tally((False, 1)).verdict == luck.UNLUCKY  # cannot happen, but is not within chance


def test_a_chance_outside_0_to_1_is_refused():
    with pytest.raises(ValueError):
        tally((True, "3/2"))


chances = st.fractions(min_value=0, max_value=1, max_denominator=1000)


@given(st.booleans(), chances, st.integers(min_value=1, max_value=50))
def test_a_counted_group_is_its_rolls_one_by_one(success, chance, count):
    grouped = luck.Tally()
    grouped.add(success, chance, count)
    assert grouped == tally(*[(success, chance)] * count)


def test_a_count_below_one_is_refused():
    with pytest.raises(ValueError):
        luck.Tally().add(True, Fraction(1, 2), 0)


@given(st.lists(st.tuples(st.booleans(), chances), max_size=40))
def test_figures_stay_in_bounds_and_the_verdict_mirrors(rolls):
    t = tally(*rolls)
    assert 0 <= t.expected <= t.rolls and 0 <= t.variance <= Fraction(t.rolls, 4)
    assert 0 <= t.observed <= t.rolls
    # the verdict agrees with the floating-point reading of "within 2 sd"
    gap = float(t.observed - t.expected)
    if abs(abs(gap) - 2 * t.spread) > 1e-9:
        assert (t.verdict == luck.WITHIN) == (abs(gap) <= 2 * t.spread)
    # flipping every roll (success <-> failure, p <-> 1 - p) swaps lucky and unlucky
    flipped = tally(*[(not s, 1 - p) for s, p in rolls]).verdict
    swap = {luck.LUCKY: luck.UNLUCKY, luck.UNLUCKY: luck.LUCKY, luck.WITHIN: luck.WITHIN}
    assert flipped == swap[t.verdict]


def test_near_certain_and_near_hopeless_asks():
    assert luck.ask_kind(Fraction(96, 100)) == "near-certain"
    assert luck.ask_kind(Fraction(95, 100)) is None  # exactly 95 % is not above it
    assert luck.ask_kind(Fraction(5, 100)) is None
    assert luck.ask_kind(Fraction(1, 21)) == "near-hopeless"
    assert luck.ask_kind(Fraction(0)) == "near-hopeless" and luck.ask_kind(Fraction(1))


@given(chances)
def test_an_ask_is_at_most_one_kind_and_mirrors(chance):
    kind = luck.ask_kind(chance)
    mirror = {"near-certain": "near-hopeless", "near-hopeless": "near-certain", None: None}
    assert luck.ask_kind(1 - chance) == mirror[kind]
