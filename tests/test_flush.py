"""tests/flush.py: the flush after each transactional test empties every table on PostgreSQL
with DELETE, rows that reference each other included, the tables locked first as TRUNCATE locks
them, and keeps Django's own flush where it resets sequences or cascades; it replaces Django
5.2's (the version pinned); on every database it keeps the content types and permissions
migrate made."""

import django
import pytest
from django.apps import apps
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.core.management.color import no_style
from django.core.management.commands import flush as flush_command
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
    assert flush_command.sql_flush is flush.sql_flush_keeping
    assert flush_command.emit_post_migrate_signal is flush.kept_rows_need_no_remaking
    assert flush.KEPT == {ContentType._meta.db_table, Permission._meta.db_table}
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


def every_model_s_content_type_and_permissions():
    return {
        (model._meta.app_label, model._meta.model_name): sorted(
            Permission.objects.filter(
                content_type=ContentType.objects.get_for_model(model, for_concrete_model=False)
            ).values_list("codename", flat=True)
        )
        for model in apps.get_models()
    }


@pytest.mark.django_db(transaction=True)
def test_a_flush_keeps_the_content_types_and_permissions_migrate_made():
    """Every model's content type and its four permissions, as migrate made them (their ids
    too), are there after a flush that emptied the rest; nothing made them again."""
    made = every_model_s_content_type_and_permissions()
    ids = set(ContentType.objects.values_list("pk", flat=True))
    assert all(len(codenames) == 4 for codenames in made.values())
    make_campaign(make_user("gm"))
    call_command("flush", interactive=False, verbosity=0)
    assert not Campaign.objects.exists()
    ContentType.objects.clear_cache()
    assert every_model_s_content_type_and_permissions() == made
    assert set(ContentType.objects.values_list("pk", flat=True)) == ids
