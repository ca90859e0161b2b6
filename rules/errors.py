"""The rules engine's one error type, the input limits and the dice source shared by both systems.

Decisions the rules leave to the engine:

* Every bad input raises :class:`RulesError`, a ``ValueError`` whose message can be shown to a
  player as is.
* Counts, faces, target numbers and difficulties must be ``int``. ``bool`` is refused even though
  it is an ``int`` subclass, and so are floats such as ``2.0``: a whole number typed as text or a
  float is the caller's bug, not something to round.
* A roll uses at most :data:`MAX_DICE` dice in total, so the odds stay cheap to compute.
* A target number (Pool) or difficulty (Mana) lies in ``1..MAX_TARGET``. Above that no check is
  meaningful and the exact odds would only grow huge fractions.
"""

from __future__ import annotations

from typing import Protocol

#: Most dice one roll may use (d6 + d10 for Pool; every d10 for Mana).
MAX_DICE = 100

#: Highest target number (Pool) or difficulty (Mana) the engine accepts.
MAX_TARGET = 1000


class Rng(Protocol):
    """A dice source: ``secrets.SystemRandom()`` in the app, ``random.Random(seed)`` in tests."""

    def randint(self, a: int, b: int) -> int: ...


class RulesError(ValueError):
    """An input the rules refuse; ``str(error)`` is a sentence a player can read."""


def require_int(value: object, what: str, minimum: int, maximum: int | None = None) -> int:
    """Return ``value`` if it is a whole number in ``minimum..maximum``, else raise RulesError.

    ``what`` names the value in player terms, e.g. ``"The target number"``.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{what} must be a whole number, not {value!r}.")
    if value < minimum:
        if minimum == 0:
            raise RulesError(f"{what} cannot be negative (got {value}).")
        raise RulesError(f"{what} must be at least {minimum} (got {value}).")
    if maximum is not None and value > maximum:
        raise RulesError(f"{what} can be at most {maximum} (got {value}).")
    return value
