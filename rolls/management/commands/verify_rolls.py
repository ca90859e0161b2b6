"""``python manage.py verify_rolls [--campaign ID]``: verify roll logs and the dice of every roll
whose seed is revealed (a session's, once it ended) with ``rolls.services.log_check``, the check
the GM's page runs too (``rolls.verify``, which ``manage.py restore`` reports with as well).

Exit 0 with a one-line summary when every log is whole; otherwise exit 1, naming for each
campaign whose log does not hold its first entry altered, inserted or deleted, or the first roll
whose dice are not those its seed, its contribution and its number give."""

from django.core.management.base import BaseCommand, CommandError

from campaigns.models import Campaign
from rolls.verify import logs_verify


class Command(BaseCommand):
    help = (
        "Verify the roll log of every campaign, or of one: exit 0 when whole, 1 naming the "
        "first entry altered, inserted or deleted."
    )

    def add_arguments(self, parser):
        parser.add_argument("--campaign", type=int, help="the id of the one campaign to verify")

    def handle(self, *args, campaign=None, **options):
        campaigns = Campaign.objects.all()
        if campaign is not None:
            campaigns = campaigns.filter(pk=campaign)
            if not campaigns.exists():
                raise CommandError(f"No campaign {campaign}.")
        found = logs_verify(campaigns)
        if found.broken:
            raise CommandError("\n".join(found.broken))
        self.stdout.write(found.summary(one=campaign is not None))
