"""``python manage.py restore FILE [--replace]``: bring a backup (``manage.py backup``) back
into the table's database, which must be empty unless ``--replace`` (what it holds is then
backed up first), bring it up to this code's migrations, then verify every campaign's roll log
and dice as ``verify_rolls`` does (``rolls.verify``) and print each log's fingerprint, for the
players to compare with the one they noted. A refusal or a failure changes nothing."""

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from backups.dumps import restore
from campaigns.models import Campaign
from rolls.verify import describe, fingerprint, logs_verify


class Command(BaseCommand):
    help = (
        "Restore a backup into the empty table's database (--replace: into a full one, backed "
        "up first), then verify every roll log and print its fingerprint."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", metavar="FILE", help="the backup file")
        parser.add_argument(
            "--replace",
            action="store_true",
            help="replace what the database holds, after backing it up",
        )

    def handle(self, *args, file, replace=False, **options):
        replaced = restore(file, replace=replace)
        if replaced:
            self.stdout.write(f"What the database held is backed up in {replaced}.")
        call_command("migrate", interactive=False, verbosity=0)  # a backup from an older code
        self.stdout.write(f"Restored {file}.")
        found = logs_verify(Campaign.objects.all())
        for each in found.whole:
            self.stdout.write(
                f"The roll log of {describe(each)}: {each.entries} entries, "
                f"fingerprint {fingerprint(each)}."
            )
        if found.broken:
            raise CommandError(
                "\n".join(found.broken)
                + "\nIs ROLLROOM_LOG_KEY (or the secret key) the one the table ran with?"
            )
        self.stdout.write(found.summary())
