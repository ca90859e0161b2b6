"""Pool checks: exploding chains, evaluation, rolls and exact odds (rules.pool)."""

import dataclasses
import math
import random
from collections import defaultdict
from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import MAX_DICE, MAX_TARGET, RulesError, pool
from tests.rules.scripted_rng import ScriptedRng

CAP = pool.MAX_EXPLOSIONS


# --- the rules' worked example --------------------------------------------------------------------


def test_worked_example_evaluated():
    result = pool.evaluate([(4,), (6, 3)], [(2,)], 8)
    assert result == pool.PoolRoll(
        d6_chains=((4,), (6, 3)),
        d10_chains=((2,),),
        d6_totals=(4, 9),
        d10_totals=(2,),
        highest=9,
        tn=8,
        success=True,
    )


def test_worked_example_rolled():
    rng = ScriptedRng(4, 6, 3, 2)
    result = pool.roll(2, 1, 8, rng)
    assert rng.calls == [(1, 6), (1, 6), (1, 6), (1, 10)]
    assert result == pool.evaluate([(4,), (6, 3)], [(2,)], 8)


# --- chains and success ---------------------------------------------------------------------------


def test_d10_explodes_repeatedly_on_its_zero_face():
    result = pool.roll(0, 1, 25, ScriptedRng(10, 10, 7))
    assert result.d10_chains == ((10, 10, 7),)
    assert result.d10_totals == (27,)
    assert result.success is True


def test_chain_total():
    assert pool.chain_total((6, 3)) == 9
    assert pool.chain_total((10, 10, 1)) == 21
    assert pool.chain_total((5,)) == 5


def test_explosions_stop_after_the_cap_and_the_last_face_counts():
    rng = ScriptedRng(*[6] * (CAP + 1))
    result = pool.roll(1, 0, 1, rng)
    assert result.d6_chains == ((6,) * (CAP + 1),)
    assert result.highest == 6 * (CAP + 1) == 606
    assert rng.faces == []
    assert pool.evaluate([(6,) * CAP + (3,)], [], 600).highest == 603


def test_highest_total_of_one_always_fails():
    assert pool.evaluate([(1,), (1,)], [(1,)], 1).success is False
    assert pool.evaluate([(1,)], [], 1).highest == 1
    assert pool.evaluate([(2,)], [], 1).success is True
    assert pool.evaluate([], [(1,), (2,)], 2).success is True


def test_meeting_the_tn_is_enough():
    assert pool.evaluate([(5,)], [], 5).success is True
    assert pool.evaluate([(5,)], [(4,)], 6).success is False


def test_results_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        pool.evaluate([(4,)], [], 3).success = False


@given(
    st.integers(0, 6),
    st.integers(0, 6),
    st.integers(1, 30),
    st.integers(0, 2**32),
)
def test_rolled_chains_are_valid_and_judged_by_the_rule(d6, d10, tn, seed):
    if d6 + d10 == 0:
        d6 = 1
    result = pool.roll(d6, d10, tn, random.Random(seed))
    assert (len(result.d6_chains), len(result.d10_chains)) == (d6, d10)
    assert pool.evaluate(result.d6_chains, result.d10_chains, tn) == result
    assert result.highest == max(result.d6_totals + result.d10_totals)
    assert result.success == (result.highest >= tn and result.highest != 1)


# --- exact odds: closed cases ---------------------------------------------------------------------


def test_single_die_odds():
    assert pool.success_probability(1, 0, 1) == Fraction(5, 6)  # a 1 fails even TN 1
    assert pool.success_probability(1, 0, 2) == Fraction(5, 6)
    assert pool.success_probability(1, 0, 6) == Fraction(1, 6)
    assert pool.success_probability(1, 0, 7) == Fraction(1, 6)  # 6 then anything
    assert pool.success_probability(1, 0, 8) == Fraction(5, 36)
    assert pool.success_probability(1, 0, 12) == Fraction(1, 36)  # 12 itself cannot be a total
    assert pool.success_probability(0, 1, 1) == Fraction(9, 10)
    assert pool.success_probability(0, 1, 11) == Fraction(1, 10)
    assert pool.success_probability(0, 1, 12) == Fraction(9, 100)


