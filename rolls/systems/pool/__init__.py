"""Pool: d6 for the attribute plus d10 for the skill, exploding; the highest die against the TN
(``system.py``: the table's side of ``rules.pool``; ``services.py``: its writes)."""

from ..scaffold import lazy_system

__all__ = ["SYSTEM"]

#: ``SYSTEM``, imported when first asked for: the package is also a Django app, imported before
#: the models are ready (``apps.py``).
__getattr__ = lazy_system(__name__)
