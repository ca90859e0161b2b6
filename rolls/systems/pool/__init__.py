"""Pool: d6 for the attribute plus d10 for the skill, exploding; the highest die against the TN
(``system.py``: the table's side of ``rules.pool``; ``services.py``: its writes)."""

__all__ = ["SYSTEM"]


def __getattr__(name):
    """``SYSTEM``, imported when first asked for: the package is also a Django app, imported
    before the models are ready (``apps.py``)."""
    if name == "SYSTEM":
        from .system import SYSTEM

        return SYSTEM
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
