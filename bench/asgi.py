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

gc.freeze()  # as config/asgi.py does, and for its reason: the benchmark measures the app's server
