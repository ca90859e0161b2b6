"""The measured room of ``bench_sockets``: one room of a GM and players, each with a socket, a
shown scene with a player's token on it and a running turn order; its events (a player's roll
of an open check, the player's token moved, the GM's "next turn"), each POSTed as the page does
and timed from its send until it reached every socket of the room."""

import asyncio
import hashlib
import io
import time
from dataclasses import dataclass
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.urls import reverse
from django.utils.crypto import get_random_string
from PIL import Image
from websockets.exceptions import ConnectionClosed

from campaigns.models import Membership
from scene.models import Combatant, Initiative, Picture, Scene, Token

from . import server as procs
from . import stats
from .client import HttpPool, http_request, marker
from .crowd import page_socket
from .data import session_for, table_create, table_delete

#: In a pushed log entry (templates/rolls/_log_entry.html); in the initiative card.
LOG_ENTRY = 'id="entry-'
CARD = 'id="initiative"'
#: The turn order's names: each turn's entry names whose turn it is.
COMBATANTS = ("Arvid", "Brann", "Cyra", "Dagny")
#: Seconds an event may take to reach every socket before it counts as lost.
GRACE = 10.0
#: The map: its size and grid (pixels); the token moves between two squares.
MAP, GRID = (400, 300), 50


@dataclass
class Room:
    """The measured room: ``table`` (bench.data.Table of one room, its checks the rolls'),
    the GM's session, the token the first player moves."""

    table: object
    gm_session: str
    token_id: int
    #: The token's moves and the turns so far (each server of a run carries on from them).
    moves: int = 0
    turns: int = 0

    @property
    def campaign_id(self):
        return self.table.rooms[0].campaign_id

    def cookies(self):
        """The session cookie of each socket: every player's, then the GM's."""
        keys = [p.session_key for p in self.table.rooms[0].players] + [self.gm_session]
        return [f"{settings.SESSION_COOKIE_NAME}={key}" for key in keys]


@transaction.atomic
def room_create(*, players, rolls):
    """A room of ``players`` players and its GM, ``rolls`` open checks (one per roll, spread
    over the players), a shown scene with the first player's token, a started turn order."""
    sends = [(0, i % players) for i in range(rolls)]
    table = table_create(rooms=1, clients=players, sends=sends, warmups=[(0, 0)])
    campaign_id = table.rooms[0].campaign_id
    gm = get_user_model().objects.get(
        memberships__campaign_id=campaign_id, memberships__role=Membership.GM
    )
    gm_session = session_for(gm)
    table.session_keys.append(gm_session)
    out = io.BytesIO()
    Image.new("RGB", MAP, (90, 120, 80)).save(out, format="PNG")
    data = out.getvalue()
    picture = Picture.objects.create(
        campaign_id=campaign_id,
        data=data,
        content_type="image/png",
        width=MAP[0],
        height=MAP[1],
        digest=hashlib.sha256(data).hexdigest(),
    )
    scene = Scene.objects.create(
        campaign_id=campaign_id, name="Harbor", picture=picture, grid=GRID, snap=True, shown=True
    )
    player = table.rooms[0].players[0]
    token = Token.objects.create(
        scene=scene, name="Runner", character_id=player.character_id, x=25, y=25
    )
    initiative = Initiative.objects.create(campaign_id=campaign_id, started=True)
    Combatant.objects.bulk_create(
        Combatant(initiative=initiative, name=name, score=10 - k, place=k)
        for k, name in enumerate(COMBATANTS)
    )
    return Room(table, gm_session, token.pk)


def room_delete(room):
    """Remove what ``room_create`` made (a scene's map is protected: the scene goes first)."""
    Scene.objects.filter(campaign_id=room.campaign_id).delete()
    table_delete(room.table)


class Watch:
    """The sockets of the measured room and the events awaited on them: an event is in when
    every socket received a frame for each of its ``parts`` (tests on the frame's text)."""

    def __init__(self):
        self.sockets, self.readers = [], []
        self.pending = {}  # event key -> [parts, {socket: parts seen}, done future]
        self.frames = 0

    async def open(self, urls_cookies, origin, parallel=20):
        gate = asyncio.Semaphore(parallel)

        async def one(k, url, cookie):
            async with gate:
                websocket = await page_socket(url, cookie, origin, open_timeout=120)
            # Read from the opening, as a page does (a socket left unread stops answering
            # daphne's pings: bench/crowd.py).
            self.readers.append(asyncio.create_task(self._read(k, websocket)))
            return websocket

        self.sockets = await asyncio.gather(*(one(k, *t) for k, t in enumerate(urls_cookies)))

    async def _read(self, k, websocket):
        try:
            async for text in websocket:
                self.frames += 1
                self.frame(k, text)
        except ConnectionClosed:
            pass

    def frame(self, k, text):
        now = time.monotonic()
        for parts, seen, done in list(self.pending.values()):
            have = seen.get(k, 0)
            for bit, test in enumerate(parts):
                if not have & (1 << bit) and test(text):
                    have |= 1 << bit
            seen[k] = have
            full = (1 << len(parts)) - 1
            if have == full and not done.done():
                if sum(1 for v in seen.values() if v == full) == len(self.sockets):
                    done.set_result(now)

    def expect(self, key, parts):
        """A future of the time ``key``'s frames were all in."""
        done = asyncio.get_running_loop().create_future()
        self.pending[key] = [parts, {}, done]
        return done

    async def close(self):
        await asyncio.gather(*(ws.close() for ws in self.sockets), return_exceptions=True)
        await asyncio.gather(*self.readers, return_exceptions=True)


