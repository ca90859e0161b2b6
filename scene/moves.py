"""Moving tokens (#47): a player moves their characters' tokens, the GM any. A move is state,
not history: no log entry; the token's row holds where it is (a restart or a reconnect shows it
there), and its ``moves`` counter orders the moves: each move takes the next number under the
token's row lock, so the last committed move is the one every page ends up showing, and a page
drops a push whose number it has seen already (static/js/scene.js).

A move is pushed once it commits, per viewer: the token's fragment, movable or not for them; a
token on the GM's layer to the GM alone (``core.push``: a message with no ``all`` never reaches
a player's socket)."""

from django.template.loader import render_to_string

from core import push as core_push
from core.writes import Refused

from .models import Picture, Token


def snapped(value, *, grid, offset):
    """``value`` moved to the middle of its grid square (``grid`` pixels a side, lines from
    ``offset``)."""
    return offset + (value - offset) // grid * grid + grid // 2


def token_move(*, token, x, y, by):
    """Move ``token`` so that its centre is at (``x``, ``y``) in the map's pixels (in the middle
    of its grid square when the scene snaps); ``by``: who moved it (the view checked that they
    may). Refused when its scene is not shown or the place is off the map. Returns the token
    with its new place and count; its push leaves once the move commits. Call inside a
    transaction (``core.writes.attempt``)."""
    locked = Token.objects.select_for_update(of=("self",)).select_related("scene").get(pk=token.pk)
    scene = locked.scene
    if not scene.shown:
        raise Refused("That token's scene is not shown now: show it before moving its tokens.")
    width, height = Picture.objects.filter(pk=scene.picture_id).values_list("width", "height").get()
    if not (0 <= x < width and 0 <= y < height):
        raise Refused(
            f"That is off the map: x goes from 0 to {width - 1} and y from 0 to {height - 1}."
        )
    if scene.snap and scene.grid:
        # A snapped centre beyond the map's edge (a square the edge cuts) stays on the map.
        x = min(max(snapped(x, grid=scene.grid, offset=scene.grid_x), 0), width - 1)
        y = min(max(snapped(y, grid=scene.grid, offset=scene.grid_y), 0), height - 1)
    locked.x, locked.y, locked.moves = x, y, locked.moves + 1
    locked.save(update_fields=["x", "y", "moves"])
    core_push.send_on_commit(scene.campaign_id, lambda: [move_message(locked)])
    return locked


def may_move(token, *, user_id, is_gm):
    """Whether the viewer may move ``token``: the GM any, a player their characters' (never one
    on the GM's layer)."""
    if is_gm:
        return True
    return not token.gm_only and token.character is not None and token.character.owner_id == user_id


def render_token(token, *, movable, oob=False, request=None):
    context = {"token": token, "movable": movable, "oob": oob}
    return render_to_string("scene/_token.html", context, request=request)


def move_message(token):
    """The push of ``token``'s move (``core.push.send``'s message): the GM's variant movable;
    the character's player's movable; the rest of the room's not; none but the GM's for a token
    on the GM's layer."""
    gm = render_token(token, movable=True, oob=True)
    if token.gm_only:
        return {"gm": gm}
    message = {"all": render_token(token, movable=False, oob=True), "gm": gm}
    owner_id = token.character.owner_id if token.character_id else None
    if owner_id is not None:
        message["users"] = {str(owner_id): render_token(token, movable=True, oob=True)}
    return message
