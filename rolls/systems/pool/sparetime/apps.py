from django.apps import AppConfig


class SparetimeConfig(AppConfig):
    """Pool's sparetime ledger, a Django app of its own (its models, admin and migrations keep
    the label ``sparetime`` they had as a top-level app); its pages are Pool's URLs
    (``rolls/systems/pool/urls.py`` includes them)."""

    name = "rolls.systems.pool.sparetime"
    label = "sparetime"
