"""The room's websocket: members of a campaign receive what the server pushes, filtered per
viewer, and a socket that reconnects gets exactly the entries it missed, in order."""

import asyncio
import json
import logging
from datetime import timedelta
from urllib.parse import parse_qs

from autobahn.exception import Disconnected
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone

from campaigns.access import membership_of
from campaigns.models import Campaign
from core import push as core_push
from core.consumers import consume
from core.shared_redis import outage
from core.trips import trips
from rolls.models import LogEntry, Presence, after_place, with_recipients

from . import push

#: At most this many entries are replayed to one reconnecting socket (older ones: scroll).
REPLAY_LIMIT = 500

#: An entry pushed ahead of the one a socket expects is held this long (seconds) for the
#: missing one, before the socket reads the gap from the log. Two requests of one room commit
#: in order but may send their pushes in the other order (each request runs in a thread of its
#: own on PostgreSQL, and several processes send through Redis): waiting puts them back in
#: order without a read of the log per socket. A push dropped for good (a full channel) costs
#: its socket this much delay.
REORDER_WAIT = 1.0
#: A socket holding this many entries reads the log at once instead of waiting.
HOLD_LIMIT = 50

#: An open socket's presence row is refreshed this often (seconds); a row not refreshed for
#: PRESENCE_TTL is a socket gone without a word (its process died): nobody counts it.
HEARTBEAT = 25
PRESENCE_TTL = timedelta(seconds=60)
#: The process's heartbeat refreshes the rows of this many sockets per query (an SQL list
#: longer than SQLite's limit on parameters would be refused).
BEAT_CHUNK = 500
#: A room's joins and leaves that come within this many seconds of its last presence list go
#: out together at the end of that time, as one list (``PresenceNews``).
PRESENCE_GATHER = 0.25

logger = logging.getLogger(__name__)


def now():
    """The presence clock (tests set it)."""
    return timezone.now()


#: The largest frame a client may send, in bytes; the room's socket only listens.
MAX_CLIENT_FRAME = 1024

# The codes a consumer closes its socket with: the app's own reasons are 4xxx (after HTTP's
# statuses); daphne (autobahn) refuses any code but 1000 and 3000-4999. The page
# (static/js/site.js) reopens a socket only after 1006, 1011, 1012 and 1013, and after two codes of
# config's: config.views.TRY_AGAIN_LATER (4503) and config.shutdown.SERVICE_RESTART (4012: a
# process restarting closes every socket with it); a socket closed with any of the codes below
# stays closed. A close gives a reason too, which daphne does not pass on (only the code reaches
# the client, django/daphne#374); nothing in the pages reads it. (A frame far over the limit never
# reaches the consumer: daphne drops its connection, DAPHNE_WEBSOCKET_MAX_* in
# config/settings.py.)
#: A socket whose user was removed from the campaign or logged out.
LEFT = 4403
#: A socket whose user's role in the campaign changed (a GM handed it over): the page, a GM's or
#: a player's, is no longer theirs, and static/js/site.js loads it again (HTTP's 205, Reset
#: Content). Closed as LEFT, the new GM would sit on a player's page until they reloaded it.
RECAST = 4205
#: A client's frame over MAX_CLIENT_FRAME.
TOO_BIG = 4413
#: A client's binary frame.
BINARY = 4415
#: A client's text frame that is not a JSON object (htmx's ws extension sends JSON objects).
MALFORMED = 4400
CLOSE_CODES = (LEFT, RECAST, TOO_BIG, BINARY, MALFORMED)

#: What a send to a socket already closing raises: autobahn's error under daphne, an OSError
#: (as ASGI asks) under other servers.
SOCKET_GONE = (Disconnected, OSError)


