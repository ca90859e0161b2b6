"""The tables of the move tests (#47): a campaign showing a 400x300 map with a 50-pixel grid
(snapping), a token for each player's character (ana's Mira, ben's Tobin), one of the GM's
NPC and one on the GM's layer; and another scene, not shown, with a token of Mira's."""

import hashlib
import io
from types import SimpleNamespace

from PIL import Image

from scene.models import Picture, Scene, Token
from sheets.services import character_create


def tiny_png(width, height, colour=(90, 120, 80)):
    out = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(out, format="PNG")
    return out.getvalue()


def make_picture(campaign, width=400, height=300):
    data = tiny_png(width, height)
    return Picture.objects.create(
        campaign=campaign,
        data=data,
        content_type="image/png",
        width=width,
        height=height,
        digest=hashlib.sha256(data).hexdigest(),
    )


def build_scene_table(campaign, gm, player, other_player, *, width=400, height=300):
    picture = make_picture(campaign, width, height)
    scene = Scene.objects.create(
        campaign=campaign, name="Harbor", picture=picture, grid=50, snap=True, shown=True
    )
    hidden = Scene.objects.create(campaign=campaign, name="Cellar", picture=picture, shown=False)
    mira = character_create(campaign=campaign, owner=player, name="Mira")
    tobin = character_create(campaign=campaign, owner=other_player, name="Tobin")
    tokens = SimpleNamespace(
        mira=Token.objects.create(scene=scene, name="Mira", character=mira, x=25, y=25),
        tobin=Token.objects.create(scene=scene, name="Tobin", character=tobin, x=75, y=25),
        guard=Token.objects.create(scene=scene, name="Guard", x=125, y=125),
        ambush=Token.objects.create(scene=scene, name="Ghoul", gm_only=True, x=175, y=175),
        cellar=Token.objects.create(scene=hidden, name="Mira", character=mira, x=25, y=25),
    )
    return SimpleNamespace(
        campaign=campaign,
        gm=gm,
        player=player,
        other_player=other_player,
        scene=scene,
        hidden=hidden,
        tokens=tokens,
        width=width,
        height=height,
    )


def scene_token(campaign, character):
    """A token of ``character`` on a new shown scene of ``campaign`` (the permission matrix's)."""
    scene = Scene.objects.create(
        campaign=campaign, name="Harbor", picture=make_picture(campaign), shown=True
    )
    return Token.objects.create(scene=scene, name=character.name, character=character, x=25, y=25)
