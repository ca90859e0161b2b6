"""config.asgi and the HTTP handler of config.tuning: Django's middleware chain run
synchronously, in one thread for every request on SQLite, otherwise in a thread per request in
flight, kept for later requests."""

import asyncio
import threading

import pytest
from asgiref.sync import iscoroutinefunction
from channels.testing import HttpCommunicator
from django.conf import settings
from django.core.handlers.base import BaseHandler
from django.core.signals import request_finished, request_started
from django.db import connection
from django.http import HttpResponse, StreamingHttpResponse
from django.urls import reverse

from campaigns.models import Membership
from config import asgi, tuning
from config.tuning import SyncChainHandler

HOST = [(b"host", b"testserver")]


def test_http_goes_to_django_run_as_the_database_asks():
    http = asgi.application.application_mapping["http"]
    assert isinstance(http, SyncChainHandler)
    assert http.one_thread is settings.REQUESTS_IN_ONE_THREAD


def test_the_middleware_chain_is_synchronous():
    assert not iscoroutinefunction(SyncChainHandler(one_thread=True)._middleware_chain)


def recording_threads(monkeypatch, *, wait_for=None):
    """The threads each request's chain runs in, appended as it starts; with ``wait_for``
    (a ``threading.Barrier``) each request waits there until as many requests as the barrier
    has parties are in flight."""
    seen = []

    def get_response(self, request):
        seen.append(threading.current_thread())
        if wait_for is not None:
            wait_for.wait()
        return BaseHandler.get_response(self, request)

    monkeypatch.setattr(SyncChainHandler, "get_response", get_response)
    return seen


async def login_page(http):
    communicator = HttpCommunicator(http, "GET", reverse("login"), headers=HOST)
    response = await communicator.get_response(timeout=10)
    assert response["status"] == 200
    assert b'name="password"' in response["body"]
    await communicator.wait(10)  # Django's handle() has finished: the response is closed


def let_go(http):
    """End the threads ``http`` keeps."""
    while http.idle:
        http.idle.pop().shutdown()


async def threads_of_two_requests(monkeypatch, **handler):
    seen = recording_threads(monkeypatch)
    http = SyncChainHandler(**handler)
    for _ in range(2):
        await login_page(http)
    let_go(http)
    return seen


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_one_thread_serves_every_request_in_the_same_thread(monkeypatch):
    first, second = await threads_of_two_requests(monkeypatch, one_thread=True)
    assert first is second is not threading.current_thread()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_otherwise_a_finished_requests_thread_serves_the_next(monkeypatch):
    first, second = await threads_of_two_requests(monkeypatch, one_thread=False, threads_kept=2)
    assert first is second is not threading.current_thread()
    assert first.name.startswith("request")


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_with_no_thread_kept_each_request_has_a_thread_of_its_own(monkeypatch):
    first, second = await threads_of_two_requests(monkeypatch, one_thread=False, threads_kept=0)
    assert first is not second
    first.join(timeout=10)
    assert not first.is_alive()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_forked_process_starts_threads_of_its_own(monkeypatch):
    """A process forked after requests (a test's live server) inherits the idle executors but
    not their threads: a request sent to one would wait forever."""
    seen = recording_threads(monkeypatch)
    http = SyncChainHandler(one_thread=False, threads_kept=1)
    await login_page(http)
    [inherited] = http.idle
    monkeypatch.setattr(tuning.os, "getpid", lambda: http.pid + 1)
    await login_page(http)
    assert seen[1] is not seen[0]
    assert http.idle != [inherited] and len(http.idle) == 1
    inherited.shutdown()
    let_go(http)


