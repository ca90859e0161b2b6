"""One client process of ``bench_storm``: room sockets that behave as the room's page does,
run as ``python -m bench.storm_client`` (no Django), driven over its stdin and stdout, one JSON
object a line.

Each socket reopens as static/js/site.js reopens a page's socket: after a close with code 1006,
1011, 1012, 1013, 4503 or 4012 (a refused or failed connection counts as 1006, as in a
browser), the first try within 250 ms x (0.5 + random / 2), each next one waiting twice as long,
at most 2.5 s for the first eight tries in a row and 10 s after (4503: 1 s doubling to 10 s,
counted from the first 4503 in a row; a turn, 4600 + s: within the s-th second), the count of
tries reset when one opens; a socket counts as open once it received its first frame or stayed
open 1 s (one accepted and closed at once with its turn, config/admission.py, does not). It
asks for ``?after=<the highest number shown>`` and keeps its entries as static/js/room.js keeps
the log:
an entry already shown is dropped (a duplicate), an entry whose number leaves a gap after the
last shown is dropped and the socket reopened at once from the last shown (once per gap).

In: ``{"sockets": [[room, url, cookie, origin, watched], ...]}`` (the url without its query),
then ``{"restart": T0, "heads": {room: seq}}`` (T0: time.monotonic() when the restarted
process listened; heads: the rooms' last numbers then) and ``{"final": {room: seq}, "wait": s}``.
Out: ``{"opened": n, "seconds": s}`` once every socket is open, ``{"caught": n}`` once every
watched socket is caught up after the restart, then the result (``report``) and exit.
"""

import asyncio
import itertools
import json
import random
import re
import resource
import sys
import time

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

#: static/js/room.js's ENTRY: an entry's id, its number, and whether it is a whisper.
ENTRY = re.compile(r'<article id="([^"]+)"[^>]* data-seq="(\d+)"([^>]* data-whisper)?')
#: static/js/site.js's REOPENED, TRY_AGAIN_LATER, TRY_AGAIN_IN and LATEST (a turn,
#: config/admission.py), its waits (ms: first, most; the most after SWIFT tries in a row) and
#: SETTLED (in seconds here).
REOPENED = (1006, 1011, 1012, 1013, 4503, 4012)
TRY_AGAIN_LATER = 4503
TRY_AGAIN_IN = 4600
LATEST = 300
WAITS = {TRY_AGAIN_LATER: (1000, 10000)}
RESTART_WAITS = (250, 2500)
SWIFT = 8
SLOW_MOST = 10000
SETTLED = 1.0
#: Initial connections opened at once by one process.
PARALLEL = 50


def wait_after(code, retries, rng=random):
    """Seconds before the next try after a close with ``code``, the ``retries``-th in a row
    (static/js/site.js: for 4503, the ``retries``-th 4503 in a row; for a turn, within its
    second)."""
    if TRY_AGAIN_IN < code <= TRY_AGAIN_IN + LATEST:
        return code - TRY_AGAIN_IN - 1 + rng.random()
    first, most = WAITS.get(code, RESTART_WAITS)
    if retries >= SWIFT:
        most = SLOW_MOST
    return min(most, first * 2**retries) * (0.5 + rng.random() / 2) / 1000


