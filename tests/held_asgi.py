"""config.asgi's application for a daphne process a test starts (``start_daphne(port,
app="tests.held_asgi:application")``, tests/faults.py), with one addition: an HTTP request sent
with the header ``X-Test-Hold: 1`` is held (its body not handed to Django) until the process
receives SIGUSR1, so that a test has a request in flight for as long as it needs one (with
``X-Test-Hold: thread``, held in a thread that never returns); so is a
websocket's connect (its consumer waits for it: the socket stays connecting). The process says
"Holding a request" on stderr (its log) when it holds one, "Holding socket <n>" for the n-th
socket."""

import asyncio
import itertools
import signal
import sys
import threading

from twisted.internet import reactor  # daphne installed its asyncio reactor before this ran

from config.asgi import application as site

released = asyncio.Event()


def release(number, frame):
    # A signal handler runs between two bytecodes of the main thread: the loop may be waiting
    # in select(), so wake it through the reactor.
    reactor.callFromThread(released.set)


signal.signal(signal.SIGUSR1, release)


held_sockets = itertools.count(1)


async def application(scope, receive, send):
    held = dict(scope.get("headers", ())).get(b"x-test-hold")
    if scope["type"] not in ("http", "websocket") or held not in (b"1", b"thread"):
        return await site(scope, receive, send)

    async def held_receive():
        await released.wait()
        return await receive()

    if (b"x-test-hold", b"thread") in scope["headers"]:
        # A request stuck in a thread (a sync view that does not return): never released.
        print("Holding a request in a thread", file=sys.stderr, flush=True)
        await asyncio.to_thread(threading.Event().wait)
    if scope["type"] == "http":
        print("Holding a request", file=sys.stderr, flush=True)
    else:
        print(f"Holding socket {next(held_sockets)}", file=sys.stderr, flush=True)
    return await site(scope, held_receive, send)
