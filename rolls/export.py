"""What a log entry says in the log to take home (``insights``' CSV and JSON exports): its own
cells (``CELLS``: what its data tells, as its system writes it), and CSV's text of them.

An entry's cells as those who may see it read them are kept beside its data as CSV text
(``LogEntry.cells``, written with the entry by ``rolls.services.log_append``, checked against
the data by ``log_verify``): a CSV export of a long log copies that text instead of reading
every entry's data again (issue #30). The JSON export makes them from the data with
``entry_cells``, the same function. An entry the viewer may not see is a stub: its cells are
``entry_cells(..., hidden=True)``, nothing rolled.

CSV's text is written as Python's ``csv.writer`` writes it (its default dialect, minimal
quoting; tests/rolls/test_export.py holds the two together), with one change: text a
spreadsheet would run as a formula is quoted with a leading ' (``csv_cell``)."""

import re
from functools import cache, lru_cache

from campaigns.systems import SYSTEMS
from rules import odds

from . import chain
from .models import WHISPER, LogEntry

#: An entry's own cells in the export, in order (the columns between ``character`` and
#: ``fingerprint``).
CELLS = (
    "system",
    "asked",
    "about",
    "dice",
    "faces",
    "result",
    "target",
    "success",
    "chance",
    "chance_decimal",
    "intent",
    "note",
)

#: A spreadsheet reads a cell starting with one of these as a formula.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

#: What makes ``csv.writer`` quote a cell: the delimiter, the quote, a line's end.
_QUOTED = re.compile(r'[,"\r\n]')


def csv_cell(value):
    """``value`` as one CSV cell's text (None: empty): quoted where ``csv.writer`` would quote
    it, and text a spreadsheet would run as a formula quoted with a leading '."""
    if value is None:
        return ""
    if value.__class__ is not str:
        return str(value)
    if value.startswith(FORMULA_START):
        value = "'" + value
    if _QUOTED.search(value):
        return '"' + value.replace('"', '""') + '"'
    return value


def csv_text(cells):
    """``cells`` as a line's worth of CSV text, without its end."""
    return ",".join(map(csv_cell, cells))


def _about(data):
    """What a roll was about, as its system writes it ("": a system no longer played)."""
    system = SYSTEMS.get(data.get("system"))
    return system.export_about(data) if system else ""


def _rolled(data):
    """(dice, faces, result) of a roll's stored data, as text, as its system writes them."""
    system = SYSTEMS.get(data.get("system"))
    return system.export_rolled(data) if system else ("", "", "")


def entry_cells(kind, visibility, data, *, hidden=False):
    """The entry's ``CELLS``, from its kind, visibility and data, as a viewer reads them who may
    see it, or (``hidden``) as one who may not: a stub, nothing rolled. (A list made in order:
    an export makes one per entry.)"""
    get = data.get
    if kind == LogEntry.ROLL:
        if hidden:
            return [""] * len(CELLS)
        dice, faces, result = _rolled(data)
        system, asked, about = get("system", ""), get("asked", ""), _about(data)
        target, success, chance = get("target", ""), get("success", ""), get("chance", "")
        intent, note = get("intent", ""), get("note", "")
        decimal = chance_decimal(chance)
        return [
            *(system, asked, about, dice, faces, result),
            *(target, success, chance, decimal, intent, note),
        ]
    if kind == LogEntry.FREE:
        if hidden:
            return ["", "", "Free roll", *[""] * (len(CELLS) - 3)]
        asked, dice, result = get("expression", ""), get("detail", ""), get("total", "")
        target, success, chance = get("target", ""), get("success", ""), get("chance", "")
        decimal = chance_decimal(chance)
        return ["", asked, "Free roll", dice, "", result, target, success, chance, decimal, "", ""]
    if kind == LogEntry.REVEAL:
        # The text whose sha256 is the commitment every player saw: anyone can check it.
        about, result = f"Reveal of #{get('of', '')}", reveal_preimage(data)
        note = f"commitment {get('commitment', '')}"
        return ["", "", about, "", "", result, "", "", "", "", "", note]
    if kind == LogEntry.TURNS:
        action, round_ = get("action", ""), get("round", "")
        about = {"start": "Initiative started", "end": "Initiative ended"}.get(action, "Turn")
        names = get("names") if action != "turn" else None
        note = ", ".join(map(str, names)) if isinstance(names, list) else get("name", "")
        return ["", "", about, "", "", f"round {round_}", "", "", "", "", "", note]
    if kind == LogEntry.HP:
        if hidden:
            return ["", "", "HP", *[""] * (len(CELLS) - 3)]
        name, before, after = get("name", ""), get("before", ""), get("after", "")
        note = f"{name}: {before} → {after}"
        return ["", "", "HP", "", "", after, "", "", "", "", "", note]
    if kind == LogEntry.MESSAGE:
        about = "Whisper" if visibility == WHISPER else "Message"
    elif kind == LogEntry.DICE:
        about = "Dice seed revealed"
    elif kind == LogEntry.SCENE:
        about = f"Scene shown: {get('name', '')}"
    else:
        about = f"Session {get('number', '')}"
    return ["", "", about, *[""] * (len(CELLS) - 3)]


def chance_decimal(chance):
    """A roll's stored chance (``rules.odds``' text: a fraction such as ``36437687/46656000``,
    which a spreadsheet reads as text) as a float it reads as a number (CSV: its shortest
    decimal, ``0.78097...``; JSON: a number), or "" without a chance (or one no longer
    readable: the export of the rest of the log goes on)."""
    if not chance:
        return ""
    if chance.__class__ is str:
        return _text_decimal(chance)
    try:
        return odds.as_float(chance)
    except (ValueError, ZeroDivisionError):
        return ""


@lru_cache(maxsize=4096)
def _text_decimal(chance):
    """``chance_decimal`` of a chance's text. A log holds a few dozen chances, each on thousands
    of rolls: without the cache the JSON export would read each again as a ``Fraction`` for
    every roll."""
    try:
        return odds.as_float(chance)
    except (ValueError, ZeroDivisionError):
        return ""


def reveal_preimage(data):
    """What a reveal's commitment is the sha256 of (``rolls.chain.preimage``)."""
    return chain.preimage(data.get("result"), data.get("salt"))


def cells_text(kind, visibility, data):
    """The CSV text of the entry's cells, as a viewer reads them who may see it
    (``LogEntry.cells``)."""
    return csv_text(entry_cells(kind, visibility, data))


@cache
def stub_text(kind):
    """The CSV text of the cells of an entry of ``kind`` the viewer may not see."""
    return csv_text(entry_cells(kind, "", {}, hidden=True))
