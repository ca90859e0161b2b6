"""The room's websocket (room.consumers) through the real ASGI stack: origin check, session
auth, per-viewer pushes, replay after a reconnect, gaps and presence (and its expiry), leaving
on a removal or a logout, and what a client may send."""

import ast
import asyncio
import inspect
import logging
import re
import threading
from contextlib import AsyncExitStack
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from autobahn.exception import Disconnected
from channels import db as channels_db
from channels.consumer import AsyncConsumer
from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer, get_channel_layer
from channels.testing import WebsocketCommunicator
from daphne.ws_protocol import WebSocketProtocol
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from config.asgi import application
from core import push as core_push
from rolls import services
from rolls.models import PRIVATE, PUBLIC, SECRET, LogEntry, Presence
from room import consumers, push
from room.consumers import (
    BINARY,
    CLOSE_CODES,
    LEFT,
    MALFORMED,
    MAX_CLIENT_FRAME,
    PRESENCE_TTL,
    RECAST,
    TOO_BIG,
)
from tests.conftest import make_campaign
from tests.helpers import SESSION_READ
from tests.rolls.room_setup import roll_mana
from tests.rolls.sockets import (
    DIE,
    NOTE,
    ORIGIN,
    SEQ,
    TIMEOUT,
    before_mark,
    build_harbor_table,
    enter,
    is_full,
    is_stub,
    online,
    post,
    receive,
    room,
    seqs,
    socket,
    stored_entry,
)

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.asyncio,
    pytest.mark.usefixtures("empty_channel_layer"),
]


@pytest.fixture
def table(mana_campaign, gm, player, other_player, outsider):
    """The Mana campaign with a skill, a character for ana, ben and the GM, and a logged-in
    test client and its session cookie for each user (sockets.build_harbor_table)."""
    return build_harbor_table(mana_campaign, gm, player, other_player, outsider)


def make_roll(table, username, visibility=PUBLIC, *, pushed=True):
    """A failed roll (faces 7, 0, 4, 2 vs 3) by ``username``'s character; pushed unless told."""
    character = table.characters[username]
    check = services.check_ask(
        campaign=table.campaign,
        character=character,
        by=table.gm,
        target=3,
        note=NOTE,
        visibility=visibility,
    )
    entry = roll_mana(check, character.owner, table.skill, (7, 10, 4, 2))
    if pushed:
        push.push_entry(entry)
    return entry.seq


roll = database_sync_to_async(make_roll)


@database_sync_to_async
def push_again(table, seq):
    push.push_entry(stored_entry(table.campaign, seq))


@database_sync_to_async
def head(table):
    """The start of the hash of the campaign's last entry."""
    return LogEntry.objects.filter(campaign=table.campaign).last().hash[:12]


@database_sync_to_async
def presence_rows():
    return Presence.objects.count()


# Who may connect -----------------------------------------------------------------------------


async def test_a_member_receives_a_pushed_roll(table):
    async with AsyncExitStack() as stack:
        ana = await enter(stack, table, "ana")
        assert await online(ana) == ["ana"]
        seq = await roll(table, "ana")
        frame = await receive(ana)
        assert seqs([frame]) == [seq] == [1]
        assert is_full(frame)
        assert 'hx-swap-oob="beforeend:#log"' in frame
        assert await before_mark(ana) == [[]]


async def test_a_push_is_forwarded_without_a_trip_to_the_database_thread(table, monkeypatch):
    trips = []

    async def close_old_connections():
        trips.append(1)

    monkeypatch.setattr("channels.consumer.aclose_old_connections", close_old_connections)
    async with AsyncExitStack() as stack:
        ana = await enter(stack, table, "ana")
        assert await online(ana) == ["ana"]
        await sync_to_async(core_push.group_send_all)(
            [(core_push.group_name(table.campaign.pk), {"all": "<p>x</p>"})]
        )
        assert await receive(ana) == "<p>x</p>"
    assert trips == []


@pytest.mark.parametrize(
    ("who", "origin"),
    [
        (None, ORIGIN),  # anonymous
        ("zed", ORIGIN),  # not a member
        ("ana", b"http://evil.example"),  # a member, from another site
        ("ana", None),  # a member, without an Origin header
    ],
)
async def test_refused_sockets(table, who, origin):
    cookie = table.cookie[who] if who else None
    async with socket(table.campaign.pk, cookie, origin=origin) as communicator:
        assert communicator.connected is False
    assert await presence_rows() == 0


async def test_an_unknown_campaign_is_refused(table):
    async with socket(table.campaign.pk + 1000, table.cookie["gm"]) as communicator:
        assert communicator.connected is False


