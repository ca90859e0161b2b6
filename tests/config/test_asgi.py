"""config.asgi: HTTP served by Django's own ASGI handler, each request in a thread of its own
with a connection of its own, handed back when it finishes; writes sent at once wait for one
another on SQLite instead of failing; the server process's collector leaves what startup
loaded alone (config.asgi does it, the settings do not)."""

import asyncio
import os
import threading

import pytest
from channels.testing import HttpCommunicator
from django.core.handlers.asgi import ASGIHandler
from django.db.backends.signals import connection_created
from django.urls import reverse

from config import asgi
from rolls.models import LogEntry
from tests.helpers import fresh_python
from tests.rolls.room_setup import ask, roll_url
from tests.rolls.sockets import with_clients

HOST = (b"host", b"testserver")
#: The CSRF secret of the test's requests, sent as the cookie and the header (as a page does).
CSRF = "a" * 32


def test_http_goes_to_djangos_own_handler():
    assert type(asgi.application.app.application_mapping["http"]) is ASGIHandler


def request(path, cookie, *, method="GET", body=b""):
    """A request through the application, as daphne hands it over, with the session ``cookie``;
    a POST with htmx's header and the CSRF token."""
    headers = [HOST, (b"cookie", f"sessionid={cookie}; csrftoken={CSRF}".encode())]
    if method == "POST":
        headers += [
            (b"content-type", b"application/x-www-form-urlencoded"),
            (b"hx-request", b"true"),
            (b"x-csrftoken", CSRF.encode()),
        ]
    return HttpCommunicator(asgi.application, method, path, body=body, headers=headers)


async def response_of(communicator):
    """The response, once the handler is done with the request (its response closed)."""
    response = await communicator.get_response(timeout=30)
    await communicator.wait(30)
    return response


def connections_opened():
    """``(thread, connection)`` for each database connection opened from now on; stop with
    ``connection_created.disconnect(recorder)``, the second value."""
    opened = []

    def recorder(sender, connection, **kwargs):
        opened.append((threading.current_thread(), connection))

    connection_created.connect(recorder)
    return opened, recorder


@pytest.fixture
def table(pool_table, gm, player, other_player):
    return with_clients(pool_table, gm, player, other_player)


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_request_reads_in_a_thread_of_its_own_and_closes_its_connection(table):
    """A connection left open would stay so after its thread ended (on PostgreSQL: out of the
    pool for good)."""
    opened, recorder = connections_opened()
    try:
        response = await response_of(request(reverse("home"), table.cookie["gm"]))
    finally:
        connection_created.disconnect(recorder)
    assert response["status"] == 200
    assert table.campaign.name.encode() in response["body"]
    [(thread, connection)] = opened
    assert thread is not threading.current_thread()
    assert connection.connection is None  # closed, or handed back to the pool


#: How many writes are sent at once.
WRITERS = 4


@pytest.fixture
def checks(table):
    """A check of its own for each write, asked of ana's character."""
    return [ask(table, table.ilse) for _ in range(WRITERS)]


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_writes_sent_at_once_each_wait_for_the_lock_and_all_are_logged(
    table, checks, settings
):
    """Rolls of ana's, each a request whose thread opens its connection and waits until every
    one has its own; then they all write to the same campaign's log. On SQLite each waits for
    the write lock (the settings' timeout): without the wait all but one failed with "database
    is locked" (503). (The IMMEDIATE transactions, for a write that reads before it writes: the
    concurrent writes of tests/sparetime.)"""
    settings.WRITE_LIMITS = {}
    everyone_connected = threading.Barrier(WRITERS, timeout=30)
    opened = []

    def hold(sender, connection, **kwargs):
        opened.append(threading.current_thread())
        everyone_connected.wait()

    form = f"attribute={table.strength.id}&skill={table.jump.id}".encode()
    rolls = [
        request(roll_url(table, check), table.cookie["ana"], method="POST", body=form)
        for check in checks
    ]
    connection_created.connect(hold)
    try:
        responses = await asyncio.gather(*(response_of(roll) for roll in rolls))
    finally:
        connection_created.disconnect(hold)
    assert [r["status"] for r in responses] == [204] * WRITERS, [r["body"] for r in responses]
    assert len(set(opened)) == WRITERS
    logged = LogEntry.objects.filter(campaign=table.campaign, kind=LogEntry.ROLL)
    seqs = await asyncio.to_thread(lambda: list(logged.values_list("seq", flat=True)))
    assert len(set(seqs)) == WRITERS  # each logged, at a number of its own


def frozen_after(statement):
    """How many objects the garbage collector has frozen, in a fresh Python after
    ``statement``."""
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    return int(fresh_python(f"{statement}; import gc; print(gc.get_freeze_count())", env))


def test_the_application_freezes_what_it_loaded_and_the_settings_do_not():
    assert frozen_after("import config.asgi") > 0
    assert frozen_after("import config.settings") == 0


def test_the_application_runs_a_full_collection_after_a_thousand_of_the_middle_generation():
    # Python's default (10) let daphne's check of every connection each second set off a full
    # collection of every socket's objects about once a minute (bench/README.md).
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    out = fresh_python("import config.asgi, gc; print(*gc.get_threshold())", env)
    assert out.split() == ["700", "10", "1000"]
    out = fresh_python("import config.settings, gc; print(*gc.get_threshold())", env)
    assert out.split() == ["700", "10", "10"]
