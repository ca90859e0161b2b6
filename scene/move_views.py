"""A token's move over HTTP (``scene.moves``): sent by static/js/scene.js when a token is
dropped or moved by an arrow key, never while it is dragged."""

import re

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from campaigns.access import campaign_for
from core.writes import Refused, attempt

from . import moves
from .models import Token

#: A coordinate as a page sends it: a whole number of map pixels, a sign allowed (refused
#: below as off the map) and at most 9 digits (a longer one is off any map, and would not fit
#: the column).
COORDINATE = re.compile(r"-?[0-9]{1,9}")


def coordinate(value):
    """``value`` (a form field, or None) as an int; Refused when it is not a whole number."""
    text = (value or "").strip()
    if not COORDINATE.fullmatch(text):
        raise Refused("Say where to move it: x and y, whole numbers of the map's pixels.")
    return int(text)


@login_required
@require_POST
def token_move(request, campaign_id, token_id):
    """Move a token (``x``, ``y``: its centre in the map's pixels). 404: not a member, no such
    token in the campaign, or one on the GM's layer asked by a player; 403: a player's move of
    a token not theirs. htmx gets the token as the mover sees it (200), or 422 with the
    refusal; the room hears of it through its sockets. A plain post goes back to the room."""
    campaign = campaign_for(request, campaign_id)
    user_id, is_gm = request.user.pk, campaign.viewer.is_gm
    token = (
        Token.objects.select_related("scene", "character")
        .filter(pk=token_id, scene__campaign=campaign)
        .first()
    )
    if token is None or (token.gm_only and not is_gm):
        raise Http404("No such token.")
    if not moves.may_move(token, user_id=user_id, is_gm=is_gm):
        raise PermissionDenied("You may move your own characters' tokens only.")

    def write():
        x, y = coordinate(request.POST.get("x")), coordinate(request.POST.get("y"))
        return moves.token_move(token=token, x=x, y=y, by=request.user)

    ok, result = attempt(write)
    if not request.htmx:  # no form of its own to show the refusal in: the room says it
        if not ok:
            messages.error(request, result)
        return redirect("room", campaign.pk)
    if not ok:
        return HttpResponse(result, status=422, content_type="text/plain; charset=utf-8")
    return HttpResponse(moves.render_token(result, movable=True, request=request))
