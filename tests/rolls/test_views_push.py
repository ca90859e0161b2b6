"""What the room's HTTP views push, heard through real sockets (config.asgi with the in-memory
channel layer): a check reaches only the GM and its owner, each in their variant; a private
roll reaches other players as a stub; a refused POST reaches nobody."""

import re
from contextlib import AsyncExitStack

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.urls import reverse

from config.asgi import application
from rolls.models import PRIVATE, Check
from tests.helpers import HTMX

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

TIMEOUT = 5
DIE = re.compile(r'class="die\b')


@pytest.fixture(autouse=True)
def empty_channel_layer():
    yield
    async_to_sync(get_channel_layer().flush)()


@pytest.fixture
def table(mana_table, gm, player, other_player):
    """The Mana table with a logged-in test client for each user."""
    mana_table.client = {}
    for user in (gm, player, other_player):
        client = Client()  # one client per user
        client.force_login(user)
        mana_table.client[user.username] = client
    return mana_table


async def enter(stack, mana_table, username):
    cookie = mana_table.client[username].cookies["sessionid"].value
    communicator = WebsocketCommunicator(
        application,
        f"/ws/campaigns/{mana_table.campaign.id}/",
        headers=[(b"origin", b"http://127.0.0.1"), (b"cookie", f"sessionid={cookie}".encode())],
    )
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    assert connected
    stack.push_async_callback(communicator.disconnect, timeout=TIMEOUT)
    return communicator


async def frames(communicator):
    """Every frame until the socket goes quiet, presence lists left out."""
    got = []
    while not await communicator.receive_nothing(timeout=0.3):
        frame = await communicator.receive_from(timeout=TIMEOUT)
        if 'id="presence"' not in frame:
            got.append(frame)
    return got


def post(mana_table, username, name, data, *args):
    path = reverse(name, args=[mana_table.campaign.id, *args])
    return mana_table.client[username].post(path, data, **HTMX)


async def test_check_and_private_roll_reach_only_who_may_see_them(table):
    mana_table = table
    async with AsyncExitStack() as stack:
        gm = await enter(stack, mana_table, "gm")
        ana = await enter(stack, mana_table, "ana")
        ben = await enter(stack, mana_table, "ben")
        for communicator in (gm, ana, ben):
            await frames(communicator)

        data = {"character": mana_table.mira.id, "mana_skill": mana_table.gather.id, "target": 3}
        data.update(note="SECRET-NOTE", visibility=PRIVATE)
        response = await sync_to_async(post)(mana_table, "gm", "check_ask", data)
        assert response.status_code == 200
        check = await database_sync_to_async(Check.objects.get)()

        [to_gm] = await frames(gm)
        [to_ana] = await frames(ana)
        assert await frames(ben) == []
        assert to_gm.startswith('<div hx-swap-oob="afterbegin:#checks">')
        assert reverse("check_cancel", args=[mana_table.campaign.id, check.id]) in to_gm
        assert reverse("check_roll", args=[mana_table.campaign.id, check.id]) in to_ana
        assert "SECRET-NOTE" in to_ana

        roll = {"skill": mana_table.gather.id, "color_a": "blue", "color_b": "white", "spend_a": 1}
        roll.update(spend_b=1, colorless=0, intent="INTENT-PRIVATE")
        response = await sync_to_async(post)(mana_table, "ana", "check_roll", roll, check.id)
        assert response.status_code == 204  # the card and the entry come on the sockets only

        gm_frames, ana_frames, ben_frames = [await frames(c) for c in (gm, ana, ben)]
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
        for communicator in sockets:
            await frames(communicator)
        roll = {"skill": mana_table.gather.id, "color_a": "blue", "color_b": "white", "spend_a": 9}
        response = await sync_to_async(post)(mana_table, "ana", "check_roll", roll, check.id)
        assert response.status_code == 422
        for communicator in sockets:
            assert await frames(communicator) == []
