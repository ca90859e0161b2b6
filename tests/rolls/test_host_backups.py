"""``manage.py host``'s backups: one as it starts on a database migrated before, then one every
ROLLROOM_BACKUP_HOURS beside daphne, beside the secret key file (.rollroom/backups/), by a
process that ends with the server; none for a database never migrated, none at all with
ROLLROOM_BACKUP_HOURS=0."""

import os
import time
from pathlib import Path

import pytest

from core.backups import backups_in
from tests.conftest import make_campaign, make_user
from tests.faults import database_env
from tests.rolls.test_host import host_running


def backup_loops(folder):
    """The pids of the processes running with ``folder``'s secret key file (host's daphne and
    its backups), read from /proc."""
    marker = f"DJANGO_SECRET_KEY_FILE={folder / 'data' / 'secret_key'}".encode()
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and marker in (proc / "environ").read_bytes().split(b"\0"):
                found.append(int(proc.name))
        except OSError:
            continue  # gone, or not ours to read
    return found


def wait_until(condition, what, timeout=60):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


@pytest.mark.django_db(transaction=True)
def test_host_backs_up_as_it_starts_and_then_every_period_until_it_stops(tmp_path):
    make_campaign(make_user("gm"), name="Blue Harbor")
    folder = tmp_path / "data" / "backups"  # beside the secret key file
    # A backup every second or so (the setting is in hours).
    with host_running(tmp_path, ROLLROOM_BACKUP_HOURS="0.0003", **database_env()) as (_, log):
        first = backups_in(folder)[0]
        # Taken before it served: its line comes first (the periodic ones come later).
        assert log().startswith(f"Backed up to {first}.\nRollroom serves ")
        assert f"A backup every 0.0003 hours into {folder} (the last 10 kept;" in log()
        wait_until(lambda: len(backups_in(folder)) >= 3, "no backups while it served")
        assert "The backup failed" not in log()
        assert len(backup_loops(tmp_path)) == 2  # daphne and its one backup process
    wait_until(lambda: not backup_loops(tmp_path), "the backups outlived the server")
    assert os.stat(folder).st_mode & 0o777 == 0o700


def test_host_takes_no_backup_of_a_new_database_nor_any_when_turned_off(tmp_path):
    with host_running(tmp_path) as (_, log):
        assert "Backed up" not in log()  # nothing to keep before the first migrate
        assert len(backup_loops(tmp_path)) == 2
    folder = tmp_path / "data" / "backups"
    assert not backups_in(folder)
    with host_running(tmp_path, ROLLROOM_BACKUP_HOURS="0") as (_, log):
        assert "backup" not in log().lower()
        assert len(backup_loops(tmp_path)) == 1  # daphne alone
    assert not backups_in(folder)
