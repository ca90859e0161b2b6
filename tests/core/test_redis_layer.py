"""The channel layer of several processes: channels_redis's, with the pushes it drops for a
full queue logged as warnings naming the channels. The buffers are tested alone; the layer
itself on Redis, skipped unless REDIS_URL is set."""

import asyncio
import logging
import os
import threading
import time
import uuid

import pytest
import pytest_asyncio
import redis
from asgiref.sync import async_to_sync

from core.redis_layer import ReceiveBuffer, ReceiveBuffers, RoomRedisChannelLayer

#: How long a cancelled receive may take to end (a swallowed cancellation takes a minute).
TIMEOUT = 10

needs_redis = pytest.mark.skipif(
    not os.environ.get("REDIS_URL"), reason="needs Redis: set REDIS_URL=redis://..."
)


def test_a_full_buffer_drops_its_oldest_push_with_a_warning_and_a_count(caplog):
    buffers = ReceiveBuffers(1)
    buffer = buffers["specific.abc!def"]
    assert isinstance(buffer, ReceiveBuffer) and buffers["specific.abc!def"] is buffer
    buffer.put_nowait({"n": 1})
    with caplog.at_level(logging.WARNING, logger="core.redis_layer"):
        buffer.put_nowait({"n": 2})
        buffer.put_nowait({"n": 3})
    assert [r.levelno for r in caplog.records] == [logging.WARNING] * 2
    assert [r.getMessage() for r in caplog.records] == [
        f"Push dropped for channel specific.abc!def, its 1 buffered pushes unread ({n} dropped"
        " so far)"
        for n in (1, 2)
    ]
    assert buffer.get_nowait() == {"n": 3}


def queue_of(layer, channel):
    """The Redis key of the queue a process-specific channel's messages go to."""
    return layer.prefix + layer.non_local_name(channel)


def record_commands(monkeypatch):
    """The names of the commands the layers' asyncio Redis clients send from now on."""
    import redis.asyncio

    calls = []
    real = redis.asyncio.Redis.execute_command

    async def execute_command(self, *args, **options):
        calls.append(args[0])
        return await real(self, *args, **options)

    monkeypatch.setattr(redis.asyncio.Redis, "execute_command", execute_command)
    return calls


async def blocked_in_redis(timeout=10):
    """Wait until Redis holds a client of REDIS_URL's database (this worker's, tests/workers.py)
    blocked in a BZPOPMIN (``CLIENT LIST``: flag b)."""
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    database = str(client.connection_pool.connection_kwargs.get("db", 0))
    try:
        async with asyncio.timeout(timeout):
            while not any(
                c["db"] == database and "b" in c["flags"] and c["cmd"] == "bzpopmin"
                for c in await asyncio.to_thread(client.client_list)
            ):
                await asyncio.sleep(0.01)  # polled: Redis tells no one when a client blocks
    finally:
        client.close()


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
    with caplog.at_level(logging.WARNING, logger="core.layers"):
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
    with caplog.at_level(logging.WARNING, logger="core.redis_layer"):
        assert await layer.receive(reader) == {"type": "room.push", "n": 2}
    [record] = caplog.records
    assert record.levelno == logging.WARNING
    assert record.getMessage() == (
        f"Push dropped for channel {stalled}, its 1 buffered pushes unread (1 dropped so far)"
    )
    assert await layer.receive(stalled) == {"type": "room.push", "n": 2}


@needs_redis
@pytest.mark.asyncio
async def test_a_message_is_received_in_one_round_trip_and_a_receive_cut_short_loses_nothing(
    layers, monkeypatch
):
    """channels_redis copies each popped message to a backup and removes it again (three round
    trips per message); here one blocking pop. A receive cancelled while it waits leaves the
    next message in the queue."""
    [layer] = layers(1, capacity=10)
    channel = await layer.new_channel()
    await layer.group_add("room", channel)
    calls = record_commands(monkeypatch)
    for n in range(3):
        await layer.group_send("room", {"type": "room.push", "n": n})
    assert [(await layer.receive(channel))["n"] for _ in range(3)] == [0, 1, 2]
    assert calls == ["EVAL"] * 3 + ["BZPOPMIN"] * 3

    waiting = asyncio.ensure_future(layer.receive(channel))
    await blocked_in_redis()  # in its blocking pop
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await layer.group_send("room", {"type": "room.push", "n": 3})
    assert (await layer.receive(channel))["n"] == 3


@needs_redis
@pytest.mark.asyncio
async def test_a_group_send_reaches_every_process_in_one_round_trip_with_one_message_each(
    layers, monkeypatch
):
    """One script per group send; each process's queue gets the message once, naming its
    channels, and every member channel receives it."""
    first, second = layers(2, capacity=10)
    channels = [await first.new_channel() for _ in range(2)] + [await second.new_channel()]
    for channel in channels:
        await first.group_add("room", channel)
    calls = record_commands(monkeypatch)
    await first.group_send("room", {"type": "room.push", "html": "<p>é</p>", "n": [1, {"2": 3}]})
    assert calls == ["EVAL"]
    monkeypatch.undo()
    connection = first.connection(0)
    for layer in (first, second):
        assert await connection.zcard(queue_of(layer, await layer.new_channel())) == 1
    expected = {"type": "room.push", "html": "<p>é</p>", "n": [1, {"2": 3}]}
    assert await first.receive(channels[0]) == expected
    assert await first.receive(channels[1]) == expected
    assert await second.receive(channels[2]) == expected


