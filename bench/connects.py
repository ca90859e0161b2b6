"""``python manage.py bench_connects``: what a room socket's connect and disconnect cost one
daphne process (issue #48). See bench/README.md, "A room socket's connect, and its cost".

It starts a daphne (``bench.asgi``, production settings, pinned to one core, as
``bench_sockets`` starts it) and, ``--rounds`` times, opens ``--sockets`` room sockets spread
over ``--rooms`` rooms (``/ws/campaigns/<id>/?after=0`` with a member's session cookie, as a
page opens them: ``bench.crowd``'s holders, on the other core), waits for the server to be
quiet, then closes them all and waits again. Per round it reports the time to open them (and
the rate), and daphne's CPU per connect and per disconnect: in all, in its main thread (the
event loop: the ASGI application, the channel layer's Redis traffic, daphne's own protocol
work) and in its other threads (Channels' database thread, where ``database_sync_to_async``
runs, and the database driver's), with the PostgreSQL backends' and the Redis server's CPU
beside (``bench.meters``). ``--profile FILE`` samples daphne with py-spy (when installed:
``pip install py-spy``; not a requirement of the project) over the rounds, into FILE: the
samples holding the GIL only (``--gil``: what the process spends its core on), as py-spy's
collapsed stacks (``--format raw``; ``python -m bench.stacks FILE`` sums them).

It runs on a temporary SQLite database, or on DATABASE_URL / REDIS_URL when they are set (and
removes what it made there), re-running itself in the server's environment first.
"""

import asyncio
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.utils.crypto import get_random_string

from . import meters
from . import server as procs
from .command import APPLICATION, OWN, in_tmp, rerun
from .crowd import Holders, crowd_create, crowd_delete
from .runner import Server
from .sockets import nofile_raised, quiet

RERUN_OPTIONS = ("sockets", "rooms", "holders", "rounds", "cpu", "profile", "rate")
RERUN_FLAGS = ("json", "keep")
#: Sockets opened and closed once before the rounds (imports, templates, pools warmed).
WARMUP = 20


def thread_cpu(pid):
    """{tid: (name, CPU seconds)} of the threads of ``pid``."""
    out = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as stat:
                head, tail = stat.read().rsplit(")", 1)
        except OSError:
            continue
        fields = tail.split()
        name = head.split("(", 1)[1]
        out[int(tid)] = (name, (int(fields[11]) + int(fields[12])) / procs.TICKS)
    return out


def split_cpu(pid, before, after):
    """(main thread's, other threads') CPU seconds between two ``thread_cpu`` snapshots."""
    main = others = 0.0
    for tid, (_, cpu) in after.items():
        spent = cpu - before.get(tid, ("", 0.0))[1]
        if tid == pid:
            main += spent
        else:
            others += spent
    return main, others


