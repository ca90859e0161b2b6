from django.apps import AppConfig


class PoolConfig(AppConfig):
    """Pool as a Django app (``settings.ROLL_SYSTEMS`` names it among ``INSTALLED_APPS``): its
    model, a campaign's settings (``models.py``), its admin and migrations (its ratings are
    ``sheets.Rating``, its ledger the ``sparetime`` app)."""

    name = "rolls.systems.pool"
    label = "pool"
