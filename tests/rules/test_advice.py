"""Advice before a roll (rules.advice): the spends a mana pool can pay and their exact
chances, the cheapest spend for a wanted chance, what a Pool die held back costs."""

from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import RulesError, advice, mana, pool


def brute_mana(dice, difficulty):
    """P(>= difficulty successes) by listing every face tuple (small pools only)."""
    worth = {8: 1, 9: 1, 10: 2}
    hits = sum(
        1
        for faces in product(range(1, 11), repeat=dice)
        if sum(worth.get(f, 0) for f in faces) >= difficulty
    )
    return Fraction(hits, 10**dice)


def test_every_unit_count_the_pool_can_pay_with_its_best_spend():
    spends = advice.mana_spends(3, 2, 4, 3)
    assert [(s.spend_a, s.spend_b, s.colorless, s.dice.dice) for s in spends] == [
        (0, 0, 0, 1),  # the free die alone
        (1, 0, 0, 2),
        (1, 1, 0, 4),  # the synergy die as soon as both colors are paid
        (2, 1, 0, 5),
        (3, 1, 0, 6),
        (3, 2, 0, 7),
        (3, 2, 2, 8),  # colorless pairs only once the colors are spent
        (3, 2, 4, 9),
    ]
    assert [s.units for s in spends] == list(range(8))
    assert spends[0].chance == 0
    assert spends[1].chance == Fraction(1, 20)  # 2d10: (1, 2), (2, 1), (2, 2) -> 2 + 2 + 1 ways
    assert spends[2].chance == brute_mana(4, 3) == Fraction(2307, 10000)
    assert [s.chance for s in spends] == [mana.success_probability(s.dice.dice, 3) for s in spends]


def test_trait_and_earlier_attempts_count_and_a_reattempt_spends_at_least_one_unit():
    spends = advice.mana_spends(2, 0, 0, 2, has_trait=True, previous_units=4)
    # 1 free + units + ceil(units / 2) trait + 2 reroll; no synergy (no second color)
    assert [(s.spend_a, s.dice.dice) for s in spends] == [(1, 5), (2, 6)]
    assert advice.mana_spends(1, 1, 0, 2, reattempt=True)[0].units == 1


def test_the_list_stops_at_the_first_certain_spend():
    spends = advice.mana_spends(9, 9, 0, 1)
    # 1 success needs no 1-7 on every die: never certain, so every unit count is listed
    assert len(spends) == 19
    assert advice.mana_spends(0, 0, 0, 1)[0].chance == Fraction(3, 10)


def test_cheapest_spend_for_a_wanted_chance():
    spends = advice.mana_spends(3, 2, 4, 3)
    best = advice.cheapest(spends, Fraction(3, 4))
    assert best is None  # 9d10 against 3 successes stays below 75 %
    assert mana.success_probability(9, 3) < Fraction(3, 4)
    best = advice.cheapest(spends, Fraction(1, 2))
    assert (best.spend_a, best.spend_b, best.colorless) == (3, 2, 0)
    assert best.chance == Fraction(132351, 250000)  # 7d10
    assert spends[4].chance == Fraction(87153, 200000) < Fraction(1, 2)  # 6d10


def test_bad_amounts_are_refused():
    with pytest.raises(RulesError, match="cannot be negative"):
        advice.mana_spends(-1, 0, 0, 2)
    with pytest.raises(RulesError, match="difficulty"):
        advice.mana_spends(1, 1, 0, 0)


def test_pool_shift_costs_exact():
    costs = advice.pool_shift_costs(2, 1, 6)
    now = pool.success_probability(2, 1, 6)
    assert [(c.die, c.chance) for c in costs] == [
        ("d6", pool.success_probability(1, 1, 6)),
        ("d10", pool.success_probability(2, 0, 6)),
    ]
    # one d6 reaches 6 with 1/6; one d10 with 5/10
    assert pool.success_probability(1, 1, 6) == 1 - Fraction(5, 6) * Fraction(1, 2)
    assert costs[0].cost == now - Fraction(7, 12)
    # the last die cannot be held back; a die the pool lacks neither
    assert advice.pool_shift_costs(1, 0, 4) == []
    assert [c.die for c in advice.pool_shift_costs(0, 2, 4)] == ["d10"]


@given(
    st.integers(0, 12),
    st.integers(0, 12),
    st.integers(0, 12),
    st.integers(1, 30),
    st.booleans(),
    st.integers(0, 10),
)
def test_advised_spends_are_payable_best_and_improve(a, b, c, difficulty, trait, previous):
    spends = advice.mana_spends(a, b, c, difficulty, has_trait=trait, previous_units=previous)
    for spend in spends:
        assert spend.spend_a <= a and spend.spend_b <= b and spend.colorless <= c
        assert spend.colorless % 2 == 0
        # no other spend of as many units the pool can pay rolls more dice
        for x, y, pairs in product(range(a + 1), range(b + 1), range(c // 2 + 1)):
            if x + y + pairs == spend.units:
                other = mana.dice_for(x, y, 2 * pairs, has_trait=trait, previous_units=previous)
                assert other.dice <= spend.dice.dice
    if not spends:  # a re-attempt with nothing at hand
        assert previous and a + b + c // 2 == 0
        return
    assert [s.units for s in spends] == list(range(spends[0].units, spends[0].units + len(spends)))
    chances = [s.chance for s in spends]
    assert chances == sorted(chances)
    assert all(chance < 1 for chance in chances[:-1])


@given(st.integers(0, 50), st.integers(0, 50), st.integers(1, 200))
def test_holding_back_a_die_never_helps(d6, d10, tn):
    if d6 + d10 < 1:
        return
    for cost in advice.pool_shift_costs(d6, d10, tn):
        assert 0 <= cost.cost <= 1 and cost.chance >= 0
