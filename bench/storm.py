"""The reconnect storm (``python manage.py bench_storm``, issue #48): a process holding many
room sockets is stopped and started again on its port while another process goes on serving the
rooms' other members; every socket comes back as the page brings it back
(bench/storm_client.py), and the run measures how long each takes to be caught up, whether any
entry was lost or came twice, and how the other members' room pages were answered meanwhile.

The sockets live in client processes of their own (``python -m bench.storm_client``), a share
of the rooms each; the writes (talk and free rolls, posted as the room's box posts them) and
the room page GETs go from this process to the other server, open loop: each is scheduled in
advance at a fixed rate, and its latency runs from its scheduled time."""

import asyncio
import json
import resource
import sys
from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import close_old_connections, transaction
from django.urls import reverse
from django.utils.crypto import get_random_string

from campaigns.models import Campaign, Membership

from . import stats
from .client import HttpPool, http_request
from .data import Room, Table, session_for, table_delete

#: The free roll every other write sends (the others are messages): both kinds of entry the
#: room's box logs.
ROLL = "/r 2d6+1"


@dataclass
class Member:
    room: int
    campaign_id: int
    user_id: int
    session_key: str


@dataclass
class StormTable:
    """Per room (a Pool campaign): ``held`` members, whose sockets are on the process that
    restarts, and ``others`` (the GM first), on the one that stays."""

    tag: str
    campaign_ids: list
    held: list = field(default_factory=list)
    others: list = field(default_factory=list)
    user_ids: list = field(default_factory=list)

    def table(self):
        """As bench/data.py's Table, for ``table_delete``."""
        keys = [m.session_key for m in self.held + self.others]
        rooms = [Room(campaign_id) for campaign_id in self.campaign_ids]
        return Table(self.tag, rooms, [], [], self.user_ids, keys)


@transaction.atomic
def storm_table_create(*, rooms, held, others):
    """``rooms`` campaigns, each with a GM, ``held`` + ``others`` - 1 players (no characters:
    the room's socket and page need none) and a logged-in session for each member."""
    tag = get_random_string(8).lower()
    users = get_user_model()
    unusable = make_password(None)
    campaigns = Campaign.objects.bulk_create(
        Campaign(name=f"Storm {tag} {r}", system="pool") for r in range(rooms)
    )
    if campaigns[0].pk is None:  # a backend that does not return the ids (neither here)
        campaigns = list(Campaign.objects.filter(name__startswith=f"Storm {tag} ").order_by("pk"))
    names = [
        (r, k, f"storm-{tag}-{r}-{'gm' if k == 0 else k}")
        for r in range(rooms)
        for k in range(held + others)
    ]
    users.objects.bulk_create(users(username=name, password=unusable) for _, _, name in names)
    by_name = {u.username: u for u in users.objects.filter(username__startswith=f"storm-{tag}-")}
    Membership.objects.bulk_create(
        Membership(
            campaign=campaigns[r],
            user=by_name[name],
            role=Membership.GM if k == 0 else Membership.PLAYER,
        )
        for r, k, name in names
    )
    table = StormTable(tag, [c.pk for c in campaigns])
    for r, k, name in names:
        user = by_name[name]
        member = Member(r, campaigns[r].pk, user.pk, session_for(user))
        # The GM and the first others - 1 players stay on the other process.
        (table.others if k < others else table.held).append(member)
        table.user_ids.append(user.pk)
    return table


def storm_table_delete(table):
    table_delete(table.table())


def heads(table):
    """{room index: its last number} now, read in this thread."""
    close_old_connections()
    rows = dict(Campaign.objects.filter(pk__in=table.campaign_ids).values_list("pk", "last_seq"))
    return {r: rows[campaign_id] for r, campaign_id in enumerate(table.campaign_ids)}


class Child:
    """A client process (bench/storm_client.py) and its lines."""

    def __init__(self, process):
        self.process = process
        self.messages = asyncio.Queue()
        self.reader = asyncio.create_task(self._read())

    @classmethod
    async def start(cls, sockets):
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench.storm_client",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            cwd=settings.BASE_DIR,
            limit=2**26,
        )
        child = cls(process)
        await child.send({"sockets": sockets})
        return child

    async def _read(self):
        while line := await self.process.stdout.readline():
            await self.messages.put(json.loads(line))
        await self.messages.put({"exited": await self.process.wait()})

    async def send(self, message):
        self.process.stdin.write((json.dumps(message) + "\n").encode())
        await self.process.stdin.drain()

    async def expect(self, key, timeout, *, late=()):
        """The process's next message, which must have ``key``; one with a key of ``late`` is
        passed over (a "caught" that came after the run gave up waiting for it: without this,
        a run whose last sockets caught up past ``--limit`` failed at its report)."""
        async with asyncio.timeout(timeout):
            while True:
                message = await self.messages.get()
                if key in message:
                    return message
                if not any(k in message for k in late):
                    raise RuntimeError(f"a client process said {message!r}, not {key!r}")

    async def stop(self):
        self.reader.cancel()
        if self.process.returncode is None:
            self.process.kill()
            await self.process.wait()


