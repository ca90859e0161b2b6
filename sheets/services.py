"""Writes on character sheets that touch several rows or models, each in one transaction.

Every function raises ``core.writes.Refused`` with a sentence a player can read when the
rules refuse the change; nothing is written then.
"""

from django.db import transaction

from campaigns.models import Membership
from campaigns.systems import system_of
from core.push import push_facts
from core.writes import Refused
from rules import sheet as pool_sheet

from .models import Character, Rating

#: What follows a character handed over in the apps above sheets, which it does not import
#: (pyproject.toml's contracts): each is called in the write's transaction, in order, before the
#: owner is written, as ``follow(campaign=..., character=..., to=...)``, and may refuse the
#: hand-over (``core.writes.Refused``: nothing changes). Rolls adds its own at ready() (the live
#: checks go with the character).
HAND_OVER_FOLLOWERS = []

# Characters and Pool ratings ------------------------------------------------------------------

#: Highest rating the GM may set by hand.
RATING_MAX = 100
#: Longest custom skill name, and longest text filled into a template's blank.
SKILL_NAME_MAX = 60


def character_create(*, campaign, owner, name, concept="", history=""):
    """A new character with a full sheet, as the campaign's system fills it (its ``sheet``:
    e.g. every attribute and fixed skill at 0 and full HP, or an empty mana pool per color)."""
    sheet = system_of(campaign).sheet
    with transaction.atomic(savepoint=False):
        character = Character.objects.create(
            campaign=campaign,
            owner=owner,
            name=name,
            concept=concept,
            history=history,
        )
        sheet.character_fill(character)
    return character


def character_hand_over(*, campaign, character, to):
    """The GM hands one of their own characters (an NPC) to ``to``, a player of the campaign:
    the player owns it from now on (sees its private side and rolls its checks), the GM keeps
    the GM's rights on it. Its live checks go with it: their cards are pushed to the new player
    (and again to the GM, who no longer rolls them). Refused while it has a live GM-secret
    check, which only the GM's own characters roll."""
    gm_id = campaign.gm_id()
    with transaction.atomic(savepoint=False):
        owner_id = (
            Character.objects.select_for_update()
            .filter(pk=character.pk, campaign=campaign)
            .values_list("owner_id", flat=True)
            .first()
        )
        if owner_id is None or owner_id != gm_id:
            raise Refused("Only the GM's own characters (NPCs) can be handed over.")
        players = Membership.objects.filter(campaign=campaign, role=Membership.PLAYER)
        if to is None or not players.filter(user_id=to.pk).exists():
            raise Refused("Choose a player of this campaign.")
        # The party shows whose it is (and now to its player): its pages fetch it again.
        push_facts(campaign, [character])
        # Its live checks go with it, or refuse (rolls.push.checks_follow_character).
        for follow in HAND_OVER_FOLLOWERS:
            follow(campaign=campaign, character=character, to=to)
        Character.objects.filter(pk=character.pk).update(owner=to)
        character.owner = to
    return character


def rating_set(*, rating, value):
    """The GM sets an approved rating to ``value`` (0..RATING_MAX). Lowering Endurance below
    what the current HP needs lowers the current HP to the new maximum."""
    if not rating.is_approved:
        raise Refused(
            f"{rating.label} is {rating.get_status_display().lower()}; only approved skills "
            "can be rated."
        )
    if not 0 <= value <= RATING_MAX:
        raise Refused(f"A rating lies between 0 and {RATING_MAX}.")
    with transaction.atomic(savepoint=False):
        rating.value = value
        rating.save(update_fields=["value"])
        if rating.skill == pool_sheet.ENDURANCE:  # the HP maximum follows it
            character = rating.character
            system_of(character.campaign).sheet.endurance_follow(character)
    return rating


def _check_attribute(attribute):
    if attribute not in pool_sheet.ATTRIBUTES:
        raise Refused(f"{attribute!r} is not an attribute.")


def _add_skill(character, attribute, name, **fields):
    """Add skill ``name`` under ``attribute`` unless the sheet already has that name."""
    if "{" in name or "}" in name:
        raise Refused("A skill name cannot contain braces.")
    with transaction.atomic(savepoint=False):
        # Serialise additions to one sheet, so two requests cannot both pass the check below.
        Character.objects.select_for_update().filter(pk=character.pk).first()
        existing = character.ratings.all()
        clash = next((r for r in existing if r.label.casefold() == name.casefold()), None)
        if clash is not None:
            state = "" if clash.is_approved else f" ({clash.get_status_display().lower()})"
            raise Refused(f"This sheet already has {clash.label}{state}.")
        return Rating.objects.create(character=character, attribute=attribute, skill=name, **fields)


def skill_take(*, character, attribute, template, fill):
    """Take a template skill of ``attribute`` with its blank filled: ``Geography: {Region}``
    with ``Northern Marches``. It starts approved at 0."""
    _check_attribute(attribute)
    if template not in pool_sheet.templates(attribute):
        raise Refused(f"{attribute} has no template skill {template!r}.")
    fill = " ".join(fill.split())
    if len(fill) > SKILL_NAME_MAX:
        raise Refused(
            f"The {pool_sheet.template_blank(template)} has at most {SKILL_NAME_MAX} characters."
        )
    try:
        name = pool_sheet.fill_template(template, fill)
    except ValueError as error:
        raise Refused(str(error)) from error
    return _add_skill(character, attribute, name)


def skill_propose(*, character, attribute, name):
    """A player proposes a new skill under ``attribute``; it waits for the GM (pending)."""
    _check_attribute(attribute)
    name = " ".join(name.split())
    if not 1 <= len(name) <= SKILL_NAME_MAX:
        raise Refused(f"A skill name has 1 to {SKILL_NAME_MAX} characters.")
    return _add_skill(character, attribute, name, custom=True, status=Rating.PENDING)


def skill_decide(*, rating, approve):
    """The GM greenlights (``approve=True``) or declines a pending custom skill. Deciding a
    skill that is not pending any more is refused."""
    status = Rating.APPROVED if approve else Rating.DECLINED
    with transaction.atomic(savepoint=False):
        changed = Rating.objects.filter(pk=rating.pk, custom=True, status=Rating.PENDING).update(
            status=status
        )
        if not changed:
            rating.refresh_from_db(fields=["status"])
            raise Refused(f"{rating.label} was already {rating.get_status_display().lower()}.")
    rating.status = status
    return rating
