"""The websocket routes and what reads a socket's user (``socket_auth``), which every ASGI
application of the project (``config/asgi.py``, ``bench/asgi.py``) imports. Daphne serves them
as released; its limits on a client's frames are settings (``DAPHNE_WEBSOCKET_MAX_*``,
config/settings.py)."""

from importlib import import_module

from channels.sessions import CookieMiddleware
from django.conf import settings
from django.contrib.auth import get_user
from django.urls import path, re_path

from core.trips import trips
from room.consumers import FactsConsumer, NoRouteConsumer, RoomConsumer

websocket_urlpatterns = [
    path("ws/campaigns/<id:campaign_id>/", RoomConsumer.as_asgi()),
    path("ws/campaigns/<id:campaign_id>/facts/", FactsConsumer.as_asgi()),
]

#: After the routes: any other path is refused (config/asgi.py).
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