class Traffic:
    """Open-loop writes and room page GETs to the other process: ``rate`` writes/s (a message,
    then a free roll, by the rooms' others in turn) and ``gets`` page loads/s."""

    def __init__(self, table, server, *, rate, gets, rooms):
        self.table, self.server, self.rooms = table, server, rooms
        self.rate, self.gets = rate, gets
        self.by_room = [[m for m in table.others if m.room == r] for r in range(rooms)]
        self.csrf = get_random_string(32)
        self.pool = HttpPool(server.host, server.port)
        self.writes, self.pages = [], []  # (scheduled, latency or None, error or None)
        self.tasks = []
        self.stopped = False

    def headers(self, member):
        cookies = (
            f"{settings.SESSION_COOKIE_NAME}={member.session_key}; "
            f"{settings.CSRF_COOKIE_NAME}={self.csrf}"
        )
        return [("Cookie", cookies), ("X-CSRFToken", self.csrf), ("Origin", self.server.origin)]

    def write(self, index):
        room = index % self.rooms
        members = self.by_room[room]
        member = members[(index // self.rooms) % len(members)]
        text = ROLL if index % 2 else f"storm {index}"
        body = urlencode({"text": text}).encode()
        headers = [
            *self.headers(member),
            ("HX-Request", "true"),
            ("Content-Type", "application/x-www-form-urlencoded"),
        ]
        path = reverse("talk_say", kwargs={"campaign_id": member.campaign_id})
        return http_request("POST", path, host=self.server.netloc, headers=headers, body=body)

    def page(self, index):
        room = (index * 7) % self.rooms
        members = self.by_room[room]
        member = members[index % len(members)]
        path = reverse("room", kwargs={"campaign_id": member.campaign_id})
        return http_request("GET", path, host=self.server.netloc, headers=self.headers(member))

    async def _one(self, log, request, scheduled):
        loop = asyncio.get_running_loop()
        try:
            status, body = await self.pool.send(request)
            error = None if status == 200 else f"HTTP {status}: {body[:200]!r}"
        except Exception as failure:
            error = repr(failure)
        log.append((scheduled, loop.time() - scheduled, error))

    async def run(self):
        """Send until ``stop()``."""
        loop = asyncio.get_running_loop()
        start = loop.time() + 0.05
        streams = [(self.rate, self.writes, self.write), (self.gets, self.pages, self.page)]

        async def stream(rate, log, make):
            index = 0
            while not self.stopped:
                at = start + index / rate
                await asyncio.sleep(max(0.0, at - loop.time()))
                if self.stopped:
                    return
                self.tasks.append(asyncio.create_task(self._one(log, make(index), at)))
                index += 1

        await asyncio.gather(*(stream(*s) for s in streams if s[0] > 0))

    async def stop(self, timeout=15):
        self.stopped = True
        if self.tasks:
            await asyncio.wait(self.tasks, timeout=timeout)
        self.pool.close()


def latency_summary(log, start=None, end=None):
    """p50 / p90 / p99 / max (ms) of the requests of ``log`` scheduled in [start, end)."""
    picked = [
        (latency, error)
        for at, latency, error in log
        if (start is None or at >= start) and (end is None or at < end)
    ]
    latencies = [latency for latency, _ in picked]
    return {
        "count": len(picked),
        "errors": sum(error is not None for _, error in picked),
        "p50_ms": stats.ms(stats.percentile(latencies, 50)),
        "p90_ms": stats.ms(stats.percentile(latencies, 90)),
        "p99_ms": stats.ms(stats.percentile(latencies, 99)),
        "max_ms": stats.ms(max(latencies, default=None)),
        "over_1s": sum(latency > 1.0 for latency in latencies),
        "first_error": next((error for _, error in picked if error), None),
    }


def distribution(seconds):
    return {
        "p50_s": round(stats.percentile(seconds, 50), 3) if seconds else None,
        "p90_s": round(stats.percentile(seconds, 90), 3) if seconds else None,
        "p99_s": round(stats.percentile(seconds, 99), 3) if seconds else None,
        "max_s": round(max(seconds), 3) if seconds else None,
    }


def socket_specs(table, server_a, server_b, processes, rooms):
    """Each client process's sockets: the rooms r with r % processes == k, their held members'
    on A (watched) and their others' on B."""
    specs = [[] for _ in range(processes)]
    for member, server, watched in [(m, server_a, True) for m in table.held] + [
        (m, server_b, False) for m in table.others
    ]:
        url = server.socket_url(f"/ws/campaigns/{member.campaign_id}/")
        cookie = f"{settings.SESSION_COOKIE_NAME}={member.session_key}"
        specs[member.room % processes].append([member.room, url, cookie, server.origin, watched])
    return [spec for spec in specs if spec]


async def run_storm(table, *, server_a, server_b, restart, caught, options, progress):
    """Open every socket, let the traffic run ``before`` seconds, ``restart()`` A (in a thread:
    it stops A and starts it again, returning (T0, seconds the old process took to exit)),
    wait until every socket of A is caught up (at most ``limit`` s; then ``caught()``),
    ``after`` seconds more of traffic, then check every socket's entries; returns the
    result's figures."""
    rooms = options["rooms"]
    specs = socket_specs(table, server_a, server_b, options["processes"], rooms)
    loop = asyncio.get_running_loop()
    children = []
    traffic = Traffic(table, server_b, rate=options["rate"], gets=options["gets"], rooms=rooms)
    sending = None
    try:
        started = loop.time()
        children = [await Child.start(spec) for spec in specs]
        opened = [await c.expect("opened", options["limit"] + 600) for c in children]
        open_s = loop.time() - started
        progress(f"{sum(o['opened'] for o in opened)} sockets open in {open_s:.1f} s")
        await asyncio.sleep(1.0)  # the last presence pushes
        sending = asyncio.create_task(traffic.run())
        await asyncio.sleep(options["before"])
        t_stop = loop.time()
        progress("restarting A")
        t0, exit_s = await asyncio.to_thread(restart)
        down = await asyncio.to_thread(heads, table)
        for child in children:
            await child.send({"restart": t0, "heads": down})
        all_caught = True
        try:
            async with asyncio.timeout(options["limit"]):
                for child in children:
                    await child.expect("caught", options["limit"])
        except TimeoutError:
            all_caught = False
        t_caught = loop.time()
        caught()
        progress(
            f"caught up {t_caught - t0:.2f} s after A listened"
            if all_caught
            else "not all caught up"
        )
        await asyncio.sleep(options["after"])
        await traffic.stop()
        await sending
        last = await asyncio.to_thread(heads, table)
        for child in children:
            await child.send({"final": last, "wait": options["grace"]})
        reports = [
            (await c.expect("report", options["grace"] + 60, late=("caught",)))["report"]
            for c in children
        ]
    finally:
        if sending is not None and not sending.done():
            traffic.stopped = True
            sending.cancel()
        for child in children:
            await child.stop()
    caught_s = sorted(s for r in reports for s in r["caught_s"])
    tries = [t for r in reports for t in r["tries"]]
    codes = {}
    for r in reports:
        for code, count in r["codes"].items():
            codes[code] = codes.get(code, 0) + count
    watched = sum(r["watched"] for r in reports)
    return {
        "sockets": sum(r["sockets"] for r in reports),
        "watched": watched,
        "client_processes": len(reports),
        "open_s": round(open_s, 2),
        "stop_to_exit_s": round(exit_s, 3),
        "stop_to_listen_s": round(t0 - t_stop, 3),
        "entries_when_listening": sum(down.values()),
        "entries_total": sum(last.values()),
        "caught_up": len(caught_s),
        "not_caught": sum(r["not_caught"] for r in reports),
        "caught_within_limit": all_caught,
        **{f"catch_up_{k}": v for k, v in distribution(caught_s).items()},
        "caught_within_10s": sum(s <= 10 for s in caught_s),
        "tries_p50": stats.percentile(tries, 50),
        "tries_max": max(tries, default=None),
        "close_codes": codes,
        "lost": sum(r["lost"] for r in reports),
        "duplicated": sum(r["duplicated"] for r in reports),
        "out_of_order": sum(r["out_of_order"] for r in reports),
        "gaps_reopened": sum(r["gaps"] for r in reports),
        # All the sockets' frames over the run, presence lists included: each socket that
        # opens or closes sends its room's list to every socket of the room.
        "frames": sum(r["frames"] for r in reports),
        "client_errors": [r["error"] for r in reports if r.get("error")],
        "pages_during_storm": latency_summary(traffic.pages, t_stop, t_caught),
        "pages_steady": latency_summary(traffic.pages, None, t_stop),
        "writes_during_storm": latency_summary(traffic.writes, t_stop, t_caught),
        "writes_steady": latency_summary(traffic.writes, None, t_stop),
        "storm_s": round(t_caught - t_stop, 3),
    }


def raise_file_limit():
    """The open-file limit raised to its hard limit (a socket is a file): the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]
