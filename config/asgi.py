"""ASGI entry point: HTTP through Django, websockets through Channels."""

import gc
import os
import sys

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Request threads release the GIL for every database and socket call and then wait for it:
# with the default 5 ms switch interval a busy thread makes each such wait up to 5 ms.
sys.setswitchinterval(0.0005)
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402

from rolls.routing import websocket_urlpatterns  # noqa: E402


async def one_thread_http(scope, receive, send):
    """Django, with the synchronous part of every request run in one thread, the process's
    database thread, one request after another (Django's own entry point starts a thread per
    request). A request then reuses that thread's SQLite connection, and requests no longer
    contend for the GIL and the SQLite write lock: on one core they only slow each other down.
    On PostgreSQL, requests keep a thread each, so that their database round trips overlap."""
    await django_asgi_app.handle(scope, receive, send)


application = ProtocolTypeRouter(
    {
        "http": one_thread_http if settings.REQUESTS_IN_ONE_THREAD else django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)

# What was loaded so far lives as long as the process: keep it out of the garbage collector's
# full collections, which otherwise scan it all and stall every request for tens of ms.
gc.freeze()
