"""The limits on writes, rolls and odds previews (config/settings.py, ``WRITE_LIMITS``).

Each user's POSTs are counted in Django's cache, in fixed windows: at most ``writes``
per window of every kind, at most ``rolls`` of them rolls (the views named in ``ROLL_VIEWS``)
and at most ``talk`` of them said or rolled from the room's box (``TALK_VIEWS``). The requests
that work out odds before a roll (``PREVIEW_VIEWS``: the room's roll forms and box, the NPC
form, the public calculator) are counted as ``previews``, whatever their method. A visitor not
logged in is counted by the client's address (:func:`client_address`; behind a trusted proxy,
the one it forwards): their previews, and their writes (signing up, asking for a password reset
link, which mails it), which would otherwise be unlimited.
A request over a limit is answered 429 with a sentence and a Retry-After header, before its view
runs: nothing is written or computed. htmx gets the sentence as text, which static/js/site.js
shows in the page's notice area; a plain request gets it on a page of its own.

With several processes (REDIS_URL) the counts live in Redis, which they share, so the limits
hold across them: one round trip per counted request (INCR and EXPIRE of each of its limits,
pipelined). When Redis cannot be reached (core/shared_redis.py) each process counts in its own
memory instead, as a single process always does (Django's default cache, config/settings.py
CACHES): a user spread over N processes may then reach N times the limit until Redis returns,
and no request fails for it. Counting costs no SQL statement: the user is the one the view
reads anyway.
"""

import ipaddress
import time

from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse
from django.shortcuts import render

from core.shared_redis import ERRORS, client, outage

#: The views whose POSTs count as rolls too: a check's roll, and a saved roll's button (a free
#: roll, a check asked for or an NPC's roll in one click), which would otherwise roll as often
#: as the write limit allows.
ROLL_VIEWS = {"check_roll", "saved_roll"}
#: The views whose POSTs count as table talk too (messages, whispers and free rolls).
TALK_VIEWS = {"talk_say"}
#: The views that work out the odds of a roll not made yet (each request counts as a preview):
#: without a limit one visitor typing in a loop would keep the server busy for every table.
PREVIEW_VIEWS = {"talk_odds", "check_odds", "check_form", "npc_odds", "npc_form", "odds_calculator"}
#: What the sentence calls each kind.
WORDS = {
    "writes": "changes",
    "rolls": "rolls",
    "talk": "messages and free rolls",
    "previews": "odds previews",
}
#: Writes never limited here: leaving must always work, and logging in has django-axes's limit
#: (a lock after failed attempts), which must see every failure to lock the account; the
#: proxy's /healthz is asked every few seconds, and a 429 there would take a process out.
UNLIMITED_VIEWS = {"logout", "login", "healthz"}
WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


def client_address(request):
    """The address of the client that sent ``request``, or None when the server gives none: the
    connection's (daphne's REMOTE_ADDR), unless that is a proxy of ``TRUSTED_PROXIES``
    (config/settings.py, DJANGO_TRUSTED_PROXIES): then the right-most address of
    X-Forwarded-For that is not itself a trusted proxy, the one the nearest trusted proxy was
    reached from. The one way the limits here and django-axes's login lock
    (AXES_CLIENT_IP_CALLABLE) read it.

    Never the left-most address: a client writes what it likes there, and a proxy that appends
    to the header (nginx's $proxy_add_x_forwarded_for, Caddy with trusted_proxies) keeps it;
    a visitor could then take a new address, and a new count, with every request. Neither is
    daphne's --proxy-headers used for the same reason (it takes the left-most, and from any
    connection). A header that is not a list of addresses gets the proxy's own: nothing a
    trusted proxy writes looks like that."""
    remote = request.META.get("REMOTE_ADDR") or None
    if remote is None or not _trusted(_parsed(remote)):
        return remote
    for hop in reversed(request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")):
        address = _parsed(hop.strip())
        if address is None:
            return remote
        if not _trusted(address):
            return str(address)
    return remote


def _parsed(text):
    """The IP address ``text`` names (an IPv4 address mapped into IPv6 as itself), or None."""
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    return getattr(address, "ipv4_mapped", None) or address


def _trusted(address):
    return address is not None and any(address in net for net in settings.TRUSTED_PROXIES)


def _counts(who, limits):
    """This window's count of each (kind, window) of ``limits`` for ``who`` (a user's id, or
    ``ip:`` and an anonymous client's address), this request included: in Redis (one round trip
    for them all), or this process's cache when Redis is away or not configured."""
    now = time.time()
    keys = [(f"limit:{kind}:{who}:{int(now // window)}", window) for kind, window in limits]
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


def _kinds(request, name):
    """The kinds of limit ``request`` (to the view ``name``) counts against."""
    if name in PREVIEW_VIEWS:
        return ["previews"]
    if request.method not in WRITE_METHODS or name in UNLIMITED_VIEWS:
        return []
    kinds = ["writes"]
    if name in ROLL_VIEWS:
        kinds.append("rolls")
    if name in TALK_VIEWS:
        kinds.append("talk")
    return kinds


def over_limit(request):
    """None, or the (sentence, seconds to wait) for a request over one of its sender's limits."""
    limits = getattr(settings, "WRITE_LIMITS", None)
    if not limits:
        return None
    match = request.resolver_match
    kinds = [kind for kind in _kinds(request, match.url_name if match else None) if kind in limits]
    if not kinds:
        return None
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        who = user.pk
    else:  # sign-up and "Forgot your password?" are written without a login
        who = f"ip:{client_address(request) or 'unknown'}"
    counts = _counts(who, [(kind, limits[kind][1]) for kind in kinds])
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
    """Answers 429 to a write or an odds preview over its sender's limit (see the module's
    text)."""

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
