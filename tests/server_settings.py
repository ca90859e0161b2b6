"""config.settings for a server process a test starts with DEBUG off (DJANGO_SETTINGS_MODULE):
static files named as with DEBUG on, since tests make no collectstatic manifest (in the test
process tests/conftest.py's ``static_files_by_their_names`` does the same); the write limits'
window as long as TEST_WRITE_WINDOW says, if set (a test that counts writes across a window)."""

import os

from config.settings import *  # noqa: F403

if os.environ.get("TEST_WRITE_WINDOW"):
    WRITE_LIMITS = {  # noqa: F405
        kind: (most, int(os.environ["TEST_WRITE_WINDOW"]))
        for kind, (most, _window) in WRITE_LIMITS.items()  # noqa: F405
    }

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
