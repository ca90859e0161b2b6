"""The scene's writes: keyword-only, one transaction each (the caller's ``core.writes.attempt``).
Each registers its own pushes with ``transaction.on_commit``."""

from django.db import transaction

from campaigns.models import Membership
from core.images import image_read
from core.text import isolated
from core.writes import Refused

from .handout_push import audience_of, handouts_for, push_handouts
from .models import Handout, Picture, Scene, Token


def picture_add(*, campaign, upload):
    """A new picture of ``campaign`` from ``upload`` (an ``UploadedFile`` or bytes), read from its
    bytes by ``core.images.image_read``; ``Refused`` (nothing stored) when it is no image we
    accept."""
    image = image_read(upload)
    return Picture.objects.create(
        campaign=campaign,
        data=image.data,
        content_type=image.content_type,
        width=image.width,
        height=image.height,
        digest=image.digest,
    )


# Handouts -------------------------------------------------------------------------------------

#: The longest title and text of a handout (characters): a title is a line in a list; a text
#: is a page or two of a letter, a rumour, a clue.
HANDOUT_TITLE_MAX = Handout._meta.get_field("title").max_length
HANDOUT_TEXT_MAX = 5000


def handout_share(*, campaign, title, text="", upload=None, everyone=True, recipients=()):
    """The GM shares a handout: ``title``, ``text`` and optionally a picture (``upload``, read
    as :func:`picture_add` reads it), with every player (``everyone``) or with the players of
    ``recipients`` (users) alone. Its push goes, once committed, to those it is shared with and
    to the GM, nobody else (``handout_push``). ``Refused`` (nothing stored, nothing pushed): no
    title, a title or text too long, no player chosen, a recipient who is not a player of the
    campaign, an image that is not one we accept."""
    title, text = (title or "").strip(), (text or "").strip()
    if not title:
        raise Refused("Give the handout a title.")
    if len(title) > HANDOUT_TITLE_MAX:
        raise Refused(f"A handout's title holds at most {HANDOUT_TITLE_MAX} characters.")
    if len(text) > HANDOUT_TEXT_MAX:
        raise Refused(f"A handout's text holds at most {HANDOUT_TEXT_MAX:,} characters.")
    recipients = list(recipients)
    if not everyone:
        if not recipients:
            raise Refused("Choose the players to share it with, or share it with everyone.")
        players = set(
            campaign.memberships.filter(role=Membership.PLAYER).values_list("user_id", flat=True)
        )
        strangers = [user for user in recipients if user.pk not in players]
        if strangers:
            raise Refused(
                f"{isolated(strangers[0])} is not a player of this campaign: "
                "share it with its players."
            )
    with transaction.atomic(savepoint=False):
        picture = picture_add(campaign=campaign, upload=upload) if upload else None
        handout = Handout.objects.create(
            campaign=campaign, title=title, text=text, picture=picture, everyone=everyone
        )
        if not everyone:
            handout.recipients.set(recipients)
        push_handouts(campaign, audience_of(handout), new=handout)
    return handout


def handout_delete(*, handout):
    """The GM takes a handout back: it leaves the lists of those it was shared with (pushed to
    them and the GM once committed), and its picture goes with it unless a scene or a token
    shows it."""
    campaign = handout.campaign
    with transaction.atomic(savepoint=False):
        audience = audience_of(handout)
        picture_id = handout.picture_id
        handout.delete()
        if picture_id is not None and not _picture_used(picture_id):
            Picture.objects.filter(pk=picture_id).delete()
        push_handouts(campaign, audience)
    return audience


def _picture_used(picture_id):
    return (
        Scene.objects.filter(picture_id=picture_id).exists()
        or Token.objects.filter(picture_id=picture_id).exists()
        or Handout.objects.filter(picture_id=picture_id).exists()
    )


def picture_visible(picture, campaign, user):
    """Whether ``user``, a member of ``campaign``, may see ``picture`` (one of the campaign's):
    the GM sees every picture; a handout's picture is seen only by those one of its handouts
    is shared with (404 to the others, as if there were none: ``scene.views.picture``). Any
    other picture (a map's, a token's) as the scene's own rules say: here, every member."""
    if user.pk == campaign.gm_id():
        return True
    handouts = Handout.objects.filter(picture=picture)
    if not handouts.exists():
        return True
    return handouts_for(campaign, user_id=user.pk, is_gm=False).filter(picture=picture).exists()
