"""``python manage.py bench_rolls``: rolls posted over HTTP to real rooms, measured until they
reach every player's websocket, against three floors. See bench/README.md.

Without ``--url`` it starts its own daphne server (``bench.asgi``, ``bench.settings``: the app's
production settings with the floors routed; DEBUG off, plain HTTP on loopback, the websocket
limits ``manage.py host`` gives daphne) on a temporary SQLite database, or on DATABASE_URL /
REDIS_URL when they are set; to share that server's settings the command first re-runs itself
in that environment. With ``--url`` it uses running
servers: the environment must then name their database and DJANGO_SECRET_KEY (the benchmark
logs its players in by writing sessions), and they route the floors only when they run
``bench.asgi:application`` with ``DJANGO_SETTINGS_MODULE=bench.settings`` (or pass
``--skip-floors``).
"""

import asyncio
import json
import os
import random
import secrets
import shutil
import sys
import tempfile
from urllib.parse import urlsplit

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from rolls.management.commands.host import daphne_limits

from . import meters, report
from . import server as procs
from .data import table_create, table_delete
from .runner import Server, run_all

#: Set in the environment of the re-run command: it runs its own server(s) in it.
OWN = "ROLLROOM_BENCH_OWN"
TMP = "ROLLROOM_BENCH_TMP"
#: The settings and the ASGI application of the servers the benchmark starts: with the floors.
SETTINGS = "bench.settings"
APPLICATION = "bench.asgi:application"
RERUN_OPTIONS = ("rooms", "clients", "rate", "seconds", "cpu", "servers", "grace", "seed")
#: The rates (rolls/s) of ``--ladder``, climbed until one is past the knee (report.KNEE_MS).
LADDER = (20, 40, 60, 80, 100, 130, 160, 200, 250, 320, 400)


def roll_count(rate, seconds):
    """How many rolls a run sends at ``rate`` rolls/s for ``seconds``: one at least."""
    return max(1, round(rate * seconds))


def server_env(tmp):
    env = dict(os.environ)
    env.update(
        {
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
            "DJANGO_SECURE": "0",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DJANGO_SETTINGS_MODULE": SETTINGS,
            "DJANGO_STATIC_ROOT": os.path.join(tmp, "static"),
            OWN: "1",
            TMP: tmp,
        }
    )
    if not env.get("DATABASE_URL"):
        env["SQLITE_PATH"] = os.path.join(tmp, "bench.sqlite3")
    return env


def rerun(name, options, values, flags):
    """Run the command ``name`` again in a server's environment (``server_env``), with the
    ``values`` of ``options`` and those of its ``flags`` set; never returns."""
    argv = [sys.executable, os.path.join(settings.BASE_DIR, "manage.py"), name]
    argv += [f"--{option.replace('_', '-')}={options[option]}" for option in values]
    argv += ["--" + flag.replace("_", "-") for flag in flags if options[flag]]
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, argv, server_env(tempfile.mkdtemp(prefix="rollroom-bench-")))


