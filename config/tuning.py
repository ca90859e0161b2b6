"""How the server process runs Django and Python, tuned for many small requests and pushes on
few cores. ``config/asgi.py`` opts into it; importing this module changes nothing.

- ``get_asgi_application()``: Django's function of that name, returning ``SyncChainHandler``.
- ``SyncChainHandler``: Django's ASGI handler with the middleware chain and the view run as
  under WSGI, in one call into a thread; on SQLite every request in the same thread,
  otherwise a thread each, kept for later requests.
- ``tune_process()``: a short GIL switch interval, and ``gc.freeze()`` of what startup loaded.

``SyncChainHandler`` overrides or calls parts of Django's ``ASGIHandler`` that are not public
API: ``__call__`` (which wraps ``handle`` in asgiref's ``ThreadSensitiveContext``),
``handle(scope, receive, send)`` (a copy of Django's, with its three calls into a thread made
one), ``read_body``, ``create_request``, ``listen_for_disconnect``, ``send_response``,
``chunk_size``, ``load_middleware(is_async=...)`` (called by ``__init__``) and
``BaseHandler.get_response(request)``. The single request thread is asgiref's thread for
thread-sensitive calls made outside any ``ThreadSensitiveContext``, which Channels'
``database_sync_to_async`` also uses, so that the room's consumers share that thread's SQLite
connection. The kept threads are each an executor given to asgiref's ``ThreadSensitiveContext``
(its ``executor`` argument, documented in asgiref 3.13: the caller owns the executor, which
the context does not shut down). ``CHECKED_WITH`` names the Django, Channels and asgiref
versions this was read against; ``tests/config/test_tuning.py`` fails when an upgrade changes
any of it.
"""

import asyncio
import gc
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import django
from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.http import FileResponse
from django.urls import set_script_prefix

#: The (major, minor) versions whose ASGIHandler, database_sync_to_async and
#: ThreadSensitiveContext this module was checked against.
CHECKED_WITH = {"Django": (5, 2), "Channels": (4, 3), "asgiref": (3, 13)}

#: Seconds a thread may hold the GIL while another waits for it (Python's default: 0.005).
SWITCH_INTERVAL = 0.0005


