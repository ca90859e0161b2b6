"""PostgreSQL stopped under a running table, and started again (config/views.py, server_error;
the pool's settings in config/settings.py): a real daphne process on a PostgreSQL cluster of the
test's own (tests/faults.py), never the shared one. During the outage a page, a login and a roll
are each answered 503 in the site's words and write nothing; the room's open socket stays. Once
PostgreSQL is back the same process serves pages, logins, rolls and new sockets again without a
restart. Runs wherever PostgreSQL's server programs are installed (fails under CI=true without).
"""

import asyncio
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass

import psycopg
import pytest
import websockets
from django.conf import settings

from tests.faults import daphne_log, http, own_postgres, session_of, start_daphne
from tests.helpers import free_port, stop

PASSWORD = "a long enough password 1"
TIMEOUT = 20

#: Run in the new database by `manage.py shell`: a GM and a player, their Pool campaign, the
#: player's character and two checks asked of it; prints the ids.
SEED = """
import json
import os
from django.contrib.auth import get_user_model
from campaigns.models import Campaign, Membership
from rolls import services as rolls_services
from rolls.systems.pool.services import rating_set
from sheets import services as sheet_services
users = get_user_model().objects
gm = users.create_user(username="gm", password=PASSWORD)
player = users.create_user(username="ana", password=PASSWORD)
campaign = Campaign.objects.create(name="The Marches", system="pool")
Membership.objects.create(campaign=campaign, user=gm, role=Membership.GM)
Membership.objects.create(campaign=campaign, user=player, role=Membership.PLAYER)
character = sheet_services.character_create(campaign=campaign, owner=player, name="Ilse")
agility = character.ratings.get(attribute="Agility", skill="")
rating_set(rating=agility, value=3)
checks = [
    rolls_services.check_ask(campaign=campaign, character=character, by=gm, target=4).pk
    for _ in range(2)
]
print(json.dumps({"campaign": campaign.pk, "agility": agility.pk, "checks": checks}))
"""


@dataclass
class Table:
    postgres: object
    port: int
    database_url: str
    campaign: int
    agility: int
    checks: list

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def rows(self, sql):
        """The first column of ``sql``'s rows, read straight from the table's database."""
        with psycopg.connect(self.database_url, connect_timeout=5) as conn:
            return [row[0] for row in conn.execute(sql)]

    def daphne_log(self):
        return daphne_log(self.port)


def manage(env, *args, input_text=None):
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=settings.BASE_DIR,
        env={**os.environ, **env},
        input=input_text,
        capture_output=True,
        text=True,
        check=True,
        timeout=180,
    )


def server_env(database_url):
    """The server's environment: the test cluster's database, the in-memory channel layer (one
    process), DEBUG off as in production (the error pages are the site's; tests/server_settings.py
    names static files without collectstatic)."""
    return {
        "REDIS_URL": "",
        "DATABASE_URL": database_url,
        "DJANGO_DEBUG": "0",
        "DJANGO_SETTINGS_MODULE": "tests.server_settings",
    }


@pytest.fixture
def table():
    """A migrated database on a cluster of the test's own, seeded, with a daphne process on it."""
    with own_postgres() as postgres:
        postgres.create_database("rollroom")
        database_url = postgres.url("rollroom")
        env = server_env(database_url)
        manage(env, "migrate", "--no-input")
        seeded = manage(env, "shell", input_text=SEED.replace("PASSWORD", repr(PASSWORD)))
        ids = json.loads(seeded.stdout.strip().splitlines()[-1])
        port = free_port()
        process = start_daphne(port, **server_env(database_url))
        try:
            yield Table(postgres, port, database_url, **ids)
        finally:
            stop(process)


# HTTP, as a browser sends it -------------------------------------------------------------------


@dataclass
class Answer:
    status: int
    headers: object  # an email.message.Message
    body: str


def request(table, path, data=None, *, session=None, htmx=False):
    """GET (or POST ``data``) ``path`` as the ``session``'s user: the answer, redirects not
    followed (tests/faults.py, ``http``)."""
    return Answer(*http(table.port, path, data, session_id=session, htmx=htmx))


def log_in(table, username):
    """POST the login form: the answer, and the new session cookie (None if none was set)."""
    answer = request(table, "/accounts/login/", {"username": username, "password": PASSWORD})
    return answer, session_of(answer.headers)


