"""config.settings for a server process a test starts with DEBUG off (DJANGO_SETTINGS_MODULE):
static files named as with DEBUG on, since tests make no collectstatic manifest (in the test
process tests/conftest.py's ``static_files_by_their_names`` does the same)."""

from config.settings import *  # noqa: F403

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
