"""The one place where campaign access is decided."""

from django.core.exceptions import PermissionDenied
from django.http import Http404

from .models import Membership


def campaign_for(request, campaign_id, *, gm=False):
    """The campaign ``campaign_id`` if ``request.user`` belongs to it, with the user's
    membership as ``campaign.viewer``; 404 for a non-member, 403 for a player when ``gm``."""
    if not 0 < campaign_id < 2**63:  # beyond any id a database holds
        raise Http404("No such campaign.")
    membership = (
        Membership.objects.select_related("campaign")
        .filter(campaign_id=campaign_id, user_id=request.user.pk)
        .first()
    )
    if membership is None:
        raise Http404("No such campaign.")
    if gm and not membership.is_gm:
        raise PermissionDenied("Only the GM can do that.")
    campaign = membership.campaign
    campaign.viewer = membership
    return campaign