@needs_redis
@pytest.mark.asyncio
async def test_a_group_send_skips_expired_members_and_expired_messages(layers):
    [layer] = layers(1, capacity=1)
    gone, here = [await layer.new_channel() for _ in range(2)]
    connection = layer.connection(0)
    group = layer._group_key("room")
    await connection.zadd(group, {gone: time.time() - layer.group_expiry - 5, here: time.time()})
    queue = queue_of(layer, here)
    await connection.zadd(queue, {b"stale": time.time() - layer.expiry - 5})  # fills capacity 1
    await layer.group_send("room", {"type": "room.push", "n": 1})
    assert await connection.zrange(group, 0, -1) == [here.encode()]
    assert await layer.receive(here) == {"type": "room.push", "n": 1}


@needs_redis
def test_a_request_thread_sends_in_order_without_the_event_loop(caplog):
    """``group_send_blocking``: the pushes of one write, sent from its thread through the
    process's synchronous client, arrive in order; a full queue is logged as from the event
    loop."""
    prefix = f"rollroom-test-{uuid.uuid4().hex}"
    reading, behind = (
        RoomRedisChannelLayer(hosts=[os.environ["REDIS_URL"]], prefix=prefix, capacity=2)
        for _ in range(2)
    )
    fine = async_to_sync(reading.new_channel)()
    late = async_to_sync(behind.new_channel)()
    for group, channel in (("room", fine), ("room", late), ("gm", fine)):
        async_to_sync(reading.group_add)(group, channel)
    for n in (-1, 0):  # fill late's queue
        async_to_sync(behind.send)(late, {"type": "room.push", "n": n})
    with caplog.at_level(logging.WARNING, logger="core.layers"):
        reading.group_send_blocking(
            [("room", {"type": "room.push", "n": 1}), ("gm", {"type": "room.push", "n": 2})]
        )
    assert [r.getMessage() for r in caplog.records] == [
        f"Push to group room dropped for 1 of its 2 channels, full: {late}"
    ]

    async def receive_two():
        return [await reading.receive(fine), await reading.receive(fine)]

    assert async_to_sync(receive_two)() == [
        {"type": "room.push", "n": 1},
        {"type": "room.push", "n": 2},
    ]
    async_to_sync(reading.flush)()
    async_to_sync(behind.flush)()


def test_one_script_serves_one_redis_server_without_encryption_only():
    url = "redis://127.0.0.1:6379/15"
    assert RoomRedisChannelLayer(hosts=[url]).one_script
    assert not RoomRedisChannelLayer(hosts=[url, "redis://127.0.0.1:6380/0"]).one_script
    assert not RoomRedisChannelLayer(hosts=[url], symmetric_encryption_keys=["k"]).one_script
    assert not RoomRedisChannelLayer(hosts=[url], channel_capacity={"x*": 5}).one_script


@needs_redis
@pytest.mark.asyncio
@pytest.mark.parametrize("turns", range(12))
async def test_a_receive_cancelled_as_it_takes_over_the_blocking_pop_ends_at_once(turns):
    """A process's sockets share one blocking pop: when the socket holding it leaves, the next
    takes it over, and may leave too at any moment of that. Its receive ends when cancelled,
    whatever the moment (``turns`` of the event loop after the first left): Python 3.11's
    wait_for, which redis-py wraps its socket writes in, swallows a cancellation that comes as
    the write completes, and the receive went on into a pop of ``brpop_timeout`` (here a
    minute), again and again."""
    # A pop of a minute, and replies awaited for longer (as config/settings.py has it).
    host = {"address": os.environ["REDIS_URL"], "socket_timeout": 120}
    layer = RoomRedisChannelLayer(hosts=[host], prefix=f"rollroom-test-{uuid.uuid4().hex}")
    layer.brpop_timeout = 60
    receives = [asyncio.ensure_future(layer.receive(await layer.new_channel())) for _ in range(3)]
    await blocked_in_redis()
    for receive in receives:
        receive.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(receive), TIMEOUT)
        for _ in range(turns):
            await asyncio.sleep(0)
    # The pop they left goes on: a message for the process ends it, kept for the next receive.
    channel = await layer.new_channel()
    await layer.send(channel, {"type": "room.push", "n": 1})
    assert await layer.receive(channel) == {"type": "room.push", "n": 1}
    await layer.flush()


@needs_redis
@pytest.mark.parametrize("turns", range(12))
def test_an_event_loop_closing_with_a_pop_left_by_its_receive_closes_at_once(turns):
    """A socket that leaves leaves its pop to the next receive of its process; when the event
    loop ends instead (``asyncio.run``, each test's own loop), the pop is cancelled with what
    else is left and ends: redis-py may swallow that cancellation (Python 3.11's wait_for around
    its socket writes), and the pop then waited out ``brpop_timeout`` (here a minute) before the
    loop could close; it is cancelled again until it ends."""
    host = {"address": os.environ["REDIS_URL"], "socket_timeout": 120}
    layer = RoomRedisChannelLayer(hosts=[host], prefix=f"rollroom-test-{uuid.uuid4().hex}")
    layer.brpop_timeout = 60

    async def a_socket_comes_and_goes():
        receive = asyncio.ensure_future(layer.receive(await layer.new_channel()))
        while not layer.pops:  # the receive's pop has started
            await asyncio.sleep(0)
        for _ in range(turns):  # and is connecting, sending, or blocked in Redis
            await asyncio.sleep(0)
        receive.cancel()
        with pytest.raises(asyncio.CancelledError):
            await receive
        assert layer.pops  # left for the next receive of the process: none comes

    closed = threading.Event()

    def run():
        asyncio.run(a_socket_comes_and_goes())
        closed.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert closed.wait(TIMEOUT), "the loop waited for the pop's reply"
    thread.join(TIMEOUT)
