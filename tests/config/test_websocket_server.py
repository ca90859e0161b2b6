"""How daphne serves the websockets (config/websocket_server.py), through a real daphne and real
websocket clients: a frame the room does not take closes only its own socket, with a valid code
and its reason, while another socket in the room goes on hearing the rolls; a frame far over the
limit is refused by the protocol (1009) before it is read, not dropped without a close frame.
Every way of starting daphne gets these options. A frame is written to its socket at once, and
what the socket cannot take yet waits in twisted's buffer, the frames after it behind it."""

import asyncio
import os
import re
import socket
import urllib.parse
import urllib.request
from types import SimpleNamespace

import daphne
import daphne.server
import twisted
import websockets
from autobahn import __version__ as autobahn_version
from channels.testing import ChannelsLiveServerTestCase
from django.urls import reverse
from twisted.internet import tcp
from twisted.internet.protocol import Protocol
from websockets.exceptions import ConnectionClosed

from config import websocket_server
from config.websocket_server import MAX_FRAME, PREPARED_KEPT, SocketFactory, write_now
from rolls.models import PUBLIC
from room.consumers import BINARY, MALFORMED, MAX_CLIENT_FRAME, TOO_BIG
from tests.browser import FreshDaphne
from tests.conftest import make_campaign, make_user
from tests.helpers import fresh_python
from tests.rolls.sockets import build_harbor_table

TIMEOUT = 10
CSRF = "a" * 32  # a CSRF secret of the client's choosing, as cookie and header
#: (frame, close code, reason) of each frame the room refuses.
REFUSED = [
    ('{"x": "%s"}' % ("x" * MAX_CLIENT_FRAME), TOO_BIG, f"frame over {MAX_CLIENT_FRAME} bytes"),
    (b"\0" * (2 * 1024 * 1024), 1009, f"exceeds payload limit of {MAX_FRAME} octets"),
    ("x" * (MAX_FRAME + 1), 1009, f"exceeds payload limit of {MAX_FRAME} octets"),
    (b"ping", BINARY, "binary frame"),
    ("ping", MALFORMED, "frame not a JSON object"),
]


def major_minor(version):
    return tuple(int(part) for part in version.split(".")[:2])


def test_checked_with_the_installed_daphne_and_autobahn():
    installed = {
        "daphne": major_minor(daphne.__version__),
        "autobahn": major_minor(autobahn_version),
        "twisted": major_minor(twisted.__version__),
    }
    assert installed == websocket_server.CHECKED_WITH, (
        f"Installed {installed}, checked with {websocket_server.CHECKED_WITH}: check that "
        "daphne.server.Server.run still builds its WebSocketFactory by that name and sets its "
        "options with setProtocolOptions, and that WebSocketProtocol.handle_reply and "
        "serverClose still do what SocketProtocol's do but the reason, that autobahn's "
        "sendData still ends in transport.write, and that twisted's FileDescriptor still "
        "buffers in dataBuffer, offset and _tempDataBuffer; then set CHECKED_WITH."
    )


def test_a_text_is_framed_once_for_all_the_sockets_it_goes_to():
    factory = SocketFactory(server_class=None)
    frame = factory.prepared("<p>roll</p>")
    assert frame.payloadHybi == b"\x81\x0b<p>roll</p>"  # final text frame, 11 bytes, unmasked
    assert factory.prepared("<p>roll</p>") is frame
    assert factory.prepared("é").payloadHybi == b"\x81\x02\xc3\xa9"
    assert factory.prepared("x" * (MAX_FRAME + 1)) is None  # daphne's send refuses it, as before
    for n in range(PREPARED_KEPT):
        factory.prepared(str(n))
    assert len(factory.frames) == PREPARED_KEPT and "<p>roll</p>" not in factory.frames


class Writers:
    """The part of a reactor a connection uses to ask to be woken when its socket can take
    more (the connection's ``doWrite`` is then called by hand)."""

    def __init__(self):
        self.writers = set()

    def addWriter(self, writer):
        self.writers.add(writer)

    def removeWriter(self, writer):
        self.writers.discard(writer)

    def addReader(self, reader):
        pass

    def removeReader(self, reader):
        pass


def connection(buffer_size=4096):
    """A twisted TCP server connection over one end of a real socket pair (a Unix one: a
    peer's close fails the next send at once) with small buffers, its reactor and the other
    end."""
    ours, theirs = socket.socketpair()
    ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, buffer_size)
    theirs.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, buffer_size)
    ours.setblocking(False)
    reactor = Writers()
    transport = tcp.Server(
        ours, Protocol(), ("127.0.0.1", 1), SimpleNamespace(_realPortNumber=0), 0, reactor
    )
    return transport, reactor, theirs


def read_all(theirs, size, transport):
    """What the other end reads, ``size`` bytes, letting the connection write what it buffered
    (as the reactor would when the socket can take more)."""
    theirs.settimeout(TIMEOUT)
    received = bytearray()
    while len(received) < size:
        if transport.dataBuffer or transport._tempDataBuffer:
            transport.doWrite()
        try:
            theirs.settimeout(
                0.05 if transport.dataBuffer or transport._tempDataBuffer else TIMEOUT
            )
            received += theirs.recv(65536)
        except TimeoutError:
            pass
    return bytes(received)


def test_a_frame_goes_to_the_socket_at_once_when_nothing_waits():
    transport, reactor, theirs = connection()
    with theirs, transport.socket:
        assert write_now(transport, b"frame") is True
        assert reactor.writers == set() and transport._tempDataBuffer == []
        theirs.settimeout(TIMEOUT)
        assert theirs.recv(100) == b"frame"


