"""Fair dice: dice nobody can choose, and anyone can check afterwards (issue #31).

The scheme, per game session:

1. The server draws a secret *seed* (:func:`new_seed`) and shows everyone its *commitment*
   (:func:`commitment`) before the first roll. The seed cannot be changed afterwards without
   the commitment showing it.
2. For each roll the roller's browser contributes a fresh random value, the *contribution*
   (:func:`check_contribution`; the server supplies one, :func:`new_contribution`, when the
   browser gave none). The server does not know it before the roll, so it cannot pick a seed
   that favours a roll; the browser does not know the seed, so it cannot pick a contribution
   that favours one.
3. The dice of the roll at *position* ``p`` in the session's log come from :class:`FairDice`
   (seed, contribution, ``p``), an :class:`~rules.errors.Rng` that the rolls of
   :mod:`rules.pool`, :mod:`rules.mana` and :mod:`rules.notation` use as they use any other.
   Every draw is recorded (:attr:`FairDice.draws`) so that the log can store it.
4. When the session ends the seed is revealed; anyone can check it against the commitment and
   recompute every recorded draw (:func:`verify_draws`, static/js/fair.js in the browser, or
   their own program following docs/fair-dice.md).

Every decision, precisely (docs/fair-dice.md states the same for a checker in any language):

* **Seed**: 32 bytes from :mod:`secrets`, written as 64 lower-case hex characters. Upper-case
  hex is accepted and read as the same bytes. The HMAC key is those 32 bytes (``bytes.fromhex``),
  not the hex text.
* **Commitment**: ``sha256(the seed's 32 bytes)``, as 64 lower-case hex characters. Hashing the
  bytes, not the text, means ``AB..`` and ``ab..`` commit alike, as they are the same key.
* **Contribution**: 16 to 64 hex characters (any length in between, odd lengths too), folded
  to lower case. It enters the derivation as that lower-case ASCII text, never decoded to bytes,
  so its length needs no parity. The server's own is 16 random bytes (32 hex characters).
* **Position**: the roll's place in the session's log, a whole number ``>= 0``, written in
  decimal without sign or leading zeros.
* **Draws**: draw number ``n`` of a roll (0 for its first ``randint``, 1 for the next, ...) with
  range ``a..b`` (``a <= b``, size ``m = b - a + 1``, ``1 <= m <= 2**64``) reads blocks

      block(n, k) = HMAC-SHA256(key=seed bytes,
                                msg=ASCII "rollroom-dice-v1:{position}:{contribution}:{n}:{k}")

  for ``k = 0, 1, 2, ...`` (decimal, as the position). Each 32-byte block is cut into four
  8-byte words, in order, each read as an unsigned **big-endian** 64-bit integer ``x``. The
  first word with ``x < limit``, where ``limit = 2**64 - (2**64 mod m)``, gives the face
  ``a + (x mod m)``. A word with ``x >= limit`` is rejected and the next word is read (after the
  fourth word of a block, the first of block ``k + 1``).
* **Why no modulo bias**: ``limit`` is the largest multiple of ``m`` not above ``2**64``, so the
  accepted words ``0..limit-1`` hold every residue mod ``m`` exactly ``limit / m`` times: each
  face has probability exactly ``1/m`` (given that HMAC-SHA256 output is indistinguishable from
  uniform bytes to anyone without the seed). Rejection costs nothing in practice: a word is
  rejected with probability ``(2**64 mod m) / 2**64 < m / 2**64``, below ``6e-17`` for a d1000.
* **Independence**: each draw reads blocks of its own (``n`` is in the message), so one draw's
  rejections never shift another's words; draws of different rolls differ in ``position`` and
  ``contribution``; the prefix ``rollroom-dice-v1`` separates this derivation from any other use
  of the key. The colons keep the fields apart: a position and a draw number have no colon,
  nor does hex text.
* **The odds are unchanged**: each die is still uniform on its faces and independent of every
  other, exactly what ``secrets.SystemRandom().randint`` gives, so the exact odds the rules
  engine computes (:func:`rules.pool.success_probability`, :func:`rules.mana.success_probability`,
  :func:`rules.notation.chance`) hold as they are. The rolls call ``randint`` in a fixed order
  (each module states it; docs/fair-dice.md repeats it), so a checker can also tell which die
  each draw became.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable

from .errors import RulesError

__all__ = [
    "CONTRIBUTION_BYTES",
    "DOMAIN",
    "MAX_RANGE",
    "SEED_BYTES",
    "FairDice",
    "check_contribution",
    "check_seed",
    "commitment",
    "derive",
    "new_contribution",
    "new_seed",
    "verify_draws",
]

#: The derivation's name and version, the first field of every HMAC message.
DOMAIN = "rollroom-dice-v1"

#: Bytes of a seed (64 hex characters).
SEED_BYTES = 32

#: Bytes of the contribution the server makes when the browser gave none (32 hex characters).
CONTRIBUTION_BYTES = 16

#: Largest range size ``b - a + 1`` one draw can have: one 64-bit word's worth.
MAX_RANGE = 2**64

WORD = 8  # bytes of one candidate word
SPACE = 2**64  # values of one word

_SEED = re.compile(r"[0-9a-fA-F]{64}")
_CONTRIBUTION = re.compile(r"[0-9a-fA-F]{16,64}")


def new_seed() -> str:
    """A fresh secret seed: 32 random bytes as 64 lower-case hex characters."""
    return secrets.token_hex(SEED_BYTES)


def check_seed(text: object) -> str:
    """``text`` as a seed (64 hex characters, lower-cased), else RulesError."""
    if not isinstance(text, str) or _SEED.fullmatch(text) is None:
        raise RulesError("A dice seed is 64 hex characters (0-9, a-f).")
    return text.lower()


def commitment(seed: str) -> str:
    """The seed's commitment: SHA-256 of its 32 bytes (not of its hex text), as lower-case hex."""
    return hashlib.sha256(bytes.fromhex(check_seed(seed))).hexdigest()


