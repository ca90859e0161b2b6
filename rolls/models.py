from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import models
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast
from django.utils import timezone

from campaigns.models import Campaign, GameSession
from campaigns.systems import SYSTEMS
from sheets.models import Character

from . import chain

PUBLIC = "public"
PRIVATE = "private"
SECRET = "secret"
VISIBILITIES = [
    (PUBLIC, "Public"),
    (PRIVATE, "Private (roller and GM)"),
    (SECRET, "GM secret"),
]
#: A whisper of table talk: its sender and its one recipient (``LogEntry.recipient``) alone,
#: not even the GM unless the GM is one of them. Nobody else learns of it at all: no stub in a
#: page, no socket frame, no export row, no count (``room.push``, ``insights.reports``).
WHISPER = "whisper"


def entitled(visibility, *, viewer_id, roller_id, gm_id, recipient_id=None):
    """Whether ``viewer_id`` may see the content of something with ``visibility`` rolled (or
    said) by ``roller_id`` in a campaign whose GM is ``gm_id``; a whisper's ``recipient_id``.
    Everything hidden is filtered with this."""
    if visibility == WHISPER:
        return viewer_id in (roller_id, recipient_id)
    if visibility == PUBLIC or viewer_id == gm_id:
        return True
    return visibility == PRIVATE and viewer_id == roller_id


def known_to(viewer_id):
    """The log entries ``viewer_id`` may learn of, as a ``Q``: all but the whispers neither
    theirs nor to them."""
    Q = models.Q
    return ~Q(visibility=WHISPER) | Q(actor_id=viewer_id) | Q(recipient_id=viewer_id)


def place_text(seq, sub):
    """A place in the log as the server's operator reads it: "5", or "5.1" for the first whisper
    after #5 (``verify_rolls``). Members never see a whisper's sub: ``LogEntry.number``."""
    return f"{seq}.{sub}" if sub else str(seq)


def after_place(place):
    """The entries after ``place`` in the log's order, as a ``Q``. The range on ``seq`` comes
    first and alone: read in the log's order with a limit (a replay, an export's batch), the
    index of (campaign, seq, sub) is walked from ``place`` on and stops at the limit, where an
    OR of two ranges makes PostgreSQL gather every later entry and sort them."""
    seq, sub = place
    Q = models.Q
    return Q(seq__gte=seq) & (Q(seq__gt=seq) | Q(sub__gt=sub))


class CheckQuerySet(models.QuerySet):
    def of(self, campaign, *, card=True):
        """The campaign's checks, with the character, its player and its system's rows
        (``character_related``), and the system's own row of the check (``check_related``:
        what the check binds, e.g. Mana's skill, Pool's attribute); with what their cards show
        too (``card_related``, e.g. the ratings of a Pool shift), unless ``card=False``."""
        from .systems import system_of

        system = system_of(campaign)
        related = [*system.check_related, *(system.card_related if card else ())]
        own = [f"character__{name}" for name in system.character_related]
        return self.filter(campaign=campaign).select_related("character__owner", *own, *related)

    def live(self):
        """The checks not closed yet (``Check.is_live``): requested, open, awaiting the GM or
        failed."""
        return self.exclude(status=Check.DONE)


class Check(models.Model):
    """A check the GM asked for, or a player requested, for one character.

    Its life: ``requested`` (a player asked; the GM has not set the number yet) -> ``open`` (the
    player may roll) -> ``shift`` (Pool: a shift awaits the GM's answer) -> ``done``, or
    ``failed`` (Mana: rolled and failed; the GM may allow a re-attempt, which opens it again).
    What its system keeps of it (what it binds the roll to, a shift) is the system's own row,
    one-to-one with the check (``check_fill``, ``check_related``).
    """

    REQUESTED = "requested"
    OPEN = "open"
    SHIFT = "shift"
    FAILED = "failed"
    DONE = "done"
    STATUSES = [
        (REQUESTED, "Requested"),
        (OPEN, "Open"),
        (SHIFT, "Shift awaiting the GM"),
        (FAILED, "Failed"),
        (DONE, "Done"),
    ]

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="checks")
    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="checks")
    session = models.ForeignKey(GameSession, null=True, blank=True, on_delete=models.SET_NULL)
    # None once its maker deleted their account: the check stays with its rolls.
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(max_length=9, choices=STATUSES, default=OPEN)
    visibility = models.CharField(max_length=7, choices=VISIBILITIES, default=PUBLIC)
    # What the check is about, as the GM or player typed it (what it binds the roll to, if
    # anything, is the system's own row of the check: ``check_fill``).
    suggestion = models.CharField(max_length=100, blank=True)
    note = models.CharField(max_length=300, blank=True)
    # The difficulty or TN (the system's ``number``); None while a request awaits the GM.
    target = models.PositiveIntegerField(null=True, blank=True)
    # What the player tries, said with the roll (kept while a proposal awaits the GM).
    intent = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = CheckQuerySet.as_manager()

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["campaign", "status"])]

    def __str__(self):
        return f"Check #{self.pk} for {self.character}"

    @property
    def is_live(self):
        return self.status != self.DONE