@pytest.mark.parametrize("campaign_id", [2**63, 10**30])
async def test_a_campaign_id_beyond_any_database_s_is_refused(table, campaign_id):
    """Refused like any unknown campaign (a query with it would overflow on SQLite)."""
    async with socket(campaign_id, table.cookie["gm"]) as communicator:
        assert communicator.connected is False


async def test_a_bad_session_cookie_is_anonymous(table):
    async with socket(table.campaign.pk, "not-a-session") as communicator:
        assert communicator.connected is False


# Who sees what -------------------------------------------------------------------------------


async def test_private_roll_content_reaches_only_the_roller_and_the_gm(table):
    async with AsyncExitStack() as stack:
        gm, ana, ben = await room(stack, table)

        await roll(table, "ana", PRIVATE)
        frames = {name: await receive(s) for name, s in (("ana", ana), ("gm", gm), ("ben", ben))}
        assert is_full(frames["ana"]) and is_full(frames["gm"])
        assert is_stub(frames["ben"])
        assert "rolled privately" in frames["ben"]
        assert seqs(frames.values()) == [1, 1, 1]
        assert await before_mark(ana, gm, ben) == [[], [], []]


async def test_secret_roll_content_reaches_only_the_gm(table):
    async with AsyncExitStack() as stack:
        gm, ana, ben = await room(stack, table)

        await roll(table, "gm", SECRET)
        assert is_full(await receive(gm))
        for communicator in (ana, ben):
            frame = await receive(communicator)
            assert is_stub(frame)
            assert "rolled in secret" in frame
        assert await before_mark(gm, ana, ben) == [[], [], []]


async def test_a_private_roll_posted_over_http_reaches_the_room(table):
    check = await database_sync_to_async(services.check_ask)(
        campaign=table.campaign,
        character=table.characters["ana"],
        by=table.gm,
        target=3,
        note=NOTE,
        visibility=PRIVATE,
    )
    async with AsyncExitStack() as stack:
        ana = await enter(stack, table, "ana")
        await online(ana)
        ben = await enter(stack, table, "ben", ana)
        await online(ben)

        response = await post(
            table,
            "ana",
            "check_roll",
            {
                "skill": table.skill.pk,
                "color_a": "blue",
                "color_b": "white",
                "spend_a": 1,
                "spend_b": 1,
                "colorless": 0,
                "intent": "Ask around the docks",
            },
            check.pk,
        )
        assert response.status_code == 204

        anas, bens = await before_mark(ana, ben)
        anas_entries = [frame for frame in anas if SEQ.search(frame)]
        bens_entries = [frame for frame in bens if SEQ.search(frame)]
        assert seqs(anas_entries) == seqs(bens_entries) == [1]
        assert DIE.search(anas_entries[0]) and NOTE in anas_entries[0]
        assert "rolled privately" in bens_entries[0]
        for frame in bens:  # the entry's stub and whatever else the roll pushed
            assert not DIE.search(frame)
            assert not re.search(r"success|failure", frame)
            assert NOTE not in frame and "Ask around the docks" not in frame


# Replay and gaps -----------------------------------------------------------------------------


async def test_reconnect_replays_exactly_the_missed_entries(table):
    await database_sync_to_async(services.session_start)(campaign=table.campaign, by=table.gm)
    await roll(table, "ana", pushed=False)  # 2
    await roll(table, "ana", PRIVATE, pushed=False)  # 3
    await roll(table, "ben", pushed=False)  # 4

    async with AsyncExitStack() as stack:
        ben = await enter(stack, table, "ben", query="?after=2")
        replayed = [await receive(ben), await receive(ben)]
        assert seqs(replayed) == [3, 4]
        assert is_stub(replayed[0])  # ana's private roll, replayed to ben
        assert is_full(replayed[1])
        # The log's fingerprint comes with the last one.
        assert 'id="log-fingerprint"' not in replayed[0]
        assert f'<span id="log-fingerprint">#4 <code>{await head(table)}</code>' in replayed[1]
        assert await online(ben) == ["ben"]

        # Live pushes of entries the replay already sent are dropped.
        await push_again(table, 4)
        await push_again(table, 3)
        assert await before_mark(ben) == [[]]

        assert await roll(table, "ana") == 5
        assert seqs([await receive(ben)]) == [5]
        assert await before_mark(ben) == [[]]


async def test_replay_from_the_start_and_beyond_the_end(table):
    await roll(table, "ana", pushed=False)  # 1
    await roll(table, "ben", pushed=False)  # 2
    async with AsyncExitStack() as stack:
        ana = await enter(stack, table, "ana", query="?after=0")
        assert seqs([await receive(ana), await receive(ana)]) == [1, 2]
        await online(ana)
        ben = await enter(stack, table, "ben", ana, query="?after=99")  # clamped to the end
        assert await online(ben) == ["ana", "ben"]

        await roll(table, "gm")  # 3
        assert seqs([await receive(ana)]) == seqs([await receive(ben)]) == [3]
        assert await before_mark(ana, ben) == [[], []]


