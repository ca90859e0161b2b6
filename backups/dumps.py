"""A backup of the table's database taken while it is served, and its restore.

SQLite: Python's ``sqlite3.Connection.backup`` (SQLite's online backup API) copies the file in
one step, under a read transaction: with WAL the writers go on meanwhile, and the copy is the
database as one moment saw it. PostgreSQL: ``pg_dump --format=custom``, which reads every table
in one snapshot. A backup is written under a temporary name in its folder, readable by its owner
only, and takes its name (``core.backups.backup_name``) only once whole.

A restore checks the whole file before it touches the database (SQLite: ``PRAGMA
quick_check``; PostgreSQL: the archive turned into SQL by ``pg_restore``, which reads every
block), refuses a backup whose ``django_migrations`` name a migration this code does not have,
then replaces the database in one transaction (SQLite's backup API into it; ``psql
--single-transaction``): a failure leaves it as it was. Every refusal is a CommandError of
one sentence."""

import os
import shutil
import sqlite3
import subprocess
import tempfile
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError
from django.db import DatabaseError, connection, connections
from django.db.migrations.loader import MigrationLoader

from core.backups import SUFFIXES, backup_name, backups_in

#: The first bytes of each kind of backup file, by the database it restores into.
HEADERS = {"sqlite": b"SQLite format 3\0", "postgresql": b"PGDMP"}
ENGINES = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}
#: The tables ``migrate`` fills by itself: rows there do not make a database a table's.
MIGRATE_FILLS = {"django_migrations", "django_content_type", "auth_permission"}
#: The statement that empties a PostgreSQL database's tables before a restore, in the restore's
#: transaction (their sequences are theirs and go with them).
DROP_TABLES = """DO $$DECLARE t record; BEGIN
  FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = 'public' LOOP
    EXECUTE 'DROP TABLE IF EXISTS public.' || quote_ident(t.tablename) || ' CASCADE';
  END LOOP;
END$$;"""


def program(name):
    """The path of PostgreSQL's client program ``name``, or a refusal naming it."""
    path = shutil.which(name)
    if path is None:
        raise CommandError(
            f"{name} is not installed: install PostgreSQL's client programs "
            "(Debian: apt-get install postgresql-client) to back up or restore PostgreSQL."
        )
    return path


def pg_environment():
    """The environment PostgreSQL's programs reach the table's database with (libpq's
    variables, from the settings' connection)."""
    database = connection.settings_dict
    environment = dict(os.environ)
    names = {"HOST": "PGHOST", "PORT": "PGPORT", "USER": "PGUSER", "PASSWORD": "PGPASSWORD"}
    for key, variable in names.items():
        if database.get(key):
            environment[variable] = str(database[key])
    environment["PGDATABASE"] = database["NAME"]
    if database.get("OPTIONS", {}).get("sslmode"):
        environment["PGSSLMODE"] = database["OPTIONS"]["sslmode"]
    return environment


def last_line(text):
    """The reason a program or a driver gives, in one line: its last line that says "error:"
    (without its "program: error:"), else its last line."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    errors = [line.split("error:", 1)[1].strip() for line in lines if "error:" in line]
    found = errors[-1] if errors else lines[-1] if lines else "no reason given"
    return found.rstrip(".")


def run(argv, what):
    """Run one of PostgreSQL's programs on the table's database; its failure a refusal that
    says ``what`` failed and the program's last word."""
    done = subprocess.run(argv, env=pg_environment(), capture_output=True, text=True)
    if done.returncode != 0:
        raise CommandError(f"{what}: {os.path.basename(argv[0])} says {last_line(done.stderr)}.")
    return done


# Taking one ------------------------------------------------------------------------------------


def backup_folder(directory):
    """``directory``, made if missing (0700, its owner's only), or a refusal saying why
    backups cannot be written there."""
    directory = Path(directory)
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    except FileExistsError:
        raise CommandError(f"Cannot write backups to {directory}: it is not a folder.") from None
    except OSError as error:
        raise CommandError(f"Cannot write backups to {directory}: {error.strerror}.") from None
    if not directory.is_dir():
        raise CommandError(f"Cannot write backups to {directory}: it is not a folder.")
    return directory


