"""``manage.py restore FILE``: a backup taken while rolls are being served, restored into another
database, holds every roll answered before the backup began, and its chain and dice verify, with
each log's fingerprint printed; bad input (no file, another database's kind, a damaged or cut
file, a newer schema, a database that is not empty) refused in one sentence with nothing
changed, the file untouched; ``--replace`` backs up what it replaces first."""

import hashlib
import json
import re
import threading
from datetime import UTC, datetime

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test import Client
from django.urls import reverse

from core.backups import backups_in
from tests.backups.conftest import manage, psql, query, source_env
from tests.conftest import make_campaign, make_user
from tests.faults import http, start_daphne
from tests.helpers import db_snapshot, free_port, stop

pytestmark = pytest.mark.django_db(transaction=True)


def session_cookie(user):
    client = Client()  # one per user: logging another user in flushes the session
    client.force_login(user)
    return client.cookies["sessionid"].value


def take(folder):
    call_command("backup", to=str(folder), stdout=open("/dev/null", "w"))
    return backups_in(folder)[-1]


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


class RollLoad:
    """Threads, one per user, each posting free rolls (``/r 1d6+N``, N unique) to a real
    daphne until told to stop or until its user's roll limit (10 in 10 s) would refuse: which
    were answered 2xx, in order."""

    PER_USER = 10

    def __init__(self, port, campaign, cookies):
        self.port, self.campaign, self.cookies = port, campaign, cookies
        self.answered = []
        self.other = []
        self.numbers = iter(range(1, 10_000))
        self.changed = threading.Condition()
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self.roll, args=(c,)) for c in cookies]

    def roll(self, cookie):
        path = reverse("talk_say", args=[self.campaign.pk])
        for _ in range(self.PER_USER):
            if self.stopping.is_set():
                return
            with self.changed:
                number = next(self.numbers)
            status, _, _ = http(
                self.port, path, {"text": f"/r 1d6+{number}"}, session_id=cookie, htmx=True
            )
            with self.changed:
                (self.answered if 200 <= status < 300 else self.other).append((number, status))
                self.changed.notify_all()

    def wait_for(self, count, timeout=60):
        """Wait until ``count`` rolls were answered 2xx: the numbers answered so far."""
        with self.changed:
            assert self.changed.wait_for(lambda: len(self.answered) >= count, timeout), (
                self.answered,
                self.other,
            )
            return {number for number, _ in self.answered}

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=60)


def test_a_backup_under_roll_load_restores_elsewhere_with_every_answered_roll(
    pool_table, elsewhere, tmp_path
):
    campaign, gm = pool_table.campaign, pool_table.gm
    users = [gm, pool_table.player, pool_table.other_player]
    cookies = [session_cookie(user) for user in users]
    port = free_port()
    server = start_daphne(port)
    try:
        with RollLoad(port, campaign, cookies) as load:
            before_reveal = load.wait_for(4)
            # The GM reveals the dice seed while rolls go on: the rolls before it can be checked.
            status, _, _ = http(
                port, f"/campaigns/{campaign.pk}/room/dice/reveal/", {}, session_id=cookies[0]
            )
            assert status == 302
            before_backup = load.wait_for(len(before_reveal) + 4)
            backup = take(tmp_path / "backups")  # while the threads go on rolling
            during = load.wait_for(len(before_backup) + 2)
        assert len(during) > len(before_backup)  # rolls were answered while it was taken
    finally:
        stop(server)
    kept = digest(backup)

    done = manage("restore", backup, env=elsewhere)
    assert done.returncode == 0, done.stderr + done.stdout
    assert digest(backup) == kept  # the backup itself untouched

    restored = query(
        elsewhere,
        f"SELECT data FROM rolls_logentry WHERE campaign_id = {campaign.pk} AND kind = 'free_roll'",
    )
    expressions = {
        (data if isinstance(data, dict) else json.loads(data))["expression"] for [data] in restored
    }
    assert {f"1d6+{number}" for number in before_backup} <= expressions
    # What was restored is the source's log as it stood at one moment: each entry the same.
    columns = f"SELECT seq, sub, hash FROM rolls_logentry WHERE campaign_id = {campaign.pk}"
    source = {(seq, sub): hash_ for seq, sub, hash_ in query(source_env(), columns)}
    copy = query(elsewhere, columns)
    assert copy and all(source[(seq, sub)] == hash_ for seq, sub, hash_ in copy)

    # Its chain verified, with its fingerprint (the head's hash), and the revealed dice checked.
    found = re.search(
        rf"The roll log of campaign {campaign.pk} “The Marches”: (\d+) entries, "
        r"fingerprint #(\d+) ([0-9a-f]{12})\.",
        done.stdout,
    )
    assert found, done.stdout
    assert int(found[1]) == len(copy)
    assert source[(int(found[2]), 0)].startswith(found[3])
    checked = re.search(r"(\d+) rolls' dice checked against their revealed seeds", done.stdout)
    assert checked and int(checked[1]) >= len(before_reveal), done.stdout
    assert manage("verify_rolls", env=elsewhere).returncode == 0


# Bad input --------------------------------------------------------------------------------------


@pytest.fixture
def backup(tmp_path):
    """A backup of a small table (a campaign, its GM), and the test database's rows after it."""
    make_campaign(make_user("gm"), name="Blue Harbor")
    return take(tmp_path / "backups")


def refused(path, match, **options):
    """``restore path`` is refused with one sentence matching ``match``, the test database and
    the file untouched."""
    rows, kept = db_snapshot(), digest(path) if path.exists() else None
    with pytest.raises(CommandError) as refusal:
        call_command("restore", str(path), **options)
    message = str(refusal.value)
    assert re.search(match, message), message
    assert "\n" not in message and message.endswith(".")
    assert db_snapshot() == rows
    if kept:
        assert digest(path) == kept
    return message


