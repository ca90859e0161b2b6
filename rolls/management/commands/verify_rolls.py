"""``python manage.py verify_rolls [--campaign ID]``: verify roll logs and the dice of every roll
whose seed is revealed (a session's, once it ended) with ``rolls.services.log_check``, the check
the GM's page runs too.

Exit 0 with a one-line summary when every log is whole; otherwise exit 1, naming for each
campaign whose log does not hold its first entry altered, inserted or deleted, or the first roll
whose dice are not those its seed, its contribution and its number give."""

from django.core.management.base import BaseCommand, CommandError

from campaigns.models import Campaign
from rolls.models import LogEntry, after_place, place_text
from rolls.services import log_check


def describe(campaign):
    return f"campaign {campaign.pk} “{campaign.name}”"


class Command(BaseCommand):
    help = (
        "Verify the roll log of every campaign, or of one: exit 0 when whole, 1 naming the "
        "first entry altered, inserted or deleted."
    )

    def add_arguments(self, parser):
        parser.add_argument("--campaign", type=int, help="the id of the one campaign to verify")

    def handle(self, *args, campaign=None, **options):
        campaigns = Campaign.objects.order_by("pk")
        if campaign is not None:
            campaigns = campaigns.filter(pk=campaign)
            if not campaigns.exists():
                raise CommandError(f"No campaign {campaign}.")
        broken, whole, entries, dice, unannounced = [], [], 0, 0, 0
        # Each campaign's head is read before its log: the summary names what was verified.
        fields = ("pk", "name", "last_seq", "last_sub", "head_hash")
        for each in campaigns.only(*fields).iterator():
            found = log_check(each)
            dice += found.checked
            unannounced += found.unannounced
            if found.broken:
                broken.append(f"The roll log of {describe(each)} does not hold: {found.broken}.")
            elif found.unfair:
                why = found.unfair[1]
                broken.append(
                    f"The dice of {describe(each)} do not hold: roll #{found.unfair_at}: {why}."
                )
            else:
                # Up to the head verified, whispers included (they have no number of their own).
                head = (each.last_seq, each.last_sub)
                verified = LogEntry.objects.filter(campaign=each).exclude(after_place(head))
                each.entries = verified.count()
                whole.append(each)
                entries += each.entries
        if broken:
            raise CommandError("\n".join(broken))
        if campaign is not None:
            [each] = whole
            head = place_text(each.last_seq, each.last_sub)
            fingerprint = f"#{head} {each.head_hash[:12]}" if each.entries else "none"
            summary = (
                f"The roll log of {describe(each)} is whole: {each.entries} entries, "
                f"fingerprint {fingerprint}."
            )
        else:
            logs = "1 roll log is" if len(whole) == 1 else f"{len(whole)} roll logs are"
            summary = f"{logs} whole: {entries} entries in all."
        if dice:
            rolls = "1 roll's dice" if dice == 1 else f"{dice} rolls' dice"
            summary += f" {rolls} checked against their revealed seeds."
        if unannounced:
            rolls = "1 roll" if unannounced == 1 else f"{unannounced} rolls"
            summary += (
                f" {rolls} came before the log announced any dice seed (a campaign's first seed,"
                " shown in the room only)."
            )
        self.stdout.write(summary)
