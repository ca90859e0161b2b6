"""``python manage.py bench_rolls``: the roll benchmark, which lives in ``bench/``."""

from bench.command import Command

__all__ = ["Command"]