async def two_requests_at_once(monkeypatch, http):
    seen = recording_threads(monkeypatch, wait_for=threading.Barrier(2, timeout=10))
    await asyncio.gather(login_page(http), login_page(http))
    return seen


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_requests_in_flight_together_run_in_threads_of_their_own(monkeypatch):
    """Each waits for the other inside the view: a shared thread would never pass (the barrier
    breaks after 10 s and the requests fail)."""
    http = SyncChainHandler(one_thread=False, threads_kept=2)
    first, second = await two_requests_at_once(monkeypatch, http)
    assert first is not second
    assert len(http.idle) == 2
    third, fourth = await two_requests_at_once(monkeypatch, http)
    assert {third, fourth} == {first, second}
    let_go(http)


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_idle_threads_beyond_those_kept_end(monkeypatch):
    http = SyncChainHandler(one_thread=False, threads_kept=1)
    threads = await two_requests_at_once(monkeypatch, http)
    [executor] = http.idle
    kept = executor.submit(threading.current_thread).result(timeout=10)
    [other] = [thread for thread in threads if thread is not kept]
    # The one not kept ends as soon as it sees its executor shut down.
    await asyncio.to_thread(other.join, 10)
    assert (kept.is_alive(), other.is_alive()) == (True, False)
    let_go(http)
    for thread in threads:
        thread.join(timeout=10)
    assert not any(thread.is_alive() for thread in threads)


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_request_starts_and_finishes_in_its_own_thread(monkeypatch):
    """Django's request_started and request_finished (which close or hand back the database
    connection) run in the thread of the request's chain, kept thread or not."""
    signalled = []

    def record(**kwargs):
        signalled.append(threading.current_thread())

    request_started.connect(record)
    request_finished.connect(record)
    try:
        for kept in (1, 0):
            seen = await threads_of_two_requests(monkeypatch, one_thread=False, threads_kept=kept)
            assert signalled == [seen[0], seen[0], seen[1], seen[1]]
            signalled.clear()
    finally:
        request_started.disconnect(record)
        request_finished.disconnect(record)


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
@pytest.mark.parametrize("kept", [None, 1])
async def test_a_response_in_memory_is_closed_before_it_is_sent_a_streaming_one_after(
    monkeypatch, kept
):
    """One call into the request's thread closes a response held in memory (its
    request_finished hands the connection back) before it is sent; a streaming response is
    closed after its last chunk, as Django does."""
    events = []

    async def chunks():
        events.append("first chunk")
        yield b"a"
        events.append("last chunk")
        yield b"b"

    def get_response(self, request):
        events.append(threading.current_thread())
        if request.path == "/memory/":
            response = HttpResponse(b"ab")
        else:
            response = StreamingHttpResponse(chunks())
        response._resource_closers.append(lambda: events.append("closed"))
        return response

    monkeypatch.setattr(SyncChainHandler, "get_response", get_response)
    handler = {"one_thread": True} if kept is None else {"one_thread": False, "threads_kept": kept}
    http = SyncChainHandler(**handler)
    try:
        for path, expected in [
            ("/memory/", ["closed"]),
            ("/streaming/", ["first chunk", "last chunk", "closed"]),
        ]:
            communicator = HttpCommunicator(http, "GET", path, headers=HOST)
            await communicator.send_input({"type": "http.request"})
            start = await communicator.receive_output(10)
            assert start["status"] == 200
            body, more = [], True
            while more:
                message = await communicator.receive_output(10)
                body.append(message.get("body", b""))
                more = message.get("more_body", False)
                if path == "/memory/":
                    assert events[1:] == expected  # closed before its body was sent
            assert b"".join(body) == b"ab"
            await communicator.wait(10)
            assert events[1:] == expected
            assert isinstance(events[0], threading.Thread)
            events.clear()
    finally:
        let_go(http)


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
@pytest.mark.parametrize("kept", [None, 1])
async def test_a_streaming_response_that_fails_midway_is_closed_all_the_same(monkeypatch, kept):
    """Its request_finished (which hands the database connection back) is sent before the
    error goes on."""
    events = []

    async def chunks():
        yield b"a"
        raise OSError("the database went away")

    def get_response(self, request):
        response = StreamingHttpResponse(chunks())
        response._resource_closers.append(lambda: events.append("closed"))
        return response

    monkeypatch.setattr(SyncChainHandler, "get_response", get_response)
    handler = {"one_thread": True} if kept is None else {"one_thread": False, "threads_kept": kept}
    http = SyncChainHandler(**handler)
    try:
        communicator = HttpCommunicator(http, "GET", "/export/", headers=HOST)
        await communicator.send_input({"type": "http.request"})
        assert (await communicator.receive_output(10))["status"] == 200
        assert (await communicator.receive_output(10))["body"] == b"a"
        with pytest.raises(OSError, match="the database went away"):
            await communicator.wait(10)
        assert events == ["closed"]
    finally:
        let_go(http)


def sending_task():
    """The handler's task that sends the response once the view returns (``process_request``)."""
    [task] = [
        task
        for task in asyncio.all_tasks()
        if task.get_coro().__qualname__.endswith(".process_request")
    ]
    return task


async def cancelled(task):
    """Once ``task`` is cancelled (or being cancelled)."""
    while not (task.cancelled() or task.cancelling()):
        await asyncio.sleep(0.01)


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_client_gone_while_the_view_runs_gets_nothing_and_the_request_finishes(
    monkeypatch,
):
    """As in Django: the disconnect cancels the sending; request_finished is sent once the
    view is done, in its thread."""
    entered, release, finished = threading.Event(), threading.Event(), []

    def get_response(self, request):
        entered.set()
        release.wait(10)
        return BaseHandler.get_response(self, request)

    def record(**kwargs):
        finished.append(threading.current_thread())

    monkeypatch.setattr(SyncChainHandler, "get_response", get_response)
    http = SyncChainHandler(one_thread=False, threads_kept=1)
    communicator = HttpCommunicator(http, "GET", reverse("login"), headers=HOST)
    request_finished.connect(record)
    try:
        await communicator.send_input({"type": "http.request"})
        await asyncio.get_running_loop().run_in_executor(None, entered.wait, 10)
        sending = sending_task()
        await communicator.send_input({"type": "http.disconnect"})
        await asyncio.wait_for(cancelled(sending), 10)  # the disconnect was heard
        release.set()
        await communicator.wait(10)
        assert communicator.output_queue.empty()  # the handler is done: nothing more comes
        [executor] = http.idle
        kept_thread = executor.submit(threading.current_thread).result(timeout=10)
        assert finished == [kept_thread]
    finally:
        release.set()
        request_finished.disconnect(record)
        let_go(http)


ON_POSTGRESQL = pytest.mark.skipif(
    settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
    reason="the pool of PostgreSQL connections: set DATABASE_URL=postgres://...",
)


@ON_POSTGRESQL
@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_kept_thread_holds_no_connection_between_requests(monkeypatch):
    """A request that reads the database takes a connection from the pool; when it has
    finished, its kept thread holds none (it went back to the pool)."""
    held = []

    def get_response(self, request):
        Membership.objects.exists()
        held.append(connection.connection is not None)
        return BaseHandler.get_response(self, request)

    monkeypatch.setattr(SyncChainHandler, "get_response", get_response)
    http = SyncChainHandler(one_thread=False, threads_kept=1)
    for _ in range(2):
        await login_page(http)
        [executor] = http.idle
        assert executor.submit(lambda: connection.connection).result(timeout=10) is None
    assert held == [True, True]
    let_go(http)