@pytest.fixture
def short_wait(monkeypatch):
    """Gaps wait a tenth of a second for a late push before the log is read."""
    monkeypatch.setattr(consumers, "REORDER_WAIT", 0.1)


def gap_warnings(caplog):
    return [r for r in caplog.records if r.name == "room.consumers"]


async def test_a_gap_is_filled_from_the_log_in_order(table, short_wait, caplog):
    await roll(table, "ana", pushed=False)  # 1
    async with AsyncExitStack() as stack:
        ana = await enter(stack, table, "ana")  # no ?after: starts at the end (1)
        await online(ana)
        await roll(table, "ben", pushed=False)  # 2: its push is lost
        await roll(table, "ben")  # 3: held, then 2 and 3 read from the log
        frames = [await receive(ana), await receive(ana)]
        assert seqs(frames) == [2, 3]
        assert all(is_full(frame) for frame in frames)
        await push_again(table, 2)  # the late push arrives: already sent
        assert await before_mark(ana) == [[]]
    [warning] = gap_warnings(caplog)
    assert warning.getMessage().endswith("missed 1 entries (1 so far), replayed from the log")


async def test_pushes_out_of_order_are_put_back_in_order_without_the_log(
    table, monkeypatch, caplog
):
    """Two requests commit in order but send in the other order: the socket holds the later
    entry until the earlier one comes, and reads nothing from the log."""
    monkeypatch.setattr(consumers, "REORDER_WAIT", 30)  # never reached here
    async with AsyncExitStack() as stack:
        ana = await enter(stack, table, "ana")
        await online(ana)
        await roll(table, "ben", pushed=False)  # 1
        await roll(table, "ana", PRIVATE, pushed=False)  # 2
        await roll(table, "ben", pushed=False)  # 3
        await push_again(table, 3)
        await push_again(table, 2)
        assert await before_mark(ana) == [[]]  # both held: 1 has not come
        reads = []
        monkeypatch.setattr(consumers.RoomConsumer, "missed", lambda *a: reads.append(a))
        await push_again(table, 1)
        frames = [await receive(ana) for _ in range(3)]
        assert seqs(frames) == [1, 2, 3]
        assert all(is_full(frame) for frame in frames)  # ana's own private roll in full
        await push_again(table, 2)
        await roll(table, "ben")  # 4
        assert seqs([await receive(ana)]) == [4]
        assert await before_mark(ana) == [[]]
    assert reads == []
    assert gap_warnings(caplog) == []


@database_sync_to_async
def push_with_card(table, seq, card_for):
    """Entry ``seq`` pushed again, carrying a card for ``card_for`` (a username) and the GM."""
    entry = stored_entry(table.campaign, seq)
    owner = table.characters[card_for].owner_id
    card = {"gm": "<p>card for the GM</p>", "users": {str(owner): "<p>card for you</p>"}}
    core_push.send(table.campaign.pk, push.entry_message(entry), card)


async def test_a_card_that_travels_with_an_entry_reaches_only_its_viewers_even_with_the_entry_sent(
    table,
):
    async with AsyncExitStack() as stack:
        gm, ana, ben = await room(stack, table)
        await roll(table, "ana", pushed=False)  # 1
        await push_with_card(table, 1, "ana")
        assert seqs([await receive(ana)]) == [1]
        assert await receive(ana) == "<p>card for you</p>"
        assert seqs([await receive(gm)]) == [1]
        assert await receive(gm) == "<p>card for the GM</p>"
        assert seqs([await receive(ben)]) == [1]
        await push_with_card(table, 1, "ana")  # the entry again: only the cards go out
        assert await receive(ana) == "<p>card for you</p>"
        assert await receive(gm) == "<p>card for the GM</p>"
        assert await before_mark(ana, ben, gm) == [[], [], []]


class DroppingLayer(InMemoryChannelLayer):
    """The in-memory layer losing every ``every``-th entry push to the channel ``victim``, as a
    full channel past saturation does (its group_send sends to each channel with ``send``)."""

    victim = None
    every = 3
    seen = 0

    async def send(self, channel, message):
        if channel == self.victim and message.get("seq") is not None:
            self.seen += 1
            if self.seen % self.every == 0:
                return
        await super().send(channel, message)


@pytest.fixture
def dropping_layer(settings):
    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": f"{__name__}.DroppingLayer", "CONFIG": {"capacity": 100}}
    }
    return get_channel_layer()


@database_sync_to_async
def channel_of(username):
    return Presence.objects.get(user__username=username).channel_name


