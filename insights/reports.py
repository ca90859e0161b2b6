"""What a campaign's log tells its members, read in a fixed number of queries whatever its size:
luck against the exact chances every roll stored (``rules.luck``; counted from what each roll
entry keeps of its outcome beside its data, ``LogEntry.OUTCOME``, its chance read back with
``rules.odds.read``: exact, or the approximation a fraction too long to write was kept as), and
the log to take home.
Only what the viewer may see counts: the visibility filter below is ``models.entitled`` as a
query."""

from dataclasses import dataclass, field
from fractions import Fraction

import orjson
from django.contrib.auth import get_user_model
from django.db.models import (
    BooleanField,
    Case,
    CharField,
    Count,
    F,
    Min,
    Q,
    TextField,
    Value,
    When,
)
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast

from campaigns.models import GameSession
from core.text import FORMER_MEMBER
from rolls import export
from rolls.models import (
    PRIVATE,
    PUBLIC,
    SECRET,
    WHISPER,
    LogEntry,
    after_place,
    entitled,
    known_to,
)
from rolls.systems import system_of
from rules import odds
from rules.luck import Tally, ask_kind
from sheets.models import Character


def visible_entries(campaign, viewer_id):
    """The campaign's log entries whose content ``viewer_id`` is entitled to see (the GM: all;
    a player: the public ones, their own private rolls and the GM-secret rolls revealed)."""
    entries = LogEntry.objects.filter(campaign=campaign)
    seen = _seen(campaign, viewer_id)
    return entries if seen is None else entries.filter(seen)


def _seen(campaign, viewer_id):
    """``visible_entries``' condition, as a ``Q`` (None for the GM, who sees everything)."""
    if viewer_id == campaign.gm_id():
        return None
    revealed = Q(visibility=SECRET, seq__in=LogEntry.objects.revealed_seqs(campaign.pk))
    return Q(visibility=PUBLIC) | Q(visibility=PRIVATE, actor_id=viewer_id) | revealed


#: The rolls luck counts: every check's roll, and the free rolls that stated a target.
COUNTED = Q(kind=LogEntry.ROLL) | Q(kind=LogEntry.FREE, success__isnull=False)
#: Luck's row of the free rolls among the characters' (they have none).
FREE_ROLLS = "free"


@dataclass
class Row:
    """One line of a luck table: who (or which session: ``number``) and their tally."""

    label: str
    tally: Tally = field(default_factory=Tally)
    number: int | None = None


@dataclass
class Luck:
    players: list[Row]
    characters: list[Row]
    sessions: list[Row]
    total: Tally


def luck(campaign, viewer_id):
    """Successes against the expected number per player, character and session (oldest
    first), over the rolls ``viewer_id`` may see. Four queries; the database counts the rolls
    of each player, character, session, chance and outcome, so the sums here run over those
    groups (a few hundred), not over every roll of a long log."""
    rolls = visible_entries(campaign, viewer_id).filter(COUNTED)
    fields = ("actor_id", "character_id", "session_id", "success", "chance", "kind")
    groups = rolls.values_list(*fields).annotate(count=Count("id")).order_by()
    # The rolls counted per tally, outcome and chance first (whole numbers), so that each tally
    # adds each exact chance once: a long log has many groups, and few chances.
    counts = {"total": {}, "players": {}, "characters": {}, "sessions": {}}
    for actor, character, session, success, chance, kind, count in groups:
        outcome = (bool(success), chance)
        character = FREE_ROLLS if kind == LogEntry.FREE else character
        for kind, key in (
            ("total", None),
            ("players", actor),
            ("characters", character),
            ("sessions", session),
        ):
            tally = counts[kind].setdefault(key, {})
            tally[outcome] = tally.get(outcome, 0) + count
    exact = {}  # each chance as stored, read once

    def tally_of(outcomes):
        tally = Tally()
        for (success, chance), count in outcomes.items():
            if chance not in exact:
                exact[chance] = odds.read(chance)
            tally.add(success, exact[chance], count)
        return tally

    by = {
        kind: {key: tally_of(outcomes) for key, outcomes in counts[kind].items()}
        for kind in ("players", "characters", "sessions")
    }
    total = tally_of(counts["total"].get(None, {}))
    users = dict(
        get_user_model()
        .objects.filter(pk__in=[k for k in by["players"] if k])
        .values_list("pk", "username")
    )
    characters = dict(
        Character.objects.filter(
            pk__in=[k for k in by["characters"] if k and k != FREE_ROLLS]
        ).values_list("pk", "name")
    )
    numbers = dict(
        GameSession.objects.filter(pk__in=[k for k in by["sessions"] if k]).values_list(
            "pk", "number"
        )
    )

    def rows(tallies, name, order, numbered=False):
        found = [(key, name(key), tally) for key, tally in tallies.items()]
        found.sort(key=lambda row: order(row[0], row[1]))
        return [
            Row(label, tally, numbers.get(key) if numbered else None) for key, label, tally in found
        ]

    return Luck(
        players=rows(
            by["players"],
            lambda k: users.get(k, FORMER_MEMBER),
            lambda k, label: (k is None, label.casefold()),
        ),
        characters=rows(
            by["characters"],
            lambda k: "Free rolls" if k == FREE_ROLLS else characters.get(k, "a removed character"),
            lambda k, label: (k in (None, FREE_ROLLS), k is None, label.casefold()),
        ),
        sessions=rows(
            by["sessions"],
            lambda k: f"Session {numbers[k]}" if k in numbers else "Outside a session",
            lambda k, label: (k not in numbers, numbers.get(k, 0)),
            numbered=True,
        ),
        total=total,
    )


