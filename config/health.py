"""What /healthz asks (config/views.py, healthz): each of ``checks`` is a callable taking no
argument that returns True when this process can serve, False when it cannot (it may raise one
of ``FAILURES`` too, taken as False). A proxy in front (deploy/Caddyfile) sends no new request to
a process whose /healthz answers 503, so a process that would fail every request is left alone
until it answers again.

A process draining for a restart (config/shutdown.py, on SIGTERM) answers 503 as well, so that
the proxy stops sending it new requests while it finishes those it holds."""

import redis
from django.conf import settings
from django.db import Error, connection
from psycopg_pool import PoolTimeout

from core.shared_redis import client

from .shutdown import draining


def database():
    """The database answers a query (one round trip, no table read)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        return cursor.fetchone() == (1,)


def shared_redis():
    """Redis answers a PING, when REDIS_URL is set: the processes push to each other through it,
    so one that cannot reach it would serve pages whose sockets never hear of a roll."""
    if not settings.REDIS_URL:
        return True
    return bool(client().ping())


#: What a check may raise, taken as "cannot serve": any error of the database (Django's
#: ``Error``, the base of OperationalError and InterfaceError; the pool's PoolTimeout) or of
#: Redis (a refused or cut connection is an OSError too).
FAILURES = (Error, PoolTimeout, redis.RedisError, OSError)


def serving():
    """Not draining for a restart (config/shutdown.py)."""
    return not draining()


#: The checks /healthz runs in order; the first that fails answers 503.
checks = [serving, database, shared_redis]


def healthy():
    """True when every check of ``checks`` passes."""
    for check in checks:
        try:
            if not check():
                return False
        except FAILURES:
            return False
    return True
