"""``python manage.py bench_connects``: what a room socket's connect and disconnect cost one
daphne process, which lives in ``bench/connects.py``."""

from bench.connects import Command

__all__ = ["Command"]
