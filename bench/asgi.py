"""The benchmark server's ASGI application: the app's (config/asgi.py), with the Channels
floor's websocket route beside the room's. Run with ``DJANGO_SETTINGS_MODULE=bench.settings``."""

import gc
import os

from channels.routing import ProtocolTypeRouter, URLRouter
from channels.security.websocket import AllowedHostsOriginValidator
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
# Set Django up before importing code that imports models.
django_asgi_app = get_asgi_application()

from bench.floors import websocket_urlpatterns as floor_urlpatterns
from config.routing import socket_auth, websocket_urlpatterns

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            socket_auth(URLRouter(websocket_urlpatterns + floor_urlpatterns))
        ),
    }
)

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
