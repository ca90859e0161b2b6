"""Mana: mana of a skill's two colors (and colorless) buys d10s; 8-9 is a success, a 10 two
(``system.py``: the table's side of ``rules.mana``; ``services.py``: its writes)."""

__all__ = ["SYSTEM"]


def __getattr__(name):
    """``SYSTEM``, imported when first asked for: the package is also a Django app, imported
    before the models are ready (``apps.py``)."""
    if name == "SYSTEM":
        from .system import SYSTEM

        return SYSTEM
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
