"""``manage.py move_to DATABASE_URL`` (rolls/management/commands/move_to.py): the whole table,
from the test database (SQLite in the default run), into an empty database of a PostgreSQL
cluster of the module's own (tests/faults.py, ``own_postgres``: runs wherever PostgreSQL's server
programs are installed, fails under CI=true without them). The demo table with every kind of
row is moved, then compared row by row, every field; the old passwords and sessions log in on a
server of the moved table, and a roll there is chained after the last entry. A target that is
not PostgreSQL, cannot be reached, is not empty or fails half way is refused in one sentence,
left as it was, and the source is untouched."""

import itertools
import os
import subprocess
import sys
from io import StringIO

import psycopg
import pytest
from axes.models import AccessAttempt
from django.conf import global_settings, settings
from django.contrib.admin.models import CHANGE
from django.contrib.admin.models import LogEntry as AdminLogEntry
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management import CommandError, call_command
from django.test import Client, override_settings
from django.urls import reverse

from bench.management.commands.seed_demo import MANA_NAME, PASSWORD, POOL_NAME
from campaigns.models import Campaign, Membership
from campaigns.services import account_delete
from rolls.models import SECRET, DiceSeed, LogEntry, Presence, place_text
from rolls.services import free_roll_make, message_send, roll_reveal, session_end, session_start
from rolls.systems.pool.models import rating_of
from rules import notation
from sparetime.models import SparetimeEntry
from sparetime.services import sparetime_spend
from tests.faults import http, own_postgres, session_of, start_daphne
from tests.helpers import all_rows, free_port, fresh_python, stop
from tests.systems.fate.models import FateSkill

pytestmark = pytest.mark.django_db(transaction=True)

DATABASES = itertools.count(1)


@pytest.fixture(scope="module")
def postgres():
    with own_postgres() as cluster:
        yield cluster


@pytest.fixture
def target(postgres):
    """The address of a new, empty database of the module's cluster."""
    name = f"moved_{next(DATABASES)}"
    postgres.create_database(name)
    return postgres.url(name)


def target_env(url):
    """A process of the project on the moved table, under this process's keys."""
    return {
        **os.environ,
        "DATABASE_URL": url,
        "REDIS_URL": "",
        "DJANGO_SECRET_KEY": settings.SECRET_KEY,
        "ROLLROOM_LOG_KEY": settings.ROLLROOM_LOG_KEY,
    }


def rows_of(url):
    """Every row of the database at ``url`` (``tests.helpers.all_rows``), read by a process of
    its own."""
    code = "import django; django.setup(); from tests.helpers import all_rows; print(all_rows())"
    return fresh_python(code, target_env(url)).strip()


def tables_of(url):
    with psycopg.connect(url) as conn:
        query = "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"
        return [name for (name,) in conn.execute(query)]


def move(url):
    out = StringIO()
    call_command("move_to", url, stdout=out)
    return out.getvalue()


# The demo table, with every kind of row ---------------------------------------------------------


