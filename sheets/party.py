"""The party: every character at the table with its player and what its viewer may see of it:
HP (Pool) for everyone; mana pools (Mana) or free sparetime (Pool) for those who see the
character's private side (``campaigns.access.sees_private``: its player and the GM). One context
(:func:`party_context`) and one template (``sheets/_party.html``), on the campaign page and in
the room; the template fetches itself again when a facts push arrives (``rolls.push``)."""

from django.db.models import IntegerField, OuterRef, Prefetch, Subquery

from campaigns.access import sees_private
from rules import sheet as pool_sheet

from .models import Character, ManaPool, Rating
from .services import mana_colors

#: What the party sums over each character's rows of an app above sheets, which sheets does not
#: import, for a Pool campaign: row key -> a function returning the aggregate (on Character).
#: Filled at that app's ready() (sparetime: "sparetime", the character's free sparetime); shown
#: only to those who see the character's private side (None for the others).
POOL_SUMS = {}


def party_rows(campaign):
    """[{"character", "private", "hp_max", "sparetime", "mana"}] for the characters the viewer
    of ``campaign`` may look at (``Character.objects.visible_to``), in two queries."""
    characters = Character.objects.visible_to(campaign).select_related("owner")
    if campaign.is_pool:
        endurance = Rating.objects.filter(
            character=OuterRef("pk"), skill=pool_sheet.ENDURANCE, status=Rating.APPROVED
        ).values("value")[:1]
        sums = {f"sum_{key}": aggregate() for key, aggregate in POOL_SUMS.items()}
        characters = characters.annotate(
            endurance_value=Subquery(endurance, output_field=IntegerField()), **sums
        )
    else:
        characters = characters.prefetch_related(
            Prefetch("mana", queryset=ManaPool.objects.order_by("id"))
        )
    colors = mana_colors(campaign)
    rows = []
    for character in characters:
        private = sees_private(campaign, character)
        row = {"character": character, "private": private}
        if campaign.is_pool:
            row["hp_max"] = campaign.hp_max_for(character.endurance_value or 0)
            for key in POOL_SUMS:
                row[key] = (getattr(character, f"sum_{key}") or 0) if private else None
        elif private:
            pools = {pool.color: pool for pool in character.mana.all()}
            row["mana"] = [pools.get(c) or ManaPool(color=c) for c in colors]
        rows.append(row)
    return rows


def party_context(campaign):
    return {"campaign": campaign, "party": party_rows(campaign), "gm_id": campaign.gm_id()}
