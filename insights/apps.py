from django.apps import AppConfig


class InsightsConfig(AppConfig):
    """What the log tells once read: luck, tuning, session summaries, odds, exports and their
    charts. Above rolls and sparetime, whose rows it reads; it has no models of its own."""

    name = "insights"
