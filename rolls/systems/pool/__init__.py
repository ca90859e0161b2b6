"""Pool: d6 for the attribute plus d10 for the skill, exploding; the highest die against the TN
(``system.py``: the table's side of ``rules.pool``; ``services.py``: its writes)."""

from .system import SYSTEM

__all__ = ["SYSTEM"]
