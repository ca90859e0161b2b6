from django.apps import AppConfig


class InsightsConfig(AppConfig):
    """What the log tells once read: luck, tuning, session summaries, odds, exports and their
    charts. Above rolls, whose log it reads; it has no models of its own, and what a system adds
    to a session's summary (Pool's: the sparetime awarded) it asks the campaign's system."""

    name = "insights"