async def test_entries_dropped_by_the_layer_arrive_once_in_order_and_are_logged(
    table, dropping_layer, short_wait, caplog
):
    async with AsyncExitStack() as stack:
        ana = await enter(stack, table, "ana")
        await online(ana)
        ben = await enter(stack, table, "ben", ana)
        await online(ben)
        dropping_layer.victim = await channel_of("ana")

        for _ in range(7):  # pushes 3 and 6 are lost for ana
            await roll(table, "ben")
        ana_frames = [await receive(ana) for _ in range(7)]
        ben_frames = [await receive(ben) for _ in range(7)]
        assert seqs(ana_frames) == seqs(ben_frames) == [1, 2, 3, 4, 5, 6, 7]
        assert all(is_full(frame) for frame in ana_frames)
        assert await before_mark(ana, ben) == [[], []]

    # One warning per replay, naming what the held entries showed missing: one per gap, or
    # one for both when the second gap came within the wait, or one when the replay read the
    # log after the rolls, past the second gap (which the replay then filled).
    prefix = f"Campaign {table.campaign.pk}: socket {dropping_layer.victim} missed "
    counts = []
    for record in gap_warnings(caplog):
        missed, so_far = re.fullmatch(
            re.escape(prefix) + r"(\d) entries \((\d) so far\), replayed from the log",
            record.getMessage(),
        ).groups()
        counts.append(int(missed))
        assert int(so_far) == sum(counts)
    assert counts in ([1, 1], [2], [1])
    assert all(r.levelname == "WARNING" for r in gap_warnings(caplog))


# Presence ------------------------------------------------------------------------------------


async def test_presence_follows_connections(table):
    async with AsyncExitStack() as stack:
        ana = await enter(stack, table, "ana")
        assert await online(ana) == ["ana"]
        async with socket(table.campaign.pk, table.cookie["gm"]) as gm:
            assert gm.connected
            assert await online(gm) == ["ana", "gm"]
            assert await online(ana) == ["ana", "gm"]
            second_tab = await enter(stack, table, "ana", ana, gm)
            assert await online(second_tab) == ["ana", "gm"]  # a name is listed once
            assert await presence_rows() == 3
        assert await online(ana) == ["ana"]  # the GM left
        assert await online(second_tab) == ["ana"]
        assert await before_mark(ana) == [[]]
    assert await presence_rows() == 0


async def test_joins_close_together_go_out_as_one_presence_list(table, monkeypatch):
    """A room whose sockets come back together (a restarted process) hears one list for them
    all, not one per socket: the first join is heard at once, those within PRESENCE_GATHER
    after it together at its end."""
    monkeypatch.setattr(consumers, "PRESENCE_GATHER", 2.0)
    monkeypatch.setattr(consumers, "presence_news", consumers.PresenceNews())  # no earlier list
    async with AsyncExitStack() as stack:
        gm = await enter(stack, table, "gm")
        assert await online(gm) == ["gm"]
        ana = await enter(stack, table, "ana")
        ben = await enter(stack, table, "ben")
        assert await online(gm) == ["ana", "ben", "gm"]
        assert await online(ana) == ["ana", "ben", "gm"]
        assert await online(ben) == ["ana", "ben", "gm"]
        assert await gm.receive_nothing()


async def test_a_check_push_reaches_only_the_gm_and_the_named_player(table):
    async with AsyncExitStack() as stack:
        gm, ana, ben = await room(stack, table)

        message = {
            "gm": "<p>for the GM</p>",
            "users": {str(table.characters["ana"].owner_id): "<p>for ana</p>"},
        }
        await sync_to_async(core_push.send)(table.campaign.pk, message)
        assert await receive(gm) == "<p>for the GM</p>"
        assert await receive(ana) == "<p>for ana</p>"
        assert await before_mark(ana, gm, ben) == [[], [], []]


# Leaving: a removed member's or a logged-out user's sockets close and hear nothing more ------


async def closed_by_server(communicator):
    """The socket's next output is the server's close: its code."""
    output = await communicator.receive_output(timeout=TIMEOUT)
    assert output["type"] == "websocket.close", output
    return output.get("code")


