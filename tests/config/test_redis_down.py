"""Redis stopped and started again under a live daphne process (a redis-server of the test's
own, tests/faults.py): pages load, logins and logouts work, the GM asks and players roll, every
write commits and answers as usual; the outage is logged once; when Redis returns a socket
joins the room on its first try and the next roll reaches it; a session logged out during the
outage stays logged out. Runs on SQLite and on PostgreSQL (the test database)."""

import asyncio

import pytest
import websockets
from django.conf import settings
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.urls import reverse

from config.views import TRY_AGAIN_LATER
from rolls.models import Check, LogEntry
from tests.conftest import PASSWORD
from tests.faults import daphne_log, http, redis_server, session_of, start_daphne  # noqa: F401
from tests.helpers import free_port, stop

from .test_scaleout import receive_entry, roll_setup

pytestmark = pytest.mark.django_db(transaction=True)


async def room_socket(port, campaign_id, session_id, after=None):
    """A room socket as the session's user, once it has joined (its own presence came back)."""
    query = "" if after is None else f"?after={after}"
    socket_ = await websockets.connect(
        f"ws://127.0.0.1:{port}/ws/campaigns/{campaign_id}/{query}",
        origin=f"http://127.0.0.1:{port}",
        additional_headers={"Cookie": f"sessionid={session_id}"},
    )
    async with asyncio.timeout(15):
        while "presence" not in await socket_.recv():
            pass
    return socket_


async def closed(socket_, timeout=30):
    """The close code of ``socket_`` once the server has closed it (frames read meanwhile)."""
    async with asyncio.timeout(timeout):
        try:
            while True:
                await socket_.recv()
        except websockets.ConnectionClosed:
            return socket_.close_code


def roll(port, campaign_id, check_id, rating_id, session_id):
    path = reverse("check_roll", args=[campaign_id, check_id])
    status, _, body = http(
        port, path, {"attribute": rating_id, "intent": "Leap"}, session_id=session_id, htmx=True
    )
    assert status == 204, body


def ask(port, campaign_id, character_id, session_id):
    """The GM asks the character for a check: the new check's id."""
    before = set(Check.objects.values_list("pk", flat=True))
    path = reverse("check_ask", args=[campaign_id])
    data = {"character": character_id, "target": 4, "visibility": "public"}
    status, _, body = http(port, path, data, session_id=session_id, htmx=True)
    assert status == 200, body
    [new] = set(Check.objects.values_list("pk", flat=True)) - before
    return new


def test_with_redis_down_pages_logins_and_rolls_go_on_and_sockets_recover_after(
    redis_server,  # noqa: F811
    pool_campaign,
    gm,
    player,
):
    # The server checks passwords with the site's own hasher, not the tests' fast one (and as
    # it would make it: else it saves it again, which ends the player's other sessions).
    hasher = PBKDF2PasswordHasher()
    player.password = hasher.encode(PASSWORD, hasher.salt())
    player.save(update_fields=["password"])
    check, agility, cookies = roll_setup(pool_campaign, gm, player)
    port = free_port()
    process = start_daphne(port, REDIS_URL=redis_server.url())
    try:
        asyncio.run(outage(port, redis_server, pool_campaign, check, agility, cookies, player))
    finally:
        stop(process)
    log = daphne_log(port)
    assert log.count("Redis unreachable") == 1, log
    assert log.count("Redis reachable again") == 1, log
    assert "pushes dropped meanwhile" in log
    assert "Internal Server Error" not in log, log
    assert "Exception inside application" not in log, log  # no traceback per socket
    assert "Push to campaign" not in log, log  # no warning per write


