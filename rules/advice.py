"""Advice before a roll, from the exact odds: what each mana spend a pool can pay buys, the
cheapest spend that reaches a wanted chance, and what a Pool die held back costs.

Decisions the rules leave to the advice:

* Mana: for each number of mana units, from the fewest, the advice names one spend: the one that
  rolls the most dice (the synergy die when both of the skill's colors can be paid), then the one
  that spends the least mana (colored mana before colorless pairs, as a pair costs two), then the
  most of the skill's first color. Every other spend of as many units rolls as many dice or fewer.
* The list stops at the first spend certain to succeed (more mana cannot do better), at the
  first the pool cannot pay, or at the first that would roll more than MAX_DICE dice.
* A re-attempt must spend at least one unit, so its list starts at one unit.
* "Cheapest" is the fewest units (then the order above).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from . import mana, pool
from .errors import RulesError, require_int

__all__ = ["PoolShiftCost", "Spend", "cheapest", "mana_spends", "pool_shift_costs"]


@dataclass(frozen=True)
class Spend:
    """A mana spend of the skill's two colors and colorless, its dice and its exact chance."""

    spend_a: int
    spend_b: int
    colorless: int
    dice: mana.ManaDice
    chance: Fraction

    @property
    def units(self) -> int:
        return self.dice.units


def _best_split(units: int, have_a: int, have_b: int, have_colorless: int):
    """(a, b, colorless) paying ``units`` with the most dice and the least mana, or None."""
    pairs = max(0, units - have_a - have_b)
    if 2 * pairs > have_colorless:
        return None
    colored = units - pairs
    if colored >= 2 and have_a >= 1 and have_b >= 1:
        a = min(have_a, colored - 1)  # keep one for the second color: the synergy die
    else:
        a = min(have_a, colored)
    return a, colored - a, 2 * pairs


def mana_spends(
    have_a: int,
    have_b: int,
    have_colorless: int,
    difficulty: int,
    *,
    has_trait: bool = False,
    previous_units: int = 0,
    reattempt: bool = False,
) -> list[Spend]:
    """The advised spend for each number of units the pool (``have_*``: mana at hand) can pay,
    fewest units first, with its exact chance against ``difficulty``."""
    require_int(have_a, "Mana of the skill's first color at hand", 0)
    require_int(have_b, "Mana of the skill's second color at hand", 0)
    require_int(have_colorless, "Colorless mana at hand", 0)
    require_int(difficulty, "The difficulty", 1, mana.MAX_TARGET)
    spends: list[Spend] = []
    units = 1 if reattempt or previous_units else 0
    while True:
        split = _best_split(units, have_a, have_b, have_colorless)
        if split is None:
            break
        try:
            dice = mana.dice_for(*split, has_trait=has_trait, previous_units=previous_units)
        except RulesError:
            break  # too many dice
        chance = mana.success_probability(dice.dice, difficulty)
        spends.append(Spend(*split, dice=dice, chance=chance))
        if chance == 1:
            break
        units += 1
    return spends


def cheapest(spends: list[Spend], wanted: Fraction) -> Spend | None:
    """The first (cheapest) of ``spends`` whose chance reaches ``wanted``, or None."""
    return next((spend for spend in spends if spend.chance >= wanted), None)


@dataclass(frozen=True)
class PoolShiftCost:
    """Holding back one more ``die`` ("d6" or "d10"): the chance left and what it costs."""

    die: str
    chance: Fraction
    cost: Fraction


def pool_shift_costs(d6: int, d10: int, tn: int) -> list[PoolShiftCost]:
    """What holding back one more d6, and one more d10, of a pool of ``d6`` + ``d10`` costs in
    chance against ``tn``. A die the pool lacks, or its last die, cannot be held back: no entry."""
    now = pool.success_probability(d6, d10, tn)
    costs = []
    for die, fewer in (("d6", (d6 - 1, d10)), ("d10", (d6, d10 - 1))):
        if min(fewer) < 0 or sum(fewer) < 1:
            continue
        after = pool.success_probability(*fewer, tn)
        costs.append(PoolShiftCost(die=die, chance=after, cost=now - after))
    return costs
