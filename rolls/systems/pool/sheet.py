"""What Pool adds to a character: its sheet's first rows (every attribute and fixed skill at 0,
full HP), its sheet section's context (HP, the attributes and their skills) and its party
columns (HP for everyone; free sparetime for those who see its private side). Called by sheets
through the campaign's system (``campaigns.systems``)."""

from django.db.models import IntegerField, OuterRef, Subquery

from rules import sheet as pool_sheet

from .models import PoolSheet, Rating, hp_max_of, settings_of, sheet_of
from .progression import ledger_export, party_free_sparetime


def character_fill(character):
    """A new character's sheet: full HP, every attribute and fixed skill at 0."""
    hp = settings_of(character.campaign).hp_max_for(0)
    character.pool_sheet = PoolSheet.objects.create(character=character, hp_current=hp)
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
    return characters.select_related("pool_sheet").annotate(
        endurance_value=Subquery(endurance, output_field=IntegerField()),
        sum_sparetime=party_free_sparetime(),
    )


def party_row(campaign, character, private):
    """A character's party columns: its HP and their maximum, its free sparetime (None unless
    ``private``)."""
    return {
        "hp_current": sheet_of(character).hp_current,
        "hp_max": settings_of(campaign).hp_max_for(character.endurance_value or 0),
        "sparetime": (character.sum_sparetime or 0) if private else None,
    }


def section_context(campaign, character, section, *, private):
    """The context of the sheet's "pool" section (``section``: it, or None for the whole sheet;
    "sparetime" loads on its own)."""
    if section not in (None, "pool"):
        return {}
    return {
        "attributes": _pool_attributes(character.ratings.all()),
        "hp_current": sheet_of(character).hp_current,
        "hp_max": hp_max_of(character),
    }


def export(character):
    """The sheet to take home: HP, every rating (proposed and declined ones with their
    status) and its sparetime ledger's rows."""
    ratings = character.ratings.order_by("attribute", "skill", "id")
    return {
        "hp_current": sheet_of(character).hp_current,
        "hp_max": hp_max_of(character),
        "ratings": [
            {"attribute": r.attribute, "skill": r.skill, "value": r.value, "status": r.status}
            for r in ratings
        ],
        "sparetime": ledger_export(character),
    }


def _skill_order(seed_skills):
    """Sort key: the rules' skills in the rules' order, then taken and custom ones by name."""
    position = {skill: i for i, skill in enumerate(seed_skills)}
    return lambda r: (position.get(r.skill, len(position)), r.skill.casefold())


def _pool_attributes(ratings):
    """[{"name", "rating", "skills", "templates"}] per attribute, in the rules' order."""
    rows, skills = {}, {attribute: [] for attribute in pool_sheet.ATTRIBUTES}
    for rating in ratings:
        if rating.is_attribute:
            rows[rating.attribute] = rating
        else:
            skills[rating.attribute].append(rating)
    return [
        {
            "name": attribute,
            "rating": rows.get(attribute),
            "skills": sorted(skills[attribute], key=_skill_order(seed)),
            "templates": [
                {
                    "template": t,
                    "blank": pool_sheet.template_blank(t),
                    "label": pool_sheet.template_label(t),
                    "example": pool_sheet.template_example(t),
                }
                for t in pool_sheet.templates(attribute)
            ],
        }
        for attribute, seed in pool_sheet.ATTRIBUTES.items()
    ]