class PushConsumer(AsyncWebsocketConsumer):
    """A websocket consumer without Channels' trip to the database thread before every message
    (to close stale connections): forwarding a push needs no database, and database work here
    goes through ``database_sync_to_async``, which does that itself; and waiting for its
    messages with a task per source for its whole life (``core.consumers.consume``), not a new
    task and wait per message."""

    async def __call__(self, scope, receive, send):
        await consume(self, scope, receive, send)

    async def dispatch(self, message):
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def websocket_disconnect(self, message):
        """The socket closed: ``disconnect``, then the consumer ends. Channels' own handler then
        takes a trip to the database thread to close stale connections (``aclose_old_connections``),
        one per socket closing, each waiting its turn behind the others': a drain closing 5,000
        sockets at once queued 5,000 of them (bench/README.md, "The drain at thousands of
        sockets"). The database work of these consumers goes through ``database_sync_to_async``,
        which closes stale connections itself. (The consumers here join their groups
        themselves: ``groups`` is empty.)"""
        await self.disconnect(message["code"])
        raise StopConsumer()

    async def send(self, text_data=None, bytes_data=None, close=False):
        """Send a frame, unless the socket is closing already: a push on its way when the
        client left is a normal event (its disconnect follows)."""
        try:
            await super().send(text_data=text_data, bytes_data=bytes_data, close=close)
        except SOCKET_GONE as error:
            logger.debug("Socket %s closed before a frame reached it: %s", self.channel_name, error)


