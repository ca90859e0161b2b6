"""Mana checks: dice from a mana spend, successes, exact odds.

The rules as the app implements them (the /rules/ page tells them to players):

* A *mana unit* is one colored mana or one pair of colorless mana. Colorless is spent in pairs; an
  odd colorless amount is refused.
* Dice (all d10) = 1 free + 1 per unit + 1 synergy (at least one mana of *each* of the skill's two
  colors; colorless never counts) + ceil(units / 2) trait dice when the character has the skill's
  trait + floor(previous_units / 2) re-attempt dice.
* ``previous_units`` counts mana *units* (so earlier colorless pairs count once per pair) spent on
  all earlier attempts of the same check. When it is above 0 the call is a re-attempt, which must
  spend at least one new unit. A first attempt may spend nothing and roll the free die alone.
* Trait dice are counted from the units of this attempt only, not from earlier attempts.
* Faces are the ints 1..10; 10 is the die's face marked "0" and is worth two successes, 8 and 9 one
  each. The check succeeds when successes >= difficulty (difficulty in 1..MAX_TARGET).
* A roll has 1..MAX_DICE dice. Which colors a skill allows and whether the pool holds the mana are
  the app's concern; this module only sees the three amounts.
* Odds are exact :class:`fractions.Fraction` values from a convolution over success counts with
  integer weights 7/2/1 (faces 1-7 / 8-9 / 10 out of 10), cached per dice count.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from .errors import MAX_DICE, MAX_TARGET, Rng, RulesError, require_int

__all__ = [
    "MAX_DICE",
    "MAX_TARGET",
    "ManaDice",
    "ManaRoll",
    "dice_for",
    "roll",
    "success_probability",
    "successes",
]

FACES = 10


@dataclass(frozen=True)
class ManaDice:
    """How many d10 a mana check rolls, and why."""

    free: int
    mana: int
    synergy: int
    trait: int
    reroll: int

    @property
    def units(self) -> int:
        """Mana units spent on this attempt (one colored mana or one colorless pair each)."""
        return self.mana

    @property
    def dice(self) -> int:
        return self.free + self.mana + self.synergy + self.trait + self.reroll

    @property
    def parts(self) -> list[tuple[str, int]]:
        """The non-zero parts in a fixed order, e.g. ``[("free", 1), ("mana", 2)]``."""
        named = [
            ("free", self.free),
            ("mana", self.mana),
            ("synergy", self.synergy),
            ("trait", self.trait),
            ("reroll", self.reroll),
        ]
        return [(label, count) for label, count in named if count]

    def describe(self) -> str:
        """E.g. ``"1 free + 2 mana + 1 synergy = 4d10"``."""
        terms = " + ".join(f"{count} {label}" for label, count in self.parts)
        return f"{terms} = {self.dice}d10"


@dataclass(frozen=True)
class ManaRoll:
    """A rolled mana check. ``faces`` are 1..10, where 10 is the face marked "0"."""

    faces: tuple[int, ...]
    successes: int
    difficulty: int
    success: bool


def dice_for(
    spend_a: int,
    spend_b: int,
    colorless: int,
    *,
    has_trait: bool = False,
    previous_units: int = 0,
) -> ManaDice:
    """Dice for spending ``spend_a`` and ``spend_b`` of the skill's two colors and ``colorless``.

    ``previous_units`` is the number of mana units spent on all earlier attempts of the same check
    (0 for a first attempt).
    """
    require_int(spend_a, "Mana of the skill's first color", 0)
    require_int(spend_b, "Mana of the skill's second color", 0)
    require_int(colorless, "Colorless mana", 0)
    require_int(previous_units, "Mana units spent on earlier attempts", 0)
    if not isinstance(has_trait, bool):
        raise RulesError(
            f"Whether the character has the trait must be yes or no, not {has_trait!r}."
        )
    if colorless % 2:
        raise RulesError(
            f"Colorless mana is spent in pairs (2 colorless count as one colored mana); "
            f"{colorless} is an odd amount."
        )
    units = spend_a + spend_b + colorless // 2
    if previous_units and not units:
        raise RulesError("A re-attempt must spend at least one new mana unit.")
    result = ManaDice(
        free=1,
        mana=units,
        synergy=1 if spend_a >= 1 and spend_b >= 1 else 0,
        trait=(units + 1) // 2 if has_trait else 0,
        reroll=previous_units // 2,
    )
    if result.dice > MAX_DICE:
        raise RulesError(
            f"That spend would roll {result.dice} dice; a roll can use at most {MAX_DICE}."
        )
    return result


def face_successes(face: int) -> int:
    """Successes one face is worth: 8 or 9 -> 1, 10 (marked "0") -> 2, else 0."""
    require_int(face, "A d10 face", 1, FACES)
    return 2 if face == 10 else 1 if face >= 8 else 0


def successes(faces: Iterable[int]) -> int:
    """Total successes of a set of d10 faces (each 1..10)."""
    return sum(face_successes(face) for face in faces)


def _check_roll(dice: int, difficulty: int) -> None:
    require_int(dice, "The number of dice", 1, MAX_DICE)
    require_int(difficulty, "The difficulty", 1, MAX_TARGET)


def roll(dice: int, difficulty: int, rng: Rng) -> ManaRoll:
    """Roll ``dice`` d10 with ``rng.randint(1, 10)`` against ``difficulty``."""
    _check_roll(dice, difficulty)
    faces = tuple(rng.randint(1, FACES) for _ in range(dice))
    total = successes(faces)
    return ManaRoll(
        faces=faces, successes=total, difficulty=difficulty, success=total >= difficulty
    )


@functools.cache
def _counts(dice: int) -> tuple[int, ...]:
    """``counts[k]`` = how many of the ``10**dice`` face tuples give exactly ``k`` successes."""
    if dice == 0:
        return (1,)
    previous = _counts(dice - 1)
    counts = [0] * (len(previous) + 2)
    for k, ways in enumerate(previous):
        if ways:
            counts[k] += 7 * ways  # faces 1-7
            counts[k + 1] += 2 * ways  # faces 8, 9
            counts[k + 2] += ways  # face 10
    return tuple(counts)


@functools.cache
def _tail_counts(dice: int) -> tuple[int, ...]:
    """``tail[k]`` = how many face tuples give at least ``k`` successes, ``k = 0..2*dice``."""
    tail: list[int] = []
    running = 0
    for ways in reversed(_counts(dice)):
        running += ways
        tail.append(running)
    return tuple(reversed(tail))


def success_probability(dice: int, difficulty: int) -> Fraction:
    """Exact chance that ``dice`` d10 reach at least ``difficulty`` successes."""
    _check_roll(dice, difficulty)
    tail = _tail_counts(dice)
    if difficulty >= len(tail):
        return Fraction(0)
    return Fraction(tail[difficulty], FACES**dice)
