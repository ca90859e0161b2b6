from django.apps import AppConfig


class FateConfig(AppConfig):
    """The Fate-style system as a Django app (tests/settings.py names it in ``INSTALLED_APPS``):
    its model, a character's skills (``models.py``), and its migrations; label ``fate``."""

    name = "tests.systems.fate"
    label = "fate"
