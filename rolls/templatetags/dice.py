"""How dice look on screen. Each kind of die sits in a group of its own, named by a visible label
(d6 squares, d10 rounded), so that a Pool roll of 3d6 + 1d10 never reads as four equal dice. An
exploded chain is 6 → 3 = 9, and a Pool d10's 10 is written 10 (10 → 3 = 13: a 0 there would
read as a face that adds nothing); a Mana d10's 10 is the face marked 0, its two successes said.
The die that decides a Pool roll and the successes of a Mana roll are marked with a sign and with
text for screen readers (the ``sr-only`` spans), never by color alone. Mana colors show as a
swatch beside their name."""

from fractions import Fraction

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from core.templatetags.text import bdi
from rules import odds

register = template.Library()

#: Colors the swatches know (static/css/rollroom.css ``.swatch-<name>``); any other palette color
#: gets the neutral, striped ``swatch-other``: its name is always written beside it.
SWATCHES = frozenset(
    "white blue black red green colorless yellow orange purple violet pink brown grey gray gold "
    "silver".split()
)


@register.filter
def chain(faces):
    shown = [str(f) for f in faces]
    if len(faces) == 1:
        return shown[0]
    return f"{' → '.join(shown)} = {sum(faces)}"


def _die(sides, classes, said, shown):
    if said:
        return format_html(
            '<span class="die d{} {}"><span class="sr-only">{}</span>{}</span>',
            sides,
            classes,
            said,
            shown,
        )
    return format_html('<span class="die d{}">{}</span>', sides, shown)


def _group(sides, dice):
    """A labelled group of one kind of die; ``dice`` are (classes, screen reader text, shown)."""
    if not dice:
        return ""
    return format_html(
        '<span class="dice-set d{}"><span class="kind">d{}</span> {}</span>',
        sides,
        sides,
        format_html_join(" ", "{}", ((_die(sides, *die),) for die in dice)),
    )


@register.simple_tag
def pool_dice(d):
    """A Pool roll's dice: the d6 chains, then the d10 chains; the first die whose total is the
    roll's highest decides it (``deciding``), an exploded chain is marked ``boom``."""
    decided = False
    groups = []
    for sides in (6, 10):
        dice = []
        for faces in d[f"d{sides}"]:
            classes, said = [], []
            if len(faces) > 1:
                classes.append("boom")
                said.append("exploded")
            if not decided and sum(faces) == d["highest"]:
                decided = True
                classes.append("deciding")
                said.append("deciding die")
            said = f"{', '.join(said)}: " if said else ""
            dice.append((" ".join(classes), said, chain(faces)))
        groups.append(_group(sides, dice))
    shown = format_html_join(" ", "{}", ((group,) for group in groups if group))
    return format_html('<p class="dice">{}</p>', shown)


@register.simple_tag
def mana_dice(d):
    """A Mana roll's d10s: an 8 or 9 is one success (``hit``), a 10 (shown 0) two (``hit two``)."""
    dice = []
    for face in d["faces"]:
        if face == 10:
            dice.append(("hit two", "2 successes: ", "0"))
        elif face >= 8:
            dice.append(("hit", "success: ", str(face)))
        else:
            dice.append(("", "", str(face)))
    return format_html('<p class="dice">{}</p>', _group(10, dice))


@register.filter
def swatch(color):
    """A mana color's name with its swatch (the name is what screen readers read)."""
    name = str(color)
    known = name.casefold() if name.casefold() in SWATCHES else "other"
    return format_html(
        '<span class="mana-color">'
        '<span class="swatch swatch-{}" aria-hidden="true"></span>{}</span>',
        known,
        bdi(name),
    )


@register.filter
def percent(value):
    """A probability (a Fraction or its stored text, ``rules.odds``) as a percentage with one
    decimal, of the figure its text tells: a chance shown before a roll reads as its roll will."""
    p = (odds.read(value) if isinstance(value, str) else odds.shown(value)) * 100
    if 0 < p < Fraction(1, 10):
        return "<0.1%"
    if 99.9 < p < 100:
        return ">99.9%"
    return f"{float(p):.1f}%"


@register.filter
def exactly(chance):
    """A chance (a Fraction) as ``rules.odds`` writes it: "exactly 2307/10000", or "about ..."
    when its fraction is too long to write."""
    text = odds.as_text(chance)
    if text.startswith(odds.APPROXIMATE):
        about = text.removeprefix(odds.APPROXIMATE)
        return f"about {about}: the exact fraction is too long to write"
    return f"exactly {text}"


#: A Fate die's face, as (class, screen reader text, shown): −, blank, +.
FATE_FACES = {-1: ("minus", "minus", "−"), 0: ("blank", "blank", ""), 1: ("plus", "plus", "+")}


def _fate_die(value):
    """A Fate die: its sign shown, its word read (the sign hidden from screen readers, which
    would read "−" as a dash and a blank face as nothing)."""
    name, said, shown = FATE_FACES.get(value, ("", str(value), str(value)))
    return format_html(
        '<span class="die fate {}"><span class="sr-only">{}</span>'
        '<span aria-hidden="true">{}</span></span>',
        name,
        said,
        shown,
    )


@register.simple_tag
def free_dice(d):
    """A free roll's dice (``rules.notation``'s groups): each group's notation, its dice (a
    dropped die struck through, a die that exploded marked ``boom``, a counted success ``hit``,
    a Fate die as −, blank or +, said to screen readers) and what it gave."""
    groups = []
    for group in d.get("groups", ()):
        dice = []
        for die in group.get("dice", ()):
            if group.get("fate"):
                dice.append(_fate_die(die.get("value")))
                continue
            classes, said = [], []
            if die.get("dropped"):
                classes.append("dropped")
                said.append("dropped")
            if die.get("exploded"):
                classes.append("boom")
                said.append("exploded")
            if die.get("hit"):
                classes.append("hit")
                said.append("success")
            said = f"{', '.join(said)}: " if said else ""
            dice.append((" ".join(classes), said, str(die.get("value", ""))))
        shown = format_html_join(
            " ", "{}", ((die if isinstance(die, str) else _die("", *die),) for die in dice)
        )
        groups.append(
            format_html(
                '<span class="dice-set"><span class="kind">{}</span> {} <span class="muted">= {}'
                "</span></span>",
                group.get("notation", ""),
                shown,
                group.get("value", ""),
            )
        )
    return format_html(
        '<p class="dice">{}</p>', format_html_join(" ", "{}", ((g,) for g in groups))
    )


@register.simple_tag
def entry_attributes(entry):
    """A message's attributes beyond its number (``rolls/_log_entry.html``, one tag for all of
    them: the log renders many entries): who said it (``data-from``), whom it calls
    (``data-to``: a whisper's recipient, or the members its ``@name``s call) and, a whisper,
    ``data-whisper``, which static/js/room.js reads to keep the log's order (a whisper takes
    no number: it follows the one it carries) and to alert those called."""
    called = [entry.recipient_id] if entry.recipient_id else entry.data.get("mentions", ())
    to = format_html(' data-to="{}"', " ".join(map(str, called))) if called else ""
    whisper = mark_safe(" data-whisper") if entry.sub else ""
    return format_html(' data-from="{}"{}{}', entry.actor_id, to, whisper)
