"""Issue budgets: a check POST and the room page run a fixed number of SQL queries however long
the log grows (10 or 100,000 entries); the room's first load stays under 100 KB compressed with
its static files, and a pushed roll fragment under 2 KB."""

import gzip
import re

from django.contrib.staticfiles import finders
from django.db import connection
from django.test.utils import CaptureQueriesContext

from rolls.dice import seed_open
from rolls.models import LogEntry
from rolls.systems.pool import services as pool_services
from room import push
from tests.helpers import SESSION_READ
from tests.rolls.room_setup import ask, url
from tests.rules.scripted_rng import ScriptedRng


def copy_entry(entry, count):
    """``count`` copies of ``entry``, at the next sequence numbers: one INSERT ... SELECT over
    a counting query, on SQLite and PostgreSQL alike (100,000 rows in a second or two, where
    bulk_create sent 50 batches of parameters)."""
    quote = connection.ops.quote_name
    columns = [f.column for f in LogEntry._meta.concrete_fields if f.column not in ("id", "seq")]
    names = ", ".join(quote(c) for c in columns)
    copied = ", ".join(f"t.{quote(c)}" for c in columns)
    table = quote(LogEntry._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %s) "
            f"INSERT INTO {table} ({names}, {quote('seq')}) "
            f"SELECT {copied}, t.{quote('seq')} + n.i FROM {table} t, n WHERE t.id = %s",
            [count, entry.pk],
        )


def grow_log(mana_table, count):
    """Append ``count`` public rolls to the log in bulk (the hash chain is not what is measured)."""
    mana_table.campaign.refresh_from_db()
    last = mana_table.campaign.last_seq
    data = {
        "system": "pool",
        "attribute": "Strength",
        "attribute_value": 3,
        "skill": "",
        "skill_value": 0,
        "shift": None,
        "bonus_effect": "",
        "bonus_achieved": False,
        "d6": [[6, 2], [3], [1]],
        "d10": [],
        "highest": 8,
        "target": 3,
        "success": True,
        "chance": "1/2",
        "intent": "",
        "note": "",
    }
    first = LogEntry.objects.create(
        campaign=mana_table.campaign,
        seq=last + 1,
        actor=mana_table.player,
        character=mana_table.ilse,
        data=data,
        prev_hash="0" * 64,
        hash="0" * 64,
    )
    copy_entry(first, count - 1)
    mana_table.campaign.last_seq = last + count
    mana_table.campaign.save(update_fields=["last_seq"])


def queries(callable_, status):
    with CaptureQueriesContext(connection) as captured:
        response = callable_()
    assert response.status_code == status
    return len(captured)


def room_and_roll_queries(mana_table, client):
    room = queries(lambda: client.get(url("room", mana_table)), 200)
    check = ask(mana_table, mana_table.ilse)
    roll = queries(
        lambda: client.post(
            url("check_roll", mana_table, check.id),
            {"attribute": mana_table.strength.id, "skill": mana_table.jump.id},
            HTTP_HX_REQUEST="true",
        ),
        204,  # rolled: the card and the entry arrive on the sockets
    )
    return room, roll


def test_room_page_and_check_post_queries_stay_fixed_from_10_to_100000_entries(
    pool_table, as_user, player, monkeypatch
):
    seed_open(pool_table.campaign)  # the room has shown its commitment: it exists
    client = as_user(player)
    grow_log(pool_table, 10)
    small = room_and_roll_queries(pool_table, client)
    grow_log(pool_table, 100_000)
    large = room_and_roll_queries(pool_table, client)
    assert LogEntry.objects.filter(campaign=pool_table.campaign).count() > 100_000
    assert large == small


def test_room_first_load_with_static_files_is_under_100_kb_compressed(pool_table, as_user, player):
    html = as_user(player).get(url("room", pool_table)).content
    assets = re.findall(rb'(?:src|href)="/static/([^"]+)"', html)
    assert any(a.endswith(b"htmx-2.min.js") for a in assets)
    total = len(gzip.compress(html))
    for asset in assets:
        path = finders.find(asset.decode())
        assert path, asset
        with open(path, "rb") as f:
            total += len(gzip.compress(f.read()))
    assert total < 100 * 1024, total


def test_pushed_roll_fragment_is_under_2_kb(pool_table, player):

    check = ask(pool_table, pool_table.ilse, note="The ogre swings at the bridge rope")
    entry = pool_services.check_roll_pool(
        check=check,
        by=player,
        attribute=pool_table.strength,
        skill=pool_table.jump,
        intent="I leap across the gap before the rope snaps",
        rng=ScriptedRng(6, 6, 3, 2, 4, 10, 7, 5),
    )
    for html in (push.entry_message(entry)["all"],):
        assert len(html.encode()) < 2048


