"""The scene card, one rendering for the room page, its own fetch (``views.scene_card``) and the
pushes: what a viewer sees of the shown scene (a player: never a GM-only token). A change of
the shown scene (shown, hidden, its grid, a token added or removed) pushes the card to every
member's open room once the write commits, rendered per viewer (``core.push``): the GM's with
the GM's layer, a player's without it. Moving a token has pushes of its own."""

from django.template.loader import render_to_string
from django.urls import reverse

from campaigns.models import Membership
from core import push as core_push

from .models import Scene, picture_url


def shown_scene(campaign):
    """The campaign's shown scene with its map, or None."""
    return Scene.objects.select_related("picture").filter(campaign=campaign, shown=True).first()


def visible_tokens(scene, *, is_gm):
    """The tokens of ``scene`` a viewer receives: the GM all of them, a player those off the
    GM's layer."""
    tokens = scene.tokens.select_related("picture", "character")
    return list(tokens if is_gm else tokens.filter(gm_only=False))


def scene_context(campaign, scene, tokens, *, user_id, is_gm, oob=False):
    """The card's context: ``scene`` (None: none shown) and the ``tokens`` the viewer sees."""
    return {
        "campaign": campaign,
        "scene": scene,
        "tokens": tokens,
        "map_url": picture_url(scene.picture) if scene else "",
        "card_url": reverse("scene_card", args=[campaign.pk]),
        "viewer_id": user_id,
        "is_gm": is_gm,
        "oob": oob,
    }


def render_scene(campaign, *, user_id, is_gm, oob=False, scene=..., tokens=None, request=None):
    """The card as ``user_id`` (the GM, with ``is_gm``) sees it; ``oob``: as a push swaps it in.
    ``scene``/``tokens``: read already (``...``: read them here)."""
    if scene is ...:
        scene = shown_scene(campaign)
    if scene is not None and tokens is None:
        tokens = visible_tokens(scene, is_gm=is_gm)
    context = scene_context(campaign, scene, tokens or [], user_id=user_id, is_gm=is_gm, oob=oob)
    return render_to_string("scene/_scene.html", context, request=request)


def scene_message(campaign, *, gm_only=False):
    """The push of the shown scene's card: the GM's, and (unless only the GM's layer changed,
    ``gm_only``) the players': the same card for all of them, but for a player whose character
    has a token on it, who gets one of their own (what they may move)."""
    gm_id = campaign.gm_id()
    scene = shown_scene(campaign)
    tokens = visible_tokens(scene, is_gm=True) if scene else []
    message = {
        "gm": render_scene(
            campaign, user_id=gm_id, is_gm=True, oob=True, scene=scene, tokens=tokens
        )
    }
    if gm_only:
        return message
    public = [t for t in tokens if not t.gm_only]
    message["all"] = render_scene(
        campaign, user_id=None, is_gm=False, oob=True, scene=scene, tokens=public
    )
    owners = {t.character.owner_id for t in public if t.character_id and t.character.owner_id}
    players = set(
        Membership.objects.filter(
            campaign=campaign, role=Membership.PLAYER, user_id__in=owners
        ).values_list("user_id", flat=True)
    )
    message["users"] = {
        str(uid): render_scene(
            campaign, user_id=uid, is_gm=False, oob=True, scene=scene, tokens=public
        )
        for uid in sorted(players)
    }
    return message


def push_scene_on_commit(campaign, *, gm_only=False):
    """Once the write in progress commits, push the shown scene's card to the room (the GM's
    alone when ``gm_only``: a change of the GM's layer). Call inside the write's transaction."""
    core_push.send_on_commit(campaign.pk, lambda: [scene_message(campaign, gm_only=gm_only)])
