"""The scene's writes: keyword-only, one transaction each (the caller's ``core.writes.attempt``).
Each registers its own pushes with ``transaction.on_commit`` (``scene.push``): every member's
open room shows the change, each as it may see it."""

from django.db import transaction
from django.db.models import Max

from campaigns.models import Campaign, Membership
from core.images import image_read
from core.text import isolated
from core.writes import Refused
from rolls import services as rolls_services
from rolls.models import LogEntry
from rolls.services import log_append
from room.push import push_entry_on_commit
from rules import RulesError, notation

from . import push
from .handout_push import audience_of, handouts_for, push_handouts
from .models import Combatant, Handout, Initiative, Picture, Scene, Token


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
    """Whether ``user``, a member of ``campaign``, may see ``picture`` (one of the campaign's),
    by the rules the pages keep: the GM sees every picture; a player the shown scene's map, the
    pictures of its tokens off the GM's layer, and those of the handouts shared with them. A
    map the GM keeps for later, a GM-only token's picture, a handout for others: 404, as if
    there were none (``scene.views.picture``), even to a player who learned the address."""
    if user.pk == campaign.gm_id():
        return True
    shown = Scene.objects.filter(campaign=campaign, shown=True)
    return (
        shown.filter(picture=picture).exists()
        or Token.objects.filter(scene__in=shown, gm_only=False, picture=picture).exists()
        or handouts_for(campaign, user_id=user.pk, is_gm=False).filter(picture=picture).exists()
    )


# The initiative order -------------------------------------------------------------------------

#: The scores a place in the turn order may have, both ends included (typed or rolled).
SCORE_MIN, SCORE_MAX = -99, 999
#: A combatant's name, at most (a character's longer name is cut to it).
NAME_MAX = Combatant._meta.get_field("name").max_length


def _initiative_locked(campaign):
    """The campaign's turn order (or None), under the campaign row's lock, held until the write
    ends: two GM tabs' writes on the order run one after the other (the log's head takes the
    same lock, so a write that logs takes no second lock in another order)."""
    Campaign.objects.select_for_update().filter(pk=campaign.pk).values_list("pk").get()
    return Initiative.objects.filter(campaign=campaign).first()


def _order(initiative):
    return list(initiative.combatants.select_related("character"))


def _current(initiative, order):
    """Whose turn it is (None: not started, or nobody in the order)."""
    if not initiative.started or not order:
        return None
    return order[min(initiative.turn, len(order) - 1)]


def _renumber(initiative, order, current):
    """Store ``order`` as the order's places (0, 1, ...); the turn stays with ``current``
    (else it stays where it was, within the order)."""
    changed = []
    for place, combatant in enumerate(order):
        if combatant.place != place:
            combatant.place = place
            changed.append(combatant)
    Combatant.objects.bulk_update(changed, ["place"])
    if current is not None and current in order:
        initiative.turn = order.index(current)
    elif initiative.turn >= len(order):
        initiative.turn = 0  # the last one's turn, removed: the first one's
    initiative.save(update_fields=["turn"])


def initiative_state(campaign):
    """What the initiative card shows: (the order or None, its combatants in order, whose turn
    it is or None). Two small queries at most; one without an order."""
    initiative = Initiative.objects.filter(campaign=campaign).first()
    if initiative is None:
        return None, [], None
    order = _order(initiative)
    return initiative, order, _current(initiative, order)


def _rolled_score(campaign, by, dice):
    """A free roll of ``dice`` (``rules.notation``), logged and chained with the campaign's fair
    dice as any roll typed in the room: (its total, its entry)."""
    try:
        parsed = notation.parse(dice)
    except RulesError as error:
        raise Refused(str(error)) from None
    if parsed.target is not None:
        raise Refused("An initiative score is a total: roll without “vs”.")
    entry = rolls_services.free_roll_make(campaign=campaign, by=by, notation=parsed)
    return entry.data["total"], entry


@transaction.atomic(savepoint=False)
def combatant_add(*, campaign, by, name="", character=None, score=None, dice=""):
    """Add a place at the end of the campaign's turn order (made if it has none): ``character``
    (of the campaign) or a ``name`` the GM typed, with a ``score``, or with ``dice`` to roll for
    it (a public free roll, verifiable as any: its total is the score). (the combatant, the
    roll's entry or None)."""
    if character is not None:
        if character.campaign_id != campaign.pk:
            raise Refused("Choose a character of this campaign.")
        name = character.name[:NAME_MAX]
    name = (name or "").strip()
    if not name:
        raise Refused("Choose a character or type a name.")
    if len(name) > NAME_MAX:
        raise Refused(f"A name has at most {NAME_MAX} characters.")
    dice = (dice or "").strip()
    if dice and score is not None:
        raise Refused("Give a score or dice to roll for it, not both.")
    if not dice and score is None:
        raise Refused("Give a score, or dice to roll for it (e.g. d20+2).")
    initiative = _initiative_locked(campaign)
    entry = None
    if dice:
        score, entry = _rolled_score(campaign, by, dice)
    if not SCORE_MIN <= score <= SCORE_MAX:
        raise Refused(f"A score lies in {SCORE_MIN}..{SCORE_MAX} (got {score}).")
    if initiative is None:
        initiative = Initiative.objects.create(campaign=campaign)
    last = initiative.combatants.aggregate(last=Max("place"))["last"]
    combatant = Combatant.objects.create(
        initiative=initiative,
        name=name,
        character=character,
        score=score,
        place=0 if last is None else last + 1,
    )
    return combatant, entry


