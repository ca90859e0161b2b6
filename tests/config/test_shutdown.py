"""A real daphne process told to stop (SIGTERM) while it holds a room socket and a slow request
(config/shutdown.py): the socket is closed with SERVICE_RESTART at once (its page reopens it
elsewhere), a socket opened meanwhile is refused, the request held is answered 2xx,
and the process exits by itself. Runs on SQLite and on PostgreSQL + Redis (the test database,
REDIS_URL)."""

import asyncio
import re
import signal
import subprocess
import threading
import time

import pytest
import websockets
from django.urls import reverse

from config.shutdown import SERVICE_RESTART
from rolls.models import Presence
from tests.faults import (  # noqa: F401 (redis_server: a fixture)
    daphne_log,
    http,
    redis_server,
    start_daphne,
    wait_for_log,
)
from tests.helpers import free_port, stop

from .test_redis_down import closed, room_socket
from .test_scaleout import session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


def test_sigterm_closes_sockets_with_service_restart_finishes_requests_and_exits(
    pool_campaign, player
):
    cookie = session_cookie(player)
    port = free_port()
    process = start_daphne(port, app="tests.held_asgi:application")
    try:
        status, body, code, late_code = asyncio.run(restart(process, port, pool_campaign, cookie))
        # The process exits by itself once the request it held is answered.
        returncode = process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pytest.fail(f"daphne still running after SIGTERM: {daphne_log(port)}")
    finally:
        stop(process)
    assert code == SERVICE_RESTART
    assert late_code == 403
    assert status == 200, body
    assert 'name="password"' in body  # the login page, rendered in full
    assert returncode == 0
    log = daphne_log(port)
    assert "Draining for a restart: closing 1 sockets" in log, log
    assert "Traceback" not in log, log


async def restart(process, port, campaign, cookie):
    """SIGTERM with a socket open and a request held: the request's status and body, the close
    code of the socket, and the status refusing a socket opened while the process drains."""
    socket_ = await room_socket(port, campaign.id, cookie, after=0)
    held = asyncio.create_task(
        asyncio.to_thread(http, port, reverse("login"), headers=[("X-Test-Hold", "1")])
    )
    await asyncio.to_thread(wait_for_log, port, "Holding a request", process)
    process.send_signal(signal.SIGTERM)
    code = await closed(socket_, timeout=10)
    # Draining: a socket that still arrives is refused (its page tries again elsewhere).
    with pytest.raises(websockets.InvalidStatus) as refused:
        await websockets.connect(
            f"ws://127.0.0.1:{port}/ws/campaigns/{campaign.id}/?after=0",
            origin=f"http://127.0.0.1:{port}",
            additional_headers={"Cookie": f"sessionid={cookie}"},
        )
    late_code = refused.value.response.status_code
    assert process.poll() is None  # still running: it holds the request
    process.send_signal(signal.SIGUSR1)  # tests/held_asgi.py answers it now
    status, _, body = await held
    return status, body, code, late_code


def test_a_process_a_proxy_checks_serves_on_until_the_proxy_hears_503(pool_campaign, player):
    """A process whose /healthz was asked (a proxy checks it) and then told to stop keeps
    serving what arrives, its sockets open, until it has answered /healthz 503; then it closes
    its sockets with SERVICE_RESTART and exits. Stopped at once, the requests the proxy sends
    before its next check would find the port closed (a 502 from Caddy for a POST: a roll
    lost)."""
    cookie = session_cookie(player)
    port = free_port()
    process = start_daphne(port)
    try:
        assert http(port, "/healthz")[0] == 200  # as the proxy asks

        async def drained():
            socket_ = await room_socket(port, pool_campaign.id, cookie, after=0)
            process.send_signal(signal.SIGTERM)
            await asyncio.to_thread(wait_for_log, port, "waiting for the proxy to see it", process)
            # Before the proxy knows: served, and the socket still open.
            status, _, body = await asyncio.to_thread(http, port, reverse("login"))
            assert status == 200 and 'name="password"' in body
            assert socket_.close_code is None and process.poll() is None
            # The proxy asks: 503, and only then the sockets close.
            assert (await asyncio.to_thread(http, port, "/healthz"))[:3:2] == (
                503,
                "unavailable",
            )
            return await closed(socket_, timeout=10)

        assert asyncio.run(drained()) == SERVICE_RESTART
        assert process.wait(timeout=10) == 0
    finally:
        stop(process)
    log = daphne_log(port)
    assert "did not ask /healthz" not in log and "Traceback" not in log, log


#: Room sockets a drain closes at once, in two rooms.
SOCKETS = 200
#: Seconds without a frame after which a room's presence lists are all in (a list waits a
#: quarter second at most, room.consumers.PRESENCE_GATHER, then its read: a loaded machine).
QUIET = 2