def in_tmp(command, options, bench):
    """``bench(tmp)``'s result, ``tmp`` the run's temporary folder (the re-run's own), removed
    after unless ``--keep``."""
    tmp = os.environ.get(TMP) or tempfile.mkdtemp(prefix="rollroom-bench-")
    try:
        return bench(tmp)
    finally:
        if options["keep"]:
            command.stderr.write(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


class Command(BaseCommand):
    help = "Benchmark rolls from POST to every socket of the room, against three floors."

    def add_arguments(self, parser):
        parser.add_argument("--rooms", type=int, default=10)
        parser.add_argument("--clients", type=int, default=8, help="players' sockets per room")
        parser.add_argument("--rate", type=float, default=20.0, help="rolls per second")
        parser.add_argument("--seconds", type=float, default=10.0)
        parser.add_argument("--json", action="store_true", help="print one JSON object only")
        parser.add_argument("--url", help="running server(s), comma-separated http://host:port")
        parser.add_argument(
            "--cpu",
            type=int,
            default=None,
            help="core of the server (default 1 with 2+ cores; -1: no pinning)",
        )
        parser.add_argument("--servers", type=int, default=1, help="daphne processes to start")
        parser.add_argument(
            "--skip-floors",
            action="store_true",
            help=f"app only (a --url server has floors only when it runs {APPLICATION})",
        )
        parser.add_argument("--grace", type=float, default=5.0, help="seconds to wait after")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument(
            "--keep", action="store_true", help="keep the temporary folder (database, logs)"
        )
        parser.add_argument(
            "--ladder",
            action="store_true",
            help="then the app alone at rising rates, --seconds each, to find where it saturates",
        )

    def handle(self, **options):
        if options["rooms"] < 1 or options["clients"] < 1 or options["servers"] < 1:
            raise CommandError("--rooms, --clients and --servers are at least 1.")
        if options["rate"] <= 0 or options["seconds"] <= 0:
            raise CommandError("--rate and --seconds are positive.")
        if options["cpu"] is None:
            options["cpu"] = 1 if (os.cpu_count() or 1) > 1 else -1
        if not options["url"] and os.environ.get(OWN) != "1":
            self.rerun(options)
        options["loadavg"] = os.getloadavg()[0]  # before our servers: others' load
        out = in_tmp(self, options, lambda tmp: self.bench(options, tmp))
        if options["json"]:
            self.stdout.write(json.dumps(out))
        else:
            self.stdout.write(report.table(out))

    def rerun(self, options):
        """Run this command again in the server's environment (never returns)."""
        if options["servers"] > 1 and not os.environ.get("REDIS_URL"):
            raise CommandError("Several servers share their rooms through Redis: set REDIS_URL.")
        rerun("bench_rolls", options, RERUN_OPTIONS, ("json", "skip_floors", "keep", "ladder"))

    def bench(self, options, tmp):
        cpu = options["cpu"] if options["cpu"] >= 0 else None
        started = []
        # The name the started servers' database connections carry (bench/meters.py).
        self.application_name = None if options["url"] else f"rollroom-bench-{secrets.token_hex(4)}"
        try:
            if options["url"]:
                servers = [self.running(url) for url in options["url"].split(",")]
            else:
                call_command("migrate", verbosity=0, interactive=False)
                call_command("collectstatic", verbosity=0, interactive=False)
                servers = [self.start(tmp, k, cpu, started) for k in range(options["servers"])]
            core = procs.generator_core(cpu)
            if core is not None:
                os.sched_setaffinity(0, {core})
            return self.measure(options, servers, cpu, tmp, started)
        except Exception as error:  # any failure: show the servers' logs with it
            logs = "".join(f"\n--- {p.log_path}:\n{p.tail()}" for p in started)
            raise CommandError(f"{type(error).__name__}: {error}{logs}") from error
        finally:
            for process in started:
                process.stop()

    def running(self, url):
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.port:
            raise CommandError(f"--url takes http://host:port, not {url!r}.")
        local = parts.hostname in ("127.0.0.1", "localhost")
        pid = procs.pid_listening(parts.port) if local else None
        return Server(parts.hostname, parts.port, pid)

    def start(self, tmp, k, cpu, started, module="daphne"):
        port = procs.free_port()
        core = None if cpu is None else (cpu + k) % os.cpu_count()
        if module == "daphne":
            args = ["-b", "127.0.0.1", "-p", port, *daphne_limits(), APPLICATION]
        else:
            args = [port]
        process = procs.Process(
            procs.pinned(procs.python_module(module, *args), core),
            log_path=os.path.join(tmp, f"{module}-{k}.log"),
            env={**os.environ, meters.APPLICATION_NAME: self.application_name or ""},
            cwd=settings.BASE_DIR,
        )
        started.append(process)
        process.wait_listening(port)
        return Server("127.0.0.1", port, process.pid)

    def measure(self, options, servers, cpu, tmp, started):
        rooms, clients = options["rooms"], options["clients"]

        def raw_floor():
            raw = self.start(tmp, 0, cpu, started, module="bench.wsfloor")
            return raw, started.pop().stop

        self.progress(options, f"running against {', '.join(s.origin for s in servers)}")
        phases = self.phases(
            options, servers, options["rate"], tmp, floors=not options["skip_floors"], raw=raw_floor
        )
        ladder = None
        if options["ladder"]:
            ladder = []
            for rate in LADDER:
                self.progress(options, f"ladder: {rate} rolls/s")
                step = self.phases(options, servers, rate, tmp, settle=True)["app"]
                step = {"rate": rate, **step}
                ladder.append(step)
                if not report.under_the_knee(step):
                    break
        config = {
            "rooms": rooms,
            "clients": clients,
            "rate": options["rate"],
            "seconds": options["seconds"],
            "sends": roll_count(options["rate"], options["seconds"]),
            "servers": len(servers),
            "cpu": cpu if cpu is not None else -1,
            "database": settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1],
            "layer": settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1],
            "loadavg_1m": round(options["loadavg"], 2),  # others' load skews every figure
        }
        return report.result(config, phases, ladder)

    def phases(self, options, servers, rate, tmp, *, floors=False, raw=None, settle=False):
        """The app's phase (and the floors') at ``rate`` rolls/s for ``--seconds``, on rooms,
        players and checks of its own."""
        rooms, clients = options["rooms"], options["clients"]
        rng = random.Random(options["seed"])
        count = roll_count(rate, options["seconds"])
        sends = [(rng.randrange(rooms), rng.randrange(clients)) for _ in range(count)]
        warmups = [(room, room % clients) for room in range(rooms)]
        self.progress(options, f"creating {rooms} rooms x {clients} players, {count} checks")
        table = table_create(rooms=rooms, clients=clients, sends=sends, warmups=warmups)
        try:
            return asyncio.run(
                run_all(
                    table,
                    servers,
                    sends=sends,
                    warmups=warmups,
                    rooms=rooms,
                    clients=clients,
                    rate=rate,
                    grace=options["grace"],
                    floors=floors,
                    raw_floor=raw,
                    meters=meters.meters(self.application_name),
                    settle=settle,
                )
            )
        finally:
            if not str(settings.DATABASES["default"]["NAME"]).startswith(tmp):
                table_delete(table)  # a database that outlives the benchmark

    def progress(self, options, text):
        if not options["json"]:
            self.stderr.write(text)