def demo_table():
    """The demo (``seed_demo``, its passwords hashed as a server hashes them) and what it lacks:
    GM-secret rolls under a seed revealed (a session ended), one revealed by the GM, one under
    the open seed; a whisper in each campaign; a raise; the Fate-style system's rows; a group
    with a permission, the admin's log; a socket's presence; a login's session and a wrong
    password's attempt; a former member's entries (her account deleted)."""
    with override_settings(PASSWORD_HASHERS=global_settings.PASSWORD_HASHERS):
        call_command("seed_demo", stdout=StringIO())
    users = {user.username: user for user in get_user_model().objects.all()}
    gm, ana = users["gm"], users["ana"]
    mana, pool = Campaign.objects.get(name=MANA_NAME), Campaign.objects.get(name=POOL_NAME)
    dice = notation.parse("3d10")
    free_roll_make(campaign=mana, by=gm, notation=dice, visibility=SECRET)
    revealed = free_roll_make(campaign=mana, by=gm, notation=dice, visibility=SECRET)
    roll_reveal(campaign=mana, seq=revealed.seq, by=gm)
    session_end(campaign=mana, by=gm)
    session_start(campaign=mana, by=gm)
    free_roll_make(campaign=mana, by=gm, notation=dice, visibility=SECRET)
    message_send(campaign=pool, by=gm, text="The ford is watched.", to=ana)
    # A former member: cara rolled, whispered and was whispered to, then deleted her account;
    # the log keeps her id (no row behind it), and the move must carry it as it is.
    cara = get_user_model().objects.create_user(username="cara", password="cara's own words")
    Membership.objects.create(campaign=pool, user=cara)
    free_roll_make(campaign=pool, by=cara, notation=notation.parse("2d6"))
    message_send(campaign=pool, by=cara, text="I have to go, friends.", to=gm)
    message_send(campaign=pool, by=gm, text="Farewell, cara.", to=cara)
    account_delete(user=cara, password="cara's own words")
    ilse = pool.characters.get(owner=ana)
    sparetime_spend(character=ilse, rating=rating_of(ilse, "Agility"), by=ana)
    FateSkill.objects.create(character=ilse, name="Fight", rating=3)
    hosts = Group.objects.create(name="hosts")
    hosts.permissions.add(Permission.objects.get(codename="view_campaign"))
    gm.groups.add(hosts)
    gm.user_permissions.add(Permission.objects.get(codename="change_campaign"))
    AdminLogEntry.objects.create(
        user=gm,
        content_type=ContentType.objects.get_for_model(Campaign),
        object_id=str(pool.pk),
        object_repr=pool.name,
        action_flag=CHANGE,
        change_message="[]",
    )
    Presence.objects.create(campaign=pool, user=ana, channel_name="specific.gone!1")
    browser = Client()
    with override_settings(PASSWORD_HASHERS=global_settings.PASSWORD_HASHERS):
        logged_in = browser.post(reverse("login"), {"username": "ana", "password": PASSWORD})
        wrong = Client().post(reverse("login"), {"username": "ben", "password": "not it"})
    assert (logged_in.status_code, wrong.status_code) == (302, 200)
    return browser.cookies[settings.SESSION_COOKIE_NAME].value


def test_the_demo_table_moves_whole_and_plays_on(target):
    session = demo_table()
    # What the demo holds, so that the comparison below compares them.
    assert DiceSeed.objects.filter(revealed_at__isnull=False).exists()
    assert DiceSeed.objects.filter(revealed_at__isnull=True).exists()
    assert LogEntry.objects.filter(visibility=SECRET, kind=LogEntry.FREE).count() == 3
    assert LogEntry.objects.filter(kind=LogEntry.REVEAL).exists()
    assert LogEntry.objects.filter(sub__gt=0).count() >= 2  # whispers, in their places
    assert SparetimeEntry.objects.filter(kind=SparetimeEntry.SPEND).exists()
    assert SparetimeEntry.objects.filter(kind=SparetimeEntry.HANDOUT).exists()
    assert AccessAttempt.objects.exists()
    source = all_rows()

    said = move(target)

    assert all_rows() == source  # the source is untouched
    assert rows_of(target) == source  # every row, every field
    for campaign in Campaign.objects.all():
        head = place_text(campaign.last_seq, campaign.last_sub)
        assert f"fingerprint #{head} {campaign.head_hash[:12]}." in said
    assert f"DATABASE_URL={target}\n" in said
    open_seeds = DiceSeed.objects.filter(revealed_at__isnull=True).values_list("seed", flat=True)
    assert not any(seed in said for seed in open_seeds)  # an open seed stays secret
    assert "DJANGO_SECRET_KEY" in said
    sequences_past_their_ids(target)
    plays_on(target, session)


def sequences_past_their_ids(url):
    """Each table's id sequence is past its largest id: the next row of any kind has an id of
    its own."""
    with psycopg.connect(url) as conn:
        for table in tables_of(url):
            (sequence,) = conn.execute(
                "SELECT pg_get_serial_sequence(%s, 'id') FROM information_schema.columns "
                "WHERE table_name = %s AND column_name = 'id'",
                (table, table),
            ).fetchone() or (None,)
            if sequence is None:
                continue
            (largest,) = conn.execute(f'SELECT max(id) FROM "{table}"').fetchone()
            if largest is not None:
                (last,) = conn.execute(f"SELECT last_value FROM {sequence}").fetchone()
                assert last >= largest, table