async def outage(port, server, campaign, check, agility, cookies, player):
    room = reverse("room", args=[campaign.id])
    before = await room_socket(port, campaign.id, cookies["player"], after=0)
    server.stop()
    # The socket open when Redis went away closes, asking to be opened again later (its page
    # does); one opened meanwhile is refused, not left hanging.
    assert await closed(before) == TRY_AGAIN_LATER
    with pytest.raises(websockets.InvalidStatus):
        await room_socket(port, campaign.id, cookies["player"], after=0)

    # Pages load, for a logged-in user and to log in.
    for path in ("/", room, reverse("login")):
        status, _, body = await asyncio.to_thread(http, port, path, session_id=cookies["player"])
        assert status == 200, body
    # A login works, and its session is recognised.
    status, headers, _ = await asyncio.to_thread(
        http, port, reverse("login"), {"username": player.username, "password": PASSWORD}
    )
    assert status == 302 and headers["Location"] == reverse("home")
    logged_in = session_of(headers)
    status, _, body = await asyncio.to_thread(http, port, "/", session_id=logged_in)
    assert status == 200 and player.username in body

    # The GM asks, the player rolls (twice): each write commits and answers as usual.
    character = agility.character_id
    second = await asyncio.to_thread(ask, port, campaign.id, character, cookies["gm"])
    for check_id in (check.id, second):
        await asyncio.to_thread(roll, port, campaign.id, check_id, agility.id, logged_in)
    assert await LogEntry.objects.filter(campaign=campaign).acount() == 2
    third = await asyncio.to_thread(ask, port, campaign.id, character, cookies["gm"])

    server.start()
    # The first socket after the outage joins, stays, and hears the next roll.
    after = await room_socket(port, campaign.id, cookies["player"], after=2)
    watcher = await room_socket(port, campaign.id, cookies["gm"], after=2)
    try:
        await asyncio.to_thread(roll, port, campaign.id, third, agility.id, logged_in)
        for socket_ in (after, watcher):
            frame = await receive_entry(socket_, 3)
            assert "Agility 3" in frame
        assert after.close_code is None and watcher.close_code is None
    finally:
        await after.close()
        await watcher.close()


def test_a_logout_while_redis_is_down_still_holds_once_it_returns(
    redis_server,  # noqa: F811
    pool_campaign,
    gm,
    player,
):
    _, _, cookies = roll_setup(pool_campaign, gm, player)
    port = free_port()
    process = start_daphne(port, REDIS_URL=redis_server.url())
    try:
        asyncio.run(logout_in_outage(port, redis_server, pool_campaign, cookies))
    finally:
        stop(process)


async def logout_in_outage(port, server, campaign, cookies):
    room = reverse("room", args=[campaign.id])
    status, _, _ = await asyncio.to_thread(http, port, room, session_id=cookies["player"])
    assert status == 200  # known while Redis is up
    server.stop()
    status, _, _ = await asyncio.to_thread(
        http, port, reverse("logout"), {}, session_id=cookies["player"]
    )
    assert status == 302
    server.start()
    status, headers, _ = await asyncio.to_thread(http, port, room, session_id=cookies["player"])
    assert status == 302 and headers["Location"].startswith(reverse("login"))
    # Nor does the old session open a room socket (refused before it is accepted).
    with pytest.raises(websockets.InvalidStatus, match="403"):
        await websockets.connect(
            f"ws://127.0.0.1:{port}/ws/campaigns/{campaign.id}/",
            origin=f"http://127.0.0.1:{port}",
            additional_headers={"Cookie": f"sessionid={cookies['player']}"},
        )
    gm_socket = await room_socket(port, campaign.id, cookies["gm"])
    await gm_socket.close()


def test_the_write_limit_holds_across_two_processes_sharing_redis(
    redis_server,  # noqa: F811
    pool_campaign,
    gm,
    player,
):
    """Two daphne processes on one Redis: the GM's writes, sent to each in turn, are counted
    once (30 in a window, config/settings.py WRITE_LIMITS): the 31st is refused by either."""
    _, _, cookies = roll_setup(pool_campaign, gm, player)
    most, _ = settings.WRITE_LIMITS["writes"]
    ports = [free_port(), free_port()]
    env = {
        "REDIS_URL": redis_server.url(),
        "DJANGO_SETTINGS_MODULE": "tests.server_settings",
        "TEST_WRITE_WINDOW": "3600",  # no window ends during the test
    }
    processes = [start_daphne(port, **env) for port in ports]
    try:
        renew = reverse("invite_renew", args=[pool_campaign.id])
        for n in range(most):
            status, _, body = http(ports[n % 2], renew, {}, session_id=cookies["gm"], htmx=True)
            assert status == 200, (n, body)
        for port in ports:
            status, _, body = http(port, renew, {}, session_id=cookies["gm"], htmx=True)
            assert status == 429 and "Slow down" in body
    finally:
        for process in processes:
            stop(process)
