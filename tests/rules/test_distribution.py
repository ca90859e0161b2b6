"""Exact distributions of what a roll shows (rules.distribution)."""

from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import RulesError, distribution, mana, pool


def test_mana_exact():
    assert distribution.mana_successes(1) == [Fraction(7, 10), Fraction(2, 10), Fraction(1, 10)]
    two = distribution.mana_successes(2)
    assert two == [Fraction(49, 100), Fraction(28, 100), Fraction(18, 100), Fraction(4, 100),
                   Fraction(1, 100)]  # fmt: skip
    worth = {8: 1, 9: 1, 10: 2}
    three = [0] * 7
    for faces in product(range(1, 11), repeat=3):
        three[sum(worth.get(f, 0) for f in faces)] += 1
    assert distribution.mana_successes(3) == [Fraction(n, 1000) for n in three]


def test_pool_exact():
    exactly, above = distribution.pool_highest(1, 0, 8)
    # one d6: 1..5 at 1/6 each, 6 never (it explodes), 7 and 8 at 1/36 each
    assert exactly == [Fraction(1, 6)] * 5 + [0, Fraction(1, 36), Fraction(1, 36)]
    assert above == Fraction(4, 36)
    exactly, above = distribution.pool_highest(1, 1, 2)
    # highest 1: both show 1; highest <= 2: d6 1-2 and d10 1-2
    assert exactly == [Fraction(1, 60), Fraction(4, 60) - Fraction(1, 60)]
    assert above == 1 - Fraction(4, 60)


def test_bad_input():
    with pytest.raises(RulesError):
        distribution.mana_successes(0)
    with pytest.raises(RulesError):
        distribution.pool_highest(0, 0, 5)


@given(st.integers(1, 30), st.integers(1, 61))
def test_mana_sums_to_one_and_agrees_with_the_odds(dice, difficulty):
    exactly = distribution.mana_successes(dice)
    assert sum(exactly) == 1
    assert sum(exactly[difficulty:]) == mana.success_probability(dice, difficulty)


@given(st.integers(0, 10), st.integers(0, 10), st.integers(2, 60))
def test_pool_sums_to_one_and_agrees_with_the_odds(d6, d10, tn):
    if d6 + d10 < 1:
        return
    exactly, above = distribution.pool_highest(d6, d10, tn - 1)
    assert all(p >= 0 for p in exactly) and sum(exactly) + above == 1
    assert above == pool.success_probability(d6, d10, tn)
