"""The backups tests' parts: a database to restore into, apart from the test database (a SQLite
file of the test's own, or a PostgreSQL database made for the test and dropped after), and the
commands run as a host runs them, in a process of their own."""

import json
import os
import subprocess
import sys
import urllib.parse

import pytest
from django.conf import settings
from django.db import connection

from tests.faults import database_env
from tests.workers import worker_number


def manage(*argv, env, timeout=120):
    """``manage.py ARGV`` in a process of its own with the environment ``env`` (the tests'
    settings: the test database's migrations include the tests' Fate app)."""
    return subprocess.run(
        [sys.executable, "manage.py", *map(str, argv)],
        cwd=settings.BASE_DIR,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings", **env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def source_env():
    """The environment that points a process at the test database."""
    return {"DJANGO_SETTINGS_MODULE": "tests.settings", **database_env()}


def query(env, sql):
    """The rows of ``sql`` in the database ``env`` points at, read by a process of its own."""
    code = (
        "import json\n"
        "with connection.cursor() as c:\n"
        f"    c.execute({sql!r}); print(json.dumps([list(r) for r in c.fetchall()]))"
    )
    return json.loads(in_django(env, code))


@pytest.fixture
def elsewhere(tmp_path):
    """A second, empty database of the test's own, as the environment that points a process at
    it: a SQLite file, or on PostgreSQL a database named after DATABASE_URL's, dropped after."""
    if connection.vendor == "sqlite":
        yield {"DATABASE_URL": "", "SQLITE_PATH": str(tmp_path / "elsewhere.sqlite3")}
        return
    url = urllib.parse.urlsplit(os.environ["DATABASE_URL"])
    name = f"{url.path.strip('/')}_restore_{worker_number() or 0}"
    admin = {"DATABASE_URL": url._replace(path="/postgres").geturl()}
    quoted = connection.ops.quote_name(name)
    drop = f"DROP DATABASE IF EXISTS {quoted} WITH (FORCE)"
    for sql in (drop, f"CREATE DATABASE {quoted}"):
        psql(admin, sql)
    try:
        yield {"DATABASE_URL": url._replace(path="/" + name).geturl()}
    finally:
        psql(admin, drop)


def psql(env, sql):
    """Run ``sql`` outside a transaction (CREATE and DROP DATABASE) where ``env`` points."""
    in_django(
        env,
        "connection.ensure_connection(); connection.connection.autocommit = True\n"
        f"connection.connection.execute({sql!r})",
    )


def in_django(env, code):
    """Run ``code`` in a Python process of its own, Django set up (``connection`` imported)
    on the database ``env`` points at: what it printed."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; django.setup()\nfrom django.db import connection\n" + code,
        ],
        cwd=settings.BASE_DIR,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout
