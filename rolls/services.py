"""Writes of the live table that every system shares: sessions, checks, the log. Each function
is one transaction. A system's own writes (its roll) are in its package,
``rolls/systems/<key>/services.py``; a shared write asks the campaign's system
(``rolls.systems.system_of``) for its part, never which system it is.

Rolls are made here, on the server, with a cryptographically secure generator; a browser only
sends what the player chose to spend or roll. Every roll becomes a LogEntry with the campaign's
next sequence number and a hash chained to the previous entry and signed with the log key
(``log_append``); ``log_verify`` is the one place that checks a log's chain, ``log_check`` the
one check of a log and its dice (``manage.py verify_rolls`` and the GM's page).
"""

from dataclasses import dataclass

from django.db import connection, transaction
from django.utils import timezone

from campaigns.models import Campaign, GameSession
from core.text import isolated
from core.writes import Refused
from rules import fair
from rules import notation as rules_notation
from sheets.models import Character

from . import chain, dice
from .chain import GENESIS
from .export import cells_text
from .forms import first_error
from .models import (
    ASK_THE_SYSTEM,
    PRIVATE,
    PUBLIC,
    SECRET,
    WHISPER,
    Check,
    DiceSeed,
    LogEntry,
    outcome_fields,
    place_text,
)
from .systems import system_of
from .talk import MESSAGE_MAX

MAX_SPEND = 100


def log_append(
    *,
    campaign,
    kind,
    actor,
    data,
    visibility=PUBLIC,
    character=None,
    check=None,
    opens=None,
    closes=False,
    rolled=ASK_THE_SYSTEM,
    recipient=None,
    head=None,
    dice=None,
):
    """Append an entry to the campaign's log: the next place, chained and signed
    (``rolls.chain``). A GM-secret roll is sealed with a commitment to its result. ``opens``: the
    game session this entry starts; ``closes``: this entry ends the open one. ``rolled``: what
    the roll's system reads of its dice (its ``rolled(data)``), kept beside the data with the
    rest of its outcome (``models.outcome_fields``; by default the system is asked).
    ``recipient``: a whisper's (``WHISPER``), which takes no number of its own but the next
    ``sub`` of the last one. The entry's ``prev_place`` (not stored) is the place of the entry
    before it, which its push names (``room.push``). ``head`` and ``dice``: a roll's, as
    ``roll_dice`` took them already in this transaction (a roll takes its number before its dice
    are drawn); the data keeps the dice's record (``fair``: ``rolls.dice`` checks it).

    Call inside a transaction. Three statements: the head is taken under the campaign row's lock
    (held until the transaction ends), the entry is stored, the head moves to it."""
    if isinstance(dice, fair.FairDice):  # a test's own dice leave no record
        data = {**data, "fair": dice.record()}
    if kind in LogEntry.ROLLS and visibility == SECRET:
        data = chain.seal(data)
    whisper = visibility == WHISPER
    if head is None:
        head = _next_place(campaign.pk, whisper=whisper, opens=opens)
    seq, sub, prev, session_id = head
    entry = LogEntry(
        campaign=campaign,
        seq=seq if whisper else seq + 1,
        sub=sub + 1 if whisper else 0,
        kind=kind,
        session_id=session_id,
        actor=actor,
        character=character,
        check_ref=check,
        visibility=visibility,
        recipient=recipient,
        data=data,
        created_at=timezone.now(),
        prev_hash=prev,
        **outcome_fields(kind, data, rolled),
        cells=cells_text(kind, visibility, data),
    )
    entry.hash = entry.compute_hash()
    entry.save(force_insert=True)
    entry.prev_place = (seq, sub)
    _move_head(campaign.pk, entry.place, entry.hash, closes=closes)
    campaign.last_seq, campaign.last_sub, campaign.head_hash = entry.seq, entry.sub, entry.hash
    return entry


