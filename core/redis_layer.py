"""The channel layer of several processes (REDIS_URL): channels_redis's, with every push it
drops for a full queue logged as a warning that names the channels (as core/layers.py does),
and fewer round trips to Redis: one for a group send instead of four, one for each message a
process receives instead of three or four.

A group send is one Lua script (``GROUP_SEND``) that reads the group's members and writes the
message once to each process's queue. A request's pushes go out from its own thread through a
synchronous Redis client (``group_send_blocking``), without a trip into the event loop; the
consumers' own sends (presence) run the same script from the event loop.

channels_redis (4.3.0, pinned) drops a push in two places, and says so at most at INFO:

- ``group_send``: the sockets of one process share one queue in Redis, of ``capacity``
  messages; a push to a group skips the processes whose queue is full (the process fell
  behind, or stopped reading). channels_redis logs only how many queues, at INFO. Here the
  script returns which channels' queues were full, and the warning names them. (With several
  Redis servers, or encryption, channels_redis's own group send runs, and says only that.)
- ``receive``: the process keeps each socket's pushes in a buffer of ``capacity`` messages,
  which drops its oldest message to take one more (this socket stopped reading, or its
  consumer is gone without leaving its groups), silently. Here the buffer logs the drop.
"""

import asyncio
import logging
import random
import threading
import time

import msgpack
from channels_redis.core import BoundedQueue, RedisChannelLayer
from channels_redis.serializers import MsgPackSerializer
from channels_redis.utils import create_pool
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from core import shared_redis
from core.shared_redis import outage

from .layers import send_each_in_loop, warn_dropped

logger = logging.getLogger(__name__)

# A group send in one round trip: the group's expired members dropped and the rest read, then
# each process's queue (a channel's key up to its "!") cleaned of expired messages and written
# once, naming that queue's channels, unless it is full. What it writes is the message's random
# head, the queue's channel names (a MessagePack array) and the message (a MessagePack map);
# ``RoomRedisChannelLayer.deserialize`` reads both that and channels_redis's own format.
# Returns the group's member count, then the channels of the full queues. It reads keys it is
# not given (the queues): fine on one Redis server, which is the only case it is used in.
GROUP_SEND = """
local prefix, head, body = ARGV[1], ARGV[2], ARGV[3]
local now, expiry, expired = ARGV[4], ARGV[5], ARGV[6]
local capacity = tonumber(ARGV[8])
redis.call('ZREMRANGEBYSCORE', KEYS[1], 0, ARGV[7])
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
local queues, order = {}, {}
for _, channel in ipairs(members) do
    local bang = string.find(channel, '!', 1, true)
    local queue = prefix .. (bang and string.sub(channel, 1, bang) or channel)
    if queues[queue] == nil then
        queues[queue] = {}
        order[#order + 1] = queue
    end
    table.insert(queues[queue], channel)
end
local result = {#members}
for _, queue in ipairs(order) do
    redis.call('ZREMRANGEBYSCORE', queue, 0, expired)
    if redis.call('ZCARD', queue) < capacity then
        redis.call('ZADD', queue, now, head .. cmsgpack.pack(queues[queue]) .. body)
        redis.call('EXPIRE', queue, expiry)
    else
        for _, channel in ipairs(queues[queue]) do
            result[#result + 1] = channel
        end
    end
end
return result
"""

#: The first byte of a MessagePack array (fixarray, array 16, array 32): how a message written
#: by GROUP_SEND is told from channels_redis's own (a map).
ARRAY_MARKERS = frozenset(range(0x90, 0xA0)) | {0xDC, 0xDD}


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


