"""A restart that loses nothing. On SIGTERM a daphne process serving Rollroom drains: it says so
(``draining()``, which /healthz reads to answer 503, so a proxy stops sending to it), closes every
open socket with ``SERVICE_RESTART`` (the page reopens it at once, through a proxy on another
process, resuming with ``?after=`` as after any reconnect), refuses a socket that still arrives,
finishes the HTTP requests it holds, and then stops the reactor as twisted's own
SIGTERM handler does. Past ``GRACE`` seconds it stops all the same; once the reactor has
stopped the process exits at once, and ``DEADLINE`` seconds after the signal whatever still
runs: the process is gone within 10 s of the signal. The presence rows of its room sockets go
together, in one transaction, their rooms' lists once each (``room.consumers.depart``): one by
one, as each socket left, they took a process of 5,000 sockets past its grace.

The port stays open while draining (daphne has no documented way to close its listener): a
request that still arrives is answered, not refused, so nothing a proxy sent before it noticed
the 503 is lost. A process whose health a proxy checks (/healthz was asked) first waits, at
most ``PROXY_WAIT`` seconds, until it has answered the proxy 503, and only then closes its
sockets and stops: stopped sooner, the proxy would go on sending it requests until its next
check, and Debian's Caddy 2.6 answers 502 to a POST it retries after a refused connection
(caddyserver/caddy#5454), a roll lost; the pages' sockets, closed after that answer, reopen on
another process at once rather than on this one.

Why not only twisted's ``addSystemEventTrigger("before", "shutdown", ...)``: daphne registers its
own before-shutdown trigger (``Server.kill_all_applications``), and twisted calls every trigger of
the phase at once, without waiting for the Deferreds of the earlier ones, so the requests held
would be cancelled as our trigger began to wait for them. The drain therefore runs before the
reactor is told to stop: ``install`` puts our handler in place of twisted's for SIGTERM once the
reactor runs (twisted installs its own then), and the handler ends with ``reactor.stop()``.
"""

import asyncio
import contextvars
import logging
import os
import signal
import sys
import threading
import time

logger = logging.getLogger(__name__)

#: The close code of a socket whose process is restarting: WebSocket's 1012 (service restart) is
#: the meaning, but daphne passes an application's code to autobahn's ``sendClose``, which
#: refuses any code but 1000 and 3000-4999 (as for config.views.TRY_AGAIN_LATER): upstream
#: django/daphne#374 and crossbario/autobahn-python#1642. A close with 1012 raises in the
#: application's send instead of closing the socket. The ws extension reopens no socket closed
#: with a 4xxx code: static/js/site.js reopens this one at once.
SERVICE_RESTART = 4012

#: How long a drain waits for the requests and sockets it holds, in seconds, from the signal: a
#: request still running after it is cut when the reactor stops, so that the process exits
#: within 10 s.
GRACE = 8
#: How long a drain waits, at most, for the proxy that checks this process's health to ask it
#: again and hear 503 (deploy/Caddyfile asks every second), in seconds, within ``GRACE``.
PROXY_WAIT = 3
#: How long a drain waits, at most, for the presence lists of the rooms its sockets left (less
#: when it leaves the reactor's stop less than ``STOP_TIME`` before ``DEADLINE``).
PRESENCE_WAIT = 2
#: The reactor's stop, from the drain's end to the exit (daphne cancels what still runs), is
#: given this many seconds.
STOP_TIME = 1
#: This many seconds after the signal the process exits, whatever still runs (a cancelled
#: application that does not end, a thread that does not return): within the 10 s promised.
DEADLINE = 9.5

_state = {"draining": False, "watched": False}
#: Set once /healthz answered 503 while draining: the proxy sends no new request here.
_proxy_told = threading.Event()
#: The application instances (HTTP requests and sockets) running in this process.
_running = set()
#: The ``send`` of each socket accepted and not yet closed.
_open_sockets = set()
_idle = {}


def draining():
    """Whether this process is draining for a restart (SIGTERM received): /healthz answers 503."""
    return _state["draining"]


def health_answered(healthy):
    """/healthz answered (config/views.py), ``healthy`` or not: a proxy checks this process, and
    a drain waits for it to hear 503 (``PROXY_WAIT``)."""
    _state["watched"] = True
    if not healthy and draining():
        _proxy_told.set()


