"""Moves heard through the room's real websockets: in the order the server gave them, each
with a higher count, to every member; a token on the GM's layer to the GM's socket alone."""

import re
from contextlib import AsyncExitStack
from types import SimpleNamespace

import pytest
from channels.db import database_sync_to_async

from tests.rolls.sockets import before_mark, enter, online, post, with_clients
from tests.scene.move_setup import build_scene_table

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.asyncio,
    pytest.mark.usefixtures("empty_channel_layer"),
]

MOVES = re.compile(r'id="token-(\d+)"[^>]* data-x="(\d+)" data-y="(\d+)" data-moves="(\d+)"')


@pytest.fixture
def table(pool_campaign, gm, player, other_player):
    built = build_scene_table(pool_campaign, gm, player, other_player)
    return with_clients(SimpleNamespace(**vars(built)), gm, player, other_player)


def moves_in(frames):
    """(token id, x, y, count) of each token push among ``frames``."""
    return [tuple(map(int, m.groups())) for f in frames if (m := MOVES.search(f))]


async def room(stack, table):
    gm = await enter(stack, table, "gm")
    await online(gm)
    ana = await enter(stack, table, "ana", gm)
    await online(ana)
    ben = await enter(stack, table, "ben", gm, ana)
    await online(ben)
    return gm, ana, ben


async def test_moves_reach_every_member_in_order_with_rising_counts(table):
    mira = table.tokens.mira.pk
    async with AsyncExitStack() as stack:
        gm, ana, ben = await room(stack, table)
        for x in (60, 160, 360):
            response = await post(table, "ana", "token_move", {"x": x, "y": 10}, mira)
            assert response.status_code == 200
        response = await post(table, "gm", "token_move", {"x": 10, "y": 290}, mira)
        assert response.status_code == 200
        heard = await before_mark(gm, ana, ben, presence=False)
    expected = [(mira, 75, 25, 1), (mira, 175, 25, 2), (mira, 375, 25, 3), (mira, 25, 275, 4)]
    assert [moves_in(frames) for frames in heard] == [expected] * 3
    gms, anas, bens = heard
    assert all("data-movable" in f for f in gms + anas)  # the GM's and Mira's player's
    assert not any("data-movable" in f for f in bens)


async def test_a_gm_only_token_s_move_reaches_the_gm_and_never_a_player(table):
    ambush, guard = table.tokens.ambush.pk, table.tokens.guard.pk
    async with AsyncExitStack() as stack:
        gm, ana, ben = await room(stack, table)
        response = await post(table, "gm", "token_move", {"x": 210, "y": 10}, ambush)
        assert response.status_code == 200
        response = await post(table, "gm", "token_move", {"x": 10, "y": 10}, guard)
        assert response.status_code == 200
        gms, anas, bens = await before_mark(gm, ana, ben, presence=False)
    assert moves_in(gms) == [(ambush, 225, 25, 1), (guard, 25, 25, 1)]
    assert moves_in(anas) == moves_in(bens) == [(guard, 25, 25, 1)]
    for frame in anas + bens:
        assert "Ghoul" not in frame and f"token-{ambush}" not in frame


async def test_a_refused_move_pushes_nothing(table):
    mira = table.tokens.mira.pk
    async with AsyncExitStack() as stack:
        gm, ana, ben = await room(stack, table)
        response = await post(table, "ana", "token_move", {"x": 400, "y": 10}, mira)
        assert response.status_code == 422
        response = await post(table, "ben", "token_move", {"x": 10, "y": 10}, mira)
        assert response.status_code == 403
        assert await before_mark(gm, ana, ben, presence=False) == [[], [], []]
    assert (
        await database_sync_to_async(
            lambda: table.tokens.mira.__class__.objects.get(pk=mira).moves
        )()
        == 0
    )