def test_worked_example_odds():
    miss_d6 = Fraction(31, 36)  # total < 8: faces 1-5, or 6 then a 1
    miss_d10 = Fraction(7, 10)  # faces 1-7
    assert pool.success_probability(2, 1, 8) == 1 - miss_d6**2 * miss_d10


def test_cap_is_exact_in_the_odds():
    assert pool.success_probability(1, 0, 600) == Fraction(1, 6**CAP)  # 600 is no total
    assert pool.success_probability(1, 0, 601) == Fraction(1, 6**CAP)
    assert pool.success_probability(1, 0, 606) == Fraction(1, 6 ** (CAP + 1))
    assert pool.success_probability(1, 0, 607) == 0
    assert pool.success_probability(0, 1, MAX_TARGET) == Fraction(1, 10**CAP)
    assert pool.success_probability(MAX_DICE, 0, MAX_TARGET) == 0


# --- exact odds: brute force ----------------------------------------------------------------------


def die_outcomes(sides, lump, cap):
    """Exact distribution of one exploding die, by walking every chain of faces.

    Totals below ``lump`` are kept exactly; every continuation of a chain whose running total has
    reached ``lump`` can only end at ``lump`` or more, so that mass is merged into the key ``lump``.
    Each level adds at least ``sides``, so the walk ends after about ``lump / sides`` levels.
    """
    outcomes = defaultdict(Fraction)

    def walk(total, weight, rerolls_left):
        if total >= lump:
            outcomes[lump] += weight
            return
        for face in range(1, sides + 1):
            if face == sides and rerolls_left > 0:
                walk(total + face, weight / sides, rerolls_left - 1)
            else:
                outcomes[min(total + face, lump)] += weight / sides

    walk(0, Fraction(1), cap)
    assert sum(outcomes.values()) == 1
    return dict(outcomes)


def brute_force_odds(d6, d10, tn, cap=CAP):
    """P(success) by enumerating every joint outcome and applying the rule literally."""
    lump = max(tn, 2)  # every total merged into ``lump`` is >= tn and is not 1
    dice = [die_outcomes(6, lump, cap)] * d6 + [die_outcomes(10, lump, cap)] * d10
    chance = Fraction(0)
    for combination in product(*(outcomes.items() for outcomes in dice)):
        highest = max(total for total, _ in combination)
        if highest >= tn and highest != 1:
            chance += math.prod(weight for _, weight in combination)
    return chance


@pytest.mark.parametrize(("d6", "d10"), [(1, 0), (0, 1)])
def test_single_die_odds_match_brute_force(d6, d10):
    for tn in range(1, 45):
        assert pool.success_probability(d6, d10, tn) == brute_force_odds(d6, d10, tn)


@pytest.mark.parametrize(("d6", "d10"), [(2, 0), (0, 2), (1, 1), (2, 1), (1, 2), (3, 0)])
def test_small_pool_odds_match_brute_force(d6, d10):
    for tn in range(1, 15):
        assert pool.success_probability(d6, d10, tn) == brute_force_odds(d6, d10, tn)


@pytest.mark.parametrize("cap", [0, 1, 2, 3])
@pytest.mark.parametrize("sides", [6, 10])
def test_per_die_odds_match_brute_force_under_any_cap(sides, cap):
    for target in range(1, sides * (cap + 2) + 3):
        expected = die_outcomes(sides, target, cap).get(target, Fraction(0))
        if target == 1:
            expected = Fraction(1)
        assert pool._at_least(sides, target, cap) == expected


def test_seeded_rolls_agree_with_exact_odds():
    rng = random.Random(1234)
    trials, d6, d10, tn = 20_000, 3, 2, 9
    hits = sum(pool.roll(d6, d10, tn, rng).success for _ in range(trials))
    p = pool.success_probability(d6, d10, tn)
    assert abs(hits - trials * p) <= 4 * math.sqrt(trials * p * (1 - p))


