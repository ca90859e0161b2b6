"""Writes on character sheets that touch several rows or models, each in one transaction.

Every function raises ``core.writes.Refused`` with a sentence a player can read when the
rules refuse the change; nothing is written then.
"""

from django.db import transaction

from campaigns.models import Membership
from campaigns.systems import system_of
from core.push import push_facts
from core.writes import Refused

from .models import Character

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