class Poster:
    """The room's writes as its pages POST them (htmx, the session's cookie and CSRF token)."""

    def __init__(self, server, room):
        self.server, self.room = server, room
        self.pool = HttpPool("127.0.0.1", server.port)
        self.csrf = get_random_string(32)

    def request(self, path, session, fields):
        headers = [
            (
                "Cookie",
                f"{settings.SESSION_COOKIE_NAME}={session}; "
                f"{settings.CSRF_COOKIE_NAME}={self.csrf}",
            ),
            ("X-CSRFToken", self.csrf),
            ("Origin", self.server.origin),
            ("HX-Request", "true"),
            ("Content-Type", "application/x-www-form-urlencoded"),
        ]
        body = urlencode(fields).encode()
        return http_request("POST", path, host=self.server.netloc, headers=headers, body=body)

    async def post(self, request):
        status, body = await self.pool.send(request)
        return None if 200 <= status < 300 else f"HTTP {status}: {body[:300]!r}"

    def roll(self, index):
        """The request of roll ``index`` (its check's note carries the marker) and its parts."""
        table = self.room.table
        player = table.rooms[0].players[index % len(table.rooms[0].players)]
        path = reverse(
            "check_roll",
            kwargs={"campaign_id": self.room.campaign_id, "check_id": table.checks[index]},
        )
        fields = {"attribute": player.attribute_id, "skill": player.skill_id}
        return self.request(path, player.session_key, fields), [
            lambda text: LOG_ENTRY in text and marker(text) == index
        ]

    def warm_roll(self):
        table = self.room.table
        player = table.rooms[0].players[0]
        path = reverse(
            "check_roll",
            kwargs={"campaign_id": self.room.campaign_id, "check_id": table.warmup_checks[0]},
        )
        fields = {"attribute": player.attribute_id, "skill": player.skill_id}
        return self.request(path, player.session_key, fields)

    def move(self, _index):
        """The first player's token to the next square (it goes to and fro); the push carries
        the token's count of moves, which tells this move's frame."""
        self.room.moves += 1
        x = GRID // 2 + (self.room.moves % 2) * GRID
        path = reverse(
            "token_move",
            kwargs={"campaign_id": self.room.campaign_id, "token_id": self.room.token_id},
        )
        player = self.room.table.rooms[0].players[0]
        token, count = f'data-token="{self.room.token_id}"', f'data-moves="{self.room.moves}"'
        return self.request(path, player.session_key, {"x": x, "y": GRID // 2}), [
            lambda text: token in text and count in text
        ]

    def turn(self, index):
        """The GM's "next turn": its log entry (naming whose turn) and the card, to everyone."""
        path = reverse("initiative_next", kwargs={"campaign_id": self.room.campaign_id})
        self.room.turns += 1
        name = COMBATANTS[self.room.turns % len(COMBATANTS)]
        return self.request(path, self.room.gm_session, {}), [
            lambda text: LOG_ENTRY in text and name in text,
            lambda text: CARD in text,
        ]


async def events(watch, poster, make, *, count, rate, pid, start=0):
    """``count`` events made by ``make(index)`` (-> request, parts), one every 1/``rate`` s, one
    at a time (the next waits for the last's answer); each timed from its send until it
    reached every socket. Returns the summary with the server's CPU per event."""
    latencies, errors, lost = [], [], 0
    loop = asyncio.get_running_loop()
    cpu_before, t0 = procs.cpu_seconds(pid), loop.time()
    waits = []
    for i in range(count):
        await asyncio.sleep(max(0.0, t0 + i / rate - loop.time()))
        request, parts = make(start + i)
        key = (make.__name__, start + i)
        done = watch.expect(key, parts)
        sent = time.monotonic()
        error = await poster.post(request)
        if error:
            errors.append(error)
            watch.pending.pop(key)
            continue
        waits.append((key, sent, done))
    for key, sent, done in waits:
        try:
            arrived = await asyncio.wait_for(asyncio.shield(done), GRACE)
            latencies.append(arrived - sent)
        except TimeoutError:
            lost += 1
        watch.pending.pop(key, None)
    cpu_after = procs.cpu_seconds(pid)
    cpu = None if cpu_before is None or cpu_after is None else cpu_after - cpu_before
    sockets = len(watch.sockets)
    out = {
        "sent": count,
        "delivered": len(latencies),
        "lost": lost,
        "errors": len(errors),
        "p50_ms": stats.ms(stats.percentile(latencies, 50)),
        "p90_ms": stats.ms(stats.percentile(latencies, 90)),
        "max_ms": stats.ms(max(latencies) if latencies else None),
        "seconds": round(loop.time() - t0, 2),
        "cpu_s": None if cpu is None else round(cpu, 3),
        "cpu_ms_per_event": None if cpu is None else round(1000 * cpu / count, 2),
        "cpu_us_per_socket": None if cpu is None else round(1e6 * cpu / count / sockets, 1),
    }
    if errors:
        out["first_error"] = errors[0][:300]
    return out
