"""The one place where campaign access is decided."""

from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.http import Http404

from .models import Membership


def campaign_for(request, campaign_id, *, gm=False):
    """The campaign ``campaign_id`` if ``request.user`` belongs to it, with the user's
    membership as ``campaign.viewer`` and its GM's id read along (``campaign.gm_id()``); 404
    for a non-member, 403 for a player when ``gm``."""
    if not 0 < campaign_id < 2**63:  # beyond any id a database holds
        raise Http404("No such campaign.")
    # The viewer's membership and the GM's, in one small query.
    rows = Membership.objects.select_related("campaign").filter(
        Q(user_id=request.user.pk) | Q(role=Membership.GM), campaign_id=campaign_id
    )
    membership, gm_id = None, None
    for row in rows:
        if row.user_id == request.user.pk:
            membership = row
        if row.is_gm:
            gm_id = row.user_id
    if membership is None:
        raise Http404("No such campaign.")
    if gm and not membership.is_gm:
        raise PermissionDenied("Only the GM can do that.")
    campaign = membership.campaign
    campaign.viewer = membership
    campaign.known_gm_id = gm_id
    return campaign