class Page:
    """One member's room page: its socket, reopened as the page does, and the numbers shown."""

    def __init__(self, run, index, room, url, cookie, origin, watched):
        self.run, self.index, self.room = run, index, room
        self.url, self.cookie, self.origin, self.watched = url, cookie, origin, watched
        self.shown = []  # the numbers of the entries shown, in the order shown
        self.ids = set()
        self.duplicated = 0
        self.frames = 0  # every frame received: entries, presence lists, cards
        self.gaps = 0
        self.resynced_after = None
        self.retries = 0
        self.later = 0  # of the retries, the last ones in a row closed with 4503
        self.tries = 0  # connection attempts after the restart's close
        self.codes = {}  # close codes seen (a failed attempt: 1006)
        self.ws = None
        self.closed_at = None  # the first close after the sockets were all open
        self.reopened_at = None  # the first open after that close
        self.shown_at = {}  # number -> when shown, after that close
        self.caught_at = None
        self.opened = asyncio.Event()
        self.task = None
        self.connected_at = None  # the last open, until it settles (``settled``)

    def last(self):
        return max(self.shown, default=0)

    def query_url(self):
        return f"{self.url}?after={self.last()}"

    async def live(self):
        """Open, listen, and reopen as the page does, until cancelled."""
        wait = 0.0
        while True:
            if wait:
                await asyncio.sleep(wait)
            if self.closed_at is not None:
                self.tries += 1
            try:
                self.ws = await connect(
                    self.query_url(),
                    origin=self.origin,
                    additional_headers={"Cookie": self.cookie},
                    compression=None,
                    proxy=None,
                    max_size=None,
                    ping_interval=None,  # a browser sends no pings
                    open_timeout=30,
                )
            except Exception:  # refused, reset, or refused at the handshake: 1006 in a browser
                wait = self.closed(1006)
                continue
            self.connected_at = time.monotonic()
            timer = asyncio.get_running_loop().call_later(SETTLED, self.settled)
            code = await self.listen()
            timer.cancel()
            self.connected_at = None  # closed before it settled: a refusal, not an open
            wait = 0.0 if code is None else self.closed(code)

    def settled(self):
        """The socket is open as the page counts it (its first frame, or SETTLED s open)."""
        if self.connected_at is None:
            return
        now, self.connected_at = self.connected_at, None
        self.retries = self.later = 0
        if self.closed_at is not None and self.reopened_at is None:
            self.reopened_at = now
            self.run.check(self)
        self.opened.set()

    def closed(self, code):
        """A close with ``code``: the seconds until the next try (the page's policy)."""
        self.codes[code] = self.codes.get(code, 0) + 1
        if self.closed_at is None and self.run.all_open:
            self.closed_at = time.monotonic()
        if code not in REOPENED and not TRY_AGAIN_IN < code <= TRY_AGAIN_IN + LATEST:
            raise RuntimeError(f"socket closed with {code}: a page would stay closed")
        self.later = self.later + 1 if code == TRY_AGAIN_LATER else 0
        wait = wait_after(code, self.later - 1 if code == TRY_AGAIN_LATER else self.retries)
        self.retries += 1
        return wait

    async def listen(self):
        """Frames until the socket closes: its code, or None after a reopen for a gap."""
        try:
            async for text in self.ws:
                self.settled()
                self.frames += 1
                if not self.frame(text):
                    await self.ws.close()
                    return None
        except ConnectionClosed:
            pass
        return self.ws.close_code or 1006  # 1006: closed without a close frame

    def frame(self, text):
        """Take a frame as static/js/room.js does; False: reopen now for a gap."""
        match = ENTRY.search(text) if 'data-seq="' in text else None
        if match is None:
            return True
        anchor, seq, whisper = match.group(1), int(match.group(2)), match.group(3)
        if anchor in self.ids:
            self.duplicated += 1
            return True
        last = self.last()
        before = seq if whisper else seq - 1
        if before > last and self.resynced_after != last:
            self.gaps += 1
            self.resynced_after = last
            return False
        self.ids.add(anchor)
        self.shown.append(seq)
        if self.closed_at is not None:
            self.shown_at[seq] = time.monotonic()
            self.run.check(self)
        return True


