from django.conf import settings
from django.db import models

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
