"""``python manage.py bench_rolls``: rolls posted over HTTP to real rooms, measured until they
reach every player's websocket, against four floors. See bench/README.md.

Without ``--url`` it starts its own daphne server (``bench.asgi``, ``bench.settings``: the app's
production settings with the floors routed; DEBUG off, plain HTTP on loopback, the websocket
limits ``manage.py host`` gives daphne) on a temporary SQLite database, or on DATABASE_URL /
REDIS_URL when they are set; to share that server's settings the command first re-runs itself
in that environment. With ``--through-caddy`` it starts Caddy too (deploy/Caddyfile with
``tls internal``, bench/caddy.py) in front of its daphne processes, which then run as behind
the production proxy (DJANGO_SECURE=1, the site's name the only host), and drives them through
it over HTTPS and wss.

With ``--url`` it uses running servers, over http:// or https:// (``--ca``: the authority to
trust; ``--resolve``: where a name is): the environment must then name their database (the
benchmark writes its rooms, players and sessions there through the ORM), their Redis (the
sessions' cache) and their DJANGO_SECRET_KEY (which signs the sessions), and they route the
floors only when they run ``bench.asgi:application`` with ``DJANGO_SETTINGS_MODULE=bench.settings``
(or pass ``--skip-floors``). A server's CPU is measured when a local Python process listens on
its port; a proxy's (any other program there, e.g. Caddy) is reported as the proxy's, and the
processes behind it are then not measured.
"""

import asyncio
import ipaddress
import json
import os
import random
import secrets
import shutil
import ssl
import sys
import tempfile
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from rolls.management.commands.host import daphne_limits

from . import meters, report
from . import server as procs
from .caddy import CADDY, DOMAIN, Caddy
from .caddy import installed as caddy_installed
from .data import table_create, table_delete
from .runner import Server, run_all

#: Set in the environment of the re-run command: it runs its own server(s) in it.
OWN = "ROLLROOM_BENCH_OWN"
TMP = "ROLLROOM_BENCH_TMP"
#: The settings and the ASGI application of the servers the benchmark starts: with the floors.
SETTINGS = "bench.settings"
APPLICATION = "bench.asgi:application"
RERUN_OPTIONS = ("rooms", "clients", "rate", "seconds", "cpu", "servers", "grace", "seed")
RERUN_FLAGS = ("json", "skip_floors", "keep", "ladder", "through_caddy")
LOOPBACK = ("127.0.0.1", "localhost", "::1")
DEFAULT_PORTS = {"http": 80, "https": 443}
#: The rates (rolls/s) of ``--ladder``, climbed until one is past the knee (report.KNEE_MS).
LADDER = (20, 40, 60, 80, 100, 130, 160, 200, 250, 320, 400)


@dataclass
class Endpoints:
    """What the clients talk to (``servers``: runner.Server each), the app's processes whose
    CPU is measured (``pids``, None where unknown), the ``proxy_pids`` of the ``proxy`` in
    front of them (its name), and ``notes``: what cannot be measured, and why."""

    servers: list
    pids: list
    proxy_pids: list = field(default_factory=list)
    proxy: str | None = None
    notes: list = field(default_factory=list)


def resolved(values):
    """{name: IP} of ``--resolve NAME:IP`` values."""
    names = {}
    for value in values:
        name, _, address = value.partition(":")
        address = address.strip("[]")
        try:
            ipaddress.ip_address(address)
        except ValueError:
            name = ""
        if not name:
            raise CommandError(f"--resolve takes NAME:IP (rollroom.test:127.0.0.1), not {value!r}.")
        names[name.lower()] = address
    return names


def tls_context(ca):
    """The client's TLS context: trusting the authority in the file ``ca`` alone, else the
    system's (OpenSSL's default paths, which SSL_CERT_FILE and SSL_CERT_DIR override)."""
    if not ca:
        return ssl.create_default_context()
    try:
        return ssl.create_default_context(cafile=ca)
    except (OSError, ssl.SSLError) as error:
        raise CommandError(f"--ca {ca}: not a readable PEM certificate ({error}).") from None