class RoomConsumer(PushConsumer):
    """A member's socket in a campaign's room. It joins the room's groups (the campaign's, the
    GM's when the GM, the member's in this campaign) and the user's group in every campaign,
    through which a removal or a logout closes it (``room.leave``, see ``core_push.leave``)."""

    #: How many entries this socket's pushes skipped (dropped or late) and the log filled in.
    missed_pushes = 0
    #: A room socket: it counts in the presence list and receives the log.
    in_room = True

    async def connect(self):
        #: The groups joined so far, left again if the connect is cut short.
        self.joined = []
        try:
            await self.enter()
        except asyncio.CancelledError:
            # Daphne cancels an instance still connecting 10 s after its client left (a
            # handshake it refused past --websocket_connect_timeout in a reconnect storm, a
            # page closed meanwhile), without a disconnect: the channel would stay in the room's
            # groups until they expire (a day), every later push sent to it for nothing (in a
            # storm of reconnects the rooms' groups filled with such channels: bench_storm).
            await self.leave(*self.joined)
            raise

    async def enter(self):
        """Join the room's groups, accept, replay what the page missed, say who is here."""
        self.group = None
        #: Entries pushed ahead of the next one expected, by the place of the entry before each
        #: (its push's ``prev``), while waiting for it.
        self.held = {}
        self.gap_wait = None
        #: Held by whatever sends entries: a push, or the log's replay of a gap that stayed.
        self.ordered = asyncio.Lock()
        self.campaign_id = int(self.scope["url_route"]["kwargs"]["campaign_id"])
        user = self.scope.get("user")
        self.user_id = user.pk if user and user.is_authenticated else None
        if self.user_id is None:
            await self.close()
            return
        # Join the user's group before reading the membership: a removal that commits after the
        # read sends its room.leave after this socket can hear it.
        member_group = core_push.member_group_name(self.user_id)
        await self.join(member_group)
        membership, self.gm_id = await trips.run(membership_of, self.user_id, self.campaign_id)
        if membership is None:
            await self.leave(member_group)
            await self.close()
            return
        self.is_gm = membership.is_gm
        self.group = core_push.group_name(self.campaign_id)
        self.groups_joined = [
            member_group,
            self.group,
            core_push.user_group_name(self.campaign_id, self.user_id),
        ]
        if self.is_gm:
            self.groups_joined.append(core_push.gm_group_name(self.campaign_id))
        await self.join(*self.groups_joined[1:])
        # Joined through the layer: if Redis was away, it is back, and the process's requests
        # send their pushes again now, not after their back-off (a roll made as the room's
        # sockets come back reaches them; core/shared_redis.py).
        outage.succeeded()
        await self.accept()
        if not self.in_room:
            return
        # The log's end is read only once in the room's group (in ``arrive``): nothing
        # committed from here on is missed. The entries after the page's (the replay, per
        # viewer) and the presence row come in the same trip to the database thread.
        #: The place in the log (seq, sub) of the last entry this socket passed: sent, or
        #: skipped (a whisper this viewer is not part of), or shown before it opened.
        frames, self.last = await trips.run(self.arrive, self.after_from_query())
        for html in frames:
            await self.send(text_data=html)
        presence_news.announce(self.campaign_id)
        heartbeat.add(self)

    async def join(self, *groups):
        """Join ``groups``, one after the other (at once, each took a Redis connection of the
        process's pool: a burst of connects needed several times as many), each counted as
        joined as it is."""
        for group in groups:
            async with group_slots():
                await self.channel_layer.group_add(group, self.channel_name)
            self.joined.append(group)

    async def leave(self, *groups):
        """Leave ``groups``, one after the other, in one slot: with a slot taken per group, each
        socket of thousands closing together (a drain) queued again behind all the others for
        its next group, none had left all its groups until nearly all had, and a drain's grace
        ended with every socket still leaving, all their leaves cut (bench/README.md, "The drain
        at thousands of sockets"); this way they end one after the other."""
        async with group_slots():
            for group in groups:
                await self.channel_layer.group_discard(group, self.channel_name)

    async def disconnect(self, code):
        await self.leave_room()

    async def leave_room(self):
        """Leave the room's groups and its presence list, once: from then on nothing more is
        sent to this socket."""
        if self.group is None:
            return
        self.group = None
        # A room socket is in the heartbeat from its arrival on; one the process's drain took
        # out of it (``depart``) had its presence row removed there, with all the others.
        present = heartbeat.discard(self)
        if self.gap_wait is not None:
            self.gap_wait.cancel()
        self.held.clear()
        await self.leave(*self.groups_joined)
        if self.in_room and present:
            await trips.run(self.presence_delete)
            presence_news.announce(self.campaign_id)

    async def room_leave(self, message):
        """The user was removed from this campaign (``campaign``) or logged out (None), or their
        role in it changed (``recast``)."""
        campaign = message.get("campaign")
        if self.group is None or campaign not in (None, self.campaign_id):
            return
        await self.leave_room()
        if message.get("recast"):
            await self.close(code=RECAST)
        else:
            await self.close(code=LEFT)

    async def receive(self, text_data=None, bytes_data=None):
        """Everything a player does goes through HTTP; the socket only listens. A small JSON
        object (what htmx's ws extension sends) is ignored; any other frame closes the socket,
        with a code and reason that say why."""
        size = len(bytes_data) if text_data is None else len(text_data.encode())
        if size > MAX_CLIENT_FRAME:
            await self.refuse(TOO_BIG, f"frame over {MAX_CLIENT_FRAME} bytes")
        elif text_data is None:
            await self.refuse(BINARY, "binary frame")
        elif not is_json_object(text_data):
            await self.refuse(MALFORMED, "frame not a JSON object")

    async def refuse(self, code, reason):
        """Close the socket for a frame it does not take, having left the room."""
        await self.leave_room()
        await self.close(code=code, reason=reason)

    async def room_push(self, message):
        if self.group is None:
            return  # left the room: a push already on its way is dropped
        await self.room_entry(message)
        # The parts that travel with an entry (its check's cards, core_push.send): each socket's
        # variant goes out whether the entry went out now, was held or came twice.
        for part in message.get("also", ()):
            if self.group is not None:
                await self.forward(part)

    async def room_entry(self, message):
        """An entry's push: sent in the log's order, each after the one its push names as the
        entry before it (``prev``; every socket hears of every entry, a whisper it is not part
        of included, for which it sends nothing). A push that names no entry before it is sent
        as it comes."""
        if message.get("seq") is None:
            await self.forward(message)
            return
        async with self.ordered:
            place = place_of(message)
            if place <= self.last:
                return  # already sent (by a replay)
            prev = prev_of(message)
            if prev is not None and prev > self.last:
                # An earlier push is late, or was dropped (a full channel past saturation):
                # hold this one a moment for it, then read the log. Without a gap this path
                # does no database work.
                self.held[prev] = message
                if len(self.held) >= HOLD_LIMIT:
                    await self.replay_gap()
                elif self.gap_wait is None:
                    self.gap_wait = asyncio.create_task(self.wait_for_gap())
                return
            await self.forward_entry(message, place)
            while self.last in self.held:  # the late push came: the held ones follow
                held = self.held.pop(self.last)
                await self.forward_entry(held, place_of(held))
            if not self.held and self.gap_wait is not None:
                self.gap_wait.cancel()
                self.gap_wait = None

    async def forward(self, message):
        """Send this viewer's variant of ``message``; whether there was one."""
        html = core_push.pick(message, user_id=self.user_id, is_gm=self.is_gm)
        if html:
            await self.send(text_data=html)
        return bool(html)

    async def forward_entry(self, message, place):
        self.last = place
        await self.forward(message)

    async def wait_for_gap(self):
        """REORDER_WAIT after an entry came ahead of its turn: if the gap is still there, read
        it from the log."""
        await asyncio.sleep(REORDER_WAIT)
        async with self.ordered:
            self.gap_wait = None
            if self.held and self.group is not None:
                await self.replay_gap()

    async def replay_gap(self):
        """Send what follows the last entry sent, from the log (the held entries with it)."""
        if self.gap_wait is not None and self.gap_wait is not asyncio.current_task():
            self.gap_wait.cancel()
        self.gap_wait = None
        held = {place_of(message) for message in self.held.values()}
        self.held.clear()
        read = await self.replay()
        # Missed: what the log gave before the last held entry, and not held. An entry after
        # it was not shown missing by any push: its own may still be on its way (a loaded
        # server), and it is dropped as sent when it comes; counting it would log a miss that
        # was none.
        last_held = max(held)
        self.count_gap(sum(1 for place in read if place < last_held and place not in held))

    def count_gap(self, missed):
        self.missed_pushes += missed
        logger.warning(
            "Campaign %s: socket %s missed %d entries (%d so far), replayed from the log",
            self.campaign_id,
            self.channel_name,
            missed,
            self.missed_pushes,
        )

    def after_from_query(self):
        """The place of the last number the page has (``?after=5``: (5, 0)), or None. A page
        names no whisper's place (it does not know it): the whispers after that number that
        it has already come again, and the page drops them (``static/js/room.js``)."""
        values = parse_qs(self.scope.get("query_string", b"").decode()).get("after")
        try:
            return (max(0, int(values[0])), 0) if values else None
        except ValueError:
            return None

    async def replay(self):
        """Send the entries after the last passed, from the log; the places of those read."""
        frames, self.last, read = await self.missed(self.last)
        for html in frames:
            await self.send(text_data=html)
        return read

    # Database work, in small synchronous pieces -------------------------------------------------

    def arrive(self, after):
        """A socket that joined the room's groups arrives: its presence row written, the log's
        end read (``self.last``: the page's place, ``after``, when it is behind; the head else)
        and, when the page is behind, the frames of the entries it missed for this viewer. (The
        frames to send, the place passed once they are sent.)"""
        Presence.objects.create(
            channel_name=self.channel_name,
            campaign_id=self.campaign_id,
            user_id=self.user_id,
            seen_at=now(),
        )
        head = self.head()
        last = head if after is None else min(after, head)
        if last < head:
            frames, last, _ = self.entries_after(last, head)
            return frames, last
        return [], last

    def head(self):
        return tuple(Campaign.objects.values_list("last_seq", "last_sub").get(pk=self.campaign_id))

    @database_sync_to_async
    def missed(self, after):
        return self.entries_after(after, self.head())

    def entries_after(self, after, head):
        """The frames of the entries after the place ``after`` this viewer may learn of (the
        others' whispers left out in the query: nothing here depends on how many there are);
        the place this socket has passed once they are sent, and the places of those read. When the
        query found all there was, that is ``head``, the log's end read before it, whatever
        whispers lie between."""
        entries = LogEntry.objects.filter(after_place(after), campaign_id=self.campaign_id)
        entries = entries.shown_to(self.user_id).order_by("seq", "sub")
        entries = with_recipients(list(entries[:REPLAY_LIMIT]))
        viewer = {"viewer_id": self.user_id, "gm_id": self.gm_id}
        revealable = push.revealable_among(entries, **viewer)
        frames = [
            push.render_entry_for(entry, oob=True, revealable=revealable, **viewer)
            for entry in entries
        ]
        if entries:
            frames[-1] += push.render_fingerprint(entries[-1])
        passed = entries[-1].place if entries else after
        if len(entries) < REPLAY_LIMIT:
            passed = max(passed, head)
        return frames, passed, [entry.place for entry in entries]

    def presence_delete(self):
        Presence.objects.filter(channel_name=self.channel_name).delete()


