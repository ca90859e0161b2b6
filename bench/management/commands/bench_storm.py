"""``python manage.py bench_storm``: the reconnect storm (issue #48). Two daphne processes share
the database and Redis: A holds the rooms' members' sockets, B serves the rooms' other members
(their sockets, their talk and rolls at a steady rate, their room pages). A is stopped (SIGTERM:
its sockets are closed with 4012; ``--kill``: SIGKILL, they see 1006) and started again on its
port; every socket reopens as the page does (bench/storm_client.py). It reports each socket's
time from A listening again until it is caught up, whether any entry was lost or came twice,
and how B answered the room pages meanwhile. See bench/README.md.

It needs REDIS_URL (two processes share their rooms through Redis); it runs on a temporary
SQLite file, or on DATABASE_URL. As bench_rolls, it first re-runs itself in its servers'
environment (bench/command.py)."""

import asyncio
import json
import os
import signal
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from bench import server as procs
from bench.command import OWN, in_tmp, rerun
from bench.runner import Server
from bench.storm import raise_file_limit, run_storm, storm_table_create, storm_table_delete
from rolls.management.commands.host import daphne_limits

#: The app as production serves it (config/asgi.py: draining on SIGTERM, config/shutdown.py),
#: run with the benchmark's settings (bench/settings.py: no per-user write limit).
APPLICATION = "config.asgi:application"
RERUN_OPTIONS = (
    "rooms",
    "held",
    "others",
    "rate",
    "gets",
    "before",
    "after",
    "limit",
    "grace",
    "processes",
    "cpu",
    "connect_timeout",
)
RERUN_FLAGS = ("json", "keep", "kill")


class Command(BaseCommand):
    help = "Benchmark a restarted process's sockets all coming back (the reconnect storm)."

    def add_arguments(self, parser):
        parser.add_argument("--rooms", type=int, default=100)
        parser.add_argument(
            "--held",
            type=int,
            default=50,
            help="members' sockets per room on the process (A) that restarts",
        )
        parser.add_argument(
            "--others",
            type=int,
            default=3,
            help="members per room (the GM first) on the process (B) that stays: a socket "
            "each, they write and load the room page",
        )
        parser.add_argument("--rate", type=float, default=20.0, help="writes/s through B")
        parser.add_argument("--gets", type=float, default=10.0, help="room page GETs/s on B")
        parser.add_argument("--before", type=float, default=3.0, help="seconds before the stop")
        parser.add_argument(
            "--after", type=float, default=2.0, help="seconds of traffic after all caught up"
        )
        parser.add_argument(
            "--limit", type=float, default=60.0, help="seconds to wait for all to catch up"
        )
        parser.add_argument(
            "--grace", type=float, default=15.0, help="seconds for the last entries at the end"
        )
        parser.add_argument(
            "--processes", type=int, default=4, help="client processes holding the sockets"
        )
        parser.add_argument(
            "--cpu",
            type=int,
            default=None,
            help="core of A, B on the next (default 1 with 2+ cores; -1: no pinning)",
        )
        parser.add_argument(
            "--connect-timeout",
            type=int,
            default=5,
            help="daphne's --websocket_connect_timeout for A and B, seconds: a handshake not "
            "accepted by then is refused (daphne's default: 5)",
        )
        parser.add_argument("--kill", action="store_true", help="SIGKILL A instead of SIGTERM")
        parser.add_argument("--json", action="store_true", help="print one JSON object only")
        parser.add_argument(
            "--keep", action="store_true", help="keep the temporary folder (database, logs)"
        )

    def handle(self, **options):
        if min(options["rooms"], options["held"], options["others"], options["processes"]) < 1:
            raise CommandError("--rooms, --held, --others and --processes are at least 1.")
        if options["rate"] <= 0 or options["gets"] < 0:
            raise CommandError("--rate is positive and --gets not negative.")
        if options["cpu"] is None:
            options["cpu"] = 1 if (os.cpu_count() or 1) > 1 else -1
        if not os.environ.get("REDIS_URL"):
            raise CommandError("Two processes share their rooms through Redis: set REDIS_URL.")
        if os.environ.get(OWN) != "1":
            rerun("bench_storm", options, RERUN_OPTIONS, RERUN_FLAGS)
        options["loadavg"] = os.getloadavg()  # before our servers: others' load
        out = in_tmp(self, options, lambda tmp: self.bench(options, tmp))
        if options["json"]:
            self.stdout.write(json.dumps(out))
        else:
            self.stdout.write(table(out))

    def bench(self, options, tmp):
        files = raise_file_limit()  # inherited by the servers and the client processes
        cpu = options["cpu"] if options["cpu"] >= 0 else None
        cores = (None, None) if cpu is None else (cpu, (cpu + 1) % os.cpu_count())
        started = {}
        call_command("migrate", verbosity=0, interactive=False)
        call_command("collectstatic", verbosity=0, interactive=False)
        rooms, held, others = options["rooms"], options["held"], options["others"]
        self.progress(options, f"creating {rooms} rooms x ({held} + {others}) members")
        table = storm_table_create(rooms=rooms, held=held, others=others)
        port_a, port_b = procs.free_ports(2)
        try:
            timeout = options["connect_timeout"]
            started["b"] = self.start(tmp, "b", port_b, cores[1], timeout)
            started["a"] = self.start(tmp, "a", port_a, cores[0], timeout)
            cpu_at = {}

            def restart():
                old = started["a"]
                cpu_at["a_old_stop"] = procs.cpu_seconds(old.pid)
                cpu_at["b_stop"] = procs.cpu_seconds(started["b"].pid)
                stopped = time.monotonic()
                old.popen.send_signal(signal.SIGKILL if options["kill"] else signal.SIGTERM)
                old.popen.wait(timeout=60)
                exit_s = time.monotonic() - stopped
                started["a"] = self.start(tmp, "a", port_a, cores[0], timeout)
                t0 = time.monotonic()
                cpu_at["a_listen"] = procs.cpu_seconds(started["a"].pid)
                return t0, exit_s

            def caught():
                cpu_at["a_caught"] = procs.cpu_seconds(started["a"].pid)
                cpu_at["b_caught"] = procs.cpu_seconds(started["b"].pid)

            result = asyncio.run(
                run_storm(
                    table,
                    server_a=Server("127.0.0.1", port_a),
                    server_b=Server("127.0.0.1", port_b),
                    restart=restart,
                    caught=caught,
                    options=options,
                    progress=lambda text: self.progress(options, text),
                )
            )
        except Exception as error:  # any failure: show the servers' logs with it
            logs = "".join(f"\n--- {p.log_path}:\n{p.tail()}" for p in started.values())
            raise CommandError(f"{type(error).__name__}: {error}{logs}") from error
        finally:
            for process in started.values():
                process.stop()
            if not str(settings.DATABASES["default"]["NAME"]).startswith(tmp):
                storm_table_delete(table)  # a database that outlives the benchmark
        config = {
            "rooms": rooms,
            "held": held,
            "others": others,
            "rate": options["rate"],
            "gets": options["gets"],
            "stop": "SIGKILL" if options["kill"] else "SIGTERM",
            "cpu": cpu if cpu is not None else -1,
            "connect_timeout": options["connect_timeout"],
            "open_files": files,
            "database": settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1],
            "layer": settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1],
            "loadavg_before": [round(x, 2) for x in options["loadavg"]],
            "loadavg_after": [round(x, 2) for x in os.getloadavg()],
        }
        result["cpu_s_a_to_catch_up"] = _less(cpu_at.get("a_caught"), cpu_at.get("a_listen"))
        result["cpu_s_a_boot"] = cpu_at.get("a_listen")
        a_cpu = result["cpu_s_a_to_catch_up"]
        result["cpu_ms_a_per_socket"] = a_cpu and round(1000 * a_cpu / result["watched"], 2)
        result["cpu_s_b_during_storm"] = _less(cpu_at.get("b_caught"), cpu_at.get("b_stop"))
        return {"config": config, **result}

    def start(self, tmp, name, port, core, connect_timeout):
        args = ["-b", "127.0.0.1", "-p", port, *daphne_limits()]
        args += ["--websocket_connect_timeout", connect_timeout, APPLICATION]
        process = procs.Process(
            procs.pinned(procs.python_module("daphne", *args), core),
            log_path=os.path.join(tmp, f"daphne-{name}.log"),
            cwd=settings.BASE_DIR,
        )
        try:
            process.wait_listening(port, timeout=60)
        except Exception:
            process.stop()
            raise
        return process

    def progress(self, options, text):
        if not options["json"]:
            self.stderr.write(text)


