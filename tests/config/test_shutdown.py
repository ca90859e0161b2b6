"""A real daphne process told to stop (SIGTERM) while it holds a room socket and a slow request
(config/shutdown.py): the socket is closed with SERVICE_RESTART at once (its page reopens it
elsewhere), a socket opened meanwhile is refused, the request held is answered 2xx,
and the process exits by itself. Runs on SQLite and on PostgreSQL + Redis (the test database,
REDIS_URL)."""

import asyncio
import signal
import subprocess

import pytest
import websockets
from django.urls import reverse

from config.shutdown import SERVICE_RESTART
from tests.faults import daphne_log, http, start_daphne, wait_for_log
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
