"""A part unavailable, as a real browser meets it: a socket closed for want of it
(config/routing.py's SocketGuard: 4503, try again later) is opened again by the page itself
(static/js/site.js), as after 1006, 1011, 1012 and 1013, and the room
works on the new one; a write answered 503 (config/views.py) shows its sentence in the page's
notice area and changes nothing on the page."""

import re

from config.views import TRY_AGAIN_LATER, UNAVAILABLE_SENTENCE
from sheets.services import character_create
from tests.browser import BROWSER, BrowserTestCase
from tests.conftest import make_campaign, make_user

pytestmark = BROWSER


class TestTryAgainLaterInTheBrowser(BrowserTestCase):
    def setUp(self):
        self.gm, self.ana = make_user("gm"), make_user("ana")
        self.campaign = make_campaign(self.gm, system="pool", players=[self.ana])
        character_create(campaign=self.campaign, owner=self.ana, name="Ada")
        self.log_in(self.gm, self.ana)

    def test_a_socket_closed_with_try_again_later_is_opened_again(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            ana = self.logged_in_page(browser, "ana")
            sockets = []

            def through(route):
                sockets.append(route.url)
                if len(sockets) == 1:  # the first, as the server closes it during an outage
                    route.connect_to_server()
                    route.close(code=TRY_AGAIN_LATER, reason="try again later")
                    return
                route.connect_to_server()

            ana.route_web_socket(re.compile(".*/ws/campaigns/.*"), through)
            ana.goto(f"{self.live_server_url}/campaigns/{self.campaign.id}/room/")
            # The page opens a second socket by itself, and is in the room on it.
            expect(ana.locator('#ws-status[data-state="ok"]')).to_be_attached(timeout=15_000)
            expect(ana.locator("#presence")).to_contain_text("ana")
            gm = self.open_page(browser, "gm", f"/campaigns/{self.campaign.id}/room/")
            expect(ana.locator("#presence")).to_contain_text("gm")
            assert len(sockets) == 2, sockets
            gm.close()
            # Playwright closing the page's socket from its route fires the socket's error event
            # too, which htmx logs (once); nothing else may be logged.
            errors = self.take_console_errors()
            assert len(errors) <= 1 and all("[object Event]" in e for e in errors), errors


class TestDatabaseUnavailableInTheBrowser(BrowserTestCase):
    """On a server of its own (one per class): a second test on a class's server opens no
    socket (issue 26)."""

    setUp = TestTryAgainLaterInTheBrowser.setUp

    def test_a_write_answered_503_shows_its_sentence(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            gm = self.open_page(browser, "gm", f"/campaigns/{self.campaign.id}/room/")
            gm.wait_for_selector('#ws-status[data-state="ok"]')
            # The database goes away under the GM's ask (as config.views.server_error answers).
            gm.route(
                re.compile(".*/checks/ask/$"),
                lambda route: route.fulfill(
                    status=503,
                    body=UNAVAILABLE_SENTENCE,
                    content_type="text/plain",
                    headers={"Retry-After": "5"},
                ),
            )
            gm.fill("#ask-target", "3")
            gm.click("#ask button")
            expect(gm.locator("#notice")).to_be_visible()
            expect(gm.locator("#notice")).to_have_text(UNAVAILABLE_SENTENCE)
            expect(gm.locator("#checks > .check")).to_have_count(0)
            # Back: the next ask goes through, and the notice goes away.
            gm.unroute(re.compile(".*/checks/ask/$"))
            gm.click("#ask button")
            expect(gm.locator("#checks > .check")).to_have_count(1)
            expect(gm.locator("#notice")).to_be_hidden()
            browser.close()
