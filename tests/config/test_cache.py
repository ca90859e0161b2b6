"""The sessions' cache of several processes (config/cache.py): one Redis client per process,
whatever thread asks. On Redis, skipped unless REDIS_URL is set."""

import os
import threading
import uuid

import pytest

from config.cache import ProcessRedisCache

needs_redis = pytest.mark.skipif(
    not os.environ.get("REDIS_URL"), reason="needs Redis: set REDIS_URL=redis://..."
)


def cache_in_a_thread(params):
    """The cache object a new thread makes (Django makes one per thread)."""
    made = []
    thread = threading.Thread(target=lambda: made.append(ProcessRedisCache("redis://x", params)))
    thread.start()
    thread.join()
    return made[0]


def test_every_thread_shares_one_client_per_configuration():
    params = {"OPTIONS": {"socket_timeout": 15}}
    first, second = cache_in_a_thread(params), cache_in_a_thread(params)
    assert first is not second
    assert first._cache is second._cache
    other = cache_in_a_thread({"OPTIONS": {"socket_timeout": 5}})
    assert other._cache is not first._cache


@needs_redis
def test_what_one_thread_stores_another_reads_and_deletes():
    params = {"KEY_PREFIX": f"rollroom-test-{uuid.uuid4().hex}"}
    writer = ProcessRedisCache(os.environ["REDIS_URL"], params)
    writer.set("session", {"user": 7}, 30)
    reader = ProcessRedisCache(os.environ["REDIS_URL"], params)
    read = []
    thread = threading.Thread(target=lambda: read.append(reader.get("session")))
    thread.start()
    thread.join()
    assert read == [{"user": 7}]
    reader.delete("session")
    assert writer.get("session") is None


def test_each_pool_keeps_one_redis_object_for_every_operation():
    """Django's client makes a redis.Redis per operation (building its reply parsers each
    time); this one makes it once per connection pool."""
    client = cache_in_a_thread({"OPTIONS": {"socket_timeout": 7}})._cache
    first = client.get_client("a")
    assert client.get_client("b", write=True) is first
    assert first.connection_pool is client._get_connection_pool(False)