# What the dice showed, against the exact distributions -----------------------------------------

#: The pools shown (the most rolled ones), and the most bins in a distribution's table.
GROUPS_SHOWN = 4
MAX_BINS = 40
#: The last bin ("n or more") starts where the exact tail falls below this, or higher when a
#: roll showed more.
TAIL = Fraction(1, 100)


@dataclass
class Bin:
    label: str
    rolled: int
    chance: Fraction
    expected: Fraction


@dataclass
class Distribution:
    title: str
    what: str  # what the bins count: "successes" or "highest total"
    rolls: int
    bins: list[Bin]


def _bins(counts, chances, last, tail):
    """Bins for the values ``0..last - 1`` (their exact ``chances``) and "``last`` or more"
    (``tail``): how often each was rolled and expected."""
    rolls = sum(counts.values())
    bins = [
        Bin(str(value), counts.get(value, 0), chance, rolls * chance)
        for value, chance in chances
        if value < last
    ]
    beyond = sum(n for value, n in counts.items() if value >= last)
    bins.append(Bin(f"{last}+", beyond, tail, rolls * tail))
    return bins


def distributions(campaign, viewer_id):
    """For the pools rolled most often (GROUPS_SHOWN of them), what the rolls the viewer may see
    showed against the exact distribution, as the campaign's system groups and counts them
    (Mana: successes per number of dice; Pool: highest totals per d6 + d10 pool). One query."""
    system = system_of(campaign)
    rolls = visible_entries(campaign, viewer_id).filter(kind=LogEntry.ROLL)
    groups = system.rolled_groups(rolls)
    ranked = sorted(groups.items(), key=lambda group: (-sum(group[1].values()), group[0]))
    shown = []
    for pool, counts in ranked[:GROUPS_SHOWN]:
        title, what, chances, last, beyond = system.exact_distribution(
            pool, counts, max_bins=MAX_BINS, tail=TAIL
        )
        bins = _bins(counts, chances, last, beyond)
        shown.append(Distribution(title, what, sum(counts.values()), bins))
    return shown


# Difficulty tuning (the GM's) -------------------------------------------------------------------

#: Near-certain and near-hopeless asks listed on the tuning page, the latest of each kind.
ASKS_SHOWN = 20


@dataclass
class TargetRow:
    """The rolls against one difficulty or TN: their tally and how many asks were
    near-certain or near-hopeless."""

    target: int
    tally: Tally = field(default_factory=Tally)
    certain: int = 0
    hopeless: int = 0


@dataclass
class Ask:
    seq: int
    character: str
    target: int
    chance: Fraction
    success: bool