def plays_on(url, old_session):
    """A server on the moved table: the session made before the move still logs in, the old
    password logs in, a roll is chained after the last entry, and verify_rolls passes."""
    pool = Campaign.objects.get(name=POOL_NAME)
    port = free_port()
    server = start_daphne(port, **target_env(url))
    try:
        room = f"/campaigns/{pool.pk}/room/"
        assert http(port, room, session_id=old_session)[0] == 200
        status, headers, _ = http(
            port, "/accounts/login/", {"username": "ben", "password": PASSWORD}
        )
        assert status == 302
        ben = session_of(headers)
        status, _, body = http(port, f"{room}talk/", {"text": "/r 2d6"}, session_id=ben, htmx=True)
        assert status == 200, body[:500]
    finally:
        stop(server)
    with psycopg.connect(url) as conn:
        entry = conn.execute(
            "SELECT seq, sub, prev_hash, kind FROM rolls_logentry WHERE campaign_id = %s "
            "ORDER BY seq DESC, sub DESC LIMIT 1",
            (pool.pk,),
        ).fetchone()
    assert entry == (pool.last_seq + 1, 0, pool.head_hash, LogEntry.FREE)
    verified = subprocess.run(
        [sys.executable, "manage.py", "verify_rolls"],
        cwd=settings.BASE_DIR,
        env=target_env(url),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert verified.returncode == 0, verified.stderr
    assert "2 roll logs are whole" in verified.stdout


# Refused, and nothing half-done -----------------------------------------------------------------


@pytest.fixture
def small_table(pool_table):
    """A small table to move (the tests below fail before or while moving it)."""
    free_roll_make(campaign=pool_table.campaign, by=pool_table.gm, notation=notation.parse("2d6"))
    return all_rows()


def test_a_target_other_than_postgresql_is_refused(small_table, tmp_path):
    with pytest.raises(CommandError, match="not a PostgreSQL database's address"):
        move(f"sqlite:///{tmp_path}/table.sqlite3")
    assert all_rows() == small_table


def test_an_unreachable_target_is_refused_in_one_sentence(small_table):
    url = f"postgres://postgres@127.0.0.1:{free_port()}/rollroom"
    with pytest.raises(CommandError) as refused:
        move(url)
    message = str(refused.value)
    assert message.startswith(f"Cannot reach the database {url} (")
    assert message.endswith("): nothing was moved.") and "\n" not in message
    assert all_rows() == small_table


def test_a_password_is_not_repeated_in_the_refusal(small_table, postgres):
    url = postgres.url("nowhere").replace("postgres@", "postgres:s3cret@")
    with pytest.raises(CommandError) as refused:
        move(url)
    assert "s3cret" not in str(refused.value) and "does not exist" in str(refused.value)


def test_a_target_with_rows_is_refused_and_left_as_it_was(small_table, target):
    with psycopg.connect(target) as conn:
        conn.execute("CREATE TABLE notes (text varchar(20))")
        conn.execute("INSERT INTO notes VALUES ('mine')")
    with pytest.raises(CommandError, match=r"is not empty \(its table notes has rows\)"):
        move(target)
    assert tables_of(target) == ["notes"]
    assert all_rows() == small_table


def test_a_move_failing_half_way_leaves_the_target_as_it_was(small_table, target):
    """A table of the name migrate makes, empty: migrate fails after it made others, and the
    one transaction takes them all back."""
    with psycopg.connect(target) as conn:
        conn.execute("CREATE TABLE sheets_character (id integer)")
    with pytest.raises(CommandError) as refused:
        move(target)
    message = str(refused.value)
    assert message.startswith(f"The move into {target} failed, and left it as it was (")
    assert "sheets_character" in message and message.endswith("nothing was moved.")
    assert tables_of(target) == ["sheets_character"]
    assert all_rows() == small_table


def test_a_log_that_does_not_hold_moves_as_it_is_and_says_so(pool_table, target):
    """The move neither mends nor hides a log altered before it: verify_rolls says there what
    it says here, and the command prints it."""
    campaign = pool_table.campaign
    for _ in range(2):
        free_roll_make(campaign=campaign, by=pool_table.gm, notation=notation.parse("2d6"))
    LogEntry.objects.filter(campaign=campaign, seq=1).update(data={"rewritten": True})

    said = move(target)

    assert "“The Marches” does not hold: entry #1 was altered" in said
    assert rows_of(target) == all_rows()