def new_contribution() -> str:
    """The server's contribution for a roll whose browser gave none: 16 random bytes, hex."""
    return secrets.token_hex(CONTRIBUTION_BYTES)


def check_contribution(text: object) -> str:
    """``text`` as a contribution (16 to 64 hex characters, lower-cased), else RulesError."""
    if not isinstance(text, str) or _CONTRIBUTION.fullmatch(text) is None:
        raise RulesError("A dice contribution is 16 to 64 hex characters (0-9, a-f).")
    return text.lower()


def _check_position(position: object) -> int:
    if isinstance(position, bool) or not isinstance(position, int) or position < 0:
        raise RulesError(f"A roll's position in the log is a whole number >= 0, not {position!r}.")
    return position


def _check_range(a: object, b: object) -> int:
    """The size ``b - a + 1`` of the range ``a..b``, else RulesError."""
    for end in (a, b):
        if isinstance(end, bool) or not isinstance(end, int):
            raise RulesError(f"A die's range is given by whole numbers, not {end!r}.")
    size = b - a + 1  # type: ignore[operator]
    if not 1 <= size <= MAX_RANGE:
        raise RulesError(f"A die's range must hold 1 to 2**64 faces, not {a}..{b}.")
    return size


def _block(key: bytes, position: int, contribution: str, n: int, k: int) -> bytes:
    message = f"{DOMAIN}:{position}:{contribution}:{n}:{k}".encode("ascii")
    return hmac.digest(key, message, "sha256")


def _draw(key: bytes, position: int, contribution: str, n: int, a: int, size: int) -> int:
    limit = SPACE - SPACE % size
    k = 0
    while True:
        block = _block(key, position, contribution, n, k)
        for start in range(0, len(block), WORD):
            x = int.from_bytes(block[start : start + WORD], "big")
            if x < limit:
                return a + x % size
        k += 1


def derive(seed: str, contribution: str, position: int, n: int, a: int, b: int) -> int:
    """The face of draw number ``n`` (0-based) of the roll at ``position``, in ``a..b``."""
    key = bytes.fromhex(check_seed(seed))
    contribution = check_contribution(contribution)
    _check_position(position)
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise RulesError(f"A draw number is a whole number >= 0, not {n!r}.")
    return _draw(key, position, contribution, n, a, _check_range(a, b))


class FairDice:
    """The dice source of one roll: ``randint(a, b)`` gives draw 0, 1, 2, ... of the roll at
    ``position``, derived from the session's seed and the roll's contribution; ``draws`` lists
    every draw made, as ``(a, b, value)`` in order."""

    def __init__(self, seed_hex: str, contribution_hex: str, position: int, *, by: str = ""):
        self._key = bytes.fromhex(check_seed(seed_hex))
        self.contribution = check_contribution(contribution_hex)
        self.position = _check_position(position)
        self._draws: list[tuple[int, int, int]] = []
        #: The seed's commitment, and who made the contribution (the app's "browser" or
        #: "server"), which the roll's record keeps.
        self.commitment = hashlib.sha256(self._key).hexdigest()
        self.by = by

    def randint(self, a: int, b: int) -> int:
        """A uniform whole number in ``a..b`` (both included), as ``random.randint``."""
        size = _check_range(a, b)
        value = _draw(self._key, self.position, self.contribution, len(self._draws), a, size)
        self._draws.append((a, b, value))
        return value

    @property
    def draws(self) -> list[tuple[int, int, int]]:
        """Every draw so far, ``(a, b, value)`` in order (a copy)."""
        return list(self._draws)

    def record(self) -> dict:
        """What a roll keeps of its dice: the seed's commitment, the contribution, who made it
        and every draw as ``[a, b, value]``, in order (JSON's lists)."""
        draws = [list(draw) for draw in self._draws]
        return {
            "commitment": self.commitment,
            "contribution": self.contribution,
            "by": self.by,
            "draws": draws,
        }


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def verify_draws(
    seed: str, contribution: str, position: int, draws: Iterable[Iterable[int]]
) -> int | None:
    """None when every recorded draw ``(a, b, value)`` is what the derivation gives for its
    place, else the index of the first that is not (a malformed draw, such as a range that is
    empty or not of whole numbers, counts as one that is not). A bad seed, contribution or
    position raises RulesError."""
    key = bytes.fromhex(check_seed(seed))
    contribution = check_contribution(contribution)
    _check_position(position)
    for n, draw in enumerate(draws):
        try:
            a, b, value = draw
            size = _check_range(a, b)
        except (TypeError, ValueError):  # RulesError is a ValueError
            return n
        if not _whole(value) or _draw(key, position, contribution, n, a, size) != value:
            return n
    return None
