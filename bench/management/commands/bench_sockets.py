"""``python manage.py bench_sockets``: idle room sockets by the thousand on one daphne process,
which lives in ``bench/sockets.py``."""

from bench.sockets import Command

__all__ = ["Command"]
