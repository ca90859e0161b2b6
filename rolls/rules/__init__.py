"""Rollroom's pure-Python rules engine (standard library only, no Django).

* :mod:`rolls.rules.mana` - Mana checks (seed 000): dice from a mana spend, successes, exact odds.
* :mod:`rolls.rules.pool` - Pool checks (seed 001): exploding d6/d10 pools, exact odds.

Every refused input raises :class:`RulesError` (a ``ValueError``) with a message a player can read.
"""

from .errors import MAX_DICE, MAX_TARGET, RulesError

__all__ = ["MAX_DICE", "MAX_TARGET", "RulesError"]
