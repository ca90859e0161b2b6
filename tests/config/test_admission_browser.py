"""A socket turned away as Chromium meets it: a real daphne process of the test's own
(tests/faults.py) with room for one socket connecting (config/admission.py) holds one
(tests/held_asgi.py); a room page whose socket closed (4012, its server restarting) tries again,
and each try is accepted and closed at once with its turn (4601-4900). The page takes none of
them for a connection (static/js/site.js): it fetches nothing a reconnect fetches and stays
"reconnecting…"; once the held socket has joined, "Retry now" brings it back, and only then does
it fetch what a reconnect fetches."""

import re
import signal
import socket

from playwright.sync_api import expect

from config.admission import TRY_AGAIN_IN
from tests.browser import BROWSER, BrowserTestCase, wait_until
from tests.config.test_scaleout import roll_setup
from tests.conftest import make_campaign, make_user
from tests.faults import start_daphne, wait_for_log
from tests.helpers import free_port, stop

pytestmark = BROWSER

#: The page's htmx:wsOpen events (what the page takes for a connection) and wsClose events,
#: counted.
COUNT_OPENS = """
window.rollroomOpens = 0;
window.rollroomCloses = 0;
document.addEventListener("htmx:wsOpen", function () { window.rollroomOpens += 1; });
document.addEventListener("htmx:wsClose", function () { window.rollroomCloses += 1; });
"""


#: The delays of the page's timers of 100 ms or more, as it sets them (the socket's next try).
RECORD_WAITS = """
window.rollroomWaits = [];
const rollroomSetTimeout = window.setTimeout;
window.setTimeout = function (handler, delay, ...rest) {
  if (delay >= 100 && delay !== 1000) window.rollroomWaits.push(delay);
  return rollroomSetTimeout(handler, delay, ...rest);
};
"""


class TestTurnedAwayInTheBrowser(BrowserTestCase):
    def setUp(self):
        self.gm, self.ana = make_user("gm"), make_user("ana")
        self.campaign = make_campaign(self.gm, system="pool", players=[self.ana])
        _, _, self.cookies = roll_setup(self.campaign, self.gm, self.ana)
        self.port = free_port()
        self.process = start_daphne(
            self.port, app="tests.held_asgi:application", ROLLROOM_SOCKETS_CONNECTING="1"
        )
        self.addCleanup(stop, self.process)

    def held_socket(self):
        """A handshake of the GM's room socket, held connecting until the process gets
        SIGUSR1: the process has as many sockets connecting as it takes. A plain TCP socket:
        the answer is read once released (``joined``)."""
        held = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        self.addCleanup(held.close)
        request = (
            f"GET /ws/campaigns/{self.campaign.id}/ HTTP/1.1\r\n"
            f"Host: 127.0.0.1:{self.port}\r\nOrigin: http://127.0.0.1:{self.port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            f"Cookie: sessionid={self.cookies['gm']}\r\nX-Test-Hold: 1\r\n\r\n"
        )
        held.sendall(request.encode())
        wait_for_log(self.port, "Holding socket 1", self.process)
        return held

    @staticmethod
    def joined(held):
        """The held handshake's answer, once it came: its status line."""
        return held.makefile("rb").readline().decode().strip()

    def room_page(self, browser, init_script):
        """The player's room page, open and connected, with ``init_script`` run before the
        page's own, and the routes its sockets pass through, in order (one so far)."""
        url = f"http://127.0.0.1:{self.port}"
        context = browser.new_context()
        context.add_cookies([{"name": "sessionid", "value": self.cookies["player"], "url": url}])
        context.add_init_script(init_script)
        page, routes = context.new_page(), []

        def through(route):
            routes.append(route)
            route.connect_to_server()

        page.route_web_socket(re.compile(".*/ws/campaigns/.*"), through)
        page.goto(f"{url}/campaigns/{self.campaign.id}/room/")
        expect(page.locator("#ws-status")).to_have_attribute("data-state", "ok")
        return page, routes

    def test_a_socket_turned_away_is_no_connection(self):
        with self.browser() as browser:
            page, routes = self.room_page(browser, COUNT_OPENS)
            fetched = []
            status = page.locator("#ws-status")
            assert page.evaluate("window.rollroomOpens") == 1

            # Another socket holds the process's one place for a socket connecting.
            held = self.held_socket()
            page.on(
                "request",
                lambda request: (
                    request.resource_type != "websocket" and fetched.append(request.url)
                ),
            )
            # The page's server restarts (as config/shutdown.py closes it): it tries again, and
            # is turned away each time (twice here, within the 5 s daphne holds a handshake).
            routes[0].close(code=4012, reason="service restart")
            page.wait_for_function("() => window.rollroomCloses >= 3")
            assert len(routes) == 3
            wait_for_log(self.port, "Too many sockets connecting (1)", self.process)
            expect(status).to_have_text("reconnecting…")
            assert page.evaluate("window.rollroomOpens") == 1
            assert fetched == []

            # The held socket joins; "Retry now" tries at once, and the page is back.
            self.process.send_signal(signal.SIGUSR1)
            assert self.joined(held) == "HTTP/1.1 101 Switching Protocols"
            page.get_by_role("button", name="Retry now").click()
            expect(status).to_have_attribute("data-state", "ok")
            assert page.evaluate("window.rollroomOpens") == 2
            wait_until(page, lambda: fetched)  # what a reconnect fetches, once open

    def test_a_turn_brings_the_page_back_within_its_second(self):
        """Closed with a turn (config/admission.py: TRY_AGAIN_IN + 3), the page waits
        between 2 and 3 s (its timer's own delay, read as the page sets it), then is back."""
        with self.browser() as browser:
            page, routes = self.room_page(browser, COUNT_OPENS + RECORD_WAITS)
            status = page.locator("#ws-status")
            page.evaluate("window.rollroomWaits = []")
            routes[0].close(code=TRY_AGAIN_IN + 3, reason="")
            page.wait_for_function("() => window.rollroomCloses >= 1")
            waits = page.evaluate("window.rollroomWaits")
            assert len(waits) == 1 and 2000 <= waits[0] < 3000, waits
            expect(status).to_have_attribute("data-state", "ok", timeout=15_000)
            assert len(routes) == 2
            assert page.evaluate("window.rollroomOpens") == 2
