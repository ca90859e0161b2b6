"""``python manage.py move_to DATABASE_URL``: the whole table, from the database this process is
configured with (the embedded SQLite file by default), into an empty PostgreSQL database, for a
table that outgrew one process (README, "Scale out").

Every row of every installed app moves with its primary key: users with their password hashes,
campaigns, memberships, invites, sheets, each rule system's rows, sparetime ledgers, the roll
logs with their whispers' places, the dice seeds (an open one stays unrevealed), the logins'
sessions, the login throttle's attempts. Django's own serializers carry them, as released:
here they are written as ``dumpdata --all`` reads them, inside one transaction (a consistent
copy), a row a line (JSONL, read back a line at a time: a long log is never held in memory
whole); a process of this command on the target (``--receive``, with ``DATABASE_URL`` set to
it) runs, in one transaction there, the emptiness check, ``migrate``, ``loaddata`` (which keeps
the primary keys and moves each sequence past the largest one it loaded:
``connection.ops.sequence_reset_sql``) and ``verify_rolls`` on every campaign, whose verdict
must be the one it gives here. Anything else rolls it all back: the target is left as it was
found. This database is only read.

The roll log's key is ``ROLLROOM_LOG_KEY``, else derived from ``SECRET_KEY`` (rolls/chain.py),
and the sessions are signed with ``SECRET_KEY``: the table keeps both when it moves, which the
command says with the settings to serve it with next."""

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
from io import StringIO
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
import psycopg
from django.apps import apps
from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core import serializers
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.core.serializers.json import DjangoJSONEncoder
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connection, router, transaction

from campaigns.models import Campaign

#: The tables ``migrate`` fills by itself: a database holding rows only there is still empty.
MADE_BY_MIGRATE = ("django_migrations", "django_content_type", "auth_permission")
#: The files the two halves of the move share, in a folder readable by this user only.
ROWS = "rows.jsonl"
VERDICTS = "verdicts.json"


def verdict(campaign_id):
    """What ``verify_rolls --campaign`` says of a campaign's log: its summary with the
    fingerprint, or why it does not hold."""
    out = StringIO()
    try:
        call_command("verify_rolls", campaign=campaign_id, stdout=out)
    except CommandError as error:
        return str(error)
    return out.getvalue().strip()


def verdicts():
    return {
        str(pk): verdict(pk) for pk in Campaign.objects.order_by("pk").values_list("pk", flat=True)
    }


class ExactEncoder(DjangoJSONEncoder):
    """Django's encoder, with times to the microsecond as stored. Its own writes them to the
    millisecond (as documented: ECMA-262's format), which ``dumpdata`` cannot change: every log
    entry's time is under its hash, and a moved log would no longer verify."""

    def default(self, o):
        if isinstance(o, datetime.datetime | datetime.time):
            return o.isoformat()
        return super().default(o)


def every_row():
    """Every row of every installed model, as ``dumpdata --all`` reads them (each model's base
    manager, in primary key order, a chunk at a time; a many-to-many field's rows with the
    row that holds it)."""
    for model in apps.get_models():
        if model._meta.proxy or not router.allow_migrate_model(DEFAULT_DB_ALIAS, model):
            continue
        yield from model._base_manager.order_by(model._meta.pk.name).iterator()


def shown(url):
    """``url`` without its password, to name the database in a message."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":…@", 1)
    return parts._replace(netloc=netloc).geturl()


def reason_of(error):
    """A database error's message on one line, without its closing full stop."""
    return " ".join(str(error).split()).rstrip(".")


