"""The error pages: Django's handlers, with the 400 page saying how to let the server answer to a
host name it refuses, and a failure for want of the database answered 503 (try again soon)
instead of 500."""

import logging
import sys
import threading
import time

from django.core.exceptions import DisallowedHost
from django.db import InterfaceError, OperationalError
from django.http import HttpResponse, HttpResponseBadRequest
from django.http.request import split_domain_port
from django.shortcuts import render
from django.template import loader
from django.views import defaults
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import requires_csrf_token
from django.views.decorators.http import require_safe
from psycopg_pool import PoolTimeout

from config import health
from config.shutdown import health_answered

#: What a request meets when the database cannot answer: PostgreSQL stopped or restarting (no
#: connection, or a pooled one cut: OperationalError; one already closed: InterfaceError), no
#: connection free in the pool within its timeout (psycopg_pool's PoolTimeout, which Django
#: passes on as OperationalError), SQLite locked past its timeout ("database is locked").
DATABASE_UNAVAILABLE = (OperationalError, InterfaceError, PoolTimeout)

#: Seconds a client is asked to wait before trying again (Retry-After).
RETRY_AFTER = 5
#: The close code asking a socket's page to open it again later (static/js/site.js does;
#: config/asgi.py): the app's own 4xxx, as daphne refuses to send WebSocket's own 1013 (any code
#: but 1000 and 3000-4999).
TRY_AGAIN_LATER = 4503

UNAVAILABLE_SENTENCE = (
    "The server cannot reach its database just now. Nothing was done; try again in a few seconds."
)


@never_cache
@require_safe
def healthz(request):
    """200 "ok" when this process can serve (config/health.py: the database answers, and Redis
    when REDIS_URL is set), 503 "unavailable" otherwise: what the proxy in front asks before it
    sends a process requests (deploy/Caddyfile). It reads no session and writes nothing (a proxy
    asking every few seconds would otherwise fill the session table or meet the write limits),
    and says nothing of the tables, as anyone can ask it."""
    healthy = health.healthy()
    health_answered(healthy)
    if healthy:
        return HttpResponse("ok", content_type="text/plain")
    return HttpResponse("unavailable", status=503, content_type="text/plain")


@requires_csrf_token
def bad_request(request, exception):
    """400. For a host name not in DJANGO_ALLOWED_HOSTS (a friend opening the GM's computer by
    its network address, say) the page names it and says how to add it; it never shows the
    names that are allowed."""
    host = ""
    if isinstance(exception, DisallowedHost):
        raw = request.META.get("HTTP_HOST") or request.META.get("SERVER_NAME", "")
        host, _port = split_domain_port(raw)  # "" when not a valid host name
    response = render(request, "400.html", {"host": host})
    return HttpResponseBadRequest(response.content)


def server_error(request):
    """500, or 503 when the request failed for want of the database (``DATABASE_UNAVAILABLE``).

    Django calls this for every exception a view or a middleware let through (with DEBUG off),
    inside its ``except`` block: ``sys.exc_info()`` is the failure. A request that failed so wrote
    nothing: a write runs in one transaction, which the database rolls back when its connection
    is lost, and Django hands a connection that failed back to the pool only through its health
    check (``close_if_unusable_or_obsolete``), so the pool discards a broken one."""
    error = sys.exc_info()[1]
    if not isinstance(error, DATABASE_UNAVAILABLE):
        return defaults.server_error(request)
    return database_unavailable(request)


def database_unavailable(request):
    """503 with Retry-After: htmx gets a sentence, which static/js/site.js shows in the page's
    notice area; a page load gets templates/503.html, which needs no database."""
    if request.headers.get("HX-Request"):
        response = HttpResponse(UNAVAILABLE_SENTENCE, status=503, content_type="text/plain")
    else:
        response = HttpResponse(loader.get_template("503.html").render(), status=503)
    response["Retry-After"] = str(RETRY_AFTER)
    return response


class OutageLogged(logging.Filter):
    """django.request's records of requests answered 503 for want of the database: the first
    of an outage is kept, then one a minute at most (saying how many were left out), so that an
    outage does not log a traceback per request (config/settings.py, LOGGING)."""

    #: Seconds between two records kept.
    EVERY = 60

    def __init__(self):
        super().__init__()
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        """No outage seen yet."""
        self.kept_at = None
        self.left_out = 0

    def filter(self, record):
        error = record.exc_info[1] if record.exc_info else None
        if getattr(record, "status_code", None) != 503 or not isinstance(
            error, DATABASE_UNAVAILABLE
        ):
            return True
        with self.lock:
            now = time.monotonic()
            if self.kept_at is not None and now - self.kept_at < self.EVERY:
                self.left_out += 1
                return False
            self.kept_at, left_out, self.left_out = now, self.left_out, 0
        if left_out:
            record.msg = f"{record.msg} (and {left_out} more 503s for the database meanwhile)"
        return True
