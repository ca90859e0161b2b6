"""What Pool adds to a character: its sheet's first rows (every attribute and fixed skill at 0,
full HP) and its party columns (HP for everyone; free sparetime for those who see its private
side). Called by sheets through the campaign's system (``campaigns.systems``)."""

from django.db.models import IntegerField, OuterRef, Subquery

from rules import sheet as pool_sheet
from sheets.models import Rating
from sparetime.services import party_free_sparetime


def character_fields(campaign):
    """A new character's own fields: it starts at full HP."""
    return {"hp_current": campaign.hp_max_for(0)}


def character_fill(character):
    """A new character's sheet: every attribute and fixed skill at 0."""
    Rating.objects.bulk_create(
        Rating(character=character, attribute=attribute, skill=skill)
        for attribute in pool_sheet.ATTRIBUTES
        for skill in ["", *pool_sheet.fixed_skills(attribute)]
    )


def party_characters(campaign, characters):
    """The party's characters with what its rows show: their Endurance (HP) and free
    sparetime."""
    endurance = Rating.objects.filter(
        character=OuterRef("pk"), skill=pool_sheet.ENDURANCE, status=Rating.APPROVED
    ).values("value")[:1]
    return characters.annotate(
        endurance_value=Subquery(endurance, output_field=IntegerField()),
        sum_sparetime=party_free_sparetime(),
    )


def party_row(campaign, character, private):
    """A character's party columns: its HP maximum, its free sparetime (None unless
    ``private``)."""
    return {
        "hp_max": campaign.hp_max_for(character.endurance_value or 0),
        "sparetime": (character.sum_sparetime or 0) if private else None,
    }
