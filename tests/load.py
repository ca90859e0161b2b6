"""A steady load of players at a real server, for the tests that restart or kill its processes:
each player sends its writes one after another over HTTP (HTTPS through a proxy, or plain HTTP
to daphne), Pool rolls by default, and holds its campaign room's socket as a page does,
reopening it when it closes with ``?after=`` the last entry it has (static/js/room.js) and
backing off as static/js/site.js does. The load runs on an asyncio loop in a thread of its own,
so that the test restarts processes meanwhile; it records every answer of every write and every
entry each socket received, for the test to hold against the database (``rolls_logged_once``,
``sockets_caught_up``).

A write whose answer was lost (no answer, a 502 from the proxy, a connection cut by a killed
process) is sent again, as a user clicks again, with the same key: the same check (rolled once:
refused with 422 if the first try was logged), the same one-time form token (answered as the
first, not written again). The rolls' table is bench_rolls's (bench/data.py): a Pool campaign,
its players with a character each and logged-in sessions, and the open checks they roll; the log
says which checks were rolled."""

import asyncio
import random
import re
import ssl
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.conf import settings
from django.urls import reverse
from django.utils.crypto import get_random_string
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from bench.data import table_create
from rolls.models import Check, LogEntry

#: An entry of the log in a frame (templates/rolls/_log_entry.html): its number.
ENTRY = re.compile(r'class="entry [^"]*" data-seq="(\d+)"')
#: How long a test waits for the load to reach a point (rolls answered, sockets open or caught
#: up) before it fails.
TIMEOUT = 60
#: The time from the start of a player's roll to the start of its next, at least (seconds): under
#: the site's limit of 10 rolls in 10 s per user (config/settings.py, WRITE_LIMITS), which would
#: answer 429 and roll nothing.
PAUSE = 1.1
#: A roll's answer that the player did not get: no answer at all, or the proxy's for a process
#: it could not reach or that went away (502, 503, 504). The player sends the roll again.
LOST = (None, 502, 503, 504)


@dataclass(frozen=True)
class Site:
    """Where the players connect: ``address``:``port``, asking for ``name`` (the Host, the TLS
    server name and the pages' Origin); over TLS with ``tls`` (a context that verifies the
    site's certificate), else plain HTTP."""

    name: str
    port: int
    tls: ssl.SSLContext | None = None
    address: str = "127.0.0.1"

    @property
    def origin(self):
        return f"{'https' if self.tls else 'http'}://{self.name}:{self.port}"

    def socket_url(self, path):
        return f"{'wss' if self.tls else 'ws'}://{self.name}:{self.port}{path}"


async def request(site, method, path, *, headers=(), body=b"", timeout=30):
    """One HTTP/1.1 request on a connection of its own: the status, or None when no answer
    came (refused, cut, timed out)."""
    lines = [f"{method} {path} HTTP/1.1", f"Host: {site.name}:{site.port}", "Connection: close"]
    lines += [f"Content-Length: {len(body)}"] + [f"{name}: {value}" for name, value in headers]
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await asyncio.open_connection(
                site.address,
                site.port,
                ssl=site.tls,
                server_hostname=site.name if site.tls else None,
            )
            try:
                writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
                head = await reader.readuntil(b"\r\n")
                await reader.read()  # to the end: the server closes it (Connection: close)
            finally:
                writer.close()
        return int(head.split()[1])
    except (OSError, TimeoutError, asyncio.IncompleteReadError, ssl.SSLError, IndexError):
        return None


@dataclass
class Player:
    """One player of the load: what it rolls and what its socket received."""

    #: The campaign whose room's socket it holds.
    campaign_id: int
    user_id: int
    session_key: str
    #: What it sends, in order: (key, path, body) each, the key naming the write (a check's id,
    #: a form's one-time token), which a try sent again after a lost answer keeps.
    writes: list
    #: Every try of each write sent, by its key: its status (None: no answer).
    answers: dict = field(default_factory=dict)
    #: The number of every entry its socket received, in order, duplicates included.
    seen: list = field(default_factory=list)
    #: How long its socket was closed each time, until it was open again (seconds).
    without_socket: list = field(default_factory=list)
    socket_open: bool = False


