"""ASGI entry point: the project's application with the app's websocket routes
(``config.routing.asgi_application``, which bench/asgi.py builds with the benchmark's floors as
well): HTTP through Django's own ASGI handler, websockets through Channels (as in Channels'
tutorial). A socket that meets an unreachable database (PostgreSQL restarting) is
closed cleanly, see ``config.routing.SocketGuard``; an HTTP request that does is answered 503 by
``config.views.server_error``. A socket that arrives while too many are still connecting is
asked at once to try again later, before any work (``config.admission``). A process told to
stop (SIGTERM) drains first: its sockets are closed with ``config.shutdown.SERVICE_RESTART``
and the requests it holds are finished (``config.shutdown``).
"""

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Set Django up before importing code that imports models.
django_asgi_app = get_asgi_application()

from config import shutdown
from config.routing import asgi_application, websocket_urlpatterns

application = asgi_application(django_asgi_app, websocket_urlpatterns)
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
