"""Many room sockets of one process closing at the same moment (a drain, a network cut) all
leave their groups and the presence list, with the channel layer's Redis pool smaller than
their number: room.consumers.GroupSlots. Needs Redis (REDIS_URL): the in-memory layer has no
pool to run out of."""

import asyncio
import os
import uuid

import pytest
import redis
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings

from config.asgi import application
from core import push as core_push
from rolls.models import Presence
from room import consumers
from tests.rolls.sockets import ORIGIN, TIMEOUT, build_harbor_table

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.asyncio,
    pytest.mark.usefixtures("empty_channel_layer"),
    pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs Redis: set REDIS_URL"),
]

#: The sockets that close together, and the layer's pool: fewer connections than sockets.
SOCKETS = 24
POOL = 6


@pytest.fixture
def small_pool(settings):
    """The channel layer's Redis pool cut to ``POOL`` connections, and two joins or leaves at
    a time (the app's share of its pool of 1,000). The layer's keys have a prefix of their own:
    the other workers' socket tests share the Redis database, their campaigns' numbers and
    groups, and flush what has the default prefix."""
    layer = dict(django_settings.CHANNEL_LAYERS["default"])
    config = dict(layer["CONFIG"], prefix=f"mass-close-{uuid.uuid4().hex}")
    config["hosts"] = [dict(config["hosts"][0], max_connections=POOL)]
    settings.CHANNEL_LAYERS = {"default": dict(layer, CONFIG=config)}
    consumers.group_slots = consumers.GroupSlots(2)
    yield
    consumers.group_slots = consumers.GroupSlots(consumers.GROUP_SLOTS)


@pytest.fixture
def table(mana_campaign, gm, player, other_player, outsider):
    return build_harbor_table(mana_campaign, gm, player, other_player, outsider)


def members(group):
    """The channels in ``group``, as channels_redis keeps them in Redis."""
    layer = get_channel_layer()
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    try:
        return client.zcard(f"{layer.prefix}:group:{group}")
    finally:
        client.close()


async def test_sockets_closed_together_all_leave_their_groups_and_the_list(
    small_pool, table, player
):
    headers = [(b"origin", ORIGIN), (b"cookie", f"sessionid={table.cookie['ana']}".encode())]
    path = f"/ws/campaigns/{table.campaign.pk}/"
    sockets = [WebsocketCommunicator(application, path, headers=headers) for _ in range(SOCKETS)]
    opened = await asyncio.gather(*(s.connect(timeout=TIMEOUT) for s in sockets))
    assert all(connected for connected, _ in opened)
    room_group = core_push.group_name(table.campaign.pk)
    assert await sync_to_async(members)(room_group) == SOCKETS
    assert await Presence.objects.filter(campaign=table.campaign).acount() == SOCKETS

    await asyncio.gather(*(s.disconnect(timeout=TIMEOUT) for s in sockets))

    groups = [
        room_group,
        core_push.member_group_name(player.pk),
        core_push.user_group_name(table.campaign.pk, player.pk),
    ]
    for group in groups:
        assert await sync_to_async(members)(group) == 0, group
    assert await Presence.objects.filter(campaign=table.campaign).acount() == 0


async def test_sockets_closed_together_leave_one_after_the_other(small_pool, table, monkeypatch):
    """Each socket leaves all its groups in its turn, not one group per turn behind all the
    others: a drain's grace that ends while they leave cuts the last sockets' leaves, not
    every socket's."""
    consumers.group_slots = consumers.GroupSlots(1)
    headers = [(b"origin", ORIGIN), (b"cookie", f"sessionid={table.cookie['ana']}".encode())]
    path = f"/ws/campaigns/{table.campaign.pk}/"
    sockets = [WebsocketCommunicator(application, path, headers=headers) for _ in range(SOCKETS)]
    opened = await asyncio.gather(*(s.connect(timeout=TIMEOUT) for s in sockets))
    assert all(connected for connected, _ in opened)
    layer = get_channel_layer()
    discard = layer.group_discard
    left = []

    async def recorded(group, channel):
        left.append(channel)
        await discard(group, channel)

    monkeypatch.setattr(layer, "group_discard", recorded)

    await asyncio.gather(*(s.disconnect(timeout=TIMEOUT) for s in sockets))

    turns = [channel for k, channel in enumerate(left) if k == 0 or left[k - 1] != channel]
    assert len(turns) == len(set(turns)) == SOCKETS
