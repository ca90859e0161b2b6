"""The GM's hand through real sockets (room.consumers): a group check reaches each player with
their own card only, an NPC's hidden roll reaches the players as a stub, and an NPC handed over
brings its live check to its new player."""

import re
from contextlib import AsyncExitStack

import pytest
from channels.db import database_sync_to_async
from django.urls import reverse

from rolls import services
from rolls.models import PRIVATE, SECRET
from tests.rolls.sockets import DIE, NOTE, SEQ, before_mark, build_harbor_table, post, room

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.asyncio,
    pytest.mark.usefixtures("empty_channel_layer"),
]

INTENT = "Lure them into the warehouse"


@pytest.fixture
def table(mana_campaign, gm, player, other_player):
    """The Mana campaign with a skill, Mira (ana's), Tobin (ben's) and the GM's NPC, and a
    logged-in client and its session cookie for each (sockets.build_harbor_table, as in
    test_consumers)."""
    return build_harbor_table(mana_campaign, gm, player, other_player)


async def test_a_group_check_reaches_each_player_with_their_card(table):
    mira, tobin = table.characters["ana"], table.characters["ben"]
    async with AsyncExitStack() as stack:
        gm, ana, ben = await room(stack, table)
        data = {
            "character": [mira.pk, tobin.pk],
            "mana_skill": table.skill.pk,
            "target": 3,
            "note": NOTE,
            "visibility": PRIVATE,
        }
        response = await post(table, "gm", "check_ask", data)
        assert response.status_code == 200
        gms, anas, bens = await before_mark(gm, ana, ben)
        assert len(gms) == 2 and "Mira" in "".join(gms) and "Tobin" in "".join(gms)
        [anas_card] = anas
        assert "Mira" in anas_card and NOTE in anas_card and "Tobin" not in anas_card
        assert 'name="spend_a"' in anas_card  # her roll form
        [bens_card] = bens
        assert "Tobin" in bens_card and "Mira" not in bens_card


@pytest.mark.parametrize("visibility", [PRIVATE, SECRET])
async def test_an_npcs_hidden_roll_reaches_the_players_as_a_stub(table, visibility):
    npc = table.characters["gm"]
    async with AsyncExitStack() as stack:
        gm, ana, ben = await room(stack, table)
        data = {
            "character": npc.pk,
            "target": 3,
            "visibility": visibility,
            "note": NOTE,
            "skill": table.skill.pk,
            "color_a": "blue",
            "color_b": "white",
            "spend_a": 2,
            "spend_b": 2,
            "colorless": 0,
            "intent": INTENT,
        }
        response = await post(table, "gm", "npc_roll", data)
        assert response.status_code == 200
        gms, *players = await before_mark(gm, ana, ben)
        gms = [f for f in gms if SEQ.search(f)]
        assert len(gms) == 1 and DIE.search(gms[0]) and NOTE in gms[0]
        for frames in players:
            assert len([f for f in frames if SEQ.search(f)]) == 1
            for frame in frames:  # the entry's stub, and no card
                assert not DIE.search(frame) and not re.search(r"success|failure", frame)
                assert NOTE not in frame and INTENT not in frame and "check-" not in frame


async def test_an_npc_handed_over_brings_its_live_check_to_its_player(table):
    npc = table.characters["gm"]
    check = await database_sync_to_async(services.check_ask)(
        campaign=table.campaign, character=npc, by=table.gm, target=3, note=NOTE
    )
    async with AsyncExitStack() as stack:
        gm, ana, ben = await room(stack, table)
        response = await post(table, "gm", "character_hand_over", {"to": table.gm.pk}, npc.pk)
        assert response.status_code == 422  # the GM is no player
        ana_id = table.characters["ana"].owner_id
        response = await post(table, "gm", "character_hand_over", {"to": ana_id}, npc.pk)
        assert response.status_code == 200
        # Every member's party learns whose the NPC is (a facts push naming it, nothing else).
        facts = f"<!--facts {npc.pk}-->"
        anas, gms, bens = await before_mark(ana, gm, ben)
        [card] = [f for f in anas if f != facts]
        assert f'id="check-{check.pk}"' in card and NOTE in card
        assert reverse("check_roll", args=[table.campaign.pk, check.pk]) in card
        [gms_card] = [f for f in gms if f != facts]
        assert "Waiting for ana to roll" in gms_card
        assert bens == [facts]