def backup_take(directory=None):
    """Back the table's database up into ``directory`` (the setting ``BACKUP_DIR``): the new
    file's path. The oldest backups beyond ``BACKUP_KEEP`` in that folder are deleted after."""
    vendor = connection.vendor
    if vendor not in SUFFIXES:
        raise CommandError(f"Backups cover SQLite and PostgreSQL, not {vendor}.")
    dump = program("pg_dump") if vendor == "postgresql" else None
    directory = backup_folder(settings.BACKUP_DIR if directory is None else directory)
    try:
        descriptor, draft = tempfile.mkstemp(dir=directory, prefix=".partial-")  # 0600
    except OSError as error:
        raise CommandError(f"Cannot write backups to {directory}: {error.strerror}.") from None
    os.close(descriptor)
    taken = datetime.now(UTC)
    try:
        if dump:
            run([dump, "--format=custom", f"--file={draft}"], "The backup failed")
        else:
            sqlite_copy(connection.settings_dict["NAME"], draft)
        with open(draft, "rb") as file:
            os.fsync(file.fileno())
        path = named(draft, directory, taken, vendor)
    except OSError as error:
        raise CommandError(f"Cannot write backups to {directory}: {error.strerror}.") from None
    finally:
        Path(draft).unlink(missing_ok=True)
    for old in backups_in(directory)[: -settings.BACKUP_KEEP]:
        old.unlink(missing_ok=True)
    return path


def sqlite_copy(source, target):
    """Copy the SQLite database ``source`` into the empty file ``target`` with the online
    backup API, in one step (a step per page would start over each time a writer commits),
    then give the copy a journal of its own (no WAL file beside it) and check it."""
    if not Path(source).is_file():
        raise CommandError(f"There is no database to back up at {source}.")
    try:
        with closing(sqlite3.connect(source, timeout=20)) as database:
            with closing(sqlite3.connect(target)) as copy:
                database.backup(copy)
                copy.execute("PRAGMA journal_mode=DELETE")
                [[check]] = copy.execute("PRAGMA quick_check").fetchall()
    except sqlite3.Error as error:
        raise CommandError(f"The backup of {source} failed: {error}.") from None
    if check != "ok":
        raise CommandError(f"The backup of {source} failed: its copy does not hold ({check}).")


def named(draft, directory, taken, vendor):
    """Give the whole backup ``draft`` its name, never over another's: the path."""
    count = 0
    while True:
        path = directory / backup_name(taken, vendor, count)
        try:
            os.link(draft, path)
            return path
        except FileExistsError:
            count += 1


# Restoring one ---------------------------------------------------------------------------------


def backup_kind(path):
    """The database a backup file restores into, "sqlite" or "postgresql", by its first bytes."""
    try:
        with open(path, "rb") as file:
            start = file.read(16)
    except FileNotFoundError:
        raise CommandError(f"There is no file {path}.") from None
    except OSError as error:
        raise CommandError(f"{path} cannot be read: {error.strerror}.") from None
    for vendor, header in HEADERS.items():
        if start.startswith(header):
            return vendor
    raise CommandError(
        f"{path} is not a Rollroom backup (neither a SQLite database nor a pg_dump archive)."
    )


def sqlite_migrations(path, copy):
    """Copy the SQLite backup ``path`` to ``copy`` (the file is never opened for writing),
    check every page of it and read its applied migrations."""
    shutil.copyfile(path, copy)
    try:
        with closing(sqlite3.connect(copy)) as database:
            [[check], *_] = database.execute("PRAGMA quick_check").fetchall()
            if check != "ok":
                raise sqlite3.DatabaseError(check)
            return set(database.execute("SELECT app, name FROM django_migrations").fetchall())
    except sqlite3.Error as error:
        # quick_check reports a page per line ("*** in database main ***", "Page 50: ..."):
        # the sentence keeps one.
        reason = last_line(str(error))
        raise CommandError(f"{path} is not a whole Rollroom backup: {reason}.") from None


