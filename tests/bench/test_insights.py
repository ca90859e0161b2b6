"""The long log of ``bench_insights`` (bench/insights.py): built through the log's append, a
whole chain in sessions, with the visibilities of a real table. (The command itself, end to end:
tests/bench/test_bench.py.)"""

from collections import Counter
from io import StringIO

import pytest
from django.core.management import call_command

from bench.insights import log_create, log_delete
from campaigns.models import Campaign
from rolls.models import PRIVATE, PUBLIC, SECRET, WHISPER, LogEntry
from rules import mana

pytestmark = pytest.mark.django_db


def test_the_log_is_a_whole_chain_of_sessions_with_every_visibility():
    made = log_create(entries=250, session_rolls=40, seed=3)
    entries = list(LogEntry.objects.filter(campaign=made.campaign).order_by("seq"))
    assert [e.seq for e in entries] == list(range(1, 251))
    kinds = Counter(e.kind for e in entries)
    assert kinds[LogEntry.SESSION_START] == 6 and kinds[LogEntry.SESSION_END] == 5
    rolls = [e for e in entries if e.kind == LogEntry.ROLL]
    assert {e.visibility for e in rolls} == {PUBLIC, PRIVATE, SECRET}
    assert all(e.actor == made.users["gm"] for e in rolls if e.visibility == SECRET)
    for e in rolls:
        data = e.data  # a GM-secret roll's too, sealed with its commitment
        assert data["successes"] == mana.successes(data["faces"])
        assert data["success"] == (data["successes"] >= data["target"])
        chance = mana.success_probability(data["dice"], data["target"])
        assert data["chance"] == str(chance)
    out = StringIO()
    call_command("verify_rolls", campaign=made.campaign.pk, stdout=out)
    assert "is whole: 250 entries" in out.getvalue()


def test_with_talk_a_share_of_the_log_is_messages_and_whispers_the_timed_users_never_see():
    made = log_create(entries=300, session_rolls=100, seed=5, talk=0.3)
    entries = list(LogEntry.objects.filter(campaign=made.campaign).order_by("seq"))
    messages = [e for e in entries if e.kind == LogEntry.MESSAGE]
    assert {e.visibility for e in messages} == {PUBLIC, WHISPER}
    assert 40 < len(messages) < 140
    timed = {made.users["gm"].pk, made.users["player"].pk}
    for e in messages:
        if e.visibility == WHISPER:
            assert timed.isdisjoint({e.actor_id, e.recipient_id})
    out = StringIO()
    call_command("verify_rolls", campaign=made.campaign.pk, stdout=out)
    assert "is whole: 300 entries" in out.getvalue()


def test_what_it_made_is_removed():
    made = log_create(entries=5, session_rolls=2, seed=1)
    log_delete(made)
    assert not Campaign.objects.filter(pk=made.campaign.pk).exists()
    assert not LogEntry.objects.filter(campaign_id=made.campaign.pk).exists()