class Draining:
    """The outermost ASGI application: keeps count of the HTTP requests and sockets running, and
    of the sockets open, for the drain."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        if scope["type"] == "websocket" and draining():
            return await refuse_socket(receive, send)
        task = asyncio.current_task()
        _running.add(task)
        socket = {}

        async def tracked_send(message):
            if message["type"] == "websocket.accept":
                socket["send"] = send
                _open_sockets.add(send)
            elif message["type"] == "websocket.close":
                _open_sockets.discard(send)
            await send(message)

        try:
            return await self.app(
                scope, receive, tracked_send if scope["type"] == "websocket" else send
            )
        finally:
            _open_sockets.discard(socket.get("send"))
            _running.discard(task)
            if not _running and "event" in _idle:
                _idle["event"].set()


async def refuse_socket(receive, send):
    """A socket opened while draining: its handshake is refused (the page sees 1006 and tries
    again, through a proxy on another process). Not accepted and closed with ``SERVICE_RESTART``:
    the page would take that for a connection, fetch what a reconnect fetches, and come back at
    once, again and again until the process is gone."""
    message = await receive()
    if message["type"] == "websocket.connect":
        await send({"type": "websocket.close"})


async def drain():
    """Say the process is draining, close its sockets with ``SERVICE_RESTART``, and return once
    nothing runs any more or ``GRACE`` seconds have passed."""
    _state["draining"] = True
    _idle["event"] = idle = asyncio.Event()
    started = time.monotonic()
    if _state["watched"]:
        logger.info("Draining for a restart: waiting for the proxy to see it")
        if not await asyncio.to_thread(_proxy_told.wait, PROXY_WAIT):
            logger.warning("The proxy did not ask /healthz within %d s", PROXY_WAIT)
    logger.info(
        "Draining for a restart: closing %d sockets, %d requests and sockets running",
        len(_open_sockets),
        len(_running),
    )
    # (Imported here: this module is imported before Django is set up.)
    from room.consumers import depart, departed, presence_news

    # The room sockets' presence rows go in one transaction, their rooms' lists once each,
    # not one of each per socket closing (room.consumers.depart).
    members = depart()
    for send in list(_open_sockets):
        _open_sockets.discard(send)
        try:
            await send({"type": "websocket.close", "code": SERVICE_RESTART})
        except Exception as error:  # a socket that went meanwhile: nothing to close
            logger.debug("Socket already gone while draining: %s", error)
    try:
        await asyncio.wait_for(departed(members), max(0, GRACE - (time.monotonic() - started)))
    except Exception:  # the database away or slow: the rows go stale within PRESENCE_TTL
        logger.warning("The presence of %d sockets not removed", len(members), exc_info=True)
    if _running:
        try:
            await asyncio.wait_for(idle.wait(), max(0, GRACE - (time.monotonic() - started)))
        except TimeoutError:
            logger.warning("Drained for %d s, stopping with %d still running", GRACE, len(_running))
    # The rooms' presence lists go out before the process stops: without them the members on
    # other processes would go on seeing those who left listed until someone else came or went.
    wait = min(PRESENCE_WAIT, DEADLINE - STOP_TIME - (time.monotonic() - started))
    try:
        await asyncio.wait_for(presence_news.sent(), max(0, wait))
    except TimeoutError:
        logger.warning("The presence lists were not all sent within %.1f s", max(0, wait))
    logger.info("Drained in %.1f s, stopping", time.monotonic() - started)


def install():
    """Under daphne, drain on SIGTERM before the reactor stops. Elsewhere (a test importing the
    application, another server) nothing: importing twisted's reactor here would install the
    default one before daphne could install its asyncio reactor."""
    if "daphne.server" not in sys.modules:
        return
    from twisted.internet import reactor

    reactor.callWhenRunning(_take_sigterm, reactor)


def _take_sigterm(reactor):
    """Put the drain in place of twisted's SIGTERM handler, if twisted installed one: a server
    started without signal handlers keeps what it has (Channels' live test server; runserver's
    reactor, which runs in a thread beside Django's autoreloader, where no handler can be set)."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, signal.SIG_IGN, None):
        return

    def on_sigterm(number, frame):
        # A signal handler runs between two bytecodes of the main thread: hand over to the
        # reactor's loop (twisted's own handler does the same).
        reactor.callFromThread(_restart, reactor)

    signal.signal(signal.SIGTERM, on_sigterm)


def _restart(reactor):
    """The first SIGTERM drains, then stops the reactor; a second one stops it at once."""
    if draining():
        logger.warning("SIGTERM again while draining: stopping now")
        _stop(reactor)
        return
    logger.info("Received SIGTERM, draining before shutting down")
    _hold_to_deadline(reactor)
    # In a context of its own: this callback carries the context of whatever task the main
    # thread ran when the signal came (a request's, with asgiref's executor for its sync part,
    # gone by now), and the drain's database work, and the tasks it starts, would look for that
    # executor: "CurrentThreadExecutor already quit or is broken" (tests/deploy/test_restarts.py).
    task = asyncio.get_running_loop().create_task(drain(), context=contextvars.Context())
    task.add_done_callback(lambda _: _stop(reactor))


def _hold_to_deadline(reactor):
    """Once the reactor has stopped (daphne cancelled what still ran), the process exits at
    once; and ``DEADLINE`` seconds after the signal it exits whatever still runs. Left to
    Python's own exit, a process that held 5,000 sockets took another second or more past the
    reactor's stop (joining its threads, a sync view still running among them, and freeing
    the sockets' objects one by one), and nothing bounded it: the 10 s promised could pass
    (bench/README.md, "The drain at thousands of sockets")."""
    reactor.addSystemEventTrigger("after", "shutdown", _exit, 0)
    watchdog = threading.Timer(DEADLINE, _exit, args=(1,))
    watchdog.daemon = True
    watchdog.start()


def _exit(status):
    if status:
        logger.warning("Still running %s s after SIGTERM: exiting now", DEADLINE)
    logging.shutdown()  # the log written out
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def _stop(reactor):
    from twisted.internet.error import ReactorNotRunning

    try:
        reactor.stop()
    except ReactorNotRunning:  # stopped already (a second SIGTERM)
        pass
