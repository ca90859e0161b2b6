"""README's "Scale out: PostgreSQL, Redis and several daphne processes", read from the README
itself: every command it shows runs here for real, in order, as one shell session would run them
(the ``export`` lines carry over), from the move of a demo table served on SQLite (``move_to``)
to the daphne processes serving it, its logs verified at the end: on a PostgreSQL cluster and a
redis-server of the test's own (tests/faults.py), with the README's user and database, and the
two daphne processes of its command lines on free ports of 127.0.0.1, each then answering
/healthz (its database and Redis) as the proxy asks it, and stopped at the end. What this
machine changes in a line (``on_this_machine``): the ports of PostgreSQL, Redis and daphne, the
virtualenv's path, and the static files' folder (the test's own, not the checkout's). A command
of a form no runner knows fails."""

import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from rolls.management.commands.host import daphne_limits
from tests.deploy.test_readme import BASE, clean_env, section
from tests.faults import RedisServer, http, own_postgres
from tests.helpers import free_port, stop

#: Its PostgreSQL and Redis are its own whichever database the suite runs on: it runs once, in
#: the suite's run on SQLite, rather than the same again in the run on PostgreSQL.
pytestmark = pytest.mark.skipif(
    bool(os.environ.get("DATABASE_URL")), reason="runs in the suite's run on SQLite"
)

TITLE = "## Scale out: PostgreSQL, Redis and several daphne processes"
VENV_BIN = Path(sys.executable).parent


def commands():
    """The section's commands: each line of its indented blocks, in order, then the commands
    its sentences quote (`python manage.py ...`, the test suite's `... -m pytest`)."""
    text = re.sub(r"<!--.*?-->", "", section(TITLE), flags=re.S)  # notes to the README's editors
    lines = text.splitlines()
    blocks = [line[4:] for line in lines if line.startswith("    ") and line.strip()]
    prose = " ".join(line for line in lines if not line.startswith("    "))
    quoted = re.findall(r"`([^`]*(?:manage\.py|-m pytest)[^`]*)`", prose)
    return blocks + quoted


