"""The GM's handouts (issue #47), as each member sees them: which handouts a member may see
(:func:`handouts_for`), who a handout is shared with (:func:`audience_of`), the list of a
member's handouts (one context and one template, ``scene/_handouts.html``, for the room's card,
the handouts page and the push), and what a share or a delete pushes.

A handout shared with chosen players is for them and the GM only: its push goes to each of
them alone (``core.push.send`` with ``users`` and ``gm``, no ``all``: to their own groups,
``core.push.user_group_name``), each with their own list rendered for them; no other socket
hears of it, not even that there was one. A handout for everyone goes the same way to each
player of the campaign. The push carries the member's whole list (it takes the place of the
one the page shows), so a push that crosses a reconnect's fetch of the list, or comes twice,
shows the same list and never a handout twice; a new handout's push also says it in the room's
polite live region (``#handouts-news``) of those it is for.
"""

from functools import partial

from django.db.models import Q
from django.template.loader import render_to_string
from django.utils.html import format_html

from campaigns.models import Membership
from core import push as core_push

from .models import Handout

LIST_TEMPLATE = "scene/_handouts.html"


def handouts_for(campaign, *, user_id, is_gm):
    """The handouts of ``campaign`` the member ``user_id`` may see, newest first: all of them
    for the GM; for a player those shared with everyone or with them. The pictures' bytes are
    left out (a list shows their address only)."""
    handouts = Handout.objects.filter(campaign=campaign)
    if not is_gm:
        # A sub-query, not a join: a join on the recipients would list a handout once per
        # recipient matched.
        mine = Handout.recipients.through.objects.filter(user_id=user_id)
        handouts = handouts.filter(Q(everyone=True) | Q(pk__in=mine.values("handout_id")))
    return (
        handouts.select_related("picture")
        .defer("picture__data")
        .prefetch_related("recipients")
        .order_by("-created_at", "-id")
    )


def audience_of(handout):
    """The ids of the players ``handout`` is shared with, as members now: every player of its
    campaign when it is for everyone, else those of its recipients still playing in it (a
    former member's socket is closed, and hears nothing more)."""
    players = Membership.objects.filter(campaign_id=handout.campaign_id, role=Membership.PLAYER)
    if not handout.everyone:
        players = players.filter(user__in=handout.recipients.all())
    return set(players.values_list("user_id", flat=True))


def list_context(campaign, *, user_id, is_gm, notice="", error=""):
    """The list of handouts ``user_id`` sees (``scene/_handouts.html``); with the GM's delete
    buttons for the GM. ``notice``/``error``: what a delete said."""
    return {
        "campaign": campaign,
        "handouts": list(handouts_for(campaign, user_id=user_id, is_gm=is_gm)),
        "is_gm": is_gm,
        "notice": notice,
        "error": error,
    }


def render_list(campaign, *, user_id, is_gm, oob=False):
    """The list as ``user_id`` sees it; ``oob``: as a push, taking the place of the page's."""
    context = list_context(campaign, user_id=user_id, is_gm=is_gm)
    return render_to_string(LIST_TEMPLATE, {**context, "oob": oob})


def news(handout):
    """What a new handout's push says in the room's live region ``#handouts-news``."""
    return format_html(
        '<p id="handouts-news" hx-swap-oob="innerHTML">{}</p>',
        render_to_string("scene/_handout_news.html", {"handout": handout}),
    )


def handout_messages(campaign, audience, *, new=None):
    """The pushes of a change to the handouts of ``campaign`` that ``audience`` (player ids)
    see: each of them their list, and the GM the GM's; ``new``: the handout just shared, said
    in the players' live region. Rendered once the write has committed."""
    gm_id = campaign.gm_id()
    said = news(new) if new is not None else ""
    users = {
        str(user_id): render_list(campaign, user_id=user_id, is_gm=False, oob=True) + said
        for user_id in sorted(audience)
        if user_id != gm_id
    }
    gm = render_list(campaign, user_id=gm_id, is_gm=True, oob=True) if gm_id else None
    message = {"users": users}
    if gm is not None:
        message["gm"] = gm
    return [message]


def push_handouts(campaign, audience, *, new=None):
    """Once the write in progress commits, push :func:`handout_messages`: to the players of
    ``audience`` and to the GM, nobody else. Call inside the write's transaction."""
    messages = partial(handout_messages, campaign, frozenset(audience), new=new)
    core_push.send_on_commit(campaign.pk, messages)
