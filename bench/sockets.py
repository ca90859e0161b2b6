"""``python manage.py bench_sockets``: how many idle room sockets one daphne process holds, and
what they cost (issue #48). See bench/README.md, "Sockets by the thousand".

For each count N of ``--sockets`` a fresh daphne (``bench.asgi``, production settings, as
``bench_rolls`` starts it, pinned to one core) serves one measured room of ``--room-sockets``
sockets (its players' and its GM's) and N idle sockets spread over ``--rooms`` other rooms, all
real room sockets (``/ws/campaigns/<id>/?after=0`` with a logged-in member's session cookie, as
a page opens them). It reports:

- the time to open the N sockets (held by ``--holders`` client processes, on the cores the
  server does not use) and the client's CPU meanwhile;
- the server's memory per socket: its resident memory's growth (VmRSS) over N, and its open
  file descriptors;
- its CPU at idle over ``--idle`` seconds (daphne's pings, the sockets' presence heartbeats);
- the measured room's events, first with no idle socket open, then beside the N: a player's
  roll of an open check, the player's token moved (the scene) and the GM's "next turn", each
  POSTed as the page does and timed until it reached every socket of the room (p50, p90, max),
  with the server's CPU per event and per socket.

It runs on a temporary SQLite database, or on DATABASE_URL / REDIS_URL when they are set (and
removes what it made there); like ``bench_rolls`` it first re-runs itself in the server's
environment. The open-file limit is raised to its hard limit first; the processes it starts
inherit it.
"""

import asyncio
import json
import math
import os
import resource
import statistics
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.utils.crypto import get_random_string

from . import server as procs
from .command import APPLICATION, OWN, in_tmp, rerun
from .crowd import Holders, crowd_create, crowd_delete
from .fanout import Poster, Watch, events, room_create, room_delete
from .runner import Server

RERUN_OPTIONS = (
    "sockets",
    "ping_interval",
    "gc_threshold",
    "rooms",
    "room_sockets",
    "tabs",
    "holders",
    "idle",
    "rolls",
    "roll_rate",
    "moves",
    "move_rate",
    "turns",
    "turn_rate",
    "cpu",
)
RERUN_FLAGS = ("json", "keep", "gc_log")
#: The server counts as quiet once it uses under this share of a core over QUIET_WINDOW s.
QUIET_SHARE, QUIET_WINDOW, QUIET_LIMIT = 0.05, 0.5, 120.0
#: The joins are done once the idle sockets received no frame for SETTLE_S seconds: a join's
#: last work is its room's presence list, which goes out within a quarter second
#: (room.consumers.PRESENCE_GATHER). At most SETTLE_LIMIT seconds.
SETTLE_S, SETTLE_LIMIT = 3.0, 120.0
#: The events of the measured room, in the order they run: (name, Poster's method, options).
EVENTS = (("roll", "roll", "rolls", "roll_rate"), ("move", "move", "moves", "move_rate"))
EVENTS += (("turn", "turn", "turns", "turn_rate"),)


def nofile_raised():
    """Raise this process's open-file limit to its hard limit (what the processes it starts
    inherit); the limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def rss_mb(pid):
    """The resident memory (VmRSS) of ``pid`` in MB, or None."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def fds(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


def counts(text):
    values = [int(v) for v in text.split(",") if v.strip()]
    if not values or min(values) < 1:
        raise CommandError("--sockets takes counts of 1 or more, comma-separated: 1000,5000.")
    return values


async def quiet(pid, idle_rate=0.0):
    """Wait until the server's CPU use falls under QUIET_SHARE above its idle share
    (``idle_rate``: beside idle sockets, their pings and heartbeat never let it fall under
    QUIET_SHARE alone)."""
    deadline = time.monotonic() + QUIET_LIMIT
    share = QUIET_SHARE + idle_rate
    while time.monotonic() < deadline:
        before = procs.cpu_seconds(pid)
        await asyncio.sleep(QUIET_WINDOW)
        after = procs.cpu_seconds(pid)
        if before is None or after is None or after - before < share * QUIET_WINDOW:
            return


