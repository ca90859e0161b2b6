"""User-typed text isolated from the text around it, so that a direction mark typed into it
(U+202E, right-to-left override, and the like) turns only that text around, never the name,
the time or the rest of the sentence it stands in.

The pure part, for templates (core/templatetags/text.py: ``|bdi``, ``|isolate``) and for every
sentence built in Python that quotes what a user typed (a refusal, a notice, a push, a title):
``isolated(name)`` puts the text between FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE, marks
that hold in HTML text, in attributes, in plain-text answers and in pushes alike.

Text written left to right only (a left-to-right letter, and no right-to-left letter, Arabic
digit or direction mark) is drawn the same isolated or not: it goes out bare.
"""

import re
import unicodedata

#: The isolate marks (LRI, RLI, FSI, PDI): one typed into the text could close the isolation
#: early (a stray PDI) or leave one open past the text's end.
ISOLATE_MARKS = re.compile("[\u2066-\u2069]")
FSI, PDI = "\u2068", "\u2069"

#: The bidirectional classes that can reorder what stands around a text: right-to-left letters,
#: Arabic digits, and every explicit mark (embeddings, overrides, isolates and their ends).
TURNING = frozenset(
    {"R", "AL", "AN", "RLE", "LRE", "RLO", "LRO", "PDF", "RLI", "LRI", "FSI", "PDI"}
)


def needs_isolation(text):
    """Whether ``text`` could change the order of the text around it: it holds a character of
    ``TURNING``, or no left-to-right letter at all (neutrals and digits take their direction from
    their neighbours)."""
    classes = {unicodedata.bidirectional(char) for char in text}
    return bool(classes & TURNING) or (bool(text) and "L" not in classes)


def unmarked(text):
    """``text`` without its isolate marks."""
    return ISOLATE_MARKS.sub("", text)


def isolated(text):
    """``text`` (made a string) between FSI and PDI, its own isolate marks dropped, when it could
    turn what stands around it; else as it is."""
    text = str(text)
    if not needs_isolation(text):
        return text
    return f"{FSI}{unmarked(text)}{PDI}"


#: How a member who deleted their account is named where their name stood: their rows stay (the
#: log, the ledger, their characters), their user does not.
FORMER_MEMBER = "a former member"


def member_name(user):
    """``user``'s name, isolated (``isolated``), or ``FORMER_MEMBER`` for None: a row whose user
    deleted their account."""
    return FORMER_MEMBER if user is None else isolated(user)
