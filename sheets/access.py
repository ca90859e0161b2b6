"""A character for a view, or a 404/403: ``campaigns.access.campaign_for`` finds its campaign."""

from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404

from campaigns.access import campaign_for, can_edit, sees_private
from campaigns.systems import system_of

from .models import Character


def character_for(
    request,
    campaign_id,
    character_id,
    *,
    gm=False,
    edit=False,
    private=False,
    owner=False,
    system=None,
):
    """(campaign, character): the character as ``campaign_for`` finds its campaign. 404 for a
    character of another campaign, or for a player asking for one of the GM's (the NPCs); 403 for
    a player when ``gm``, for anyone but its player and the GM when ``edit`` or ``private`` (what
    only they see: mana pools and sparetime, ``sees_private``), and for anyone but its player
    when ``owner``."""
    campaign = campaign_for(request, campaign_id, gm=gm, system=system)
    related = system_of(campaign).character_related
    character = get_object_or_404(
        Character.objects.visible_to(campaign).select_related("owner", *related), pk=character_id
    )
    character.campaign = campaign
    if edit and not can_edit(campaign, character):
        raise PermissionDenied("Only the character's player and the GM can change this sheet.")
    if private and not sees_private(campaign, character):
        raise PermissionDenied("Only the character's player and the GM see its sparetime and mana.")
    if owner and character.owner_id != request.user.pk:
        raise PermissionDenied("Only the character's player can do that.")
    return campaign, character