def tuning(campaign):
    """(rows per difficulty or TN used, lowest first; {"near-certain": [Ask], "near-hopeless":
    [Ask]}, the latest ASKS_SHOWN of each, newest first) over every roll of the campaign: for
    its GM. Four queries at most: the database counts the rolls of each target, chance and
    outcome, then finds the latest near-certain and near-hopeless asks among the chances so
    counted."""
    rolls = LogEntry.objects.filter(campaign=campaign, kind=LogEntry.ROLL)
    fields = ("target", "success", "chance")
    groups = rolls.values_list(*fields).annotate(count=Count("id")).order_by()
    targets, chances = {}, {"near-certain": set(), "near-hopeless": set()}
    for target, success, chance, count in groups:
        if target is None:  # every roll stores its target; nothing to tune without one
            continue
        exact = odds.read(chance)
        row = targets.setdefault(target, TargetRow(target))
        row.tally.add(bool(success), exact, count)
        kind = ask_kind(exact)
        if kind:
            row.certain += count if kind == "near-certain" else 0
            row.hopeless += count if kind == "near-hopeless" else 0
            chances[kind].add(chance)
    asks = {}
    for kind, found in chances.items():
        latest = rolls.filter(chance__in=sorted(found)).order_by("-seq")[:ASKS_SHOWN]
        fields = ("seq", "character_id", "target", "chance", "success")
        asks[kind] = [
            Ask(seq, character, target, odds.read(chance), bool(success))
            for seq, character, target, chance, success in (
                latest.values_list(*fields) if found else ()
            )
            if target is not None
        ]
    ids = {ask.character for found in asks.values() for ask in found if ask.character}
    names = dict(Character.objects.filter(pk__in=ids).values_list("pk", "name")) if ids else {}
    for found in asks.values():
        for ask in found:
            ask.character = names.get(ask.character, "a removed character")
    return [targets[t] for t in sorted(targets)], asks


# A session's summary ----------------------------------------------------------------------------


#: Rolls listed on a page of a session's summary.
SUMMARY_PAGE = 100


@dataclass
class Summary:
    session: GameSession
    rolls: list  # the page's visible roll entries, oldest first
    hidden: int  # rolls the viewer may not see
    tally: Tally
    luckiest: LogEntry | None  # the success with the lowest chance
    unluckiest: LogEntry | None  # the failure with the highest chance
    page: int = 1
    pages: int = 1
    first: int = 0  # the places of the page's first and last rolls among the visible, from 1
    last: int = 0
    seen: int = 0  # the visible rolls


