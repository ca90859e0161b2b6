"""ASGI entry point: HTTP through Django, websockets through Channels."""

import gc
import os
import sys

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Request threads release the GIL for every database and socket call and then wait for it:
# with the default 5 ms switch interval a busy thread makes each such wait up to 5 ms.
sys.setswitchinterval(0.0005)
get_asgi_application()  # sets Django up before the imports below reach any model

from asgiref.sync import sync_to_async  # noqa: E402
from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.handlers.asgi import ASGIHandler  # noqa: E402

from rolls.routing import websocket_urlpatterns  # noqa: E402


class DjangoHTTP(ASGIHandler):
    """Django's ASGI handler, with its middleware and views run as under WSGI: the whole chain
    in one call into a thread. (Django's own handler runs the chain as async code, and each of
    our synchronous middleware methods and the view then makes a trip into a thread and back.)

    ``one_thread``: every request's call goes to the same thread, one request after another,
    instead of a new thread per request. That thread then keeps its SQLite connection, and
    requests no longer contend for the GIL and the SQLite write lock: on one core they only
    slow each other down. On PostgreSQL requests keep a thread each, so that their database
    round trips overlap."""

    def __init__(self, *, one_thread):
        self.one_thread = one_thread
        super().__init__()

    def load_middleware(self, is_async=False):
        super().load_middleware(is_async=False)

    async def get_response_async(self, request):
        return await sync_to_async(self.get_response, thread_sensitive=True)(request)

    async def __call__(self, scope, receive, send):
        if self.one_thread:
            # Django's __call__ without its per-request thread context: thread-sensitive
            # calls then all go to the one database thread.
            await self.handle(scope, receive, send)
        else:
            await super().__call__(scope, receive, send)


application = ProtocolTypeRouter(
    {
        "http": DjangoHTTP(one_thread=settings.REQUESTS_IN_ONE_THREAD),
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)

# What was loaded so far lives as long as the process: keep it out of the garbage collector's
# full collections, which otherwise scan it all and stall every request for tens of ms.
gc.freeze()
