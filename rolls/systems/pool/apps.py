from django.apps import AppConfig


class PoolConfig(AppConfig):
    """Pool as a Django app (``settings.ROLL_SYSTEMS`` names it among ``INSTALLED_APPS``); it has
    no models of its own (its ratings are ``sheets.Rating``, its ledger the ``sparetime`` app)."""

    name = "rolls.systems.pool"
    label = "pool"