def _combatant_in(initiative, order, combatant_id):
    found = next((c for c in order if c.pk == combatant_id), None)
    if initiative is None or found is None:
        raise Refused("That one is no longer in the turn order.")
    return found


@transaction.atomic(savepoint=False)
def combatant_remove(*, campaign, combatant_id):
    """Take a place out of the order; whose turn it is stays (the next one's, when it was the
    removed one's)."""
    initiative = _initiative_locked(campaign)
    order = _order(initiative) if initiative else []
    gone = _combatant_in(initiative, order, combatant_id)
    current = _current(initiative, order)
    index = order.index(gone)
    order.remove(gone)
    gone.delete()
    if current is gone:
        current = order[index] if index < len(order) else None
    _renumber(initiative, order, current)


@transaction.atomic(savepoint=False)
def combatant_move(*, campaign, combatant_id, direction):
    """Move a place one up (``"up"``, earlier) or down (``"down"``); the turn stays with whom it
    was."""
    if direction not in ("up", "down"):
        raise Refused("Move up or down.")
    initiative = _initiative_locked(campaign)
    order = _order(initiative) if initiative else []
    moved = _combatant_in(initiative, order, combatant_id)
    index = order.index(moved)
    to = index - 1 if direction == "up" else index + 1
    if not 0 <= to < len(order):
        raise Refused(f"{isolated(moved.name)} is {'first' if to < 0 else 'last'} already.")
    current = _current(initiative, order)
    order[index], order[to] = order[to], order[index]
    _renumber(initiative, order, current)


@transaction.atomic(savepoint=False)
def initiative_sort(*, campaign):
    """Sort the order by score, highest first (ties keep their places); the turn stays with whom
    it was."""
    initiative = _initiative_locked(campaign)
    order = _order(initiative) if initiative else []
    if not order:
        raise Refused("Nobody is in the turn order yet.")
    current = _current(initiative, order)
    _renumber(initiative, sorted(order, key=lambda c: -c.score), current)


def _log(campaign, by, **data):
    return rolls_services.log_append(campaign=campaign, kind=LogEntry.TURNS, actor=by, data=data)


@transaction.atomic(savepoint=False)
def initiative_start(*, campaign, by):
    """Start the order: round 1, the first one's turn; logged (``turns``, ``start``)."""
    initiative = _initiative_locked(campaign)
    order = _order(initiative) if initiative else []
    if not order:
        raise Refused("Add someone to the turn order first.")
    if initiative.started:
        raise Refused("The turn order is running already.")
    initiative.started, initiative.round, initiative.turn = True, 1, 0
    initiative.save(update_fields=["started", "round", "turn"])
    names = [c.name for c in order]
    return _log(campaign, by, action="start", round=1, name=names[0], names=names)


@transaction.atomic(savepoint=False)
def initiative_next(*, campaign, by):
    """The next one's turn; past the last, the first one's in the next round. Logged
    (``turns``, ``turn``)."""
    initiative = _initiative_locked(campaign)
    order = _order(initiative) if initiative else []
    if initiative is None or not initiative.started:
        raise Refused("Start the turn order first.")
    if not order:
        raise Refused("Nobody is in the turn order.")
    initiative.turn += 1
    if initiative.turn >= len(order):
        initiative.turn = 0
        initiative.round += 1
    initiative.save(update_fields=["turn", "round"])
    name = order[initiative.turn].name
    return _log(campaign, by, action="turn", round=initiative.round, name=name)


@transaction.atomic(savepoint=False)
def initiative_end(*, campaign, by):
    """End the order and clear it; logged (``turns``, ``end``) when it had started. The entry,
    or None."""
    initiative = _initiative_locked(campaign)
    if initiative is None:
        raise Refused("There is no turn order to end.")
    entry = None
    if initiative.started:
        names = [c.name for c in _order(initiative)]
        entry = _log(campaign, by, action="end", round=initiative.round, names=names)
    initiative.delete()
    return entry


