"""The channel layer of several processes: channels_redis's, with the pushes it drops for a
full queue logged as warnings naming the channels. The buffers are tested alone; the layer
itself on Redis, skipped unless REDIS_URL is set."""

import asyncio
import logging
import os
import uuid

import pytest
import pytest_asyncio

from rolls.redis_layer import ReceiveBuffer, ReceiveBuffers, RoomRedisChannelLayer

needs_redis = pytest.mark.skipif(
    not os.environ.get("REDIS_URL"), reason="needs Redis: set REDIS_URL=redis://..."
)


def test_a_full_buffer_drops_its_oldest_push_with_a_warning_and_a_count(caplog):
    buffers = ReceiveBuffers(1)
    buffer = buffers["specific.abc!def"]
    assert isinstance(buffer, ReceiveBuffer) and buffers["specific.abc!def"] is buffer
    buffer.put_nowait({"n": 1})
    with caplog.at_level(logging.WARNING, logger="rolls.redis_layer"):
        buffer.put_nowait({"n": 2})
        buffer.put_nowait({"n": 3})
    assert [r.levelno for r in caplog.records] == [logging.WARNING] * 2
    assert [r.getMessage() for r in caplog.records] == [
        f"Push dropped for channel specific.abc!def, its 1 buffered pushes unread ({n} dropped"
        " so far)"
        for n in (1, 2)
    ]
    assert buffer.get_nowait() == {"n": 3}


@pytest_asyncio.fixture
async def layers():
    """``layers(n, capacity)``: that many layers, as of that many processes, on a prefix of
    their own in REDIS_URL's database, flushed afterwards."""
    made = []
    prefix = f"rollroom-test-{uuid.uuid4().hex}"

    def make(n, capacity):
        made.extend(
            RoomRedisChannelLayer(hosts=[os.environ["REDIS_URL"]], prefix=prefix, capacity=capacity)
            for _ in range(n)
        )
        return made[-n:]

    yield make
    for layer in made:
        await layer.flush()


@needs_redis
@pytest.mark.asyncio
async def test_a_group_send_names_the_channels_of_a_full_queue_in_a_warning(layers, caplog):
    behind, reading = layers(2, capacity=1)
    late = await behind.new_channel()
    fine = await reading.new_channel()
    await behind.group_add("room", late)
    await behind.group_add("room", fine)
    await behind.group_send("room", {"type": "room.push", "n": 1})
    assert await reading.receive(fine) == {"type": "room.push", "n": 1}
    with caplog.at_level(logging.WARNING, logger="rolls.layers"):
        await reading.group_send("room", {"type": "room.push", "n": 2})
    [record] = caplog.records
    assert record.levelno == logging.WARNING
    assert (
        record.getMessage() == f"Push to group room dropped for 1 of its 2 channels, full: {late}"
    )
    assert await reading.receive(fine) == {"type": "room.push", "n": 2}
    assert await behind.receive(late) == {"type": "room.push", "n": 1}


@needs_redis
@pytest.mark.asyncio
async def test_a_socket_that_stops_reading_loses_its_oldest_push_with_a_warning(layers, caplog):
    [layer] = layers(1, capacity=1)
    reader, stalled = [await layer.new_channel() for _ in range(2)]
    for channel in (reader, stalled):
        await layer.group_add("room", channel)
    await layer.group_send("room", {"type": "room.push", "n": 1})
    assert await layer.receive(reader) == {"type": "room.push", "n": 1}  # and buffers stalled's
    await layer.group_send("room", {"type": "room.push", "n": 2})
    with caplog.at_level(logging.WARNING, logger="rolls.redis_layer"):
        assert await layer.receive(reader) == {"type": "room.push", "n": 2}
    [record] = caplog.records
    assert record.levelno == logging.WARNING
    assert record.getMessage() == (
        f"Push dropped for channel {stalled}, its 1 buffered pushes unread (1 dropped so far)"
    )
    assert await layer.receive(stalled) == {"type": "room.push", "n": 2}


@needs_redis
@pytest.mark.asyncio
async def test_a_process_restores_its_queues_backup_only_when_a_receive_was_cut_short(
    layers, monkeypatch
):
    """channels_redis restores a queue's backup before every pop (a round trip); here only on
    the queue's first pop and after a cancelled receive, and nothing is lost."""
    import redis.asyncio

    from rolls.redis_layer import RESTORE_BACKUP

    restores = []
    real_eval = redis.asyncio.Redis.eval

    async def eval(self, script, *args):
        if script == RESTORE_BACKUP:
            restores.append(args)
        return await real_eval(self, script, *args)

    monkeypatch.setattr(redis.asyncio.Redis, "eval", eval)
    [layer] = layers(1, capacity=10)
    channel = await layer.new_channel()
    await layer.group_add("room", channel)
    for n in range(3):
        await layer.group_send("room", {"type": "room.push", "n": n})
    assert [(await layer.receive(channel))["n"] for _ in range(3)] == [0, 1, 2]
    assert len(restores) == 1

    waiting = asyncio.ensure_future(layer.receive(channel))
    await asyncio.sleep(0.2)  # in its blocking pop
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await layer.group_send("room", {"type": "room.push", "n": 3})
    assert (await layer.receive(channel))["n"] == 3
    assert len(restores) == 2
