"""What the Fate-style system adds to a character: its skills (a ``rolls.systems.Sheet``)."""

from rolls.systems import Sheet

from .models import FateSkill

#: A new character's skills: the peak of Fate's pyramid, Great (+4) down to Average (+1).
PYRAMID = (("Fight", 4), ("Athletics", 3), ("Notice", 3), ("Will", 2), ("Rapport", 1))


class FateSheet(Sheet):
    """A new character's skills, and the sheet's section listing them."""

    @staticmethod
    def character_fill(character):
        FateSkill.objects.bulk_create(
            FateSkill(character=character, name=name, rating=rating) for name, rating in PYRAMID
        )

    @staticmethod
    def section_context(campaign, character, section, *, private):
        return {"fate_skills": list(character.fate_skills.all())}
