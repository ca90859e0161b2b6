"""A server killed (SIGKILL, as a crash or a power cut of the process) in the middle of a steady
stream of writes, several of them in flight, and started again: every write answered 2xx is
there exactly once, nothing is half-written (a check marked rolled without its roll in the log,
a rating raised without its row in the sparetime ledger, or a row without its raise), and
``verify_rolls`` passes. The players go on through the restart (tests/load.py): a roll or a build
whose answer was lost is sent again, as a user clicks again, and never written twice (a check is
rolled once; a build's form carries a one-time token).

Runs on the test database: SQLite (WAL, config/settings.py) or PostgreSQL (DATABASE_URL), with
Redis when REDIS_URL is set."""

import io
import secrets
from collections import Counter
from contextlib import contextmanager
from urllib.parse import urlencode

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse

from bench.data import session_for
from campaigns.models import FormToken, GameSession
from rolls.models import DiceSeed, LogEntry
from rolls.systems.pool.models import Rating
from sheets.models import Character
from sparetime.models import SparetimeEntry
from sparetime.services import free_sparetime, sparetime_grant
from tests.conftest import make_campaign
from tests.faults import start_daphne
from tests.helpers import free_port, stop
from tests.load import (
    LOST,
    Player,
    RollLoad,
    Site,
    load_table,
    ok,
    rolls_logged_once,
    sockets_caught_up,
)

pytestmark = pytest.mark.django_db(transaction=True)

PLAYERS = 12
#: Writes each player has to send: more than it sends in the test.
WRITES = 30
#: Writes answered 2xx before the kill and after the restart.
BETWEEN = 15
#: The kill comes while at least this many writes are in flight.
IN_FLIGHT = 4
GRANT = 1000


@contextmanager
def crash_and_restart(load, port, process):
    """Kill the server while writes are in flight, start it again on ``port``, and let the load
    go on until more are answered; then stop the load. Yields the running process's holder."""
    held = {"process": process}
    try:
        load.wait_for_rolls(BETWEEN)
        load.wait_for(lambda: load.in_flight >= IN_FLIGHT, f"{IN_FLIGHT} writes in flight")
        process.kill()
        process.wait(timeout=10)
        held["process"] = start_daphne(port)
        load.wait_for_rolls(BETWEEN)
        load.stop_rolling()
        yield held
    finally:
        stop(held["process"])


def verified():
    """verify_rolls passes (it raises CommandError naming the first broken entry)."""
    call_command("verify_rolls", stdout=io.StringIO())


def test_a_crash_during_rolls_loses_no_answered_roll_and_writes_none_twice():
    campaign_id, players = load_table(PLAYERS, WRITES)
    port = free_port()
    process = start_daphne(port)
    with RollLoad(Site("127.0.0.1", port), players) as load:
        with crash_and_restart(load, port, process):
            statuses = rolls_logged_once(campaign_id, players)
            sockets_caught_up(load)
    verified()
    print(f"\nrolls through a crash: answered {dict(statuses)}")
    assert statuses[204] >= 2 * BETWEEN


def builds(campaign_id, players):
    """Each player's character granted GRANT sparetime, and WRITES builds for each to send, of one
    point of Agility each, each form with its own one-time token."""
    writes = {}
    for player in players:
        character = Character.objects.get(campaign_id=campaign_id, owner_id=player.user_id)
        sparetime_grant(character=character, amount=GRANT, by=character.owner)
        agility = character.ratings.get(attribute="Agility", skill="")
        path = reverse("sparetime_build", args=[campaign_id, character.pk])
        tokens = [secrets.token_urlsafe(24) for _ in range(WRITES)]
        player.writes = [
            (token, path, urlencode({"once": token, f"points-{agility.pk}": 1}).encode())
            for token in tokens
        ]
        writes[player.user_id] = (character, agility.value)
    return writes


