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
