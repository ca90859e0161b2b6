"""What Mana adds to a character: an empty mana pool per color of the palette and colorless,
its sheet section's context (the pools, traits and the campaign's skills) and its party column
(the pools, for those who see its private side). Called by sheets through the campaign's system
(``campaigns.systems``)."""

from django.db.models import Prefetch

from .forms import TraitsForm
from .models import ManaPool, has_trait, traits_of
from .services import mana_colors


def character_fill(character):
    """A new character's sheet: an empty pool per color and colorless."""
    ManaPool.objects.bulk_create(
        ManaPool(character=character, color=color) for color in mana_colors(character.campaign)
    )


def party_characters(campaign, characters):
    return characters.prefetch_related(Prefetch("mana", queryset=ManaPool.objects.order_by("id")))


def party_row(campaign, character, private):
    """A character's party column: its pools, each color of the palette (only if
    ``private``)."""
    if not private:
        return {}
    return {"mana": pools(campaign, character)}


def section_context(campaign, character, section, *, private):
    """The context of the sheet's "mana" section (``section``: it, or None for the whole
    sheet); its pools only if ``private``."""
    if section not in (None, "mana"):
        return {}
    context = {
        "mana_skills": [
            (skill, has_trait(character, skill.trait)) for skill in campaign.mana_skills.all()
        ],
        "traits": traits_of(character),
        "traits_form": TraitsForm(initial={"traits": ", ".join(traits_of(character))}),
    }
    if private:
        context["mana_pools"] = pools(campaign, character)
    return context


def pools(campaign, character):
    """One pool per color of the campaign, in palette order; a color without a row shows 0/0."""
    by_color = {pool.color: pool for pool in character.mana.all()}
    return [by_color.get(c) or ManaPool(color=c) for c in mana_colors(campaign)]


def export(character):
    """The sheet to take home: the pools, each color of the palette, and the traits."""
    return {
        "mana": [
            {"color": pool.color, "current": pool.current, "maximum": pool.maximum}
            for pool in pools(character.campaign, character)
        ],
        "traits": traits_of(character),
    }
