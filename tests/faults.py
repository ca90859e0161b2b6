"""Real parts that a fault test starts, breaks and starts again itself, never the shared ones:
a redis-server of the test's own (``redis_server``), a PostgreSQL cluster of the test's own
(``own_postgres``: initdb into a temporary directory, pg_ctl on a free port of 127.0.0.1, trust
authentication), daphne processes serving them (``start_daphne``), with plain HTTP helpers, and
Caddy in front of them (``Caddy``: bench/caddy.py's, on this worker's ports).

Under CI=true a missing server binary fails the test; elsewhere it is skipped.
"""

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.db import connection

import bench.caddy
from bench.caddy import CADDY
from rolls.management.commands.host import daphne_limits
from tests.browser import in_ci
from tests.helpers import free_port, stop


def require_binary(name):
    """The path of the program ``name``: a failure under CI=true when missing, else a skip."""
    path = shutil.which(name)
    if path is None:
        fail_or_skip(f"{name} is not installed")
    return path


def fail_or_skip(message):
    """A missing part: the test fails under CI=true, else it is skipped."""
    if in_ci():
        pytest.fail(message)
    pytest.skip(message)


class RedisServer:
    """A redis-server on a free port of 127.0.0.1, keeping nothing on disk: ``stop()`` it and
    ``start()`` it again on the same port (it comes back empty, as a restarted Redis without
    persistence does)."""

    def __init__(self):
        self.binary = require_binary("redis-server")
        self.port = free_port()
        self.process = None

    def url(self, db=0):
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self):
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1"]
            + ["--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port, socket_connect_timeout=0.2)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.process.returncode}")
            try:
                client.ping()
                return self
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server did not answer on {self.port}")

    def stop(self):
        if self.process is not None:
            stop(self.process)
            self.process = None


@pytest.fixture
def redis_server():
    """A redis-server of this test's own, running; stopped when the test ends."""
    server = RedisServer().start()
    yield server
    server.stop()


def database_env():
    """The environment that points a server process at the test database (the one this test
    process writes to), on PostgreSQL or on SQLite."""
    name = connection.settings_dict["NAME"]
    if connection.vendor == "sqlite":
        return {"DATABASE_URL": "", "SQLITE_PATH": str(name)}
    url = urllib.parse.urlsplit(os.environ["DATABASE_URL"])
    return {"DATABASE_URL": url._replace(path="/" + name).geturl()}


def daphne_log_path(port):
    return f"/tmp/daphne-{port}.log"


def daphne_log(port):
    with open(daphne_log_path(port)) as log:
        return log.read()


def wait_for_log(port, line, process, timeout=15):
    """Wait until the log of the daphne process on ``port`` says ``line`` (a failure if the
    process exits first or ``timeout`` seconds pass)."""
    deadline = time.monotonic() + timeout
    while line not in daphne_log(port):
        if process.poll() is not None:
            raise RuntimeError(f"daphne exited with {process.returncode}: {daphne_log(port)}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"daphne's log never said {line!r}: {daphne_log(port)}")
        time.sleep(0.05)


def start_daphne(port, app="config.asgi:application", *, argv=None, access_log=None, **env):
    """A daphne process on ``port``, on the test database, with ``env`` over this process's
    environment (e.g. ``REDIS_URL``) and the websocket limits ``manage.py host`` gives it, serving
    ``app`` (the site's own by default), or the command line ``argv``, which must listen on
    ``port``; its output in :func:`daphne_log`, and each request it answers in the file
    ``access_log`` when given (daphne's ``--access-log``: '"GET /healthz" 200')."""
    env = {**os.environ, **database_env(), "DJANGO_DEBUG": "1", **env}
    logged = ["--access-log", str(access_log)] if access_log else []
    argv = argv or (
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port)]
        + [*logged, *daphne_limits(), app]
    )
    process = subprocess.Popen(
        argv,
        cwd=settings.BASE_DIR,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(daphne_log_path(port), "w"),
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"daphne exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"daphne did not listen on {port}")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def http(port, path, data=None, *, session_id=None, htmx=False, headers=()):
    """GET ``path`` on ``port`` (POST ``data`` when given, with a CSRF token) as the session's
    user, with ``headers`` (name, value pairs) besides, following no redirect: the status, the
    headers and the body."""
    extra = dict(headers)
    token = secrets.token_hex(16)
    cookies = [f"csrftoken={token}"] + ([f"sessionid={session_id}"] if session_id else [])
    headers = {"Cookie": "; ".join(cookies), "Origin": f"http://127.0.0.1:{port}"}
    if data is not None:
        headers["X-CSRFToken"] = token
        data = urllib.parse.urlencode(data, doseq=True).encode()
    if htmx:
        headers["HX-Request"] = "true"
    headers.update(extra)
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, headers=headers)
    try:
        with urllib.request.build_opener(_NoRedirect).open(request, timeout=15) as response:
            return response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as error:  # a redirect, or an error
        return error.code, error.headers, error.read().decode()


