"""What the scene's writes push, heard through real sockets (config.asgi, the in-memory channel
layer): a scene shown reaches every member's room with its log entry; a GM-only token reaches
the GM's socket alone, and is in no player's push; a refused write reaches nobody."""

from contextlib import AsyncExitStack

import pytest
from channels.db import database_sync_to_async

from scene import services
from tests.rolls.sockets import before_mark, post, room, with_clients
from tests.scene.conftest import picture_bytes

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.asyncio,
    pytest.mark.usefixtures("empty_channel_layer"),
]


@pytest.fixture
def table(pool_table, gm, player, other_player):
    table = with_clients(pool_table, gm, player, other_player)
    table.scene = services.scene_add(
        campaign=pool_table.campaign, name="The ford", upload=picture_bytes(size=(400, 300))
    )
    return table


def card(frames):
    [html] = [f for f in frames if 'id="scene"' in f]
    assert 'hx-swap-oob="true"' in html
    return html


async def test_a_shown_scene_reaches_everyone_with_its_entry(table):
    async with AsyncExitStack() as stack:
        sockets = await room(stack, table)
        response = await post(table, "gm", "scene_show", {}, table.scene.pk)
        assert response.status_code == 200
        url = table.scene.picture.get_absolute_url()
        for frames in await before_mark(*sockets, presence=False):
            assert len(frames) == 2
            entry, scene = frames
            assert "The GM showed the scene The ford" in entry
            assert url in card([scene]) and f'data-scene="{table.scene.pk}"' in scene

        response = await post(table, "gm", "scene_hide", {})
        assert response.status_code == 200
        for frames in await before_mark(*sockets, presence=False):
            html = card(frames)
            assert url not in html and " hidden>" in html


async def test_a_gm_only_token_never_reaches_a_players_socket(table):
    await database_sync_to_async(services.scene_show)(scene=table.scene, by=table.gm)
    async with AsyncExitStack() as stack:
        gm, ana, ben = await room(stack, table)
        data = {"name": "Lurker", "colour": "#000000", "gm_only": "on"}
        response = await post(table, "gm", "token_add", data, table.scene.pk)
        assert response.status_code == 200
        to_gm, to_ana, to_ben = await before_mark(gm, ana, ben, presence=False)
        assert "Lurker, token (GM only)" in card(to_gm)
        assert to_ana == [] and to_ben == []

        data = {"character": table.ilse.pk, "colour": "#1f618d"}
        response = await post(table, "gm", "token_add", data, table.scene.pk)
        assert response.status_code == 200
        to_gm, to_ana, to_ben = await before_mark(gm, ana, ben, presence=False)
        assert "Lurker" in card(to_gm) and "Ilse, token" in card(to_gm)
        for frames in (to_ana, to_ben):
            assert "Ilse, token" in card(frames) and "Lurker" not in card(frames)

        grid = {"grid": 25, "grid_x": 3, "grid_y": 4, "snap": "on"}
        response = await post(table, "gm", "scene_grid", grid, table.scene.pk)
        assert response.status_code == 200
        for frames in await before_mark(gm, ana, ben, presence=False):
            assert 'data-grid="25" data-grid-x="3" data-grid-y="4"' in card(frames)
        assert all("Lurker" not in f for f in to_ana + to_ben)


async def test_a_refused_write_reaches_nobody(table):
    await database_sync_to_async(services.scene_show)(scene=table.scene, by=table.gm)
    async with AsyncExitStack() as stack:
        sockets = await room(stack, table)
        response = await post(table, "gm", "scene_grid", {"grid": 501}, table.scene.pk)
        assert response.status_code == 422
        response = await post(table, "gm", "token_add", {"colour": "#000000"}, table.scene.pk)
        assert response.status_code == 422
        assert await before_mark(*sockets, presence=False) == [[], [], []]
