"""A per-user limit on writes and rolls (config/settings.py, ``WRITE_LIMITS``).

Each logged-in user's POSTs are counted in Django's cache, in fixed windows: at most ``writes``
per window of every kind, at most ``rolls`` of them rolls (the views named in ``ROLL_VIEWS``)
and at most ``talk`` of them said or rolled from the room's box (``TALK_VIEWS``).
A request over a limit is answered 429 with a sentence and a Retry-After header, before its view
runs: nothing is written. htmx gets the sentence as text, which static/js/site.js shows in the
page's notice area; a plain form post gets it on a page of its own.

With several processes (REDIS_URL) the counts live in Redis, which they share, so the limits
hold across them: one round trip per write and limit (INCR and EXPIRE, pipelined). When Redis
cannot be reached (core/shared_redis.py) each process counts in its own memory instead, as a
single process always does (Django's default cache, config/settings.py CACHES): a user spread
over N processes may then reach N times the limit until Redis returns, and no write fails for
it. Counting costs no SQL statement: the user is the one the view reads anyway.
"""

import time

from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse
from django.shortcuts import render

from core.shared_redis import ERRORS, client, outage

#: The views whose POSTs count as rolls too.
ROLL_VIEWS = {"check_roll"}
#: The views whose POSTs count as table talk too (messages, whispers and free rolls).
TALK_VIEWS = {"talk_say"}
#: What the sentence calls each kind.
WORDS = {"writes": "changes", "rolls": "rolls", "talk": "messages and free rolls"}
#: Writes never limited: leaving must always work.
UNLIMITED_VIEWS = {"logout"}
WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


def _counts(user_id, limits):
    """This window's count of each (kind, window) of ``limits`` for the user, this request
    included: in Redis (one round trip for them all), or this process's cache when Redis is
    away or not configured."""
    now = time.time()
    keys = [(f"limit:{kind}:{user_id}:{int(now // window)}", window) for kind, window in limits]
    counts = _shared_counts(keys) if settings.REDIS_URL else None
    return counts or [_process_count(key, window) for key, window in keys]


def _shared_counts(keys):
    """The count of each (key, window) of ``keys`` in Redis, this request included; None when
    Redis is away."""
    if not outage.available():
        return None
    try:
        pipe = client().pipeline(transaction=False)
        for key, window in keys:
            pipe.incr(f"rollroom:{key}")
            pipe.expire(f"rollroom:{key}", window + 1)
        replies = pipe.execute()
    except ERRORS as error:
        outage.failed(error)
        return None
    outage.succeeded()
    return replies[::2]


def _process_count(key, window):
    """The count of ``key`` in this process's cache, this request included."""
    if cache.add(key, 1, timeout=window + 1):
        return 1
    try:
        return cache.incr(key)
    except ValueError:  # expired between the two calls
        cache.add(key, 1, timeout=window + 1)
        return 1


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
    kinds = ["writes"]
    if name in ROLL_VIEWS:
        kinds.append("rolls")
    if name in TALK_VIEWS:
        kinds.append("talk")
    kinds = [kind for kind in kinds if kind in limits]
    if not kinds:
        return None
    counts = _counts(user.pk, [(kind, limits[kind][1]) for kind in kinds])
    for kind, count in zip(kinds, counts, strict=True):
        most, window = limits[kind]
        if count > most:
            now = time.time()
            wait = max(1, int((now // window + 1) * window - now + 0.999))
            what = WORDS[kind]
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
