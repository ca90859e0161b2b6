"""What the room's HTTP views push, heard through real sockets (config.asgi with the in-memory
channel layer): a check reaches only the GM and its owner, each in their variant; a private
roll reaches other players as a stub; a refused POST reaches nobody."""

from contextlib import AsyncExitStack

import pytest
from channels.db import database_sync_to_async
from django.urls import reverse

from rolls.models import PRIVATE, Check
from tests.rolls.sockets import DIE, before_mark, enter, post, with_clients

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.asyncio,
    pytest.mark.usefixtures("empty_channel_layer"),
]


@pytest.fixture
def table(mana_table, gm, player, other_player):
    """The Mana table with a logged-in test client and its session cookie for each user."""
    return with_clients(mana_table, gm, player, other_player)


async def test_check_and_private_roll_reach_only_who_may_see_them(table):
    mana_table = table
    async with AsyncExitStack() as stack:
        gm = await enter(stack, mana_table, "gm")
        ana = await enter(stack, mana_table, "ana")
        ben = await enter(stack, mana_table, "ben")
        await before_mark(gm, ana, ben, presence=False)

        data = {"character": mana_table.mira.id, "mana_skill": mana_table.gather.id, "target": 3}
        data.update(note="SECRET-NOTE", visibility=PRIVATE)
        response = await post(mana_table, "gm", "check_ask", data)
        assert response.status_code == 200
        check = await database_sync_to_async(Check.objects.get)()

        [to_gm], [to_ana], to_ben = await before_mark(gm, ana, ben, presence=False)
        assert to_ben == []
        assert to_gm.startswith('<div hx-swap-oob="afterbegin:#checks">')
        assert reverse("check_cancel", args=[mana_table.campaign.id, check.id]) in to_gm
        assert reverse("check_roll", args=[mana_table.campaign.id, check.id]) in to_ana
        assert "SECRET-NOTE" in to_ana

        roll = {"skill": mana_table.gather.id, "color_a": "blue", "color_b": "white", "spend_a": 1}
        roll.update(spend_b=1, colorless=0, intent="INTENT-PRIVATE")
        response = await post(mana_table, "ana", "check_roll", roll, check.id)
        assert response.status_code == 204  # the card and the entry come on the sockets only

        gm_frames, ana_frames, ben_frames = await before_mark(gm, ana, ben, presence=False)
        [ben_entry] = ben_frames  # the stub of the roll, nothing about the check
        assert 'hx-swap-oob="beforeend:#log"' in ben_entry
        assert "rolled privately" in ben_entry
        assert not DIE.search(ben_entry)
        assert "INTENT-PRIVATE" not in ben_entry and "SECRET-NOTE" not in ben_entry
        for mine in (gm_frames, ana_frames):
            facts, entry, update = mine  # the facts push registered during the roll, first
            assert DIE.search(entry) and "INTENT-PRIVATE" in entry
            assert f'<article id="check-{check.id}"' in update  # updated (failed) or gone (done)
            assert facts == f"<!--facts {mana_table.mira.id}-->"  # the spend changed the pool


async def test_a_refused_roll_reaches_nobody(table):
    mana_table = table
    check = await database_sync_to_async(
        lambda: Check.objects.create(
            campaign=mana_table.campaign,
            character=mana_table.mira,
            created_by=mana_table.gm,
            target=3,
        )
    )()
    async with AsyncExitStack() as stack:
        sockets = [await enter(stack, mana_table, name) for name in ("gm", "ana", "ben")]
        await before_mark(*sockets, presence=False)
        roll = {"skill": mana_table.gather.id, "color_a": "blue", "color_b": "white", "spend_a": 9}
        response = await post(mana_table, "ana", "check_roll", roll, check.id)
        assert response.status_code == 422
        assert await before_mark(*sockets, presence=False) == [[], [], []]
