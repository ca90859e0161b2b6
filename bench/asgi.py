"""The benchmark server's ASGI application: the app's (``config.routing.asgi_application``, which
config/asgi.py builds), with the Channels floor's websocket route beside the room's, so that a
socket of the benchmark passes through all that a socket of the app does (the drain's count, the
admission, the guard, the origin check, the session's user). Run with
``DJANGO_SETTINGS_MODULE=bench.settings``.

Unlike config/asgi.py it does not drain on SIGTERM (``config.shutdown.install``): SIGTERM stops
it at once (twisted's own handler), as the benchmark's commands expect when they are done with
it (bench/server.py's ``stop``: SIGTERM, then SIGKILL after 5 s). A drain would make each stop
wait: up to 3 s for a proxy's health check that no longer comes (``--through-caddy`` stops Caddy
first), and for any socket still open to be closed and leave its groups. ``bench_storm``, which
measures the drain, serves config/asgi.py's application."""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
# Set Django up before importing code that imports models.
django_asgi_app = get_asgi_application()

from bench.floors import websocket_urlpatterns as floor_urlpatterns
from config.routing import asgi_application, websocket_urlpatterns

application = asgi_application(django_asgi_app, [*websocket_urlpatterns, *floor_urlpatterns])

if os.environ.get("ROLLROOM_BENCH_GC_LOG"):
    # bench_sockets --gc-log: each full collection of the garbage collector (and any other
    # over 20 ms) in the server's log, with its time: py-spy cannot see it (it blames the line
    # whose allocation set it off), and at 10,000 sockets one is a second of the core.
    import logging
    import time

    gc_log, gc_started = logging.getLogger("bench.gc"), [0.0]

    def gc_timed(phase, info):
        if phase == "start":
            gc_started[0] = time.perf_counter()
            return
        ms = 1000 * (time.perf_counter() - gc_started[0])
        if info["generation"] == 2 or ms > 20:
            gc_log.warning(
                "gc generation %d: %.0f ms, %d collected", info["generation"], ms, info["collected"]
            )

    gc.callbacks.append(gc_timed)

gc.set_threshold(700, 10, 1000)  # as config/asgi.py sets it, and for its reason

if os.environ.get("ROLLROOM_BENCH_GC_THRESHOLD"):
    # bench_sockets --gc-threshold: the collector's thresholds (gc.set_threshold) to try.
    gc.set_threshold(*(int(n) for n in os.environ["ROLLROOM_BENCH_GC_THRESHOLD"].split(",")))

gc.freeze()  # as config/asgi.py does, and for its reason: the benchmark measures the app's server
