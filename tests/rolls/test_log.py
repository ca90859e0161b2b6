"""The roll log (rolls.services.log_append and log_verify, rolls.chain): numbered, chained and
signed entries, a head kept apart, and every alteration, insertion and deletion found."""

import hashlib
import threading
import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connection, transaction
from django.test import Client

from campaigns.models import Campaign
from rolls import chain, services
from rolls.export import cells_text
from rolls.models import LogEntry
from rolls.services import GENESIS
from tests.conftest import make_campaign
from tests.helpers import in_threads
from tests.rolls.room_setup import ask, assert_whole, roll_mana, roll_request, roll_requests


def roll(mana_table, face=5):
    """A public Mana roll of one free die by Mira; returns its entry."""
    check = ask(mana_table, mana_table.mira, target=1)
    return roll_mana(check, mana_table.player, mana_table.gather, (face,), spend_a=0, spend_b=0)


@pytest.fixture
def log(mana_table):
    """A session start, three rolls and a session end: entries #1 to #5."""
    services.session_start(campaign=mana_table.campaign, by=mana_table.gm)
    for face in (2, 9, 4):
        roll(mana_table, face)
    services.session_end(campaign=mana_table.campaign, by=mana_table.gm)
    return list(LogEntry.objects.filter(campaign=mana_table.campaign))


def verdict(mana_table):
    problem = services.log_verify(mana_table.campaign)
    return problem and (problem.seq, problem.what)


def keyless(prev_hash, entry):
    """What someone without the key computes: the same message, hashed with plain sha256."""
    message = f"{prev_hash}:{chain.canonical(chain.entry_fields(entry))}"
    return hashlib.sha256(message.encode()).hexdigest()


# Writing ----------------------------------------------------------------------------------------


def test_seq_counts_per_campaign_and_the_hashes_chain(mana_table):
    other = make_campaign(mana_table.gm, system="pool", name="Other")
    services.session_start(campaign=mana_table.campaign, by=mana_table.gm)
    services.session_start(campaign=other, by=mana_table.gm)
    roll(mana_table)
    services.session_end(campaign=other, by=mana_table.gm)
    services.session_end(campaign=mana_table.campaign, by=mana_table.gm)

    entries = list(LogEntry.objects.filter(campaign=mana_table.campaign))
    assert [e.seq for e in entries] == [1, 2, 3]
    assert [e.kind for e in entries] == [
        LogEntry.SESSION_START,
        LogEntry.ROLL,
        LogEntry.SESSION_END,
    ]
    assert [e.seq for e in LogEntry.objects.filter(campaign=other)] == [1, 2]
    assert entries[0].prev_hash == GENESIS
    for before, after in zip(entries, entries[1:], strict=False):
        assert after.prev_hash == before.hash
    assert all(e.hash == e.compute_hash() for e in entries)
    mana_table.campaign.refresh_from_db()
    assert (mana_table.campaign.last_seq, mana_table.campaign.head_hash) == (3, entries[-1].hash)
    assert services.log_verify(mana_table.campaign) is None
    assert services.log_verify(other) is None


def test_the_head_knows_the_session_entries_belong_to(mana_table):
    before = roll(mana_table)
    session, start = services.session_start(campaign=mana_table.campaign, by=mana_table.gm)
    during = roll(mana_table)
    _session, end = services.session_end(campaign=mana_table.campaign, by=mana_table.gm)
    after = roll(mana_table)
    assert [e.session for e in (before, start, during, end, after)] == [
        None,
        session,
        session,
        session,
        None,
    ]
    mana_table.campaign.refresh_from_db()
    assert mana_table.campaign.log_session is None


