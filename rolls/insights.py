"""What a campaign's log tells its members, read in a fixed number of queries whatever its size:
luck against the exact chances every roll stored (``rolls.rules.luck``), and the log to take
home. Only what the viewer may see counts: the visibility filter below is ``models.entitled``
as a query."""

from dataclasses import dataclass, field
from fractions import Fraction

from django.contrib.auth import get_user_model
from django.db.models import Q

from campaigns.models import GameSession
from sheets.models import Character

from .models import PRIVATE, PUBLIC, LogEntry
from .rules.luck import Tally


def visible_entries(campaign, viewer_id):
    """The campaign's log entries whose content ``viewer_id`` is entitled to see (the GM: all;
    a player: the public ones and their own private rolls)."""
    entries = LogEntry.objects.filter(campaign=campaign)
    if viewer_id == campaign.gm_id():
        return entries
    return entries.filter(Q(visibility=PUBLIC) | Q(visibility=PRIVATE, actor_id=viewer_id))


@dataclass
class Row:
    """One line of a luck table: who (or which session) and their tally."""

    label: str
    tally: Tally = field(default_factory=Tally)


@dataclass
class Luck:
    players: list[Row]
    characters: list[Row]
    sessions: list[Row]
    total: Tally


def luck(campaign, viewer_id):
    """Successes against the expected number per player, character and session (oldest
    first), over the rolls ``viewer_id`` may see. Four queries."""
    rolls = visible_entries(campaign, viewer_id).filter(kind=LogEntry.ROLL)
    by = {"players": {}, "characters": {}, "sessions": {}}
    total = Tally()
    fields = ("actor_id", "character_id", "session_id", "data__success", "data__chance")
    for actor, character, session, success, chance in rolls.values_list(*fields).iterator():
        chance = Fraction(chance)
        total.add(bool(success), chance)
        for kind, key in (("players", actor), ("characters", character), ("sessions", session)):
            by[kind].setdefault(key, Tally()).add(bool(success), chance)
    users = dict(
        get_user_model()
        .objects.filter(pk__in=[k for k in by["players"] if k])
        .values_list("pk", "username")
    )
    characters = dict(
        Character.objects.filter(pk__in=[k for k in by["characters"] if k]).values_list(
            "pk", "name"
        )
    )
    numbers = dict(
        GameSession.objects.filter(pk__in=[k for k in by["sessions"] if k]).values_list(
            "pk", "number"
        )
    )

    def rows(tallies, name, order):
        found = [(key, name(key), tally) for key, tally in tallies.items()]
        found.sort(key=lambda row: order(row[0], row[1]))
        return [Row(label, tally) for _key, label, tally in found]

    return Luck(
        players=rows(
            by["players"],
            lambda k: users.get(k, "a former member"),
            lambda k, label: (k is None, label.casefold()),
        ),
        characters=rows(
            by["characters"],
            lambda k: characters.get(k, "a removed character"),
            lambda k, label: (k is None, label.casefold()),
        ),
        sessions=rows(
            by["sessions"],
            lambda k: f"Session {numbers[k]}" if k in numbers else "Outside a session",
            lambda k, label: (k not in numbers, numbers.get(k, 0)),
        ),
        total=total,
    )
