"""Settings of the benchmark's servers: the app's settings, with the floors routed beside the
app (``bench/urls.py`` for the HTTP floor, ``bench/asgi.py`` for the Channels floor).
``python manage.py bench_rolls`` starts its servers with these; the app's own settings never
route the floors."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
# Its players roll far faster than a table does: no per-user limit (campaigns/throttle.py).
WRITE_LIMITS = {}
ASGI_APPLICATION = "bench.asgi.application"
