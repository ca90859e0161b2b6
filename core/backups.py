"""Where the backups are and what they are called, which the backups app writes
(``manage.py backup``, backups/) and the GM panel reads (the time of the last one, for the
host's staff users). A backup is a file named by the time it was taken (UTC), one of
``rollroom-20261207-074606Z.sqlite3`` (SQLite's online backup) or ``….pgdump`` (pg_dump's
custom format); a second one within the same second gets ``-1``, ``-2``… after the time."""

import re
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings

#: The name of a backup file: its time (UTC), the count within that second, its kind.
NAME = re.compile(r"rollroom-(\d{8}-\d{6})Z(?:-(\d+))?\.(sqlite3|pgdump)")
STAMP = "%Y%m%d-%H%M%S"
#: A backup's kind by the database it copies (Django's ``connection.vendor``).
SUFFIXES = {"sqlite": "sqlite3", "postgresql": "pgdump"}


def backup_name(taken, vendor, count=0):
    """The name of the backup of a ``vendor`` database taken at ``taken`` (an aware datetime),
    the ``count``-th of that second."""
    more = f"-{count}" if count else ""
    return f"rollroom-{taken.astimezone(UTC).strftime(STAMP)}Z{more}.{SUFFIXES[vendor]}"


def taken_at(name):
    """(the time, the count) a backup's file name gives, or None for any other name."""
    found = NAME.fullmatch(name)
    if found is None:
        return None
    taken = datetime.strptime(found[1], STAMP).replace(tzinfo=UTC)
    return taken, int(found[2] or 0)


def backups_in(directory):
    """The backup files in ``directory``, oldest first (none when it does not exist)."""
    try:
        paths = [path for path in Path(directory).iterdir() if taken_at(path.name)]
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return []
    return sorted(paths, key=lambda path: taken_at(path.name))


def last_backup(directory=None):
    """The time of the newest backup in ``directory`` (the setting ``BACKUP_DIR``), or None."""
    found = backups_in(settings.BACKUP_DIR if directory is None else directory)
    return taken_at(found[-1].name)[0] if found else None