def test_a_crash_during_sparetime_builds_leaves_every_ledger_agreeing_with_its_sheet():
    campaign_id, players = load_table(PLAYERS, 1)
    characters = builds(campaign_id, players)
    port = free_port()
    process = start_daphne(port)
    with RollLoad(Site("127.0.0.1", port), players) as load:
        with crash_and_restart(load, port, process):
            pass
    answered = 0
    for player in players:
        character, before = characters[player.user_id]
        sent = set(player.answers)
        claimed = set(
            FormToken.objects.filter(user_id=player.user_id).values_list("token", flat=True)
        )
        spends = SparetimeEntry.objects.filter(character=character, kind=SparetimeEntry.SPEND)
        # A build is written with its token claimed, in one transaction: as many builds in the
        # ledger as tokens claimed, each a token a player sent; every build answered 2xx among
        # them (a try sent again after a lost answer is answered as the first, not built again).
        assert claimed <= sent
        assert spends.count() == len(claimed)
        for token, tries in player.answers.items():
            if any(ok(status) for status in tries):
                assert token in claimed, tries
                answered += 1
        # The sheet agrees with the ledger: one point of Agility and one sparetime per build.
        agility = Rating.objects.get(character=character, attribute="Agility", skill="")
        assert agility.value == before + len(claimed)
        assert free_sparetime(character) == GRANT - len(claimed)
        assert Counter(spends.values_list("amount", flat=True)) <= Counter({-1: len(claimed)})
    print(f"\nbuilds through a crash: {load.summary()}")
    assert answered >= 2 * BETWEEN
    verified()


def gm_tables(count):
    """``count`` Pool campaigns, each with its GM logged in, who starts and ends sessions one
    after the other (WRITES of them): one load player per GM, on its campaign's room."""
    users = get_user_model().objects
    gms = []
    for index in range(count):
        gm = users.create_user(username=f"gm{index}")
        campaign = make_campaign(gm, system="pool", name=f"Table {index}")
        start = reverse("session_start", args=[campaign.pk])
        end = reverse("session_end", args=[campaign.pk])
        writes = [(n, start if n % 2 == 0 else end, b"") for n in range(WRITES)]
        gms.append(Player(campaign.pk, gm.pk, session_for(gm), writes=writes))
    return gms


def test_a_crash_during_session_ends_leaves_every_session_as_its_log_says():
    gms = gm_tables(PLAYERS)
    port = free_port()
    process = start_daphne(port)
    with RollLoad(Site("127.0.0.1", port), gms) as load:
        with crash_and_restart(load, port, process):
            sockets_caught_up(load)
    for gm in gms:
        sessions = GameSession.objects.filter(campaign_id=gm.campaign_id)
        log = LogEntry.objects.filter(campaign_id=gm.campaign_id)
        starts = list(log.filter(kind=LogEntry.SESSION_START).values_list("data", flat=True))
        ends = list(log.filter(kind=LogEntry.SESSION_END).values_list("data", flat=True))
        # Every session in the log once, started and (all but the last, maybe) ended, as its row
        # says: nothing written by halves.
        assert sorted(d["number"] for d in starts) == list(range(1, sessions.count() + 1))
        assert sorted(d["number"] for d in ends) == sorted(
            sessions.exclude(ended_at=None).values_list("number", flat=True)
        )
        assert sessions.filter(ended_at=None).count() <= 1
        # Each start and end turned the dice seed over: one open seed once there was a session.
        open_seeds = DiceSeed.objects.filter(campaign_id=gm.campaign_id, revealed_at=None)
        assert open_seeds.count() == min(1, sessions.count())
        # Every change answered 2xx is there: the ends answered 2xx at most those logged, the
        # ends logged at most those sent without a refusal.
        for kind, logged in ((0, starts), (1, ends)):
            answered = [t for n, t in gm.answers.items() if n % 2 == kind]
            done = sum(1 for tries in answered if any(ok(s) for s in tries))
            maybe = sum(1 for tries in answered if any(s in LOST for s in tries))
            assert done <= len(logged) <= done + maybe, (kind, gm.answers)
    print(f"\nsession starts and ends through a crash: {load.summary()}")
    verified()