class RollLoad:
    """``with RollLoad(site, players) as load:`` the players' sockets are open and they send
    their writes, one after another each (``pause`` seconds from the start of one to the start
    of the next, at least; ``tries`` at most of one), until ``stop_rolling()``; leaving the block
    closes the sockets."""

    def __init__(self, site, players, *, pause=PAUSE, tries=4):
        self.site, self.players = site, players
        self.pause, self.tries = pause, tries
        self.changed = threading.Condition()
        self.rolling = True
        self.closing = False
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.rolled = 0
        #: Requests sent and not answered yet.
        self.in_flight = 0
        self.error = None

    # The test's side (its thread) --------------------------------------------------------------

    def __enter__(self):
        self.thread.start()
        self._call(self._start).result(timeout=TIMEOUT)
        self.wait_for(lambda: all(p.socket_open for p in self.players), "every socket open")
        return self

    def __exit__(self, *exc):
        self.stop_rolling()
        self._call(self._close).result(timeout=TIMEOUT)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=TIMEOUT)
        self.loop.close()

    def answered(self):
        """How many rolls were answered 2xx so far."""
        return self.rolled

    def wait_for(self, condition, what, timeout=TIMEOUT):
        """Wait until ``condition()`` holds (checked whenever the load moves on)."""
        with self.changed:
            if not self.changed.wait_for(lambda: condition() or self.error, timeout=timeout):
                raise TimeoutError(f"the load never reached: {what} ({self.summary()})")
        if self.error:
            raise self.error

    def wait_for_rolls(self, count, timeout=TIMEOUT):
        """Wait until ``count`` more rolls than now are answered 2xx."""
        goal = self.answered() + count
        self.wait_for(lambda: self.answered() >= goal, f"{goal} rolls answered", timeout)

    def stop_rolling(self):
        """Stop sending rolls; returns once every roll sent has its answer (or gave up)."""
        if self.rolling:
            self.rolling = False
            self._call(self._rolls_done).result(timeout=TIMEOUT * 2)

    def catch_up(self, seqs, timeout=TIMEOUT):
        """Wait until every socket has received every entry of its campaign's ``seqs``
        ({campaign id: entry numbers})."""
        self.wait_for(
            lambda: all(set(seqs[p.campaign_id]) <= set(p.seen) for p in self.players),
            "every socket received its log's entries",
            timeout,
        )

    def longest_without_socket(self):
        return max((t for p in self.players for t in p.without_socket), default=0.0)

    def summary(self):
        statuses = Counter(s for p in self.players for t in list(p.answers.values()) for s in t)
        return f"answers {dict(statuses)}, sockets open {[p.socket_open for p in self.players]}"

    def _call(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine(), self.loop)

    def _moved(self):
        with self.changed:
            self.changed.notify_all()

    # The load's side (its loop) -----------------------------------------------------------------

    async def _start(self):
        self.sockets = [asyncio.create_task(self._hold_socket(p)) for p in self.players]
        self.rollers = [asyncio.create_task(self._roll(p)) for p in self.players]

    async def _rolls_done(self):
        await asyncio.gather(*self.rollers)

    async def _close(self):
        self.closing = True
        for task in self.sockets:
            task.cancel()
        await asyncio.gather(*self.sockets, return_exceptions=True)

    async def _roll(self, player):
        try:
            loop = asyncio.get_running_loop()
            csrf = get_random_string(32)
            headers = [
                (
                    "Cookie",
                    f"{settings.SESSION_COOKIE_NAME}={player.session_key}; "
                    f"{settings.CSRF_COOKIE_NAME}={csrf}",
                ),
                ("X-CSRFToken", csrf),
                ("Origin", self.site.origin),
                ("HX-Request", "true"),
                ("Content-Type", "application/x-www-form-urlencoded"),
            ]
            for key, path, body in player.writes:
                if not self.rolling:
                    return
                started = loop.time()
                tries = player.answers[key] = []
                # A player whose click got no answer clicks again, as a page's user would.
                while len(tries) < self.tries and (not tries or tries[-1] in LOST):
                    self.in_flight += 1
                    self._moved()
                    try:
                        status = await request(self.site, "POST", path, headers=headers, body=body)
                    finally:
                        self.in_flight -= 1
                    tries.append(status)
                    self.rolled += ok(tries[-1])
                    self._moved()
                    if tries[-1] in LOST:
                        await asyncio.sleep(self.pause)  # the user's pause before clicking again
                await asyncio.sleep(max(0.0, started + self.pause - loop.time()))  # the pace
            raise RuntimeError("a player ran out of writes to send: give it more")
        except Exception as error:  # noqa: BLE001 - the test thread raises it
            self.error = error
            self._moved()

    async def _hold_socket(self, player):
        """The room's socket of ``player`` as a page holds it (static/js/site.js): reopened
        after any close, the first try at once after a restart's close, then backing off; each
        open asks for the entries after the last one it has."""
        retries = 0
        closed_at = None
        while not self.closing:
            after = max(player.seen, default=0)
            path = f"/ws/campaigns/{player.campaign_id}/?after={after}"
            try:
                async with connect(
                    self.site.socket_url(path),
                    host=self.site.address,
                    port=self.site.port,
                    ssl=self.site.tls,
                    origin=self.site.origin,
                    additional_headers={
                        "Cookie": f"{settings.SESSION_COOKIE_NAME}={player.session_key}"
                    },
                    proxy=None,
                    open_timeout=15,
                    max_size=None,
                ) as socket_:
                    if closed_at is not None:
                        player.without_socket.append(time.monotonic() - closed_at)
                    player.socket_open, retries, closed_at = True, 0, None
                    self._moved()
                    async for frame in socket_:
                        player.seen += [int(seq) for seq in ENTRY.findall(frame)]
                        self._moved()
            except (OSError, TimeoutError, InvalidHandshake, ConnectionClosed):
                pass
            if player.socket_open:
                closed_at = time.monotonic()
                player.socket_open = False
                self._moved()
            wait = min(2.5, 0.25 * 2**retries) * (0.5 + 0.5 * random.random())
            retries += 1
            await asyncio.sleep(wait)  # the page's back-off before it tries again