def roll_dice(campaign, *, contribution="", rng=None, by=None):
    """A roll's number and dice: ``(head, dice)``. ``head``: the log's head, taken now under the
    campaign row's lock (``_next_place``; the roll takes the next number), before the dice are
    drawn. ``dice``: drawn from the campaign's open seed (``rolls.dice``), ``contribution`` (the
    roller's browser's, hex as ``rules.fair.check_contribution`` takes it; "": the server makes
    one, and the record says so) and that number. ``by``: who sent the contribution when not
    the roller's browser (``rolls.dice.GM``: the GM approving a shift). ``rng``: dice a test
    scripts instead, of which nothing is kept. Give both to ``log_append``, which keeps the
    dice's record with the roll. Call inside a transaction."""
    head = _next_place(campaign.pk)
    if rng is not None:
        return head, rng
    # The campaign's first was made by the room's first view, before any roll: read it.
    seed = DiceSeed.objects.open_of(campaign) or dice.seed_open(campaign)
    by = (by or dice.BROWSER) if contribution else dice.SERVER
    contribution = contribution or fair.new_contribution()
    return head, fair.FairDice(seed.seed, contribution, head[0] + 1, by=by)


def _next_place(campaign_id, *, whisper=False, opens=None):
    """Take the campaign's log head for a new entry: (the last entry's seq and sub, its hash, the
    id of the session the new entry belongs to). ``whisper``: the entry takes the next sub, not
    the next number. ``opens``: a session that starts with this entry, which new entries belong
    to from now on.

    One statement, on the campaign row only: it locks the row until the transaction ends, and
    what it returns is the row as the last transaction that held the lock left it. (A subquery
    would not do: on PostgreSQL it reads the other tables as they were when the statement began,
    before the lock it waited for was released.)"""
    table = Campaign._meta.db_table
    session = Campaign._meta.get_field("log_session").column
    opening = f", {session} = %s" if opens is not None else ""
    # Setting a column to itself takes the lock and leaves the head as it was, to be read.
    sql = (
        f"UPDATE {table} SET last_sub = last_sub{opening} WHERE id = %s "
        f"RETURNING last_seq, last_sub, head_hash, {session}"
    )
    params = [opens.pk, campaign_id] if opens is not None else [campaign_id]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def _move_head(campaign_id, place, head_hash, *, closes=False):
    """Move the campaign's log head to the new entry (its place and hash); ``closes``: no
    session is open once it is stored. One plain statement, as ``_next_place``: every roll runs
    it, and the ORM would take longer to build it than the database takes to run it."""
    table = Campaign._meta.db_table
    head = Campaign._meta.get_field("head_hash").column
    session = Campaign._meta.get_field("log_session").column
    closing = f", {session} = NULL" if closes else ""
    sql = f"UPDATE {table} SET last_seq = %s, last_sub = %s, {head} = %s{closing} WHERE id = %s"
    with connection.cursor() as cursor:
        cursor.execute(sql, [*place, head_hash, campaign_id])


@dataclass(frozen=True)
class LogBreak:
    """Where a log stops holding: the first entry (its place, ``seq`` and ``sub``) found
    ``what`` ("altered", "inserted" or "deleted"), and ``why`` it shows, naming places as the
    server's operator reads them (``place_text``); ``whispered``: the entry or a place ``why``
    names is a whisper's, which a member's page does not name (``rolls/verify.html``)."""

    seq: int
    what: str
    why: str
    sub: int = 0
    whispered: bool = False

    @classmethod
    def at(cls, place, what, why, *near):
        """The break at ``place``; ``near``: the other places ``why`` names."""
        whispered = any(sub for _seq, sub in (place, *near))
        return cls(place[0], what, why, place[1], whispered)

    def __str__(self):
        return f"entry #{place_text(self.seq, self.sub)} was {self.what}: {self.why}"


