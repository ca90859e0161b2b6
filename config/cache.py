"""The sessions' cache on the scale-out path (REDIS_URL, see config/settings.py).

Django's Redis cache makes a client, with its own connection pool, per cache object, and
Django makes a cache object per thread. A server where each request runs in a thread of its
own (PostgreSQL, config/tuning.py) would then open a new connection to Redis for every request.
Here the client is made once per process and shared by every thread (redis-py's connection
pool is thread-safe), so a request takes a pooled connection.

Django's client also makes a new ``redis.Redis`` object for every operation, which builds its
table of reply parsers each time (about 170 entries: a third of a millisecond of CPU for a
session read). Here each pool's ``redis.Redis`` is made once and kept (it is thread-safe too).
"""

import threading

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from django.utils.functional import cached_property

_clients = {}
_lock = threading.Lock()


class ProcessRedisCacheClient(RedisCacheClient):
    """Django's Redis cache client, keeping one ``redis.Redis`` per connection pool."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._redis_by_pool = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._redis_by_pool.get(pool)
        if client is None:
            client = self._redis_by_pool.setdefault(pool, self._client(connection_pool=pool))
        return client


class ProcessRedisCache(RedisCache):
    """Django's Redis cache with one client per process and per configuration."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = ProcessRedisCacheClient

    @cached_property
    def _cache(self):
        key = (tuple(self._servers), repr(sorted(self._options.items())))
        with _lock:
            if key not in _clients:
                _clients[key] = self._class(self._servers, **self._options)
            return _clients[key]
