"""A per-user limit on writes and rolls (config/settings.py, ``WRITE_LIMITS``).

Each logged-in user's POSTs are counted in Django's cache, in fixed windows: at most ``writes``
per window of every kind, and at most ``rolls`` of them rolls (the views named in ``ROLL_VIEWS``).
A request over a limit is answered 429 with a sentence and a Retry-After header, before its view
runs: nothing is written. htmx gets the sentence as text, which static/js/site.js shows in the
page's notice area; a plain form post gets it on a page of its own.

The counts live in the default cache: the in-memory cache of each process (config/settings.py,
CACHES). With several processes (REDIS_URL) each counts its own requests, so a user spread over
N processes may reach N times the limit; a shared cache would make it one. Counting costs no SQL
statement: the user is the one the view reads anyway.
"""

import time

from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse
from django.shortcuts import render

#: The views whose POSTs count as rolls too.
ROLL_VIEWS = {"check_roll"}
#: Writes never limited: leaving must always work.
UNLIMITED_VIEWS = {"logout"}
WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


def _count(kind, user_id, window):
    """This window's count of ``kind`` for the user, this request included; and the seconds
    left in the window."""
    now = time.time()
    start = int(now // window)
    key = f"limit:{kind}:{user_id}:{start}"
    if cache.add(key, 1, timeout=window + 1):
        count = 1
    else:
        try:
            count = cache.incr(key)
        except ValueError:  # expired between the two calls
            cache.add(key, 1, timeout=window + 1)
            count = 1
    return count, max(1, int((start + 1) * window - now + 0.999))


def over_limit(request):
    """None, or the (sentence, seconds to wait) for a request over one of the user's limits."""
    limits = getattr(settings, "WRITE_LIMITS", None)
    if not limits or request.method not in WRITE_METHODS:
        return None
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return None
    match = request.resolver_match
    name = match.url_name if match else None
    if name in UNLIMITED_VIEWS:
        return None
    kinds = ["writes", "rolls"] if name in ROLL_VIEWS and "rolls" in limits else ["writes"]
    for kind in kinds:
        if kind not in limits:
            continue
        most, window = limits[kind]
        count, wait = _count(kind, user.pk, window)
        if count > most:
            what = "rolls" if kind == "rolls" else "changes"
            sentence = (
                f"Slow down: at most {most} {what} every {window} seconds. "
                f"Nothing was done; try again in {wait} s."
            )
            return sentence, wait
    return None


class WriteLimitMiddleware:
    """Answers 429 to a write over the user's limit (see the module's text)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        refused = over_limit(request)
        if refused is None:
            return None
        sentence, wait = refused
        if request.headers.get("HX-Request"):
            response = HttpResponse(sentence, status=429, content_type="text/plain")
        else:
            response = render(request, "too_many.html", {"sentence": sentence}, status=429)
        response["Retry-After"] = str(wait)
        return response
