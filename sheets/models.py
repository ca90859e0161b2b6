from django.conf import settings
from django.db import models
from django.db.models import Q, Sum

from campaigns.models import Campaign, GameSession
from campaigns.writes import Refused
from rolls.rules import sheet as pool_sheet

COLORLESS = "colorless"


class CharacterQuerySet(models.QuerySet):
    def visible_to(self, campaign):
        """The campaign's characters its viewer (``campaign.viewer``, from ``campaign_for``) may
        look at: every one for the GM; for a player, all but the GM's own (the NPCs)."""
        characters = self.filter(campaign=campaign)
        if campaign.viewer.is_gm:
            return characters
        return characters.exclude(owner_id=campaign.gm_id())


class Character(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="characters")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="characters"
    )
    name = models.CharField(max_length=80)
    concept = models.CharField(max_length=200, blank=True)
    history = models.TextField(blank=True)
    # Mana system: the character's traits (a skill naming one of them earns trait dice).
    traits = models.JSONField(default=list, blank=True)
    # Pool system: current hit points (the maximum follows Endurance).
    hp_current = models.IntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = CharacterQuerySet.as_manager()

    class Meta:
        ordering = ["name", "id"]

    def __str__(self):
        return self.name

    def has_trait(self, trait):
        return bool(trait) and trait.casefold() in {t.casefold() for t in self.traits}

    # Pool: ratings ----------------------------------------------------------------------------
    def rating(self, attribute, skill=""):
        return self.ratings.filter(attribute=attribute, skill=skill).first()

    @property
    def endurance(self):
        row = self.ratings.filter(skill=pool_sheet.ENDURANCE, status=Rating.APPROVED).first()
        return row.value if row else 0

    @property
    def hp_max(self):
        return self.campaign.hp_max_for(self.endurance)

    def set_hp_current(self, value):
        """Damage and healing at the table: current HP lies in 0..hp_max."""
        hp_max = self.hp_max
        if not 0 <= value <= hp_max:
            raise Refused(f"Current HP lies between 0 and {hp_max}.")
        self.hp_current = value
        self.save(update_fields=["hp_current"])

    # Mana: traits -------------------------------------------------------------------------------
    def set_traits(self, traits):
        """Replace the traits; blanks are dropped and a trait repeated in any case kept once."""
        kept = {}
        for trait in traits:
            trait = " ".join(trait.split())
            if trait:
                kept.setdefault(trait.casefold(), trait)
        self.traits = list(kept.values())
        self.save(update_fields=["traits"])

    # Sparetime: balances are always derived from the ledger --------------------------------------
    def free_sparetime(self):
        """Sparetime the character may spend on anything."""
        total = (
            SparetimeEntry.objects.filter(character=self, source__isnull=True)
            .exclude(kind=SparetimeEntry.HANDOUT)
            .aggregate(total=Sum("amount"))["total"]
        )
        return total or 0

    def earmarked_sparetime(self):
        """Handed-out portions with what is left of each: [(handout entry, remaining), ...]."""
        handouts = list(
            SparetimeEntry.objects.filter(character=self, kind=SparetimeEntry.HANDOUT)
            .annotate(spent=Sum("spends__amount"))
            .prefetch_related("targets")
            .order_by("created_at", "id")
        )
        return [(h, h.amount + (h.spent or 0)) for h in handouts]


class Rating(models.Model):
    """A Pool attribute (skill == "") or one of its skills, with its rating."""

    APPROVED = "approved"
    PENDING = "pending"
    DECLINED = "declined"
    STATUSES = [(APPROVED, "Approved"), (PENDING, "Pending"), (DECLINED, "Declined")]
    ATTRIBUTE_CHOICES = [(a, a) for a in pool_sheet.ATTRIBUTES]

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="ratings")
    attribute = models.CharField(max_length=20, choices=ATTRIBUTE_CHOICES)
    skill = models.CharField(max_length=80, blank=True)
    value = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=8, choices=STATUSES, default=APPROVED)
    # A custom skill proposed by a player (pending until the GM greenlights it).
    custom = models.BooleanField(default=False)

    class Meta:
        ordering = ["attribute", "skill"]
        constraints = [
            models.UniqueConstraint(
                fields=["character", "attribute", "skill"], name="unique_rating_per_character"
            ),
        ]

    def __str__(self):
        return self.label

    @property
    def is_attribute(self):
        return self.skill == ""

    @property
    def label(self):
        return self.skill or self.attribute

    @property
    def die(self):
        return "d6" if self.is_attribute else "d10"

    @property
    def is_approved(self):
        """Only approved ratings can be rated, raised or rolled."""
        return self.status == self.APPROVED


class ManaPool(models.Model):
    """One color of a character's non-combat mana pool (colorless is the color "colorless")."""

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="mana")
    color = models.CharField(max_length=30)
    current = models.PositiveIntegerField(default=0)
    maximum = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["character", "color"], name="unique_pool_color"),
            models.CheckConstraint(
                condition=Q(current__lte=models.F("maximum")), name="mana_current_within_max"
            ),
        ]

    def __str__(self):
        return f"{self.color} {self.current}/{self.maximum}"

    def set_maximum(self, maximum):
        """Set the maximum; a current amount above it drops to it."""
        self.maximum = maximum
        self.current = min(self.current, maximum)
        self.save(update_fields=["current", "maximum"])


class SparetimeEntry(models.Model):
    """The append-only sparetime ledger. Rows are never edited or deleted.

    - grant / award: +amount to ``character`` (free sparetime).
    - delegate: +amount to ``player``, who may hand it out to other players' characters.
    - handout: ``player`` gives +amount to ``character``, earmarked for ``targets``; it counts
      against the player's delegation and is spent through ``source``.
    - spend: -amount from ``character``; ``source`` is the handout it draws on (None: free).
    """

    GRANT = "grant"
    AWARD = "award"
    DELEGATE = "delegate"
    HANDOUT = "handout"
    SPEND = "spend"
    KINDS = [
        (GRANT, "Starting grant"),
        (AWARD, "Session award"),
        (DELEGATE, "Delegation"),
        (HANDOUT, "Hand-out"),
        (SPEND, "Spend"),
    ]

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="sparetime")
    kind = models.CharField(max_length=8, choices=KINDS)
    amount = models.IntegerField()
    character = models.ForeignKey(
        Character, null=True, blank=True, on_delete=models.CASCADE, related_name="sparetime"
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="delegated_sparetime",
    )
    source = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="spends"
    )
    targets = models.ManyToManyField(Rating, blank=True, related_name="earmarks")
    rating = models.ForeignKey(
        Rating, null=True, blank=True, on_delete=models.PROTECT, related_name="spends"
    )
    from_value = models.PositiveIntegerField(null=True, blank=True)
    to_value = models.PositiveIntegerField(null=True, blank=True)
    session = models.ForeignKey(GameSession, null=True, blank=True, on_delete=models.SET_NULL)
    note = models.CharField(max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "sparetime entries"

    def __str__(self):
        return f"{self.get_kind_display()} {self.amount:+d}"

    @classmethod
    def delegation_left(cls, campaign, player):
        """What ``player`` may still hand out in ``campaign``."""
        rows = cls.objects.filter(campaign=campaign, player=player)
        given = rows.filter(kind=cls.DELEGATE).aggregate(t=Sum("amount"))["t"] or 0
        handed = rows.filter(kind=cls.HANDOUT).aggregate(t=Sum("amount"))["t"] or 0
        return given - handed
