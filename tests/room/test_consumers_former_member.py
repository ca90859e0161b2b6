"""A member deletes their account while the table is in the room (room.consumers, through
real sockets): their sockets close, the others' presence lists drop them, and a replay of the
log shows their entries as a former member's."""

from contextlib import AsyncExitStack

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from tests.conftest import PASSWORD
from tests.rolls.sockets import before_mark, enter, post, receive, room, with_clients

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.asyncio,
    pytest.mark.usefixtures("empty_channel_layer"),
]

#: The room's close code for a member who left (room.consumers.LEFT).
LEFT = 4403


async def presence_without(communicator, username):
    """Wait for the presence list without ``username`` (the party's facts push may come first;
    ``receive`` fails when nothing comes in time)."""
    while True:
        frame = await receive(communicator)
        if 'id="presence"' in frame and f"<li>{username}</li>" not in frame:
            return frame


@pytest.fixture
def table(pool_table, gm, player, other_player):
    return with_clients(pool_table, gm, player, other_player)


async def test_she_leaves_the_room_and_her_entries_stay(table):
    await post(table, "ana", "talk_say", {"text": "one"})
    await post(table, "ana", "talk_say", {"text": "/w ben FAREWELL-WHISPER"})
    async with AsyncExitStack() as stack:
        gm, ana, ben = await room(stack, table)
        await before_mark(gm, ana, ben)
        delete = sync_to_async(table.client["ana"].post)
        response = await delete(reverse("account_delete"), {"password": PASSWORD})
        assert response.status_code == 302
        assert await ana.receive_output(timeout=5) == {"type": "websocket.close", "code": LEFT}
        for other in (gm, ben):
            await presence_without(other, "ana")
        again = await enter(stack, table, "ben", query="?after=0")
        frames = [await receive(again) for _ in range(2)]
        assert "one" in frames[0] and "FAREWELL-WHISPER" in frames[1]
        assert all('<span class="former">a former member</span>' in frame for frame in frames)
        # The table talks on.
        await post(table, "gm", "talk_say", {"text": "on we go"})
        [heard] = await before_mark(ben, presence=False)
        assert any("on we go" in frame for frame in heard)
