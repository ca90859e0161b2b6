from django.conf import settings
from django.db import models

from campaigns.models import Campaign
from rules import sheet as pool_sheet


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
    created_at = models.DateTimeField(auto_now_add=True)

    objects = CharacterQuerySet.as_manager()

    class Meta:
        ordering = ["name", "id"]

    def __str__(self):
        return self.name

    # Pool: ratings ----------------------------------------------------------------------------
    def rating(self, attribute, skill=""):
        return self.ratings.filter(attribute=attribute, skill=skill).first()


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