def log_verify(campaign):
    """The first entry of the campaign's log that was altered, inserted or deleted (a
    :class:`LogBreak`), or None when the log is whole.

    Whole means: the entries follow one another in the log's order, each the next number (1, 2,
    ...) or, a whisper, the next sub of the last number (#5.1, #5.2), up to the campaign's head at
    least; each hash verifies with the log key over the previous hash and every stored field;
    the entry the head names has the head's hash; and every secret roll's commitment, and every
    reveal, matches its result. The head is read first: entries appended while the log is read
    are checked too, as the chain's continuation."""
    key = chain.log_key()
    fields = ("last_seq", "last_sub", "head_hash")
    head_seq, head_sub, head_hash = Campaign.objects.values_list(*fields).get(pk=campaign.pk)
    head = (head_seq, head_sub)
    last, prev = (0, 0), GENESIS
    sealed = {}  # the secret rolls' data, by number
    entries = LogEntry.objects.filter(campaign_id=campaign.pk).order_by("seq", "sub")
    for entry in entries.iterator(chunk_size=2000):
        place = entry.place
        missing = _missing_before(last, place)
        if missing:
            return missing
        if entry.hash != entry.compute_hash(key):
            what = "inserted" if place > head else "altered"
            return LogBreak.at(place, what, "its hash does not verify with the log key")
        if entry.prev_hash != prev:
            why = f"it does not chain to #{place_text(*last)}"
            return LogBreak.at(place, "altered", why, last)
        if place == head and entry.hash != head_hash:
            return LogBreak.at(place, "altered", "its hash is not the one the head recorded")
        why = _commitment_problem(entry, sealed)
        if why:
            return LogBreak.at(place, "altered", why)
        said = outcome_fields(entry.kind, entry.data)
        if any(getattr(entry, name) != value for name, value in said.items()):
            return LogBreak.at(place, "altered", "its outcome is not the one its data says")
        if entry.cells != cells_text(entry.kind, entry.visibility, entry.data):
            return LogBreak.at(place, "altered", "its export is not the one its data says")
        last, prev = place, entry.hash
    if last < head:
        why = f"the log ends at #{place_text(*last)}, its head is #{place_text(*head)}"
        return LogBreak.at(_next_after(last, head), "deleted", why, last, head)
    return None


@dataclass(frozen=True)
class LogCheck:
    """What ``log_check`` found of a campaign's log: ``broken``, the first entry that does not
    hold (a :class:`LogBreak`), else None; ``unfair``, (place, why) of the first roll whose
    dice are not those its revealed seed, contribution and number give, else None (the dice are
    checked only when the chain holds); ``checked``, how many rolls' dice were checked against
    their revealed seeds; ``unannounced``, how many rolls came before the log announced any
    seed (``rolls.dice.dice_verify``)."""

    broken: LogBreak | None
    unfair: tuple | None = None
    checked: int = 0
    unannounced: int = 0

    @property
    def whole(self):
        return self.broken is None and self.unfair is None

    @property
    def unfair_at(self):
        """The number of the roll whose dice do not hold, as the log shows it (``#7``'s 7)."""
        return place_text(*self.unfair[0]) if self.unfair else ""


def log_check(campaign):
    """The one check of a campaign's log, which ``manage.py verify_rolls`` and the GM's page
    (``room.views.verify_log``) both run, so that they agree: its chain (``log_verify``), then,
    when it holds, the dice of every roll whose seed is revealed (``rolls.dice.dice_verify``:
    each draw, the dice shown, and the roll rolled again from what it asked): a
    :class:`LogCheck`."""
    broken = log_verify(campaign)
    if broken is not None:
        return LogCheck(broken)
    return LogCheck(None, *dice.dice_verify(campaign))


def _missing_before(last, place):
    """The break when the entry at ``place`` does not follow the one at ``last`` (the next
    number, or the next sub of the same number), else None."""
    seq, sub = last
    if place in ((seq + 1, 0), (seq, sub + 1)):
        return None
    if place <= last:
        return LogBreak.at(place, "inserted", "it is out of the log's order")
    if last == (0, 0):
        why = f"the log starts at #{place_text(*place)}"
        return LogBreak.at(_next_after(last, place), "deleted", why, place)
    why = f"the log goes from #{place_text(*last)} to #{place_text(*place)}"
    return LogBreak.at(_next_after(last, place), "deleted", why, last, place)


def _next_after(last, later):
    """The place of the entry that should come after ``last`` on the way to ``later``: the
    next sub when ``later`` has the same number, else the next number."""
    seq, sub = last
    return (seq, sub + 1) if later[0] == seq else (seq + 1, 0)


def _commitment_problem(entry, sealed):
    """Why a secret roll's commitment or a reveal does not hold, or "". ``sealed``: the data of
    the secret rolls before ``entry``, by number (``entry`` is added if it is one)."""
    data = entry.data if isinstance(entry.data, dict) else {}
    if entry.kind in LogEntry.ROLLS and entry.visibility == SECRET and entry.commitment:
        sealed[entry.seq] = data
        if chain.commitment(chain.result_of(data), data.get("salt")) != data["commitment"]:
            return "its commitment does not match its result"
    if entry.kind != LogEntry.REVEAL:
        return ""
    original = sealed.get(data.get("of"))
    if original is None:
        return "it reveals no earlier secret roll"
    if (
        data.get("commitment") != original["commitment"]
        or data.get("salt") != original["salt"]
        or data.get("result") != chain.result_of(original)
        or chain.commitment(data.get("result"), data.get("salt")) != data.get("commitment")
    ):
        return f"what it reveals does not match the commitment of #{data['of']}"
    return ""