async def test_a_removed_player_s_sockets_close_and_hear_nothing_more(table, player):
    elsewhere = await database_sync_to_async(make_campaign)(table.gm, players=[player])
    async with AsyncExitStack() as stack:
        ana = await enter(stack, table, "ana")
        await online(ana)
        second_tab = await enter(stack, table, "ana", ana)
        await online(second_tab)
        ben = await enter(stack, table, "ben", ana, second_tab)
        await online(ben)
        ana_elsewhere = await stack.enter_async_context(socket(elsewhere.pk, table.cookie["ana"]))
        assert ana_elsewhere.connected
        await online(ana_elsewhere)

        response = await post(table, "gm", "member_remove", {}, player.pk, htmx=False)
        assert response.status_code == 302
        assert await closed_by_server(ana) == await closed_by_server(second_tab) == LEFT
        # Both of ana's sockets left: one list for both, or two when the first went out at once.
        heard = [await online(ben)]
        if heard[0] != ["ben"]:
            heard.append(await online(ben))
        assert heard in ([["ben"]], [["ana", "ben"], ["ben"]])
        assert (
            await database_sync_to_async(
                Presence.objects.filter(campaign=table.campaign, user=player).exists
            )()
            is False
        )

        await roll(table, "ben")
        assert seqs([await receive(ben)]) == [1]
        # Her other campaign's socket stays.
        assert await before_mark(ana_elsewhere, ben) == [[], []]
        # A quiet window for the closed sockets: they are in no group, no mark reaches them.
        for communicator in (ana, second_tab):
            assert await communicator.receive_nothing()


async def test_a_refused_removal_closes_nothing(table):
    async with AsyncExitStack() as stack:
        gm = await enter(stack, table, "gm")
        await online(gm)
        response = await post(table, "gm", "member_remove", {}, table.gm.pk, htmx=False)
        assert response.status_code == 200  # the GM panel, with the refusal
        await roll(table, "gm")
        assert seqs([await receive(gm)]) == [1]


async def test_each_socket_of_a_room_sends_its_variant_of_the_message_they_share(table):
    """One group message: each socket sends its own variant, and its part of what travels
    with it (``also``)."""
    async with AsyncExitStack() as stack:
        gm, ana, ben = await room(stack, table)
        ana_id = str(table.characters["ana"].owner_id)
        card = {"gm": "<p>card for the GM</p>", "users": {ana_id: "<p>yours</p>"}}
        message = {"type": "room.push", "all": "<p>for all</p>", "also": [card]}
        message["users"] = {ana_id: "<p>for ana</p>"}
        await get_channel_layer().group_send(core_push.group_name(table.campaign.pk), message)
        assert [await receive(ana), await receive(ana)] == ["<p>for ana</p>", "<p>yours</p>"]
        assert [await receive(gm), await receive(gm)] == [
            "<p>for all</p>",
            "<p>card for the GM</p>",
        ]
        assert await receive(ben) == "<p>for all</p>"
        assert await before_mark(ana, ben, gm) == [[], [], []]


async def test_a_push_already_on_its_way_when_the_socket_leaves_is_dropped(table, player):
    async with AsyncExitStack() as stack:
        ana = await enter(stack, table, "ana")
        await online(ana)
        layer = get_channel_layer()
        # Both are in the socket's channel before it handles either.
        await layer.group_send(
            core_push.member_group_name(player.pk),
            {"type": "room.leave", "campaign": table.campaign.pk},
        )
        await layer.group_send(
            core_push.group_name(table.campaign.pk), {"type": "room.push", "all": "<p>late</p>"}
        )
        assert await closed_by_server(ana) == LEFT
        # A quiet window: the closed socket is in no group, no mark reaches it.
        assert await ana.receive_nothing()


async def test_logging_out_closes_the_user_s_sockets_in_every_campaign(table, player):
    elsewhere = await database_sync_to_async(make_campaign)(table.gm, players=[player])
    async with AsyncExitStack() as stack:
        ana = await enter(stack, table, "ana")
        await online(ana)
        ben = await enter(stack, table, "ben", ana)
        await online(ben)
        ana_elsewhere = await stack.enter_async_context(socket(elsewhere.pk, table.cookie["ana"]))
        assert ana_elsewhere.connected
        await online(ana_elsewhere)

        response = await sync_to_async(table.client["ana"].post)(reverse("logout"))
        assert response.status_code == 302
        assert await closed_by_server(ana) == await closed_by_server(ana_elsewhere) == LEFT
        assert await online(ben) == ["ben"]

        await roll(table, "ben")
        assert seqs([await receive(ben)]) == [1]
        assert await before_mark(ben) == [[]]
        # A quiet window for the closed sockets: they are in no group, no mark reaches them.
        for communicator in (ana, ana_elsewhere):
            assert await communicator.receive_nothing()
        async with socket(table.campaign.pk, table.cookie["ana"]) as again:
            assert again.connected is False  # the session is gone


# What a client may send: nothing that matters, and nothing big ------------------------------


