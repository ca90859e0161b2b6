"""``python manage.py bench_screens``: the time from a member's Enter or click to the entry on
every other member's screen, in Chromium, and where it goes. See bench/README.md and
bench/screens.py.

As ``bench_rolls`` it re-runs itself in the environment of the daphne it starts (production
settings, DEBUG off, plain HTTP on loopback; a temporary SQLite database, or DATABASE_URL and
REDIS_URL when set), pinned to one core with the browser on the other."""

import asyncio
import json
import os
import shutil
import subprocess

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from rolls.management.commands.host import daphne_limits

from . import screens
from . import server as procs
from .command import APPLICATION, OWN, in_tmp, rerun
from .data import session_for, sessions_delete, table_create, table_delete

RERUN_OPTIONS = ("pages", "events", "warmups", "rate", "idle", "grace", "cpu", "history", "trace")
RERUN_FLAGS = ("json", "keep", "reduced_motion")


class Command(BaseCommand):
    help = "Benchmark Enter/click to the entry on every other page of a room, in Chromium."

    def add_arguments(self, parser):
        parser.add_argument("--pages", type=int, default=8, help="pages: the GM and players")
        parser.add_argument("--events", type=int, default=100, help="events measured")
        parser.add_argument("--warmups", type=int, default=4, help="events sent first, unmeasured")
        parser.add_argument("--rate", type=float, default=1.0, help="events per second")
        parser.add_argument(
            "--idle", type=float, default=3.0, help="seconds the pages are left alone first"
        )
        parser.add_argument("--grace", type=float, default=5.0, help="seconds to wait after")
        parser.add_argument(
            "--cpu",
            type=int,
            default=None,
            help="core of the server, the browser on the others (default 1 with 2+ cores; "
            "-1: no pinning)",
        )
        parser.add_argument(
            "--reduced-motion",
            action="store_true",
            help="the pages ask for less motion (prefers-reduced-motion: reduce)",
        )
        parser.add_argument(
            "--history",
            type=int,
            default=0,
            help="older entries put in each page's log first (a page open through an evening)",
        )
        parser.add_argument(
            "--trace",
            default="",
            metavar="FILE",
            help="write Chromium's trace of the events' phase to FILE (Perfetto, chrome://tracing)",
        )
        parser.add_argument("--json", action="store_true", help="print one JSON object only")
        parser.add_argument("--keep", action="store_true", help="keep the temporary folder")

    def handle(self, **options):
        if options["pages"] < 2 or options["events"] < 1 or options["warmups"] < 0:
            raise CommandError("--pages is at least 2, --events at least 1.")
        if options["rate"] <= 0:
            raise CommandError("--rate is positive.")
        if options["history"] < 0:
            raise CommandError("--history is 0 or more.")
        if options["trace"]:
            options["trace"] = os.path.abspath(options["trace"])
        if not os.path.exists(screens.CHROMIUM):
            raise CommandError(f"bench_screens needs Chromium at {screens.CHROMIUM}.")
        if options["cpu"] is None:
            options["cpu"] = 1 if (os.cpu_count() or 1) > 1 else -1
        if os.environ.get(OWN) != "1":
            rerun("bench_screens", options, RERUN_OPTIONS, RERUN_FLAGS)
        options["loadavg"] = os.getloadavg()
        out = in_tmp(self, options, lambda tmp: self.bench(options, tmp))
        self.stdout.write(json.dumps(out) if options["json"] else table(out))

    def bench(self, options, tmp):
        cpu = options["cpu"] if options["cpu"] >= 0 else None
        call_command("migrate", verbosity=0, interactive=False)
        call_command("collectstatic", verbosity=0, interactive=False)
        port = procs.free_port()
        daphne = procs.Process(
            procs.pinned(
                procs.python_module(
                    "daphne", "-b", "127.0.0.1", "-p", port, *daphne_limits(), APPLICATION
                ),
                cpu,
            ),
            log_path=os.path.join(tmp, "daphne.log"),
            env=dict(os.environ),
            cwd=settings.BASE_DIR,
        )
        try:
            daphne.wait_listening(port)
            core = procs.generator_core(cpu)
            if core is not None:  # the browser's processes start from this one, and stay there
                os.sched_setaffinity(0, os.sched_getaffinity(0) - {cpu})
            return self.measure(options, f"http://127.0.0.1:{port}", tmp)
        except Exception as error:
            raise CommandError(f"{type(error).__name__}: {error}\n{daphne.tail()}") from error
        finally:
            daphne.stop()

    def measure(self, options, origin, tmp):
        players = options["pages"] - 1
        plan = screens.plan(options["events"], options["warmups"], options["rate"])
        checks = sum(event["kind"] == "check" for event in plan)
        self.progress(options, f"a room of the GM and {players} players, {len(plan)} events")
        table = table_create(rooms=1, clients=players, sends=[(0, 0)] * checks, warmups=[])
        gm = get_user_model().objects.get(username=f"bench-{table.tag}-0-gm")
        gm_key = session_for(gm)
        room = table.rooms[0]
        members = [("gm", gm_key)] + [
            (f"player-{p}", player.session_key) for p, player in enumerate(room.players)
        ]
        sender = 1  # the first player talks and rolls; the reference client is the GM's
        try:
            raw = asyncio.run(
                screens.run(
                    origin=origin,
                    campaign_id=room.campaign_id,
                    members=members,
                    sender=sender,
                    checks=table.checks,
                    events=options["events"],
                    warmups=options["warmups"],
                    rate=options["rate"],
                    grace=options["grace"],
                    idle_seconds=options["idle"],
                    reduced_motion=options["reduced_motion"],
                    history=options["history"],
                    trace=options["trace"] or None,
                )
            )
        finally:
            if not str(settings.DATABASES["default"]["NAME"]).startswith(tmp):
                table_delete(table)
                sessions_delete([gm_key])
        events = screens.timeline(raw, sender)
        return {
            "config": {
                "pages": options["pages"],
                "events": options["events"],
                "warmups": options["warmups"],
                "rate": options["rate"],
                "cpu": options["cpu"],
                "reduced_motion": options["reduced_motion"],
                "history": options["history"],
                "sender": members[sender][0],
                "database": settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1],
                "layer": settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1],
                "chromium": chromium_version(),
                "loadavg": [round(x, 2) for x in options["loadavg"]],
                "loadavg_after": [round(x, 2) for x in os.getloadavg()],
            },
            "summary": {
                **screens.summary(events, options["pages"] - 1),
                # The browser's processes (every page, its renderer, the browser's own), in % of
                # one core: left alone before the events, then while they were sent.
                "browser_cpu_idle_pct": raw["browser_cpu_idle_pct"],
                "browser_cpu_pct": raw["browser_cpu_pct"],
            },
            "page_errors": {
                name: errors
                for name, errors in zip(raw["names"], raw["errors"], strict=True)
                if errors
            },
            "events": events,
        }

    def progress(self, options, text):
        if not options["json"]:
            self.stderr.write(text)


