"""HP from the party heard through real sockets (config.asgi, the in-memory channel layer): a
player's character's change reaches everyone, entry and facts; the GM's own character's reaches
the other players as a stub and no facts; a refused change reaches nobody."""

from contextlib import AsyncExitStack

import pytest

from tests.rolls.sockets import before_mark, enter, post, with_clients

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.asyncio,
    pytest.mark.usefixtures("empty_channel_layer"),
]


@pytest.fixture
def table(pool_table, gm, player, other_player):
    return with_clients(pool_table, gm, player, other_player)


async def test_hp_changes_reach_whoever_may_see_them_and_a_refusal_nobody(table):
    async with AsyncExitStack() as stack:
        gm = await enter(stack, table, "gm")
        ana = await enter(stack, table, "ana")
        ben = await enter(stack, table, "ben")
        await before_mark(gm, ana, ben, presence=False)

        response = await post(table, "gm", "party_hp", {"step": "-1"}, table.ilse.pk)
        assert response.status_code == 200
        for frames in await before_mark(gm, ana, ben, presence=False):
            entry, facts = frames
            assert 'hx-swap-oob="beforeend:#log"' in entry and "Ilse’s HP 10 → 9" in entry
            assert facts == f"<!--facts {table.ilse.pk}-->"

        response = await post(table, "gm", "party_hp", {"value": "3"}, table.npc.pk)
        assert response.status_code == 200
        [gm_frames, ana_frames, ben_frames] = await before_mark(gm, ana, ben, presence=False)
        entry, facts = gm_frames
        assert "The Ogre’s HP 10 → 3" in entry and facts == f"<!--facts {table.npc.pk}-->"
        for frames in (ana_frames, ben_frames):
            [stub] = frames  # no facts push: the GM's character is none of theirs to show
            assert "changed the HP of a character only the GM sees" in stub
            assert "Ogre" not in stub and "10 → 3" not in stub

        response = await post(table, "gm", "party_hp", {"value": "99"}, table.ilse.pk)
        assert response.status_code == 422
        assert await before_mark(gm, ana, ben, presence=False) == [[], [], []]