class LogEntryQuerySet(models.QuerySet):
    #: What a log entry shows of itself and of who made it (``rolls/_log_entry.html``).
    SHOWN = (
        "campaign_id",
        "seq",
        "sub",
        "kind",
        "session_id",
        "actor__username",
        "character__name",
        "check_ref_id",
        "visibility",
        "recipient_id",
        "data",
        "created_at",
        "prev_hash",
        "hash",
    )

    def shown(self):
        """The entries with what the log shows of them and no more: who rolled and which
        character, by name (a whisper's recipient: ``with_recipients``, once they are read)."""
        return self.select_related("actor", "character").only(*self.SHOWN)

    def shown_to(self, viewer_id):
        """``shown``, of the entries ``viewer_id`` may learn of (``known_to``)."""
        return self.shown().filter(known_to(viewer_id))

    def revealed(self, campaign_id, seqs):
        """The numbers among ``seqs`` of the campaign's secret rolls that were revealed."""
        if not seqs:
            return set()
        return set(self.revealed_seqs(campaign_id).filter(of__in=seqs).values_list("of", flat=True))

    def revealed_seqs(self, campaign_id):
        """The numbers of the campaign's secret rolls that were revealed, as a subquery (a
        reveal's ``of``): once revealed, a roll counts wherever a public one does."""
        of = Cast(KeyTextTransform("of", "data"), models.BigIntegerField())
        reveals = self.filter(campaign_id=campaign_id, kind=LogEntry.REVEAL)
        return reveals.annotate(of=of).values("of")