def test_a_drain_of_many_sockets_closes_each_with_service_restart_and_tells_the_rooms_once(
    redis_server,  # noqa: F811 (the fixture)
    pool_campaign,
    mana_campaign,
    gm,
    player,
    other_player,
):
    """A process holding many room sockets told to stop: each socket is closed with
    SERVICE_RESTART, their presence rows are removed together (room.consumers.depart) and each
    room's other members, on another process, hear one presence list, without those who left
    (not a list per moment while the sockets closed, each read as they went), and the process
    exits within 10 s of the signal, as config/shutdown.py promises."""
    cookies = {user: session_cookie(user) for user in (gm, player, other_player)}
    ports = [free_port(), free_port()]
    processes = [start_daphne(port, REDIS_URL=redis_server.url()) for port in ports]
    try:
        codes, lists, signalled = asyncio.run(
            drain_many(processes[0], ports, cookies, pool_campaign, mana_campaign)
        )
        returncode = processes[0].wait(timeout=max(0, signalled + 10 - time.monotonic()))
    except subprocess.TimeoutExpired:
        pytest.fail(f"daphne still running 10 s after SIGTERM: {daphne_log(ports[0])}")
    finally:
        for process in processes:
            stop(process)
    assert codes == [SERVICE_RESTART] * SOCKETS
    assert returncode == 0
    log = daphne_log(ports[0])
    assert lists == [["gm"]], log
    assert not Presence.objects.filter(user=player).exists()
    assert f"Draining for a restart: closing {SOCKETS} sockets" in log, log
    assert "still running" not in log and "not removed" not in log, log
    assert "not sent" not in log and "exiting now" not in log, log
    assert "Traceback" not in log, log


async def drain_many(process, ports, cookies, *campaigns):
    """SIGTERM to ``process`` (on ``ports[0]``) with SOCKETS room sockets of the player open on
    it, half in each of ``campaigns``, and the GM's socket in the first on the other process:
    each socket's close code, the presence lists the GM's socket heard from the signal until
    the other player joined it on its process, and the time of the signal."""
    gm, player, other_player = cookies.values()
    gate = asyncio.Semaphore(20)

    async def opened(k):
        async with gate:
            return await room_socket(ports[0], campaigns[k % 2].id, player, after=0)

    gm_socket = await room_socket(ports[1], campaigns[0].id, gm, after=0)
    sockets = await asyncio.gather(*(opened(k) for k in range(SOCKETS)))
    # The lists of the joins, gathered a quarter second each (room.consumers.PresenceNews),
    # are all in before the signal: the GM's socket has heard nothing for QUIET seconds.
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(QUIET):
            while True:
                await gm_socket.recv()
    signalled = time.monotonic()
    process.send_signal(signal.SIGTERM)
    codes = await asyncio.gather(*(closed(s, timeout=10) for s in sockets))
    await asyncio.to_thread(process.wait, 10)
    # Its list comes after any the stopped process sent (the GM's channel's messages are read
    # in order): every list of the drain has arrived once it has.
    late = await room_socket(ports[1], campaigns[0].id, other_player, after=0)
    lists = []
    async with asyncio.timeout(10):
        while "ben" not in (names := presence_names(f := await gm_socket.recv())):
            print("FRAME", time.monotonic() - signalled, names, f[:80])
            if names is not None:
                lists.append(names)
    await late.close()
    await gm_socket.close()
    return codes, lists, signalled


def presence_names(frame):
    """The names of a presence list frame, or None for another frame."""
    if 'id="presence"' not in frame:
        return None
    return re.findall(r"<li>([^<]*)</li>", frame)


def test_a_request_stuck_in_a_thread_does_not_keep_the_process_past_10_s():
    """A request whose thread never returns (a sync view stuck) is cut: the process exits within
    10 s of the signal all the same (config.shutdown exits once the reactor has stopped; Python's
    own exit would wait for the thread)."""
    port = free_port()
    process = start_daphne(port, app="tests.held_asgi:application")
    try:
        threading.Thread(target=cut_request, args=(port,), daemon=True).start()
        wait_for_log(port, "Holding a request in a thread", process)
        signalled = time.monotonic()
        process.send_signal(signal.SIGTERM)
        returncode = process.wait(timeout=max(0, signalled + 10 - time.monotonic()))
    except subprocess.TimeoutExpired:
        pytest.fail(f"daphne still running 10 s after SIGTERM: {daphne_log(port)}")
    finally:
        stop(process)
    assert returncode == 0
    log = daphne_log(port)
    assert "Drained in" in log and "exiting now" not in log, log


def cut_request(port):
    """A request held in a thread of the server's that never returns: the server cuts it."""
    with pytest.raises(OSError):
        http(port, reverse("login"), headers=[("X-Test-Hold", "thread")])
