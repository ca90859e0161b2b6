"""``python manage.py bench_drain``: a daphne process holding many room sockets told to stop
(SIGTERM, config/shutdown.py's drain), timed from the signal to its exit, with the close code
each socket got (issue #48). The sockets stay closed (in production the pages reopen through
the proxy on another process); ``--py-spy FILE`` records the process's stacks while it drains
(a speedscope file). One daphne process, the app as production serves it, on a temporary
SQLite file or DATABASE_URL, with REDIS_URL's channel layer (required). See bench/README.md."""

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from bench import server as procs
from bench.command import OWN, in_tmp, rerun
from bench.runner import Server
from bench.storm import raise_file_limit, storm_table_create, storm_table_delete
from rolls.management.commands.host import daphne_limits

APPLICATION = "config.asgi:application"
RERUN_OPTIONS = ("rooms", "held", "processes", "cpu", "py_spy")
RERUN_FLAGS = ("json", "keep")


class Command(BaseCommand):
    help = "Benchmark a process's drain: SIGTERM with many room sockets open, until it exits."

    def add_arguments(self, parser):
        parser.add_argument("--rooms", type=int, default=40)
        parser.add_argument("--held", type=int, default=50, help="sockets per room")
        parser.add_argument("--processes", type=int, default=2, help="client processes")
        parser.add_argument(
            "--cpu", type=int, default=None, help="core of the server (default 1; -1: none)"
        )
        parser.add_argument("--py-spy", default="", help="record the drain's stacks to this file")
        parser.add_argument("--json", action="store_true")
        parser.add_argument("--keep", action="store_true")

    def handle(self, **options):
        if not os.environ.get("REDIS_URL"):
            raise CommandError("The drain's groups and presence lists go through Redis: set it.")
        if options["cpu"] is None:
            options["cpu"] = 1 if (os.cpu_count() or 1) > 1 else -1
        if os.environ.get(OWN) != "1":
            rerun("bench_drain", options, RERUN_OPTIONS, RERUN_FLAGS)
        options["loadavg"] = os.getloadavg()
        out = in_tmp(self, options, lambda tmp: self.bench(options, tmp))
        self.stdout.write(json.dumps(out) if options["json"] else json.dumps(out, indent=1))

    def bench(self, options, tmp):
        raise_file_limit()
        call_command("migrate", verbosity=0, interactive=False)
        call_command("collectstatic", verbosity=0, interactive=False)
        table = storm_table_create(rooms=options["rooms"], held=options["held"], others=0)
        port = procs.free_port()
        server = Server("127.0.0.1", port)
        core = options["cpu"] if options["cpu"] >= 0 else None
        args = ["-b", "127.0.0.1", "-p", port, *daphne_limits(), APPLICATION]
        process = procs.Process(
            procs.pinned(procs.python_module("daphne", *args), core),
            log_path=os.path.join(tmp, "daphne.log"),
            cwd=settings.BASE_DIR,
        )
        try:
            process.wait_listening(port, timeout=60)
            result = asyncio.run(self.drain(options, table, server, process))
        except Exception as error:
            raise CommandError(f"{type(error).__name__}: {error}\n{process.tail()}") from error
        finally:
            process.stop()
            if not str(settings.DATABASES["default"]["NAME"]).startswith(tmp):
                storm_table_delete(table)
        log = procs.tail(process.log_path, 200)
        words = ("rain", "SIGTERM", "Killed", "presence")
        result["log"] = [line for line in log.splitlines() if any(w in line for w in words)]
        result["database"] = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
        result["loadavg_before"] = [round(x, 2) for x in options["loadavg"]]
        result["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
        return result

    async def drain(self, options, table, server, process):
        specs = [[] for _ in range(options["processes"])]
        for k, member in enumerate(table.held):
            url = server.socket_url(f"/ws/campaigns/{member.campaign_id}/?after=0")
            cookie = f"{settings.SESSION_COOKIE_NAME}={member.session_key}"
            specs[k % len(specs)].append([url, cookie, server.origin])
        children = []
        started = time.monotonic()
        for spec in specs:
            child = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "bench.drain_client",
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                cwd=settings.BASE_DIR,
                limit=2**26,
            )
            child.stdin.write((json.dumps({"sockets": spec}) + "\n").encode())
            children.append(child)
        for child in children:
            line = await asyncio.wait_for(child.stdout.readline(), 600)
            assert "opened" in json.loads(line), line
        open_s = time.monotonic() - started
        self.progress(options, f"{len(table.held)} sockets open in {open_s:.1f} s")
        await asyncio.sleep(2.0)  # the presence lists of the last joins
        spy = None
        if options["py_spy"]:
            spy = subprocess.Popen(
                [
                    shutil.which("py-spy")
                    or os.path.join(os.path.dirname(sys.executable), "py-spy"),
                    "record",
                    "-p",
                    str(process.pid),
                    "-o",
                    options["py_spy"],
                    "-r",
                    "50",
                    "-f",
                    "speedscope",
                    "--idle",
                    "--nonblocking",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            await asyncio.sleep(1.0)
        cpu_before = procs.cpu_seconds(process.pid)
        signalled = time.monotonic()
        process.popen.send_signal(signal.SIGTERM)
        cpu_last = cpu_before
        while process.popen.poll() is None and time.monotonic() - signalled < 60:
            cpu_last = procs.cpu_seconds(process.pid) or cpu_last  # its last reading alive
            await asyncio.sleep(0.01)
        exit_s = time.monotonic() - signalled
        if spy is not None:
            spy.wait(timeout=60)
        codes, still_open = {}, 0
        for child in children:
            child.stdin.write(b'{"report": true}\n')
            report = json.loads(await asyncio.wait_for(child.stdout.readline(), 60))
            for code, count in report["codes"].items():
                codes[code] = codes.get(code, 0) + count
            still_open += report["open"]
            await child.wait()
        return {
            "sockets": len(table.held),
            "open_s": round(open_s, 2),
            "signal_to_exit_s": round(exit_s, 2),
            "returncode": process.popen.returncode,
            "close_codes": codes,
            "still_open": still_open,
            "cpu_s_draining": cpu_last and cpu_before and round(cpu_last - cpu_before, 2),
        }

    def progress(self, options, text):
        if not options["json"]:
            self.stderr.write(text)