def chromium_version():
    try:
        return subprocess.run(
            [shutil.which("chromium") or screens.CHROMIUM, "--version"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None


def table(out):
    """The summary as text."""
    s, c = out["summary"], out["config"]
    rows = [
        f"{c['pages']} pages, {s['events']} events at {c['rate']}/s ({c['database']}, "
        f"{c['layer']}), load {c['loadavg']} -> {c['loadavg_after']}",
        f"reached every other page: {s['reached_every_page']} of {s['events']}",
        "",
        f"{'(ms)':<36}{'p50':>8}{'p90':>8}{'max':>8}",
    ]

    def row(label, f):
        cells = [("-" if f[k] is None else f"{f[k]:.1f}") for k in ("p50_ms", "p90_ms", "max_ms")]
        rows.append(f"{label:<36}" + "".join(f"{v:>8}" for v in cells))

    row("Enter/click -> every other screen", s["every_screen"])
    for kind, f in s["by_kind"].items():
        row(f"  {kind}", f)
    row("Enter/click -> one screen", s["screen"])
    row("server: POST sent -> plain client", s["server"])
    row("Enter/click -> plain client", s["reference"])
    row("Enter/click -> POST sent", s["to_post"])
    row("POST round trip", s["post"])
    row("Enter/click -> frame in a page", s["parts"]["frame_ms"])
    row("htmx swap", s["parts"]["swap_ms"])
    row("page's scripts after the swap", s["parts"]["scripts_ms"])
    row("to the next frame painted", s["parts"]["paint_ms"])
    row("to the frame presented", s["parts"]["shown_ms"])
    rows.append(f"every screen's p50 over the server's p50: {s['over_server_p50_ms']} ms")
    rows.append(
        f"browser CPU (% of a core): {s['browser_cpu_idle_pct']} idle, "
        f"{s['browser_cpu_pct']} while the events were sent"
    )
    if out["page_errors"]:
        rows.append(f"page errors: {out['page_errors']}")
    return "\n".join(rows)
