"""The load generator's network side, on one asyncio loop: a keep-alive HTTP/1.1 client over
asyncio streams, and websocket clients whose frames are matched to the sends by a marker; both
over TLS for an https:// server (wss:// sockets)."""

import asyncio
import ssl
from collections import deque

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

#: Every measured payload carries ``bench#<index of the send>``; warm-ups carry none.
MARKER = "bench#"


def marker(text):
    """The send index marked in ``text``, or None."""
    at = text.find(MARKER)
    if at < 0:
        return None
    start = end = at + len(MARKER)
    while end < len(text) and text[end].isdigit():
        end += 1
    return int(text[start:end]) if end > start else None


def http_request(method, path, *, host, headers=(), body=b""):
    """The bytes of one HTTP/1.1 request (built once, before the run)."""
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", f"Content-Length: {len(body)}"]
    lines += [f"{name}: {value}" for name, value in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


class HttpPool:
    """Keep-alive connections to one server at ``host``:``port``; a request takes an idle one or
    opens one. With ``context`` (an SSLContext) over TLS, the certificate checked for
    ``server_hostname`` (the name in the URL, which may be mapped to another ``host``)."""

    def __init__(self, host, port, *, context=None, server_hostname=None):
        self.host, self.port = host, port
        self.tls = {"ssl": context, "server_hostname": server_hostname} if context else {}
        self.idle = deque()

    async def send(self, request):
        """Send prepared ``request`` bytes; returns (status, body)."""
        reused = bool(self.idle)
        conn = self.idle.pop() if reused else await self._open()
        try:
            status, body, keep = await self._exchange(conn, request)
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
            conn[1].close()
            if not reused:
                raise
            return await self.send(request)  # the server closed an idle connection: once more
        if keep:
            self.idle.append(conn)
        else:
            conn[1].close()
        return status, body

    async def _open(self):
        return await asyncio.open_connection(self.host, self.port, **self.tls)

    async def _exchange(self, conn, request):
        reader, writer = conn
        writer.write(request)
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        status = int(head[0].split()[1])
        headers = {}
        for line in head[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            body = await _read_chunked(reader)
        else:
            body = await reader.readexactly(int(headers.get("content-length", 0)))
        return status, body, headers.get("connection", "").lower() != "close"

    def close(self):
        while self.idle:
            self.idle.pop()[1].close()


async def _read_chunked(reader):
    parts = []
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
        if size == 0:
            await reader.readuntil(b"\r\n")
            return b"".join(parts)
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)


class Tracker:
    """Arrivals of one phase: a send is delivered when its payload reached every socket of its
    room; the time of that last arrival is kept. Frames without a marker, or that ``kind``
    (a substring) says are not the payload, only count as traffic (presence, warm-ups)."""

    def __init__(self, rooms_of_sends, sockets_per_room, kind=""):
        self.kind = kind
        self.room_of = rooms_of_sends
        self.need = sockets_per_room
        self.count = [0] * len(rooms_of_sends)
        self.done_at = [None] * len(rooms_of_sends)
        self.remaining = len(rooms_of_sends)
        self.duplicated = 0
        self.misrouted = 0
        self.sizes = []
        self.last_frame = 0.0
        self.all_done = asyncio.Event()
        if not self.remaining:
            self.all_done.set()

    def frame(self, room, seen, text, now):
        self.last_frame = now
        index = marker(text)
        if index is None or self.kind not in text:
            return
        if index >= len(self.room_of) or self.room_of[index] != room:
            self.misrouted += 1
            return
        if index in seen:
            self.duplicated += 1
            return
        seen.add(index)
        self.sizes.append(len(text.encode()))
        self.count[index] += 1
        if self.count[index] == self.need:
            self.done_at[index] = now
            self.remaining -= 1
            if not self.remaining:
                self.all_done.set()


class Socket:
    """One websocket client of a room; its frames go to the tracker of the running phase."""

    def __init__(self, room, websocket, tracker):
        self.room, self.ws, self.tracker = room, websocket, tracker
        self.task = asyncio.create_task(self._listen())

    async def _listen(self):
        loop = asyncio.get_running_loop()
        seen = set()
        try:
            async for text in self.ws:
                self.tracker.frame(self.room, seen, text, loop.time())
        except ConnectionClosed:
            pass

    async def close(self):
        await self.ws.close()
        await self.task


async def open_socket(url, room, tracker, *, origin, cookie=None, address=None, context=None):
    """A client.Socket of ``room`` on ``url`` (ws:// or wss://, then verified with the
    SSLContext ``context``), connected to ``address`` when given (the URL's name stays the Host
    and the TLS server name)."""
    headers = {"Cookie": cookie} if cookie else None
    where = {"host": address} if address else {}
    if context is not None:
        where["ssl"] = context
    websocket = await connect(
        url,
        origin=origin,
        additional_headers=headers,
        compression=None,
        proxy=None,
        max_size=None,
        open_timeout=30,
        **where,
    )
    return Socket(room, websocket, tracker)