def open_session(campaign):
    return GameSession.objects.filter(campaign=campaign, ended_at__isnull=True).first()


def _lock_campaign(campaign):
    """Lock the campaign row until the transaction ends, so that two concurrent starts (or ends)
    of a session cannot both see the same open session (PostgreSQL; SQLite serialises anyway)."""
    Campaign.objects.select_for_update().filter(pk=campaign.pk).values_list("pk").first()


# Sessions ---------------------------------------------------------------------------------------


@transaction.atomic(savepoint=False)
def session_start(*, campaign, by):
    _lock_campaign(campaign)
    if open_session(campaign):
        raise Refused("A session is already running.")
    last = GameSession.objects.filter(campaign=campaign).order_by("-number").first()
    session = GameSession.objects.create(campaign=campaign, number=(last.number + 1) if last else 1)
    # The session's rolls: a dice seed committed now (in the entry), revealed at its end; the
    # one of the rolls since the last session revealed.
    data = {"number": session.number, **_seeds(dice.seed_rotate(campaign))}
    entry = log_append(
        campaign=campaign, kind=LogEntry.SESSION_START, actor=by, data=data, opens=session
    )
    return session, entry


@transaction.atomic(savepoint=False)
def session_end(*, campaign, by):
    _lock_campaign(campaign)
    session = open_session(campaign)
    if session is None:
        raise Refused("No session is running.")
    # The session's dice seed revealed (in the entry), the next committed.
    data = {"number": session.number, **_seeds(dice.seed_rotate(campaign))}
    entry = log_append(
        campaign=campaign, kind=LogEntry.SESSION_END, actor=by, data=data, closes=True
    )
    session.ended_at = timezone.now()
    session.save(update_fields=["ended_at"])
    return session, entry


def _seeds(rotated):
    """What a session's start or end says of the dice seeds ``seed_rotate`` turned over: the
    one revealed (``seed``: anyone can hash it to the commitment its rolls name) and the next
    one's commitment (``dice``)."""
    revealed, new = rotated
    return {"seed": revealed.seed, "dice": new.commitment} if revealed else {"dice": new.commitment}


@transaction.atomic(savepoint=False)
def dice_seed_reveal(*, campaign, by):
    """The GM reveals the campaign's dice seed now, before the session ends: anyone can check
    the rolls it gave at once; the next rolls take a new seed, committed now (``rolls.dice``).
    The log says so (a ``dice_seed`` entry with the seed revealed and the next commitment, under
    the chain): every roll is held to the last commitment announced before it. Returns the
    entry."""
    _lock_campaign(campaign)
    return log_append(
        campaign=campaign, kind=LogEntry.DICE, actor=by, data=_seeds(dice.seed_rotate(campaign))
    )


@transaction.atomic(savepoint=False)
def checks_close(*, campaign):
    """The GM closes every check of ``campaign`` still live (requested, open, awaiting the GM
    or failed), as "Close check" closes one, e.g. those left when a session ended. Returns the
    checks closed (none: refused)."""
    _lock_campaign(campaign)  # one close at a time; a roll that claims its check first wins
    live = list(Check.objects.of(campaign).live().select_for_update(of=("self",)))
    if not live:
        raise Refused("No check is open.")
    Check.objects.filter(pk__in=[check.pk for check in live]).update(status=Check.DONE)
    for check in live:
        check.status = Check.DONE
        check.campaign = campaign
    return live


def session_participants(session):
    """The characters that rolled in ``session``."""
    ids = LogEntry.objects.filter(session=session, kind=LogEntry.ROLL).values("character_id")
    return Character.objects.filter(pk__in=ids)


# Checks -----------------------------------------------------------------------------------------


def _check_visibility(visibility, character, campaign):
    if visibility not in (PUBLIC, PRIVATE, SECRET):
        raise Refused("Choose public, private or GM secret.")
    if visibility == SECRET and character.owner_id != campaign.gm_id():
        raise Refused("Only the GM's own characters roll GM-secret checks.")
    return visibility


def _check_target(target):
    if isinstance(target, bool) or not isinstance(target, int) or not 1 <= target <= 1000:
        raise Refused("The difficulty or TN must be a whole number from 1 to 1000.")
    return target


