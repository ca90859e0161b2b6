"""The tests' settings (pyproject.toml's DJANGO_SETTINGS_MODULE): config.settings, with the
fourth rule system, Fate-style (tests/systems/fate/), installed as an app, so that its tables
are made with the test databases by its own migrations. This is the one line it needs outside
its package; the fixture ``fate_system`` registers it as a system (``ROLL_SYSTEMS``) for the
tests that ask for it, as the coin is. A server a test starts reads tests.server_settings,
without it."""

from config.settings import *  # noqa: F403

INSTALLED_APPS = [*INSTALLED_APPS, "tests.systems.fate"]  # noqa: F405
