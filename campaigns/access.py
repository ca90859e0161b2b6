"""Where access is decided: every view finds its campaign here, or gets a 404 (not a member, not
there, or not for this viewer's eyes) or a 403 (a member who may not do this). Its character
(``sheets.access``) and its check (``rolls.access``) are found the same way, through this."""

from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.http import Http404

from .models import Membership
from .systems import SYSTEMS, campaign_related


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
        raise Http404(f"This campaign does not play {SYSTEMS[system].name}.")
    if gm and not membership.is_gm:
        raise PermissionDenied("Only the GM can do that.")
    campaign.viewer = membership
    campaign.known_gm_id = gm_id
    return campaign


def membership_of(user_id, campaign_id):
    """(the user's Membership of the campaign with its campaign, or None; the GM's user id),
    in one small query, the campaign's rows of its systems joined (``campaign_related``). The
    room's socket asks here too."""
    if user_id is None:
        return None, None
    related = [f"campaign__{name}" for name in campaign_related()]
    rows = Membership.objects.select_related("campaign", *related).filter(
        Q(user_id=user_id) | Q(role=Membership.GM), campaign_id=campaign_id
    )
    membership, gm_id = None, None
    for row in rows:
        if row.user_id == user_id:
            membership = row
        if row.is_gm:
            gm_id = row.user_id
    return membership, gm_id


def can_edit(campaign, character):
    """Whether the viewer of ``campaign`` may change ``character``'s sheet."""
    return campaign.viewer.is_gm or character.owner_id == campaign.viewer.user_id


def sees_private(campaign, character):
    """Whether the viewer of ``campaign`` sees ``character``'s private side: its mana pools and
    sparetime, which would tell the table what a private roll spent. The table sees the rest of
    a sheet (name, concept, history, attributes, skills, traits, HP); its player and the GM see
    all of it."""
    return campaign.viewer.is_gm or character.owner_id == campaign.viewer.user_id