# --- odds: properties -----------------------------------------------------------------------------

pools = st.tuples(st.integers(0, MAX_DICE), st.integers(0, MAX_DICE)).filter(
    lambda dice: 1 <= sum(dice) <= MAX_DICE
)


@given(pools, st.integers(1, MAX_TARGET - 1))
def test_odds_are_probabilities_falling_with_tn(dice, tn):
    p = pool.success_probability(*dice, tn)
    assert isinstance(p, Fraction)
    assert 0 <= p <= 1
    assert pool.success_probability(*dice, tn + 1) <= p


@given(pools.filter(lambda dice: sum(dice) < MAX_DICE), st.integers(1, 80))
def test_odds_never_fall_with_more_dice(dice, tn):
    d6, d10 = dice
    p = pool.success_probability(d6, d10, tn)
    assert pool.success_probability(d6 + 1, d10, tn) >= p
    assert pool.success_probability(d6, d10 + 1, tn) >= p


# --- refused inputs -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: pool.roll(0, 0, 5, random.Random(1)), "at least one die"),
        (lambda: pool.roll(-1, 2, 5, random.Random(1)), "cannot be negative"),
        (lambda: pool.roll(2, -1, 5, random.Random(1)), "cannot be negative"),
        (lambda: pool.roll(60, 41, 5, random.Random(1)), "at most 100 dice"),
        (lambda: pool.roll(2, 0, 0, random.Random(1)), "at least 1"),
        (lambda: pool.roll(2, 0, MAX_TARGET + 1, random.Random(1)), "at most 1000"),
        (lambda: pool.roll(True, 0, 5, random.Random(1)), "whole number"),
        (lambda: pool.roll(1, 0, 5.0, random.Random(1)), "whole number"),
        (lambda: pool.success_probability(0, 0, 5), "at least one die"),
        (lambda: pool.success_probability(101, 0, 5), "at most 100 dice"),
        (lambda: pool.success_probability(0, 101, 5), "at most 100 dice"),
        (lambda: pool.success_probability(1, 1, -4), "at least 1"),
        (lambda: pool.success_probability(1, False, 4), "whole number"),
        (lambda: pool.success_probability("3", 0, 4), "whole number"),
        (lambda: pool.evaluate([], [], 5), "at least one die"),
        (lambda: pool.evaluate([(4,)], [], 0), "at least 1"),
        (lambda: pool.evaluate([(4,)] * 101, [], 5), "at most 100 dice"),
        (lambda: pool.evaluate([()], [], 5), "at least one face"),
        (lambda: pool.evaluate([(7,)], [], 5), "at most 6"),
        (lambda: pool.evaluate([], [(0,)], 5), "at least 1"),
        (lambda: pool.evaluate([], [(11,)], 5), "at most 10"),
        (lambda: pool.evaluate([(3.0,)], [], 5), "whole number"),
        (lambda: pool.evaluate([(True,)], [], 5), "whole number"),
        (lambda: pool.evaluate([(3, 6)], [], 5), "only after showing 6"),
        (lambda: pool.evaluate([], [(10, 9, 2)], 5), "only after showing 10"),
        (lambda: pool.evaluate([(6,)], [], 5), "unfinished"),
        (lambda: pool.evaluate([], [(10, 10)], 5), "unfinished"),
        (lambda: pool.evaluate([(6,) * (CAP + 2)], [], 5), "at most 100 times"),
        (lambda: pool.evaluate([4], [], 5), "list of faces"),
        (lambda: pool.evaluate(None, [], 5), "must be a list"),
    ],
)
def test_bad_input_raises_readable_rules_error(call, message):
    with pytest.raises(RulesError, match=message) as caught:
        call()
    error = caught.value
    assert isinstance(error, ValueError)
    assert str(error)[0].isupper() and str(error).endswith(".")
