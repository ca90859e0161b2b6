"""Two real daphne processes on one PostgreSQL and one Redis: a roll posted to one process
arrives on the websockets of both, also after the room has been quiet for longer than the
channel layer's blocking reads; a member removed, or logged out, on one process loses the
sockets on both. Skipped unless DATABASE_URL (PostgreSQL) and REDIS_URL are set.
"""

import asyncio
import os
import secrets
import urllib.error
import urllib.parse
import urllib.request

import pytest
import redis
import websockets
from django.conf import settings
from django.test import Client

from rolls import services as rolls_services
from rolls.systems.pool.services import rating_set
from sheets import services as sheet_services
from tests.faults import daphne_log, redis_server, start_daphne  # noqa: F401
from tests.helpers import free_port, stop

pytestmark = [
    pytest.mark.skipif(
        not os.environ.get("DATABASE_URL", "").startswith("postgres")
        or not os.environ.get("REDIS_URL"),
        reason="needs PostgreSQL and Redis: set DATABASE_URL=postgres://... and REDIS_URL=redis://...",
    ),
    pytest.mark.django_db(transaction=True),
]


def session_cookie(user):
    client = Client()  # one per user: logging another user in flushes the session
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


async def receive_entry(socket_, seq, timeout=15):
    """The first frame that carries log entry ``seq``."""
    async with asyncio.timeout(timeout):
        while True:
            frame = await socket_.recv()
            if f'id="entry-{seq}"' in frame:
                return frame


def roll_setup(campaign, gm, player):
    """A check for the player's new character, and the session cookies of the GM and player."""
    character = sheet_services.character_create(campaign=campaign, owner=player, name="Ilse")
    agility = character.ratings.get(attribute="Agility", skill="")
    rating_set(rating=agility, value=3)
    check = rolls_services.check_ask(campaign=campaign, character=character, by=gm, target=4)
    cookies = {"gm": session_cookie(gm), "player": session_cookie(player)}
    return check, agility, cookies


def run_on_two_processes(scenario, *args, **env):
    """``asyncio.run(scenario(ports, *args))`` with a daphne process listening on each port
    (``env`` over this process's environment)."""
    ports = [free_port(), free_port()]
    processes = [start_daphne(port, **env) for port in ports]
    try:
        asyncio.run(scenario(ports, *args))
    finally:
        for process in processes:
            stop(process)


async def connect_room(ports, campaign_id, cookies):
    """A GM's and a player's socket on each process, once every one has joined the room."""
    sockets = []
    try:
        for port in ports:
            for who in ("gm", "player"):
                sockets.append(
                    await websockets.connect(
                        f"ws://127.0.0.1:{port}/ws/campaigns/{campaign_id}/?after=0",
                        origin=f"http://127.0.0.1:{port}",
                        additional_headers={"Cookie": f"sessionid={cookies[who]}"},
                    )
                )
        await joined(sockets)
    except BaseException:
        for s in sockets:
            await s.close()
        raise
    return sockets


async def joined(sockets, timeout=15):
    """Wait until every socket has joined its groups: its first frame came, a presence list
    (the consumer joins every group before it accepts the socket and sends any frame)."""
    async with asyncio.timeout(timeout):
        for socket_ in sockets:
            assert 'id="presence"' in await socket_.recv()


async def roll_reaches_all(sockets, port, campaign_id, check_id, agility_id, cookies):
    """A roll posted to ``port`` arrives on every socket, as log entry 1."""
    await asyncio.to_thread(post_roll, port, campaign_id, check_id, agility_id, cookies["player"])
    frames = await asyncio.gather(*(receive_entry(s, 1) for s in sockets))
    for frame in frames:
        assert "Agility 3" in frame
        assert "vs TN 4" in frame


def test_a_roll_posted_to_one_process_reaches_sockets_on_both(pool_campaign, gm, player):
    check, agility, cookies = roll_setup(pool_campaign, gm, player)
    run_on_two_processes(scenario, pool_campaign.id, check.id, agility.id, cookies)


async def scenario(ports, campaign_id, check_id, agility_id, cookies):
    sockets = await connect_room(ports, campaign_id, cookies)
    try:
        await roll_reaches_all(sockets, ports[0], campaign_id, check_id, agility_id, cookies)
    finally:
        for s in sockets:
            await s.close()


def blocking_reads(server):
    """How many blocking reads (BZPOPMIN, the channel layer's) the Redis has served."""
    stats = redis.Redis(port=server.port).info("commandstats")
    return stats.get("cmdstat_bzpopmin", {}).get("calls", 0)


async def quiet_for_two_reads(server, timeout=40):
    """Wait until the two processes' blocking reads have come back empty twice each (5 s each,
    channels_redis's brpop_timeout): six more served in all, as each process sends its next
    one when the last comes back."""
    async with asyncio.timeout(timeout):
        start = await asyncio.to_thread(blocking_reads, server)
        while await asyncio.to_thread(blocking_reads, server) < start + 6:
            await asyncio.sleep(0.5)  # polled: Redis tells no one when it served one


def test_a_quiet_room_keeps_its_sockets_and_then_gets_the_next_roll(
    pool_campaign,
    gm,
    player,
    redis_server,  # noqa: F811
):
    """On a Redis of the test's own, whose blocking reads only these processes count."""
    check, agility, cookies = roll_setup(pool_campaign, gm, player)
    run_on_two_processes(
        quiet_scenario,
        pool_campaign.id,
        check.id,
        agility.id,
        cookies,
        redis_server,
        REDIS_URL=redis_server.url(),
    )


