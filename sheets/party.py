"""The party: every character at the table with its player and what its viewer may see of it,
as the campaign's system says (its ``sheet``: ``party_characters`` reads what its columns show,
``party_row`` gives them; e.g. HP for everyone, mana pools or free sparetime for those who see
the character's private side, ``campaigns.access.sees_private``: its player and the GM). One
context (:func:`party_context`) and one template (``sheets/_party.html``), on the campaign page
and in the room; the template fetches itself again when a facts push arrives (``room.push``)."""

from campaigns.access import sees_private
from campaigns.systems import system_of

from .models import Character


def party_rows(campaign):
    """[{"character", "private", "hp_edit", and the system's columns}] for the characters the
    viewer of ``campaign`` may look at (``Character.objects.visible_to``), in two queries;
    ``hp_edit``: the viewer may change its HP from the party (the system's ``hp_may_change``:
    never in a system without HP)."""
    system = system_of(campaign)
    sheet = system.sheet
    characters = Character.objects.visible_to(campaign).select_related("owner")
    rows = []
    for character in sheet.party_characters(campaign, characters):
        private = sees_private(campaign, character)
        hp_edit = system.hp_change is not None and system.hp_may_change(campaign, character)
        row = {"character": character, "private": private, "hp_edit": hp_edit}
        row.update(sheet.party_row(campaign, character, private))
        rows.append(row)
    return rows


def party_context(campaign):
    """The party's context; its columns are the system's (``party_head``, ``party_cells``)."""
    return {
        "campaign": campaign,
        "system": system_of(campaign),
        "party": party_rows(campaign),
        "gm_id": campaign.gm_id(),
    }
