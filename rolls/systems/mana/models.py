"""Mana's own models: a campaign's settings (its palette) and skills, a character's traits and
mana pools, the skill a check is for. The skills and pools moved here from ``campaigns`` and
``sheets`` keeping their tables (``db_table``), the palette, the traits and a check's skill from
columns of ``Campaign``, ``Character`` and ``Check`` (their rows carried over), as the
migrations say."""

from django.db import models
from django.db.models import Q

from campaigns.models import Campaign
from sheets.models import Character

from ...models import Check
from ..models import own_row

#: The color every pool has besides the palette's; two of it count as one colored mana.
COLORLESS = "colorless"
#: A new campaign's palette, unless its GM types another.
DEFAULT_PALETTE = ["white", "blue", "black", "red", "green"]


def default_palette():
    return list(DEFAULT_PALETTE)


class ManaSettings(models.Model):
    """A Mana campaign's settings: its palette of colors (colorless is always there besides).
    Written by ``campaign_fill`` and the GM's settings; read through ``settings_of``."""

    campaign = models.OneToOneField(
        Campaign, on_delete=models.CASCADE, primary_key=True, related_name="mana_settings"
    )
    palette = models.JSONField(default=default_palette)

    class Meta:
        verbose_name_plural = "mana settings"

    def __str__(self):
        return f"{self.campaign} · {', '.join(self.palette)}"


def settings_of(campaign):
    """``campaign``'s Mana settings: read along with it (``campaign_related``, which
    ``campaigns.access`` joins), else read once; a campaign without a row (made without
    ``campaign_fill``) has the defaults, unsaved."""
    return own_row(ManaSettings, campaign)


def palette_of(campaign):
    """``campaign``'s palette, in order."""
    return settings_of(campaign).palette


class ManaSkill(models.Model):
    """A skill of a Mana campaign: exactly two distinct colors, an optional trait."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="mana_skills")
    name = models.CharField(max_length=60)
    color_a = models.CharField(max_length=30)
    color_b = models.CharField(max_length=30)
    trait = models.CharField(max_length=60, blank=True)

    class Meta:
        db_table = "campaigns_manaskill"
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "name"], name="unique_mana_skill_name"),
        ]

    def __str__(self):
        return self.name


class ManaPool(models.Model):
    """One color of a character's non-combat mana pool (colorless is the color "colorless")."""

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="mana")
    color = models.CharField(max_length=30)
    current = models.PositiveIntegerField(default=0)
    maximum = models.PositiveIntegerField(default=0)

    class Meta:
        db_table = "sheets_manapool"
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


class ManaSheet(models.Model):
    """What a Mana character has besides its pools: its traits (a skill naming one of them earns
    trait dice). Written by ``services.traits_set``; read through ``sheet_of``."""

    character = models.OneToOneField(
        Character, on_delete=models.CASCADE, primary_key=True, related_name="mana_sheet"
    )
    traits = models.JSONField(default=list, blank=True)

    def __str__(self):
        return f"{self.character} · {', '.join(self.traits)}"


def sheet_of(character):
    """``character``'s Mana sheet: read along with it (``character_related``), else read once;
    a character without a row (no traits set yet) has none, unsaved."""
    return own_row(ManaSheet, character)


def traits_of(character):
    """``character``'s traits, in order."""
    return sheet_of(character).traits


def has_trait(character, trait):
    """Whether ``character`` has ``trait`` (in any case)."""
    return bool(trait) and trait.casefold() in {t.casefold() for t in traits_of(character)}


class ManaCheck(models.Model):
    """What Mana keeps of a check: its skill, the one asked (None: any) or, once rolled, the
    one its first attempt rolled (a re-attempt keeps it). Made with its check
    (``services.check_fill``); read along with it (``Mana.check_related``); through
    ``check_of``. A skill deleted leaves its checks open to any skill."""

    check_ref = models.OneToOneField(
        Check, on_delete=models.CASCADE, primary_key=True, related_name="mana_check"
    )
    skill = models.ForeignKey(ManaSkill, null=True, blank=True, on_delete=models.SET_NULL)

    def __str__(self):
        return f"{self.check_ref} · {self.skill or 'any skill'}"


def check_of(check):
    """``check``'s Mana row: read along with it (``check_related``), else read once; a check
    without one (made without ``check_fill``) is for any skill, unsaved."""
    return own_row(ManaCheck, check)