class LogEntry(models.Model):
    """One line of a campaign's roll log: a roll, a session break, or the reveal of a GM-secret
    roll. Never edited or deleted.

    ``seq`` numbers a campaign's entries 1, 2, 3, ... so that a browser that reconnects can ask
    for exactly what it missed. A whisper takes no number of its own, so that nobody else sees a
    gap where it was: it follows the entry before it as ``sub`` 1, 2, ... of that number, every
    other entry has ``sub`` 0. The log's order is (``seq``, ``sub``). The sub stays on the
    server: it counts every whisper after a number, so it would tell one whisper's ends of the
    others; members see a whisper as one after #5 (``number``: "5+") with an id of its own
    (``anchor``: its fingerprint).

    ``hash`` chains every entry to the one before it and signs it with the log key
    (``rolls.chain``): every stored field is under it, but what is kept beside the data, made
    from it, the outcome of a roll (``OUTCOME``) and the entry's cells in the CSV export
    (``cells``), which ``rolls.services.log_verify`` checks against it. The campaign
    keeps the head (the last entry's place and its hash) apart from the entries, so that
    ``rolls.services.log_verify`` finds an entry altered, inserted or deleted, the last included.

    A GM-secret roll's data also holds a salt and the commitment to its result
    (``rolls.chain.seal``): players see the commitment at once, and the result and the salt when
    the GM reveals the roll with a ``reveal`` entry (data: ``of``, the secret roll's number, its
    ``result``, ``salt`` and ``commitment``).
    """

    ROLL = "roll"
    SESSION_START = "session_start"
    SESSION_END = "session_end"
    REVEAL = "reveal"
    #: A roll typed in dice notation (``rules.notation``), of no check and no system.
    FREE = "free_roll"
    #: Table talk: a message to everyone, or a whisper (``WHISPER``) to one member.
    MESSAGE = "message"
    #: The GM revealed the dice seed early (data: ``seed``, the one revealed; ``dice``, the
    #: commitment of the next), as a session's start and end do (``rolls.dice``).
    DICE = "dice_seed"
    #: The GM showed a scene (``scene``; data: ``scene``, its id, and ``name``).
    SCENE = "scene"
    #: The initiative order started, moved to the next turn, or ended (``scene``; data:
    #: ``action``, one of ``start``, ``turn``, ``end``, with ``round`` and ``name``).
    TURNS = "turns"
    #: A character's HP changed from the room (data: ``name``, ``before``, ``after``).
    HP = "hp"
    KINDS = [
        (ROLL, "Roll"),
        (SESSION_START, "Session start"),
        (SESSION_END, "Session end"),
        (REVEAL, "Reveal"),
        (FREE, "Free roll"),
        (MESSAGE, "Message"),
        (DICE, "Dice seed"),
        (SCENE, "Scene"),
        (TURNS, "Initiative"),
        (HP, "HP"),
    ]
    #: The entries that announce the next dice seed's commitment (``data["dice"]``).
    ANNOUNCE_DICE = (SESSION_START, SESSION_END, DICE)
    #: The kinds whose dice count: a check's roll, a free roll.
    ROLLS = (ROLL, FREE)

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="log")
    seq = models.PositiveBigIntegerField()
    sub = models.PositiveIntegerField(default=0)
    kind = models.CharField(max_length=13, choices=KINDS, default=ROLL)
    session = models.ForeignKey(GameSession, null=True, blank=True, on_delete=models.SET_NULL)
    # The ids of who made the entry, of which character and check, and of a whisper's
    # recipient are under the hash as written (``rolls.chain.entry_fields``): they stay when
    # the row they name goes (a member deleted their account), with no constraint to clear or
    # refuse them. Were they set to NULL, as ``SET_NULL`` would, every hash from that entry on
    # would stop verifying. A name whose row is gone is shown as a former member's
    # (``core.templatetags.text.member``; ``select_related`` reads such a row as None).
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
    )
    character = models.ForeignKey(
        Character,
        null=True,
        blank=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
    )
    check_ref = models.ForeignKey(
        Check,
        null=True,
        blank=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="rolls",
    )
    visibility = models.CharField(
        max_length=7, choices=[*VISIBILITIES, (WHISPER, "Whisper")], default=PUBLIC
    )
    # A whisper's one recipient (under the hash when set, ``rolls.chain.entry_fields``).
    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        related_name="+",
    )
    data = models.JSONField(default=dict)
    # Set before the hash is computed (the hash covers it), not when the row is saved.
    created_at = models.DateTimeField(default=timezone.now)
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)
    # What a roll's data says of its outcome, kept beside it for the insight pages to count
    # without reading every roll's data (``outcome_fields``, written with the entry). They are
    # not under the hash: the data they come from is, and ``log_verify`` checks they agree.
    success = models.BooleanField(null=True, editable=False)
    chance = models.TextField(blank=True, default="", editable=False)
    target = models.IntegerField(null=True, editable=False)
    pool = models.CharField(max_length=40, blank=True, default="", editable=False)
    shown = models.IntegerField(null=True, editable=False)
    # What the entry says in the CSV export, as CSV text (``rolls.export.cells_text``, written
    # with the entry): an export of a long log copies it instead of reading every entry's data.
    # Not under the hash either: ``log_verify`` checks it against the data.
    cells = models.TextField(blank=True, default="", editable=False)

    #: The fields ``outcome_fields`` derives from the data.
    OUTCOME = ("success", "chance", "target", "pool", "shown")

    objects = LogEntryQuerySet.as_manager()

    class Meta:
        ordering = ["seq", "sub"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "seq", "sub"], name="unique_log_place"),
        ]
        indexes = [
            # Most of what luck, tuning and the distributions count (the chance aside: its text,
            # ``rules.odds``, may run to 241 characters), read from the index, not the rows with
            # their data.
            models.Index(
                fields=[
                    "campaign",
                    "kind",
                    "visibility",
                    "actor",
                    "character",
                    "session",
                    "success",
                    "target",
                    "pool",
                    "shown",
                ],
                name="log_outcome",
            ),
        ]

    def __str__(self):
        return f"#{self.number} {self.kind}"

    @property
    def place(self):
        """Where the entry stands in the log: (``seq``, ``sub``)."""
        return (self.seq, self.sub)

    @property
    def number(self):
        """The entry's number as members see it: "5", a whisper after #5 "5+"."""
        return f"{self.seq}+" if self.sub else str(self.seq)

    @property
    def anchor(self):
        """The entry's element id in the room: "entry-5", a whisper after #5 "entry-5-" and its
        fingerprint."""
        return f"entry-{self.seq}-{self.fingerprint}" if self.sub else f"entry-{self.seq}"

    def compute_hash(self, key=None):
        """The hash this entry should have after ``prev_hash`` (``key``: the log key, read once by
        a caller that hashes many entries)."""
        return chain.entry_hash(self.prev_hash, chain.entry_fields(self), key)

    @property
    def fingerprint(self):
        """The log's fingerprint once this entry is its last: the start of its hash."""
        return self.hash[:12]

    @property
    def commitment(self):
        """A secret roll's (or its reveal's) commitment, or ""."""
        return self.data.get("commitment", "") if isinstance(self.data, dict) else ""

    @property
    def reveal_matches(self):
        """A reveal: whether its result and salt hash to the commitment it shows."""
        data = self.data
        return chain.commitment(data.get("result"), data.get("salt")) == data.get("commitment")

    @property
    def reveal_preimage(self):
        """A reveal: what anyone can hash with sha256 to find the commitment again."""
        return chain.preimage(self.data.get("result"), self.data.get("salt"))

    def visible_to(self, viewer_id, gm_id):
        return entitled(
            self.visibility,
            viewer_id=viewer_id,
            roller_id=self.actor_id,
            gm_id=gm_id,
            recipient_id=self.recipient_id,
        )


