"""The fourth rule system, defined only in the tests: "Fate-style", key ``fate_style``. Four
Fudge dice (4dF: each -1, 0 or +1) plus a skill's rating against the check's difficulty; a roll
succeeds when the total meets it. It proves that a system with models of its own needs nothing
outside its package (issue #44): its app (``apps.py``: a character's skills, ``models.py``,
and their ``migrations/``), its ``RuleSystem`` (``system.py``, overriding only what differs from
the defaults), its writes (``services.py``), its sheet (``sheet.py``) and its templates
(``templates/rolls/systems/fate_style/``, found as an app's).

Its one settings line is in tests/settings.py: ``INSTALLED_APPS`` names this package, so its
tables are made with the test databases, by its own migrations, as Pool's and Mana's are. The
fixture ``fate_system`` (tests/systems/conftest.py) registers it as the coin is, through the
setting ``ROLL_SYSTEMS``, for the tests that ask for it (tests/systems/test_fate.py): no other
test sees it."""

from rolls.systems.scaffold import lazy_system

__all__ = ["SYSTEM"]

#: ``SYSTEM``, imported when first asked for: the package is also a Django app, imported before
#: the models are ready (``apps.py``).
__getattr__ = lazy_system(__name__)
