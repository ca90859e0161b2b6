"""The benchmark server's ASGI application: the app's (config/asgi.py), with the Channels
floor's websocket route beside the room's. Run with ``DJANGO_SETTINGS_MODULE=bench.settings``."""

import os

from channels.routing import ProtocolTypeRouter, URLRouter
from channels.security.websocket import AllowedHostsOriginValidator

from config import tuning

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
# Set Django up before importing code that imports models.
django_asgi_app = tuning.get_asgi_application()

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

tuning.tune_process()