def with_recipients(entries):
    """``entries`` (a list), each whisper's recipient read (their names, one query, none when
    there is no whisper among them; None for a former member, who deleted their account)."""
    # Prefetched, not assigned: a recipient who is gone reads as None while the entry keeps
    # their id (under its hash), where assigning None would clear the id with it.
    whispers = [entry for entry in entries if entry.recipient_id]
    users = get_user_model().objects.only("username")
    models.prefetch_related_objects(whispers, models.Prefetch("recipient", queryset=users))
    return entries


#: ``outcome_fields``' ``rolled`` when its caller did not read the dice: the system does.
ASK_THE_SYSTEM = object()


def outcome_fields(kind, data, rolled=ASK_THE_SYSTEM):
    """What a log entry's ``data`` says of its outcome, as its ``LogEntry.OUTCOME`` fields hold
    it: for a roll (a free roll too), whether it succeeded, its exact chance (as stored), its
    target and what its system reads of its dice (a free roll: nothing), ``rolled``: (the
    pool rolled, as text; what it showed), None for nothing to chart, or by default the
    system's ``rolled(data)`` (none: nothing); for any other entry, nothing."""
    none = {"success": None, "chance": "", "target": None, "pool": "", "shown": None}
    if kind not in LogEntry.ROLLS or not isinstance(data, dict):
        return none
    if kind == LogEntry.FREE:
        rolled = None  # no system reads its dice
    elif rolled is ASK_THE_SYSTEM:
        system = SYSTEMS.get(data.get("system"))
        read = system.rolled if system is not None else None  # None: the system keeps nothing
        rolled = read(data) if read is not None else None
    pool, shown = rolled or ("", None)
    success, target = data.get("success"), data.get("target")
    return {
        "success": None if success is None else bool(success),
        "chance": str(data.get("chance", "")),
        "target": target if type(target) is int else None,
        "pool": pool,
        "shown": shown,
    }


class DiceSeedQuerySet(models.QuerySet):
    def open_of(self, campaign):
        """The campaign's open seed (not revealed), or None: there is at most one."""
        return self.filter(campaign=campaign, revealed_at__isnull=True).first()


class DiceSeed(models.Model):
    """A campaign's secret dice seed (``rules.fair``): every roll's dice come from the open one
    with the roller's contribution and the roll's place in the log (``rolls.dice``). Everyone
    sees its commitment before it is used; it is revealed, and the next one committed, when a
    session starts or ends or the GM reveals it early. One open (not revealed) per campaign. The
    seed never leaves the server before it is revealed."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="dice_seeds")
    seed = models.CharField(max_length=64)
    commitment = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    revealed_at = models.DateTimeField(null=True, blank=True)

    objects = DiceSeedQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign"],
                condition=models.Q(revealed_at__isnull=True),
                name="one_open_dice_seed",
            ),
        ]

    def __str__(self):
        return f"dice seed {self.commitment[:12]} of {self.campaign_id}"


class Presence(models.Model):
    """An open websocket of a member in a campaign's room (one row per socket). Its socket
    refreshes ``seen_at`` while it is open; a row not seen for a while is a socket gone without
    saying so (its process died) and no longer counts (room.consumers)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="presence")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    channel_name = models.CharField(max_length=200, unique=True)
    connected_at = models.DateTimeField(auto_now_add=True)
    seen_at = models.DateTimeField(default=timezone.now)

    def __str__(self):
        return f"{self.user} in {self.campaign}"
