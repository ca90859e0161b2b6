"""The room in a real browser (Debian's Chromium through playwright, against a live Daphne):
pushes between two players' pages, the live odds, a refused roll swapped in place, and a
reconnect that resumes after the last entry the page shows (static/js/room.js)."""

import re

from campaigns.models import Campaign, ManaSkill
from sheets.models import ManaPool
from sheets.services import character_create
from tests.browser import BROWSER, BrowserTestCase, settled
from tests.conftest import make_campaign, make_user

pytestmark = BROWSER


class TestRoomInTheBrowser(BrowserTestCase):
    def setUp(self):
        self.gm, self.ana, self.ben = (make_user(n) for n in ("gm", "ana", "ben"))
        self.campaign = make_campaign(
            self.gm, system=Campaign.MANA, name="Blue Harbor", players=[self.ana, self.ben]
        )
        ManaSkill.objects.create(
            campaign=self.campaign, name="Gather Information", color_a="blue", color_b="white"
        )
        ManaSkill.objects.create(
            campaign=self.campaign, name="Jump", color_a="red", color_b="green"
        )
        mira = character_create(campaign=self.campaign, owner=self.ana, name="Mira")
        ManaPool.objects.filter(character=mira).update(current=5, maximum=5)
        self.log_in(self.gm, self.ana, self.ben)

    def open_room(self, browser, username):
        page = self.open_page(browser, username, f"/campaigns/{self.campaign.id}/room/")
        page.wait_for_selector('#ws-status[data-state="ok"]')
        return page

    def test_a_check_from_ask_to_roll_and_a_reconnect(self):
        from playwright.sync_api import expect, sync_playwright

        with sync_playwright() as pw:
            browser = self.launch(pw)
            gm = self.open_room(browser, "gm")
            # Ana's page goes through a route that can cut her socket like a server restart.
            ana = self.logged_in_page(browser, "ana")
            sockets, routes = [], []

            def through(route):
                sockets.append(route.url)
                routes.append(route)
                route.connect_to_server()

            ana.route_web_socket(re.compile(".*/ws/campaigns/.*"), through)
            ana.goto(f"{self.live_server_url}/campaigns/{self.campaign.id}/room/")
            ana.wait_for_selector('#ws-status[data-state="ok"]')
            ben = self.open_room(browser, "ben")
            expect(gm.locator("#presence")).to_contain_text("ana")

            # The GM asks a private check: it appears for the GM and for Ana, once each.
            gm.select_option("#ask-character", label="Mira (ana)")
            gm.select_option("#ask-mana_skill", label="Gather Information")
            gm.fill("#ask-target", "3")
            gm.fill("#ask-note", "Find the smuggler")
            gm.select_option("#ask-visibility", "private")
            gm.click("#ask button")
            expect(ana.locator("#checks > .check")).to_have_count(1)
            expect(gm.locator("#checks > .check")).to_have_count(1)
            settled(ana)
            expect(gm.locator("#ask .ok")).to_have_text("Asked.")

            # Live odds while Ana edits the spend.
            odds = ana.locator("#checks .odds")
            expect(odds).to_contain_text("1 free = 1d10")
            ana.fill("#checks input[name=spend_a]", "1")
            ana.fill("#checks input[name=spend_b]", "1")
            expect(odds).to_contain_text("1 free + 2 mana + 1 synergy = 4d10")
            expect(odds).to_contain_text("23.1%")
            ana.fill("#checks input[name=colorless]", "3")
            expect(odds).to_contain_text("Colorless mana is spent in pairs")
            ana.fill("#checks input[name=colorless]", "0")
            # Another skill brings its colors.
            ana.select_option("#checks select[name=skill]", label="Jump (red + green)")
            expect(ana.locator("#checks input[name=color_a]")).to_have_value("red")
            settled(ana)
            gather = "Gather Information (blue + white)"
            ana.select_option("#checks select[name=skill]", label=gather)
            expect(ana.locator("#checks input[name=color_a]")).to_have_value("blue")
            settled(ana)

            # A refused roll (422) is swapped in with its reason.
            ana.fill("#checks input[name=spend_a]", "9")
            expect(odds).to_contain_text("Not enough blue mana")
            ana.click("#checks form.roll button")
            expect(ana.locator("#checks .odds .error")).to_contain_text(
                "Not enough blue mana: you spend 9, the pool has 5."
            )
            settled(ana)

            # The roll: the full entry for Ana and the GM, a stub for Ben.
            ana.fill("#checks input[name=spend_a]", "1")
            ana.fill("#checks input[name=spend_b]", "1")
            ana.fill("#checks input[name=intent]", "Ask around the docks")
            ana.click("#checks form.roll button")
            for page in (ana, gm):
                expect(page.locator("#log article.entry")).to_have_count(1)
                expect(page.locator("#log")).to_contain_text("Ask around the docks")
            expect(ben.locator("#log article.entry")).to_have_count(1)
            expect(ben.locator("#log")).to_contain_text("ana rolled privately.")
            expect(ben.locator("#log .die")).to_have_count(0)
            expect(ben.locator("#checks > .check")).to_have_count(0)

            # Ana's socket drops (as when the server restarts); meanwhile the GM starts a
            # session. Her page reconnects asking for what came after entry 1, and gets it.
            room_ws = f"{self.live_server_ws_url}/ws/campaigns/{self.campaign.id}/"
            assert sockets == [room_ws + "?after=0"]
            routes[-1].close(code=1012, reason="restart")
            expect(ana.locator("#ws-status")).to_have_text("reconnecting…")
            gm.click("#session button")
            expect(gm.locator("#log")).to_contain_text("Session 1 started")
            expect(ana.locator('#ws-status[data-state="ok"]')).to_have_count(1)
            assert sockets[-1] == room_ws + "?after=1"
            expect(ana.locator("#log")).to_contain_text("Session 1 started")
            expect(ana.locator("#log article.entry")).to_have_count(2)
            browser.close()