class SyncChainHandler(ASGIHandler):
    """Django's ASGI handler, with its middleware and views run as under WSGI: Django's
    ``request_started``, the whole chain and the response's ``close()`` in one call into a
    thread. (Django's own handler runs the chain as async code, and each synchronous middleware
    method and view then makes a trip into a thread and back; the signal and the close make
    one each.)

    ``one_thread``: every request's call goes to the same thread, one request after another,
    instead of a new thread per request. That thread then keeps its SQLite connection, and
    requests no longer contend for the GIL and the SQLite write lock: SQLite writes one at a
    time anyway, and on one core concurrent requests only slow each other down.

    Otherwise (PostgreSQL) requests run side by side, a thread each, so that their database
    round trips overlap; a thread is taken from those a finished request left idle, or started
    when none is, and up to ``threads_kept`` idle threads wait for the next request (the
    others end). Django's own ``__call__`` has asgiref start a thread for every request and
    then a second one to wait for the first to end; kept threads save both, and each keeps its
    database wrapper, though a request still hands its connection back to the pool when it
    finishes (``request_finished`` runs in the thread the request ran in)."""

    def __init__(self, *, one_thread, threads_kept=0):
        self.one_thread = one_thread
        self.threads_kept = threads_kept
        self.idle = []  # executors of one thread each, waiting for a request
        self.pid = os.getpid()  # whose threads they are: a forked child has none of them
        super().__init__()

    def load_middleware(self, is_async=False):
        super().load_middleware(is_async=False)

    async def handle(self, scope, receive, send):
        """Django's ``handle()``, with what it does in threads done in one call into the
        request's thread (``serve``) instead of three: ``request_started`` before the chain
        and, for a response held in memory, ``response.close()`` (``request_finished``) after
        it, before the response is sent. A streaming response is closed after it is sent, as
        Django does. The rest is Django's: the body read first, a disconnect while the view
        runs cancels the sending, ``request_finished`` then, the body file closed last."""
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        set_script_prefix(get_script_prefix(scope))

        closed = []  # serve() appends the response it closed

        async def process_request():
            serve = sync_to_async(self.serve, thread_sensitive=True)
            response = await serve(scope, body_file, closed)
            try:
                await self.send_response(response, send)
            except asyncio.CancelledError:
                pass  # the client disconnected while the response was sent
            except Exception:
                # A streaming body that failed midway (its database gone, say) is closed all
                # the same, its request_finished handing the connection back; then the error
                # goes on, as in Django.
                if response.streaming:
                    await sync_to_async(response.close)()
                raise
            return response

        tasks = [
            asyncio.create_task(self.listen_for_disconnect(receive)),
            asyncio.create_task(process_request()),
        ]
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in tasks:
            if task.done():
                try:
                    task.result()
                except RequestAborted:
                    pass
                except AssertionError:
                    body_file.close()
                    raise
            else:
                task.cancel()
                try:
                    await task
                except asyncio.CancelledError:
                    pass
        try:
            response = tasks[1].result()
        except asyncio.CancelledError:
            # Django's request_finished, unless serve() (which runs on in the request's thread,
            # where this call waits behind it) sent it in closing the response.
            await sync_to_async(self.finish, thread_sensitive=True)(closed)
        else:
            if response.streaming:
                await sync_to_async(response.close)()
        body_file.close()

    def serve(self, scope, body_file, closed):
        """The response to the request in ``scope``, in the request's thread: Django's
        ``request_started``, the request built, the middleware chain and the view, and the
        response closed (and appended to ``closed``) unless it streams."""
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            response = self.get_response(request)
            response._handler_class = self.__class__
            if isinstance(response, FileResponse):
                response.block_size = self.chunk_size
        if not response.streaming:
            response.close()
            closed.append(response)
        return response

    def finish(self, closed):
        """Django's ``request_finished`` for a request whose sending was cancelled, unless its
        response was closed (which sent it)."""
        if not closed:
            signals.request_finished.send(sender=self.__class__)

    async def __call__(self, scope, receive, send):
        if self.one_thread:
            # Django's __call__ without its per-request ThreadSensitiveContext: thread-sensitive
            # calls then all go to asgiref's one shared thread. (Channels' ProtocolTypeRouter
            # sends only HTTP here, which Django's __call__ checks.)
            await self.handle(scope, receive, send)
            return
        # Django's __call__ with an idle thread's executor for its ThreadSensitiveContext. Its
        # thread may still be busy with a request cancelled before it finished: this one then
        # waits for it, in the same thread, as its connection requires.
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        if self.pid != os.getpid():  # forked (a test's live server): the threads stayed behind
            self.idle, self.pid = [], os.getpid()
        executor = self.idle.pop() if self.idle else ThreadPoolExecutor(1, "request")
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
        finally:
            if len(self.idle) < self.threads_kept:
                self.idle.append(executor)
            else:
                executor.shutdown(wait=False)


def get_asgi_application():
    """``django.core.asgi.get_asgi_application()`` with ``SyncChainHandler``: Django set up,
    requests in one thread when the settings ask for it (``REQUESTS_IN_ONE_THREAD``, on
    SQLite), otherwise up to ``REQUEST_THREADS_KEPT`` idle request threads kept."""
    django.setup(set_prefix=False)
    return SyncChainHandler(
        one_thread=settings.REQUESTS_IN_ONE_THREAD, threads_kept=settings.REQUEST_THREADS_KEPT
    )


def tune_process():
    """Tune the interpreter of a server process, once everything it serves with is loaded.

    - The GIL switch interval: request threads release the GIL for every database and socket
      call and then wait for it; with Python's 5 ms interval a busy thread makes each such
      wait up to 5 ms.
    - ``gc.freeze()``: what was loaded so far lives as long as the process; frozen, it stays
      out of the garbage collector's full collections, which otherwise scan it all and stall
      every request for tens of milliseconds.

    Does nothing inside a pytest run (pytest sets ``PYTEST_VERSION`` in the environment, which
    the servers its tests start inherit): tests import the application and keep Python's
    defaults. Returns whether it tuned."""
    if "PYTEST_VERSION" in os.environ:
        return False
    sys.setswitchinterval(SWITCH_INTERVAL)
    gc.freeze()
    return True
