"""``python manage.py bench_insights``: the insight pages timed against a long log, which lives in
``bench/insights.py``."""

from bench.insights import Command

__all__ = ["Command"]
