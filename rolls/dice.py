"""Dice nobody can choose (issue #31): the campaign's committed seeds and every roll's dice
drawn from one, with the roller's contribution and the roll's number in the log
(``rules.fair``, which docs/fair-dice.md states for anyone's own checker).

- A campaign has one open seed (``DiceSeed``), made when first needed (``seed_open``); members
  see its commitment in the room before any roll uses it.
- When a session starts or ends, or the GM reveals it early, the open seed is revealed and the
  next one committed (``seed_rotate``): the seed of a session's rolls is shown when it ends.
- A roll first takes its number, then draws its dice from the open seed, the contribution the
  roller's browser sent (random bytes the server cannot know before; a plain form sends none
  and the server makes one, which the entry says) and that number
  (``rolls.services.roll_dice``); its data keeps the commitment, the contribution, who made
  it and every draw (``log_append``), under the log's hash.
- ``dice_verify`` recomputes every draw of every roll whose seed is revealed, and checks the
  dice the roll shows are those draws (``verify_rolls``)."""

import json
from bisect import bisect_left
from dataclasses import dataclass, field
from operator import itemgetter

from django.db import IntegrityError, transaction
from django.utils import timezone

from campaigns.systems import SYSTEMS
from rules import RulesError, fair, notation

from .models import DiceSeed, LogEntry

#: Who made a roll's contribution: the roller's browser, the GM's (who rolls a shift they
#: approve), or the server for a plain form.
BROWSER, GM, SERVER = "browser", "gm", "server"


def seed_open(campaign):
    """The campaign's open seed, made now if it has none."""
    return DiceSeed.objects.open_of(campaign) or _seed_new(campaign)


def _seed_new(campaign):
    """A new open seed for the campaign, or the one a request beside this one made first (one
    open seed per campaign: a constraint)."""
    seed = fair.new_seed()
    try:
        with transaction.atomic():
            commitment = fair.commitment(seed)
            return DiceSeed.objects.create(campaign=campaign, seed=seed, commitment=commitment)
    except IntegrityError:
        return DiceSeed.objects.open_of(campaign)


def seed_rotate(campaign):
    """Reveal the campaign's open seed, if it has one, and commit the next: (the one revealed
    or None, the new one). Call inside a transaction, under the campaign row's lock."""
    revealed = DiceSeed.objects.open_of(campaign)
    if revealed is not None:
        revealed.revealed_at = timezone.now()
        revealed.save(update_fields=["revealed_at"])
    return revealed, _seed_new(campaign)


def drawn(kind, data):
    """The draws a roll's shown dice must be, in the order they were drawn, ``[1, faces, face]``
    each (what its ``fair`` record must hold): a free roll's every die, kept or dropped, group
    by group (a Fate die, -1, 0 or +1, was a d3's 1, 2 or 3: ``rules.notation``); a check's
    roll as its system says (its ``drawn(data)``; None: a system whose ``drawn`` is None, whose
    draws alone are checked)."""
    if kind == LogEntry.FREE:
        return [
            [1, g.get("faces"), _face(die.get("value"), g.get("fate"))]
            for g in data.get("groups", [])
            for die in g.get("dice", [])
        ]
    system = SYSTEMS.get(data.get("system"))
    return system.drawn(data) if system is not None and system.drawn is not None else None


def _face(value, fate):
    """The face drawn for a free roll's die showing ``value``: itself, or a Fate die's plus 2
    (a malformed value stays as it is, and fails the comparison with the draws)."""
    if fate and isinstance(value, int) and not isinstance(value, bool):
        return value + 2
    return value


def _replayed(kind, data, rng):
    """What the dice decide of a roll, rolled again with ``rng`` from what it was asked (a free
    roll: its canonical expression and its target, ``rules.notation.logged``; a check's roll:
    its system's ``replay``; None: a system whose ``replay`` is None)."""
    if kind == LogEntry.FREE:
        asked = notation.logged(data["expression"], data.get("target"))
        outcome = notation.roll(asked, rng).as_data()
        return {key: outcome.get(key) for key in ("total", "success", "groups", "detail")}
    system = SYSTEMS.get(data.get("system"))
    return system.replay(data, rng) if system is not None and system.replay is not None else None


def dice_problem(entry, seed):
    """Why the dice of roll ``entry`` are not those of the revealed ``seed`` (a DiceSeed), or
    None when the seed hashes to the commitment the roll names; each draw is what the seed, the
    contribution and the roll's number give; the dice it shows are those draws, die by die
    (their sizes too); and rolled again from what it asked with those dice, it comes out as it
    shows (each chain, total and success)."""
    record = entry.data.get("fair") or {}
    if not isinstance(record.get("draws"), list):
        return "its dice record is malformed"
    try:
        if fair.commitment(seed.seed) != record.get("commitment"):
            return "its seed is not the one committed"
        wrong = fair.verify_draws(seed.seed, record.get("contribution"), entry.seq, record["draws"])
        again = fair.FairDice(seed.seed, record["contribution"], entry.seq)
        replayed = _replayed(entry.kind, entry.data, again)
    except (RulesError, KeyError, TypeError, ValueError):
        return "its dice record is malformed"
    if wrong is not None:
        return f"its die {wrong + 1} is not the one its seed and contribution give"
    expected = drawn(entry.kind, entry.data)
    if expected is not None and expected != record["draws"]:
        return "the dice it shows are not the ones drawn"
    if replayed is not None:
        same = all(entry.data.get(key) == value for key, value in replayed.items())
        if not same or again.record()["draws"] != record["draws"]:
            return "its outcome is not what its dice give"
    return None


