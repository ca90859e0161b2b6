"""The room's page when its server restarts (static/js/site.js, room.js; config/shutdown.py), in
Chromium against real daphne processes of the test's own (tests/faults.py): told to stop, the
server closes the page's socket and the page says it is reconnecting, with a "Retry now" that
tries at once; a roll made meanwhile on another process appears once when the page is back on
its restarted server, which it finds by itself, resuming after the last entry it showed."""

import signal

from playwright.sync_api import expect

from tests.browser import BROWSER, BrowserTestCase, wait_until
from tests.config.test_redis_down import roll
from tests.config.test_scaleout import roll_setup
from tests.conftest import make_campaign, make_user
from tests.faults import start_daphne
from tests.helpers import free_port, stop

pytestmark = BROWSER


class TestServerRestartInTheBrowser(BrowserTestCase):
    def setUp(self):
        self.gm, self.ana = make_user("gm"), make_user("ana")
        self.campaign = make_campaign(self.gm, system="pool", players=[self.ana])
        self.check, self.agility, self.cookies = roll_setup(self.campaign, self.gm, self.ana)
        self.ports = free_port(), free_port()
        self.processes = [start_daphne(port) for port in self.ports]
        self.addCleanup(lambda: [stop(process) for process in self.processes])

    def test_the_page_reconnects_after_a_restart_and_misses_nothing(self):
        restarted, other = self.ports
        url = f"http://127.0.0.1:{restarted}"
        with self.browser() as browser:
            context = browser.new_context()
            cookie = {"name": "sessionid", "value": self.cookies["player"], "url": url}
            context.add_cookies([cookie])
            page = context.new_page()
            sockets = []
            page.on("websocket", lambda socket: sockets.append(socket.url))
            page.goto(f"{url}/campaigns/{self.campaign.id}/room/")
            status = page.locator("#ws-status")
            retry = page.get_by_role("button", name="Retry now")
            expect(status).to_have_attribute("data-state", "ok")
            expect(retry).to_be_hidden()
            shown = page.locator("#log [data-seq]").count()

            # The server is told to stop: the page says so at once, and offers to retry now.
            self.processes[0].send_signal(signal.SIGTERM)
            expect(status).to_have_text("reconnecting…")
            expect(retry).to_be_visible()
            self.processes[0].wait(timeout=10)

            # While it is down, "Retry now" tries at once (and the page waits again).
            tried = len(sockets)
            retry.click()
            wait_until(page, lambda: len(sockets) > tried)
            expect(retry).to_be_visible()

            # A roll made meanwhile, on another process of the same site.
            roll(other, self.campaign.id, self.check.id, self.agility.id, self.cookies["player"])

            # The server answers again: the page is back by itself, and shows the roll once.
            self.processes[0] = start_daphne(restarted)
            expect(status).to_have_attribute("data-state", "ok")
            expect(status).to_have_text("connected")
            expect(retry).to_be_hidden()
            expect(page.locator("#log article", has_text="Leap")).to_have_count(1)
            seqs = page.locator("#log [data-seq]").evaluate_all(
                "entries => entries.map(entry => entry.dataset.seq)"
            )
            assert len(seqs) == len(set(seqs)) == shown + 1, seqs
            # It resumed after the last entry it showed, not from the start.
            assert sockets[-1].endswith(f"?after={max(map(int, seqs)) - 1}"), sockets
            # The browser reports each socket it could not open (the server was down): nothing
            # else may be logged.
            errors = self.take_console_errors()
            assert all("WebSocket connection to" in e or "[object Event]" in e for e in errors), (
                errors
            )
