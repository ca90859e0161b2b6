"""rules.odds: a chance's one text, exact while short, a marked approximation when its fraction
runs to thousands of digits; read back as the same figure everywhere (issue #43, item 1)."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import MAX_DICE, MAX_TARGET, mana, odds, pool

#: Every Pool pool and TN the forms accept: 0..100 d6 and d10, 1..100 dice in all.
pools = st.tuples(
    st.integers(0, MAX_DICE), st.integers(0, MAX_DICE), st.integers(1, MAX_TARGET)
).filter(lambda p: 1 <= p[0] + p[1] <= MAX_DICE)
#: The ends of those ranges, and the TNs where a die's explosions change what it needs.
pool_ends = st.tuples(
    st.sampled_from([0, 1, 2, 44, 45, 50, 99, 100]),
    st.sampled_from([0, 1, 2, 44, 45, 50, 99, 100]),
    st.sampled_from([1, 2, 6, 7, 10, 11, 350, 600, 606, 607, 999, 1000]),
).filter(lambda p: 1 <= p[0] + p[1] <= MAX_DICE)
#: Every Mana roll: 1..100 d10 against 1..1000.
mana_rolls = st.tuples(st.integers(1, MAX_DICE), st.integers(1, MAX_TARGET))


def pool_chance(p):
    return pool.success_probability(*p)


def test_the_issues_chances_are_written_and_read_back():
    # 45 d10 at TN 1000: terms of about 4,500 digits, which str() refused (a 500 before).
    chance = pool.success_probability(0, 45, 1000)
    with pytest.raises(ValueError, match="4300"):
        str(chance)
    text = odds.as_text(chance)
    assert text == "~4.5e-99"
    assert odds.read(text) == Fraction(45, 10**100) == odds.shown(chance)
    assert odds.as_float(text) == odds.as_float(chance) == 4.5e-99
    text = odds.as_text(pool.success_probability(100, 0, 350))
    assert text.startswith("~6.13827345096750") and len(text) <= 1 + odds.DIGITS + 6


def test_short_chances_are_written_exactly_as_before():
    for chance in (Fraction(0), Fraction(1), Fraction(2307, 10000), pool_chance((3, 2, 8))):
        assert odds.as_text(chance) == str(chance)
        assert odds.read(str(chance)) == chance == odds.shown(chance)
    assert odds.as_text(Fraction(1, 2)) == "1/2"


def test_near_certain_never_reads_as_certain():
    chance = pool.success_probability(50, 50, 12)  # terms of about 200 digits, close to 1
    text = odds.as_text(chance)
    assert text.startswith("~1-0.00218950930501366")
    assert 0 < odds.read(text) < 1
    assert odds.read(text) > 1 - Fraction(219, 100000)


def test_a_tiny_chance_never_reads_as_impossible():
    assert odds.read(odds.as_text(pool.success_probability(0, 100, 1000))) > 0


def test_odd_inputs_are_refused():
    for bad in (Fraction(-1, 2), Fraction(3, 2), 0.5, "1/2"):
        with pytest.raises(ValueError):
            odds.as_text(bad)
    with pytest.raises(ValueError):
        odds.read(Fraction(1, 2))


def test_an_exact_chance_written_before_still_reads():
    """Entries logged before kept ``str(chance)``, however long (below Python's limit)."""
    chance = pool.success_probability(0, 30, 1000)  # terms of about 3,000 digits
    assert odds.read(str(chance)) == chance


def check_text(chance):
    """What every chance's text must be: short, marked when not exact, read back as the same
    figure (the approximation to DIGITS significant digits of the chance or of its miss), 0 and
    1 only when exactly so, and read again the same."""
    text = odds.as_text(chance)
    assert len(text) <= 2 * odds.MAX_EXACT_DIGITS + 1
    value = odds.read(text)
    assert value == odds.shown(chance)
    if odds.is_exact(chance):
        assert text == str(chance) and value == chance
    else:
        assert text.startswith(odds.APPROXIMATE) and len(text) <= odds.DIGITS + 12
        closest = min(chance, 1 - chance)
        assert abs(value - chance) <= closest * Fraction(1, 10 ** (odds.DIGITS - 1))
    assert (value == 0) == (chance == 0) and (value == 1) == (chance == 1)
    assert odds.read(odds.as_text(value)) == value  # the figure shown, stored again: the same
    assert odds.as_float(text) == float(value)


@given(pools)
def test_every_pool_chance_the_forms_allow(p):
    check_text(pool_chance(p))


@given(pool_ends)
def test_the_pool_ranges_ends(p):
    check_text(pool_chance(p))


@given(mana_rolls)
def test_every_mana_chance_is_exact(roll):
    chance = mana.success_probability(*roll)
    assert odds.is_exact(chance)  # 100 d10: terms of at most 101 digits
    check_text(chance)


@given(st.fractions(min_value=0, max_value=1))
def test_any_fraction(chance):
    check_text(chance)


@given(st.integers(1, 10**300), st.integers(0, 10**300))
def test_any_long_fraction(whole, part):
    check_text(Fraction(min(part, whole), whole))