def scene_add(*, campaign, name, upload):
    """A new scene of ``campaign``, not shown, its map read from ``upload`` (``Refused``: not an
    image we accept; nothing is stored)."""
    picture = picture_add(campaign=campaign, upload=upload)
    return Scene.objects.create(campaign=campaign, name=name, picture=picture)


def scene_grid(*, scene, grid, grid_x, grid_y, snap):
    """The scene's grid: a square of ``grid`` map pixels (0: none), offset by ``grid_x`` and
    ``grid_y``; ``snap``: a token placed lands in the middle of its square."""
    scene.grid, scene.grid_x, scene.grid_y, scene.snap = grid, grid_x, grid_y, snap
    scene.save(update_fields=["grid", "grid_x", "grid_y", "snap"])
    if scene.shown:
        push.push_scene_on_commit(scene.campaign)
    return scene


def scene_show(*, scene, by):
    """Show ``scene`` to the table in place of the one shown (a log entry says so, chained as
    every entry). Shows of one campaign follow each other: the log's append holds the campaign
    row's lock until the write commits, so two shows never both leave their scene shown (the
    ``one_scene_shown`` constraint would refuse the second with an error). Returns the entry
    (None: the scene was shown already)."""
    campaign = scene.campaign
    if Scene.objects.filter(pk=scene.pk, shown=True).exists():
        return None  # shown already: the log says so once, the table sees no change
    entry = log_append(
        campaign=campaign,
        kind=LogEntry.SCENE,
        actor=by,
        data={"scene": scene.pk, "name": scene.name},
    )
    Scene.objects.filter(campaign=campaign, shown=True).exclude(pk=scene.pk).update(shown=False)
    Scene.objects.filter(pk=scene.pk).update(shown=True)
    scene.shown = True
    push_entry_on_commit(entry)
    push.push_scene_on_commit(campaign)
    return entry


def scene_hide(*, campaign):
    """Show no scene; the one that was shown (None: none was)."""
    shown = Scene.objects.filter(campaign=campaign, shown=True).first()
    if shown is None:
        return None
    Scene.objects.filter(pk=shown.pk).update(shown=False)
    shown.shown = False
    push.push_scene_on_commit(campaign)
    return shown


def _pictures_unused(ids):
    """Delete the pictures of ``ids`` that nothing shows any more."""
    ids = {i for i in ids if i is not None}
    if not ids:
        return
    used = (
        set(Scene.objects.filter(picture_id__in=ids).values_list("picture_id", flat=True))
        | set(Token.objects.filter(picture_id__in=ids).values_list("picture_id", flat=True))
        | set(Handout.objects.filter(picture_id__in=ids).values_list("picture_id", flat=True))
    )
    Picture.objects.filter(pk__in=ids - used).delete()


def scene_delete(*, scene):
    """Delete ``scene``, its tokens, and the pictures only they showed; a shown scene leaves the
    table."""
    pictures = {scene.picture_id, *scene.tokens.values_list("picture_id", flat=True)}
    was_shown = scene.shown
    scene.delete()
    _pictures_unused(pictures)
    if was_shown:
        push.push_scene_on_commit(scene.campaign)


def token_place(scene):
    """Where a new token goes: the map's centre, in the middle of its square when the scene
    snaps to its grid."""
    x, y = scene.picture.width // 2, scene.picture.height // 2
    if scene.snap and scene.grid:
        x = scene.grid_x + (x - scene.grid_x) // scene.grid * scene.grid + scene.grid // 2
        y = scene.grid_y + (y - scene.grid_y) // scene.grid * scene.grid + scene.grid // 2
    return x, y


def token_add(*, scene, name, colour, character=None, upload=None, gm_only=False):
    """A token on ``scene``: ``character``'s (which must be of its campaign) or an NPC's or
    marker's (``name``), in ``colour`` (#rrggbb), with a picture read from ``upload`` (None:
    none); ``gm_only``: on the GM's layer, never sent to a player."""
    if character is not None and character.campaign_id != scene.campaign_id:
        raise Refused("That character is not of this campaign.")
    picture = picture_add(campaign=scene.campaign, upload=upload) if upload else None
    x, y = token_place(scene)
    token = Token.objects.create(
        scene=scene,
        name=name,
        colour=colour.lower(),
        character=character,
        picture=picture,
        gm_only=gm_only,
        x=x,
        y=y,
    )
    if scene.shown:
        push.push_scene_on_commit(scene.campaign, gm_only=gm_only)
    return token


def token_remove(*, token):
    """Take ``token`` off its scene (its picture too, when nothing else shows it)."""
    scene = token.scene
    picture = token.picture_id
    token.delete()
    _pictures_unused({picture})
    if scene.shown:
        push.push_scene_on_commit(scene.campaign, gm_only=token.gm_only)