def _less(after, before):
    return None if after is None or before is None else round(after - before, 3)


def table(out):
    """The result as lines to read."""
    c = out["config"]
    pages, writes = out["pages_during_storm"], out["writes_during_storm"]
    lines = [
        f"{out['watched']} sockets on A ({c['rooms']} rooms x {c['held']}), "
        f"{out['sockets'] - out['watched']} on B; {c['database']}, {c['layer']}; "
        f"{out['client_processes']} client processes; stop: {c['stop']}",
        f"load average before {c['loadavg_before']}, after {c['loadavg_after']}",
        f"opened in {out['open_s']} s; A exited {out['stop_to_exit_s']} s after the signal, "
        f"listened again {out['stop_to_listen_s']} s after it",
        f"caught up: {out['caught_up']} of {out['watched']} (not: {out['not_caught']}), "
        f"from A listening: p50 {out['catch_up_p50_s']} s, p90 {out['catch_up_p90_s']} s, "
        f"p99 {out['catch_up_p99_s']} s, max {out['catch_up_max_s']} s; "
        f"within 10 s: {out['caught_within_10s']}",
        f"tries per socket: p50 {out['tries_p50']}, max {out['tries_max']}; close codes "
        f"{out['close_codes']}",
        f"entries: {out['entries_total']} in all; lost {out['lost']}, duplicated "
        f"{out['duplicated']}, out of order {out['out_of_order']}, gaps reopened "
        f"{out['gaps_reopened']}",
        f"room pages on B during the storm ({pages['count']}): p50 {pages['p50_ms']} ms, "
        f"p99 {pages['p99_ms']} ms, max {pages['max_ms']} ms, over 1 s: {pages['over_1s']}, "
        f"errors {pages['errors']}",
        f"writes on B during the storm ({writes['count']}): p50 {writes['p50_ms']} ms, "
        f"p99 {writes['p99_ms']} ms, max {writes['max_ms']} ms, errors {writes['errors']}",
        f"CPU: A {out['cpu_s_a_to_catch_up']} s from listening to caught up (booting: "
        f"{out['cpu_s_a_boot']} s; {out['cpu_ms_a_per_socket']} ms per socket), "
        f"B {out['cpu_s_b_during_storm']} s from the stop; {out['frames']} frames in all",
    ]
    if out["client_errors"]:
        lines.append(f"client errors: {out['client_errors']}")
    return "\n".join(lines)
