"""The README's "Scale out" starts from ``move_to``: the command its first paragraph shows is run
as a host would run it (manage.py's own settings, nothing of the tests'), on a demo table in a
SQLite file of the test's own and into a database of a PostgreSQL cluster of the test's own
(tests/faults.py, ``own_postgres``); and the key the paragraph says to keep is the one the moved
logs verify under."""

import os
import re
import shlex
import subprocess
import sys

from django.conf import settings

from tests.faults import own_postgres

TITLE = "## Scale out: PostgreSQL, Redis and several daphne processes"
KEEP_THE_KEY = 'DJANGO_SECRET_KEY="$(cat .rollroom/secret_key)"'


def section():
    text = (settings.BASE_DIR / "README.md").read_text()
    start = text.index(TITLE)
    return text[start : text.index("\n## ", start + len(TITLE))]


def first_command():
    """The first command of the section's indented blocks."""
    return next(
        line[4:] for line in section().splitlines() if line.startswith("    ") and line.strip()
    )


def host_env(folder, **extra):
    """A host's environment: none of the tests' settings, the table's SQLite file and its secret
    key in ``folder``."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_", "REDIS_", "SQLITE_", "ROLLROOM_"))
    }
    env.update(SQLITE_PATH=str(folder / "db.sqlite3"))
    env.update(DJANGO_SECRET_KEY_FILE=str(folder / ".rollroom" / "secret_key"), **extra)
    return env


def manage(argv, env):
    """Run ``argv`` (a README line's words, its Python the test's) in the project's folder."""
    if argv[0].endswith("/python"):
        argv = [sys.executable, *argv[1:]]
    return subprocess.run(
        argv, cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=300
    )


def test_the_section_starts_from_the_move():
    text, command = section(), first_command()
    assert re.fullmatch(r"\.venv/bin/python manage\.py move_to postgres://\S+", command)
    assert text.index("move_to") < text.index("export ")
    assert KEEP_THE_KEY in text


def test_the_move_it_shows_runs_and_the_key_it_keeps_verifies(tmp_path):
    env = host_env(tmp_path)
    seeded = manage([sys.executable, "manage.py", "seed_demo"], env)
    assert seeded.returncode == 0, seeded.stderr
    with own_postgres() as postgres:
        postgres.create_database("rollroom")
        url = postgres.url("rollroom")
        argv = [
            url if word.startswith("postgres://") else word for word in shlex.split(first_command())
        ]

        moved = manage(argv, env)

        assert moved.returncode == 0, moved.stderr
        assert f"DATABASE_URL={url}\n" in moved.stdout
        key_file = tmp_path / ".rollroom" / "secret_key"
        assert f"DJANGO_SECRET_KEY_FILE={key_file}" in moved.stdout
        assert moved.stdout.count(" is whole: ") == 2
        # The paragraph's key: the file's, in DJANGO_SECRET_KEY; a new one fails every log.
        kept = host_env(tmp_path, DATABASE_URL=url, DJANGO_SECRET_KEY=key_file.read_text().strip())
        verified = manage([sys.executable, "manage.py", "verify_rolls"], kept)
        assert verified.returncode == 0, verified.stderr
        assert "2 roll logs are whole" in verified.stdout
        other = host_env(tmp_path, DATABASE_URL=url, DJANGO_SECRET_KEY="another " * 8)
        assert manage([sys.executable, "manage.py", "verify_rolls"], other).returncode == 1
