"""Helpers for the tests that hear the room through real websockets (config.asgi and the channel
layer of the run), and for reading what a push carries: logged-in clients and their session
cookies, a socket opened and always closed, its frames, the presence list, and whether a roll's
entry shows in full or as a stub. The fixture ``empty_channel_layer`` is in tests/conftest.py."""

import itertools
import re
from contextlib import asynccontextmanager
from types import SimpleNamespace

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.urls import reverse

from config.asgi import application
from core import push
from rolls.models import PUBLIC
from rolls.systems.mana.models import ManaPool, ManaSkill
from room import consumers
from sheets.services import character_create
from tests.helpers import HTMX

ORIGIN = b"http://127.0.0.1"
TIMEOUT = 5
#: The note of the checks the socket tests roll (what a stub must not show).
NOTE = "The harbor master owes the smugglers"
SEQ = re.compile(r'data-seq="(\d+)"')
DIE = re.compile(r'class="die\b')
MARKS = itertools.count(1)


def stored_entry(campaign, seq, sub=0):
    """The log entry at (``seq``, ``sub``) read again, knowing the place of the entry before it
    as ``log_append`` does (``prev_place``): its push is the one it made."""
    from django.db.models import Q

    from rolls.models import LogEntry

    entry = LogEntry.objects.get(campaign=campaign, seq=seq, sub=sub)
    before = Q(seq__lt=seq) | Q(seq=seq, sub__lt=sub)
    prev = LogEntry.objects.filter(before, campaign=campaign).order_by("-seq", "-sub").first()
    entry.prev_place = prev.place if prev else (0, 0)
    return entry


def logged_in(user):
    """A test client logged in as ``user``: one client per user, as logging another user in
    would end this one's session."""
    client = Client()
    client.force_login(user)
    return client


def with_clients(table, *users):
    """``table`` with ``.client`` (a logged-in test client) and ``.cookie`` (its session cookie)
    for each of ``users``, by username."""
    table.client = {user.username: logged_in(user) for user in users}
    table.cookie = {
        name: client.cookies["sessionid"].value for name, client in table.client.items()
    }
    return table


def build_harbor_table(campaign, gm, player, other_player, *others):
    """The Mana ``campaign`` with a skill (Gather Information, blue and white), a character
    with 20 of every color for ``player`` (Mira), ``other_player`` (Tobin) and the GM (Harbor
    master) in ``.characters`` by username, and a client and cookie for each user given."""
    skill = ManaSkill.objects.create(
        campaign=campaign, name="Gather Information", color_a="blue", color_b="white"
    )
    characters = {}
    for user, name in ((player, "Mira"), (other_player, "Tobin"), (gm, "Harbor master")):
        characters[user.username] = character_create(campaign=campaign, owner=user, name=name)
        ManaPool.objects.filter(character=characters[user.username]).update(current=20, maximum=20)
    table = SimpleNamespace(campaign=campaign, gm=gm, skill=skill, characters=characters)
    return with_clients(table, gm, player, other_player, *others)


def npc_roll_form(table):
    """The form of the GM's NPC roll in a harbor ``table`` (:func:`build_harbor_table`): the
    Harbor master spends 1 blue and 1 white on Gather Information against 3, for everyone."""
    return {
        "character": table.characters["gm"].pk,
        "target": 3,
        "visibility": PUBLIC,
        "skill": table.skill.pk,
        "color_a": "blue",
        "color_b": "white",
        "spend_a": 1,
        "spend_b": 1,
        "colorless": 0,
        "intent": "Ask around the docks",
    }


@asynccontextmanager
async def socket(campaign_id, cookie=None, *, origin=ORIGIN, path="", query=""):
    """A websocket to the room (with ``path="facts/"`` a page's outside it), always disconnected
    at the end; ``.connected`` tells the handshake's outcome, ``.campaign_id`` its campaign."""
    headers = [(b"origin", origin)] if origin else []
    if cookie:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))
    communicator = WebsocketCommunicator(
        application, f"/ws/campaigns/{campaign_id}/{path}{query}", headers=headers
    )
    communicator.campaign_id = campaign_id  # for before_mark
    try:
        communicator.connected, _ = await communicator.connect(timeout=TIMEOUT)
        yield communicator
    finally:
        await communicator.disconnect(timeout=TIMEOUT)


async def receive(communicator):
    return await communicator.receive_from(timeout=TIMEOUT)


async def online(communicator):
    """The next frame, which must be the presence list: the usernames in it."""
    frame = await receive(communicator)
    assert 'id="presence"' in frame
    return re.findall(r"<li>([^<]+)</li>", frame)


async def enter(stack, table, username, *present, path="", query=""):
    """Open ``username``'s socket (closed with ``stack``); the sockets already ``present``
    receive the new presence list (the new socket's own frames are left to the caller)."""
    communicator = await stack.enter_async_context(
        socket(table.campaign.pk, table.cookie[username], path=path, query=query)
    )
    assert communicator.connected
    for other in present:
        assert username in await online(other)
    return communicator


async def room(stack, table):
    """The GM's, ana's and ben's sockets in ``table``'s room, each having seen the others
    arrive (their presence frames read)."""
    gm = await enter(stack, table, "gm")
    await online(gm)
    ana = await enter(stack, table, "ana", gm)
    await online(ana)
    ben = await enter(stack, table, "ben", gm, ana)
    await online(ben)
    return gm, ana, ben


async def before_mark(*communicators, presence=True):
    """What each of ``communicators`` (open sockets, in a room or on pages outside it) received
    before a mark pushed now to each of their rooms: a list of frames for each (the presence
    lists left out with ``presence=False``). A socket's pushes reach it in the order they were
    sent, so what was pushed to it before the mark and is not among these frames was not sent
    to it: no quiet moment to wait for. (A view's pushes go out on commit, before its answer.)"""
    # The presence lists gathered so far go out first (room.consumers.PresenceNews): a list
    # still gathering would come after the mark.
    await consumers.presence_news.sent()
    marks = {}
    for campaign_id in dict.fromkeys(c.campaign_id for c in communicators):
        marks[campaign_id] = mark = f"<p>mark {next(MARKS)}</p>"
        await get_channel_layer().group_send(
            push.group_name(campaign_id), {"type": "room.push", "facts": True, "all": mark}
        )
    heard = []
    for communicator in communicators:
        frames = []
        while (frame := await receive(communicator)) != marks[communicator.campaign_id]:
            if presence or 'id="presence"' not in frame:
                frames.append(frame)
        heard.append(frames)
    return heard


async def post(table, username, name, data, *args, htmx=True):
    """``username``'s POST of ``data`` to the campaign's URL ``name`` (campaign id, ``args``),
    with htmx unless told otherwise."""
    path = reverse(name, args=[table.campaign.pk, *args])
    headers = HTMX if htmx else {}
    return await sync_to_async(table.client[username].post)(path, data, **headers)


def seqs(frames):
    """The log sequence number each frame carries."""
    return [int(SEQ.search(frame).group(1)) for frame in frames]


def is_full(html):
    """A failed roll with the NOTE, shown with its dice."""
    return bool(DIE.search(html)) and "failure" in html and NOTE in html


def is_stub(html):
    """A roll shown as a stub: no dice, no outcome, no NOTE."""
    return (
        "rolled" in html
        and not DIE.search(html)
        and not re.search(r"success|failure", html)
        and NOTE not in html
    )
