"""A handout's pushes, heard through real sockets (config.asgi, the channel layer of the run):
each member it is shared with, and the GM, receive their own list; no other socket receives
anything of it, neither its title nor that there was one; a refused share pushes nothing; pages
outside the room hear nothing of handouts."""

from contextlib import AsyncExitStack

import pytest
from channels.db import database_sync_to_async
from django.core.files.uploadedfile import SimpleUploadedFile

from scene import services
from scene.models import Handout
from tests.rolls.sockets import before_mark, enter, post, with_clients
from tests.scene.conftest import picture_bytes

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.asyncio,
    pytest.mark.usefixtures("empty_channel_layer"),
]

USERS = ("gm", "ana", "ben")
SECRET = "The smugglers meet at midnight"


@pytest.fixture
def table(pool_table, gm, player, other_player):
    return with_clients(pool_table, gm, player, other_player)


async def sockets(stack, table, path=""):
    """The GM's, ana's and ben's sockets, having read what they heard on opening."""
    opened = {name: await enter(stack, table, name, path=path) for name in USERS}
    await heard(opened)
    return opened


async def heard(opened):
    """What each socket heard until now (``before_mark``), presence lists left out."""
    frames = await before_mark(*opened.values(), presence=False)
    return dict(zip(opened, frames, strict=True))


def form(**overrides):
    return {
        "handout-title": SECRET,
        "handout-text": "Bring the lantern.",
        "handout-audience": "everyone",
        **overrides,
    }


async def share(table, **overrides):
    response = await post(table, "gm", "scene_handout_share", form(**overrides))
    assert response.status_code == 200, response.content.decode()
    return response


async def test_a_handout_for_one_player_reaches_them_and_the_gm_alone(table, player):
    async with AsyncExitStack() as stack:
        opened = await sockets(stack, table)
        await share(table, **{"handout-audience": "chosen", "handout-recipients": [player.pk]})
        got = await heard(opened)
        assert got["ben"] == []  # not the title, not a frame: nothing
        [ana] = got["ana"]
        assert SECRET in ana and "Bring the lantern." in ana
        assert 'id="handouts-list"' in ana and 'hx-swap-oob="outerHTML"' in ana
        assert 'id="handouts-news"' in ana and "New handout:" in ana
        assert "Delete" not in ana  # a player's list: no GM's buttons
        [gm] = got["gm"]
        assert SECRET in gm and "Delete" in gm and "handouts-news" not in gm


async def test_a_handout_for_everyone_reaches_each_with_their_own_list(table, player, other_player):
    await database_sync_to_async(services.handout_share)(
        campaign=table.campaign, title="Only for ana", everyone=False, recipients=[player]
    )
    async with AsyncExitStack() as stack:
        opened = await sockets(stack, table)
        await share(table)
        got = await heard(opened)
        [ana], [ben], [gm] = got["ana"], got["ben"], got["gm"]
        assert SECRET in ana and SECRET in ben and SECRET in gm
        assert "Only for ana" in ana and "Only for ana" in gm
        assert "Only for ana" not in ben  # ben's list is ben's


async def test_a_handout_with_an_image_names_its_address_to_those_it_is_for(table, player):
    picture = SimpleUploadedFile("clue.png", picture_bytes(), content_type="image/png")
    async with AsyncExitStack() as stack:
        opened = await sockets(stack, table)
        data = {"handout-audience": "chosen", "handout-recipients": [player.pk]}
        await share(table, **data, **{"handout-picture": picture})
        got = await heard(opened)
        handout = await database_sync_to_async(Handout.objects.select_related("picture").get)()
        address = handout.picture.get_absolute_url()
        assert address in got["ana"][0] and address in got["gm"][0]
        assert got["ben"] == []


async def test_a_delete_reaches_those_it_was_shared_with_alone(table, player):
    handout = await database_sync_to_async(services.handout_share)(
        campaign=table.campaign, title=SECRET, everyone=False, recipients=[player]
    )
    async with AsyncExitStack() as stack:
        opened = await sockets(stack, table)
        response = await post(table, "gm", "scene_handout_delete", {}, handout.pk)
        assert response.status_code == 200
        got = await heard(opened)
        assert got["ben"] == []
        [ana], [gm] = got["ana"], got["gm"]
        assert SECRET not in ana and "No handouts for you yet." in ana
        assert "handouts-news" not in ana  # nothing new to say
        assert SECRET not in gm


async def test_a_refused_share_pushes_nothing(table, player):
    async with AsyncExitStack() as stack:
        opened = await sockets(stack, table)
        bad = SimpleUploadedFile("clue.png", b"MZ\x90\x00" + b"\0" * 100)
        response = await post(
            table,
            "gm",
            "scene_handout_share",
            form(**{"handout-picture": bad, "handout-audience": "chosen"}),
        )
        assert response.status_code == 422
        response = await post(table, "gm", "scene_handout_share", form(**{"handout-picture": bad}))
        assert response.status_code == 422
        assert await heard(opened) == {name: [] for name in USERS}
        assert not await database_sync_to_async(Handout.objects.exists)()


async def test_pages_outside_the_room_hear_nothing_of_handouts(table, player):
    async with AsyncExitStack() as stack:
        opened = await sockets(stack, table, path="facts/")
        await share(table)
        assert await heard(opened) == {name: [] for name in USERS}