def announcements(campaign):
    """[(number, commitment)] of the log's entries that announced a dice seed's commitment (a
    session's start or end, the GM's early reveal: ``LogEntry.ANNOUNCE_DICE``), in order."""
    found = LogEntry.objects.filter(campaign=campaign, kind__in=LogEntry.ANNOUNCE_DICE)
    found = found.filter(data__dice__isnull=False).order_by("seq")
    return list(found.values_list("seq", "data__dice"))


def announced_before(announced, seq):
    """The (number, commitment) of the last announcement in ``announced`` (``announcements``'
    list, in order) before number ``seq``, or None."""
    at = bisect_left(announced, seq, key=itemgetter(0))
    return announced[at - 1] if at else None


def dice_verify(campaign):
    """``(problem, checked, unannounced)``: ``problem``, (place, why) of the first roll whose
    dice do not verify, else None; ``checked``, how many rolls of revealed seeds were checked;
    ``unannounced``, how many rolls came before any seed was announced in the log (a
    campaign's first seed, shown in the room only: its dice are checked, not when it was
    committed). Each roll must name the commitment last announced before it (its seed was
    committed before the roll, in the chained log), and the dice of a revealed seed's rolls must
    be what the seed, the contribution and the roll's number give (``dice_problem``)."""
    seeds = {seed.commitment: seed for seed in DiceSeed.objects.filter(campaign=campaign)}
    announced = announcements(campaign)
    checked = unannounced = 0
    rolls = LogEntry.objects.filter(campaign=campaign, kind__in=LogEntry.ROLLS)
    rolls = rolls.filter(data__fair__isnull=False).order_by("seq", "sub")
    for entry in rolls.iterator(chunk_size=2000):
        committed = (entry.data.get("fair") or {}).get("commitment")
        last = announced_before(announced, entry.seq)
        if last is None:
            unannounced += 1
        elif last[1] != committed:
            why = f"its seed is not the one announced before it (#{last[0]})"
            return (entry.place, why), checked, unannounced
        seed = seeds.get(committed)
        if seed is None:
            return (entry.place, "its seed was never committed"), checked, unannounced
        if seed.revealed_at is None:
            continue  # its seed is still open: checked once revealed
        why = dice_problem(entry, seed)
        if why:
            return (entry.place, why), checked, unannounced
        checked += 1
    return None, checked, unannounced


@dataclass
class Shown:
    """What the fair-dice page shows a member (``rolls/dice.html``): the open seed's
    commitment; the revealed seeds, newest first; the one ``chosen`` with the rolls of it the
    viewer may see (``rolls``: each entry with ``fair``, its record, and ``shown_json``, the
    draws its dice must be) and how many it holds that they may not (``hidden``)."""

    open: DiceSeed | None
    revealed: list
    chosen: DiceSeed | None = None
    rolls: list = field(default_factory=list)
    hidden: int = 0
    #: The numbers of the entry that announced the chosen seed's commitment and of the next
    #: announcement (None: none), between which its rolls must lie.
    announced: int | None = None
    until: int | None = None


def shown_to(campaign, viewer_id, gm_id, chosen=""):
    """The fair-dice page's :class:`Shown` for ``viewer_id``: ``chosen`` names a revealed seed
    by its commitment or the start of it (default: the last revealed). The rolls of a seed are
    the entries that name its commitment; one the viewer may not see is counted, not shown
    (its contribution would give its dice away)."""
    seeds = list(DiceSeed.objects.filter(campaign=campaign).order_by("-created_at", "-pk"))
    shown = Shown(
        open=next((seed for seed in seeds if seed.revealed_at is None), None),
        revealed=[seed for seed in seeds if seed.revealed_at is not None],
    )
    picked = [seed for seed in shown.revealed if chosen and seed.commitment.startswith(chosen)]
    shown.chosen = (picked or shown.revealed or [None])[0]
    if shown.chosen is None:
        return shown
    # Where the log announced the seed, and the next one: its rolls lie between.
    announced = announcements(campaign)
    at = [seq for seq, commitment in announced if commitment == shown.chosen.commitment]
    shown.announced = at[0] if at else None
    later = [seq for seq, _ in announced if shown.announced and seq > shown.announced]
    shown.until = later[0] if later else None
    rolls = LogEntry.objects.filter(campaign=campaign, kind__in=LogEntry.ROLLS)
    rolls = rolls.filter(data__fair__commitment=shown.chosen.commitment)
    # A GM-secret roll once revealed is everyone's to check, as its reveal shows its dice.
    revealed = set(LogEntry.objects.revealed_seqs(campaign.pk).values_list("of", flat=True))
    for entry in rolls.select_related("actor").order_by("seq", "sub"):
        if entry.seq not in revealed and not entry.visible_to(viewer_id, gm_id):
            shown.hidden += 1
            continue
        entry.fair = entry.data["fair"]
        expected = drawn(entry.kind, entry.data)
        # Whole numbers in lists: what the page's script reads (static/js/dice.js).
        entry.draws_json = json.dumps(entry.fair.get("draws"))
        entry.shown_json = json.dumps(expected) if expected is not None else ""
        shown.rolls.append(entry)
    return shown
