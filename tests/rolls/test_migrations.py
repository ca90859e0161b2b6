"""rolls/migrations/0002_signed_log: a log written before entries were signed is chained again
under the log key, and verifies from there on."""

from fractions import Fraction

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

import campaigns.models
from rolls import services
from rolls.chain import GENESIS
from rules import notation as rules_notation

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


#: rolls/migrations/0008_logentry_outcome: before it, the entries' outcomes were only in their
#: data (every other app of ours at its latest).
BEFORE_OUTCOME = [("rolls", "0007_check_fields_move_to_systems")]
LATEST = ("campaigns", "sheets", "mana", "pool", "sparetime")


@pytest.mark.django_db(transaction=True)
def test_rolls_logged_before_their_outcome_was_kept_get_it_from_their_data():
    from rolls.models import LogEntry, outcome_fields

    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes
    old = migrate(BEFORE_OUTCOME + [leaves(app)[0] for app in LATEST])
    try:
        Campaign = old.get_model("campaigns", "Campaign")
        OldEntry = old.get_model("rolls", "LogEntry")
        campaign = Campaign.objects.create(name="Old", system="mana", invite_token="y")
        mana = {"system": "mana", "dice": 3, "faces": [8, 10, 2], "successes": 3}
        mana |= {"target": 2, "success": True, "chance": "7/25"}
        pool = {"system": "pool", "d6": [[6, 2], [1]], "d10": [[4]], "highest": 8}
        pool |= {"target": 9, "success": False, "chance": "1/3"}
        datas = [{"number": 1}, mana, pool, {"system": "coin", "heads": 1, "chance": "1/2"}]
        kinds = ["session_start", "roll", "roll", "roll"]
        for seq, (kind, data) in enumerate(zip(kinds, datas, strict=True), start=1):
            OldEntry.objects.create(campaign=campaign, seq=seq, kind=kind, data=data, hash="h")
    finally:
        migrate()
    entries = LogEntry.objects.filter(campaign_id=campaign.pk).order_by("seq")
    got = [{name: getattr(e, name) for name in LogEntry.OUTCOME} for e in entries]
    assert got[1] == {"success": True, "chance": "7/25", "target": 2, "pool": "3", "shown": 3}
    assert got[2] == {"success": False, "chance": "1/3", "target": 9, "pool": "2+1", "shown": 8}
    assert got[3]["pool"] == "" and got[3]["chance"] == "1/2"
    assert got == [outcome_fields(e.kind, e.data) for e in entries]  # as written from now on


#: rolls/migrations/0011_logentry_cells: before it, an entry's cells in the CSV export were
#: made from its data at every download.
BEFORE_CELLS = [("rolls", "0010_whispers")]


@pytest.mark.django_db(transaction=True)
def test_entries_logged_before_their_cells_were_kept_get_them_from_their_data():
    from rolls.export import cells_text
    from rolls.models import LogEntry

    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes
    old = migrate(BEFORE_CELLS + [leaves(app)[0] for app in LATEST])
    try:
        Campaign = old.get_model("campaigns", "Campaign")
        OldEntry = old.get_model("rolls", "LogEntry")
        campaign = Campaign.objects.create(name="Old", system="mana", invite_token="z")
        mana = {"system": "mana", "skill": "Jump", "dice": 2, "faces": [8, 10], "successes": 3}
        mana |= {"target": 2, "success": True, "chance": "7/25", "note": "=SUM(A1)"}
        datas = [{"number": 1}, mana, {"text": "hi, all"}]
        kinds = ["session_start", "roll", "message"]
        for seq, (kind, data) in enumerate(zip(kinds, datas, strict=True), start=1):
            OldEntry.objects.create(campaign=campaign, seq=seq, kind=kind, data=data, hash="h")
    finally:
        migrate()
    entries = list(LogEntry.objects.filter(campaign_id=campaign.pk).order_by("seq"))
    assert [e.cells for e in entries] == [
        ",,Session 1,,,,,,,,,",
        "mana,,Jump,2d10,8 10,3 successes,2,True,7/25,0.28,,'=SUM(A1)",
        ",,Message,,,,,,,,,",
    ]
    assert [e.cells for e in entries] == [
        cells_text(e.kind, e.visibility, e.data) for e in entries
    ]  # as written from now on


#: rolls/migrations/0014_logentry_cells_chance_decimal: before it, the export had no
#: ``chance_decimal`` column, and the cells kept with each entry had none either.
BEFORE_CHANCE_DECIMAL = [("rolls", "0013_dice_seed_entry")]


@pytest.mark.django_db(transaction=True)
def test_a_log_kept_before_the_decimal_column_still_verifies(mana_table):
    from rolls.export import CELLS, cells_text, csv_text, entry_cells
    from rolls.models import LogEntry
    from tests.rolls.room_setup import ask, roll_mana

    roll_mana(
        ask(mana_table, mana_table.mira, target=3),
        mana_table.player,
        mana_table.gather,
        [8, 10, 1, 2],
    )
    notation = rules_notation.parse("2d6 vs 8")
    services.free_roll_make(campaign=mana_table.campaign, by=mana_table.player, notation=notation)
    entries = LogEntry.objects.filter(campaign=mana_table.campaign)
    decimal = CELLS.index("chance_decimal")
    for entry in entries:  # the cells as the entries kept them before the column
        cells = entry_cells(entry.kind, entry.visibility, entry.data)
        entry.cells = csv_text(cells[:decimal] + cells[decimal + 1 :])
        entry.save(update_fields=["cells"])
    assert "its export is not the one its data says" in str(
        services.log_verify(mana_table.campaign)
    )
    migrate(BEFORE_CHANCE_DECIMAL)
    migrate()
    assert services.log_verify(mana_table.campaign) is None
    entries = list(entries.all())  # read again
    assert [e.cells for e in entries] == [cells_text(e.kind, e.visibility, e.data) for e in entries]
    roll = next(e for e in entries if e.kind == LogEntry.ROLL)
    assert f",{roll.data['chance']},{float(Fraction(roll.data['chance']))}," in roll.cells


#: rolls/migrations/0015_log_keeps_who_left (with sheets' 0007 and sparetime's 0006): before
#: them, deleting a user set the log's ids of them to NULL, and every hash from there on broke.
BEFORE_LEAVING = [
    ("rolls", "0014_logentry_cells_chance_decimal"),
    ("sheets", "0006_rating_moves_to_pool"),
    ("sparetime", "0005_build_points_and_lines"),
]


@pytest.mark.django_db(transaction=True)
def test_a_log_kept_before_members_could_leave_keeps_its_fingerprints(pool_table):
    from campaigns.services import account_delete
    from rolls.models import LogEntry
    from tests.campaigns.leaving import played
    from tests.conftest import PASSWORD

    played(pool_table)
    fields = ("hash", "prev_hash", "actor_id", "recipient_id", "character_id", "check_ref_id")
    log = LogEntry.objects.filter(campaign=pool_table.campaign).order_by("seq", "sub")
    before = list(log.values_list(*fields))
    head = campaigns.models.Campaign.objects.get(pk=pool_table.campaign.pk).head_hash
    migrate(BEFORE_LEAVING)
    migrate()
    assert list(log.values_list(*fields)) == before
    campaign = campaigns.models.Campaign.objects.get(pk=pool_table.campaign.pk)
    assert campaign.head_hash == head
    assert services.log_verify(campaign) is None
    account_delete(user=pool_table.player, password=PASSWORD)  # and now she may leave
    assert list(log.values_list(*fields)) == before
    assert services.log_verify(campaign) is None
