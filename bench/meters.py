"""CPU spent beside the app's processes during a phase: by the PostgreSQL backends that serve
the benchmark's servers, and by the Redis server. Each meter's ``snapshot()`` returns
{key: CPU seconds so far}, or None when it cannot tell; a phase's figure is the sum of the
increases between two snapshots (a key new in the second counts from zero).

- PostgreSQL: the servers the benchmark starts name their connections
  (``application_name``, see ``bench/settings.py``); their backends are found in
  ``pg_stat_activity`` and their CPU read from ``/proc`` (PostgreSQL on this machine, read
  by the same user or root; None otherwise). A backend that exits during the phase is missed
  (the pool keeps its connections for minutes).
- Redis: ``INFO cpu`` (``used_cpu_sys`` + ``used_cpu_user``): the whole Redis server, so
  whatever else uses that server (other databases too) counts in.
- A proxy in front of the servers (Caddy): its process's CPU from ``/proc``, every thread
  (TLS and proxying both), whatever else it serves counting in.
"""

import os

from django.db import connection

from . import server as procs

#: Environment variable of the servers' application_name (set by the command, read by
#: bench/settings.py).
APPLICATION_NAME = "ROLLROOM_BENCH_APPLICATION_NAME"


class PostgresBackends:
    name = "pg"

    def __init__(self, application_name):
        self.application_name = application_name

    def snapshot(self):
        if connection.vendor != "postgresql" or not self.application_name:
            return None
        try:
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pid FROM pg_stat_activity WHERE application_name = %s",
                    [self.application_name],
                )
                pids = [pid for (pid,) in cursor.fetchall()]
        finally:
            connection.close()  # this runs in a worker thread: leave no connection behind
        cpus = {pid: procs.cpu_seconds(pid) for pid in pids}
        if None in cpus.values():
            return None  # not on this machine, or not readable
        return cpus


class RedisServer:
    name = "redis"

    def __init__(self, url):
        self.url = url

    def snapshot(self):
        if not self.url:
            return None
        import redis  # only with REDIS_URL

        client = redis.Redis.from_url(self.url)
        try:
            info = client.info("cpu")
        finally:
            client.close()
        return {"redis": float(info["used_cpu_sys"]) + float(info["used_cpu_user"])}


class Processes:
    """The CPU of local processes ``pids`` (a proxy's), under ``name``."""

    def __init__(self, name, pids):
        self.name = name
        self.pids = list(pids)

    def snapshot(self):
        cpus = {pid: procs.cpu_seconds(pid) for pid in self.pids}
        if not cpus or None in cpus.values():
            return None
        return cpus


def meters(application_name, proxy_pids=()):
    """The meters of a run whose servers name their connections ``application_name``, behind
    the proxy processes ``proxy_pids`` (none: no proxy)."""
    found = [PostgresBackends(application_name), RedisServer(os.environ.get("REDIS_URL"))]
    if proxy_pids:
        found.append(Processes("proxy", proxy_pids))
    return found


def increase(before, after):
    """CPU seconds between two snapshots, or None."""
    if before is None or after is None:
        return None
    return round(sum(cpu - before.get(key, 0.0) for key, cpu in after.items()), 3)
