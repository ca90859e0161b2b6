"""tests/flush.py: the flush after each transactional test empties every table on PostgreSQL
with DELETE, rows that reference each other included, the tables locked first as TRUNCATE locks
them, and keeps Django's own flush where it resets sequences or cascades; it replaces Django
5.2's (the version pinned)."""

import django
import pytest
from django.core.management import call_command
from django.core.management.color import no_style
from django.db.backends.postgresql.operations import DatabaseOperations

from campaigns.models import Campaign, Membership
from rolls import services
from rolls.models import Check, LogEntry
from sheets.models import Character
from sheets.services import character_create
from tests import flush
from tests.conftest import make_campaign, make_user


def test_it_replaces_the_flush_of_the_django_it_was_written_for():
    assert django.VERSION[:2] == (5, 2)
    assert DatabaseOperations.sql_flush is flush.delete_flush
    assert flush.TRUNCATE_FLUSH.__module__ == "django.db.backends.postgresql.operations"


def test_it_deletes_each_table_and_keeps_django_s_flush_for_sequences_and_cascades():
    ops = DatabaseOperations(connection=None)
    assert flush.delete_flush(ops, no_style(), ["a", "b_c"]) == [
        'LOCK TABLE "a", "b_c" IN ACCESS EXCLUSIVE MODE;',
        'DELETE FROM "a";',
        'DELETE FROM "b_c";',
    ]
    assert flush.delete_flush(ops, no_style(), ["a", "b"], allow_cascade=True) == [
        'TRUNCATE "a", "b" CASCADE;'
    ]
    restart = flush.delete_flush(ops, no_style(), ["a"], reset_sequences=True)
    assert restart == ['TRUNCATE "a" RESTART IDENTITY;']


@pytest.mark.django_db(transaction=True)
def test_a_flush_empties_the_tables_whatever_references_what():
    """A campaign, its members, a character, a check and the log's entries (which reference
    each other and the campaign's head): all gone after the flush, on the database the tests
    run on (PostgreSQL with DATABASE_URL)."""
    gm, ana = make_user("gm"), make_user("ana")
    campaign = make_campaign(gm, players=[ana])
    character = character_create(campaign=campaign, owner=ana, name="Ilse")
    services.session_start(campaign=campaign, by=gm)
    services.check_ask(campaign=campaign, character=character, by=gm, target=4)
    assert Check.objects.exists() and LogEntry.objects.exists()
    call_command("flush", interactive=False, verbosity=0)
    models = (Campaign, Membership, Character, Check, LogEntry, type(gm))
    assert {model.__name__: model.objects.count() for model in models} == dict.fromkeys(
        (model.__name__ for model in models), 0
    )