class GroupSlots:
    """How many of the process's sockets join or leave a group at the same moment, at most:
    each join or leave holds one of the channel layer's Redis connections for its round trip,
    and redis-py's pool refuses one past its ``max_connections`` at once ("Too many
    connections", config/settings.py) rather than waiting for one. Thousands of sockets closed
    together (a drain, a network cut, every page of a process gone at once) took more than the
    pool has: most of their leaves failed, their channels stayed in the room's groups for a day
    (every later push sent to them for nothing) and their presence rows until stale
    (bench/README.md, "What closed the sockets"). Past ``size`` a join or leave waits its turn
    instead. One semaphore per event loop (a test's loop is its own)."""

    def __init__(self, size):
        self.size = size
        self.loop = None
        self.semaphore = None

    def __call__(self):
        loop = asyncio.get_running_loop()
        if self.loop is not loop:
            self.loop, self.semaphore = loop, asyncio.Semaphore(self.size)
        return self.semaphore


#: A quarter of the layer's pool (1,000): the rest is left to the pushes, the presence lists
#: and channels_redis's own receiving and cleaning.
GROUP_SLOTS = 250
group_slots = GroupSlots(GROUP_SLOTS)


class PresenceNews:
    """The presence lists this process sends to its rooms. A join or a leave asks for its room's
    list (``announce``); the list goes out at once when the room heard none for
    PRESENCE_GATHER seconds, else at the end of that time, once for all that came meanwhile.
    Without it every join and leave sent the whole list to every socket of the room: a
    restarted process whose sockets all came back at once sent each room's list once per
    socket returning, to all of them, and the lists crowded out the log's entries
    (bench/README.md, "The reconnect storm")."""

    def __init__(self):
        #: The task that will send a room's list, by campaign id; the loop time of its last.
        self.pending = {}
        self.sent_at = {}
        #: Every list's task until it is done: one already reading its list is no longer
        #: pending, and a drain that waited only for the pending ones stopped the process
        #: while it was on its way (the rooms' members elsewhere went on seeing those who left).
        self.sending = set()

    def announce(self, campaign_id):
        loop = asyncio.get_running_loop()
        task = self.pending.get(campaign_id)
        if task is not None and not task.done() and task.get_loop() is loop:
            return  # its list is read when it goes out: this join or leave is in it
        last = self.sent_at.get(campaign_id)
        wait = 0 if last is None else max(0, last + PRESENCE_GATHER - loop.time())
        task = self.pending[campaign_id] = loop.create_task(self.send(campaign_id, wait))
        self.sending.add(task)
        task.add_done_callback(self.sending.discard)

    async def send(self, campaign_id, wait):
        if wait:
            await asyncio.sleep(wait)
        # From here on a join or a leave asks for a list of its own: this one may be read
        # before its row is written.
        if self.pending.get(campaign_id) is asyncio.current_task():
            del self.pending[campaign_id]
        self.sent_at[campaign_id] = asyncio.get_running_loop().time()
        try:
            html = await trips.run(presence_read, campaign_id)
            group = core_push.group_name(campaign_id)
            await get_channel_layer().group_send(group, {"type": "room.push", "all": html})
        except Exception:
            logger.warning("Presence list of campaign %s not sent", campaign_id, exc_info=True)

    async def sent(self):
        """Once the lists asked for so far went out (a drain waits for them before the process
        stops: the rooms' other processes hear who left)."""
        loop = asyncio.get_running_loop()
        tasks = [task for task in self.sending if task.get_loop() is loop]
        await asyncio.gather(*tasks, return_exceptions=True)


