"""Mana: mana of a skill's two colors (and colorless) buys d10s; 8-9 is a success, a 10 two
(``system.py``: the table's side of ``rules.mana``; ``services.py``: its writes)."""

from ..scaffold import lazy_system

__all__ = ["SYSTEM"]

#: ``SYSTEM``, imported when first asked for: the package is also a Django app, imported before
#: the models are ready (``apps.py``).
__getattr__ = lazy_system(__name__)
