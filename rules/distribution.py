"""Exact distributions of what a roll shows, to set what was rolled against them.

* Mana: the chance of exactly ``k`` successes on ``dice`` d10, ``k = 0..2 * dice`` (the same
  convolution as the odds in :mod:`rules.mana`).
* Pool: the chance that the highest die total of ``d6`` d6 and ``d10`` d10 is exactly ``t``,
  ``t = 1..up_to``, and the chance it lies above ``up_to``. P(highest <= t) is the product over
  the dice of P(die total <= t), from the same exact per-die chances as the Pool odds.
"""

from __future__ import annotations

from fractions import Fraction

from . import mana, pool
from .errors import MAX_TARGET, require_int

__all__ = ["mana_successes", "pool_highest"]


def mana_successes(dice: int) -> list[Fraction]:
    """``[P(exactly k successes) for k in 0..2 * dice]`` on ``dice`` d10."""
    require_int(dice, "The number of dice", 1, mana.MAX_DICE)
    whole = mana.FACES**dice
    return [Fraction(ways, whole) for ways in mana._counts(dice)]


def _at_most(d6: int, d10: int, total: int) -> Fraction:
    """P(highest total <= ``total``)."""
    below6 = 1 - pool._at_least(pool.D6, total + 1)
    below10 = 1 - pool._at_least(pool.D10, total + 1)
    return below6**d6 * below10**d10


def pool_highest(d6: int, d10: int, up_to: int) -> tuple[list[Fraction], Fraction]:
    """(``[P(highest == t) for t in 1..up_to]``, P(highest > up_to)) for ``d6`` d6 + ``d10``
    d10."""
    pool._check_pool(d6, d10, 1)
    require_int(up_to, "The highest total shown", 1, MAX_TARGET)
    at_most = [Fraction(0)] + [_at_most(d6, d10, t) for t in range(1, up_to + 1)]
    exactly = [at_most[t] - at_most[t - 1] for t in range(1, up_to + 1)]
    return exactly, 1 - at_most[up_to]