def _check_new(*, campaign, character, by, status, visibility, note, target=None, **about):
    """A new check (its visibility and number checked by the caller) and its system's own row
    of it: what it is about (``about``: the system's ``about_field``, e.g. Pool's
    ``suggestion``, Mana's ``mana_skill``) binds the roll, as the system says (``check_fill``:
    the skill, or what the suggestion names of the sheet); the check keeps the suggestion."""
    check = Check.objects.create(
        campaign=campaign,
        character=character,
        session=open_session(campaign),
        created_by=by,
        status=status,
        visibility=visibility,
        target=target,
        note=note,
        suggestion=about.get("suggestion", ""),
    )
    system_of(campaign).check_fill(check, **about)
    return check


@transaction.atomic(savepoint=False)
def check_ask(*, campaign, character, by, target, note="", visibility=PUBLIC, **about):
    """The GM asks ``character`` for a check with its difficulty or TN; what it is about binds
    the roll (``_check_new``)."""
    visibility = _check_visibility(visibility, character, campaign)
    return _check_new(
        campaign=campaign,
        character=character,
        by=by,
        status=Check.OPEN,
        visibility=visibility,
        target=_check_target(target),
        note=note,
        **about,
    )


@transaction.atomic(savepoint=False)
def check_ask_group(*, campaign, characters, by, target, note="", visibility=PUBLIC, **about):
    """The GM asks each of ``characters`` for the same check (``check_ask``, one check each).
    What the whole ask gets wrong (no one chosen, its number, a GM secret for a player's
    character) refuses it for everyone. A character the system refuses on its own (e.g. Pool's:
    no dice for what the check names) is left out and the others are asked; when that leaves
    no one, the ask is refused with every reason. Returns (the checks, [(character, why it was
    left out)])."""
    characters = list(characters)
    if not characters:
        raise Refused("Choose at least one character.")
    target = _check_target(target)
    for character in characters:
        _check_visibility(visibility, character, campaign)
    checks, left_out = [], []
    for character in characters:
        try:
            # A savepoint: a character refused here leaves no check behind.
            with transaction.atomic():
                checks.append(
                    check_ask(
                        campaign=campaign,
                        character=character,
                        by=by,
                        target=target,
                        note=note,
                        visibility=visibility,
                        **about,
                    )
                )
        except Refused as refusal:
            left_out.append((character, str(refusal)))
    if not checks:
        raise Refused(" ".join(why for _, why in left_out))
    return checks, left_out


@transaction.atomic(savepoint=False)
def check_roll_npc(*, campaign, character, by, target, data, note="", visibility=PUBLIC):
    """The GM rolls for one of their own characters (an NPC) in one step: the check is asked
    (``check_ask``) and rolled at once by the campaign's system (``rolls.systems``: ``data`` is
    its roll form's cleaned data; ``roll_npc``: a Pool shift is the GM's own, rolled at once).
    Returns (check, log entry)."""
    system = system_of(campaign)
    gm_id = campaign.gm_id()
    if by.pk != gm_id:
        raise Refused("Only the GM rolls for NPCs.")
    if character.campaign_id != campaign.pk or character.owner_id != gm_id:
        raise Refused("Choose one of your own characters (an NPC).")
    check = check_ask(
        campaign=campaign,
        character=character,
        by=by,
        target=target,
        note=note,
        visibility=visibility,
        **system.npc_asked(data),
    )
    check.campaign = campaign
    return check, system.roll_npc(check, by=by, data=data)


@transaction.atomic(savepoint=False)
def check_request(*, campaign, character, by, note="", visibility=PUBLIC, **about):
    """A player asks to make a check; the GM answers with the number (``check_set_target``).
    What it is about binds the roll, as for ``check_ask``."""
    if character.owner_id != by.pk:
        raise Refused("You can only ask for checks for your own characters.")
    return _check_new(
        campaign=campaign,
        character=character,
        by=by,
        status=Check.REQUESTED,
        visibility=_check_visibility(visibility, character, campaign),
        note=note,
        **about,
    )


#: What the writes on a check may change: read again under the lock before each write, with
#: the system's own row of the check.
CHECK_STATE = ["status", "target", "intent"]