class Command(BaseCommand):
    help = "Benchmark a room socket's connect and disconnect on one daphne process."

    def add_arguments(self, parser):
        parser.add_argument("--sockets", type=int, default=1000, help="sockets opened per round")
        parser.add_argument("--rooms", type=int, default=20, help="rooms of the sockets")
        parser.add_argument("--holders", type=int, default=2, help="client processes")
        parser.add_argument("--rounds", type=int, default=2, help="opens and closes measured")
        parser.add_argument(
            "--cpu", type=int, default=None, help="the server's core (default 1; -1: no pinning)"
        )
        parser.add_argument(
            "--profile", default="", help="sample daphne with py-spy into this file (raw)"
        )
        parser.add_argument("--rate", type=int, default=250, help="py-spy's samples per second")
        parser.add_argument("--json", action="store_true", help="print one JSON object only")
        parser.add_argument("--keep", action="store_true", help="keep the temporary folder")

    def handle(self, **options):
        if options["sockets"] < 1 or options["rooms"] < 1 or options["rounds"] < 1:
            raise CommandError("--sockets, --rooms and --rounds are at least 1.")
        if options["cpu"] is None:
            options["cpu"] = 1 if (os.cpu_count() or 1) > 1 else -1
        if options["profile"]:
            options["profile"] = os.path.abspath(options["profile"])
        nofile = nofile_raised()
        if options["sockets"] + 100 > nofile:
            raise CommandError(f"{options['sockets']} sockets need more open files than {nofile}.")
        if os.environ.get(OWN) != "1":
            rerun("bench_connects", options, RERUN_OPTIONS, RERUN_FLAGS)
        options["loadavg"] = os.getloadavg()
        out = in_tmp(self, options, lambda tmp: self.bench(options, tmp))
        out["config"]["loadavg_after"] = [round(v, 2) for v in os.getloadavg()]
        self.stdout.write(json.dumps(out) if options["json"] else table(out))

    def bench(self, options, tmp):
        cpu = options["cpu"] if options["cpu"] >= 0 else None
        self.application_name = f"rollroom-bench-{get_random_string(8).lower()}"
        call_command("migrate", verbosity=0, interactive=False)
        call_command("collectstatic", verbosity=0, interactive=False)
        rooms = options["rooms"]
        members = math.ceil(max(options["sockets"], WARMUP) / rooms)
        crowd = crowd_create(rooms=rooms, members=members, tag=get_random_string(6).lower())
        client_core = procs.generator_core(cpu)
        process = spy = None
        try:
            process, server = self.start(tmp, cpu)
            warm = Holders(crowd.targets(WARMUP, server.socket_url), origin=server.origin, count=1)
            warm.open()
            warm.close()
            asyncio.run(quiet(server.pid))
            if options["profile"]:
                spy = self.spy(options, server.pid)
            rounds = [
                self.round(options, crowd, server, client_core) for _ in range(options["rounds"])
            ]
        except Exception as error:
            tail = process.tail() if process else ""
            raise CommandError(f"{type(error).__name__}: {error}\n{tail}") from error
        finally:
            if spy is not None:
                spy.send_signal(signal.SIGINT)
                try:
                    spy.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    spy.kill()
            if process is not None:
                process.stop()
            if not str(settings.DATABASES["default"]["NAME"]).startswith(tmp):
                crowd_delete(crowd)
        config = {
            "sockets": options["sockets"],
            "rooms": rooms,
            "holders": options["holders"],
            "cpu": cpu if cpu is not None else -1,
            "database": settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1],
            "layer": settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1],
            "profile": options["profile"] or None,
            "loadavg_before": [round(v, 2) for v in options["loadavg"]],
        }
        return {"config": config, "rounds": rounds}

    def start(self, tmp, cpu):
        process, port = procs.start_daphne(
            APPLICATION,
            cpu=cpu,
            log_path=os.path.join(tmp, "daphne.log"),
            application_name=self.application_name,
        )
        return process, Server("127.0.0.1", port, process.pid)

    def spy(self, options, pid):
        found = shutil.which("py-spy") or os.path.join(os.path.dirname(sys.executable), "py-spy")
        if not os.path.exists(found):
            raise CommandError("--profile needs py-spy (pip install py-spy).")
        command = [found, "record", "--pid", str(pid), "--rate", str(options["rate"])]
        command += ["--format", "raw", "--threads", "--gil", "--nonblocking"]
        command += ["-o", options["profile"]]
        return subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )

    def round(self, options, crowd, server, client_core):
        pid, n = server.pid, options["sockets"]
        counters = meters.meters(self.application_name)
        holders = Holders(
            crowd.targets(n, server.socket_url),
            origin=server.origin,
            count=options["holders"],
            core=client_core,
        )
        try:
            t0, m0 = thread_cpu(pid), [m.snapshot() for m in counters]
            opened = holders.open()
            asyncio.run(quiet(pid))
            t1, m1 = thread_cpu(pid), [m.snapshot() for m in counters]
        finally:
            started = time.monotonic()
            holders.close()
            close_s = time.monotonic() - started
            asyncio.run(quiet(pid))
        t2, m2 = thread_cpu(pid), [m.snapshot() for m in counters]
        main_in, others_in = split_cpu(pid, t0, t1)
        main_out, others_out = split_cpu(pid, t1, t2)

        def per(seconds):
            return None if seconds is None else round(1000 * seconds / n, 3)

        out = {
            "opened": opened["opened"],
            "failed": opened["failed"],
            "first_error": opened["first_error"],
            "open_s": round(opened["seconds"], 2),
            "opened_per_s": round(opened["opened"] / opened["seconds"], 1),
            "close_s": round(close_s, 2),
            "connect_ms": per(main_in + others_in),
            "connect_main_ms": per(main_in),
            "connect_threads_ms": per(others_in),
            "disconnect_ms": per(main_out + others_out),
            "disconnect_main_ms": per(main_out),
            "disconnect_threads_ms": per(others_out),
            "threads": sorted({name for name, _ in t1.values()}),
        }
        for meter, a, b, c in zip(counters, m0, m1, m2, strict=True):
            out[f"{meter.name}_connect_ms"] = per(meters.increase(a, b))
            out[f"{meter.name}_disconnect_ms"] = per(meters.increase(b, c))
        return out


def table(out):
    config = out["config"]
    lines = [
        f"{config['database']} + {config['layer']}; {config['sockets']} sockets over "
        f"{config['rooms']} rooms; load {config['loadavg_before']} -> {config['loadavg_after']}",
        f"{'open s':>7} {'per s':>6} {'failed':>6} {'connect ms':>11} {'(main':>6} "
        f"{'threads)':>8} {'pg':>6} {'redis':>6} {'disconnect ms':>14} {'(main':>6} "
        f"{'threads)':>8}",
    ]
    for r in out["rounds"]:
        lines.append(
            f"{r['open_s']:>7} {r['opened_per_s']:>6} {r['failed']:>6} {r['connect_ms']:>11} "
            f"{r['connect_main_ms']:>6} {r['connect_threads_ms']:>8} "
            f"{r.get('pg_connect_ms')!s:>6} {r.get('redis_connect_ms')!s:>6} "
            f"{r['disconnect_ms']:>14} {r['disconnect_main_ms']:>6} "
            f"{r['disconnect_threads_ms']:>8}"
        )
    return "\n".join(lines)