#: The process's presence lists (one per process, as its heartbeat).
presence_news = PresenceNews()


def presence_read(campaign_id):
    """The room's presence list, its stale rows dropped first."""
    drop_stale(campaign_id)
    return presence_html(campaign_id)


class Heartbeat:
    """The presence heartbeat of the process's open room sockets: every HEARTBEAT seconds one
    task marks them all seen (``presence_refresh``, a few queries for all of them), and the
    rooms whose list changed hear who is there. Without it each socket's own task wrote its
    row twice per beat: the idle sockets' writes grew with their number until they filled the
    process's core (bench/README.md, "Sockets by the thousand")."""

    def __init__(self):
        self.sockets = {}
        self.task = None

    def add(self, consumer):
        self.sockets[consumer.channel_name] = consumer
        loop = asyncio.get_running_loop()
        if self.task is None or self.task.done() or self.task.get_loop() is not loop:
            self.task = loop.create_task(self.run())

    def discard(self, consumer):
        """Take ``consumer`` out; whether it was in."""
        return self.sockets.pop(consumer.channel_name, None) is not None

    def depart(self):
        """Take every socket out at once (a drain, ``depart``): [(channel name, campaign id)]."""
        members = [(name, consumer.campaign_id) for name, consumer in self.sockets.items()]
        self.sockets.clear()
        return members

    async def run(self):
        """Beat while the process has room sockets (the next one opened starts it again)."""
        while self.sockets:
            await asyncio.sleep(HEARTBEAT)
            members = [(name, c.campaign_id, c.user_id) for name, c in self.sockets.items()]
            if not members:
                return
            try:
                changed = await database_sync_to_async(presence_refresh)(members)
                layer = get_channel_layer()
                for campaign_id, html in changed.items():
                    group = core_push.group_name(campaign_id)
                    await layer.group_send(group, {"type": "room.push", "all": html})
            except Exception:
                logger.warning("Presence of %d sockets not refreshed", len(members), exc_info=True)