def ok(status):
    return status is not None and 200 <= status < 300


def load_table(players, checks_each):
    """bench_rolls's table (bench/data.py) of one Pool room: ``players`` players, each with a
    character and ``checks_each`` open checks. Returns (campaign id, [Player])."""
    sends = [(0, p) for _ in range(checks_each) for p in range(players)]
    table = table_create(rooms=1, clients=players, sends=sends, warmups=[])
    room = table.rooms[0]

    def rolls(index, player):
        body = urlencode({"attribute": player.attribute_id, "skill": player.skill_id}).encode()
        checks = [c for (_, p), c in zip(sends, table.checks, strict=True) if p == index]
        return [(c, reverse("check_roll", args=[room.campaign_id, c]), body) for c in checks]

    return room.campaign_id, [
        Player(room.campaign_id, p.user_id, p.session_key, writes=rolls(index, p))
        for index, p in enumerate(room.players)
    ]


def rolls_logged_once(campaign_id, players):
    """Hold the players' answers against the log: a roll answered 2xx is logged exactly once;
    a roll without a 2xx answer at most once (its first try may have been logged before the
    answer was lost, and a try after it refused as the check was rolled), and not at all when
    every try of it was refused; no roll is logged that
    no player sent; a check is marked rolled exactly when its roll is logged; a try refused (422)
    only follows a try without an answer. Returns the statuses' counts."""
    sent = {c: tries for p in players for c, tries in p.answers.items()}
    logged = Counter(
        LogEntry.objects.filter(campaign_id=campaign_id, kind=LogEntry.ROLL).values_list(
            "check_ref_id", flat=True
        )
    )
    assert set(logged) <= set(sent), "a roll was logged that no player sent"
    assert max(logged.values(), default=1) == 1, "a roll was logged twice"
    rolled = set(
        Check.objects.filter(campaign_id=campaign_id)
        .exclude(status=Check.OPEN)
        .values_list("pk", flat=True)
    )
    assert rolled == set(logged), "a check's state disagrees with the log"
    for check_id, tries in sent.items():
        if any(ok(status) for status in tries):
            assert logged[check_id] == 1, (check_id, tries)
        if not any(status in LOST or ok(status) for status in tries):
            assert logged[check_id] == 0, (check_id, tries)  # refused each time it came
        for before, status in zip([None, *tries], tries, strict=False):
            assert status != 422 or before in LOST, (check_id, tries)
            assert status in (*LOST, 422, 429) or ok(status), (check_id, tries)
    return Counter(s for tries in sent.values() for s in tries)


def sockets_caught_up(load):
    """Every socket received every entry of its campaign's log, once each (after waiting for
    it)."""
    entries = LogEntry.objects.values_list("seq", flat=True)
    seqs = {
        campaign_id: set(entries.filter(campaign_id=campaign_id))
        for campaign_id in {p.campaign_id for p in load.players}
    }
    load.catch_up(seqs)
    for player in load.players:
        counts = Counter(player.seen)
        assert set(counts) == seqs[player.campaign_id], "a socket received an entry not in the log"
        assert max(counts.values(), default=1) == 1, "a socket received an entry twice"