async def blocking_pop(connection, key, timeout):
    """``connection``'s BZPOPMIN of ``key``, run as a task of its own that ends when it is
    cancelled (the loop closing: ``asyncio.run`` and each test's loop cancel what is left).
    redis-py's pop may swallow a cancellation (Python 3.11's wait_for around its socket writes)
    and then wait out its ``timeout`` for the reply: it is cancelled again until it ends."""
    pop = asyncio.ensure_future(connection.bzpopmin(key, timeout=timeout))
    pop.add_done_callback(retrieved)
    try:
        await asyncio.wait([pop])
    except asyncio.CancelledError:
        while not pop.done():
            pop.cancel()
            await asyncio.wait([pop], timeout=0.05)
        raise
    return pop.result()


def retrieved(task):
    """Mark a pop's failure seen: a pop left by its receive may fail with nobody waiting (no
    "exception never retrieved" then); a receive waiting for it still gets the error."""
    if not task.cancelled():
        task.exception()


class RoomRedisChannelLayer(RedisChannelLayer):
    """channels_redis's layer, warning of each push dropped (one warning per push for as long
    as a channel stays full), with one round trip to Redis per group send instead of four
    (none of them through the event loop when a request sends) and one per message received
    instead of three or four."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.receive_buffer = ReceiveBuffers(self.capacity)
        self.one_script = self.fits_one_script()
        self.blocking_lock = threading.Lock()
        self.blocking_group_send = None
        #: The blocking pop of each key under way (``pop``), its receive maybe gone.
        self.pops = {}

    async def receive_single(self, channel):
        """The next message of ``channel`` (a process's queue, or a plain channel) and the
        channel (or channels) it is for: one blocking pop, one round trip.

        channels_redis makes three (four with the restore of the queue's backup before each
        pop): the blocking pop, then the popped message copied to a backup queue, then that
        copy removed once handed on, so that a receive cancelled between the pop and the hand-on
        puts the message back. Here a cancelled receive leaves its pop to the next receive
        (``pop``), and nothing is awaited between the reply and the hand-on, so there is no
        moment for a cancellation to lose it, and no copy to make."""
        assert self.require_valid_channel_name(channel, receive=True), "Channel name invalid"
        if "!" in channel:
            assert channel.endswith("!")
            index = self.consistent_hash(channel)
        else:
            index = next(self._receive_index_generator)
        connection = self.connection(index)
        key = self.prefix + channel
        popped = None
        while popped is None:
            popped = await self.pop(connection, key)
        return self.unpack(channel, popped)

    async def pop(self, connection, key):
        """One blocking pop of ``key``: its reply, None after ``brpop_timeout``.

        The pop runs as a task of its own, which a receive only waits for: a cancelled receive
        ends at once, and the pop goes on, for the next receive of ``key`` to wait for or take
        (``pops``): no second pop at the same time, no reply lost. Cancelled with the receive,
        the pop could go on regardless: redis-py wraps its socket writes in Python 3.11's
        wait_for, which swallows a cancellation that comes as the write completes, and the
        receive then waited in the pop (``brpop_timeout``), again and again."""
        pop = self.pops.get(key)
        if not self.usable(pop):
            pop = asyncio.ensure_future(blocking_pop(connection, key, self.brpop_timeout))
            pop.add_done_callback(retrieved)
            if "!" in key:  # a process's queue, which one receive at a time pops
                self.pops[key] = pop
        await asyncio.wait([pop])
        if self.pops.get(key) is pop:
            del self.pops[key]
        return pop.result()

    @staticmethod
    def usable(pop):
        """Whether a pop left by a receive is the next receive's: of this event loop, and not
        failed (Redis went away meanwhile: the next receive pops anew)."""
        if pop is None or pop.get_loop() is not asyncio.get_running_loop():
            return False
        return not pop.done() or (not pop.cancelled() and pop.exception() is None)

    def unpack(self, channel, popped):
        """The channel (or channels) a popped message is for, and the message."""
        message = self.deserialize(popped[1])
        if "__asgi_channel__" in message:
            channel = message.pop("__asgi_channel__")
        return channel, message

    def create_pool(self, index):
        """channels_redis's pool, whose connections try a failed command once more on a new
        connection. After Redis restarted, the pool's idle connections are closed by the server
        it had: without this, the first command of each (a socket's group_add, the receive
        loop's pop) failed and closed the socket with 1011, once per connection left over."""
        return create_pool({"retry": Retry(NoBackoff(), 1), **self.hosts[index]})

    def fits_one_script(self):
        """Whether GROUP_SEND can make this layer's group sends: one Redis server named by its
        address, MessagePack messages with a random head and no encryption, one capacity for
        every channel (else channels_redis's group send does, in four round trips)."""
        serializer = self._serializer
        return (
            self.ring_size == 1
            and "address" in self.hosts[0]
            and isinstance(serializer, MsgPackSerializer)
            and serializer.crypter is None
            and serializer.random_prefix_length > 0
            and not self.channel_capacity
        )

    def group_send_arguments(self, group, message):
        """GROUP_SEND's keys and arguments for sending ``message`` to ``group``."""
        assert self.require_valid_group_name(group), "Group name not valid"
        assert isinstance(message, dict), "Message is not a dict"
        now = time.time()
        length = self._serializer.random_prefix_length
        head = random.getrandbits(8 * length).to_bytes(length, "big")
        arguments = [
            self.prefix,
            head,
            msgpack.packb(message),
            now,
            self.expiry,
            int(now) - int(self.expiry),
            int(now) - self.group_expiry,
            self.capacity,
        ]
        return [self._group_key(group)], arguments

    def sent(self, group, result):
        """Log the channels a group send skipped for a full queue (GROUP_SEND's ``result``)."""
        members, *full = result
        if full:
            warn_dropped(group, [channel.decode() for channel in full], members)

    async def group_send(self, group, message):
        """A group send in one round trip (GROUP_SEND); the channels of full queues logged."""
        if not self.one_script:
            return await super().group_send(group, message)
        keys, arguments = self.group_send_arguments(group, message)
        result = await self.connection(0).eval(GROUP_SEND, len(keys), *keys, *arguments)
        self.sent(group, result)

    def group_send_blocking(self, sends):
        """Send each (group, message) of ``sends``, in order, from a thread other than the event
        loop's (a request's): GROUP_SEND through this process's synchronous Redis client, one
        round trip each, with no trip into the event loop.

        When Redis cannot be reached the pushes are dropped and counted, and the write that
        made them answers as usual (core/shared_redis.py: one warning per outage, and a back
        off during which nothing is tried); its sockets replay the log when they return."""
        if not self.one_script:
            return send_each_in_loop(self, sends)
        if not outage.available():
            outage.drop(len(sends))
            return
        script = self.blocking_script()
        for index, (group, message) in enumerate(sends):
            keys, arguments = self.group_send_arguments(group, message)
            try:
                result = script(keys=keys, args=arguments)
            except shared_redis.ERRORS as error:
                outage.failed(error)
                outage.drop(len(sends) - index)
                return
            self.sent(group, result)
        outage.succeeded()

    def blocking_script(self):
        """GROUP_SEND bound to this process's synchronous client (core/shared_redis.py: made
        on first use, its connection pool serves every thread, it gives up quickly)."""
        with self.blocking_lock:
            if self.blocking_group_send is None:
                client = shared_redis.client(self.hosts[0]["address"])
                self.blocking_group_send = client.register_script(GROUP_SEND)
            return self.blocking_group_send

    async def group_add(self, group, channel):
        """channels_redis's; a socket that joins its groups shows this process Redis is back."""
        await super().group_add(group, channel)
        outage.succeeded()

    def deserialize(self, message):
        """A message as GROUP_SEND wrote it (its queue's channels, then the message), or as
        channels_redis writes it."""
        length = self._serializer.random_prefix_length
        if self.one_script and message[length] in ARRAY_MARKERS:
            unpacker = msgpack.Unpacker()
            unpacker.feed(message[length:])
            channels = unpacker.unpack()
            body = unpacker.unpack()
            body["__asgi_channel__"] = channels
            return body
        return super().deserialize(message)
