"""The websocket routes, what reads a socket's user (``socket_auth``), and the ASGI application
built around a list of routes (``asgi_application``), which every ASGI application of the project
builds: ``config/asgi.py`` with the app's routes, ``bench/asgi.py`` with the benchmark floors'
beside them. Import it once Django is set up (``get_asgi_application``). Daphne serves them as
released; its limits on a client's frames are settings (``DAPHNE_WEBSOCKET_MAX_*``,
config/settings.py)."""

import logging
from importlib import import_module

from channels.routing import ProtocolTypeRouter, URLRouter
from channels.security.websocket import AllowedHostsOriginValidator
from channels.sessions import CookieMiddleware
from django.conf import settings
from django.contrib.auth import get_user
from django.urls import path, re_path

from config import shutdown
from config.admission import Admission
from config.views import DATABASE_UNAVAILABLE, TRY_AGAIN_LATER
from core.shared_redis import REDIS_UNAVAILABLE, outage
from core.trips import trips
from room.consumers import FactsConsumer, NoRouteConsumer, RoomConsumer

logger = logging.getLogger(__name__)

websocket_urlpatterns = [
    path("ws/campaigns/<id:campaign_id>/", RoomConsumer.as_asgi()),
    path("ws/campaigns/<id:campaign_id>/facts/", FactsConsumer.as_asgi()),
]

#: After the routes: any other path is refused (``asgi_application``).
no_route = re_path("", NoRouteConsumer.as_asgi())


class SocketSessionMiddleware:
    """The session of a socket's cookie in its scope, to read: what Channels'
    ``SessionMiddleware`` does (in ``AuthMiddlewareStack``), without also wrapping the socket's
    every frame in a send that looks whether the session changed (it saves a changed session
    on an HTTP response, which a socket never sends; nothing here writes the session: a logout
    closes the user's sockets, ``core.push.leave``). The store reads the session only when
    first asked, by ``SocketAuthMiddleware`` in the database's thread."""

    def __init__(self, inner):
        self.inner = inner
        self.store = import_module(settings.SESSION_ENGINE).SessionStore

    async def __call__(self, scope, receive, send):
        session = self.store(scope["cookies"].get(settings.SESSION_COOKIE_NAME))
        return await self.inner(dict(scope, session=session), receive, send)


class SocketAuthMiddleware:
    """The socket's user in its scope (``scope["user"]``, anonymous without a valid session),
    as Channels' ``AuthMiddleware`` puts it there: read through Django's ``get_user``, which
    checks the session's hash as a request's user is checked (Channels' own reading does the
    same). The session and the user are read in a trip to the database thread shared with the
    other sockets' work (``core.trips``): with Channels' middleware each socket took a trip of
    its own, and in a burst of connects those trips, not the reading, were most of it."""

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        user = await trips.run(session_user, scope["session"])
        return await self.inner(dict(scope, user=user), receive, send)


class SessionOnly:
    """What ``django.contrib.auth.get_user`` reads of a request: its session."""

    def __init__(self, session):
        self.session = session


def session_user(session):
    return get_user(SessionOnly(session))


def socket_auth(inner):
    """Channels' ``AuthMiddlewareStack``, with ``SocketSessionMiddleware`` for its session
    middleware and ``SocketAuthMiddleware`` for its auth middleware."""
    return CookieMiddleware(SocketSessionMiddleware(SocketAuthMiddleware(inner)))


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


def asgi_application(http, websocket_routes):
    """The project's ASGI application: HTTP to ``http`` (Django's own handler), a websocket to
    the first of ``websocket_routes`` that matches it (any other path refused, ``no_route``),
    behind everything every socket of the app passes through. One function for config/asgi.py
    and bench/asgi.py: the benchmark then measures the sockets the app serves, not a stack of
    its own that leaves the drain, the admission and the guard out."""
    return shutdown.Draining(
        ProtocolTypeRouter(
            {
                "http": http,
                # Inside the drain (a process draining refuses every socket first) and outside
                # everything that reads or joins (a socket turned away costs nothing more).
                "websocket": Admission(
                    SocketGuard(
                        AllowedHostsOriginValidator(
                            socket_auth(URLRouter([*websocket_routes, no_route]))
                        )
                    )
                ),
            }
        )
    )
