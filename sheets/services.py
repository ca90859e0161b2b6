"""Writes on character sheets that touch several rows or models, each in one transaction.

Every function raises ``core.writes.Refused`` with a sentence a player can read when the
rules refuse the change; nothing is written then.
"""

from django.core.exceptions import ValidationError
from django.db import transaction

from campaigns.models import Membership
from campaigns.systems import system_of
from core.names import plain_name
from core.push import push_facts
from core.text import isolated
from core.writes import Refused
from rules import MAX_TARGET, RulesError
from rules import notation as rules_notation

from .models import Character, SavedRoll

#: What follows a character handed over in the apps above sheets, which it does not import
#: (pyproject.toml's contracts): each is called in the write's transaction, in order, before the
#: owner is written, as ``follow(campaign=..., character=..., to=...)``, and may refuse the
#: hand-over (``core.writes.Refused``: nothing changes). Rolls adds its own at ready() (the live
#: checks go with the character).
HAND_OVER_FOLLOWERS = []

# Characters ---------------------------------------------------------------------------------


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
    """The GM hands one of their own characters (an NPC), or a former member's (its player
    deleted their account), to ``to``, a player of the campaign:
    the player owns it from now on (sees its private side and rolls its checks), the GM keeps
    the GM's rights on it. Its live checks go with it: their cards are pushed to the new player
    (and again to the GM, who no longer rolls them). Refused while it has a live GM-secret
    check, which only the GM's own characters roll."""
    gm_id = campaign.gm_id()
    with transaction.atomic(savepoint=False):
        owners = list(
            Character.objects.select_for_update()
            .filter(pk=character.pk, campaign=campaign)
            .values_list("owner_id", flat=True)
        )
        if not owners or owners[0] not in (None, gm_id):
            raise Refused(
                "Only the GM's own characters (NPCs) and former members' can be handed over."
            )
        players = Membership.objects.filter(campaign=campaign, role=Membership.PLAYER)
        if to is None or not players.filter(user_id=to.pk).exists():
            raise Refused("Choose a player of this campaign.")
        # The party shows whose it is (and now to its player): its pages fetch it again.
        push_facts(campaign, [character])
        # Its live checks go with it, or refuse (room.push.checks_follow_character).
        for follow in HAND_OVER_FOLLOWERS:
            follow(campaign=campaign, character=character, to=to)
        Character.objects.filter(pk=character.pk).update(owner=to)
        character.owner = to
    return character


# Saved rolls ----------------------------------------------------------------------------------

#: How long a saved roll's name may be (its column's length).
SAVED_NAME_MAX = SavedRoll._meta.get_field("name").max_length
#: How many saved rolls a character keeps.
SAVED_MAX = 50


def _saved_name(name):
    """``name`` stripped, or Refused: the ``/r`` key of a saved roll, so never dice notation
    (``/r 2d6`` always rolls 2d6) and without ":" (``/r Character:name`` picks whose)."""
    name = " ".join((name or "").split())
    if not name:
        raise Refused("Name the saved roll.")
    if len(name) > SAVED_NAME_MAX:
        raise Refused(f"A saved roll's name has at most {SAVED_NAME_MAX} characters.")
    try:
        plain_name(name)
    except ValidationError as error:
        raise Refused(error.messages[0]) from None
    if ":" in name:
        raise Refused("A saved roll's name has no “:” (/r Character:name picks whose roll).")
    try:
        rules_notation.parse(name)
    except RulesError:
        return name
    raise Refused(
        f"“{isolated(name)}” reads as dice notation, which /r rolls as it is: name it in "
        "words (e.g. “Sword”)."
    )


def saved_roll_add(*, campaign, character, name, notation="", check=None, target=None):
    """A saved roll of ``character``: dice ``notation`` (checked as ``/r`` reads it), or with
    ``check`` (what the sheet's form sent) the choices of a check of the campaign's system,
    which checks and keeps them (``saved_check_clean``). ``target``: the number an NPC's saved
    check is rolled against (None: asked at each roll); a player's check has the GM's. Its name
    is unique among the character's saved rolls whatever its case. Refused: anything else."""
    name = _saved_name(name)
    notation = (notation or "").strip()
    choices = None
    if check is None:
        if not notation:
            raise Refused("Type the dice to roll, e.g. 2d6+3, or choose a check.")
        try:
            rules_notation.parse(notation)
        except RulesError as error:
            raise Refused(str(error)) from None
        if target is not None:
            raise Refused("Dice notation states its own target: add “vs 12” to it.")
    else:
        notation = ""
        choices = system_of(campaign).saved_check_clean(character, check)
        if target is not None:
            if character.owner_id != campaign.gm_id():
                raise Refused("The GM sets the number of a player's check when it is rolled.")
            if isinstance(target, bool) or not isinstance(target, int):
                raise Refused(f"The number must be a whole number from 1 to {MAX_TARGET}.")
            if not 1 <= target <= MAX_TARGET:
                raise Refused(f"The number must be a whole number from 1 to {MAX_TARGET}.")
    with transaction.atomic(savepoint=False):
        # Two saves of one name at once: the second waits here and finds the first.
        Character.objects.select_for_update().filter(pk=character.pk).first()
        kept = list(SavedRoll.objects.filter(character=character).values_list("name", "position"))
        if len(kept) >= SAVED_MAX:
            raise Refused(f"A character keeps at most {SAVED_MAX} saved rolls.")
        if any(other.casefold() == name.casefold() for other, _ in kept):
            who, what = isolated(character.name), isolated(name)
            raise Refused(f"{who} already has a roll named “{what}”.")
        return SavedRoll.objects.create(
            character=character,
            name=name,
            notation=notation,
            choices=choices,
            target=target if choices is not None else None,
            position=max((position for _, position in kept), default=0) + 1,
        )


def saved_roll_delete(*, character, saved):
    """``saved`` leaves ``character``'s saved rolls (Refused: another character's)."""
    with transaction.atomic(savepoint=False):
        deleted, _ = SavedRoll.objects.filter(pk=saved.pk, character=character).delete()
        if not deleted:
            raise Refused("This saved roll is already gone.")
