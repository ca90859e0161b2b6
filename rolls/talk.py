"""Table talk: what the room's one box says, read the way Roll20 and Discord players type it.

* ``/r 2d6+3`` (or ``/roll``): a free roll in dice notation (``rules.notation``), for everyone;
  ``vs 12`` after it states a target (success on 12 or more), whose exact chance shows before
  rolling. ``/gr`` (``/gmroll``): for the roller and the GM. ``/sr`` (``/secretroll``): the GM's
  secret roll, committed before and revealed later, as a secret check's.
* ``/r sneak``: a saved roll of one of the speaker's characters (``sheets.models.SavedRoll``;
  the GM's: the NPCs), by its name whatever its case, or ``/r Character:sneak`` when several of
  them have one of that name; ``TalkForm.saved_named`` finds it when the text is not dice
  notation (a saved roll's name never is), ``/gr`` and ``/sr`` choose its visibility.
* ``/w gm I pick the lock`` (or ``/whisper``; ``/w name …``): a whisper, which only its sender
  and its one recipient ever learn of (``rolls.models.WHISPER``).
* Anything else is a message to everyone; ``@name`` in it calls that member (an alert and a tab
  badge on their page).

Pure reading of the text: who the names are is the form's (``rolls.forms.TalkForm``), the
writes are ``rolls.services.free_roll_make`` and ``message_send``.
"""

import re
from dataclasses import dataclass

from core.text import isolated

from .models import PRIVATE, PUBLIC, SECRET, WHISPER

#: Characters of a message (a whisper's included) and of the box's text.
MESSAGE_MAX = 500

ROLLS = {"r": PUBLIC, "roll": PUBLIC, "gr": PRIVATE, "gmroll": PRIVATE}
SECRET_ROLLS = {"sr": SECRET, "secretroll": SECRET}
WHISPERS = {"w", "whisper"}

HELP = (
    "/r 2d6+3 rolls for everyone (add “vs 12” for the chance of 12 or more), /r name rolls "
    "a saved roll, /gr rolls for you and the GM, /w gm … or /w name … whispers; anything "
    "else is said to the table, and @name calls someone."
)

_COMMAND = re.compile(r"/(\w+)\s*(.*)\Z", re.DOTALL)
_MENTION = re.compile(r"(?<![\w@])@([\w.@+-]+)")


class TalkError(ValueError):
    """What the box said cannot be done; ``str()`` is a sentence for the person typing."""


@dataclass(frozen=True)
class Said:
    """What the box said: a ``roll`` of ``text`` (dice notation) with ``visibility``, or a
    ``message`` of ``text``, public or a whisper to ``to`` (a name as typed: "gm" or a
    username)."""

    kind: str
    text: str
    visibility: str = PUBLIC
    to: str = ""


def read(box, *, is_gm=False):
    """What ``box`` says (see the module's text), or TalkError."""
    text = (box or "").strip()
    if not text:
        raise TalkError("Type a message, or /r and dice to roll.")
    if len(text) > MESSAGE_MAX:
        raise TalkError(f"At most {MESSAGE_MAX} characters (this is {len(text)}).")
    command = _COMMAND.match(text)
    if command is None:
        return Said("message", text)
    name, rest = command.group(1).lower(), command.group(2).strip()
    if name in ROLLS or name in SECRET_ROLLS:
        if name in SECRET_ROLLS and not is_gm:
            raise TalkError("Only the GM rolls in secret: /r for everyone, /gr for you and the GM.")
        if not rest:
            raise TalkError(f"Say which dice after /{name}, e.g. /{name} 2d6+3.")
        return Said("roll", rest, {**ROLLS, **SECRET_ROLLS}[name])
    if name in WHISPERS:
        to, _, message = rest.partition(" ")
        message = message.strip()
        if not to or not message:
            raise TalkError(f"Whisper as /{name} gm … or /{name} name …")
        return Said("message", message, WHISPER, to.lstrip("@"))
    if name in ("help", "h", "?"):
        raise TalkError(HELP)
    raise TalkError(f"There is no /{isolated(name)} here. {HELP}")


def is_roll(box):
    """Whether ``box`` starts with a roll's command (``/r``, ``/gr``, ``/sr``, long or short):
    the one thing the box previews."""
    command = _COMMAND.match((box or "").strip())
    name = command.group(1).lower() if command else ""
    return name in ROLLS or name in SECRET_ROLLS


def mentioned(text):
    """The names called with ``@name`` in ``text``, lower case, in order, once each."""
    names = []
    for name in _MENTION.findall(text):
        name = name.rstrip(".").lower()
        if name and name not in names:
            names.append(name)
    return names
