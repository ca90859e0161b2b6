"""Pool's own models: a campaign's settings and a character's current HP, carried over from
columns of ``Campaign`` and ``Character`` (pool 0001, 0002). Its ratings are ``sheets.Rating``,
its ledger the ``sparetime`` app."""

from django.db import models

from campaigns.models import Campaign
from sheets.models import Character


class PoolSettings(models.Model):
    """A Pool campaign's settings: what a point of sparetime buys, and the hit points
    (HP max = ``hp_base`` + ``hp_per_endurance`` * Endurance). Written by ``campaign_fill`` and
    the GM's settings; read through ``settings_of``."""

    campaign = models.OneToOneField(
        Campaign, on_delete=models.CASCADE, primary_key=True, related_name="pool_settings"
    )
    attribute_cost = models.PositiveIntegerField(default=1)
    skill_cost = models.PositiveIntegerField(default=1)
    hp_base = models.PositiveIntegerField(default=10)
    hp_per_endurance = models.PositiveIntegerField(default=2)

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
SETTINGS = ("attribute_cost", "skill_cost", "hp_base", "hp_per_endurance")


def settings_of(campaign):
    """``campaign``'s Pool settings: read along with it (``campaign_related``, which
    ``campaigns.access`` joins), else read once; a campaign without a row (made without
    ``campaign_fill``) has the defaults, unsaved."""
    try:
        return campaign.pool_settings
    except PoolSettings.DoesNotExist:
        return PoolSettings(campaign=campaign)


class PoolSheet(models.Model):
    """What a Pool character has besides its ratings: its current hit points (the maximum
    follows Endurance: ``Character.hp_max``). Written by ``services.hp_set`` (and a new
    character's ``sheet.character_fill``); read through ``sheet_of``."""

    character = models.OneToOneField(
        Character, on_delete=models.CASCADE, primary_key=True, related_name="pool_sheet"
    )
    hp_current = models.IntegerField(default=0)

    def __str__(self):
        return f"{self.character} · HP {self.hp_current}"


def sheet_of(character):
    """``character``'s Pool sheet: read along with it (``character_related``), else read once;
    a character without a row (made without ``character_fill``) has 0 HP, unsaved."""
    try:
        return character.pool_sheet
    except PoolSheet.DoesNotExist:
        return PoolSheet(character=character)