async def quiet_scenario(ports, campaign_id, check_id, agility_id, cookies, server):
    sockets = await connect_room(ports, campaign_id, cookies)
    try:
        readers = [asyncio.create_task(read_until_closed(s)) for s in sockets]
        await quiet_for_two_reads(server)  # no push meanwhile: each process only waits
        closed = [(i, s.close_code) for i, s in enumerate(sockets) if s.close_code is not None]
        assert closed == [], f"sockets closed while the room was quiet: {closed}"
        for reader in readers:
            reader.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
        await roll_reaches_all(sockets, ports[1], campaign_id, check_id, agility_id, cookies)
    finally:
        for s in sockets:
            await s.close()
    for port in ports:
        log = daphne_log(port)
        assert "Exception inside application" not in log, log


async def read_until_closed(socket_):
    """Read (and drop) frames, so that the client keeps reading and sees a close at once."""
    try:
        while True:
            await socket_.recv()
    except websockets.ConnectionClosed:
        pass


def post(port, path, data, session_id, *, htmx=True):
    """POST ``data`` to ``path`` on ``port`` as the session's user: the response's status (a
    redirect is not followed)."""
    token = secrets.token_hex(16)
    headers = {
        "Cookie": f"sessionid={session_id}; csrftoken={token}",
        "X-CSRFToken": token,
        "Origin": f"http://127.0.0.1:{port}",
    }
    if htmx:
        headers["HX-Request"] = "true"
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=urllib.parse.urlencode(data).encode(),
        headers=headers,
        method="POST",
    )
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(request, timeout=15) as response:
            return response.status
    except urllib.error.HTTPError as error:  # a redirect, or an error
        return error.code


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def post_roll(port, campaign_id, check_id, agility_id, session_id):
    path = f"/campaigns/{campaign_id}/checks/{check_id}/roll/"
    status = post(port, path, {"attribute": agility_id, "intent": "Leap"}, session_id)
    assert status == 204  # the card and the entry come on the sockets


# Leaving: removed or logged out on one process, closed on both --------------------------------

LEFT = 4403  # room.consumers.LEFT


async def room_sockets(ports, campaign_id, cookie):
    """One socket on each process, as the cookie's user, after the log's end."""
    sockets = []
    for port in ports:
        sockets.append(
            await websockets.connect(
                f"ws://127.0.0.1:{port}/ws/campaigns/{campaign_id}/",
                origin=f"http://127.0.0.1:{port}",
                additional_headers={"Cookie": f"sessionid={cookie}"},
            )
        )
    return sockets


async def frames_until_closed(socket_, timeout=15):
    """Every frame the socket receives until the server closes it."""
    frames = []
    async with asyncio.timeout(timeout):
        try:
            while True:
                frames.append(await socket_.recv())
        except websockets.ConnectionClosed:
            return frames


def leave_setup(campaign, gm, player, other_player):
    """A check for the other player's new character, its rating, and everyone's cookie."""
    character = sheet_services.character_create(campaign=campaign, owner=other_player, name="Tor")
    agility = character.ratings.get(attribute="Agility", skill="")
    rating_set(rating=agility, value=3)
    check = rolls_services.check_ask(campaign=campaign, character=character, by=gm, target=4)
    cookies = {u.username: session_cookie(u) for u in (gm, player, other_player)}
    return check, agility, cookies


def test_a_removed_player_s_sockets_close_on_both_processes(
    pool_campaign, gm, player, other_player
):
    check, agility, cookies = leave_setup(pool_campaign, gm, player, other_player)
    path = f"/campaigns/{pool_campaign.id}/gm/members/{player.id}/remove/"
    run_on_two_processes(
        leave_scenario, pool_campaign.id, check.id, agility.id, cookies, path, cookies["gm"]
    )


def test_logging_out_closes_the_user_s_sockets_on_both_processes(
    pool_campaign, gm, player, other_player
):
    check, agility, cookies = leave_setup(pool_campaign, gm, player, other_player)
    run_on_two_processes(
        leave_scenario,
        pool_campaign.id,
        check.id,
        agility.id,
        cookies,
        "/accounts/logout/",
        cookies["ana"],
    )


async def leave_scenario(ports, campaign_id, check_id, agility_id, cookies, path, cookie):
    """ana's sockets on both processes close (and receive no log entry) once ``path`` is posted
    to the first process with ``cookie``; ben's stay and receive the next roll."""
    anas = await room_sockets(ports, campaign_id, cookies["ana"])
    bens = await room_sockets(ports, campaign_id, cookies["ben"])
    try:
        await joined(anas + bens)
        closing = [asyncio.create_task(frames_until_closed(s)) for s in anas]
        status = await asyncio.to_thread(post, ports[0], path, {}, cookie, htmx=False)
        assert status == 302
        for frames in await asyncio.gather(*closing):
            assert not any('id="entry-' in frame for frame in frames), frames
        assert [s.close_code for s in anas] == [LEFT, LEFT]
        await asyncio.to_thread(
            post_roll, ports[1], campaign_id, check_id, agility_id, cookies["ben"]
        )
        await asyncio.gather(*(receive_entry(s, 1) for s in bens))
    finally:
        for s in anas + bens:
            await s.close()
    for port in ports:
        log = daphne_log(port)
        assert "Exception inside application" not in log, log
