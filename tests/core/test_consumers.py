"""How a consumer waits for its messages (core.consumers): what it keeps of Channels' own loop
(``channels.utils.await_many_dispatch``): each source's messages handled in order, one message
at a time over both sources, the next one of a source read only once its last one was handled,
and the consumer ended by a handler raising, with nothing handled after it."""

import asyncio

import pytest
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from core.consumers import consume, dispatch_each

pytestmark = pytest.mark.asyncio


def source(*messages):
    """A receiver giving ``messages`` in turn, then waiting for ever; and the reads made."""
    queue = asyncio.Queue()
    for message in messages:
        queue.put_nowait(message)
    reads = []

    async def receive():
        reads.append(len(reads))
        return await queue.get()

    return receive, queue, reads


async def test_each_sources_messages_are_handled_in_order_one_at_a_time():
    client, _, _ = source(*[{"n": f"c{i}"} for i in range(5)])
    layer, _, _ = source(*[{"n": f"l{i}"} for i in range(5)])
    handled, running = [], []

    async def dispatch(message):
        assert not running, "two messages handled at once"
        running.append(message)
        await asyncio.sleep(0)  # a handler that awaits lets the other source's reader run
        running.pop()
        handled.append(message["n"])
        if len(handled) == 10:
            raise StopConsumer

    with pytest.raises(StopConsumer):
        await asyncio.wait_for(dispatch_each([client, layer], dispatch), timeout=5)
    assert [n for n in handled if n[0] == "c"] == [f"c{i}" for i in range(5)]
    assert [n for n in handled if n[0] == "l"] == [f"l{i}" for i in range(5)]


async def test_a_source_is_read_again_only_once_its_message_was_handled():
    client, queue, reads = source({"n": 1}, {"n": 2})
    handled = asyncio.Queue()
    release = asyncio.Event()

    async def dispatch(message):
        await handled.put(message["n"])
        await release.wait()

    task = asyncio.ensure_future(dispatch_each([client], dispatch))
    assert await asyncio.wait_for(handled.get(), timeout=5) == 1
    assert len(reads) == 1  # the second message waits in its source, unread
    release.set()
    assert await asyncio.wait_for(handled.get(), timeout=5) == 2
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_a_handler_raising_ends_it_and_nothing_is_handled_after():
    client, _, _ = source({"n": "stop"})
    layer, layer_queue, _ = source()
    handled = []

    async def dispatch(message):
        handled.append(message["n"])
        if message["n"] == "stop":
            layer_queue.put_nowait({"n": "late"})  # already on its way when it stops
            raise StopConsumer

    with pytest.raises(StopConsumer):
        await asyncio.wait_for(dispatch_each([client, layer], dispatch), timeout=5)
    await asyncio.sleep(0)
    assert handled == ["stop"]


async def test_an_error_in_a_handler_is_raised_and_the_readers_are_cancelled():
    client, _, _ = source({"n": 1})
    layer, _, layer_reads = source()

    async def dispatch(message):
        raise ValueError("a bug")

    with pytest.raises(ValueError, match="a bug"):
        await asyncio.wait_for(dispatch_each([client, layer], dispatch), timeout=5)
    assert layer_reads == [0]  # its reader was waiting, and is gone


class Echo(AsyncWebsocketConsumer):
    """A consumer on ``consume``: echoes the client's frames, forwards the layer's pushes."""

    async def __call__(self, scope, receive, send):
        await consume(self, scope, receive, send)

    async def connect(self):
        await self.channel_layer.group_add("echo", self.channel_name)
        await self.accept()

    async def receive(self, text_data=None, bytes_data=None):
        await self.send(text_data=f"echo {text_data}")

    async def echo_push(self, message):
        await self.send(text_data=message["text"])

    async def disconnect(self, code):
        await self.channel_layer.group_discard("echo", self.channel_name)


# Channels' own dispatch (this consumer's, unlike the room's PushConsumer) closes stale database
# connections before each message: the test needs the database.
@pytest.mark.django_db(transaction=True)
async def test_a_consumer_on_it_talks_to_its_client_and_hears_its_groups(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    communicator = WebsocketCommunicator(Echo.as_asgi(), "/echo/")
    connected, _ = await communicator.connect()
    assert connected
    await communicator.send_to(text_data="hello")
    assert await communicator.receive_from() == "echo hello"
    await get_channel_layer().group_send("echo", {"type": "echo.push", "text": "pushed"})
    assert await communicator.receive_from() == "pushed"
    await communicator.disconnect()
    assert not get_channel_layer().groups.get("echo")
