"""config.admission: past ``SOCKETS_CONNECTING`` sockets still connecting, a new one is accepted
and closed at once with its turn (TRY_AGAIN_IN + seconds), before anything reads its session,
the database or Redis; the turns follow each other at the rate the process joins sockets; a
socket is counted out once its application answers it, fails or is cancelled, so that the count
comes back to zero. In the site's application the admission sits inside the drain and outside
SocketGuard. Then the same with a real daphne process and real sockets."""

import asyncio
import signal

import pytest
import websockets
from channels.testing import WebsocketCommunicator
from django.db import OperationalError

from config import asgi, shutdown
from config.admission import LATEST, TRY_AGAIN_IN, Admission
from config.views import TRY_AGAIN_LATER
from room import consumers
from tests.faults import daphne_log, start_daphne, wait_for_log
from tests.helpers import free_port, stop

from .test_redis_down import room_socket
from .test_scaleout import session_cookie

ACCEPT = {"type": "websocket.accept"}
#: The first socket turned away by a process that joins sockets faster than one a second.
TURNED_AWAY = [ACCEPT, {"type": "websocket.close", "code": TRY_AGAIN_IN + 1}]
DISCONNECT = {"type": "websocket.disconnect", "code": 1000}


class Sockets:
    """An application whose every socket, once its connect is received, waits for the test's
    word: ``words[i].set_result(how)`` has the i-th one accept (and stay open until its client
    leaves), close or fail."""

    def __init__(self):
        self.words = []

    async def __call__(self, scope, receive, send):
        assert (await receive())["type"] == "websocket.connect"
        word = asyncio.get_running_loop().create_future()
        self.words.append(word)
        how = await word
        if how == "fail":
            raise RuntimeError("the consumer failed")
        await send(ACCEPT if how == "accept" else {"type": "websocket.close"})
        if how == "accept":
            await receive()


