"""A socket closed for want of a part (config/asgi.py's SocketGuard: 4503, try again later) in a
real browser: the page opens it again by itself (static/js/site.js), as the ws extension does
after 1006, 1011, 1012 and 1013, and the room works on the new one."""

import re

from campaigns.models import Campaign
from config.views import TRY_AGAIN_LATER
from tests.browser import BROWSER, BrowserTestCase
from tests.conftest import make_campaign, make_user

pytestmark = BROWSER


class TestTryAgainLaterInTheBrowser(BrowserTestCase):
    def setUp(self):
        self.gm, self.ana = make_user("gm"), make_user("ana")
        self.campaign = make_campaign(self.gm, system=Campaign.POOL, players=[self.ana])
        self.log_in(self.gm, self.ana)

    def test_a_socket_closed_with_try_again_later_is_opened_again(self):
        from playwright.sync_api import expect, sync_playwright

        with sync_playwright() as pw:
            browser = self.launch(pw)
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
