"""How a socket's consumer waits for what it handles: each source (the client's frames, the
channel layer's messages) read by a task of its own, for the consumer's whole life, each
message handled in turn.

Channels' ``AsyncConsumer.__call__`` (channels 4.3.2, pinned in requirements.txt) waits with
``channels.utils.await_many_dispatch``: for every message it starts a new task to read the
next one and sets up ``asyncio.wait`` over both sources again: every push to a room woke three
tasks per socket and started one more, and in a full room that bookkeeping, not the sending,
was most of the server's work for a push.
``consume`` reads each source in one task that lives as long as the consumer: a message wakes
only that task, which handles it. Handling stays as Channels has it: one message at a time, in
the order each source gave them (a lock, fair, between the two sources), the next message of a
source read only once its last one was handled; a handler raising (``StopConsumer`` at the
end) ends the consumer, the other source's reader cancelled, nothing handled after it.
tests/core/test_consumers.py checks what this keeps of Channels' loop.
"""

import asyncio
import functools

from channels.exceptions import StopConsumer
from channels.layers import get_channel_layer


async def dispatch_each(receivers, dispatch):
    """Read each of ``receivers`` (coroutine functions giving one message each) in a task of
    its own and ``await dispatch(message)`` for each message, one at a time, until a dispatch
    raises: that exception is raised here, once the readers are cancelled."""
    lock = asyncio.Lock()
    stopped = False

    async def read(receive):
        nonlocal stopped
        while True:
            message = await receive()
            async with lock:
                if stopped:
                    return
                try:
                    await dispatch(message)
                except BaseException:
                    stopped = True
                    raise

    readers = [asyncio.ensure_future(read(receive)) for receive in receivers]
    try:
        done, _pending = await asyncio.wait(readers, return_when=asyncio.FIRST_EXCEPTION)
        for reader in done:
            reader.result()  # the exception that ended it
    finally:
        for reader in readers:
            reader.cancel()
        for reader in readers:
            try:
                await reader
            except (asyncio.CancelledError, StopConsumer):
                pass


async def consume(consumer, scope, receive, send):
    """``AsyncConsumer.__call__`` for ``consumer`` (an ``AsyncConsumer``) with ``dispatch_each``
    in place of ``await_many_dispatch``: its scope, its channel on the layer, its send, then
    every message of the client and of the layer dispatched until ``StopConsumer``."""
    consumer.scope = scope
    consumer.channel_layer = get_channel_layer(consumer.channel_layer_alias)
    receivers = [receive]
    if consumer.channel_layer is not None:
        consumer.channel_name = await consumer.channel_layer.new_channel()
        consumer.channel_receive = functools.partial(
            consumer.channel_layer.receive, consumer.channel_name
        )
        receivers.append(consumer.channel_receive)
    consumer.base_send = send
    try:
        await dispatch_each(receivers, consumer.dispatch)
    except StopConsumer:
        pass
