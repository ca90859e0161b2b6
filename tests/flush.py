"""The flush after each transactional test, made cheap (fenced here; Django 5.2,
pinned in requirements.txt; tests/test_flush.py checks what it replaces).

Django's TransactionTestCase (every test with ``transaction=True``, every live-server test)
empties the database after the test with ``flush``: on PostgreSQL one ``TRUNCATE`` of every
table, which makes each table's files anew (about 0.2 s for this schema's tables, most of a
socket test's time). The tests leave a few rows: ``DELETE`` empties them at a fraction of that.
The tables are locked first, as TRUNCATE locks them: a live server's thread still writing (a
socket's presence as its page closes) waits until the flush has committed, rather than adding a
row that references one the flush deletes. The foreign keys Django makes are deferrable and
deferred, and flush runs its statements in one transaction, so the order of the deletes does
not matter; a flush that resets sequences or cascades (neither is used here) keeps Django's
own.

On every database the flush keeps the two tables that ``migrate`` fills once and no test writes,
the content types and the permissions (``KEPT``), and so sends no ``post_migrate`` signal after
it: the signal's receivers (contenttypes' and auth's) would only make those rows again, one
query per app and model (about 0.1 s a test on SQLite, 0.4 s on PostgreSQL)."""

from django.core.management.commands import flush as flush_command
from django.db.backends.postgresql.operations import DatabaseOperations

TRUNCATE_FLUSH = DatabaseOperations.sql_flush

#: The tables migrate fills (the post_migrate signal) and the flush keeps.
KEPT = {"django_content_type", "auth_permission"}


def delete_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
    """``DELETE FROM`` each of ``tables``, or Django's own flush where it resets sequences or
    cascades."""
    if reset_sequences or allow_cascade:
        return TRUNCATE_FLUSH(
            self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
        )
    names = [style.SQL_FIELD(self.quote_name(table)) for table in tables]
    lock = f"{style.SQL_KEYWORD('LOCK TABLE')} {', '.join(names)} IN ACCESS EXCLUSIVE MODE;"
    return [lock, *(f"{style.SQL_KEYWORD('DELETE FROM')} {name};" for name in names)]


def sql_flush_keeping(style, connection, reset_sequences=True, allow_cascade=False):
    """Django's ``sql_flush`` (django.core.management.sql) for every table but ``KEPT``."""
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    return connection.ops.sql_flush(
        style,
        [table for table in tables if table not in KEPT],
        reset_sequences=reset_sequences,
        allow_cascade=allow_cascade,
    )


def kept_rows_need_no_remaking(*args, **kwargs):
    """In place of the flush's ``emit_post_migrate_signal``: what it would make is kept."""


def install():
    DatabaseOperations.sql_flush = delete_flush
    flush_command.sql_flush = sql_flush_keeping
    flush_command.emit_post_migrate_signal = kept_rows_need_no_remaking
