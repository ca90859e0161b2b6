"""The idle crowd of ``bench_sockets``: rooms whose members' pages hold a room socket open and do
nothing else (made through the ORM: campaigns, users, memberships, logged-in sessions), and the
client processes that hold those sockets, each on an asyncio loop of its own, so that one
client's loop is not what limits how fast they open."""

import asyncio
import multiprocessing
import os
import statistics
import time
from collections import Counter
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import connections, transaction
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from campaigns.models import Campaign, Membership

from . import server as procs
from .data import session_for, sessions_delete

#: Handshakes each holder has under way at once. Daphne drops a handshake its application has
#: not accepted within 5 s (its --websocket_connect_timeout): more at once only queue longer.
PARALLEL = 8
#: Seconds a handshake may take (10,000 of them queue behind each other on the server).
OPEN_TIMEOUT = 60


@dataclass
class Crowd:
    """``campaign_ids``: the rooms; ``sessions[r]``: the session keys of room r's members."""

    campaign_ids: list
    sessions: list
    user_ids: list

    def targets(self, count, socket_url):
        """(url, cookie) of ``count`` sockets spread over the rooms round robin, and over each
        room's members (a member holds several when the sockets outnumber them: several tabs)."""
        rooms = len(self.campaign_ids)
        out = []
        for i in range(count):
            room, seat = i % rooms, i // rooms
            keys = self.sessions[room]
            cookie = f"{settings.SESSION_COOKIE_NAME}={keys[seat % len(keys)]}"
            out.append((socket_url(f"/ws/campaigns/{self.campaign_ids[room]}/?after=0"), cookie))
        return out


@transaction.atomic
def crowd_create(*, rooms, members, tag):
    """``rooms`` campaigns of ``members`` players each, every one logged in (a session each)."""
    users = get_user_model()
    crowd = Crowd([], [], [])
    for r in range(rooms):
        campaign = Campaign.objects.create(name=f"Crowd {tag} {r}", system="pool")
        made = users.objects.bulk_create(
            users(username=f"crowd-{tag}-{r}-{m}", password=make_password(None))
            for m in range(members)
        )
        Membership.objects.bulk_create(
            Membership(campaign=campaign, user=user, role=Membership.PLAYER) for user in made
        )
        crowd.campaign_ids.append(campaign.pk)
        crowd.user_ids += [user.pk for user in made]
        crowd.sessions.append([session_for(user) for user in made])
    return crowd


def crowd_delete(crowd):
    with transaction.atomic():
        Campaign.objects.filter(pk__in=crowd.campaign_ids).delete()
        get_user_model().objects.filter(pk__in=crowd.user_ids).delete()
    sessions_delete([key for keys in crowd.sessions for key in keys])


class Holders:
    """``count`` client processes (forked), each holding its share of ``targets`` open once
    told to (``open``), reading and dropping what the server sends, until told to close."""

    def __init__(self, targets, *, origin, count, core=None):
        connections.close_all()  # a forked child must not share the parent's connections
        context = multiprocessing.get_context("fork")
        self.pipes, self.processes = [], []
        for k in range(count):
            parent, child = context.Pipe()
            share = targets[k::count]
            process = context.Process(target=hold, args=(child, share, origin, core), daemon=True)
            process.start()
            self.pipes.append(parent)
            self.processes.append(process)

    def _all(self, command):
        for pipe in self.pipes:
            pipe.send(command)
        return [pipe.recv() for pipe in self.pipes]

    def open(self):
        """Open every socket; {opened, failed, first_error, seconds (the slowest holder's),
        client_cpu_s (the holders' CPU while opening)}."""
        replies = self._all("open")
        errors = [reply["first_error"] for reply in replies if reply["first_error"]]
        return {
            "opened": sum(reply["opened"] for reply in replies),
            "failed": sum(reply["failed"] for reply in replies),
            "first_error": errors[0] if errors else None,
            "seconds": max(reply["seconds"] for reply in replies),
            "client_cpu_s": round(sum(reply["cpu_s"] for reply in replies), 2),
        }

    def count(self):
        """{frames: read so far, closed: sockets the server closed, close_codes: {code: how
        many} (1006: the connection dropped without a close frame), lived_s: the closed ones'
        seconds open, p50 and max}."""
        replies = self._all("count")
        out = {key: sum(reply[key] for reply in replies) for key in ("frames", "closed")}
        codes = Counter()
        for reply in replies:
            codes.update(reply["close_codes"])
        out["close_codes"] = dict(sorted(codes.items()))
        lived = sorted(s for reply in replies for s in reply["lived_s"])
        out["lived_s"] = (
            {"p50": round(statistics.median(lived), 1), "max": round(lived[-1], 1)}
            if lived
            else None
        )
        return out

    def close(self):
        try:
            return self._all("close")
        finally:
            for process in self.processes:
                process.join(timeout=30)
                if process.is_alive():
                    process.kill()


def hold(pipe, targets, origin, core):
    if core is not None:
        os.sched_setaffinity(0, {core})
    asyncio.run(_hold(pipe, targets, origin))


async def page_socket(url, cookie, origin, open_timeout=OPEN_TIMEOUT):
    """A room socket opened as a page opens it: its member's cookie, no compression; as a
    browser's, it answers the server's pings and sends none of its own."""
    return await connect(
        url,
        origin=origin,
        additional_headers={"Cookie": cookie},
        compression=None,
        proxy=None,
        max_size=None,
        ping_interval=None,
        open_timeout=open_timeout,
    )


async def _hold(pipe, targets, origin):
    gate = asyncio.Semaphore(PARALLEL)
    frames, closed, sockets, readers = 0, 0, [], []
    codes, lived, opened_at = Counter(), [], {}

    async def one(url, cookie):
        async with gate:
            websocket = await page_socket(url, cookie, origin)
        opened_at[websocket] = time.monotonic()
        # Read it from its opening, as a page does. Left unread until all had opened, a socket
        # stopped reading at websockets' max_queue (16 frames: its room's presence lists as
        # the others joined), and so stopped answering daphne's pings too: daphne dropped it
        # 30 s after an unanswered ping (--ping-timeout), and at 10,000 sockets the opening
        # never finished (bench/README.md, "What closed the sockets").
        readers.append(asyncio.create_task(read(websocket)))
        return websocket

    async def read(websocket):
        nonlocal frames, closed
        try:
            async for _ in websocket:
                frames += 1
        except ConnectionClosed:
            pass
        closed += 1
        # The code the server's close frame gave, or 1006 when the connection dropped without
        # one (the server aborted it: its ping unanswered; or it died).
        codes[int(websocket.close_code)] += 1
        lived.append(time.monotonic() - opened_at[websocket])

    while True:
        command = await asyncio.to_thread(pipe.recv)
        if command == "open":
            started, cpu = time.monotonic(), procs.cpu_seconds(os.getpid())
            results = await asyncio.gather(*(one(*t) for t in targets), return_exceptions=True)
            sockets = [r for r in results if not isinstance(r, BaseException)]
            errors = [r for r in results if isinstance(r, BaseException)]
            pipe.send(
                {
                    "opened": len(sockets),
                    "failed": len(errors),
                    "first_error": f"{type(errors[0]).__name__}: {errors[0]}" if errors else None,
                    "seconds": time.monotonic() - started,
                    "cpu_s": procs.cpu_seconds(os.getpid()) - cpu,
                }
            )
        elif command == "count":
            pipe.send({"frames": frames, "closed": closed, "close_codes": codes, "lived_s": lived})
        else:
            await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
            await asyncio.gather(*readers, return_exceptions=True)
            pipe.send({"frames": frames})
            return
