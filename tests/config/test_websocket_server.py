"""How daphne serves the websockets (config/websocket_server.py), through a real daphne and real
websocket clients: a frame the room does not take closes only its own socket, with a valid code
and its reason, while another socket in the room goes on hearing the rolls; a frame far over the
limit is refused by the protocol (1009) before it is read, not dropped without a close frame.
Every way of starting daphne gets these options."""

import asyncio
import os
import re
import urllib.parse
import urllib.request

import daphne
import daphne.server
import websockets
from autobahn import __version__ as autobahn_version
from channels.testing import ChannelsLiveServerTestCase
from django.urls import reverse
from websockets.exceptions import ConnectionClosed

from config import websocket_server
from config.websocket_server import MAX_FRAME, SocketFactory
from rolls.consumers import BINARY, MALFORMED, MAX_CLIENT_FRAME, TOO_BIG
from rolls.models import PUBLIC
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
    }
    assert installed == websocket_server.CHECKED_WITH, (
        f"Installed {installed}, checked with {websocket_server.CHECKED_WITH}: check that "
        "daphne.server.Server.run still builds its WebSocketFactory by that name and sets its "
        "options with setProtocolOptions, and that WebSocketProtocol.handle_reply and "
        "serverClose still do what SocketProtocol's do but the reason; then set CHECKED_WITH."
    )


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
