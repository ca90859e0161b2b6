"""ASGI entry point: HTTP through Django's own ASGI handler, websockets through Channels (as in
Channels' tutorial). A socket that meets an unreachable database (PostgreSQL restarting) is
closed cleanly, see ``SocketGuard``; an HTTP request that does is answered 503 by
``config.views.server_error``. A socket that arrives while too many are still connecting is
asked at once to try again later, before any work (``config.admission``). A process told to
stop (SIGTERM) drains first: its sockets are closed with ``config.shutdown.SERVICE_RESTART``
and the requests it holds are finished (``config.shutdown``).
"""

import gc
import logging
import os

from channels.routing import ProtocolTypeRouter, URLRouter
from channels.security.websocket import AllowedHostsOriginValidator
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Set Django up before importing code that imports models.
django_asgi_app = get_asgi_application()

from config import shutdown
from config.admission import Admission
from config.routing import no_route, socket_auth, websocket_urlpatterns
from config.views import DATABASE_UNAVAILABLE, TRY_AGAIN_LATER
from core.shared_redis import REDIS_UNAVAILABLE, outage

logger = logging.getLogger(__name__)


class SocketGuard:
    """Closes a websocket whose application failed for want of the database (reading the
    session's user, the membership, the log) or of Redis (joining the room's groups, the
    layer's receive loop) instead of letting the failure reach the server: a handshake not yet
    accepted is refused, an open socket is closed with ``TRY_AGAIN_LATER``, and the page
    reopens it. Any other failure passes on as before. A Redis outage is logged once for the
    process (core/shared_redis.py), not once per socket."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        try:
            return await self.app(scope, receive, send)
        except DATABASE_UNAVAILABLE as error:
            logger.warning(
                "Socket %s closed, the database is unavailable: %s", scope["path"], error
            )
            await send({"type": "websocket.close", "code": TRY_AGAIN_LATER})
        except REDIS_UNAVAILABLE as error:
            outage.failed(error)
            await send({"type": "websocket.close", "code": TRY_AGAIN_LATER})


application = shutdown.Draining(
    ProtocolTypeRouter(
        {
            "http": django_asgi_app,
            # Inside the drain (a process draining refuses every socket first) and outside
            # everything that reads or joins (a socket turned away costs nothing more).
            "websocket": Admission(
                SocketGuard(
                    AllowedHostsOriginValidator(
                        socket_auth(URLRouter([*websocket_urlpatterns, no_route]))
                    )
                )
            ),
        }
    )
)
# On SIGTERM under daphne, however it was started (manage.py host, daphne's command, systemd):
# drain first, then stop (config/shutdown.py).
shutdown.install()

# Everything loaded so far lives as long as the process. Without this, each full collection of
# the garbage collector walks all of it (Django, the URLs, the templates, the models) while it
# holds the GIL, and every request and every socket of the process waits until it is done (the
# slowest rolls, bench/README.md, "What made a roll cheaper"). Frozen, it is left out of
# collections; what is made later is collected as before.
gc.freeze()

# daphne walks its connections every second (``Server.application_checker`` lists them, a new
# tuple each) and the collection of young objects that such a list sets off moves those tuples,
# still alive, to the oldest generation before they are freed. Python counts them as old objects
# to be checked, and at Python's default (10) a full collection then runs about once a minute,
# walking every open socket's objects while every socket and request waits (more than a second
# at 10,000 sockets) and finding nothing to free. With 1000, a full collection waits for a
# hundred times more collections of the middle generation; the young ones run as before.
gc.set_threshold(700, 10, 1000)