def test_a_pool_roll_and_its_pushes_run_eleven_statements(
    pool_table,
    as_user,
    player,
    django_assert_num_queries,
    django_capture_on_commit_callbacks,
    monkeypatch,
):
    """The session's user, access (with the GM's id), the check, the two ratings sent; then the
    write's transaction (``attempt``'s: a savepoint and its release here, inside the test's
    transaction; BEGIN and COMMIT in a server): the check taken (one guarded update), the log's
    number with its head (the previous hash and the session) under the campaign's lock, the
    entry, the head moved to it. The service's own transaction is part of the write's, without
    a savepoint of its own. The pushes add none. The session comes from the process's memory
    (one process), or from the database (several: ``SESSION_READ``), within the budget of 12.
    The dice come from the campaign's open seed (``rolls.dice``): reading it is one statement,
    after the head (a roll draws its dice once it has its number)."""
    seed_open(pool_table.campaign)  # the room has shown its commitment: it exists
    client = as_user(player)
    check = ask(pool_table, pool_table.ilse)
    capture = django_capture_on_commit_callbacks(execute=True)
    with django_assert_num_queries(11 + SESSION_READ) as statements, capture as run:
        response = client.post(
            url("check_roll", pool_table, check.id),
            {"attribute": pool_table.strength.id, "skill": pool_table.jump.id},
            HTTP_HX_REQUEST="true",
        )
    assert response.status_code == 204 and len(run) == 1
    savepoints = [q["sql"] for q in statements.captured_queries if q["sql"].startswith("SAVEPOINT")]
    assert len(savepoints) == 1
    # The check is read without its card's own rows (a Pool check's shifted attribute and
    # skill): the roll sets them, and a rolled check's card leaves the room.
    [check_read] = [
        q["sql"] for q in statements.captured_queries if 'FROM "rolls_check"' in q["sql"]
    ]
    assert "sheets_rating" not in check_read
    # The ratings sent are read in no order (the form finds them by id).
    [ratings_read] = [
        q["sql"] for q in statements.captured_queries if 'FROM "sheets_rating"' in q["sql"]
    ]
    assert "ORDER BY" not in ratings_read


def test_a_roll_of_what_the_check_asks_runs_eleven_statements_too(
    pool_table,
    as_user,
    player,
    django_assert_num_queries,
    django_capture_on_commit_callbacks,
    monkeypatch,
):
    """The check's binding is read with the check: comparing it adds no statement."""
    seed_open(pool_table.campaign)
    client = as_user(player)
    check = ask(pool_table, pool_table.ilse, suggestion="Strength + Jump")
    capture = django_capture_on_commit_callbacks(execute=True)
    with django_assert_num_queries(11 + SESSION_READ), capture as run:
        response = client.post(
            url("check_roll", pool_table, check.id),
            {"attribute": pool_table.strength.id, "skill": pool_table.jump.id},
            HTTP_HX_REQUEST="true",
        )
    assert response.status_code == 204 and len(run) == 1
    assert check.rolls.get().data["asked"] == "Strength + Jump"


def test_a_proposed_shift_shows_the_gm_its_dice_without_reading_them_again(
    pool_table,
    as_user,
    gm,
    player,
    pushes,
    django_assert_num_queries,
    django_capture_on_commit_callbacks,
):
    """A shift put to the GM: the session's user, access, the check (with its Pool row), the
    two ratings sent, the write's savepoint, the check taken, the proposal written into its
    Pool row (Pool's own, since the check's system fields moved to the systems: one statement
    more than when they were the check's columns), the release; the GM's card shows the
    attribute and skill the proposal set, with no statement of its own."""
    client = as_user(player)
    check = ask(pool_table, pool_table.ilse)
    data = {
        "attribute": pool_table.strength.id,
        "skill": pool_table.jump.id,
        "shift_d6": 1,
        "bonus_effect": "land silently",
    }
    capture = django_capture_on_commit_callbacks(execute=True)
    with django_assert_num_queries(8 + SESSION_READ), capture as run:
        response = client.post(
            url("check_roll", pool_table, check.id), data, HTTP_HX_REQUEST="true"
        )
    assert response.status_code == 204 and len(run) == 1
    [message] = pushes.checks()
    assert "Shift proposed: Strength 3 + Jump 2" in message["gm"]
