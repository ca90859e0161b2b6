"""rolls.export: an entry's own cells in the log to take home, and CSV's text of them, written
as Python's ``csv.writer`` writes it (the exports themselves: tests/insights/test_export.py)."""

import csv
import io

from hypothesis import given
from hypothesis import strategies as st

from rolls import chain
from rolls.export import CELLS, FORMULA_START, csv_cell, csv_text, entry_cells, stub_text
from rolls.models import PRIVATE, PUBLIC, WHISPER, LogEntry


def written(values):
    """``values`` as ``csv.writer`` writes one row of them (the default dialect, as the exports
    did with it), without the line's end."""
    buffer = io.StringIO()
    csv.writer(buffer).writerow(values)
    return buffer.getvalue().removesuffix("\r\n")


def guarded(value):
    """What the exports write for a value: text a spreadsheet would run is quoted with a '."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


cells = st.one_of(
    st.text(),
    st.text(alphabet=",\"\r\n \t=+-@'ab"),
    st.integers(),
    st.booleans(),
    st.none(),
)


@given(st.lists(cells, min_size=2, max_size=12))
def test_a_line_is_what_csv_writer_writes(values):
    """(A row of one empty cell is the one ``csv.writer`` quotes, to tell it from no row: the
    exports' rows have 22.)"""
    assert csv_text(values) == written([guarded(value) for value in values])


@given(st.lists(cells, min_size=2, max_size=12))
def test_a_line_reads_back_as_its_cells(values):
    read = next(csv.reader(io.StringIO(csv_text(values), newline="")))
    expected = ["" if value is None else str(guarded(value)) for value in values]
    assert read == expected


def test_formulas_are_quoted_and_text_that_needs_it_is_quoted():
    assert csv_cell("=1+1") == "'=1+1"
    assert csv_cell("-3") == "'-3" and csv_cell(-3) == "-3"
    assert csv_cell('say "hi", then') == '"say ""hi"", then"'
    assert csv_cell("two\nlines") == '"two\nlines"'
    assert csv_cell(None) == "" and csv_cell(True) == "True"


MANA = {
    "system": "mana",
    "asked": "",
    "skill": "Jump",
    "dice": 2,
    "faces": [8, 10],
    "successes": 3,
    "target": 2,
    "success": True,
    "chance": "7/25",
    "intent": "clear the gap",
    "note": "",
}


def test_a_roll_shows_what_its_system_writes_and_its_stub_nothing():
    cells = dict(zip(CELLS, entry_cells(LogEntry.ROLL, PRIVATE, MANA), strict=True))
    assert cells == {
        "system": "mana",
        "asked": "",
        "about": "Jump",
        "dice": "2d10",
        "faces": "8 10",
        "result": "3 successes",
        "target": 2,
        "success": True,
        "chance": "7/25",
        "chance_decimal": 0.28,
        "intent": "clear the gap",
        "note": "",
    }
    assert entry_cells(LogEntry.ROLL, PRIVATE, MANA, hidden=True) == [""] * len(CELLS)
    assert stub_text(LogEntry.ROLL) == "," * (len(CELLS) - 1)


def test_a_free_roll_a_message_a_session_and_a_reveal():
    free = {"expression": "2d6+1", "detail": "[3, 5] + 1", "total": 9, "target": 8}
    free |= {"success": True, "chance": "13/18"}
    cells = dict(zip(CELLS, entry_cells(LogEntry.FREE, PUBLIC, free), strict=True))
    assert (cells["about"], cells["asked"], cells["dice"], cells["result"]) == (
        "Free roll",
        "2d6+1",
        "[3, 5] + 1",
        9,
    )
    assert (cells["chance"], cells["chance_decimal"]) == ("13/18", 13 / 18)
    assert stub_text(LogEntry.FREE) == ",,Free roll" + "," * (len(CELLS) - 3)
    said = {"text": "hello"}
    assert entry_cells(LogEntry.MESSAGE, WHISPER, said)[2] == "Whisper"
    assert entry_cells(LogEntry.MESSAGE, PUBLIC, said)[2] == "Message"
    assert entry_cells(LogEntry.SESSION_START, PUBLIC, {"number": 3})[2] == "Session 3"
    reveal = {"of": 4, "result": {"faces": [9]}, "salt": "ab", "commitment": "c0"}
    cells = dict(zip(CELLS, entry_cells(LogEntry.REVEAL, PUBLIC, reveal), strict=True))
    assert cells["about"] == "Reveal of #4" and cells["note"] == "commitment c0"
    assert cells["result"] == chain.preimage({"faces": [9]}, "ab")