def pg_migrations(path, script):
    """Turn the pg_dump archive ``path`` into the SQL ``script`` (pg_restore reads every block:
    a truncated or damaged archive fails here) and read its applied migrations."""
    restore = program("pg_restore")
    done = subprocess.run(
        [restore, "--no-owner", "--no-privileges", f"--file={script}", str(path)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise CommandError(f"{path} is not a whole Rollroom backup: {last_line(done.stderr)}.")
    rows, columns = None, None
    with open(script, encoding="utf-8") as sql:
        for line in sql:
            if columns is not None:
                if line.rstrip("\n") == "\\.":
                    break
                values = line.rstrip("\n").split("\t")
                rows.add((values[columns[0]], values[columns[1]]))
            elif line.startswith("COPY public.django_migrations ("):
                names = line.split("(", 1)[1].split(")", 1)[0].split(", ")
                rows, columns = set(), (names.index("app"), names.index("name"))
    if rows is None:
        raise CommandError(f"{path} is not a Rollroom backup: it holds no django_migrations.")
    return rows


def newer_migrations(applied):
    """The migrations among ``applied`` ((app, name) pairs) that this code does not have."""
    known = set(MigrationLoader(None, ignore_no_migrations=True).disk_migrations)
    return sorted(set(applied) - known)


def tables_with_rows():
    """The tables of the table's database that hold rows, but for those ``migrate`` fills."""
    with connection.cursor() as cursor:
        tables = sorted(set(connection.introspection.table_names(cursor)) - MIGRATE_FILLS)
        filled = []
        for table in tables:
            cursor.execute(f"SELECT 1 FROM {connection.ops.quote_name(table)} LIMIT 1")
            if cursor.fetchone():
                filled.append(table)
    return filled


def database_name():
    return str(connection.settings_dict["NAME"])


def restore(path, *, replace=False):
    """Restore the backup file ``path`` into the table's database, empty unless ``replace``
    (then what it holds is backed up first, into ``BACKUP_DIR``): that backup's path, or None.
    Nothing is changed when it refuses or fails."""
    path = Path(path)
    vendor = backup_kind(path)
    if vendor != connection.vendor:
        raise CommandError(
            f"{path} is a {ENGINES[vendor]} backup and this table's database is "
            f"{ENGINES.get(connection.vendor, connection.vendor)}: restore it into a "
            f"{ENGINES[vendor]} database (SQLITE_PATH or DATABASE_URL)."
        )
    with tempfile.TemporaryDirectory(prefix="rollroom-restore-") as work:
        if vendor == "sqlite":
            source = Path(work) / "backup.sqlite3"
            applied = sqlite_migrations(path, source)
        else:
            source = Path(work) / "backup.sql"
            applied = pg_migrations(path, source)
            psql = program("psql")
        newer = newer_migrations(applied)
        if newer:
            names = ", ".join(f"{app}.{name}" for app, name in newer[:3])
            more = f" and {len(newer) - 3} more" if len(newer) > 3 else ""
            raise CommandError(
                f"{path} comes from a newer Rollroom, whose migrations {names}{more} this code "
                "does not have: update the code, then restore it."
            )
        try:
            filled = tables_with_rows()
        except DatabaseError as error:
            raise CommandError(
                f"The database {database_name()} cannot be reached: {last_line(str(error))}."
            ) from None
        if filled and not replace:
            shown = ", ".join(filled[:3]) + (", …" if len(filled) > 3 else "")
            raise CommandError(
                f"The database {database_name()} is not empty ({shown} hold rows): restore "
                "into an empty one, or give --replace to replace it (it is backed up first)."
            )
        replaced = backup_take() if filled else None
        connections.close_all()
        if vendor == "sqlite":
            sqlite_restore(source, database_name())
        else:
            run(
                [psql, "-X", "-q", "--single-transaction", "-v", "ON_ERROR_STOP=1"]
                + ["-c", DROP_TABLES, "-f", str(source)],
                f"The restore of {path} failed and the database is as it was",
            )
    return replaced


def sqlite_restore(source, target):
    """Copy the checked SQLite backup ``source`` over the database ``target`` with the backup
    API, in one write transaction on ``target``: all or nothing."""
    try:
        with closing(sqlite3.connect(source)) as backup:
            with closing(sqlite3.connect(target, timeout=20)) as database:
                backup.backup(database)
    except sqlite3.Error as error:
        raise CommandError(
            f"The restore into {target} failed and the database is as it was: {error}."
        ) from None
