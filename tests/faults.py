"""Real parts that a fault test starts, breaks and starts again itself: never the shared ones.

``own_postgres()``: a PostgreSQL cluster of the test's own (initdb into a temporary directory,
pg_ctl on a free port of 127.0.0.1, trust authentication), which the test may stop and start
again while a server uses it. Under CI=true missing PostgreSQL binaries are a failure, not a skip.
"""

import os
import re
import shutil
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.helpers import free_port

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
        message = f"needs PostgreSQL's server programs (initdb, pg_ctl) in {POSTGRES_ROOT}/*/bin"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
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
