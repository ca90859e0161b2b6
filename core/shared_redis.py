"""The Redis the processes share (REDIS_URL), as a request's thread uses it: for the write
limits' counts (core/throttle.py, through this module's client) and the pushes of a write
(core/push.py, which sends through the channel layer's own connections and asks this module's
``outage`` alone).

Nothing a request needs to answer lives in Redis (the sessions are in the database, see
config/settings.py), so a request treats Redis as optional: when it cannot be reached the
request goes on without it (the limits count in the process, the pushes are dropped and
counted) and the process leaves Redis alone for ``BACKOFF`` seconds, so that an outage does not
cost every request a connection attempt. One warning says Redis is unreachable when an outage
starts, one that it is back (with the pushes dropped meanwhile) when it ends; nothing per
request.

The clients give up quickly (``TIMEOUT``): a request waits at most that long for a Redis that
does not answer, once per back-off. (The channel layer has connections of its own,
config/settings.py ``CHANNEL_LAYERS``; a request's pushes wait for it at most
``core.push.SEND_TIMEOUT``.)
"""

import logging
import threading
import time

import redis
from django.conf import settings
from redis.backoff import NoBackoff
from redis.retry import Retry

logger = logging.getLogger(__name__)

#: Seconds a process leaves Redis alone after failing to reach it.
BACKOFF = 2
#: Seconds a request's thread waits to connect to Redis, or for a reply.
TIMEOUT = 1

_clients = {}
_lock = threading.Lock()


def client(url=None):
    """This process's synchronous client of ``url`` (default: REDIS_URL), shared by every
    thread (redis-py's connection pool is thread-safe). A failed command is tried once more on
    a new connection (a pooled one may be stale after Redis restarted), without waiting."""
    url = url or settings.REDIS_URL
    with _lock:
        if url not in _clients:
            _clients[url] = redis.Redis.from_url(
                url,
                socket_timeout=TIMEOUT,
                socket_connect_timeout=TIMEOUT,
                retry=Retry(NoBackoff(), 1),
            )
        return _clients[url]


class Outage:
    """Whether this process may try Redis now, and what it went without while it could not."""

    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        """Redis not known to be down, nothing dropped."""
        self.down_since = None  # monotonic time of the first failure of this outage
        self.retry_at = 0.0
        self.dropped = 0  # pushes dropped in this outage

    def available(self):
        """False while backing off after a failure (then nothing is tried)."""
        return self.down_since is None or time.monotonic() >= self.retry_at

    def failed(self, error):
        """Redis could not be reached: back off; the first failure of an outage is logged."""
        with self.lock:
            now = time.monotonic()
            self.retry_at = now + BACKOFF
            if self.down_since is not None:
                return
            self.down_since = now
        logger.warning(
            "Redis unreachable (%s): write limits count per process and pushes are dropped "
            "until it returns (tried again every %s s)",
            error,
            BACKOFF,
        )

    def succeeded(self):
        """Redis answered: an outage in progress is over (logged once, with what it cost)."""
        if self.down_since is None:
            return
        with self.lock:
            if self.down_since is None:
                return
            seconds = time.monotonic() - self.down_since
            dropped, self.dropped = self.dropped, 0
            self.down_since = None
        logger.warning(
            "Redis reachable again after %.1f s; %d pushes dropped meanwhile (sockets replay "
            "them from the log)",
            seconds,
            dropped,
        )

    def drop(self, count):
        """``count`` pushes were not sent for the outage."""
        with self.lock:
            self.dropped += count


#: This process's view of Redis.
outage = Outage()

#: What a request's Redis call may raise when Redis is away (or answers out of turn).
ERRORS = (redis.ConnectionError, redis.TimeoutError, OSError)
#: What a socket's use of the channel layer raises when Redis is away (config/asgi.py).
REDIS_UNAVAILABLE = (redis.ConnectionError, redis.TimeoutError)