def test_the_hash_covers_every_stored_field(mana_table):
    """Every stored field but what is kept beside the data, made from it (the outcome,
    ``LogEntry.OUTCOME``, and the export's cells), which ``log_verify`` checks against the data
    (below); a whisper's recipient (``to``) and place
    after its number (``sub``) when it has them, so that the entries before whispers existed
    hash as they did."""
    entry = roll(mana_table)
    fields = chain.entry_fields(entry)
    stored = {f.attname for f in LogEntry._meta.concrete_fields} - {"id", "prev_hash", "hash"}
    stored -= {*LogEntry.OUTCOME, "cells"}
    renamed = {"campaign_id": "campaign", "session_id": "session", "actor_id": "actor"}
    renamed |= {"character_id": "character", "check_ref_id": "check", "recipient_id": "to"}
    assert {renamed.get(name, name) for name in stored} == {*fields, "to", "sub"}
    assert fields["created_at"] == chain.timestamp(entry.created_at)
    assert fields["created_at"].endswith("Z")
    whisper = services.message_send(
        campaign=mana_table.campaign, by=mana_table.player, text="psst", to=mana_table.gm
    )
    assert chain.entry_fields(whisper)["to"] == mana_table.gm.pk
    assert chain.entry_fields(whisper)["sub"] == 1 and whisper.number == f"{entry.seq}+"
    assert {renamed.get(name, name) for name in stored} == set(chain.entry_fields(whisper))


def test_the_stored_entry_hashes_as_it_was_written(mana_table):
    written = roll(mana_table)
    stored = LogEntry.objects.get(pk=written.pk)
    assert stored.created_at == written.created_at
    assert stored.compute_hash() == written.hash == stored.hash


# Verifying --------------------------------------------------------------------------------------


def test_a_valid_log_verifies(mana_table, log):
    assert services.log_verify(mana_table.campaign) is None


def test_an_empty_log_verifies(mana_table):
    assert services.log_verify(mana_table.campaign) is None


def test_altered_data_is_found(mana_table, log):
    second = log[2]
    data = {**second.data, "faces": [10], "successes": 2}
    LogEntry.objects.filter(pk=second.pk).update(data=data)
    assert verdict(mana_table) == (3, "altered")


@pytest.mark.parametrize(
    "change",
    [
        {"created_at_shift": timedelta(seconds=1)},
        {"session": None},
        {"visibility": "secret"},
        {"actor": "gm"},
        {"character": None},
        {"check_ref": None},
        {"kind": LogEntry.SESSION_END},
    ],
    ids=lambda change: next(iter(change)),
)
def test_every_altered_field_is_found(mana_table, log, change):
    entry = log[2]
    if "created_at_shift" in change:
        change = {"created_at": entry.created_at + change["created_at_shift"]}
    if change.get("actor") == "gm":
        change = {"actor": mana_table.gm}
    LogEntry.objects.filter(pk=entry.pk).update(**change)
    assert verdict(mana_table) == (3, "altered")


def test_an_entry_moved_to_another_campaign_is_found(mana_table, log):
    other = make_campaign(mana_table.gm, system="mana", name="Other")
    LogEntry.objects.filter(pk=log[2].pk).update(campaign=other)
    assert verdict(mana_table) == (3, "deleted")
    assert services.log_verify(other) == services.LogBreak(1, "deleted", "the log starts at #3")


def test_a_rehashed_entry_breaks_the_chain_after_it(mana_table, log):
    """Someone with the key rewrites #3 and signs it again: #4 no longer follows it."""
    third = LogEntry.objects.get(pk=log[2].pk)
    third.data = {**third.data, "faces": [10]}
    third.hash = third.compute_hash()
    cells = cells_text(third.kind, third.visibility, third.data)  # what is kept beside, too
    LogEntry.objects.filter(pk=third.pk).update(data=third.data, hash=third.hash, cells=cells)
    assert verdict(mana_table) == (4, "altered")
    assert "does not chain to #3" in str(services.log_verify(mana_table.campaign))


def test_a_deleted_middle_entry_is_found(mana_table, log):
    LogEntry.objects.filter(pk=log[1].pk).delete()
    assert verdict(mana_table) == (2, "deleted")


def test_a_deleted_last_entry_is_found(mana_table, log):
    LogEntry.objects.filter(pk=log[-1].pk).delete()
    problem = services.log_verify(mana_table.campaign)
    assert (problem.seq, problem.what) == (5, "deleted")
    assert problem.why == "the log ends at #4, its head is #5"


def test_renumbering_after_a_deletion_is_found(mana_table, log):
    LogEntry.objects.filter(pk=log[1].pk).delete()
    for entry in log[2:]:
        LogEntry.objects.filter(pk=entry.pk).update(seq=entry.seq - 1)
    Campaign.objects.filter(pk=mana_table.campaign.pk).update(last_seq=4)
    assert verdict(mana_table) == (2, "altered")