async def settled(holders):
    """Wait until the idle sockets' frames stop coming (the joins' presence lists are all out);
    the seconds waited. Without it the idle seconds measured began while the last joins were
    still being written and sent (the server's CPU under QUIET_SHARE over half a second said
    nothing: its pings alone may cost more)."""
    started = time.monotonic()
    last, since = None, started
    while time.monotonic() - started < SETTLE_LIMIT:
        frames = (await asyncio.to_thread(holders.count))["frames"]
        if frames != last:
            last, since = frames, time.monotonic()
        elif time.monotonic() - since >= SETTLE_S:
            break
        await asyncio.sleep(0.5)
    return time.monotonic() - started


async def idle_seconds(pid, seconds):
    """The server's CPU over ``seconds`` (a share of a core) and over each second of them."""
    per_second, started = [], time.monotonic()
    cpu0 = last = procs.cpu_seconds(pid)
    while time.monotonic() - started < seconds:
        await asyncio.sleep(min(1.0, seconds - (time.monotonic() - started)))
        now = procs.cpu_seconds(pid)
        per_second.append(now - last)
        last = now
    return (last - cpu0) / (time.monotonic() - started), per_second


class Command(BaseCommand):
    help = "Benchmark idle room sockets on one daphne process, and a room's events beside them."

    def add_arguments(self, parser):
        parser.add_argument(
            "--sockets", default="1000,5000,10000", help="idle sockets, one run each: 1000,5000"
        )
        parser.add_argument("--rooms", type=int, default=100, help="rooms of the idle sockets")
        parser.add_argument(
            "--room-sockets", type=int, default=100, help="sockets of the measured room"
        )
        parser.add_argument(
            "--tabs",
            type=int,
            default=1,
            help="idle sockets per member (a member with several tabs); 1: a member each",
        )
        parser.add_argument(
            "--holders", type=int, default=2, help="client processes holding the idle sockets"
        )
        parser.add_argument("--idle", type=float, default=30.0, help="seconds of idle measured")
        parser.add_argument("--rolls", type=int, default=20)
        parser.add_argument("--roll-rate", type=float, default=4.0, help="rolls per second")
        parser.add_argument("--moves", type=int, default=10, help="token moves (the scene)")
        parser.add_argument("--move-rate", type=float, default=1.0, help="moves per second")
        parser.add_argument("--turns", type=int, default=5, help="turn changes")
        parser.add_argument("--turn-rate", type=float, default=0.5, help="turns per second")
        parser.add_argument(
            "--cpu", type=int, default=None, help="the server's core (default 1; -1: no pinning)"
        )
        parser.add_argument(
            "--ping-interval",
            type=int,
            default=0,
            help="daphne's --ping-interval for the servers (0: the host command's)",
        )
        parser.add_argument(
            "--gc-threshold",
            default="",
            help="the server's gc.set_threshold, comma-separated (bench/asgi.py); '': Python's",
        )
        parser.add_argument(
            "--gc-log",
            action="store_true",
            help="the server logs its garbage collector's full collections (bench/asgi.py)",
        )
        parser.add_argument("--json", action="store_true", help="print one JSON object only")
        parser.add_argument("--keep", action="store_true", help="keep the temporary folder")

    def handle(self, **options):
        options["counts"] = counts(options["sockets"])
        if options["rooms"] < 1 or options["room_sockets"] < 2 or options["tabs"] < 1:
            raise CommandError("--rooms and --tabs are at least 1, --room-sockets at least 2.")
        if options["holders"] < 1 or options["idle"] <= 0:
            raise CommandError("--holders is at least 1, --idle positive.")
        for _, _, count, rate in EVENTS:
            if options[count] < 1 or options[rate] <= 0:
                raise CommandError(f"--{count} is at least 1 and its rate positive.")
        if options["cpu"] is None:
            options["cpu"] = 1 if (os.cpu_count() or 1) > 1 else -1
        nofile = nofile_raised()
        if max(options["counts"]) + options["room_sockets"] + 100 > nofile:
            raise CommandError(
                f"{max(options['counts'])} sockets need more open files than the limit, {nofile} "
                "(its hard limit: ulimit -Hn)."
            )
        if os.environ.get(OWN) != "1":
            rerun("bench_sockets", options, RERUN_OPTIONS, RERUN_FLAGS)
        options["loadavg"] = os.getloadavg()[0]
        options["nofile"] = nofile
        out = in_tmp(self, options, lambda tmp: self.bench(options, tmp))
        self.stdout.write(json.dumps(out) if options["json"] else table(out))

    def progress(self, options, text):
        if not options["json"]:
            self.stderr.write(text)

    def bench(self, options, tmp):
        cpu = options["cpu"] if options["cpu"] >= 0 else None
        self.application_name = f"rollroom-bench-{get_random_string(8).lower()}"
        call_command("migrate", verbosity=0, interactive=False)
        call_command("collectstatic", verbosity=0, interactive=False)
        rooms, most = options["rooms"], max(options["counts"])
        members = math.ceil(most / rooms / options["tabs"])
        self.progress(options, f"creating {rooms} rooms of {members} members, and the room")
        started = time.monotonic()
        crowd = crowd_create(rooms=rooms, members=members, tag=get_random_string(6).lower())
        crowd_s = time.monotonic() - started
        per_level = {name: options[count] for name, _, count, _ in EVENTS}
        started = time.monotonic()
        room = room_create(
            players=options["room_sockets"] - 1,
            rolls=2 * per_level["roll"] * len(options["counts"]),
        )
        room_s = time.monotonic() - started
        client_core = procs.generator_core(cpu)
        try:
            levels = []
            for k, count in enumerate(options["counts"]):
                levels.append(self.level(options, tmp, k, count, crowd, room, cpu, client_core))
                # Each count's figures as they come: a long run stopped keeps those it has.
                self.stderr.write(f"level {json.dumps(levels[-1])}")
        finally:
            if not str(settings.DATABASES["default"]["NAME"]).startswith(tmp):
                crowd_delete(crowd)
                room_delete(room)
        config = {
            "rooms": rooms,
            "members_per_room": members,
            "tabs": options["tabs"],
            "room_sockets": options["room_sockets"],
            "holders": options["holders"],
            "idle_seconds": options["idle"],
            "ping_interval": options["ping_interval"] or None,
            "gc_threshold": options["gc_threshold"] or None,
            "cpu": cpu if cpu is not None else -1,
            "client_core": client_core,
            "database": settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1],
            "layer": settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1],
            "nofile": options["nofile"],
            "loadavg_1m": round(options["loadavg"], 2),
            "crowd_create_s": round(crowd_s, 1),
            "room_create_s": round(room_s, 1),
        }
        return {"config": config, "levels": levels}

    def start(self, options, tmp, k, cpu):
        pings = (
            ["--ping-interval", str(options["ping_interval"])] if options["ping_interval"] else []
        )
        gc_env = {"ROLLROOM_BENCH_GC_LOG": "1"} if options["gc_log"] else {}
        if options["gc_threshold"]:
            gc_env["ROLLROOM_BENCH_GC_THRESHOLD"] = options["gc_threshold"]
        process, port = procs.start_daphne(
            APPLICATION,
            cpu=cpu,
            log_path=os.path.join(tmp, f"daphne-{k}.log"),
            application_name=self.application_name,
            args=pings,
            env=gc_env,
        )
        return process, Server("127.0.0.1", port, process.pid)

    def level(self, options, tmp, k, count, crowd, room, cpu, client_core):
        """One fresh server with ``count`` idle sockets beside the measured room."""
        self.progress(options, f"{count} idle sockets: starting daphne")
        process, server = self.start(options, tmp, k, cpu)
        holders = None
        try:
            targets = crowd.targets(count, server.socket_url)
            holders = Holders(
                targets, origin=server.origin, count=options["holders"], core=client_core
            )
            if client_core is not None:
                os.sched_setaffinity(0, {client_core})
            return asyncio.run(self.measure(options, k, count, server, room, holders))
        except Exception as error:
            raise CommandError(f"{type(error).__name__}: {error}\n{process.tail()}") from error
        finally:
            if holders is not None:
                holders.close()
                # The server's goodbyes (leaving the groups, the presence rows) before it stops.
                asyncio.run(quiet(process.pid))
            process.stop()

    async def measure(self, options, k, count, server, room, holders):
        pid = server.pid
        watch, poster = Watch(), Poster(server, room)
        urls = [server.socket_url(f"/ws/campaigns/{room.campaign_id}/?after=0")]
        await watch.open([(urls[0], cookie) for cookie in room.cookies()], server.origin)
        try:
            await quiet(pid)
            await poster.post(poster.warm_roll())
            await quiet(pid)
            first = 2 * k * options["rolls"]
            alone = await self.events(options, watch, poster, pid, first)
            rss0, fds0 = rss_mb(pid), fds(pid)
            self.progress(options, f"{count} idle sockets: opening")
            opened = await asyncio.to_thread(holders.open)
            settle_s = await settled(holders)
            rss1, fds1 = rss_mb(pid), fds(pid)
            self.progress(options, f"{count} idle sockets: {options['idle']} s idle")
            before = await asyncio.to_thread(holders.count)
            t0 = time.monotonic()
            idle_rate, per_second = await idle_seconds(pid, options["idle"])
            idle_s = time.monotonic() - t0
            after = await asyncio.to_thread(holders.count)
            self.progress(options, f"{count} idle sockets: the room's events beside them")
            beside = await self.events(
                options, watch, poster, pid, first + options["rolls"], idle_rate=idle_rate
            )
            ends = await asyncio.to_thread(holders.count)
        finally:
            await watch.close()
            poster.pool.close()
        rolls_alone, rolls_beside = alone["roll"]["p50_ms"], beside["roll"]["p50_ms"]
        return {
            "sockets": count,
            "opened": opened["opened"],
            "failed": opened["failed"],
            "first_error": opened["first_error"],
            "closed_by_server": ends["closed"],
            "close_codes": ends["close_codes"],
            "closed_lived_s": ends["lived_s"],
            "open_s": round(opened["seconds"], 2),
            "opened_per_s": round(opened["opened"] / opened["seconds"], 1),
            "client_cpu_pct": round(100 * opened["client_cpu_s"] / opened["seconds"], 1),
            "rss_before_mb": round(rss0, 1),
            "rss_after_mb": round(rss1, 1),
            "kb_per_socket": round(1024 * (rss1 - rss0) / count, 1),
            "fds_before": fds0,
            "fds_after": fds1,
            "settle_s": round(settle_s, 1),
            "idle_cpu_pct": round(100 * idle_rate, 2),
            # Each idle second's share: a mean far above the median is a few busy seconds.
            "idle_cpu_pct_p50_max": [
                round(100 * statistics.median(per_second), 2),
                round(100 * max(per_second), 2),
            ],
            "idle_frames_per_s": round((after["frames"] - before["frames"]) / idle_s, 1),
            "closed_while_idle": after["closed"] - before["closed"],
            "alone": alone,
            "beside": beside,
            "roll_p50_over_alone": None
            if not rolls_alone
            else round(rolls_beside / rolls_alone, 2),
        }

    async def events(self, options, watch, poster, pid, first_roll, idle_rate=None):
        out = {}
        for name, method, count, rate in EVENTS:
            make = getattr(poster, method)
            start = first_roll if name == "roll" else 0
            summary = await events(
                watch, poster, make, count=options[count], rate=options[rate], pid=pid, start=start
            )
            if idle_rate is not None and summary["cpu_s"] is not None:
                net = summary["cpu_s"] - idle_rate * summary["seconds"]
                summary["cpu_ms_per_event_net"] = round(1000 * net / options[count], 2)
            out[name] = summary
            await quiet(pid, idle_rate or 0.0)
        return out