async def until(condition, timeout=5):
    """Once ``condition()`` holds, letting the other tasks run meanwhile."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0)


class Socket:
    """A socket's handshake through ``admission``, as daphne hands it over: ``sent`` what the
    server sent it, ``leave()`` its client leaving."""

    def __init__(self, admission, inner):
        self.incoming, self.sent = asyncio.Queue(), []
        self.incoming.put_nowait({"type": "websocket.connect"})
        scope = {"type": "websocket", "path": "/ws/campaigns/1/", "headers": []}
        self.task = asyncio.create_task(admission(scope, self.incoming.get, self.send))
        self.inner = inner

    async def send(self, message):
        self.sent.append(message)

    @classmethod
    async def arriving(cls, admission, inner):
        """Once the admission has passed it to ``inner`` or answered it."""
        before = len(inner.words)
        socket_ = cls(admission, inner)
        await until(lambda: socket_.task.done() or len(inner.words) > before)
        return socket_

    async def leave(self):
        self.incoming.put_nowait(DISCONNECT)
        await asyncio.wait_for(asyncio.gather(self.task, return_exceptions=True), 5)


def test_past_the_limit_a_socket_is_turned_away_at_once_without_its_application(settings):
    settings.SOCKETS_CONNECTING = 2

    async def scenario():
        inner = Sockets()
        admission = Admission(inner)
        first, second = [await Socket.arriving(admission, inner) for _ in range(2)]
        turned_away = await Socket.arriving(admission, inner)
        assert turned_away.task.done() and turned_away.sent == TURNED_AWAY
        assert len(inner.words) == 2  # the third never reached its application
        assert admission.connecting == 2
        # One accepted: room for one more, which its application takes.
        inner.words[0].set_result("accept")
        await until(lambda: first.sent == [ACCEPT])
        assert admission.connecting == 1
        third = await Socket.arriving(admission, inner)
        assert third.sent == [] and len(inner.words) == 3 and admission.connecting == 2
        for word in inner.words[1:]:
            word.set_result("close")
        for socket_ in (first, second, third):
            await socket_.leave()
        assert admission.connecting == 0

    asyncio.run(scenario())


@pytest.mark.parametrize("how", ["accept", "close", "fail", "cancel"])
def test_a_socket_is_counted_out_however_it_stops_connecting(settings, how):
    settings.SOCKETS_CONNECTING = 1

    async def scenario():
        inner = Sockets()
        admission = Admission(inner)
        socket_ = await Socket.arriving(admission, inner)
        assert admission.connecting == 1
        if how == "cancel":  # as daphne cancels an instance 10 s after its client left
            socket_.task.cancel()
        else:
            inner.words[0].set_result(how)
        await until(lambda: admission.connecting == 0 or socket_.task.done())
        assert admission.connecting == 0
        if how == "accept":
            assert not socket_.task.done()  # open: no longer connecting
        await socket_.leave()
        assert admission.connecting == 0
        # The next one reaches its application.
        await Socket.arriving(admission, inner)
        assert len(inner.words) == 2
        inner.words[1].set_result("close")

    asyncio.run(scenario())


def test_the_turns_follow_each_other_at_the_rate_the_process_joins_sockets(settings, monkeypatch):
    """Two connecting at once, each taking 0.5 s: four sockets a second. Sockets turned away
    together are given 1 s (four of them), then 2 s (the next four), and so on, up to
    ``LATEST``; the turns handed out are spent as time passes."""
    settings.SOCKETS_CONNECTING = 2
    clock = [1000.0]
    monkeypatch.setattr("config.admission.time.monotonic", lambda: clock[0])

    async def scenario():
        inner = Sockets()
        admission = Admission(inner)
        admission.connect_time, admission.beside = 0.5, 2
        held = [await Socket.arriving(admission, inner) for _ in range(2)]
        turns = []
        for _ in range(9):
            socket_ = await Socket.arriving(admission, inner)
            turns.append(socket_.sent[1]["code"] - TRY_AGAIN_IN)
        assert turns == [1, 1, 1, 1, 2, 2, 2, 2, 3]
        clock[0] += 10  # the turns handed out have passed
        socket_ = await Socket.arriving(admission, inner)
        assert socket_.sent[1]["code"] == TRY_AGAIN_IN + 1
        for _ in range(4 * LATEST + 8):
            socket_ = await Socket.arriving(admission, inner)
        assert socket_.sent[1]["code"] == TRY_AGAIN_IN + LATEST
        # A connect measured: an accept 12 s after its handshake makes the next turns slower.
        clock[0] += 2
        inner.words[0].set_result("accept")
        await until(lambda: held[0].sent == [ACCEPT])
        assert admission.connect_time == pytest.approx(0.5 + (12 - 0.5) / 16)
        assert admission.beside == pytest.approx(2)  # two were connecting when it was accepted
        for word in inner.words[1:]:
            word.set_result("close")
        for socket_ in held:
            await socket_.leave()

    asyncio.run(scenario())


def test_a_burst_on_a_calm_process_gets_its_turns_at_the_rate_of_those_connecting_now(settings):
    """A calm process (one socket at a time, 0.05 s each: 20 a second measured) that meets a
    burst hands its turns out at the rate of the 150 connecting now, not of the calm: at the
    calm rate the pages would wait seconds apart while the process sat idle."""
    settings.SOCKETS_CONNECTING = 150

    async def scenario():
        inner = Sockets()
        admission = Admission(inner)
        admission.connect_time, admission.beside = 0.05, 1
        assert admission.rate() == 20
        sockets = [await Socket.arriving(admission, inner) for _ in range(150)]
        assert admission.rate() == 150 / 0.05
        turned_away = await Socket.arriving(admission, inner)
        assert turned_away.sent[1]["code"] == TRY_AGAIN_IN + 1
        for word in inner.words:
            word.set_result("close")
        for socket_ in sockets:
            await socket_.leave()

    asyncio.run(scenario())


def test_0_admits_every_socket_and_http_passes_through(settings):
    settings.SOCKETS_CONNECTING = 0

    async def scenario():
        inner = Sockets()
        admission = Admission(inner)
        sockets = [await Socket.arriving(admission, inner) for _ in range(5)]
        assert len(inner.words) == 5 and admission.connecting == 5
        for word in inner.words:
            word.set_result("close")
        for socket_ in sockets:
            await socket_.leave()

        async def http(scope, receive, send):
            return "answered"

        assert await Admission(http)({"type": "http"}, None, None) == "answered"

    asyncio.run(scenario())


# In the site's application ----------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_sites_sockets_are_counted_out_once_joined_or_refused(
    settings, monkeypatch, pool_campaign, player
):
    """A room socket that joins, one refused for want of the database (SocketGuard closes it,
    inside the admission), one arriving while the process drains (refused by the drain, before
    the admission counts it): the count is back where it was each time."""
    admission = asgi.application.app.application_mapping["websocket"]
    assert isinstance(admission, Admission)
    # Room for one (should an earlier test of this process have left one connecting).
    already = admission.connecting
    settings.SOCKETS_CONNECTING = already + 1
    cookie = session_cookie(player)
    headers = [(b"origin", b"http://127.0.0.1"), (b"cookie", f"sessionid={cookie}".encode())]

    async def handshake():
        socket_ = WebsocketCommunicator(
            asgi.application, f"/ws/campaigns/{pool_campaign.id}/", headers=headers
        )
        answer = await socket_.connect(timeout=10)
        assert admission.connecting == already
        await socket_.disconnect()
        return answer

    assert asyncio.run(handshake())[0] is True

    def unavailable(*args):
        raise OperationalError("the database is restarting")

    monkeypatch.setattr(consumers, "membership_of", unavailable)
    assert asyncio.run(handshake()) == (False, TRY_AGAIN_LATER)
    monkeypatch.setitem(shutdown._state, "draining", True)
    assert asyncio.run(handshake())[0] is False


# A real daphne process --------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_real_process_turns_away_sockets_past_the_limit_and_takes_them_again(
    pool_campaign, player
):
    """Two sockets held connecting (tests/held_asgi.py) on a process that takes two at once: a
    third is accepted and closed with its turn before any frame (no presence: its
    consumer never ran); once the two have joined, a new one joins. Closed before its accept it
    would have had daphne's HTTP 403 instead (tests/config/test_shutdown.py), a 1006 to a page,
    which tries again sooner."""
    cookie = session_cookie(player)
    port = free_port()
    process = start_daphne(port, app="tests.held_asgi:application", ROLLROOM_SOCKETS_CONNECTING="2")
    url = f"ws://127.0.0.1:{port}/ws/campaigns/{pool_campaign.id}/"

    async def opened(*hold):
        return await websockets.connect(
            url,
            origin=f"http://127.0.0.1:{port}",
            additional_headers=[("Cookie", f"sessionid={cookie}"), *hold],
        )

    async def scenario():
        held = [asyncio.create_task(opened(("X-Test-Hold", "1"))) for _ in range(2)]
        await asyncio.to_thread(wait_for_log, port, "Holding socket 2", process)
        turned_away = await opened()
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(turned_away.recv(), 10)
        code = turned_away.close_code
        process.send_signal(signal.SIGUSR1)  # tests/held_asgi.py lets the two connect now
        joined = await asyncio.wait_for(asyncio.gather(*held), 10)
        async with asyncio.timeout(15):
            for socket_ in joined:
                while "presence" not in await socket_.recv():
                    pass
        late = await room_socket(port, pool_campaign.id, cookie)
        for socket_ in [*joined, late]:
            assert socket_.close_code is None
            await socket_.close()
        return code

    try:
        assert asyncio.run(scenario()) == TRY_AGAIN_IN + 1
    finally:
        stop(process)
    log = daphne_log(port)
    assert "Too many sockets connecting (2): 1 given a later turn (4601-4900)" in log, log
    assert "Traceback" not in log, log
