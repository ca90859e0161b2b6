"""ASGI entry point: HTTP through Django, websockets through Channels.

Django's HTTP handler and the server process are tuned by ``config/tuning.py``.
"""

import os

from channels.auth import AuthMiddlewareStack
from channels.routing import ProtocolTypeRouter, URLRouter
from channels.security.websocket import AllowedHostsOriginValidator

from config import tuning

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Set Django up before importing code that imports models.
django_asgi_app = tuning.get_asgi_application()

from rolls.routing import no_route, websocket_urlpatterns

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter([*websocket_urlpatterns, no_route]))
        ),
    }
)

tuning.tune_process()