def check_locked(check, *related):
    """``check``, its row locked and its state read again, with its system's own row
    (``check_related``) and ``related`` (what the write needs besides, e.g. a shift's
    ratings), in the same query: every write of them holds this lock. In place: a related row
    of the check's own (its character) already read stays."""
    own = (*system_of(check.campaign).check_related, *related)
    locked = Check.objects.select_for_update(of=("self",)).select_related(*own).get(pk=check.pk)
    for name in CHECK_STATE:
        setattr(check, name, getattr(locked, name))
    for name in {path.split("__")[0] for path in own}:
        field = Check._meta.get_field(name)
        field.set_cached_value(check, field.get_cached_value(locked))
    return check


@transaction.atomic(savepoint=False)
def check_set_target(*, check, target):
    check = check_locked(check)
    if check.status != Check.REQUESTED:
        raise Refused("This check already has its number.")
    check.target = _check_target(target)
    check.status = Check.OPEN
    check.save(update_fields=["target", "status"])
    return check


@transaction.atomic(savepoint=False)
def check_cancel(*, check):
    check = check_locked(check)
    if check.status == Check.DONE:
        raise Refused("This check is already closed.")
    check.status = Check.DONE
    check.save(update_fields=["status"])
    return check


@transaction.atomic(savepoint=False)
def check_allow_reattempt(*, check):
    check = check_locked(check)
    if check.status != Check.FAILED:
        raise Refused("Only a failed check can be attempted again.")
    check.status = Check.OPEN
    check.save(update_fields=["status"])
    return check


