"""The tests run in parallel (pytest-xdist, ``-n`` in pyproject.toml's addopts), each worker a
process with databases of its own: SQLite's test file is named after the process
(config/settings.py), pytest-django suffixes PostgreSQL's test database with the worker's id
(test_<name>_gw0, ...), and this plugin, loaded before Django's settings are read (``-p
tests.workers`` in addopts), gives each worker a Redis database of its own: REDIS_URL's number
plus the worker's (gw0: +0, gw1: +1, ...; modulo Redis's 16), so that no worker flushes or
counts another's keys. The servers a test starts inherit it with the environment. Ports are
kept apart by ``tests.helpers.free_port``."""

import os
import urllib.parse

#: Redis's databases (its default ``databases 16``).
REDIS_DATABASES = 16


def worker_number(environ=os.environ):
    """This process's xdist worker number (gw0: 0), or None when not run by xdist."""
    worker = environ.get("PYTEST_XDIST_WORKER", "")
    return int(worker.removeprefix("gw")) if worker.startswith("gw") else None


def worker_count(environ=os.environ):
    return int(environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))


def redis_url_of_worker(url, number):
    """``url`` with its database number moved up by the worker's ``number``."""
    parts = urllib.parse.urlsplit(url)
    database = int(parts.path.strip("/") or 0)
    return parts._replace(path=f"/{(database + number) % REDIS_DATABASES}").geturl()


if worker_number() is not None and os.environ.get("REDIS_URL"):
    os.environ["REDIS_URL"] = redis_url_of_worker(os.environ["REDIS_URL"], worker_number())
