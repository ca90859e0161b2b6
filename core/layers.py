"""The channel layer of the embedded default (one process): Channels' in-memory layer, cheaper
per message.

Channels' ``InMemoryChannelLayer`` scans every channel's queue and every group's members for
expired entries on each receive and each group send, and group-sends through one task per
channel. With a room's sockets each waiting in ``receive``, that scan ran once per delivered
message and was most of the layer's cost. This layer cleans at most once every
``CLEAN_EVERY`` seconds (a message or a membership may outlive its expiry, 60 s and a day, by
that much) and sends to a group's channels one after the other, as the base layer's tasks do.

A push that a full channel misses is logged as a warning naming the channel (here and in the
layer of several processes, core/redis_layer.py): that socket fell behind, or its consumer is
gone without leaving the group.
"""

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


class RoomChannelLayer(InMemoryChannelLayer):
    cleaned_at = float("-inf")

    def _clean_expired(self):
        now = time.monotonic()
        if now - self.cleaned_at >= CLEAN_EVERY:
            self.cleaned_at = now
            super()._clean_expired()

    async def group_send(self, group, message):
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        channels = list(self.groups.get(group, ()))
        full = []
        for channel in channels:
            try:
                await self.send(channel, message)
            except ChannelFull:
                full.append(channel)  # as the base layer: a full channel misses this message
        if full:
            warn_dropped(group, full, len(channels))

    def group_send_blocking(self, sends):
        """Send each (group, message) of ``sends``, in order, from a request's thread."""
        send_each_in_loop(self, sends)
