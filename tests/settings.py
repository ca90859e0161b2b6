"""The tests' settings (pyproject.toml's DJANGO_SETTINGS_MODULE): config.settings, with the
fourth rule system, Fate-style (tests/systems/fate/), installed as an app, so that its tables
are made with the test databases by its own migrations. This is the one line it needs outside
its package; the fixture ``fate_system`` registers it as a system (``ROLL_SYSTEMS``) for the
tests that ask for it, as the coin is. A server a test starts reads tests.server_settings,
without it."""

from config.settings import *  # noqa: F403

INSTALLED_APPS = [*INSTALLED_APPS, "tests.systems.fate"]  # noqa: F405

# The name Chromium reaches the live server by as a host on the network (tests/browser.py,
# NETWORK_HOST), allowed from the start: Channels' AllowedHostsOriginValidator keeps the list
# it was built with (config/asgi.py, imported before a test class could append to it), and a
# live server forked after that import refused every socket from that name with 403.
ALLOWED_HOSTS = [*ALLOWED_HOSTS, "rollroom.test"]  # noqa: F405