def test_what_the_socket_cannot_take_waits_and_the_next_frames_follow_it_in_order():
    transport, reactor, theirs = connection()
    with theirs, transport.socket:
        big = bytes(range(256)) * 4096  # 1 MiB, far over both buffers
        assert write_now(transport, big) is True
        assert reactor.writers == {transport}  # the rest waits for the socket
        assert write_now(transport, b"next") is False  # so the next frame goes behind it
        transport.write(b"next")  # as SocketProtocol.sendData then does, through twisted
        assert read_all(theirs, len(big) + 4, transport) == big + b"next"
        assert reactor.writers == set()
        assert write_now(transport, b"again") is True  # all written: at once again
        assert theirs.recv(100) == b"again"


def test_a_connection_closing_or_not_plain_tcp_is_left_to_twisted():
    transport, reactor, theirs = connection()
    with theirs, transport.socket:
        transport.disconnecting = True
        assert write_now(transport, b"frame") is False
        transport.disconnecting = False
        transport._aborting = True  # abortConnection: closed at the reactor's next turn
        assert write_now(transport, b"frame") is False
        transport._aborting = False
        transport.TLS = True  # startTLS: twisted's TLS layer writes
        assert write_now(transport, b"frame") is False
        transport.TLS = False
        transport.connected = False
        assert write_now(transport, b"frame") is False
    assert write_now(SimpleNamespace(), b"frame") is False  # another transport


def test_a_socket_error_is_left_to_twisted():
    transport, reactor, theirs = connection()
    with transport.socket:
        theirs.close()
        assert write_now(transport, b"frame") is False
        assert reactor.writers == set() and transport._tempDataBuffer == []


def factory_installed_by(module, settings_module):
    """The name of the websocket factory daphne builds, in a fresh process that imported the
    ASGI application ``module`` (as ``daphne``, ``manage.py host`` and runserver do)."""
    code = f"import {module}, daphne.server; print(daphne.server.WebSocketFactory.__qualname__)"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": settings_module}
    return fresh_python(code, env).strip()


def test_every_asgi_application_has_daphne_build_the_socket_factory():
    assert daphne.server.WebSocketFactory is SocketFactory  # config.asgi, imported by the tests
    assert factory_installed_by("config.asgi", "config.settings") == "SocketFactory"
    assert factory_installed_by("bench.asgi", "bench.settings") == "SocketFactory"


class RefusedFramesCase(ChannelsLiveServerTestCase):
    """The live daphne of the browser tests (tests/browser.py), forked from this process; one
    test, as its session cache lives as long as the class."""

    ProtocolServerProcess = FreshDaphne

    def setUp(self):
        gm, ana, ben = make_user("gm"), make_user("ana"), make_user("ben")
        campaign = make_campaign(gm, name="Blue Harbor", system="mana", players=[ana, ben])
        self.table = build_harbor_table(campaign, gm, ana, ben)
        self.ws_url = self.live_server_url.replace("http://", "ws://")

    def connect(self, username):
        return websockets.connect(
            f"{self.ws_url}/ws/campaigns/{self.table.campaign.pk}/",
            origin=self.live_server_url,
            additional_headers={"Cookie": f"sessionid={self.table.cookie[username]}"},
            max_size=None,
            open_timeout=TIMEOUT,
        )

    def npc_roll(self):
        """The GM's NPC rolls, over HTTP to the live server (whose process sends the push)."""
        table = self.table
        data = {
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
        request = urllib.request.Request(
            self.live_server_url + reverse("npc_roll", args=[table.campaign.pk]),
            data=urllib.parse.urlencode(data).encode(),
            headers={
                "Cookie": f"sessionid={table.cookie['gm']}; csrftoken={CSRF}",
                "X-CSRFToken": CSRF,
                "HX-Request": "true",
            },
        )
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            assert response.status == 200

    def test_a_refused_frame_closes_only_its_socket_with_a_valid_code_and_its_reason(self):
        asyncio.run(self.refused_frames())

    async def refused_frames(self):
        async with self.connect("gm") as gm:
            assert await online(gm) == ["gm"]
            for seq, (frame, code, reason) in enumerate(REFUSED, start=1):
                async with self.connect("ana") as ana:
                    assert await online(gm) == ["ana", "gm"]
                    await ana.send(frame)
                    closed = await close_of(ana)
                    assert closed.code == code and reason in closed.reason, (frame[:20], closed)
                assert await online(gm) == ["gm"]
                await asyncio.to_thread(self.npc_roll)
                assert await entry(gm) == seq


async def online(socket):
    """The usernames in the next presence list the socket hears (other frames skipped)."""
    async with asyncio.timeout(TIMEOUT):
        while True:
            frame = await socket.recv()
            if 'id="presence"' in frame:
                return re.findall(r"<li>([^<]+)</li>", frame)


async def entry(socket):
    """The sequence number of the next log entry the socket hears."""
    async with asyncio.timeout(TIMEOUT):
        while True:
            found = re.search(r'data-seq="(\d+)"', await socket.recv())
            if found:
                return int(found.group(1))


async def close_of(socket):
    """The close frame the server sent, once the socket has closed (frames before it
    skipped)."""
    async with asyncio.timeout(TIMEOUT):
        try:
            while True:
                await socket.recv()
        except ConnectionClosed as closed:
            assert closed.rcvd is not None, f"no close frame: {closed}"
            return closed.rcvd
