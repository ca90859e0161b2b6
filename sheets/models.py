from django.conf import settings
from django.db import models
from django.db.models.functions import Lower

from campaigns.models import Campaign


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
    # None once its player deleted their account: the character stays in the campaign, a
    # former member's, which the GM may still edit or hand to a player.
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="characters"
    )
    name = models.CharField(max_length=80)
    concept = models.CharField(max_length=200, blank=True)
    history = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = CharacterQuerySet.as_manager()

    class Meta:
        ordering = ["name", "id"]

    def __str__(self):
        return self.name


class SavedRoll(models.Model):
    """A roll a character's player (the GM, for an NPC) keeps on the sheet to roll with one click
    or with ``/r name`` in the room's box: dice ``notation`` (``rules.notation``'s text), or a
    check of the campaign's system with the ``choices`` its ``saved_check_clean`` kept (JSON;
    ``notation`` then empty). ``target``: the difficulty or TN an NPC's saved check is rolled
    against (None: the click asks for it). The name is its ``/r`` key: unique per character
    whatever its case, and never dice notation itself (``sheets.services.saved_roll_add``)."""

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="saved_rolls")
    name = models.CharField(max_length=40)
    notation = models.CharField(max_length=100, blank=True)
    choices = models.JSONField(null=True, blank=True)
    target = models.PositiveIntegerField(null=True, blank=True)
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(
                Lower("name"), "character", name="saved_roll_name_unique_per_character"
            )
        ]

    def __str__(self):
        return self.name

    @property
    def is_check(self):
        return self.choices is not None