@pytest.fixture
def whispers(mana_table):
    """A session start and a roll (#1, #2), two whispers after #2 (#2.1, #2.2), three rolls
    (#3 to #5) and a whisper after #5 (#5.1, the head); the whispers."""

    def whisper(text):
        campaign, player, gm = mana_table.campaign, mana_table.player, mana_table.gm
        return services.message_send(campaign=campaign, by=player, text=text, to=gm)

    services.session_start(campaign=mana_table.campaign, by=mana_table.gm)
    roll(mana_table, 2)
    said = [whisper("one"), whisper("two")]
    for face in (9, 4, 7):
        roll(mana_table, face)
    said.append(whisper("three"))
    return said


def test_whispers_take_the_next_sub_and_the_log_verifies(mana_table, whispers):
    entries = list(LogEntry.objects.filter(campaign=mana_table.campaign))
    assert [e.place for e in entries] == [
        (1, 0),
        (2, 0),
        (2, 1),
        (2, 2),
        (3, 0),
        (4, 0),
        (5, 0),
        (5, 1),
    ]
    assert [e.number for e in entries] == ["1", "2", "2+", "2+", "3", "4", "5", "5+"]
    assert [e.anchor for e in entries][2:4] == [f"entry-2-{w.fingerprint}" for w in whispers[:2]]
    assert services.log_verify(mana_table.campaign) is None
    mana_table.campaign.refresh_from_db()
    assert (mana_table.campaign.last_seq, mana_table.campaign.last_sub) == (5, 1)


def test_a_deleted_whisper_is_found(mana_table, whispers):
    LogEntry.objects.filter(pk=whispers[0].pk).delete()
    problem = services.log_verify(mana_table.campaign)
    assert (problem.seq, problem.sub, problem.what) == (2, 1, "deleted")
    assert problem.why == "the log goes from #2 to #2.2" and problem.whispered


def test_a_deleted_last_whisper_is_found_by_the_head(mana_table, whispers):
    LogEntry.objects.filter(pk=whispers[-1].pk).delete()
    problem = services.log_verify(mana_table.campaign)
    assert str(problem) == "entry #5.1 was deleted: the log ends at #5, its head is #5.1"


def test_a_whisper_renumbered_as_a_shared_entry_is_found(mana_table, whispers):
    """A whisper made to look like an entry everyone saw (its sub dropped, the rest renumbered
    by someone without the key) no longer verifies."""
    LogEntry.objects.filter(pk=whispers[1].pk).update(seq=9, sub=0)
    problem = services.log_verify(mana_table.campaign)
    assert str(problem) == "entry #3 was altered: it does not chain to #2.1"
    entries = list(LogEntry.objects.filter(campaign=mana_table.campaign).order_by("seq", "sub"))
    for offset in (100, 0):  # out of the way first: the places are unique
        for number, entry in enumerate(entries, start=1):
            LogEntry.objects.filter(pk=entry.pk).update(seq=number + offset, sub=0)
    Campaign.objects.filter(pk=mana_table.campaign.pk).update(last_seq=len(entries), last_sub=0)
    problem = services.log_verify(mana_table.campaign)
    assert (problem.seq, problem.what) == (3, "altered")  # the first whisper renumbered


def test_a_whisper_moved_to_another_number_is_found(mana_table, whispers):
    LogEntry.objects.filter(pk=whispers[0].pk).update(seq=1)  # #1.1 now: before #2
    problem = services.log_verify(mana_table.campaign)
    assert (problem.seq, problem.sub, problem.what) == (1, 1, "altered")


def test_an_entry_inserted_with_a_keyless_hash_is_found(mana_table, log):
    last = log[-1]
    forged = LogEntry(
        campaign=mana_table.campaign,
        seq=last.seq + 1,
        kind=LogEntry.ROLL,
        actor=mana_table.player,
        character=mana_table.mira,
        data={**log[2].data, "faces": [10, 10], "successes": 2},
        prev_hash=last.hash,
    )
    forged.hash = keyless(last.hash, forged)
    forged.save(force_insert=True)
    assert verdict(mana_table) == (6, "inserted")

    # Moving the head to it as well changes nothing: its hash still does not verify.
    Campaign.objects.filter(pk=mana_table.campaign.pk).update(last_seq=6, head_hash=forged.hash)
    assert verdict(mana_table)[0] == 6