def test_no_such_file(tmp_path):
    refused(tmp_path / "missing.sqlite3", r"^There is no file .*missing\.sqlite3\.$")


def test_a_file_that_is_no_backup(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("a shopping list")
    refused(path, r"is not a Rollroom backup \(neither a SQLite database nor a pg_dump archive\)")


def test_a_backup_of_the_other_kind_of_database(tmp_path):
    other = "postgresql" if connection.vendor == "sqlite" else "sqlite"
    path = tmp_path / "other"
    path.write_bytes({"sqlite": b"SQLite format 3\0", "postgresql": b"PGDMP"}[other] + b"\0" * 64)
    refused(path, r"backup and this table's database is (SQLite|PostgreSQL): restore it into a")


@pytest.mark.parametrize("damage", ["cut in half", "scrambled"])
def test_a_damaged_or_truncated_backup(backup, damage):
    data = bytearray(backup.read_bytes())
    if damage == "cut in half":
        data = data[: len(data) // 2]
    else:
        start = len(data) // 3
        data[start : start + 4096] = bytes(range(256)) * 16
    backup.write_bytes(bytes(data))
    refused(backup, rf"^{re.escape(str(backup))} is not a whole Rollroom backup: ")


def test_a_backup_from_a_newer_schema(tmp_path):
    """A migration this code does not have, in the backup's django_migrations (which the tests'
    flush keeps: removed again after)."""
    make_campaign(make_user("gm"), name="Blue Harbor")
    table = connection.ops.quote_name("django_migrations")
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (app, name, applied) VALUES (%s, %s, %s)",
            ["rolls", "9999_from_a_newer_rollroom", datetime.now(UTC)],
        )
    try:
        path = take(tmp_path)
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"DELETE FROM {table} WHERE name = %s", ["9999_from_a_newer_rollroom"])
    refused(
        path,
        r"comes from a newer Rollroom, whose migrations rolls\.9999_from_a_newer_rollroom this "
        r"code does not have: update the code, then restore it\.$",
    )


def test_a_database_that_is_not_empty_is_refused_without_replace(backup):
    refused(backup, r"^The database .* is not empty \(.*auth_user.* hold rows\): restore into an")


def test_replace_backs_up_what_it_replaces_first(tmp_path, elsewhere):
    make_campaign(make_user("gm"), name="Blue Harbor")
    first = take(tmp_path / "first")
    make_campaign(make_user("ana"), name="Second Table")
    second = take(tmp_path / "second")
    kept = tmp_path / "kept"
    env = {**elsewhere, "ROLLROOM_BACKUP_DIR": str(kept)}
    assert manage("restore", first, env=env).returncode == 0

    done = manage("restore", second, env=env)
    assert done.returncode == 1
    assert done.stderr.startswith("CommandError: The database ")
    assert "give --replace" in done.stderr
    assert not backups_in(kept)

    done = manage("restore", "--replace", second, env=env)
    assert done.returncode == 0, done.stderr
    [replaced] = backups_in(kept)
    assert f"What the database held is backed up in {replaced}." in done.stdout
    names = "SELECT name FROM campaigns_campaign ORDER BY name"
    assert query(env, names) == [["Blue Harbor"], ["Second Table"]]

    done = manage("restore", "--replace", replaced, env=env)  # and back
    assert done.returncode == 0, done.stderr
    assert query(env, names) == [["Blue Harbor"]]
    assert "“Blue Harbor”: 0 entries, fingerprint none." in done.stdout
    assert done.stdout.endswith("1 roll log is whole: 0 entries in all.\n")


def test_a_restore_that_fails_midway_leaves_the_database_as_it_was(tmp_path, elsewhere):
    """PostgreSQL: the tables dropped and the script run by psql in one transaction, so that an
    error inside (here: the database turned read-only) undoes it all. (SQLite's backup API
    writes its copy in one transaction of its own.)"""
    if connection.vendor == "sqlite":
        pytest.skip("PostgreSQL's restore runs a script: SQLite's copies pages in one step")
    make_campaign(make_user("gm"), name="Blue Harbor")
    path = take(tmp_path)
    assert manage("migrate", env=elsewhere).returncode == 0
    tables = "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
    before = query(elsewhere, tables)
    name = connection.ops.quote_name(elsewhere["DATABASE_URL"].rsplit("/", 1)[1])
    psql(elsewhere, f"ALTER DATABASE {name} SET default_transaction_read_only = on")
    done = manage("restore", path, env=elsewhere)
    assert done.returncode == 1
    assert re.fullmatch(
        rf"CommandError: The restore of {re.escape(str(path))} failed and the database is as it "
        r"was: psql says .*\.\n",
        done.stderr,
    ), done.stderr
    assert query(elsewhere, tables) == before


def test_a_database_that_cannot_be_reached(backup, tmp_path):
    if connection.vendor == "sqlite":
        env = {"DATABASE_URL": "", "SQLITE_PATH": str(tmp_path / "no" / "such.sqlite3")}
    else:
        env = {"DATABASE_URL": "postgres://postgres@127.0.0.1:1/nowhere"}
    kept = digest(backup)
    done = manage("restore", backup, env=env)
    assert done.returncode == 1
    assert re.search(r"CommandError: The database \S+ cannot be reached: [^\n]+\.\n$", done.stderr)
    assert digest(backup) == kept
    assert not (tmp_path / "no").exists()
