"""``python manage.py bench_insights``: a campaign whose log holds ``--entries`` entries
(100,000 by default), built through the log's own append (numbered, chained and signed), and
the insight pages timed against it over HTTP, as a member's browser reads them: the first byte
and the whole answer of each, for the GM and for a player. See bench/README.md.

Like ``bench_rolls`` it re-runs itself in a server's environment and starts its own daphne
(``bench.asgi``, DEBUG off) on a temporary SQLite database, or on DATABASE_URL's database when
set, where it removes what it made afterwards.
"""

import http.client
import json
import os
import random
import secrets
import time
from statistics import median

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction
from django.urls import reverse

from campaigns.models import Campaign, Membership
from rolls import services as log
from rolls.models import PRIVATE, PUBLIC, SECRET, WHISPER, LogEntry
from rules import mana, odds
from sheets.services import character_create

from . import server as procs
from .command import APPLICATION, OWN, in_tmp, rerun
from .data import session_for, sessions_delete

#: Entries appended per transaction while the log is built.
BATCH = 1000
#: The pages timed, each as (name, URL name, its arguments after the campaign, viewers).
PAGES = (
    ("room", "room", (), ("gm", "player")),
    ("luck", "campaign_luck", (), ("gm", "player")),
    ("tuning", "tuning", (), ("gm",)),
    ("session summary", "session_summary", (1,), ("gm", "player")),
    ("log.csv", "log_csv", (), ("gm", "player")),
    ("log.json", "log_json", (), ("gm", "player")),
)


class Log:
    """What ``log_create`` made: the campaign, its users and their sessions' keys."""

    def __init__(self, campaign, users):
        self.campaign = campaign
        self.users = users
        self.keys = {name: session_for(user) for name, user in users.items()}


def _roll_data(rng, dice, target, intent):
    """A Mana roll's stored data, as the Mana system stores it, its dice rolled by ``rng``."""
    faces = [rng.randint(1, mana.FACES) for _ in range(dice)]
    shown = mana.successes(faces)
    return {
        "system": "mana",
        "asked": "Gather Information",
        "skill": "Gather Information",
        "spent": {"blue": dice - 1} if dice > 1 else {},
        "units": dice - 1,
        "parts": [["free", 1], ["mana", dice - 1]],
        "dice": dice,
        "faces": faces,
        "successes": shown,
        "target": target,
        "success": shown >= target,
        "chance": odds.as_text(mana.success_probability(dice, target)),
        "attempt": 1,
        "intent": intent,
        "note": "",
    }


def log_create(*, entries, session_rolls, seed, talk=0.0):
    """A Mana campaign with a GM, three players and their characters and a GM's NPC, and a log
    of ``entries`` entries: sessions of ``session_rolls`` rolls each (the last one still
    running), the rolls public (80 %), private to their player (10 %) or the NPC's GM-secret
    ones (10 %); with ``talk``, that share of the entries is table talk instead: half of it
    messages to everyone, half whispers between the other players (which the GM and the
    player timed never see)."""
    rng = random.Random(seed)
    tag = secrets.token_hex(4)
    accounts = get_user_model().objects
    campaign = Campaign.objects.create(name=f"Bench insights {tag}", system="mana")
    gm = accounts.create_user(username=f"bench-{tag}-gm")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.GM)
    rollers = []
    for p in range(3):
        user = accounts.create_user(username=f"bench-{tag}-{p}")
        Membership.objects.create(campaign=campaign, user=user, role=Membership.PLAYER)
        rollers.append((user, character_create(campaign=campaign, owner=user, name=f"Runner {p}")))
    npc = (gm, character_create(campaign=campaign, owner=gm, name="The Warden"))
    written, in_session = 0, session_rolls
    while written < entries:
        with transaction.atomic():
            end = min(entries, written + BATCH)
            while written < end:
                if in_session >= session_rolls and written + 2 <= entries:
                    if written:
                        log.session_end(campaign=campaign, by=gm)
                        written += 1
                    log.session_start(campaign=campaign, by=gm)
                    written, in_session = written + 1, 0
                    continue
                if talk and rng.random() < talk:
                    whisper = rng.random() < 0.5
                    log.log_append(
                        campaign=campaign,
                        kind=LogEntry.MESSAGE,
                        actor=rollers[1][0],
                        data={"text": f"Line {written}"},
                        visibility=WHISPER if whisper else PUBLIC,
                        recipient=rollers[2][0] if whisper else None,
                    )
                    written, in_session = written + 1, in_session + 1
                    continue
                draw = rng.random()
                user, character = npc if draw >= 0.9 else rng.choice(rollers)
                visibility = SECRET if draw >= 0.9 else PRIVATE if draw >= 0.8 else PUBLIC
                data = _roll_data(rng, rng.randint(1, 8), rng.randint(1, 4), f"Roll {written}")
                log.log_append(
                    campaign=campaign,
                    kind=LogEntry.ROLL,
                    actor=user,
                    character=character,
                    data=data,
                    visibility=visibility,
                )
                written, in_session = written + 1, in_session + 1
    return Log(campaign, {"gm": gm, "player": rollers[0][0]})


def log_delete(made):
    """Remove what ``log_create`` made (for a database that outlives the benchmark)."""
    with transaction.atomic():
        made.campaign.delete()
        get_user_model().objects.filter(pk__in=[u.pk for u in made.users.values()]).delete()
    sessions_delete(made.keys.values())