class Session:
    """A shell session running the section's commands: the environment its ``export`` lines
    make, the daphne processes its ``&`` lines start."""

    def __init__(self, tmp_path, postgres, redis_server):
        self.tmp_path = tmp_path
        self.postgres = postgres
        self.redis = redis_server
        # The table's secret key in the test's folder, not the checkout's .rollroom/.
        self.key_file = tmp_path / ".rollroom" / "secret_key"
        self.env = {
            **clean_env(),
            "DJANGO_STATIC_ROOT": str(tmp_path / "static"),
            "DJANGO_SECRET_KEY_FILE": str(self.key_file),
        }
        self.env = {k: v for k, v in self.env.items() if not k.startswith("PYTEST_")}
        self.daphnes = {}  # port: process
        self.moved = 0  # the roll logs the move verified

    def on_this_machine(self, line):
        line = line.replace("127.0.0.1:5432", f"127.0.0.1:{self.postgres.port}")
        line = line.replace("127.0.0.1:6379", f"127.0.0.1:{self.redis.port}")
        return line

    def run(self, line):
        line = self.on_this_machine(line)
        for pattern, runner in RUNNERS:
            if re.match(pattern, line):
                return runner(self, line)
        pytest.fail(f"no runner for the README's command: {line}")

    def export(self, line):
        """`export ...`, by sh itself (its quoting and `$(...)`), the environment kept."""
        done = subprocess.run(
            ["sh", "-c", f"{line}\nenv -0"], env=self.env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        self.env = dict(item.split("=", 1) for item in done.stdout.split("\0") if "=" in item)

    def manage(self, line, env=None):
        """`.venv/bin/python manage.py ...` (or `python manage.py ...`): the virtualenv's Python."""
        argv = shlex.split(line, comments=True)
        done = subprocess.run(
            [sys.executable, *argv[1:]],
            cwd=BASE,
            env=env or self.env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done

    def move_to(self, line):
        """`.venv/bin/python manage.py move_to postgres://...`: a table served on SQLite until
        now (seed_demo's, in the test's folder, under the session's key file) moved whole into
        the README's database; it prints the settings to serve it with."""
        table = {**self.env, "SQLITE_PATH": str(self.tmp_path / "table.sqlite3")}
        self.manage("python manage.py seed_demo", env=table)
        done = self.manage(line, env=table)
        url = shlex.split(line)[-1]
        assert f"DATABASE_URL={url}\n" in done.stdout
        assert f"DJANGO_SECRET_KEY_FILE={self.key_file}" in done.stdout
        self.moved = done.stdout.count(" is whole: ")
        assert self.moved == 2, done.stdout

    def daphne(self, line):
        """`.venv/bin/daphne ... -p PORT ... &`: started on a free port in place of PORT; it
        answers /healthz 200 (its database and Redis answer) when asked as the proxy asks."""
        argv = shlex.split(line, comments=True)
        assert argv[-1] == "&", "the README starts each daphne in the background"
        argv = [str(VENV_BIN / "daphne"), *argv[1:-1]]
        assert " ".join(daphne_limits()) in " ".join(argv), "host's websocket limits"
        port = free_port()
        argv[argv.index("-p") + 1] = str(port)
        log = self.tmp_path / f"daphne-{port}.log"
        with open(log, "w") as out:
            self.daphnes[port] = subprocess.Popen(
                argv, cwd=BASE, env=self.env, stdout=out, stderr=subprocess.STDOUT
            )
        proxy = [("Host", self.env["DJANGO_ALLOWED_HOSTS"]), ("X-Forwarded-Proto", "https")]
        status, _, body = wait_for_health(port, self.daphnes[port], log, proxy)
        assert (status, body) == (200, "ok"), log.read_text()

    def check_deploy(self, line):
        """`python manage.py check --deploy --fail-level WARNING`: passes with the settings
        the section exported, after its migrate (tests/config/test_settings.py checks what it
        names when one is missing, without a database)."""
        assert "--fail-level WARNING" in line
        done = self.manage(line)
        assert "no issues" in done.stdout

    def test_suite(self, line):
        """The test suite on PostgreSQL and Redis, with the variables the README gives (on
        this test's own servers): the test the sentence names, which starts two daphne
        processes and sees a roll posted to one reach the sockets of both (the whole suite
        would run this test again)."""
        words = shlex.split(line)
        given = dict(w.split("=", 1) for w in words if re.match(r"[A-Z_]+=", w))
        argv = [w for w in words if not re.match(r"[A-Z_]+=", w)]
        assert argv[:3] == [".venv/bin/python", "-m", "pytest"]
        # A shell of its own: the session's exports (the site's name, DJANGO_SECURE) are a
        # server's settings, not the tests'.
        env = {k: v for k, v in clean_env().items() if not k.startswith("PYTEST_")}
        env.update(given)
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-n", "0", "-p", "no:cacheprovider", "-rs"]
            + ["tests/config/test_scaleout.py::" + SCALE_OUT_TEST],
            cwd=BASE,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr

    def stop(self):
        for process in self.daphnes.values():
            stop(process)


#: The test of the suite the README's sentence describes.
SCALE_OUT_TEST = "test_a_roll_posted_to_one_process_reaches_sockets_on_both"


def wait_for_health(port, process, log, headers, timeout=60):
    """/healthz of the daphne on ``port`` once it listens (a failure if it exits first)."""
    deadline = time.monotonic() + timeout
    while True:
        assert process.poll() is None, log.read_text()
        try:
            return http(port, "/healthz", headers=headers)
        except OSError:
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)


#: What runs each command (after this machine's changes): the first whose pattern matches.
RUNNERS = [
    (r"export ", Session.export),
    (r"\.venv/bin/python manage\.py move_to postgres://", Session.move_to),
    (r"(\.venv/bin/)?python manage\.py check --deploy", Session.check_deploy),
    (r"(\.venv/bin/)?python manage\.py (migrate|collectstatic)\b", Session.manage),
    (r"\.venv/bin/daphne ", Session.daphne),
    (r"([A-Z_]+=\S+ )+\.venv/bin/python -m pytest", Session.test_suite),
]


@pytest.fixture
def session(tmp_path):
    """A shell session on a PostgreSQL cluster of its own, with the README's user and database
    (``rollroom``), and a redis-server of its own; its daphne processes, the servers and the
    cluster stopped at the end."""
    redis_server = RedisServer().start()
    try:
        with own_postgres() as postgres:
            where = ["-h", "127.0.0.1", "-p", str(postgres.port), "-U", "postgres"]
            postgres.run("createuser", *where, "rollroom")
            postgres.run("createdb", *where, "--owner", "rollroom", "rollroom")
            running = Session(tmp_path, postgres, redis_server)
            try:
                yield running
            finally:
                running.stop()
    finally:
        redis_server.stop()


def test_every_command_of_the_section_runs_in_order(session):
    shown = commands()
    assert shown[0].startswith(".venv/bin/python manage.py move_to ")
    assert any(line.startswith(".venv/bin/daphne") for line in shown)
    for line in shown:
        session.run(line)
    assert len(session.daphnes) == 2
    # The moved table is the one served: its logs verify under the key the section keeps.
    verified = session.manage("python manage.py verify_rolls")
    assert f"{session.moved} roll logs are whole" in verified.stdout


def test_a_command_without_a_runner_fails(tmp_path):
    with pytest.raises(pytest.fail.Exception, match="no runner"):
        nowhere = SimpleNamespace(port=0)
        Session(tmp_path, nowhere, nowhere).run("rm -rf /srv/rollroom")
