"""Settings of the benchmark's servers: the app's settings, with the floors routed beside the
app (``bench/urls.py`` for the HTTP floor, ``bench/asgi.py`` for the Channels floor).
``python manage.py bench_rolls`` starts its servers with these; the app's own settings never
route the floors."""

import os

from config.settings import *  # noqa: F403

# The connections of the servers the benchmark starts carry this name, by which it finds the
# PostgreSQL backends serving them and reads their CPU (bench/meters.py).
_database = DATABASES["default"]  # noqa: F405
if os.environ.get("ROLLROOM_BENCH_APPLICATION_NAME") and _database["ENGINE"].endswith("postgresql"):
    _database["OPTIONS"]["application_name"] = os.environ["ROLLROOM_BENCH_APPLICATION_NAME"]

ROOT_URLCONF = "bench.urls"
# Its players roll far faster than a table does: no per-user limit (core/throttle.py).
WRITE_LIMITS = {}
ASGI_APPLICATION = "bench.asgi.application"
# A server of its own on the shared Redis (channels_redis's documented ``prefix``): without it the
# groups of the same names (campaign_<id>) keep the channels of other runs' stopped servers, and
# every push to them is sent to those too.
if os.environ.get("ROLLROOM_BENCH_LAYER_PREFIX") and "hosts" in CHANNEL_LAYERS["default"]["CONFIG"]:  # noqa: F405
    CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] = os.environ["ROLLROOM_BENCH_LAYER_PREFIX"]  # noqa: F405
