"""What a user-typed name may hold: every form that takes a name (a campaign, a character and its
concept, a skill, a mana skill and its trait, a palette color, a trait, a username) checks here.

- ``plain_name``: no invisible or direction-changing characters. Bidi controls (U+202A-202E,
  U+2066-2069, U+200E/200F, U+061C) reorder the text around a name (a campaign name could turn
  the words of the GM's confirmation dialog around); zero-width characters (U+200B-200D, U+2060,
  U+FEFF) make two names that look the same differ. Every other format or control character
  (Unicode categories Cf and Cc) is refused with them.
- ``check_username``: a new username is a plain name, uses the letters of one script, and does
  not look like an existing username (``skeleton``: case and the common Latin, Cyrillic and
  Greek look-alikes folded away), so that "аna" with a Cyrillic а cannot pose as "ana".
"""

import unicodedata

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from core.text import isolated

#: The characters the rules name; the check refuses every Cf and Cc character, these included.
BIDI_CONTROLS = {*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C}
ZERO_WIDTH = {0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF}

#: Letters that look like a Latin letter (after casefolding), in the scripts a table mixes most.
LOOK_ALIKES = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "һ": "h", "н": "h", "і": "i", "ї": "i", "ј": "j",
    "к": "k", "ӏ": "l", "м": "m", "о": "o", "р": "p", "ԛ": "q", "г": "r", "ѕ": "s", "т": "t",
    "у": "y", "ү": "y", "х": "x", "ԁ": "d", "ԝ": "w", "ь": "b", "п": "n", "с": "c",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
    "τ": "t", "υ": "u", "χ": "x", "γ": "y", "ω": "w", "μ": "u", "ϲ": "c", "ϳ": "j",
    # Latin and digits among themselves
    "0": "o", "1": "l", "|": "l", "ı": "i", "ɡ": "g", "ɑ": "a",
}  # fmt: skip
#: Letter pairs that read as one letter.
LOOK_ALIKE_PAIRS = {"rn": "m", "vv": "w", "cl": "d"}
#: Scripts that one name mixes as a matter of course (Japanese).
SCRIPT_GROUPS = {"HIRAGANA": "JAPANESE", "KATAKANA": "JAPANESE", "CJK": "JAPANESE"}


def _hidden(character):
    return ord(character) in BIDI_CONTROLS | ZERO_WIDTH or unicodedata.category(character) in (
        "Cf",
        "Cc",
    )


def plain_name(value):
    """Validator: refuse ``value`` if it holds an invisible or direction-changing character."""
    hidden = [c for c in value if _hidden(c)]
    if hidden:
        code = f"U+{ord(hidden[0]):04X}"
        label = unicodedata.name(hidden[0], "a control character").lower()
        raise ValidationError(
            f"Names can't hold invisible or direction-changing characters; this one has {code} "
            f"({label}). Type it again without it.",
            code="hidden_character",
        )


def scripts(value):
    """The scripts of the letters of ``value`` (digits and punctuation belong to none)."""
    found = set()
    for character in value:
        if unicodedata.category(character).startswith("L"):
            script = unicodedata.name(character, "UNKNOWN").split()[0]
            found.add(SCRIPT_GROUPS.get(script, script))
    return found


def skeleton(value):
    """What ``value`` looks like: casefolded, and each look-alike replaced by the letter it
    passes for. Two names with one skeleton can be taken for each other."""
    folded = unicodedata.normalize("NFKC", value).casefold()
    text = "".join(LOOK_ALIKES.get(character, character) for character in folded)
    for pair, letter in LOOK_ALIKE_PAIRS.items():
        text = text.replace(pair, letter)
    return text


def check_username(username):
    """Refuse a new ``username`` that hides characters, mixes scripts or looks like an existing
    one (the same username is left to the form's own "already exists")."""
    plain_name(username)
    found = scripts(username)
    if len(found) > 1:
        named = " and ".join(sorted(script.title() for script in found))
        raise ValidationError(
            f"A username uses the letters of one script only (this one mixes {named}), so that "
            "it can't pose as another.",
            code="mixed_scripts",
        )
    wanted = skeleton(username)
    for existing in get_user_model().objects.values_list("username", flat=True).iterator():
        if existing != username and skeleton(existing) == wanted:
            raise ValidationError(
                f"“{isolated(username)}” looks too much like an existing username; choose another.",
                code="confusable",
            )
