"""The sessions' cache on the scale-out path (REDIS_URL, see config/settings.py).

Django's Redis cache makes a client, with its own connection pool, per cache object, and
Django makes a cache object per thread. A server where each request runs in a thread of its
own (PostgreSQL, config/tuning.py) would then open a new connection to Redis for every request.
Here the client is made once per process and shared by every thread (redis-py's connection
pool is thread-safe), so a request takes a pooled connection.
"""

import threading

from django.core.cache.backends.redis import RedisCache
from django.utils.functional import cached_property

_clients = {}
_lock = threading.Lock()


class ProcessRedisCache(RedisCache):
    """Django's Redis cache with one client per process and per configuration."""

    @cached_property
    def _cache(self):
        key = (tuple(self._servers), repr(sorted(self._options.items())))
        with _lock:
            if key not in _clients:
                _clients[key] = self._class(self._servers, **self._options)
            return _clients[key]
