"""The Fate-style system's own model: a character's skills, each rated on the ladder (+0
Mediocre to +8 Legendary)."""

from django.db import models

from sheets.models import Character

#: The highest rating of a skill (Legendary).
RATING_MAX = 8


class FateSkill(models.Model):
    """A skill of a Fate-style character and its rating; made with the character
    (``sheet.character_fill``)."""

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="fate_skills")
    name = models.CharField(max_length=40)
    rating = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["-rating", "name"]
        constraints = [
            models.UniqueConstraint(fields=["character", "name"], name="fate_skill_once"),
        ]

    def __str__(self):
        return f"{self.name} +{self.rating}"
