"""The five phases of one benchmark run, one after the other with the same sends (room and
member of each), rate, duration and sockets: the app, then its four floors with the payload
size of the app's pushed fragments."""

import asyncio
from dataclasses import dataclass
from urllib.parse import urlencode

from django.conf import settings
from django.urls import reverse
from django.utils.crypto import get_random_string

from . import server as procs
from .client import MARKER, HttpPool, http_request, open_socket
from .floors import django_floor_html
from .phases import Phase, run

#: Payload size of the floors when the app phase delivered nothing to measure.
DEFAULT_PAYLOAD = 1500
#: Between phases the server's CPU use must drop under this share of a core (checked over
#: QUIET_WINDOW seconds, for at most QUIET_LIMIT): the closed sockets' and late work is done.
QUIET_SHARE = 0.05
QUIET_WINDOW = 0.25
QUIET_LIMIT = 30.0
FLOOR_WS_PATH = "/ws/bench/floor/{}/"
#: In a pushed log entry (templates/rolls/_log_entry.html), and not in a check's fragment.
LOG_ENTRY = 'id="entry-'
#: In the Django floor's push (bench/templates/bench/_floor_push.html), and in no push of the app.
DJANGO_FLOOR_PUSH = 'id="bench-floor"'


@dataclass
class Server:
    """Where the clients talk to: ``scheme``://``host``:``port`` (the name in the Host and
    Origin headers and, over https, the TLS server name), reached at ``address`` when given
    (a name mapped to 127.0.0.1), over TLS verified with ``ssl`` (an SSLContext) for https.
    ``pid``: the local app process serving it, whose CPU is measured (None: unknown, or a
    proxy in front)."""

    host: str
    port: int
    pid: int | None = None
    scheme: str = "http"
    address: str | None = None
    ssl: object = None

    @property
    def origin(self):
        return f"{self.scheme}://{self.host}:{self.port}"

    @property
    def netloc(self):
        return f"{self.host}:{self.port}"

    def socket_url(self, path):
        return f"{'wss' if self.scheme == 'https' else 'ws'}://{self.netloc}{path}"

    def http_pool(self):
        return HttpPool(
            self.address or self.host, self.port, context=self.ssl, server_hostname=self.host
        )


class Servers(list):
    """The servers of a phase; a room's members talk to them round robin (member k of room r
    to server (r * clients + k) mod N), so that with N <= clients every room has sockets on
    every server and each push crosses the channel layer to all of them. ``pids``: the app's
    processes whose CPU and memory are measured (default: the servers' own; behind a proxy
    the processes behind it). ``meters``: what else is measured beside them
    (bench/meters.py)."""

    def __init__(self, servers, clients, meters=(), pids=None):
        super().__init__(servers)
        self.clients = clients
        self.meters = list(meters)
        self.pids = [s.pid for s in servers] if pids is None else list(pids)

    def of(self, room, member):
        return (room * self.clients + member) % len(self)

    def cpu(self):
        return self._total(procs.cpu_seconds)

    def rss(self):
        return self._total(procs.peak_rss_mb)

    def cpu_each(self):
        """CPU seconds so far of each app process (None: unknown)."""
        return [procs.cpu_seconds(pid) if pid else None for pid in self.pids]

    def _total(self, measure):
        """The sum over the app's processes; None when one is unknown (a partial sum would
        pass for the whole)."""
        if not self.pids or None in self.pids:
            return None
        values = [measure(pid) for pid in self.pids]
        return None if None in values else round(sum(values), 3)