def fetch(port, path, key):
    """(status, ms to the first byte of the body, ms to its last, bytes) of a GET of ``path``
    with the session ``key``."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    try:
        start = time.perf_counter()
        cookie = f"{settings.SESSION_COOKIE_NAME}={key}"
        connection.request("GET", path, headers={"Cookie": cookie, "Host": "localhost"})
        response = connection.getresponse()
        first = response.read(1)
        first_ms = (time.perf_counter() - start) * 1000
        size = len(first) + len(response.read())
        return response.status, first_ms, (time.perf_counter() - start) * 1000, size
    finally:
        connection.close()


def time_pages(port, made, repeat, names=None):
    """Each page of ``PAGES`` (those ``names`` alone when given) for each of its viewers: once
    to warm up, then ``repeat`` times."""
    results = []
    for name, url_name, args, viewers in PAGES:
        if names and name not in names:
            continue
        path = reverse(url_name, args=[made.campaign.pk, *args])
        for viewer in viewers:
            fetch(port, path, made.keys[viewer])
            runs = [fetch(port, path, made.keys[viewer]) for _ in range(repeat)]
            results.append(
                {
                    "page": name,
                    "viewer": viewer,
                    "status": runs[-1][0],
                    "first_ms": round(median(r[1] for r in runs), 1),
                    "total_ms": round(median(r[2] for r in runs), 1),
                    "total_ms_max": round(max(r[2] for r in runs), 1),
                    "bytes": runs[-1][3],
                }
            )
    return results


def table(out):
    lines = [
        f"bench_insights: {out['entries']} entries (built in {out['build_s']} s), sessions of "
        f"{out['session_rolls']} rolls, table talk {out['talk']:.0%}, database {out['database']}, "
        f"{out['repeat']} runs each",
        f"{'page':<16} {'viewer':<7} {'status':>6} {'first ms':>9} {'total ms':>9} "
        f"{'max ms':>9} {'KB':>9}",
    ]
    for r in out["pages"]:
        lines.append(
            f"{r['page']:<16} {r['viewer']:<7} {r['status']:>6} {r['first_ms']:>9} "
            f"{r['total_ms']:>9} {r['total_ms_max']:>9} {r['bytes'] // 1024:>9}"
        )
    return "\n".join(lines)


class Command(BaseCommand):
    help = "Time the insight pages and the exports against a log of many entries."

    def add_arguments(self, parser):
        parser.add_argument("--entries", type=int, default=100_000)
        parser.add_argument("--session-rolls", type=int, default=10_000, help="rolls a session")
        parser.add_argument("--repeat", type=int, default=3, help="timed runs of each page")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument(
            "--talk", type=float, default=0.0, help="share of the entries that are table talk"
        )
        parser.add_argument(
            "--pages",
            default="",
            help="the pages timed, comma-separated (e.g. log.json,log.csv); all by default",
        )
        parser.add_argument("--json", action="store_true", help="print one JSON object only")
        parser.add_argument("--keep", action="store_true", help="keep the temporary folder")

    def handle(self, **options):
        if options["entries"] < 2 or options["session_rolls"] < 1 or options["repeat"] < 1:
            raise CommandError("--entries is at least 2, --session-rolls and --repeat 1.")
        names = {name for name, *_ in PAGES}
        unknown = set(filter(None, options["pages"].split(","))) - names
        if unknown:
            raise CommandError(f"--pages: no page {', '.join(sorted(unknown))} ({names}).")
        if os.environ.get(OWN) != "1":
            values = ("entries", "session_rolls", "repeat", "seed", "talk", "pages")
            rerun("bench_insights", options, values, ("json", "keep"))
        out = in_tmp(self, options, lambda tmp: self.bench(options, tmp))
        self.stdout.write(json.dumps(out) if options["json"] else table(out))

    def bench(self, options, tmp):
        call_command("migrate", verbosity=0, interactive=False)
        call_command("collectstatic", verbosity=0, interactive=False)
        started = time.perf_counter()
        made = log_create(
            entries=options["entries"],
            session_rolls=options["session_rolls"],
            seed=options["seed"],
            talk=options["talk"],
        )
        build_s = round(time.perf_counter() - started, 1)
        if connection.vendor == "postgresql":
            # What autovacuum does once a table has grown (an insert-only one too, since
            # PostgreSQL 13): without it the planner knows nothing of the rows just written.
            with connection.cursor() as cursor:
                cursor.execute(f"VACUUM ANALYZE {LogEntry._meta.db_table}")
        port = procs.free_port()
        server = procs.Process(
            procs.python_module("daphne", "-b", "127.0.0.1", "-p", port, APPLICATION),
            log_path=os.path.join(tmp, "daphne.log"),
            cwd=settings.BASE_DIR,
        )
        entries = LogEntry.objects.filter(campaign=made.campaign).count()
        try:
            server.wait_listening(port)
            names = set(filter(None, options["pages"].split(",")))
            pages = time_pages(port, made, options["repeat"], names)
        except Exception as error:
            raise CommandError(f"{type(error).__name__}: {error}\n{server.tail()}") from error
        finally:
            server.stop()
            if os.environ.get("DATABASE_URL"):
                log_delete(made)
        return {
            "entries": entries,
            "build_s": build_s,
            "session_rolls": options["session_rolls"],
            "talk": options["talk"],
            "repeat": options["repeat"],
            "database": settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1],
            "pages": pages,
        }
