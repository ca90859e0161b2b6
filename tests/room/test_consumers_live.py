"""The room's socket under a real daphne with the settings' websocket limits (the tests' live
server, as ``manage.py host`` starts daphne): a frame the room does not take closes only its own
socket, with the code that says why, while another socket in the room goes on hearing the rolls;
a frame over the limit is refused by daphne before the consumer reads it, the connection dropped.
"""

import asyncio
import re
import urllib.parse
import urllib.request

import websockets
from channels.testing import ChannelsLiveServerTestCase
from django.conf import settings
from django.urls import reverse
from websockets.exceptions import ConnectionClosed

from room.consumers import BINARY, MALFORMED, MAX_CLIENT_FRAME, TOO_BIG
from tests.browser import FreshDaphne
from tests.conftest import make_campaign, make_user
from tests.rolls.sockets import build_harbor_table, npc_roll_form

TIMEOUT = 10
CSRF = "a" * 32  # a CSRF secret of the client's choosing, as cookie and header
LIMIT = settings.DAPHNE_WEBSOCKET_MAX_FRAME_SIZE
#: (frame, close code) of each frame the room refuses; None: daphne drops the connection
#: without a close frame (autobahn's failByDrop, which daphne leaves at its default), which the
#: client sees as 1006. A frame of LIMIT bytes still reaches the consumer; one byte more does not
#: (daphne's own default limit, 1 MiB, would have let it through to the consumer: 4413). The
#: consumer's close reason is not asserted: daphne passes on only the code (django/daphne#374).
REFUSED = [
    ('{"x": "%s"}' % ("x" * MAX_CLIENT_FRAME), TOO_BIG),
    ("x" * LIMIT, TOO_BIG),
    ("x" * (LIMIT + 1), None),
    (b"\0" * (2 * 1024 * 1024), None),
    (b"ping", BINARY),
    ("ping", MALFORMED),
]


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
        data = npc_roll_form(table)
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

    def test_a_refused_frame_closes_only_its_socket_with_its_code(self):
        asyncio.run(self.refused_frames())

    async def refused_frames(self):
        async with self.connect("gm") as gm:
            assert await online(gm) == ["gm"]
            for seq, (frame, code) in enumerate(REFUSED, start=1):
                async with self.connect("ana") as ana:
                    assert await online(gm) == ["ana", "gm"]
                    try:
                        await ana.send(frame)
                    except ConnectionClosed:
                        pass  # dropped while the frame was still being written
                    closed = await close_of(ana)
                    received = None if closed.rcvd is None else closed.rcvd.code
                    assert received == code, (frame[:20], len(frame), closed)
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
    """How the socket closed (``rcvd``: the close frame the server sent, None without one),
    once it has (frames before it skipped)."""
    async with asyncio.timeout(TIMEOUT):
        try:
            while True:
                await socket.recv()
        except ConnectionClosed as closed:
            return closed
