"""How a write's pushes leave its request's thread (``core.push.group_send_all``): through the
channel layer, in order, in one trip into the event loop; with Redis away, dropped and counted,
the write untouched (core/shared_redis.py's outage). Live Redis stopped under a server:
tests/config/test_redis_down.py."""

import asyncio
import logging

import pytest
import redis
from asgiref.sync import async_to_sync
from channels.layers import InMemoryChannelLayer

from core import push
from core.shared_redis import outage


def test_a_request_thread_s_pushes_reach_their_groups_in_order(monkeypatch):
    layer = InMemoryChannelLayer()
    monkeypatch.setattr(push, "get_channel_layer", lambda: layer)
    channel = async_to_sync(layer.new_channel)()
    for group in ("room", "gm"):
        async_to_sync(layer.group_add)(group, channel)
    push.group_send_all([("room", {"n": 1}), ("gm", {"n": 2}), ("room", {"n": 3})])

    async def receive_three():
        return [await layer.receive(channel) for _ in range(3)]

    assert async_to_sync(receive_three)() == [
        {"type": "room.push", "n": 1},
        {"type": "room.push", "n": 2},
        {"type": "room.push", "n": 3},
    ]


class AwayLayer:
    """A Redis layer whose Redis is away until ``back``; the groups it sent to, in order."""

    def __init__(self):
        self.back = False
        self.sent = []

    async def group_send(self, group, message):
        if not self.back:
            raise redis.ConnectionError("Connection refused")
        self.sent.append(group)


@pytest.fixture
def away(monkeypatch):
    layer = AwayLayer()
    monkeypatch.setattr(push, "get_channel_layer", lambda: layer)
    return layer


def outage_warnings(caplog):
    return [r.getMessage() for r in caplog.records if r.name == "core.shared_redis"]


def test_with_redis_away_pushes_are_dropped_and_counted_with_one_warning(away, caplog, monkeypatch):
    sends = [("room", {"n": 1}), ("gm", {"n": 2})]
    with caplog.at_level(logging.WARNING, logger="core.shared_redis"):
        push.group_send_all(sends)  # tried: fails, the outage starts
        push.group_send_all(sends)  # backing off: not tried
    assert [m[:17] for m in outage_warnings(caplog)] == ["Redis unreachable"]
    assert outage.dropped == 4 and not outage.available()

    away.back = True
    monkeypatch.setattr(outage, "retry_at", 0.0)  # the back-off over
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="core.shared_redis"):
        push.group_send_all(sends)
    assert away.sent == ["room", "gm"]
    [said] = outage_warnings(caplog)
    assert said.startswith("Redis reachable again") and "4 pushes dropped meanwhile" in said


def test_a_redis_that_never_answers_drops_the_pushes_after_the_send_timeout(monkeypatch, caplog):
    """A Redis that takes the connection and never answers: the layer's connections wait for
    a reply without a timeout (config/settings.py); the request's thread does not."""

    class SilentLayer:
        async def group_send(self, group, message):
            await asyncio.Event().wait()

    monkeypatch.setattr(push, "get_channel_layer", SilentLayer)
    monkeypatch.setattr(push, "SEND_TIMEOUT", 0.01)
    with caplog.at_level(logging.WARNING, logger="core.shared_redis"):
        push.group_send_all([("room", {"n": 1})])
    assert [m[:17] for m in outage_warnings(caplog)] == ["Redis unreachable"]
    assert outage.dropped == 1