class Run:
    def __init__(self, sockets):
        self.pages = [Page(self, i, *spec) for i, spec in enumerate(sockets)]
        self.all_open = False
        self.heads = None
        self.waiting = 0
        self.all_caught = asyncio.Event()

    def check(self, page):
        """Mark ``page`` caught up once it is open again after the restart and shows every
        entry logged up to it: the time it reopened or showed the room's head then, the later."""
        if self.heads is None or page.caught_at is not None or not page.watched:
            return
        if page.reopened_at is None or page.last() < self.heads[page.room]:
            return
        shown = page.shown_at.get(self.heads[page.room], 0.0)
        page.caught_at = max(page.reopened_at, shown)
        self.waiting -= 1
        if not self.waiting:
            self.all_caught.set()

    def restart(self, t0, heads):
        self.t0, self.heads = t0, {int(room): seq for room, seq in heads.items()}
        watched = [page for page in self.pages if page.watched]
        self.waiting = len(watched)
        if not self.waiting:
            self.all_caught.set()
        for page in watched:
            self.check(page)

    async def final(self, heads, wait):
        """Wait until every page shows its room's last entry (or ``wait`` seconds)."""
        heads = {int(room): seq for room, seq in heads.items()}
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if all(page.last() >= heads[page.room] for page in self.pages):
                break
            await asyncio.sleep(0.05)
        return heads

    def report(self, heads):
        lost = duplicated = out_of_order = not_caught = 0
        caught, tries, codes, gaps = [], [], {}, 0
        for page in self.pages:
            expected = range(1, heads[page.room] + 1)
            seen = set(page.shown)
            lost += sum(1 for seq in expected if seq not in seen)
            duplicated += page.duplicated + len(page.shown) - len(seen)
            out_of_order += sum(1 for a, b in itertools.pairwise(page.shown) if b <= a)
            gaps += page.gaps
            for code, count in page.codes.items():
                codes[str(code)] = codes.get(str(code), 0) + count
            if not page.watched:
                continue
            tries.append(page.tries)
            if page.caught_at is None:
                not_caught += 1
            else:
                caught.append(round(page.caught_at - self.t0, 4))
        return {
            "sockets": len(self.pages),
            "watched": sum(page.watched for page in self.pages),
            "caught_s": caught,
            "not_caught": not_caught,
            "tries": tries,
            "lost": lost,
            "duplicated": duplicated,
            "out_of_order": out_of_order,
            "gaps": gaps,
            "codes": codes,
            "frames": sum(page.frames for page in self.pages),
        }


def raise_file_limit():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


async def lines():
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**26)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while True:
        line = await reader.readline()
        if not line:
            return
        yield json.loads(line)


def say(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


async def main():
    raise_file_limit()
    commands = lines()
    run = Run((await anext(commands))["sockets"])
    started = time.monotonic()
    gate = asyncio.Semaphore(PARALLEL)

    async def first_open(page):
        async with gate:
            page.task = asyncio.create_task(page.live())
            opened = asyncio.create_task(page.opened.wait())
            await asyncio.wait([page.task, opened], return_when=asyncio.FIRST_COMPLETED)
            if page.task.done():
                opened.cancel()
                page.task.result()  # its error

    await asyncio.gather(*(first_open(page) for page in run.pages))
    run.all_open = True
    say({"opened": len(run.pages), "seconds": round(time.monotonic() - started, 3)})

    async def caught():
        await run.all_caught.wait()
        say({"caught": sum(page.watched for page in run.pages)})

    waiter = None
    async for command in commands:
        if "restart" in command:
            run.restart(command["restart"], command["heads"])
            waiter = asyncio.create_task(caught())
        elif "final" in command:
            heads = await run.final(command["final"], command["wait"])
            for page in run.pages:
                page.task.cancel()
            await asyncio.gather(*(p.task for p in run.pages), return_exceptions=True)
            failed = [p.task for p in run.pages if not p.task.cancelled() and p.task.exception()]
            result = run.report(heads)
            if failed:
                result["error"] = repr(failed[0].exception())
            if waiter is not None:
                waiter.cancel()
            say({"report": result})
            await asyncio.gather(
                *(p.ws.close() for p in run.pages if p.ws is not None), return_exceptions=True
            )
            return


if __name__ == "__main__":
    asyncio.run(main())
