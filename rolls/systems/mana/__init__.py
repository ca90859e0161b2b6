"""Mana: mana of a skill's two colors (and colorless) buys d10s; 8-9 is a success, a 10 two
(``system.py``: the table's side of ``rules.mana``; ``services.py``: its writes)."""

from .system import SYSTEM

__all__ = ["SYSTEM"]