def session_summary(campaign, session, viewer_id, page=1):
    """Who rolled what in ``session``, its luck, its luckiest and unluckiest moments (over the
    rolls the viewer may see: a GM-secret one once revealed; the free rolls that stated a
    target with the checks', as luck counts them), its rolls listed a page of
    ``SUMMARY_PAGE`` at a time (``page``, from 1; one out of range gives the nearest). Two
    queries whatever the session's length (the system's part, e.g. Pool's awards, is
    ``summary_context``'s): the database counts the rolls of each outcome and chance, those the
    viewer may see apart, with the first of each; then reads the page's rolls and the two
    moments."""
    rolls = LogEntry.objects.filter(COUNTED, campaign=campaign, session=session)
    seen = _seen(campaign, viewer_id)
    counts = {"all": Count("id")}
    if seen is None:
        counts |= {"seen": Count("id"), "earliest": Min("seq")}
    else:
        counts |= {"seen": Count("id", filter=seen), "earliest": Min("seq", filter=seen)}
    groups = rolls.values_list("success", "chance").annotate(**counts).order_by()
    tally, total, visible = Tally(), 0, 0
    lucky, unlucky = None, None  # (chance, first seq) of the moments
    for success, chance, every, shown, earliest in groups.values_list(
        "success", "chance", "all", "seen", "earliest"
    ):
        total += every
        if not shown:
            continue
        visible += shown
        exact = odds.read(chance)
        tally.add(bool(success), exact, shown)
        if success and (lucky is None or (exact, earliest) < lucky):
            lucky = (exact, earliest)
        if not success and (unlucky is None or (exact, -earliest) > unlucky):
            unlucky = (exact, -earliest)
    pages = max(1, -(-visible // SUMMARY_PAGE))
    page = min(max(page, 1), pages)
    offset = (page - 1) * SUMMARY_PAGE
    listed = rolls if seen is None else rolls.filter(seen)
    on_page = listed.order_by("seq").values("seq")[offset : offset + SUMMARY_PAGE]
    moments = [seq for seq in (lucky and lucky[1], unlucky and -unlucky[1]) if seq is not None]
    here = Case(
        When(seq__in=on_page, then=Value(True)), default=Value(False), output_field=BooleanField()
    )
    found = (
        listed.filter(Q(seq__in=on_page) | Q(seq__in=moments))
        .annotate(here=here)
        .select_related("actor", "character")
        .order_by("seq")
    )
    by_seq = {}
    for entry in found:
        entry.chance = odds.read(entry.chance)
        by_seq[entry.seq] = entry
    page_rolls = [entry for entry in by_seq.values() if entry.here]
    return Summary(
        session=session,
        rolls=page_rolls,
        hidden=total - visible,
        tally=tally,
        luckiest=by_seq.get(lucky[1]) if lucky else None,
        unluckiest=by_seq.get(-unlucky[1]) if unlucky else None,
        page=page,
        pages=pages,
        first=offset + 1 if page_rolls else 0,
        last=offset + len(page_rolls),
        seen=visible,
    )


# The log to take home ---------------------------------------------------------------------------

#: The columns of the CSV export, in order; the JSON export has the same keys (and ``data``).
COLUMNS = [
    "seq",
    "time",
    "session",
    "kind",
    "visibility",
    "hidden",
    "player",
    "character",
    *export.CELLS,
    "fingerprint",
    "to",
    "text",
]
#: The keys of a JSON export's entry, in order: the columns, then what the roll stored.
KEYS = [*COLUMNS, "data"]

#: Entries read per query by the exports: a download holds one batch at a time, whatever the
#: log's size.
EXPORT_BATCH = 2000

#: What an export reads of each entry, in order, before its cells (CSV) or its data (JSON).
_EXPORT_FIELDS = (
    "seq",
    "sub",
    "time",
    "session__number",
    "kind",
    "visibility",
    "actor_id",
    "actor__username",
    "character__name",
    "hash",
    "recipient_id",
    "recipient__username",
    "text",
)


def _iso(time):
    """An entry's time as the database writes it as text, in ISO 8601 as ``datetime.isoformat``
    writes it. Django's converter of a time (SQLite's) and psycopg's (PostgreSQL's) parse it in
    Python, slower than the rest of an export's row is made. SQLite's text is Django's ``str()``
    of the time in UTC: "YYYY-MM-DD HH:MM:SS[.ffffff]"; PostgreSQL's, in the connection's UTC,
    drops the fraction's last zeros and adds the offset: "YYYY-MM-DD HH:MM:SS[.fff]+00"."""
    clock = time[11:].removesuffix("+00")
    if len(clock) > 8:
        clock = clock.ljust(15, "0")  # "HH:MM:SS.ffffff"
    return f"{time[:10]}T{clock}+00:00"


def export_batches(campaign, viewer_id, *, data=False):
    """Every entry of the campaign's log, oldest first, a list of at most ``EXPORT_BATCH`` at a
    time, each read by a query of its own when asked for (the entries after the last one read):
    a long log is never held whole. Each entry is ``(values, hidden)``: ``_EXPORT_FIELDS``' values
    and then its cells' CSV text (``LogEntry.cells``), or (``data``) its data as JSON text;
    ``hidden``, whether the viewer may not see what it holds (``csv_line`` and ``json_row`` make
    its row). Others' whispers are not in it.

    An entry whose content the viewer may not see is a stub: when, who, how hidden, nothing
    rolled. Every row has the log's fingerprint as of that entry (the room shows the same), so
    the last one seals the whole log. The hashes are keyed (``rolls.chain``), so a hidden roll's
    tells nothing of its dice. An entry appended while a download runs is in it when its batch
    is read after it: the rows are always the chain from its start, unbroken."""
    gm_id = campaign.gm_id()
    # Others' whispers are left out in the query: nothing (not a batch's size) tells of them.
    entries = LogEntry.objects.filter(known_to(viewer_id), campaign=campaign)
    # Values read as the database's text where Django's converters would cost more than the
    # rest of the row: the time (``_iso``) and the data, decoded here if at all. A message's
    # text is read out of its data alone (SQLite reads the JSON of every row it is asked of).
    text = Case(When(kind=LogEntry.MESSAGE, then=KeyTextTransform("text", "data")))
    last_field = Cast("data", TextField()) if data else F("cells")
    time = Cast("created_at", CharField())  # ``_iso``
    entries = entries.annotate(time=time, text=text, last=last_field)
    fields = (*_EXPORT_FIELDS, "last")
    entries = entries.order_by("seq", "sub").values_list(*fields)
    # A GM-secret roll once revealed is in everyone's export, as a public one.
    revealed = set(LogEntry.objects.revealed_seqs(campaign.pk).values_list("of", flat=True))
    last, batch = (0, 0), EXPORT_BATCH
    while True:
        found = list(entries.filter(after_place(last))[:batch])
        if found:
            yield [(entry, _hidden(entry, viewer_id, gm_id, revealed)) for entry in found]
        if len(found) < batch:
            return
        last = found[-1][:2]


def _hidden(entry, viewer_id, gm_id, revealed):
    seq, visibility, actor_id, recipient_id = entry[0], entry[5], entry[6], entry[10]
    if seq in revealed:
        return False
    kwargs = {"roller_id": actor_id, "gm_id": gm_id, "recipient_id": recipient_id}
    return not entitled(visibility, viewer_id=viewer_id, **kwargs)


def _common(entry, hidden):
    """What both exports write of an entry of ``export_batches``, whatever their format: its
    values, the character named only where the viewer may see a roll or reveal of it, and its
    last value (its cells' text, or its data's)."""
    seq, _sub, time, session, kind, visibility, actor, player, character = entry[:9]
    hash_, recipient_id, recipient, text, last = entry[9:]
    # An id whose user is gone (they deleted their account): the log keeps the id, not the name.
    if player is None and actor is not None:
        player = FORMER_MEMBER
    if recipient is None and recipient_id is not None:
        recipient = FORMER_MEMBER
    if hidden or kind not in _NAMED:
        character = None
    head = (seq, _iso(time), session or "", kind, visibility, hidden, player, character)
    return head, (hash_[:12], recipient, text), last


def csv_line(entry, hidden):
    """The CSV export's line of an entry of ``export_batches``, its end included."""
    head, tail, cells = _common(entry, hidden)
    seq, time, session, kind, visibility, hidden, player, character = head
    fingerprint, to, text = tail
    if hidden:
        cells = export.stub_text(kind)
    player, character = export.csv_cell(player), export.csv_cell(character)
    to, text = export.csv_cell(to), export.csv_cell(text)
    return (
        f"{seq},{time},{session},{kind},{visibility},{hidden},{player},{character},"
        f"{cells},{fingerprint},{to},{text}\r\n"
    )


def csv_header():
    """The CSV export's first line."""
    return ",".join(COLUMNS) + "\r\n"


#: The kinds whose rows name the character.
_NAMED = (LogEntry.ROLL, LogEntry.REVEAL, LogEntry.HP)
#: The kinds whose JSON rows hold their data (a reveal: with its preimage; a session's start and
#: end and the GM's early reveal of the dice seed: the seed revealed and the next one's
#: commitment, for anyone's own check of the dice, docs/fair-dice.md).
_WITH_DATA = (*LogEntry.ROLLS, LogEntry.MESSAGE, *LogEntry.ANNOUNCE_DICE)


def json_row(entry, hidden):
    """The JSON export's object (a dict of ``KEYS``) of an entry of ``export_batches``."""
    head, tail, data = _common(entry, hidden)
    kind, visibility = head[3], head[4]
    data = orjson.loads(data)
    cells = export.entry_cells(kind, visibility, data, hidden=hidden)
    if kind == LogEntry.REVEAL:
        data = {**data, "preimage": export.reveal_preimage(data)}
    elif hidden or kind not in _WITH_DATA:
        data = None
    head = tuple("" if value is None else value for value in head)
    tail = tuple(value or "" for value in tail)
    return dict(zip(KEYS, (*head, *cells, *tail, data), strict=True))


def fingerprint_of(row):
    """The log's fingerprint as of ``row`` (a JSON export's), as the room shows it."""
    whisper = "+" if row["visibility"] == WHISPER else ""  # LogEntry.number
    return f"#{row['seq']}{whisper} {row['fingerprint']}"
