"""Rollroom's pure-Python rules engine (standard library only, no Django).

* :mod:`rules.mana` - Mana checks: dice from a mana spend, successes, exact odds.
* :mod:`rules.pool` - Pool checks: exploding d6/d10 pools, exact odds.
* :mod:`rules.sheet` - the Pool sheet: attributes, skills and skill templates.
* :mod:`rules.advice` - advice before a roll: mana spends and their odds, held-back dice.
* :mod:`rules.distribution` - exact distributions of successes (Mana) and highest totals.
* :mod:`rules.luck` - successes against the expected number, spread and verdict.
* :mod:`rules.odds` - a chance as the app stores, shows and exports it: exact while short, a
  marked approximation when its fraction runs to thousands of digits.
* :mod:`rules.notation` - free rolls in dice notation: reading, rolling, the exact odds of a
  target.
* :mod:`rules.fair` - dice nobody can choose: each die derived from a session's committed seed
  and the roller's contribution, and its check (every roll's dice: ``rolls.services.roll_dice``;
  the check of a revealed seed's rolls: ``rolls.dice``).

Each module's docstring states its rules, including every decision the source texts leave
open; the /rules/ page tells the same to players.

Every refused input raises :class:`RulesError` (a ``ValueError``) with a message a player can read.
"""

from .errors import MAX_DICE, MAX_TARGET, RulesError

__all__ = ["MAX_DICE", "MAX_TARGET", "RulesError"]