def roll(table, check_id, session):
    path = f"/campaigns/{table.campaign}/checks/{check_id}/roll/"
    return request(
        table, path, {"attribute": table.agility, "intent": "Leap"}, session=session, htmx=True
    )


def room_path(table):
    return f"/campaigns/{table.campaign}/room/"


async def open_socket(table, session):
    """A room socket, once it is in the room (its presence list arrived)."""
    socket_ = await websockets.connect(
        f"ws://127.0.0.1:{table.port}/ws/campaigns/{table.campaign}/",
        origin=table.url(""),
        additional_headers={"Cookie": f"sessionid={session}"},
    )
    try:
        async with asyncio.timeout(TIMEOUT):
            while 'id="presence"' not in await socket_.recv():
                pass
    except BaseException:
        await socket_.close()
        raise
    return socket_


async def receive_entry(socket_, seq):
    """The first frame that carries log entry ``seq``; fails on any later entry before it."""
    async with asyncio.timeout(TIMEOUT):
        while True:
            frame = await socket_.recv()
            assert f'id="entry-{seq + 1}"' not in frame, frame
            if f'id="entry-{seq}"' in frame:
                return frame


def assert_unavailable(answer, *, htmx=False):
    """A clean 503: Retry-After, the site's words, no trace of the failure."""
    assert answer.status == 503, (answer.status, answer.body[:500])
    assert int(answer.headers["Retry-After"]) > 0
    assert "Traceback" not in answer.body and "psycopg" not in answer.body
    assert "Nothing was done" in answer.body
    if not htmx:
        assert 'class="topbar"' in answer.body and "<h1>Back in a moment</h1>" in answer.body


def wait_for_page(table, path, session):
    """The first answer to ``path`` that is not 503, within TIMEOUT (the pool reconnecting)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        answer = request(table, path, session=session)
        if answer.status != 503 or time.monotonic() > deadline:
            return answer
        time.sleep(0.2)


def test_postgres_stopped_and_started_under_a_running_table(table):
    asyncio.run(outage_scenario(table))


async def outage_scenario(table):
    first, second = table.checks
    answer, player = await asyncio.to_thread(log_in, table, "ana")
    assert answer.status == 302 and player
    answer, gm = await asyncio.to_thread(log_in, table, "gm")
    assert answer.status == 302 and gm
    before = await open_socket(table, gm)
    try:
        answer = await asyncio.to_thread(roll, table, first, player)
        assert answer.status == 204, answer.body
        await receive_entry(before, 1)
        sessions = await asyncio.to_thread(table.rows, "SELECT session_key FROM django_session")

        # The outage: PostgreSQL stopped at once, cutting the pool's connections.
        await asyncio.to_thread(table.postgres.stop)
        answer = await asyncio.to_thread(request, table, room_path(table), session=player)
        assert_unavailable(answer)
        answer = await asyncio.to_thread(roll, table, second, player)
        assert_unavailable(answer, htmx=True)
        answer, session = await asyncio.to_thread(log_in, table, "ana")
        assert_unavailable(answer)
        assert session is None
        with pytest.raises(websockets.InvalidStatus):  # a new socket is refused, not hung
            async with asyncio.timeout(TIMEOUT):
                await open_socket(table, player)
        assert before.close_code is None  # the open socket stays

        # PostgreSQL back: the same server, without a restart.
        await asyncio.to_thread(table.postgres.start)
        answer = await asyncio.to_thread(wait_for_page, table, room_path(table), player)
        assert answer.status == 200 and "The Marches" in answer.body
        # Nothing of the outage was written: one entry, the second check still open, the
        # same sessions.
        assert await asyncio.to_thread(
            table.rows, "SELECT seq FROM rolls_logentry ORDER BY seq"
        ) == [1]
        assert sorted(
            await asyncio.to_thread(table.rows, "SELECT session_key FROM django_session")
        ) == sorted(sessions)
        answer, session = await asyncio.to_thread(log_in, table, "ana")
        assert answer.status == 302 and session
        after = await open_socket(table, session)
        try:
            answer = await asyncio.to_thread(roll, table, second, session)
            assert answer.status == 204, answer.body
            for socket_ in (before, after):
                frame = await receive_entry(socket_, 2)
                assert "Agility 3" in frame
        finally:
            await after.close()
    finally:
        await before.close()
    log = table.daphne_log()
    assert "Exception inside application" not in log, log