def endpoints(urls, ca=None, resolve=()):
    """The Endpoints of ``--url`` (comma-separated http(s)://host[:port]): a local Python
    process listening on a URL's port is its server, measured; any other program there is a
    proxy in front (its CPU measured as the proxy's), and what it proxies to is not known."""
    names = resolved(resolve)
    found = Endpoints([], [])
    context = None
    for url in urls.split(","):
        parts = urlsplit(url.strip())
        try:
            port = parts.port or DEFAULT_PORTS.get(parts.scheme)
        except ValueError:
            port = None
        if parts.scheme not in DEFAULT_PORTS or not parts.hostname or not port:
            raise CommandError(f"--url takes http://host:port or https://host[:port], not {url!r}.")
        if parts.path not in ("", "/") or parts.query:
            raise CommandError(f"--url takes a server's origin, without a path: not {url!r}.")
        if parts.scheme == "https" and context is None:
            context = tls_context(ca)
        address = names.get(parts.hostname)
        server = Server(
            parts.hostname,
            port,
            scheme=parts.scheme,
            address=address,
            ssl=context if parts.scheme == "https" else None,
        )
        pid = procs.pid_listening(port) if (address or parts.hostname) in LOOPBACK else None
        name = procs.process_name(pid) if pid else None
        if pid is None or name is None:
            found.notes.append(
                f"{server.origin}: no process found listening on port {port} of this machine "
                "(or none this user may read): its CPU is not measured"
            )
        elif procs.is_python(name):
            server.pid = pid
        else:
            found.proxy, found.proxy_pids = name, sorted({*found.proxy_pids, pid})
            found.notes.append(
                f"{server.origin}: port {port} is {name}'s (pid {pid}), a proxy: its CPU is the "
                "proxy's (proxy_cpu_*); the processes behind it are not measured"
            )
        found.servers.append(server)
        found.pids.append(server.pid)
    return found


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
    help = "Benchmark rolls from POST to every socket of the room, against four floors."

    def add_arguments(self, parser):
        parser.add_argument("--rooms", type=int, default=10)
        parser.add_argument("--clients", type=int, default=8, help="players' sockets per room")
        parser.add_argument("--rate", type=float, default=20.0, help="rolls per second")
        parser.add_argument("--seconds", type=float, default=10.0)
        parser.add_argument("--json", action="store_true", help="print one JSON object only")
        parser.add_argument(
            "--url",
            help="running server(s) instead, comma-separated http(s)://host[:port]; over https "
            "the sockets are wss. The environment must name their database, Redis and "
            "DJANGO_SECRET_KEY: the rooms, players and sessions are written there",
        )
        parser.add_argument(
            "--ca",
            metavar="FILE",
            help="with --url: the certificate authority (PEM) to trust alone for https, e.g. "
            "Caddy's `tls internal` root, pki/authorities/local/root.crt in its storage "
            "(default: the system's authorities, or those of SSL_CERT_FILE)",
        )
        parser.add_argument(
            "--resolve",
            metavar="NAME:IP",
            action="append",
            default=[],
            help="with --url: connect to IP for the host NAME of a URL, which stays the Host, "
            "the Origin and the TLS server name (as curl's --resolve); may be repeated",
        )
        parser.add_argument(
            "--through-caddy",
            action="store_true",
            help="start Caddy (deploy/Caddyfile, tls internal, on 127.0.0.1) in front of the "
            f"--servers daphne processes and drive them through it over HTTPS as {DOMAIN}",
        )
        parser.add_argument(
            "--cpu",
            type=int,
            default=None,
            help="core of the server, the next ones of the others; Caddy on theirs "
            "(default 1 with 2+ cores; -1: no pinning)",
        )
        parser.add_argument(
            "--servers",
            type=int,
            default=1,
            help="daphne processes to start (with --through-caddy: behind Caddy)",
        )
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
        if options["url"] and options["through_caddy"]:
            raise CommandError("--through-caddy starts its own servers: leave --url out.")
        if (options["ca"] or options["resolve"]) and not options["url"]:
            raise CommandError("--ca and --resolve go with --url.")
        if options["through_caddy"] and not caddy_installed():
            raise CommandError(f"--through-caddy needs Caddy at {CADDY} (apt-get install caddy).")
        if options["url"]:
            self.running = endpoints(options["url"], options["ca"], options["resolve"])
        elif os.environ.get(OWN) != "1":
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
        rerun("bench_rolls", options, RERUN_OPTIONS, RERUN_FLAGS)

    def bench(self, options, tmp):
        cpu = options["cpu"] if options["cpu"] >= 0 else None
        started = []
        # The name the started servers' database connections carry (bench/meters.py).
        self.application_name = None if options["url"] else f"rollroom-bench-{secrets.token_hex(4)}"
        try:
            if options["url"]:
                found = self.running
            else:
                call_command("migrate", verbosity=0, interactive=False)
                call_command("collectstatic", verbosity=0, interactive=False)
                count = options["servers"]
                if options["through_caddy"]:
                    found = self.behind_caddy(tmp, count, cpu, started)
                else:
                    servers = [self.start(tmp, k, cpu, started) for k in range(count)]
                    found = Endpoints(servers, [s.pid for s in servers])
            core = procs.generator_core(cpu)
            if core is not None:
                os.sched_setaffinity(0, {core})
            return self.measure(options, found, cpu, tmp, started)
        except Exception as error:  # any failure: show the servers' logs with it
            logs = "".join(f"\n--- {p.log_path}:\n{p.tail()}" for p in started)
            raise CommandError(f"{type(error).__name__}: {error}{logs}") from error
        finally:
            for process in reversed(started):  # the proxy first, then what it proxies to
                process.stop()

    def behind_caddy(self, tmp, count, cpu, started):
        """Caddy in front of ``count`` daphne processes started for it (each configured as
        /etc/rollroom/env would, Caddy pinned to their cores): one https endpoint, the name
        mapped to 127.0.0.1 and Caddy's own authority trusted."""
        *ports, https_port, http_port = procs.free_ports(count + 2)
        cores = None if cpu is None else {(cpu + k) % os.cpu_count() for k in range(count)}
        caddy = Caddy(
            os.path.join(tmp, "caddy"),
            DOMAIN,
            [f"127.0.0.1:{port}" for port in ports],
            https_port=https_port,
            http_port=http_port,
            cores=cores,
        )
        env = caddy.upstream_env()
        apps = [self.start(tmp, k, cpu, started, port=p, env=env) for k, p in enumerate(ports)]
        started.append(caddy)
        caddy.start()
        endpoint = Server(
            DOMAIN, https_port, scheme="https", address="127.0.0.1", ssl=caddy.ssl_context()
        )
        return Endpoints([endpoint], [s.pid for s in apps], [caddy.pid], "caddy")

    def start(self, tmp, k, cpu, started, module="daphne", port=None, env=None):
        """Start ``module`` (daphne with the benchmark's application, or the raw floor) on
        ``port`` (a free one by default), with ``env`` over this environment."""
        port = port or procs.free_port()
        core = None if cpu is None else (cpu + k) % os.cpu_count()
        if module == "daphne":
            args = ["-b", "127.0.0.1", "-p", port, *daphne_limits(), APPLICATION]
        else:
            args = [port]
        process = procs.Process(
            procs.pinned(procs.python_module(module, *args), core),
            log_path=os.path.join(tmp, f"{module}-{k}.log"),
            env={**os.environ, meters.APPLICATION_NAME: self.application_name or "", **(env or {})},
            cwd=settings.BASE_DIR,
        )
        started.append(process)
        process.wait_listening(port)
        return Server("127.0.0.1", port, process.pid)

    def measure(self, options, found, cpu, tmp, started):
        rooms, clients = options["rooms"], options["clients"]
        floors = not options["skip_floors"]

        def raw_floor():
            raw = self.start(tmp, 0, cpu, started, module="bench.wsfloor")
            return raw, started.pop().stop

        origins = [s.origin for s in found.servers]
        self.progress(options, f"running against {', '.join(origins)}")
        phases = self.phases(options, found, options["rate"], tmp, floors=floors, raw=raw_floor)
        ladder = None
        if options["ladder"]:
            ladder = []
            for rate in LADDER:
                self.progress(options, f"ladder: {rate} rolls/s")
                step = self.phases(options, found, rate, tmp, settle=True)["app"]
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
            # The app's processes: those started (behind the proxy, with --through-caddy), or
            # the servers of --url; those whose CPU is measured (a proxy's port: none).
            "servers": len(found.pids),
            "measured": sum(pid is not None for pid in found.pids),
            "endpoints": origins,
            "proxy": found.proxy,
            "cpu": cpu if cpu is not None else -1,
            "database": settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1],
            "layer": settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1],
            "loadavg_1m": round(options["loadavg"], 2),  # others' load skews every figure
        }
        notes = list(found.notes)
        if options["url"] and config["database"] == "postgresql":
            notes.append(
                "PostgreSQL's backends: measured only for servers the benchmark starts (pg_cpu_* -)"
            )
        if floors and (found.proxy or any(s.scheme == "https" for s in found.servers)):
            notes.append(
                "floor_websockets: a plain ws server on loopback, neither through the proxy nor "
                "over TLS (floor_django, floor_http and floor_channels are)"
            )
        return report.result(config, phases, ladder, notes)

    def phases(self, options, found, rate, tmp, *, floors=False, raw=None, settle=False):
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
                    found.servers,
                    sends=sends,
                    warmups=warmups,
                    rooms=rooms,
                    clients=clients,
                    rate=rate,
                    grace=options["grace"],
                    floors=floors,
                    raw_floor=raw,
                    meters=meters.meters(self.application_name, found.proxy_pids),
                    pids=found.pids,
                    settle=settle,
                )
            )
        finally:
            if not str(settings.DATABASES["default"]["NAME"]).startswith(tmp):
                table_delete(table)  # a database that outlives the benchmark

    def progress(self, options, text):
        if not options["json"]:
            self.stderr.write(text)
