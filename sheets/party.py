"""The party: every character at the table with its player and what its viewer may see of it:
HP (Pool) for everyone; mana pools (Mana) or free sparetime (Pool) for those who see the
character's private side (``campaigns.access.sees_private``: its player and the GM). One context
(:func:`party_context`) and one template (``sheets/_party.html``), on the campaign page and in
the room; the template fetches itself again when a facts push arrives (``rolls.push``)."""

from django.db.models import IntegerField, OuterRef, Prefetch, Q, Subquery, Sum

from campaigns.access import sees_private
from rules import sheet as pool_sheet

from .models import Character, ManaPool, Rating
from .services import mana_colors


def party_rows(campaign):
    """[{"character", "private", "hp_max", "sparetime", "mana"}] for the characters the viewer
    of ``campaign`` may look at (``Character.objects.visible_to``), in two queries."""
    from sparetime.models import SparetimeEntry

    characters = Character.objects.visible_to(campaign).select_related("owner")
    if campaign.is_pool:
        endurance = Rating.objects.filter(
            character=OuterRef("pk"), skill=pool_sheet.ENDURANCE, status=Rating.APPROVED
        ).values("value")[:1]
        free = Q(sparetime__source__isnull=True) & ~Q(sparetime__kind=SparetimeEntry.HANDOUT)
        characters = characters.annotate(
            endurance_value=Subquery(endurance, output_field=IntegerField()),
            free_sparetime=Sum("sparetime__amount", filter=free),
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
            row["sparetime"] = (character.free_sparetime or 0) if private else None
        elif private:
            pools = {pool.color: pool for pool in character.mana.all()}
            row["mana"] = [pools.get(c) or ManaPool(color=c) for c in colors]
        rows.append(row)
    return rows


def party_context(campaign):
    return {"campaign": campaign, "party": party_rows(campaign), "gm_id": campaign.gm_id()}