def session_of(headers):
    """The session id a response's Set-Cookie gives, or None."""
    for value in headers.get_all("Set-Cookie") or []:
        name, _, rest = value.partition("=")
        if name.strip() == settings.SESSION_COOKIE_NAME:
            return rest.split(";")[0]
    return None


#: Where Debian's packages put each PostgreSQL version's programs.
POSTGRES_ROOT = Path("/usr/lib/postgresql")


def postgres_bin():
    """The bin directory of the newest PostgreSQL installed; skips the test when there is none
    (fails under CI=true)."""
    found = [
        path.parent
        for path in POSTGRES_ROOT.glob("*/bin/pg_ctl")
        if (path.parent / "initdb").exists()
    ]
    if not found:
        fail_or_skip(f"needs PostgreSQL's programs (initdb, pg_ctl) in {POSTGRES_ROOT}/*/bin")
    return max(found, key=lambda bin_dir: [int(n) for n in re.findall(r"\d+", bin_dir.parent.name)])


class OwnPostgres:
    """A PostgreSQL cluster in ``directory``, listening on 127.0.0.1:``port`` only."""

    def __init__(self, bin_dir, directory, port):
        self.bin_dir = bin_dir
        self.directory = Path(directory)
        self.data = self.directory / "data"
        self.port = port
        self.log = self.directory / "postgres.log"

    def url(self, database="postgres"):
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def run(self, program, *args, check=True, timeout=60):
        """Run one of PostgreSQL's programs, as the postgres user when this is root (initdb and
        the server refuse to run as root)."""
        command = [str(self.bin_dir / program), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        return subprocess.run(command, check=check, capture_output=True, text=True, timeout=timeout)

    def init(self):
        self.run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8")

    def start(self):
        """Start the server and wait until it accepts connections (pg_ctl -w)."""
        options = f"-k {self.directory} -h 127.0.0.1 -p {self.port} -c fsync=off"
        self.run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "start")

    def stop(self):
        """Stop the server at once, as a crash or a restart would: open connections are cut."""
        self.run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def running(self):
        return self.run("pg_ctl", "-D", str(self.data), "status", check=False).returncode == 0

    def create_database(self, name):
        self.run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name)


@contextmanager
def own_postgres():
    """``with own_postgres() as postgres: ...``: a running cluster of this test's own, stopped
    and deleted when the block ends, also on failure."""
    bin_dir = postgres_bin()
    directory = tempfile.mkdtemp(prefix="rollroom-pg-")
    if os.geteuid() == 0:
        shutil.chown(directory, user="postgres", group="postgres")
    postgres = OwnPostgres(bin_dir, directory, free_port())
    try:
        postgres.init()
        postgres.start()
        yield postgres
    finally:
        try:
            if postgres.data.exists() and postgres.running():
                postgres.stop()
        finally:
            shutil.rmtree(directory, ignore_errors=True)


#: The logger of Caddy's active health checks (caddy 2.6).
HEALTH_CHECKER = "http.handlers.reverse_proxy.health_checker.active"


class Caddy(bench.caddy.Caddy):
    """bench/caddy.py's Caddy (deploy/Caddyfile with ``tls internal`` on 127.0.0.1) on ports
    that are this test worker's (``free_port``). A missing caddy fails under CI=true, else
    skips."""

    def __init__(self, directory, domain, upstreams, **env):
        if not bench.caddy.installed():
            fail_or_skip(f"{CADDY} is not installed (apt-get install caddy)")
        super().__init__(
            directory, domain, upstreams, https_port=free_port(), http_port=free_port(), **env
        )

    def health_seen(self, upstream):
        """What Caddy's active health checks last said of ``upstream`` (``host:port``), from
        its log: False after a failed check (each is logged), True after "host is up" (logged
        when a check passes after one failed) or before any failed (Caddy starts with every
        upstream healthy and says nothing of a check that passes as the one before did)."""
        said = True
        for line in self.log().splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry.get("logger") == HEALTH_CHECKER and entry.get("host") == upstream:
                said = entry.get("msg") == "host is up"
        return said