def table(out):
    """The result as a few lines of text."""
    config = out["config"]
    lines = [
        f"{config['database']} + {config['layer']}; idle sockets over {config['rooms']} rooms "
        f"({config['tabs']} per member); measured room of {config['room_sockets']} sockets; "
        f"load {config['loadavg_1m']}; open files {config['nofile']}",
        f"{'sockets':>8} {'failed':>6} {'closed':>6} {'open s':>7} {'cli %':>6} "
        f"{'KB/sock':>8} {'fds':>6} {'idle %':>7} "
        f"{'roll p50 alone/beside':>22} {'move p50':>14} {'turn p50':>14} {'lost':>5}",
    ]
    for level in out["levels"]:
        a, b = level["alone"], level["beside"]
        lost = sum(s["lost"] + s["errors"] for s in (*a.values(), *b.values()))
        lines.append(
            f"{level['opened']:>8} {level['failed']:>6} {level['closed_by_server']:>6} "
            f"{level['open_s']:>7} "
            f"{level['client_cpu_pct']:>6} "
            f"{level['kb_per_socket']:>8} {level['fds_after']:>6} {level['idle_cpu_pct']:>7} "
            f"{a['roll']['p50_ms']:>10}/{b['roll']['p50_ms']:<11} "
            f"{a['move']['p50_ms']:>6}/{b['move']['p50_ms']:<7} "
            f"{a['turn']['p50_ms']:>6}/{b['turn']['p50_ms']:<7} {lost:>5}"
        )
    return "\n".join(lines)
