"""Every campaign's roll log verified, as ``manage.py verify_rolls`` and ``manage.py restore``
(backups/) report it: each log's chain and the dice of every roll whose seed is revealed
(``rolls.services.log_check``, the check the GM's page runs too), and each whole log's
fingerprint, the one the room shows."""

from dataclasses import dataclass, field

from rolls.models import LogEntry, after_place, place_text
from rolls.services import log_check


def describe(campaign):
    return f"campaign {campaign.pk} “{campaign.name}”"


def fingerprint(campaign):
    """The fingerprint of a verified campaign's log (its head's place and hash, as the room
    shows it), or "none" for a log without entries."""
    if not campaign.entries:
        return "none"
    return f"#{place_text(campaign.last_seq, campaign.last_sub)} {campaign.head_hash[:12]}"


@dataclass
class LogsVerified:
    #: A sentence for each campaign whose log or dice do not hold.
    broken: list = field(default_factory=list)
    #: The campaigns whose log holds, each with ``entries``: how many it verified.
    whole: list = field(default_factory=list)
    entries: int = 0
    #: Rolls whose dice were checked against their revealed seeds.
    dice: int = 0
    #: Rolls made before the log announced any dice seed.
    unannounced: int = 0

    def summary(self, one=False):
        """One line: how many logs are whole, entries and dice checked; ``one``: the one
        campaign asked for, with its fingerprint."""
        if one:
            [each] = self.whole
            text = (
                f"The roll log of {describe(each)} is whole: {each.entries} entries, "
                f"fingerprint {fingerprint(each)}."
            )
        else:
            logs = "1 roll log is" if len(self.whole) == 1 else f"{len(self.whole)} roll logs are"
            text = f"{logs} whole: {self.entries} entries in all."
        if self.dice:
            rolls = "1 roll's dice" if self.dice == 1 else f"{self.dice} rolls' dice"
            text += f" {rolls} checked against their revealed seeds."
        if self.unannounced:
            rolls = "1 roll" if self.unannounced == 1 else f"{self.unannounced} rolls"
            text += (
                f" {rolls} came before the log announced any dice seed (a campaign's first seed,"
                " shown in the room only)."
            )
        return text


def logs_verify(campaigns):
    """Verify the log of each of ``campaigns`` (a queryset): a :class:`LogsVerified`."""
    found = LogsVerified()
    # Each campaign's head is read before its log: the summary names what was verified.
    fields = ("pk", "name", "last_seq", "last_sub", "head_hash")
    for each in campaigns.order_by("pk").only(*fields).iterator():
        checked = log_check(each)
        found.dice += checked.checked
        found.unannounced += checked.unannounced
        if checked.broken:
            found.broken.append(
                f"The roll log of {describe(each)} does not hold: {checked.broken}."
            )
        elif checked.unfair:
            why = checked.unfair[1]
            found.broken.append(
                f"The dice of {describe(each)} do not hold: roll #{checked.unfair_at}: {why}."
            )
        else:
            # Up to the head verified, whispers included (they have no number of their own).
            head = (each.last_seq, each.last_sub)
            verified = LogEntry.objects.filter(campaign=each).exclude(after_place(head))
            each.entries = verified.count()
            found.whole.append(each)
            found.entries += each.entries
    return found