#: The process's heartbeat (one per process: the room sockets of its event loop).
heartbeat = Heartbeat()


def chunks(items, size=BEAT_CHUNK):
    return [items[k : k + size] for k in range(0, len(items), size)]


@transaction.atomic
def presence_refresh(members):
    """Mark the sockets ``members`` [(channel name, campaign id, user id)] seen now; a socket
    whose row was dropped as stale (its process stalled) is back in; the stale rows of their
    rooms are dropped. {campaign id: presence list HTML} of the rooms whose list changed."""
    at = now()
    missing = []
    for chunk in chunks(members):
        names = [name for name, _, _ in chunk]
        if Presence.objects.filter(channel_name__in=names).update(seen_at=at) < len(chunk):
            found = set(
                Presence.objects.filter(channel_name__in=names).values_list(
                    "channel_name", flat=True
                )
            )
            # A socket closing now left the heartbeat before its row was deleted: not back in.
            missing += [m for m in chunk if m[0] not in found and m[0] in heartbeat.sockets]
    Presence.objects.bulk_create(
        [Presence(channel_name=n, campaign_id=c, user_id=u, seen_at=at) for n, c, u in missing],
        ignore_conflicts=True,
    )
    changed = {campaign_id for _, campaign_id, _ in missing}
    for chunk in chunks(sorted({campaign_id for _, campaign_id, _ in members})):
        stale = Presence.objects.filter(campaign_id__in=chunk, seen_at__lt=fresh_since())
        gone = set(stale.values_list("campaign_id", flat=True))
        if gone:
            stale.delete()
            changed |= gone
    return {campaign_id: presence_html(campaign_id) for campaign_id in sorted(changed)}


