"""An exact chance as the app stores, shows and exports it: one text for each chance, bounded.

The engine's chances are exact :class:`fractions.Fraction` values, and most are short
(``2307/10000``). A Pool pool of many dice against a high TN is not: 45 d10 at TN 1000 has terms
of about 4,500 digits, 100 d10 of about 10,000. Python refuses to write (or read) an integer of
more than 4,300 digits as text, and nobody can read one anyway. So:

* :func:`as_text` writes a chance exactly, ``"p/q"`` (``"0"`` and ``"1"`` alone), while both
  terms have at most :data:`MAX_EXACT_DIGITS` digits: every Mana chance (at most 100 d10, terms of
  at most 101 digits), and every Pool chance of a few dozen dice. Above that it writes a decimal
  approximation marked with a leading ``~``, to :data:`DIGITS` significant digits: of the chance
  itself up to one half (``"~4.5e-99"``, ``"~0.30103..."``), and of the chance of missing above
  it (``"~1-1e-98"``: one minus that). So an approximation is never ``0`` or ``1`` when the chance
  is not, however close it comes: a roll that could fail never reads as certain.
* :func:`read` reads either back as a :class:`~fractions.Fraction` (an approximation as the
  fraction its decimal writes); :func:`shown` is the chance as its text tells it
  (``read(as_text(chance))``), for a figure shown before a roll to be the one its roll stores.
* :func:`as_float` is a chance (or its text) as a float, for a spreadsheet's column: 17
  significant digits at most; below about ``1e-308`` it is 0.

The texts are the same for the same chance: the log groups rolls by it (``insights``).
"""

from __future__ import annotations

from decimal import Decimal, localcontext
from fractions import Fraction

__all__ = ["APPROXIMATE", "DIGITS", "MAX_EXACT_DIGITS", "as_float", "as_text", "read", "shown"]

#: Most digits of either term of a chance written exactly.
MAX_EXACT_DIGITS = 120

#: Significant digits of an approximation (a float holds 17).
DIGITS = 20

#: What starts an approximation's text; ``APPROXIMATE + "1-"`` starts one of the chance to miss.
APPROXIMATE = "~"

_EXACT_BELOW = 10**MAX_EXACT_DIGITS
_MISS = "1-"


def _check(chance: Fraction) -> Fraction:
    if not isinstance(chance, Fraction) or not 0 <= chance <= 1:
        raise ValueError("A chance is a Fraction between 0 and 1.")
    return chance


def is_exact(chance: Fraction) -> bool:
    """Whether :func:`as_text` writes ``chance`` exactly."""
    return chance.numerator < _EXACT_BELOW and chance.denominator < _EXACT_BELOW


def _decimal(value: Fraction) -> str:
    """``value`` (above 0) to DIGITS significant digits, as ``Decimal`` writes it ("4.5e-99")."""
    with localcontext() as context:
        context.prec = DIGITS
        # Decimal(int) is exact whatever the digits; the division rounds to DIGITS, and
        # normalize drops the zeros it ends with ("4.5e-99", not "4.5000000000000000000e-99").
        quotient = (Decimal(value.numerator) / Decimal(value.denominator)).normalize()
    return str(quotient).lower()


def as_text(chance: Fraction) -> str:
    """The chance's text: ``"p/q"`` exactly, or a ``~`` approximation (the module's docstring)."""
    _check(chance)
    if is_exact(chance):
        return str(chance)
    if chance <= Fraction(1, 2):
        return APPROXIMATE + _decimal(chance)
    return APPROXIMATE + _MISS + _decimal(1 - chance)


def read(text: str) -> Fraction:
    """The chance an :func:`as_text` text (or an older exact one) stands for."""
    if not isinstance(text, str):
        raise ValueError(f"A chance's text is a string, not {text!r}.")
    if not text.startswith(APPROXIMATE):
        return Fraction(text)
    figure = text.removeprefix(APPROXIMATE)
    if figure.startswith(_MISS):
        return 1 - Fraction(figure.removeprefix(_MISS))
    return Fraction(figure)


def shown(chance: Fraction) -> Fraction:
    """``chance`` as its text tells it: itself when written exactly, else its approximation."""
    return chance if is_exact(_check(chance)) else read(as_text(chance))


def as_float(chance: Fraction | str) -> float:
    """A chance, or its text, as a float (the one its text stands for)."""
    value = read(chance) if isinstance(chance, str) else shown(chance)
    return float(value)
