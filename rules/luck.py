"""Luck against the exact odds: successes observed against the number expected.

Each roll is a yes/no trial that succeeded with its exact chance ``p``. Over a set of rolls the
expected number of successes is the sum of the ``p``, and its variance the sum of ``p(1 - p)``
(the rolls are independent). The verdict:

* "within what chance explains" when ``|observed - expected| <= 2`` standard deviations, i.e.
  ``(observed - expected)**2 <= 4 * variance``, decided exactly on fractions (no square root);
* "unusually lucky" above that, "unusually unlucky" below it.

So a set of rolls that were all certain (variance 0) is within chance only when it came out as
certain. An ask is near-certain above a 95 % chance and near-hopeless below 5 % (``ask_kind``).
Nothing is rolled here: this module only adds up what the log stores.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

__all__ = [
    "LUCKY",
    "NEAR_CERTAIN",
    "NEAR_HOPELESS",
    "UNLUCKY",
    "WITHIN",
    "Tally",
    "ask_kind",
    "verdict",
]

WITHIN = "within what chance explains"
LUCKY = "unusually lucky"
UNLUCKY = "unusually unlucky"


def verdict(observed: int, expected: Fraction, variance: Fraction) -> str:
    """The plain verdict on ``observed`` successes against ``expected`` with ``variance``."""
    gap = observed - expected
    if gap * gap <= 4 * variance:
        return WITHIN
    return LUCKY if gap > 0 else UNLUCKY


@dataclass
class Tally:
    """Rolls, successes, and the exact expected number and its variance."""

    rolls: int = 0
    observed: int = 0
    expected: Fraction = field(default_factory=Fraction)
    variance: Fraction = field(default_factory=Fraction)

    def add(self, success: bool, chance: Fraction, count: int = 1) -> None:
        """Count ``count`` rolls that each succeeded (or not) with the exact ``chance`` (0..1)."""
        if not 0 <= chance <= 1:
            raise ValueError(f"A chance lies between 0 and 1, not {chance}.")
        if count < 1:
            raise ValueError(f"A count of rolls is at least 1, not {count}.")
        self.rolls += count
        self.observed += count if success else 0
        self.expected += chance * count
        self.variance += chance * (1 - chance) * count

    @property
    def spread(self) -> float:
        """The standard deviation (the square root of the variance), for display."""
        return math.sqrt(self.variance)

    @property
    def verdict(self) -> str:
        return verdict(self.observed, self.expected, self.variance)


#: An ask above this chance is near-certain, one below NEAR_HOPELESS near-hopeless.
NEAR_CERTAIN = Fraction(95, 100)
NEAR_HOPELESS = Fraction(5, 100)


def ask_kind(chance: Fraction) -> str | None:
    """ "near-certain" above 95 %, "near-hopeless" below 5 %, else None."""
    if chance > NEAR_CERTAIN:
        return "near-certain"
    if chance < NEAR_HOPELESS:
        return "near-hopeless"
    return None