def test_a_rewrite_with_every_later_hash_recomputed_without_the_key_is_found(mana_table, log):
    prev = log[1].hash
    for entry in LogEntry.objects.filter(campaign=mana_table.campaign, seq__gte=3):
        if entry.seq == 3:
            entry.data = {**entry.data, "faces": [10], "successes": 2}
        entry.prev_hash = prev
        entry.hash = keyless(prev, entry)
        LogEntry.objects.filter(pk=entry.pk).update(
            data=entry.data, prev_hash=entry.prev_hash, hash=entry.hash
        )
        prev = entry.hash
    Campaign.objects.filter(pk=mana_table.campaign.pk).update(head_hash=prev)
    assert verdict(mana_table) == (3, "altered")


def test_a_head_that_does_not_match_its_entry_is_found(mana_table, log):
    Campaign.objects.filter(pk=mana_table.campaign.pk).update(head_hash=log[3].hash)
    assert verdict(mana_table) == (5, "altered")


def test_entries_appended_while_verifying_verify_as_the_chain_goes_on(mana_table, log):
    """The head is read first: an entry committed after it counts as the chain's next one."""
    Campaign.objects.filter(pk=mana_table.campaign.pk).update(last_seq=4, head_hash=log[3].hash)
    assert services.log_verify(mana_table.campaign) is None


# The key ----------------------------------------------------------------------------------------


def test_the_key_comes_from_its_setting_else_from_the_secret_key(settings):
    settings.ROLLROOM_LOG_KEY = ""
    settings.SECRET_KEY = "one secret"
    derived = chain.log_key()
    assert derived != b"one secret" and len(derived) == 32
    settings.SECRET_KEY = "another secret"
    assert chain.log_key() != derived
    settings.ROLLROOM_LOG_KEY = "a key of its own"
    assert chain.log_key() == b"a key of its own"
    settings.SECRET_KEY = "one secret"
    assert chain.log_key() == b"a key of its own"


def test_a_log_signed_with_another_key_does_not_verify(mana_table, log, settings):
    settings.ROLLROOM_LOG_KEY = "not the key the log was written with"
    assert verdict(mana_table) == (1, "altered")


# Under concurrency ------------------------------------------------------------------------------

ON_POSTGRESQL = pytest.mark.skipif(
    settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
    reason="PostgreSQL's row locks and snapshots: set DATABASE_URL=postgres://...",
)


@pytest.mark.django_db(transaction=True)
def test_rolls_at_once_each_chain_to_the_one_before(pool_table, player, pushes, settings):
    """Real requests, eight at a time, twice over: every entry chains to the one before it
    (on both databases: run the suite on SQLite and on PostgreSQL)."""
    settings.WRITE_LIMITS = {}  # one player rolls faster here than the table allows
    for _round in range(2):
        in_threads(*roll_requests(pool_table, player, 8))
    assert_whole(pool_table, 16)


@ON_POSTGRESQL
@pytest.mark.django_db(transaction=True)
def test_a_roll_that_waited_for_the_log_reads_the_head_its_holder_left(
    pool_table, gm, player, pushes
):
    """A session starts and holds the campaign's row; a roll posted meanwhile waits for it. Once
    the session's transaction commits, the roll chains to its entry and belongs to the session:
    what it reads was left by the lock's last holder, not the snapshot its statement began with."""
    locked, release = threading.Event(), threading.Event()
    client = Client()
    client.force_login(player)
    check = ask(pool_table, pool_table.ilse)

    def start_session_and_hold():
        with transaction.atomic():
            services.session_start(campaign=pool_table.campaign, by=gm)
            locked.set()
            assert release.wait(timeout=30)

    def roll_once_locked():
        assert locked.wait(timeout=30)
        roll_request(pool_table, client, check)()

    def release_once_the_roll_waits():
        assert locked.wait(timeout=30)
        with connection.cursor() as cursor:
            for _ in range(300):
                cursor.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                    "AND datname = current_database()"
                )
                if cursor.fetchone()[0]:
                    break
                time.sleep(0.02)
            else:
                raise AssertionError("the roll never waited for the lock")
        release.set()

    in_threads(start_session_and_hold, roll_once_locked, release_once_the_roll_waits)
    start, rolled = assert_whole(pool_table, 2)
    assert start.kind == LogEntry.SESSION_START
    assert rolled.prev_hash == start.hash != GENESIS
    assert rolled.session_id == start.session_id is not None