async def idle(servers):
    """Wait until the servers are (nearly) idle, so that a phase does not pay for the last."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + QUIET_LIMIT
    while loop.time() < deadline:
        before = servers.cpu()
        await asyncio.sleep(QUIET_WINDOW)
        after = servers.cpu()
        if before is None or after is None or after - before < QUIET_SHARE * QUIET_WINDOW:
            return


def payload(index, size):
    head = f"{MARKER}{index} " if index is not None else "warm-up "
    return head + "x" * max(0, size - len(head))


def _http(servers, requests, warm, expect):
    """fire, warm_up and close for sends that are HTTP requests [(server index, bytes)]."""
    pools = [s.http_pool() for s in servers]

    async def send(server, request):
        status, body = await pools[server].send(request)
        return None if status == expect else f"HTTP {status}: {body[:300]!r}"

    async def fire(index, sockets):
        return await send(*requests[index])

    async def warm_up(sockets):
        errors = [e for e in await asyncio.gather(*(send(*r) for r in warm)) if e]
        if errors:
            raise RuntimeError(f"warm-up refused: {errors[0]}")

    def close():
        for pool in pools:
            pool.close()

    return fire, warm_up, close


def _sockets(servers, path, cookie=None):
    async def open_one(room, member, tracker):
        s = servers[servers.of(room, member)]
        header = cookie(room, member) if cookie else None
        return await open_socket(
            s.socket_url(path(room)),
            room,
            tracker,
            origin=s.origin,
            cookie=header,
            address=s.address,
            context=s.ssl,
        )

    return open_one


def app_phase(table, servers, *, sends, warmups):
    """Each player's socket on its room; each send POSTs the roll of its open check."""
    csrf = get_random_string(32)

    def roll(room, member, check_id):
        index = servers.of(room, member)
        player = table.rooms[room].players[member]
        kwargs = {"campaign_id": table.rooms[room].campaign_id, "check_id": check_id}
        body = urlencode({"attribute": player.attribute_id, "skill": player.skill_id}).encode()
        headers = member_headers(servers, index, player.session_key, csrf)
        path = reverse("check_roll", kwargs=kwargs)
        return index, http_request(
            "POST", path, host=servers[index].netloc, headers=headers, body=body
        )

    requests = [roll(r, m, c) for (r, m), c in zip(sends, table.checks, strict=True)]
    warm = [roll(r, m, c) for (r, m), c in zip(warmups, table.warmup_checks, strict=True)]
    fire, warm_up, close = _http(servers, requests, warm, 204)  # the card comes on the socket

    def path(room):
        return f"/ws/campaigns/{table.rooms[room].campaign_id}/?after=0"

    def cookie(room, member):
        return f"{settings.SESSION_COOKIE_NAME}={table.rooms[room].players[member].session_key}"

    open_one = _sockets(servers, path, cookie)
    return Phase("app", open_one, fire, warm_up, servers, close, kind=LOG_ENTRY)


def member_headers(servers, index, session_key, csrf):
    """What a logged-in member's htmx POST to server ``index`` carries: the session's and the
    CSRF token's cookies, the token in its header, the page's Origin."""
    cookies = f"{settings.SESSION_COOKIE_NAME}={session_key}; {settings.CSRF_COOKIE_NAME}={csrf}"
    return [
        ("Cookie", cookies),
        ("X-CSRFToken", csrf),
        ("Origin", servers[index].origin),
        ("HX-Request", "true"),
        ("Content-Type", "application/x-www-form-urlencoded"),
    ]


def django_floor_phase(table, servers, *, sends, size):
    """The Django floor (``bench.floors.django_floor_post``): each send POSTs the payload as a
    logged-in member of the room, as the app's roll is posted, and the view pushes it to the
    room. The sockets are the room's own (``RoomConsumer``, the app's players, as in the app's
    phase), so that the floor's sockets cost what the app's do and the ratio of the two phases
    is the request's work beyond the stack's. They open at the log's end (no ``?after=``): the
    app's phase's entries are not replayed."""
    csrf = get_random_string(32)

    def post(room, member, index):
        s = servers.of(room, member)
        player = table.rooms[room].players[member]
        headers = member_headers(servers, s, player.session_key, csrf)
        # The push is as long as the app's: the note is what the template's words leave.
        around = len(django_floor_html(table.names(room, member), "").encode())
        body = urlencode({"note": payload(index, size - around)}).encode()
        path = reverse(
            "bench_floor_django",
            urlconf="bench.urls",
            kwargs={"campaign_id": table.rooms[room].campaign_id},
        )
        return s, http_request("POST", path, host=servers[s].netloc, headers=headers, body=body)

    requests = [post(r, m, i) for i, (r, m) in enumerate(sends)]
    warm = [post(r, r % len(table.rooms[r].players), None) for r in sorted({r for r, _ in sends})]
    fire, warm_up, close = _http(servers, requests, warm, 204)

    def path(room):
        return f"/ws/campaigns/{table.rooms[room].campaign_id}/"

    def cookie(room, member):
        return f"{settings.SESSION_COOKIE_NAME}={table.rooms[room].players[member].session_key}"

    open_one = _sockets(servers, path, cookie)
    return Phase("floor_django", open_one, fire, warm_up, servers, close, kind=DJANGO_FLOOR_PUSH)


