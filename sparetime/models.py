from django.conf import settings
from django.db import models

from campaigns.models import Campaign, GameSession
from rolls.systems.pool.models import Rating
from sheets.models import Character


class SparetimeEntry(models.Model):
    """The append-only sparetime ledger. Rows are never edited or deleted.

    - grant / award: +amount to ``character`` (free sparetime).
    - delegate: +amount to ``player``, who may hand it out to other players' characters.
    - handout: ``player`` gives +amount to ``character``, earmarked for ``targets``; it counts
      against the player's delegation and is spent through ``source``.
    - spend: -amount from ``character``; ``source`` is the handout it draws on (None: free). A
      raise is one: ``rating`` ``from_value`` → ``to_value``, ``points`` (1 for a Raise button,
      more for a build of that rating alone); a build of several ratings is one as well, its
      ratings in its ``lines`` (``SparetimeLine``, ``rating`` None), ``points`` their sum.
      ``changes`` reads either way.
    - undo / reversal: the counter-entry of the row it ``reverses`` (a player's undo of their
      character's last raise, or the GM's reversal of any row): the opposite amount, with that
      row's ``character``, ``player`` and ``source`` (of a hand-out: the hand-out itself), so every
      balance the row counted in loses it again. Of a spend, it also records the rating set back
      (``from_value`` → ``to_value``, or its lines', each set back), with its ``points``. A row is
      reversed at most once (the one-to-one field), and a counter-entry is never reversed.

    Balances are derived from the rows (``sparetime.services``), never stored.
    """

    GRANT = "grant"
    AWARD = "award"
    DELEGATE = "delegate"
    HANDOUT = "handout"
    SPEND = "spend"
    UNDO = "undo"
    REVERSAL = "reversal"
    #: The counter-entries' kinds.
    COUNTERS = (UNDO, REVERSAL)
    KINDS = [
        (GRANT, "Starting grant"),
        (AWARD, "Session award"),
        (DELEGATE, "Delegation"),
        (HANDOUT, "Hand-out"),
        (SPEND, "Spend"),
        (UNDO, "Undo"),
        (REVERSAL, "Reversal"),
    ]

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="sparetime")
    kind = models.CharField(max_length=8, choices=KINDS)
    amount = models.IntegerField()
    character = models.ForeignKey(
        Character, null=True, blank=True, on_delete=models.CASCADE, related_name="sparetime"
    )
    # A delegation's player, a hand-out's giver; None once they deleted their account (the
    # ledger keeps every row: a balance is its sum).
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="delegated_sparetime",
    )
    source = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.RESTRICT, related_name="spends"
    )
    targets = models.ManyToManyField(Rating, blank=True, related_name="earmarks")
    rating = models.ForeignKey(
        Rating, null=True, blank=True, on_delete=models.RESTRICT, related_name="spends"
    )
    from_value = models.PositiveIntegerField(null=True, blank=True)
    to_value = models.PositiveIntegerField(null=True, blank=True)
    #: How many rating points the row raises (or sets back): 1 but for builds.
    points = models.PositiveIntegerField(default=1)
    reverses = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.RESTRICT, related_name="reversal"
    )
    session = models.ForeignKey(GameSession, null=True, blank=True, on_delete=models.SET_NULL)
    note = models.CharField(max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # The ledger began inside the sheets app; its tables keep their names (this one and
        # sheets_sparetimeentry_targets), so no database has to copy its rows.
        db_table = "sheets_sparetimeentry"
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "sparetime entries"
        constraints = [
            # A session's award reaches a character once (sparetime_award refuses a second one
            # first, with a sentence; this holds whatever writes the rows).
            models.UniqueConstraint(
                fields=["session", "character"],
                condition=models.Q(kind="award"),
                name="one_award_per_session_and_character",
            ),
        ]

    def __str__(self):
        return f"{self.get_kind_display()} {self.amount:+d}"

    @property
    def changes(self):
        """[(rating, from_value, to_value)] the row raised or set back: its rating's, or its
        lines' (a build of several ratings; prefetch ``lines__rating`` when reading many)."""
        if self.rating_id is not None:
            return [(self.rating, self.from_value, self.to_value)]
        if self.kind not in (self.SPEND, *self.COUNTERS):
            return []
        return [(line.rating, line.from_value, line.to_value) for line in self.lines.all()]


class SparetimeLine(models.Model):
    """One rating of a ledger row that raises several at once (a build), or sets them back (its
    undo or reversal): ``from_value`` → ``to_value``. Written with its row, never changed."""

    entry = models.ForeignKey(SparetimeEntry, on_delete=models.CASCADE, related_name="lines")
    rating = models.ForeignKey(Rating, on_delete=models.RESTRICT, related_name="+")
    from_value = models.PositiveIntegerField()
    to_value = models.PositiveIntegerField()

    class Meta:
        ordering = ["id"]

    def __str__(self):
        return f"{self.rating.label} {self.from_value} → {self.to_value}"
