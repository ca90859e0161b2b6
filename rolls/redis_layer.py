"""The channel layer of several processes (REDIS_URL): channels_redis's, with every push it
drops for a full queue logged as a warning that names the channels (as rolls/layers.py does),
and fewer round trips to Redis for a group send (two instead of four) and for each message a
process receives (three instead of four).

channels_redis (4.3.0, pinned) drops a push in two places, and says so at most at INFO:

- ``group_send``: the sockets of one process share one queue in Redis, of ``capacity``
  messages; a push to a group skips the processes whose queue is full (the process fell
  behind, or stopped reading). channels_redis logs only how many queues, at INFO. Here its
  script returns which queues were full, and the warning names their channels.
- ``receive``: the process keeps each socket's pushes in a buffer of ``capacity`` messages,
  which drops its oldest message to take one more (this socket stopped reading, or its
  consumer is gone without leaving its groups), silently. Here the buffer logs the drop.
"""

import logging
import time

from channels_redis.core import BoundedQueue, RedisChannelLayer

from .layers import warn_dropped

logger = logging.getLogger(__name__)

# channels_redis's group send script, returning the (1-based) positions of the full queues
# instead of their count, and dropping each queue's expired messages first (channels_redis
# does that in a round trip of its own).
GROUP_SEND = """
local full = {}
local current_time = ARGV[#ARGV - 2]
local expiry = ARGV[#ARGV - 1]
local expired = ARGV[#ARGV]
for i = 1, #KEYS do
    redis.call('ZREMRANGEBYSCORE', KEYS[i], 0, expired)
    if redis.call('ZCOUNT', KEYS[i], '-inf', '+inf') < tonumber(ARGV[i + #KEYS]) then
        redis.call('ZADD', KEYS[i], current_time, ARGV[i])
        redis.call('EXPIRE', KEYS[i], expiry)
    else
        full[#full + 1] = i
    end
end
return full
"""


# channels_redis's script that puts a message popped by a cancelled receive back at the head of
# its queue (from the queue's backup, where every popped message waits until it was handed on).
RESTORE_BACKUP = """
local backed_up = redis.call('ZRANGE', ARGV[2], 0, -1, 'WITHSCORES')
for i = #backed_up, 1, -2 do
    redis.call('ZADD', ARGV[1], backed_up[i], backed_up[i - 1])
end
redis.call('DEL', ARGV[2])
"""


class ReceiveBuffer(BoundedQueue):
    """One local channel's buffer: channels_redis's, which drops its oldest message when full,
    logging the drop and how many this channel has lost so far."""

    def __init__(self, maxsize, channel):
        super().__init__(maxsize)
        self.channel = channel
        self.dropped = 0

    def put_nowait(self, item):
        if self.full():
            self.dropped += 1
            logger.warning(
                "Push dropped for channel %s, its %d buffered pushes unread (%d dropped so far)",
                self.channel,
                self.maxsize,
                self.dropped,
            )
        return super().put_nowait(item)


class ReceiveBuffers(dict):
    """The buffers by local channel name, made on first use (as channels_redis's defaultdict)."""

    def __init__(self, size):
        super().__init__()
        self.size = size

    def __missing__(self, channel):
        buffer = self[channel] = ReceiveBuffer(self.size, channel)
        return buffer


class RoomRedisChannelLayer(RedisChannelLayer):
    """channels_redis's layer, warning of each push dropped (one warning per push for as long
    as a channel stays full), with two round trips to Redis per group send instead of four and
    three per message received instead of four."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.receive_buffer = ReceiveBuffers(self.capacity)
        #: The queues (Redis keys) whose backup this process knows to be empty.
        self.backups_empty = set()

    async def _brpop_with_clean(self, index, channel, timeout):
        """channels_redis's blocking pop of the next message of ``channel`` (a queue's key),
        which first restores its backup (a message a cancelled receive popped but did not hand
        on) to the queue, in a round trip of its own before every pop. Here that round trip is
        made only when the backup may hold something: on the queue's first pop in this process,
        and after a pop or a backup clean-up that did not finish (cancelled)."""
        connection = self.connection(index)
        backup = self._backup_channel_name(channel)
        if channel not in self.backups_empty:
            await connection.eval(RESTORE_BACKUP, 0, channel, backup)
        self.backups_empty.discard(channel)
        result = await connection.bzpopmin(channel, timeout=timeout)
        if result is None:
            self.backups_empty.add(channel)
            return None
        _, member, timestamp = result
        await connection.zadd(backup, {member: float(timestamp)})
        return member

    async def _clean_receive_backup(self, index, channel):
        """channels_redis's removal of a handed-on message from the backup (which then is
        empty: one receive of a queue at a time, ``receive_single``'s lock)."""
        await super()._clean_receive_backup(index, channel)
        self.backups_empty.add(channel)

    async def group_send(self, group, message):
        """channels_redis's ``group_send`` in two round trips per Redis host (its own takes
        four): the group's expired members out and the members read in one pipeline, then each
        host's queues cleaned of expired messages and written in one script; the full queues'
        channels are logged. (Expired messages are deleted through their queue's host, where
        channels_redis may use another host's connection: the same one with a single Redis.)"""
        assert self.require_valid_group_name(group), "Group name not valid"
        key = self._group_key(group)
        connection = self.connection(self.consistent_hash(group))
        pipe = connection.pipeline(transaction=False)
        pipe.zremrangebyscore(key, min=0, max=int(time.time()) - self.group_expiry)
        pipe.zrange(key, 0, -1)
        _, members = await pipe.execute()
        channels = [x.decode("utf8") for x in members]
        keys_by_index, messages, capacities = self._map_channel_keys_to_connection(
            channels, message
        )
        full_keys = set()
        for index, keys in keys_by_index.items():
            args = [messages[k] for k in keys] + [capacities[k] for k in keys]
            now = time.time()
            full = await self.connection(index).eval(
                GROUP_SEND, len(keys), *keys, *args, now, self.expiry, int(now) - int(self.expiry)
            )
            full_keys.update(keys[position - 1] for position in full)
        if full_keys:
            dropped = [c for c in channels if self.channel_key(c) in full_keys]
            warn_dropped(group, dropped, len(channels))

    def channel_key(self, channel):
        """The Redis key of the queue that ``channel``'s messages go to."""
        return self.prefix + (self.non_local_name(channel) if "!" in channel else channel)
