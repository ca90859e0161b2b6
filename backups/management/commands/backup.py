"""``python manage.py backup [--to DIR]``: a consistent copy of the table's database while it is
served (backups/dumps.py), named by its time, readable by its owner only, into ``DIR`` or the
setting ``BACKUP_DIR`` (ROLLROOM_BACKUP_DIR; .rollroom/backups/ by default), which keeps the
last ``BACKUP_KEEP``.

``--every SECONDS`` takes one every SECONDS, the first after SECONDS, until its standard input
closes: ``manage.py host`` starts it so beside its daphne, which holds the other end of that
pipe, so that it stops when the server does, however the server ends (a crash too)."""

import select
import sys

from django.core.management.base import BaseCommand, CommandError
from django.db import connections

from backups.dumps import backup_take


class Command(BaseCommand):
    help = (
        "Back the table's database up while it is served (SQLite's online backup, or pg_dump), "
        "into --to DIR or ROLLROOM_BACKUP_DIR, keeping the last ROLLROOM_BACKUP_KEEP."
    )

    def add_arguments(self, parser):
        parser.add_argument("--to", metavar="DIR", help="the folder to write the backup into")
        parser.add_argument(
            "--every",
            metavar="SECONDS",
            type=float,
            help="take one every SECONDS until standard input closes (how `host` runs it)",
        )

    def handle(self, *args, to=None, every=None, **options):
        if every is None:
            self.stdout.write(f"Backed up to {backup_take(to)}.")
            return
        if not every > 0:
            raise CommandError("--every takes a number of seconds above 0.")
        try:
            if options["verbosity"] > 1:
                self.stdout.write(f"A backup every {every:g} seconds, until its input closes.")
                self.stdout.flush()
            while not closed(sys.stdin, every):
                try:
                    self.stdout.write(f"Backed up to {backup_take(to)}.")
                except CommandError as error:  # the next one may succeed: the server goes on
                    self.stderr.write(f"The backup failed: {error}")
                connections.close_all()  # nothing held open between backups
                self.stdout.flush()
        except KeyboardInterrupt:
            # Ctrl-C on host's terminal reaches this process too: it stops with the server,
            # without a traceback.
            return


def closed(stream, timeout):
    """Wait up to ``timeout`` seconds for ``stream`` to close: whether it did."""
    readable, _, _ = select.select([stream], [], [], timeout)
    return bool(readable) and not stream.buffer.read1(4096)
