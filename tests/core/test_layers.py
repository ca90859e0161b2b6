"""The embedded default's channel layer: Channels' in-memory layer with throttled cleaning."""

import logging

import pytest
from channels.exceptions import ChannelFull

from core import layers
from core.layers import RoomChannelLayer

pytestmark = pytest.mark.asyncio


async def test_a_group_send_reaches_every_member_once_and_no_one_else():
    layer = RoomChannelLayer()
    a, b, c = [await layer.new_channel() for _ in range(3)]
    await layer.group_add("room", a)
    await layer.group_add("room", b)
    await layer.group_add("other", c)
    await layer.group_send("room", {"type": "room.push", "all": "<p>roll</p>"})
    assert await layer.receive(a) == {"type": "room.push", "all": "<p>roll</p>"}
    assert await layer.receive(b) == {"type": "room.push", "all": "<p>roll</p>"}
    assert a not in layer.channels and b not in layer.channels and c not in layer.channels


async def test_a_full_channel_misses_the_message_and_the_others_still_get_it():
    layer = RoomChannelLayer(capacity=1)
    full, fine = [await layer.new_channel() for _ in range(2)]
    await layer.send(full, {"type": "first"})
    with pytest.raises(ChannelFull):
        await layer.send(full, {"type": "second"})
    await layer.group_add("room", full)
    await layer.group_add("room", fine)
    await layer.group_send("room", {"type": "room.push"})
    assert await layer.receive(full) == {"type": "first"}
    assert await layer.receive(fine) == {"type": "room.push"}


async def test_a_push_a_full_channel_misses_is_a_warning_naming_the_channel(caplog):
    layer = RoomChannelLayer(capacity=1)
    full, fine = [await layer.new_channel() for _ in range(2)]
    await layer.send(full, {"type": "first"})
    await layer.group_add("room", full)
    await layer.group_add("room", fine)
    with caplog.at_level(logging.WARNING, logger="core.layers"):
        await layer.group_send("room", {"type": "room.push"})
    [record] = caplog.records
    assert record.levelno == logging.WARNING
    assert (
        record.getMessage() == f"Push to group room dropped for 1 of its 2 channels, full: {full}"
    )
    caplog.clear()
    await layer.receive(full)
    await layer.receive(fine)
    with caplog.at_level(logging.WARNING, logger="core.layers"):
        await layer.group_send("room", {"type": "room.push"})  # room for it everywhere
    assert caplog.records == []


async def test_expired_messages_and_memberships_go_at_the_next_cleaning(monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(layers.time, "monotonic", lambda: clock[0])
    layer = RoomChannelLayer(expiry=0)
    stale, member = [await layer.new_channel() for _ in range(2)]
    await layer.group_add("room", member)
    await layer.send(stale, {"type": "old"})
    layer.groups["room"][member] = 1.0  # joined long before the group expiry
    await layer.group_send("other", {"type": "x"})  # cleans: the first time always
    assert stale not in layer.channels and member not in layer.groups["room"]


async def test_cleaning_runs_at_most_once_per_interval(monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(layers.time, "monotonic", lambda: clock[0])
    layer = RoomChannelLayer(expiry=0)
    await layer.group_send("room", {"type": "x"})  # the first cleaning
    stale = await layer.new_channel()
    await layer.send(stale, {"type": "old"})
    await layer.group_send("room", {"type": "x"})
    assert stale in layer.channels  # not cleaned again yet
    clock[0] += layers.CLEAN_EVERY
    await layer.group_send("room", {"type": "x"})
    assert stale not in layer.channels


async def test_fresh_copies_a_message_s_containers_and_shares_its_strings():
    message = {
        "type": "room.push",
        "all": "<p>roll</p>",
        "users": {"7": "x"},
        "also": [{"gm": "y"}],
    }
    message["pair"] = (1, ["a"])
    copy = layers.fresh(message)
    assert copy == message
    assert copy is not message and copy["users"] is not message["users"]
    assert copy["also"] is not message["also"] and copy["also"][0] is not message["also"][0]
    assert copy["pair"][1] is not message["pair"][1]
    assert copy["all"] is message["all"]


async def test_a_group_s_channels_share_one_copy_of_its_message_each_in_a_dict_of_its_own():
    layer = RoomChannelLayer()
    channels = [await layer.new_channel() for _ in range(2)]
    for channel in channels:
        await layer.group_add("room", channel)
    message = {"type": "room.push", "users": {"7": "x"}, "also": [{"gm": "y"}]}
    await layer.group_send("room", message)
    message["users"]["7"] = "changed by the sender afterwards"
    first, second = [await layer.receive(channel) for channel in channels]
    assert first == second == {"type": "room.push", "users": {"7": "x"}, "also": [{"gm": "y"}]}
    assert first is not second and first["users"] is second["users"]
    first["mine"] = True
    assert "mine" not in second


async def test_a_channel_keeps_one_queue_while_it_holds_messages():
    layer = RoomChannelLayer()
    channel = await layer.new_channel()
    await layer.send(channel, {"type": "first"})
    queue = layer.channels[channel]
    await layer.group_add("room", channel)
    await layer.group_send("room", {"type": "second"})
    assert layer.channels[channel] is queue and queue.qsize() == 2
    assert [await layer.receive(channel) for _ in range(2)] == [
        {"type": "first"},
        {"type": "second"},
    ]
    assert channel not in layer.channels  # emptied: gone, as in the base layer


async def test_the_layer_follows_the_channels_it_was_read_against():
    """send, receive and group_send are written after channels 4.3.2's in-memory layer: its
    queues of (expiry, message) in ``channels``, which its own cleaning reads."""
    import channels
    from channels.layers import InMemoryChannelLayer

    assert channels.__version__ == "4.3.2"
    base, ours = InMemoryChannelLayer(), RoomChannelLayer()
    for layer in (base, ours):
        channel = await layer.new_channel()
        await layer.send(channel, {"type": "x"})
        ((expiry, message),) = list(layer.channels[channel]._queue)
        assert message == {"type": "x"} and expiry > 0
        with pytest.raises(AssertionError):
            await layer.send(channel, {"type": "x", "__asgi_channel__": "y"})
        with pytest.raises(TypeError):
            await layer.send("not a channel name!", {"type": "x"})