def http_floor_phase(servers, *, sends, size):
    """The bare view: each send POSTs the payload, the view group-sends it to the room."""

    def post(room, member, index):
        s = servers.of(room, member)
        headers = [("Content-Type", "text/plain"), ("Origin", servers[s].origin)]
        body = payload(index, size).encode()
        path = f"/bench/floor/{room}/"
        return s, http_request("POST", path, host=servers[s].netloc, headers=headers, body=body)

    requests = [post(r, m, i) for i, (r, m) in enumerate(sends)]
    warm = [post(r, 0, None) for r in sorted({r for r, _ in sends})]
    fire, warm_up, close = _http(servers, requests, warm, 204)
    open_one = _sockets(servers, FLOOR_WS_PATH.format)
    return Phase("floor_http", open_one, fire, warm_up, servers, close)


def socket_floor_phase(name, servers, *, sends, size, path):
    """A floor where the sending member's own socket sends and the server broadcasts."""
    texts = [payload(i, size) for i in range(len(sends))]

    async def fire(index, sockets):
        room, member = sends[index]
        await sockets[room][member].ws.send(texts[index])

    async def warm_up(sockets):
        await asyncio.gather(*(row[0].ws.send(payload(None, size)) for row in sockets))

    return Phase(name, _sockets(servers, path), fire, warm_up, servers)


async def run_all(
    table,
    servers,
    *,
    sends,
    warmups,
    rooms,
    clients,
    rate,
    grace,
    floors,
    raw_floor,
    meters=(),
    pids=None,
    settle=False,
):
    """Run the app and, when ``floors``, the floors; returns {phase name: summary}.
    ``raw_floor()`` starts the plain websockets server and returns (Server, stop); ``meters``:
    the CPU measured beside the servers' (bench/meters.py); ``pids``: the app's processes
    (default: the servers'); ``settle``: first wait until the servers are idle (a run after
    another)."""
    servers = Servers(servers, clients, meters, pids)
    common = {"sends": sends, "rooms": rooms, "clients": clients, "rate": rate, "grace": grace}
    if settle:
        await idle(servers)
    results = {"app": await run(app_phase(table, servers, sends=sends, warmups=warmups), **common)}
    if not floors:
        return results
    size = round(results["app"]["payload_bytes"] or DEFAULT_PAYLOAD)
    await idle(servers)
    django = django_floor_phase(table, servers, sends=sends, size=size)
    results["floor_django"] = await run(django, **common)
    await idle(servers)
    results["floor_http"] = await run(http_floor_phase(servers, sends=sends, size=size), **common)
    await idle(servers)
    channels = socket_floor_phase(
        "floor_channels", servers, sends=sends, size=size, path=FLOOR_WS_PATH.format
    )
    results["floor_channels"] = await run(channels, **common)
    raw, stop = raw_floor()
    try:
        phase = socket_floor_phase(
            "floor_websockets",
            Servers([raw], clients),
            sends=sends,
            size=size,
            path="/{}".format,
        )
        results["floor_websockets"] = await run(phase, **common)
    finally:
        stop()
    return results