#: Frames a client may not send, with the code and reason that close its socket.
REFUSED_FRAMES = {
    "text over the limit": (
        {"text_data": '{"x": "%s"}' % ("x" * MAX_CLIENT_FRAME)},
        TOO_BIG,
        f"frame over {MAX_CLIENT_FRAME} bytes",
    ),
    "over the limit in bytes": (
        {"text_data": '{"x": "%s"}' % ("é" * (MAX_CLIENT_FRAME // 2))},
        TOO_BIG,
        f"frame over {MAX_CLIENT_FRAME} bytes",
    ),
    "binary over the limit": (
        {"bytes_data": b"\0" * (MAX_CLIENT_FRAME + 1)},
        TOO_BIG,
        f"frame over {MAX_CLIENT_FRAME} bytes",
    ),
    "binary": ({"bytes_data": b"ping"}, BINARY, "binary frame"),
    "not JSON": ({"text_data": "ping"}, MALFORMED, "frame not a JSON object"),
    "JSON but not an object": ({"text_data": "[1, 2]"}, MALFORMED, "frame not a JSON object"),
}


@pytest.mark.parametrize("frame, code, reason", REFUSED_FRAMES.values(), ids=REFUSED_FRAMES.keys())
async def test_a_frame_refused_closes_only_its_socket_with_its_code_and_reason(
    table, frame, code, reason
):
    async with AsyncExitStack() as stack:
        ana = await enter(stack, table, "ana")
        await online(ana)
        ben = await enter(stack, table, "ben", ana)
        await online(ben)
        await ana.send_to(**frame)
        output = await ana.receive_output(timeout=TIMEOUT)
        assert output == {"type": "websocket.close", "code": code, "reason": reason}
        assert await online(ben) == ["ben"]
        await roll(table, "ben")
        assert seqs([await receive(ben)]) == [1]
        # A quiet window: the closed socket is in no group, no mark reaches it.
        assert await ana.receive_nothing()


async def test_a_small_json_object_is_ignored(table):
    """What htmx's ws extension sends (a form's values and its headers)."""
    frame = '{"HEADERS": {"HX-Request": "true"}, "x": "%s"}'
    frame %= "x" * (MAX_CLIENT_FRAME - len(frame) + 2)
    assert len(frame.encode()) == MAX_CLIENT_FRAME
    async with AsyncExitStack() as stack:
        ana = await enter(stack, table, "ana")
        await online(ana)
        await ana.send_to(text_data=frame)
        assert await before_mark(ana) == [[]]
        await roll(table, "ana")
        assert seqs([await receive(ana)]) == [1]


async def test_every_close_code_is_one_daphne_sends():
    """1000, or 3000-4999 (the app's own reasons are 4xxx): autobahn refuses any other code,
    and the client then sees 1011 or 1006."""
    assert len(set(CLOSE_CODES)) == len(CLOSE_CODES)
    assert all(4000 <= code <= 4999 for code in CLOSE_CODES)
    assert {code for _, code, _ in REFUSED_FRAMES.values()} | {LEFT, RECAST} == set(CLOSE_CODES)


async def test_every_close_in_the_consumers_names_one_of_the_close_codes():
    """Each ``close(...)`` and ``refuse(...)`` in room/consumers.py gives no code (1000), or
    one of CLOSE_CODES by name; ``refuse`` passes on its own argument."""
    names = {name for name in dir(consumers) if getattr(consumers, name) in CLOSE_CODES}
    names = {name for name in names if name.isupper() and name != "CLOSE_CODES"}
    tree = ast.parse(inspect.getsource(consumers))
    calls = []
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr not in ("close", "refuse"):
                continue
            codes = [k.value for k in node.keywords if k.arg == "code"] + node.args[:1]
            calls.append((function.name, [ast.unparse(code) for code in codes]))
    assert ("connect", []) in calls and ("refuse", ["code"]) in calls
    for function, codes in calls:
        allowed = names | ({"code"} if function == "refuse" else set())
        assert set(codes) <= allowed, (function, codes)


# A socket closing while a push is on its way ------------------------------------------------


def closing_daphne_socket():
    """Daphne's protocol of a socket whose closing handshake has begun (it has not heard the
    TCP connection end yet): a send to it raises what daphne raises."""
    protocol = WebSocketProtocol()
    protocol.client_addr = ["127.0.0.1", 1]
    protocol.state = WebSocketProtocol.STATE_CLOSING
    return protocol


async def test_a_push_to_a_closing_socket_is_dropped_logged_at_debug_only(
    table, player, monkeypatch, caplog
):
    """ana's client has begun to close her socket: the pushes to it raise daphne's error until
    its disconnect comes. Each is dropped; her consumer lives on and leaves the room when the
    disconnect comes."""
    closing = closing_daphne_socket()
    with pytest.raises(Disconnected):
        closing.handle_reply({"type": "websocket.send", "text": "<p>late</p>"})
    send = AsyncConsumer.send
    dropped = []
    three_dropped = asyncio.Event()

    async def send_while_closing(self, message):
        if self.user_id == player.pk and message["type"] == "websocket.send":
            dropped.append(message)
            if len(dropped) == 3:  # two rolls and the presence list
                three_dropped.set()
            closing.handle_reply(message)
        await send(self, message)

    async with AsyncExitStack() as stack:
        ana = await enter(stack, table, "ana")
        await online(ana)
        monkeypatch.setattr(AsyncConsumer, "send", send_while_closing)
        caplog.set_level(logging.DEBUG)
        await roll(table, "gm")
        await roll(table, "gm")
        ben = await enter(stack, table, "ben")  # the room's presence list, to ana too
        assert await online(ben) == ["ana", "ben"]
        await asyncio.wait_for(three_dropped.wait(), TIMEOUT)
        # A quiet window: a mark to the closing socket would be dropped too.
        assert await ana.receive_nothing()
    assert await presence_rows() == 0
    logged = [r.levelno for r in caplog.records if r.name == "room.consumers"]
    assert logged == [logging.DEBUG] * len(dropped)
    assert not [r for r in caplog.records if r.levelno > logging.DEBUG], caplog.records


# Presence expires: a socket gone without a word stops counting within a minute ---------------


class Clock:
    """The presence clock, moved by hand."""

    def __init__(self):
        self.at = timezone.now()

    def __call__(self):
        return self.at

    def advance(self, seconds):
        self.at += timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(consumers, "now", clock)
    return clock


@database_sync_to_async
def dead_socket(table, username, seen_at):
    """A presence row whose socket's process died (nothing will delete it)."""
    user = table.gm if username == "gm" else table.characters[username].owner
    Presence.objects.create(
        campaign=table.campaign, user=user, channel_name=f"dead!{username}", seen_at=seen_at
    )


async def test_online_counts_only_sockets_seen_in_the_last_minute(table, clock):
    await dead_socket(table, "gm", clock() - PRESENCE_TTL)
    await dead_socket(table, "ben", clock() - PRESENCE_TTL - timedelta(seconds=1))
    assert await database_sync_to_async(consumers.online)(table.campaign.pk) == ["gm"]


async def test_a_dead_socket_s_row_is_dropped_when_someone_joins(table, clock):
    await dead_socket(table, "ben", clock())
    clock.advance(61)
    async with AsyncExitStack() as stack:
        ana = await enter(stack, table, "ana")
        assert await online(ana) == ["ana"]
        assert await presence_rows() == 1


def heard_beats(monkeypatch):
    """A queue of what each of the process's heartbeats found: the rooms whose list changed."""
    monkeypatch.setattr(consumers, "HEARTBEAT", 0.05)
    beats, loop = asyncio.Queue(), asyncio.get_running_loop()
    presence_refresh = consumers.presence_refresh

    def heard(members):  # in the database's thread
        changed = presence_refresh(members)
        loop.call_soon_threadsafe(beats.put_nowait, changed)
        return changed

    monkeypatch.setattr(consumers, "presence_refresh", heard)
    return beats


async def test_a_socket_dropped_as_stale_while_its_process_stalled_comes_back(
    table, clock, monkeypatch
):
    beats = heard_beats(monkeypatch)
    async with AsyncExitStack() as stack:
        ana = await enter(stack, table, "ana")
        assert await online(ana) == ["ana"]
        await database_sync_to_async(Presence.objects.all().delete)()
        changed = await asyncio.wait_for(beats.get(), TIMEOUT)
        assert list(changed) == [table.campaign.pk] and "ana" in changed[table.campaign.pk]
        assert await online(ana) == ["ana"]  # the room hears she is back
        assert await presence_rows() == 1
    assert await presence_rows() == 0


async def test_the_heartbeat_keeps_a_socket_present_and_drops_the_dead(table, clock, monkeypatch):
    monkeypatch.setattr(consumers, "HEARTBEAT", 0.05)
    beats = heard_beats(monkeypatch)

    @database_sync_to_async
    def anas_last_sign():
        return Presence.objects.get(user=table.characters["ana"].owner).seen_at

    async with AsyncExitStack() as stack:
        ana = await enter(stack, table, "ana")
        assert await online(ana) == ["ana"]
        await dead_socket(table, "ben", clock())
        clock.advance(45)  # ana's socket beats, ben's does not
        # Her beats (the first after the clock moved included) drop no one: nothing is pushed.
        while True:
            assert await asyncio.wait_for(beats.get(), TIMEOUT) == {}
            if await anas_last_sign() == clock():
                break
        clock.advance(45)  # 90 s after ben's last sign, 45 s after ana's
        assert await online(ana) == ["ana"]  # the room hears that ben is gone
        rows = await database_sync_to_async(list)(Presence.objects.values_list("seen_at"))
        assert rows == [(clock(),)]


# A connect cut short ------------------------------------------------------------------------


@pytest.fixture
def memory_layer(settings):
    """The in-memory layer, whose groups the test reads, whichever layer the suite runs on."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    return get_channel_layer()


async def test_a_connect_cancelled_midway_leaves_the_groups_it_joined(
    table, monkeypatch, memory_layer
):
    """Daphne cancels an instance still connecting 10 s after its client left, without a
    disconnect: the channel must not stay in the groups joined so far."""
    reading, release = threading.Event(), threading.Event()

    def slow_membership(user_id, campaign_id):
        reading.set()
        release.wait(TIMEOUT)
        return None, None

    monkeypatch.setattr(consumers, "membership_of", slow_membership)
    layer = memory_layer
    group = core_push.member_group_name(table.characters["ana"].owner_id)
    headers = [(b"origin", ORIGIN), (b"cookie", f"sessionid={table.cookie['ana']}".encode())]
    communicator = WebsocketCommunicator(
        application, f"/ws/campaigns/{table.campaign.pk}/", headers=headers
    )
    await communicator.send_input({"type": "websocket.connect"})
    assert await asyncio.to_thread(reading.wait, TIMEOUT)
    assert layer.groups.get(group)  # joined before the membership is read
    communicator.future.cancel()
    release.set()
    await asyncio.wait([communicator.future], timeout=TIMEOUT)
    assert communicator.future.cancelled()
    assert not layer.groups.get(group)


async def test_the_log_s_head_is_read_only_once_in_the_room_s_group(
    table, monkeypatch, memory_layer
):
    """Nothing committed after the head is read is missed: its push reaches the socket."""
    seen = []
    head = consumers.RoomConsumer.head

    def watched(consumer):
        group = memory_layer.groups.get(core_push.group_name(table.campaign.pk), {})
        seen.append(consumer.channel_name in group)
        return head(consumer)

    monkeypatch.setattr(consumers.RoomConsumer, "head", watched)
    async with AsyncExitStack() as stack:
        ana = await enter(stack, table, "ana")
        assert await online(ana) == ["ana"]
    assert seen == [True]


async def test_a_non_member_is_refused_without_joining_the_room_s_groups(
    table, outsider, monkeypatch, memory_layer
):
    joined = []
    group_add = memory_layer.group_add

    async def recorded(group, channel):
        joined.append(group)
        await group_add(group, channel)

    monkeypatch.setattr(memory_layer, "group_add", recorded)
    async with socket(table.campaign.pk, table.cookie["zed"]) as communicator:
        assert communicator.connected is False
    assert joined == [core_push.member_group_name(outsider.pk)]
    assert not any(memory_layer.groups.values())


# The database work of a connect and a disconnect ---------------------------------------------


@pytest.fixture
def database_trips(monkeypatch):
    """Each trip to Channels' database thread from now on: the SQL of its statements (a
    transaction's BEGIN and COMMIT left out: statements on SQLite, not on PostgreSQL)."""
    taken = []
    thread_handler = channels_db.DatabaseSyncToAsync.thread_handler

    def counting(self, *args, **kwargs):
        connection.force_debug_cursor = True
        mark = len(connection.queries_log)
        try:
            return thread_handler(self, *args, **kwargs)
        finally:
            statements = list(connection.queries_log)[mark:]
            sql = [q["sql"] for q in statements]
            taken.append([q for q in sql if not q.startswith(("BEGIN", "COMMIT"))])

    monkeypatch.setattr(channels_db.DatabaseSyncToAsync, "thread_handler", counting)
    return taken


async def test_a_connect_takes_three_trips_to_the_database_thread(table, database_trips):
    """The session and its user; the membership (once in the member's group); the presence
    row and the log's head (once in the room's group). Then the room's presence list, and on
    leaving a trip for the presence row."""
    async with socket(table.campaign.pk, table.cookie["ana"]) as ana:
        assert await online(ana) == ["ana"]
        connect = list(database_trips)
    assert [len(trip) for trip in connect] == [SESSION_READ + 1, 1, 2, 2]
    assert "presence" in connect[2][0].lower() and "INSERT" in connect[2][0]
    # Its disconnect: the row deleted (the list to an empty room reads who is left).
    assert await presence_rows() == 0
    [leave, *_] = database_trips[len(connect) :]
    assert len(leave) == 1 and leave[0].startswith("DELETE")


async def test_sockets_connecting_together_share_their_trips(table, database_trips):
    """Three sockets whose handshakes come together read their sessions in one trip, not
    three (the trips to the database thread, not the reading, were most of a connect)."""
    async with AsyncExitStack() as stack:
        communicators = [
            socket(table.campaign.pk, table.cookie[name]) for name in ("gm", "ana", "ben")
        ]
        opened = await asyncio.gather(*(stack.enter_async_context(c) for c in communicators))
        assert all(communicator.connected for communicator in opened)
        assert len(database_trips[0]) == 3 * (SESSION_READ + 1)
        # Nine trips alone; the membership and arrival trips may share too.
        assert len(database_trips) < 3 * 3
