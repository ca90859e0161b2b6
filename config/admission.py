"""A process takes on no more sockets at once than it can join before daphne gives up on them.

Each room socket's connect costs the process its session, its membership, the log's head, its
groups and its presence, one socket after another in Channels' one database thread; daphne
refuses a handshake its application has not accepted within ``--websocket_connect_timeout``
(5 s), but the consumer behind it goes on with its work until daphne cancels it. After a
restart every page of the process comes back at once: without a limit the process starts
thousands of connects, most of them too late, each refused page tries again and starts another,
and no socket is joined in time (bench/README.md, "The reconnect storm").

``Admission`` counts the sockets of this process still connecting (their ``websocket.connect``
received, neither an accept nor a close sent yet). Past ``settings.SOCKETS_CONNECTING`` it
answers a new one at once, before anything reads its session, the database or Redis: accepted,
then closed with a turn of its own, ``TRY_AGAIN_IN`` + the seconds until it (4601-4900), and
static/js/site.js comes back within that second. The turns are handed out one after another at
the rate the process joins sockets (as many as were connecting at once over how long each took,
lately), so that the pages of a restarted process come back spread over the seconds it needs
for them all.
A page told only "later" (4503, doubling waits with jitter) came back again and again, each try
a handshake more for the busy process: at 5,000 sockets, about seven refusals a socket, more of
the process's time than the connects themselves (bench/README.md, "Turns"). The turn is in
the close code because daphne sends no close reason (``ws_protocol.serverClose`` passes on the
code alone).

Not closed before the accept: daphne answers such a handshake with an HTTP 403
(``ws_protocol.serverReject``; tests/config/test_admission.py), which a browser reports as a
1006 without its status, after which the page tries again within 250 ms: thousands of pages
would come back at once, again and again. A page takes a socket closed so soon after its opening
for a refusal, not a connection: it neither fetches what a reconnect fetches nor forgets its
earlier tries (static/js/site.js); without that, every refusal would cost the site a
reconnect's fetches and the page would try again within a second, every time.
"""

import logging
import math
import time

from django.conf import settings

logger = logging.getLogger(__name__)

#: How often, at most, the process says how many sockets it turned away, in seconds.
SAY_EVERY = 10
#: A socket turned away is closed with ``TRY_AGAIN_IN + s``: come back in s seconds, 1 to
#: ``LATEST`` (static/js/site.js reads it so). Far enough for the turns of thousands of sockets
#: on a slow process: the pages past the latest turn all come back in its one second.
TRY_AGAIN_IN = 4600
LATEST = 300
#: A connect's time (handshake to accept) assumed until one is measured, in seconds.
FIRST_GUESS = 1.0


class Admission:
    """The websockets of the process, admitted while fewer than ``settings.SOCKETS_CONNECTING``
    are still connecting (0: all), else given a later turn at once. HTTP passes through."""

    def __init__(self, app):
        self.app = app
        #: Sockets admitted whose application has sent neither an accept nor a close yet.
        self.connecting = 0
        #: Sockets turned away since the process last said so, and when it did.
        self.turned_away = 0
        self.said_at = None
        #: A connect's recent time, from its handshake to its accept, and how many were
        #: connecting beside it (moving averages): the rate it joins sockets is their ratio.
        self.connect_time = FIRST_GUESS
        self.beside = float(settings.SOCKETS_CONNECTING or 1)
        #: When the last turn handed out falls (``time.monotonic()``).
        self.last_turn = 0.0

    async def __call__(self, scope, receive, send):
        if scope["type"] != "websocket":
            return await self.app(scope, receive, send)
        limit = settings.SOCKETS_CONNECTING
        if limit and self.connecting >= limit:
            return await self.turn_away(receive, send)
        self.connecting += 1
        counted = True
        arrived = time.monotonic()

        def count_out():
            nonlocal counted
            if counted:
                counted = False
                self.connecting -= 1

        async def answered(message):
            if message["type"] in ("websocket.accept", "websocket.close"):
                if counted and message["type"] == "websocket.accept":
                    took = time.monotonic() - arrived
                    self.connect_time += (took - self.connect_time) / 16
                    self.beside += (self.connecting - self.beside) / 16
                count_out()
            await send(message)

        try:
            return await self.app(scope, receive, answered)
        finally:
            # An application that failed, or was cancelled (daphne cancels one still running
            # 10 s after its client left), before it answered: without this the count would
            # only grow, and the process would end up turning every socket away.
            count_out()

    def rate(self):
        """Sockets the process joins a second, lately: as many as were connecting at once over
        how long each took. As many as are connecting now, when more: a process that was calm
        (one at a time) when a burst came would otherwise hand the burst's turns out at its calm
        rate, seconds apart, and sit idle while the pages wait for them."""
        return max(self.beside, self.connecting, 1) / max(self.connect_time, 0.001)

    def turn(self, now):
        """Seconds until the next free turn, which this socket takes: the turns follow each other
        at the rate the process joins sockets (the pages then come back as fast as it joins
        them, none of them twice)."""
        self.last_turn = max(self.last_turn, now) + 1 / self.rate()
        return min(LATEST, max(1, math.ceil(self.last_turn - now)))

    async def turn_away(self, receive, send):
        """Accept and close at once with the socket's turn: nothing is read or joined."""
        self.turned_away += 1
        now = time.monotonic()
        if self.said_at is None or now - self.said_at >= SAY_EVERY:
            logger.warning(
                "Too many sockets connecting (%d): %d given a later turn (%d-%d)",
                self.connecting,
                self.turned_away,
                TRY_AGAIN_IN + 1,
                TRY_AGAIN_IN + LATEST,
            )
            self.turned_away, self.said_at = 0, now
        message = await receive()
        if message["type"] == "websocket.connect":
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.close", "code": TRY_AGAIN_IN + self.turn(now)})
