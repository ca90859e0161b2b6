"""A check for a view, or a 404/403: ``campaigns.access.campaign_for`` finds its campaign."""

from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404

from campaigns.access import campaign_for

from .models import Check


def check_for(request, campaign_id, check_id, *, gm=False, owner=False, card=True):
    """(campaign, check), the check with what its card shows. 404 for a non-member or another
    campaign's check; 403 for a player when ``gm``, for anyone but the character's player when
    ``owner``. ``card=False``: with its character and player only, for a write that shows the
    card only when refused (a card shows the rest of its rows, the system's, by reading them
    then): a roll sets those rows and its card then leaves the room, so reading them with the
    check would read, on every roll, what nobody is shown."""
    campaign = campaign_for(request, campaign_id, gm=gm)
    checks = Check.objects.of(campaign, card=card)
    check = get_object_or_404(checks, pk=check_id)
    check.campaign = campaign
    if owner and check.character.owner_id != request.user.pk:
        raise PermissionDenied("Only the character's player rolls this check.")
    return campaign, check
