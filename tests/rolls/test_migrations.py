"""rolls/migrations/0002_signed_log: a log written before entries were signed is chained again
under the log key, and verifies from there on."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

import campaigns.models
from rolls import services
from rolls.chain import GENESIS

BEFORE = [("campaigns", "0001_initial"), ("rolls", "0001_initial")]


def migrate(targets=None):
    """Migrate the test database to ``targets`` (default: the latest); the models as they were
    there."""
    executor = MigrationExecutor(connection)
    targets = targets or executor.loader.graph.leaf_nodes()
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_an_old_log_is_chained_again_and_verifies():
    old = migrate(BEFORE)
    try:
        User = old.get_model("auth", "User")
        Campaign = old.get_model("campaigns", "Campaign")
        GameSession = old.get_model("campaigns", "GameSession")
        LogEntry = old.get_model("rolls", "LogEntry")
        gm = User.objects.create(username="gm")
        campaign = Campaign.objects.create(name="Old", system="pool", last_seq=3, invite_token="x")
        session = GameSession.objects.create(campaign=campaign, number=1)
        for seq in (1, 2, 3):  # all-zero previous hashes, as concurrent rolls left them
            LogEntry.objects.create(
                campaign=campaign,
                seq=seq,
                kind="session_start" if seq == 1 else "roll",
                session=session,
                actor=gm,
                data={"number": 1} if seq == 1 else {"system": "pool", "highest": seq},
                prev_hash=GENESIS,
                hash=f"{seq:064x}",
            )
    finally:
        migrate()

    campaign = campaigns.models.Campaign.objects.get(name="Old")
    assert services.log_verify(campaign) is None
    entries = list(campaign.log.all())
    assert entries[0].prev_hash == GENESIS
    assert [e.prev_hash for e in entries[1:]] == [e.hash for e in entries[:-1]]
    assert campaign.head_hash == entries[-1].hash
    assert campaign.log_session_id == session.pk