def spend_count(value, label):
    """``value`` if it is a whole number from 0 to MAX_SPEND (mana spent, dice shifted), else
    refused, named ``label``."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SPEND:
        raise Refused(f"{label} must be a whole number from 0 to {MAX_SPEND}.")
    return value


def check_claim(check, status, **changes):
    """Move ``check`` from open to ``status`` with ``changes``, in one statement that locks its
    row until the transaction ends; refuse when it is no longer open with the number it was read
    with (another request rolled or closed it meanwhile). Whatever refuses later in the
    transaction undoes this too. (One statement where a locked read and a write would be two:
    the roll's hot path.)"""
    taken = Check.objects.filter(pk=check.pk, status=Check.OPEN, target=check.target).update(
        status=status, **changes
    )
    if not taken:
        raise Refused("This check cannot be rolled now.")
    check.status = status
    for name, value in changes.items():
        setattr(check, name, value)


# Secret rolls -----------------------------------------------------------------------------------


@transaction.atomic(savepoint=False)
def roll_reveal(*, campaign, seq, by):
    """The GM reveals the GM-secret roll numbered ``seq``: a public ``reveal`` entry shows its
    result, salt and commitment, which every player saw when it was rolled."""
    if by.pk != campaign.gm_id():
        raise Refused("Only the GM reveals a secret roll.")
    _lock_campaign(campaign)  # two reveals of one roll at once: the second sees the first
    secret = (
        LogEntry.objects.filter(
            campaign=campaign, seq=seq, kind__in=LogEntry.ROLLS, visibility=SECRET
        )
        .select_related("character")
        .first()
    )
    if secret is None:
        raise Refused("Only a GM-secret roll can be revealed.")
    if not secret.commitment:
        raise Refused("This roll was made before secret rolls had commitments: it has none.")
    if LogEntry.objects.revealed(campaign.pk, [seq]):
        raise Refused("This roll is already revealed.")
    data = secret.data
    return log_append(
        campaign=campaign,
        kind=LogEntry.REVEAL,
        actor=by,
        character=secret.character,
        data={
            "of": seq,
            "result": chain.result_of(data),
            "salt": data["salt"],
            "commitment": data["commitment"],
        },
    )


# Table talk -------------------------------------------------------------------------------------


@transaction.atomic(savepoint=False)
def free_roll_make(
    *,
    campaign,
    by,
    notation,
    visibility=PUBLIC,
    contribution="",
    rng=None,
    character=None,
    saved="",
):
    """A member rolls dice typed in dice notation (``notation``: ``rules.notation.parse``'s),
    outside any check: its dice from the campaign's seed with ``contribution``, the roller's
    browser's (``roll_dice``; ``rng``: a test's), its exact chance when it states a target
    (counted in luck then), logged and chained as a check's roll; private for the roller and
    the GM, or the GM's secret (committed now, revealed later). Refused: a player's secret
    roll. ``character`` and ``saved``: a saved roll's (``saved_roll_roll``), in whose name and
    under which name the entry says it was rolled."""
    if visibility not in (PUBLIC, PRIVATE, SECRET):
        raise Refused("Choose public, private or GM secret.")
    if visibility == SECRET and by.pk != campaign.gm_id():
        raise Refused("Only the GM rolls in secret.")
    head, rolled = roll_dice(campaign, contribution=contribution, rng=rng)
    outcome = rules_notation.roll(notation, rolled, chance=rules_notation.chance(notation))
    data = outcome.as_data()
    if saved:
        data["saved"] = saved
    return log_append(
        campaign=campaign,
        kind=LogEntry.FREE,
        actor=by,
        character=character,
        data=data,
        visibility=visibility,
        head=head,
        dice=rolled,
    )


@dataclass(frozen=True)
class SavedRolled:
    """What a saved roll did (``saved_roll_roll``): its log ``entry`` (a free roll's, an NPC's
    check's), its ``check`` (an NPC's, or the player's request, which has no entry yet)."""

    entry: object = None
    check: object = None


@transaction.atomic(savepoint=False)
def saved_roll_roll(*, campaign, saved, by, visibility=PUBLIC, target=None, contribution=""):
    """``by`` rolls ``saved`` (``sheets.models.SavedRoll``) of their own character: its dice
    notation as a free roll in the character's name (``free_roll_make``); its check as the
    campaign's system rolls one for that character now, its choices made its roll form's data
    (``saved_check_data``, the form checking them against the sheet as it is): for the GM's
    NPC at once against ``target`` or the number it keeps (``check_roll_npc``), for a player
    the request of that check, which the GM gives its number (``check_request``: a player's
    check is never rolled before). Either way its name is the check's note. Refused: another's
    character, a check the sheet no longer allows, an NPC's check without a number."""
    character = saved.character
    if character.campaign_id != campaign.pk or character.owner_id != by.pk:
        raise Refused("Only the character's player rolls its saved rolls.")
    if not saved.is_check:
        entry = free_roll_make(
            campaign=campaign,
            by=by,
            notation=rules_notation.parse(saved.notation),
            visibility=visibility,
            contribution=contribution,
            character=character,
            saved=saved.name,
        )
        return SavedRolled(entry=entry)
    system = system_of(campaign)
    data = {**system.saved_check_data(character, saved.choices), "contribution": contribution}
    probe = Check(campaign=campaign, character=character)
    form = system.roll_form(probe, data)
    if not form.is_valid():
        name = isolated(saved.name)
        raise Refused(f"“{name}” no longer fits the sheet: {first_error(form)}")
    if character.owner_id != campaign.gm_id():
        check = check_request(
            campaign=campaign,
            character=character,
            by=by,
            note=saved.name,
            visibility=visibility,
            **system.npc_asked(form.cleaned_data),
        )
        return SavedRolled(check=check)
    target = target if target is not None else saved.target
    if target is None:
        raise Refused(f"Set the {system.number} to roll “{isolated(saved.name)}” against.")
    check, entry = check_roll_npc(
        campaign=campaign,
        character=character,
        by=by,
        target=_check_target(target),
        data=form.cleaned_data,
        note=saved.name,
        visibility=visibility,
    )
    return SavedRolled(entry=entry, check=check)


@transaction.atomic(savepoint=False)
def message_send(*, campaign, by, text, to=None, mentions=()):
    """``by`` says ``text`` to the table, or whispers it to the member ``to`` alone (not even
    the GM hears a whisper between players); ``mentions``: the ids of the members it calls
    with ``@name``, whose pages alert them. Logged and chained as everything said at the
    table."""
    text = (text or "").strip()
    if not text:
        raise Refused("Type a message.")
    if len(text) > MESSAGE_MAX:
        raise Refused(f"At most {MESSAGE_MAX} characters.")
    data = {"text": text}
    if to is not None:
        if to.pk == by.pk:
            raise Refused("Whisper to someone else: you already know it.")
        if not campaign.memberships.filter(user=to).exists():
            raise Refused("Whisper only to a member of this campaign.")
    mentions = sorted({int(uid) for uid in mentions} - {by.pk})
    if mentions and to is None:
        data["mentions"] = mentions
    return log_append(
        campaign=campaign,
        kind=LogEntry.MESSAGE,
        actor=by,
        data=data,
        visibility=WHISPER if to is not None else PUBLIC,
        recipient=to,
    )
