"""``python manage.py bench_screens``: the time to every screen, which lives in ``bench/``."""

from bench.screens_command import Command

__all__ = ["Command"]
