from django.apps import AppConfig


class ManaConfig(AppConfig):
    """Mana as a Django app (``settings.ROLL_SYSTEMS`` names it among ``INSTALLED_APPS``): its
    models (``models.py``: a campaign's settings and skills, a character's pools), their admin
    and migrations."""

    name = "rolls.systems.mana"
    label = "mana"
