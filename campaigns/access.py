"""The one place where access is decided: every view finds its campaign, character or check here,
or gets a 404 (not a member, not there, or not for this viewer's eyes) or a 403 (a member who may
not do this)."""

from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.http import Http404
from django.shortcuts import get_object_or_404

from .models import Campaign, Membership


def campaign_for(request, campaign_id, *, gm=False, system=None):
    """The campaign ``campaign_id`` if ``request.user`` belongs to it, with the user's membership
    as ``campaign.viewer`` and its GM's id read along (``campaign.gm_id()``). 404 for a
    non-member, or when ``system`` is given and the campaign plays another; 403 for a player when
    ``gm``."""
    membership, gm_id = membership_of(request.user.pk, campaign_id)
    if membership is None:
        raise Http404("No such campaign.")
    campaign = membership.campaign
    if system is not None and campaign.system != system:
        raise Http404(f"This campaign does not play {dict(Campaign.SYSTEMS)[system]}.")
    if gm and not membership.is_gm:
        raise PermissionDenied("Only the GM can do that.")
    campaign.viewer = membership
    campaign.known_gm_id = gm_id
    return campaign


def membership_of(user_id, campaign_id):
    """(the user's Membership of the campaign with its campaign, or None; the GM's user id),
    in one small query. The room's socket asks here too."""
    if user_id is None:
        return None, None
    rows = Membership.objects.select_related("campaign").filter(
        Q(user_id=user_id) | Q(role=Membership.GM), campaign_id=campaign_id
    )
    membership, gm_id = None, None
    for row in rows:
        if row.user_id == user_id:
            membership = row
        if row.is_gm:
            gm_id = row.user_id
    return membership, gm_id


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
    from sheets.models import Character

    campaign = campaign_for(request, campaign_id, gm=gm, system=system)
    character = get_object_or_404(
        Character.objects.visible_to(campaign).select_related("owner"), pk=character_id
    )
    character.campaign = campaign
    if edit and not can_edit(campaign, character):
        raise PermissionDenied("Only the character's player and the GM can change this sheet.")
    if private and not sees_private(campaign, character):
        raise PermissionDenied("Only the character's player and the GM see its sparetime and mana.")
    if owner and character.owner_id != request.user.pk:
        raise PermissionDenied("Only the character's player can do that.")
    return campaign, character


def can_edit(campaign, character):
    """Whether the viewer of ``campaign`` may change ``character``'s sheet."""
    return campaign.viewer.is_gm or character.owner_id == campaign.viewer.user_id


def sees_private(campaign, character):
    """Whether the viewer of ``campaign`` sees ``character``'s private side: its mana pools and
    sparetime, which would tell the table what a private roll spent. The table sees the rest of
    a sheet (name, concept, history, attributes, skills, traits, HP); its player and the GM see
    all of it."""
    return campaign.viewer.is_gm or character.owner_id == campaign.viewer.user_id


def check_for(request, campaign_id, check_id, *, gm=False, owner=False, card=True):
    """(campaign, check), the check with what its card shows. 404 for a non-member or another
    campaign's check; 403 for a player when ``gm``, for anyone but the character's player when
    ``owner``. ``card=False``: with its character and player only, for a write that shows the
    card only when refused (a card shows the rest of its rows, the system's, by reading them
    then); a roll's hot path, where the system's rows cost a fifth of the check's read."""
    from rolls.models import Check

    campaign = campaign_for(request, campaign_id, gm=gm)
    checks = Check.objects.of(campaign, card=card)
    check = get_object_or_404(checks, pk=check_id)
    check.campaign = campaign
    if owner and check.character.owner_id != request.user.pk:
        raise PermissionDenied("Only the character's player rolls this check.")
    return campaign, check
