"""``manage.py backup``: a whole copy of the table's database, named by its time, its owner's
only, the last ROLLROOM_BACKUP_KEEP kept; ``--every`` until its input closes (as ``host`` runs
it); a target that cannot be written refused with nothing left behind; PostgreSQL without
pg_dump refused by name."""

import stat
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from backups import dumps
from core.backups import backup_name, backups_in, last_backup, taken_at
from tests.backups.conftest import manage, source_env
from tests.conftest import make_campaign, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def take(folder):
    call_command("backup", to=str(folder), stdout=open("/dev/null", "w"))
    return backups_in(folder)[-1]


def test_a_backup_is_named_by_its_time_and_readable_by_its_owner_only(tmp_path):
    make_campaign(make_user("gm"), name="Blue Harbor")
    before = datetime.now(UTC).replace(microsecond=0)
    folder = tmp_path / "deep" / "backups"
    path = take(folder)
    taken, count = taken_at(path.name)
    assert before <= taken <= datetime.now(UTC) and count == 0
    assert path.suffix == {"sqlite": ".sqlite3", "postgresql": ".pgdump"}[connection.vendor]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert [p.name for p in folder.iterdir()] == [path.name]  # no draft left beside it
    assert last_backup(folder) == taken
    with open(path, "rb") as file:
        assert file.read(16).startswith(dumps.HEADERS[connection.vendor])


def test_the_last_n_are_kept_and_a_second_within_a_second_gets_its_own_name(tmp_path, settings):
    settings.BACKUP_KEEP = 2
    now = datetime.now(UTC)
    # Older backups of the folder, by their names; a file of another name is never touched.
    for hours in (3, 2):
        (tmp_path / backup_name(now - timedelta(hours=hours), connection.vendor)).write_text("")
    (tmp_path / "notes.txt").write_text("mine")
    first, second = take(tmp_path), take(tmp_path)
    assert backups_in(tmp_path) == [first, second]
    assert (tmp_path / "notes.txt").read_text() == "mine"
    assert backup_name(now, connection.vendor, 1).endswith("Z-1" + first.suffix)
    assert taken_at(backup_name(now, connection.vendor, 1))[1] == 1


def test_the_default_folder_is_the_setting(tmp_path, settings):
    settings.BACKUP_DIR = tmp_path / "kept"
    call_command("backup", stdout=open("/dev/null", "w"))
    assert len(backups_in(tmp_path / "kept")) == 1


@pytest.mark.parametrize("where", ["a file", "under a file"])
def test_a_target_that_cannot_be_written_is_refused_with_nothing_written(tmp_path, where):
    blocker = tmp_path / "blocker"
    blocker.write_text("not a folder")
    target = blocker if where == "a file" else blocker / "backups"
    with pytest.raises(CommandError) as refused:
        call_command("backup", to=str(target))
    message = str(refused.value)
    assert message.startswith(f"Cannot write backups to {target}: ") and message.endswith(".")
    assert "\n" not in message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocker"]
    assert blocker.read_text() == "not a folder"


@pytest.mark.skipif(sys.platform != "linux" or __import__("os").geteuid() == 0, reason="root")
def test_a_folder_without_write_permission_is_refused(tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir(mode=0o500)
    with pytest.raises(CommandError, match=f"Cannot write backups to {folder}: Permission"):
        call_command("backup", to=str(folder))
    assert list(folder.iterdir()) == []


def test_postgresql_without_pg_dump_is_refused_by_name(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no program at all
    with pytest.raises(CommandError, match=r"^pg_dump is not installed: install PostgreSQL"):
        dumps.program("pg_dump")
    if connection.vendor == "postgresql":
        with pytest.raises(CommandError, match=r"^pg_dump is not installed"):
            call_command("backup", to=str(tmp_path / "backups"))
        assert not (tmp_path / "backups").exists() or not list((tmp_path / "backups").iterdir())


def test_every_takes_one_each_period_until_its_input_closes(tmp_path):
    """As ``host`` runs it: its input is a pipe whose other end the server holds."""
    folder = tmp_path / "periodic"
    process = subprocess.Popen(
        [sys.executable, "manage.py", "backup", "--every", "0.2", "--to", str(folder)],
        cwd=settings.BASE_DIR,
        env={**__import__("os").environ, **source_env()},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while len(backups_in(folder)) < 2:
            assert process.poll() is None, process.stderr.read()
            assert time.monotonic() < deadline, "no second backup"
            time.sleep(0.05)
        process.stdin.close()  # the server ended
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, process.stderr.read()
    assert "Backed up to " in process.stdout.read()


def test_the_command_line_says_where_it_wrote(tmp_path):
    done = manage("backup", "--to", tmp_path, env=source_env())
    assert done.returncode == 0, done.stderr
    [path] = backups_in(tmp_path)
    assert done.stdout == f"Backed up to {path}.\n"


def test_every_stops_quietly_on_ctrl_c(tmp_path):
    """Ctrl-C on host's terminal interrupts its backups too: no traceback."""
    process = subprocess.Popen(
        [
            sys.executable,
            "manage.py",
            "backup",
            "-v",
            "2",
            "--every",
            "3600",
            "--to",
            str(tmp_path),
        ],
        cwd=settings.BASE_DIR,
        env={**__import__("os").environ, **source_env(), "PYTHONUNBUFFERED": "1"},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # Once it says so, it waits for its period (its first backup is an hour away).
        assert process.stdout.readline().startswith("A backup every 3600 seconds")
        process.send_signal(__import__("signal").SIGINT)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0
    assert process.stderr.read() == ""
