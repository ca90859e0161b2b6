"""The channel layer of the embedded default (one process): Channels' in-memory layer, cheaper
per message.

Channels' ``InMemoryChannelLayer`` scans every channel's queue and every group's members for
expired entries on each receive and each group send, and group-sends through one task per
channel. With a room's sockets each waiting in ``receive``, that scan ran once per delivered
message and was most of the layer's cost. This layer cleans at most once every
``CLEAN_EVERY`` seconds (a message or a membership may outlive its expiry, 60 s and a day, by
that much) and sends to a group's channels one after the other, as the base layer's tasks do.
A message sent to one channel is copied for it by ``fresh`` (a message is JSON's shapes, which
the Redis layer sends too: a walk of its dicts and lists, not ``deepcopy``'s). A group's message
is copied so once, the sender's dict left to the sender, and its channels share that copy's
contents, each with a dict of its own: the room's consumers only read a message (a key one
added would not reach the others; tests/core/test_layers.py hands them one that cannot be
changed). Copying it for each of 100 sockets was a fifth of what a push cost a socket. A
channel's queue is made only when it has none (the base layer makes one for every send and
every receive, to throw it away).

``send``, ``receive`` and ``group_send`` follow Channels' own (channels 4.3.2, pinned in
requirements.txt, checked by tests/core/test_layers.py): a channel's queue in ``channels``
holds (expiry, message) pairs, and a receive that empties it removes it.

A push that a full channel misses is logged as a warning naming the channel (here and in the
layer of several processes, core/redis_layer.py): that socket fell behind, or its consumer is
gone without leaving the group.
"""

import asyncio
import logging
import time

from asgiref.sync import async_to_sync
from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer

CLEAN_EVERY = 1.0

logger = logging.getLogger(__name__)


def warn_dropped(group, full, members):
    """Log that a push to ``group`` (of ``members`` channels) missed the ``full`` channels."""
    logger.warning(
        "Push to group %s dropped for %d of its %d channels, full: %s",
        group,
        len(full),
        members,
        ", ".join(full),
    )


def send_each_in_loop(layer, sends):
    """Send each (group, message) of ``sends`` through ``layer``, in order, from a thread other
    than the event loop's: one trip into the event loop for them all."""

    async def send_each():
        for group, message in sends:
            await layer.group_send(group, message)

    async_to_sync(send_each)()


def fresh(value):
    """A copy of ``value``, a message: its dicts, lists and tuples copied, the rest (strings,
    numbers, None: what a message may hold besides) shared."""
    if isinstance(value, dict):
        return {key: fresh(item) for key, item in value.items()}
    if isinstance(value, list):
        return [fresh(item) for item in value]
    if isinstance(value, tuple):
        return tuple(fresh(item) for item in value)
    return value


class RoomChannelLayer(InMemoryChannelLayer):
    cleaned_at = float("-inf")

    def _clean_expired(self):
        now = time.monotonic()
        if now - self.cleaned_at >= CLEAN_EVERY:
            self.cleaned_at = now
            super()._clean_expired()

    def _queue(self, channel):
        queue = self.channels.get(channel)
        if queue is None:
            queue = self.channels[channel] = asyncio.Queue(maxsize=self.get_capacity(channel))
        return queue

    async def send(self, channel, message):
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_channel_name(channel)
        assert "__asgi_channel__" not in message
        self._put(channel, fresh(message))

    def _put(self, channel, message):
        try:
            self._queue(channel).put_nowait((time.time() + self.expiry, message))
        except asyncio.QueueFull:
            raise ChannelFull(channel) from None

    async def receive(self, channel):
        self.require_valid_channel_name(channel)
        self._clean_expired()
        queue = self._queue(channel)
        try:
            _, message = await queue.get()
        finally:
            if queue.empty():
                self.channels.pop(channel, None)
        return message

    async def group_send(self, group, message):
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        channels = list(self.groups.get(group, ()))
        assert "__asgi_channel__" not in message
        shared = fresh(message)  # once: what the sender does with its dict later is its own
        full = []
        for channel in channels:  # their names were checked when they joined (group_add)
            try:
                self._put(channel, dict(shared))
            except ChannelFull:
                full.append(channel)  # as the base layer: a full channel misses this message
        if full:
            warn_dropped(group, full, len(channels))

    def group_send_blocking(self, sends):
        """Send each (group, message) of ``sends``, in order, from a request's thread."""
        send_each_in_loop(self, sends)