class Command(BaseCommand):
    help = (
        "Copy the whole table (every row, with its id) into an empty PostgreSQL database and "
        "verify every roll log there; this database is only read."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "database_url", help="the empty PostgreSQL database: postgres://USER@HOST:PORT/NAME"
        )
        # The half of the move that runs on the target (DATABASE_URL set to it): the folder the
        # first half wrote. Not for a person to type.
        parser.add_argument("--receive", metavar="FOLDER", help=argparse.SUPPRESS)

    def handle(self, *args, database_url, receive=None, **options):
        if receive:
            return self.receive(database_url, Path(receive))
        target = self.target(database_url)
        try:
            call_command("migrate", check_unapplied=True, verbosity=0)
        except SystemExit:
            raise CommandError(
                "This database has migrations not applied: run manage.py migrate here first "
                "(move_to copies a table as this version of Rollroom stores it)."
            ) from None
        self.reach(target, database_url)
        with tempfile.TemporaryDirectory(prefix="rollroom-move-") as folder:  # mode 0700
            folder = Path(folder)
            # One transaction: the rows and the verdicts of one moment, whatever a server
            # still serving this database writes meanwhile (it should be stopped: what it
            # writes after this is not moved).
            with transaction.atomic():
                here = verdicts()
                with open(folder / ROWS, "w", encoding="utf-8") as rows:
                    serializers.serialize("jsonl", every_row(), stream=rows, cls=ExactEncoder)
            (folder / VERDICTS).write_text(json.dumps(here))
            with open(folder / ROWS, "rb") as rows:
                count = sum(1 for _ in rows)
            received = self.send(database_url, folder)
        self.report(database_url, count, received)

    def target(self, database_url):
        """The target's settings; a URL of anything but PostgreSQL is refused."""
        try:
            target = dj_database_url.parse(database_url)
        except ValueError:
            target = {}
        if target.get("ENGINE") != "django.db.backends.postgresql" or not target.get("NAME"):
            raise CommandError(
                f"{shown(database_url)!r} is not a PostgreSQL database's address: move_to moves "
                "into PostgreSQL, e.g. postgres://rollroom@127.0.0.1:5432/rollroom."
            )
        return target

    def reach(self, target, database_url):
        """Fail now, in one sentence, when the target cannot be reached (before the copy)."""
        params = {
            "dbname": target["NAME"],
            "user": target.get("USER") or None,
            "password": target.get("PASSWORD") or None,
            "host": target.get("HOST") or None,
            "port": target.get("PORT") or None,
            "connect_timeout": settings.DATABASE_CONNECT_TIMEOUT,
            **target.get("OPTIONS", {}),  # the URL's query: sslmode and the like
        }
        try:
            psycopg.connect(**{k: v for k, v in params.items() if v is not None}).close()
        except psycopg.Error as error:
            raise CommandError(
                f"Cannot reach the database {shown(database_url)} ({reason_of(error)}): nothing "
                "was moved."
            ) from None

    def send(self, database_url, folder):
        """Run the target's half in a process configured for it; its output, or its refusal
        as this command's."""
        env = {
            **os.environ,  # DJANGO_SETTINGS_MODULE among them (manage.py sets it)
            "DATABASE_URL": database_url,
            # The keys this process holds, whatever their source: the target verifies the logs
            # under the same one.
            "DJANGO_SECRET_KEY": settings.SECRET_KEY,
            "ROLLROOM_LOG_KEY": settings.ROLLROOM_LOG_KEY,
        }
        command = [sys.executable, "-m", "django", "move_to", database_url, "--receive", folder]
        done = subprocess.run(
            command, cwd=settings.BASE_DIR, env=env, capture_output=True, text=True
        )
        if done.returncode != 0:
            error = done.stderr.strip()
            _, found, message = error.rpartition("CommandError: ")
            if not found:
                message = (
                    f"The move into {shown(database_url)} failed, and left it as it was "
                    f"({error.splitlines()[-1] if error else done.returncode}): nothing was moved."
                )
            raise CommandError(message)
        return done.stdout

    def report(self, database_url, count, received):
        if os.environ.get("DJANGO_SECRET_KEY"):
            keys = ["DJANGO_SECRET_KEY: the same as now"]
        else:
            path = Path(settings.SECRET_KEY_FILE).resolve()
            keys = [f"DJANGO_SECRET_KEY_FILE={path} (or DJANGO_SECRET_KEY set to what it holds)"]
        if settings.ROLLROOM_LOG_KEY:
            keys.append("ROLLROOM_LOG_KEY: the same as now (it signs the roll log)")
            why = "Another secret key would log everyone out; another log key, fail every log."
        else:
            why = (
                "Another secret key would log everyone out and make every roll log fail "
                "verification: the log's key is derived from it."
            )
        self.stdout.write(
            f"Moved {count} rows into {shown(database_url)}, each with its id; verify_rolls "
            "says the same of every roll log there as here:\n"
            + "".join(f"  {line}\n" for line in received.splitlines())
            + "This database is unchanged. Stop serving it, and serve the table from PostgreSQL "
            "with:\n"
            f"  DATABASE_URL={database_url}\n" + "".join(f"  {line}\n" for line in keys) + why
        )

    # The target's half ---------------------------------------------------------------------------

    def receive(self, database_url, folder):
        if connection.vendor != "postgresql":
            raise CommandError("--receive runs with DATABASE_URL set to the PostgreSQL target.")
        expected = json.loads((folder / VERDICTS).read_text())
        try:
            with transaction.atomic():
                self.refuse_unless_empty(database_url)
                call_command("migrate", interactive=False, verbosity=0)
                # Django's PostgreSQL schema editor leaves the constraints it added IMMEDIATE
                # for the rest of the transaction (``sql_create_column_inline_fk``, so that a
                # migration may change data after it): back to their declared timing,
                # DEFERRED, or a row loaded before the row it refers to would be refused.
                with connection.cursor() as cursor:
                    cursor.execute("SET CONSTRAINTS ALL DEFERRED")
                # migrate made the content types and permissions with ids of its own: the
                # source's replace them, with theirs, which its rows refer to (the admin's
                # log, a user's permissions). Nothing else refers to them yet.
                ContentType.objects.all().delete()
                ContentType.objects.clear_cache()
                call_command("loaddata", str(folder / ROWS), verbosity=0)
                ContentType.objects.clear_cache()
                found = verdicts()
                if found != expected:
                    differ = min(
                        pk for pk in {*found, *expected} if found.get(pk) != expected.get(pk)
                    )
                    raise CommandError(
                        f"verify_rolls says of campaign {differ} in {shown(database_url)} "
                        f"{found.get(differ)!r}, and here {expected.get(differ)!r}: nothing was "
                        "moved."
                    )
        except DatabaseError as error:
            raise CommandError(
                f"The move into {shown(database_url)} failed, and left it as it was "
                f"({reason_of(error)}): nothing was moved."
            ) from None
        for line in found.values():
            self.stdout.write(line)

    def refuse_unless_empty(self, database_url):
        quote = connection.ops.quote_name
        with connection.cursor() as cursor:
            for table in connection.introspection.table_names(cursor):
                if table in MADE_BY_MIGRATE:
                    continue
                cursor.execute(f"SELECT EXISTS (SELECT 1 FROM {quote(table)})")
                if cursor.fetchone()[0]:
                    raise CommandError(
                        f"The database {shown(database_url)} is not empty (its table {table} "
                        "has rows): move_to moves only into an empty database (createdb). "
                        "Nothing was moved."
                    )
