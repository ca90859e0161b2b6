"""The one place where campaign access is decided."""

from django.core.exceptions import PermissionDenied
from django.db.models import OuterRef, Subquery
from django.http import Http404

from .models import Membership


def campaign_for(request, campaign_id, *, gm=False):
    """The campaign ``campaign_id`` if ``request.user`` belongs to it, with the user's
    membership as ``campaign.viewer`` and its GM's id read along (``campaign.gm_id()``); 404
    for a non-member, 403 for a player when ``gm``."""
    if not 0 < campaign_id < 2**63:  # beyond any id a database holds
        raise Http404("No such campaign.")
    gms = Membership.objects.filter(campaign_id=OuterRef("campaign_id"), role=Membership.GM)
    membership = (
        Membership.objects.select_related("campaign")
        .filter(campaign_id=campaign_id, user_id=request.user.pk)
        .annotate(gm_user_id=Subquery(gms.values("user_id")[:1]))
        .first()
    )
    if membership is None:
        raise Http404("No such campaign.")
    if gm and not membership.is_gm:
        raise PermissionDenied("Only the GM can do that.")
    campaign = membership.campaign
    campaign.viewer = membership
    campaign.known_gm_id = membership.gm_user_id
    return campaign