def depart():
    """Every room socket of the process leaves the presence lists at once, for a drain
    (config/shutdown.py), before their sockets are closed: their own leaves then remove no row
    and ask for no list; ``departed`` does it for all of them. Each socket's leave removing its
    own row (a commit each, synced on SQLite) and asking for its room's list (a list per room
    every PRESENCE_GATHER while its sockets closed, to sockets that were all closing) took a
    drain of 5,000 sockets past its grace (bench/README.md, "The drain at thousands of
    sockets"). [(channel name, campaign id)] of the sockets taken."""
    return heartbeat.depart()


async def departed(members):
    """The presence rows of ``members`` (``depart``) removed in one transaction, and the list
    of each of their rooms asked for once (the members on other processes see who left)."""
    if not members:
        return
    await trips.run(presence_remove, [name for name, _ in members])
    for campaign_id in sorted({campaign_id for _, campaign_id in members}):
        presence_news.announce(campaign_id)


@transaction.atomic
def presence_remove(names):
    """Delete the presence rows of the channels ``names``."""
    for chunk in chunks(names):
        Presence.objects.filter(channel_name__in=chunk).delete()


def presence_html(campaign_id):
    return render_to_string("rolls/_presence.html", {"online": online(campaign_id), "oob": True})


class FactsConsumer(RoomConsumer):
    """A member's socket on a page outside the room that shows a campaign's facts (the sheet,
    the campaign page, the GM panel): it joins the same groups as a room socket, so a facts push
    reaches it through the same sends with the same entitlement, but forwards nothing else (no
    log, no check cards, no presence) and is not counted at the table."""

    in_room = False

    async def room_push(self, message):
        if message.get("facts"):
            await super().room_push(message)


def place_of(message):
    """The place in the log (seq, sub) of the entry an entry's push carries."""
    return (message["seq"], message.get("sub", 0))


def prev_of(message):
    """The place of the entry before the one an entry's push carries, or None."""
    seq = message.get("prev_seq")
    return None if seq is None else (seq, message.get("prev_sub", 0))


def is_json_object(text):
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def fresh_since():
    return now() - PRESENCE_TTL


def drop_stale(campaign_id):
    """Delete the campaign's presence rows not seen for PRESENCE_TTL: how many."""
    deleted, _ = Presence.objects.filter(
        campaign_id=campaign_id, seen_at__lt=fresh_since()
    ).delete()
    return deleted


def online(campaign_id):
    """The usernames of the members with an open room socket (seen in the last PRESENCE_TTL)."""
    return list(
        Presence.objects.filter(campaign_id=campaign_id, seen_at__gte=fresh_since())
        .order_by("user__username")
        .values_list("user__username", flat=True)
        .distinct()
    )


class NoRouteConsumer(AsyncWebsocketConsumer):
    """A websocket to a path no route takes (``/ws/campaigns/abc/``, an id beyond any: see
    core/ids.py) is refused at the handshake, as an HTTP path that is not there answers
    404; without it the router raises and the server answers 500 and logs the traceback."""

    async def connect(self):
        await self.close()
