"""Pool checks: exploding d6/d10 pools and their exact odds.

The rules as the app implements them (the /rules/ page tells them to players):

* Faces are ints: 1..6 on a d6, 1..10 on a d10 (10 is the face marked "0").
* Exploding: a die showing its maximum (6, or 10 on a d10) is rolled again and the new face added;
  this repeats while it shows the maximum. A die's *chain* is the tuple of its faces, e.g.
  ``(6, 3)`` totals 9.
* Explosion cap: a die is re-rolled at most :data:`MAX_EXPLOSIONS` (100) times. After the 100th
  re-roll the chain stops and its last face counts as it is, even a maximum. So a chain has at
  most 101 faces, a d6 totals at most 606 and a d10 at most 1010. The odds below are exact for this
  capped rule; the cap only changes anything for target numbers above 600.
* A valid chain has every face but the last at the maximum, and its last face below the maximum
  unless the chain is capped (an unfinished chain is refused).
* Success: the highest die total >= TN (reaching the TN is enough), except that a highest total of
  1 always fails (even TN 1).
* A pool has 1..MAX_DICE dice in total (d6 + d10); TN lies in 1..MAX_TARGET. Shifted dice are held
  back by the app: this module only sees the dice actually rolled.
* Odds: P(success) = 1 - P(every die total < max(TN, 2)). Dice are independent, so this is a
  product of powers of two exact per-die probabilities, computed in integers and returned as one
  :class:`fractions.Fraction`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from .errors import MAX_DICE, MAX_TARGET, Rng, RulesError, require_int

__all__ = [
    "MAX_DICE",
    "MAX_EXPLOSIONS",
    "MAX_TARGET",
    "PoolRoll",
    "chain_total",
    "evaluate",
    "roll",
    "success_probability",
]

#: Most re-rolls of one die; the face of the last re-roll counts as it is.
MAX_EXPLOSIONS = 100

D6 = 6
D10 = 10

Chain = tuple[int, ...]


@dataclass(frozen=True)
class PoolRoll:
    """A rolled (or evaluated) pool check; totals are in the same order as the chains."""

    d6_chains: tuple[Chain, ...]
    d10_chains: tuple[Chain, ...]
    d6_totals: tuple[int, ...]
    d10_totals: tuple[int, ...]
    highest: int
    tn: int
    success: bool


def chain_total(chain: Sequence[int]) -> int:
    """A die's total: the sum of its chain of faces, e.g. ``(6, 3)`` -> 9."""
    return sum(chain)


def _die_name(sides: int) -> str:
    return f"d{sides}"


def _max_face_name(sides: int) -> str:
    return '10 (the face marked "0")' if sides == D10 else str(sides)


def _check_pool(d6: int, d10: int, tn: int) -> None:
    require_int(d6, "The number of d6", 0)
    require_int(d10, "The number of d10", 0)
    if d6 + d10 < 1:
        raise RulesError("A pool needs at least one die.")
    if d6 + d10 > MAX_DICE:
        raise RulesError(f"A pool can use at most {MAX_DICE} dice (got {d6 + d10}).")
    require_int(tn, "The target number", 1, MAX_TARGET)


def _check_chain(chain: object, sides: int) -> Chain:
    die = _die_name(sides)
    if not isinstance(chain, (tuple, list)):
        raise RulesError(f"A {die} result must be a list of faces, not {chain!r}.")
    faces = tuple(chain)
    if not faces:
        raise RulesError(f"A {die} result needs at least one face.")
    if len(faces) > MAX_EXPLOSIONS + 1:
        raise RulesError(f"A {die} is rolled again at most {MAX_EXPLOSIONS} times.")
    for face in faces:
        require_int(face, f"A {die} face", 1, sides)
    if any(face != sides for face in faces[:-1]):
        raise RulesError(
            f"A {die} is rolled again only after showing {_max_face_name(sides)}; "
            f"{faces} cannot happen."
        )
    if faces[-1] == sides and len(faces) <= MAX_EXPLOSIONS:
        raise RulesError(
            f"A {die} showing {_max_face_name(sides)} is rolled again; {faces} is unfinished."
        )
    return faces


def _check_chains(chains: object, sides: int) -> tuple[Chain, ...]:
    if not isinstance(chains, (tuple, list)):
        raise RulesError(f"The {_die_name(sides)} results must be a list, not {chains!r}.")
    return tuple(_check_chain(chain, sides) for chain in chains)


def evaluate(
    d6_chains: Sequence[Sequence[int]], d10_chains: Sequence[Sequence[int]], tn: int
) -> PoolRoll:
    """Judge given chains against ``tn`` (validates every chain)."""
    d6 = _check_chains(d6_chains, D6)
    d10 = _check_chains(d10_chains, D10)
    _check_pool(len(d6), len(d10), tn)
    d6_totals = tuple(chain_total(chain) for chain in d6)
    d10_totals = tuple(chain_total(chain) for chain in d10)
    highest = max(d6_totals + d10_totals)
    return PoolRoll(
        d6_chains=d6,
        d10_chains=d10,
        d6_totals=d6_totals,
        d10_totals=d10_totals,
        highest=highest,
        tn=tn,
        success=highest >= tn and highest != 1,
    )


def _roll_chain(sides: int, rng: Rng) -> Chain:
    faces = [rng.randint(1, sides)]
    while faces[-1] == sides and len(faces) <= MAX_EXPLOSIONS:
        faces.append(rng.randint(1, sides))
    return tuple(faces)


def roll(d6: int, d10: int, tn: int, rng: Rng) -> PoolRoll:
    """Roll ``d6`` d6 then ``d10`` d10 (each die's whole chain in turn) against ``tn``."""
    _check_pool(d6, d10, tn)
    d6_chains = [_roll_chain(D6, rng) for _ in range(d6)]
    d10_chains = [_roll_chain(D10, rng) for _ in range(d10)]
    return evaluate(d6_chains, d10_chains, tn)


def _at_least(sides: int, target: int, max_explosions: int = MAX_EXPLOSIONS) -> Fraction:
    """Exact P(one exploding die's total >= ``target``), with at most ``max_explosions`` re-rolls.

    Write ``target - 1 = q * sides + r`` (``0 <= r < sides``). A total reaches ``target`` exactly
    when the first ``q`` faces are all the maximum and the next face is above ``r``: probability
    ``(sides - r) / sides**(q + 1)``. That next face is re-roll number ``q``, so it exists only
    while ``q <= max_explosions``; beyond it the total cannot reach ``target``.
    """
    if target <= 1:
        return Fraction(1)
    q, r = divmod(target - 1, sides)
    if q > max_explosions:
        return Fraction(0)
    return Fraction(sides - r, sides ** (q + 1))


def success_probability(d6: int, d10: int, tn: int) -> Fraction:
    """Exact chance that the highest total of ``d6`` d6 and ``d10`` d10 succeeds against ``tn``."""
    _check_pool(d6, d10, tn)
    target = max(tn, 2)  # a highest total of 1 always fails
    hit6 = _at_least(D6, target)
    hit10 = _at_least(D10, target)
    miss = (hit6.denominator - hit6.numerator) ** d6 * (hit10.denominator - hit10.numerator) ** d10
    whole = hit6.denominator**d6 * hit10.denominator**d10
    return Fraction(whole - miss, whole)
