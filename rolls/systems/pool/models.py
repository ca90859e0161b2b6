"""Pool's own models: a campaign's settings, a character's current HP and what a check binds
and proposes, carried over from columns of ``Campaign``, ``Character`` and ``Check`` (pool 0001,
0002, 0003), and its ratings (``Rating``, from ``sheets``, pool 0004). Its ledger is the
``sparetime`` app."""

from django.db import models

from campaigns.models import Campaign
from rules.sheet import ATTRIBUTES, ENDURANCE
from sheets.models import Character

from ...models import Check
from ..models import own_row

#: Pool's key (``Campaign.system``).
KEY = "pool"


class Rating(models.Model):
    """A Pool attribute (skill == "") or one of its skills, with its rating. Its table keeps the
    name it had in ``sheets`` (pool 0004 moved the model, not the rows)."""

    APPROVED = "approved"
    PENDING = "pending"
    DECLINED = "declined"
    STATUSES = [(APPROVED, "Approved"), (PENDING, "Pending"), (DECLINED, "Declined")]
    ATTRIBUTE_CHOICES = [(a, a) for a in ATTRIBUTES]

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="ratings")
    attribute = models.CharField(max_length=20, choices=ATTRIBUTE_CHOICES)
    skill = models.CharField(max_length=80, blank=True)
    value = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=8, choices=STATUSES, default=APPROVED)
    # A custom skill proposed by a player (pending until the GM greenlights it).
    custom = models.BooleanField(default=False)

    class Meta:
        db_table = "sheets_rating"
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


def rating_of(character, attribute, skill=""):
    """``character``'s rating of ``attribute`` (``skill``: one of its skills), or None."""
    return character.ratings.filter(attribute=attribute, skill=skill).first()


class PoolSettings(models.Model):
    """A Pool campaign's settings: what a point of sparetime buys, the hit points
    (HP max = ``hp_base`` + ``hp_per_endurance`` * Endurance) and who changes them in the room.
    Written by ``campaign_fill`` and the GM's settings; read through ``settings_of``."""

    campaign = models.OneToOneField(
        Campaign, on_delete=models.CASCADE, primary_key=True, related_name="pool_settings"
    )
    attribute_cost = models.PositiveIntegerField(default=1)
    skill_cost = models.PositiveIntegerField(default=1)
    hp_base = models.PositiveIntegerField(default=10)
    hp_per_endurance = models.PositiveIntegerField(default=2)
    #: Whether a player may change their own characters' HP from the room's party (the GM
    #: always may): ``Pool.hp_may_change``.
    players_change_hp = models.BooleanField(default=False)

    class Meta:
        verbose_name_plural = "pool settings"

    def __str__(self):
        return f"{self.campaign} · Pool settings"

    def hp_max_for(self, endurance):
        return self.hp_base + self.hp_per_endurance * endurance

    def raise_cost(self, rating):
        """What raising ``rating`` by one point costs in sparetime."""
        return self.attribute_cost if rating.is_attribute else self.skill_cost


#: The settings, by field name (the create and settings forms' fields).
SETTINGS = ("attribute_cost", "skill_cost", "hp_base", "hp_per_endurance", "players_change_hp")


def settings_of(campaign):
    """``campaign``'s Pool settings: read along with it (``campaign_related``, which
    ``campaigns.access`` joins), else read once; a campaign without a row (made without
    ``campaign_fill``) has the defaults, unsaved."""
    return own_row(PoolSettings, campaign)


class PoolSheet(models.Model):
    """What a Pool character has besides its ratings: its current hit points (the maximum
    follows Endurance: ``hp_max_of``). Written by ``services.hp_set`` (and a new
    character's ``sheet.character_fill``); read through ``sheet_of``."""

    character = models.OneToOneField(
        Character, on_delete=models.CASCADE, primary_key=True, related_name="pool_sheet"
    )
    hp_current = models.IntegerField(default=0)

    def __str__(self):
        return f"{self.character} · HP {self.hp_current}"


def endurance_of(character):
    """``character``'s Endurance (an approved skill of its sheet), or 0."""
    row = character.ratings.filter(skill=ENDURANCE, status=Rating.APPROVED).first()
    return row.value if row else 0


def hp_max_of(character):
    """``character``'s HP maximum: its campaign's HP settings at its Endurance."""
    return settings_of(character.campaign).hp_max_for(endurance_of(character))


def sheet_of(character):
    """``character``'s Pool sheet: read along with it (``character_related``), else read once;
    a character without a row (made without ``character_fill``) has 0 HP, unsaved."""
    return own_row(PoolSheet, character)


class PoolCheck(models.Model):
    """What Pool keeps of a check: the attribute (and skill) of the sheet its suggestion names,
    which its roll must use (``asked_attribute``, ``asked_skill``; empty: the player chooses),
    and a shift put to the GM: the choices kept until the GM answers, then rolled as they are
    (``attribute``, ``skill``, the dice shifted and the bonus effect), or the GM's "no" and why
    (until the next proposal). Made with its check (``services.check_fill``); read along with
    it (``Pool.check_related``, and the shift's ratings with its card: ``card_related``);
    through ``check_of``."""

    check_ref = models.OneToOneField(
        Check, on_delete=models.CASCADE, primary_key=True, related_name="pool_check"
    )
    asked_attribute = models.CharField(max_length=20, blank=True)
    asked_skill = models.CharField(max_length=80, blank=True)
    attribute = models.ForeignKey(
        Rating, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    skill = models.ForeignKey(
        Rating, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    shift_d6 = models.PositiveIntegerField(default=0)
    shift_d10 = models.PositiveIntegerField(default=0)
    bonus_effect = models.CharField(max_length=200, blank=True)
    shift_declined = models.BooleanField(default=False)
    decline_reason = models.CharField(max_length=200, blank=True)

    def __str__(self):
        return f"{self.check_ref} · Pool"


#: What a shift's card and the GM's answer read along with its check: the ratings proposed.
PROPOSAL_RELATED = ("pool_check__attribute", "pool_check__skill")
#: How long a shift's bonus effect and a declined shift's reason may be.
BONUS_MAX = PoolCheck._meta.get_field("bonus_effect").max_length
DECLINE_REASON_MAX = PoolCheck._meta.get_field("decline_reason").max_length


def check_of(check):
    """``check``'s Pool row: read along with it (``check_related``), else read once; a check
    without one (made without ``check_fill``) binds nothing and proposes nothing, unsaved."""
    return own_row(PoolCheck, check)
