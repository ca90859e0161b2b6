"""The initiative order in a real browser: the GM builds an order in the room, starts it and
advances it; the player's page follows live, shows whose turn it is, and its tab title says
"Your turn" (static/js/room.js) while it is their character's, beside the checks' count."""

from sheets.services import character_create
from tests.browser import BROWSER, BrowserTestCase, room_ready, settled
from tests.conftest import make_campaign, make_user

pytestmark = BROWSER


class TestTheTurnOrderInTheBrowser(BrowserTestCase):
    def setUp(self):
        self.gm, self.ana = make_user("gm"), make_user("ana")
        self.campaign = make_campaign(self.gm, system="pool", name="Marches", players=[self.ana])
        character_create(campaign=self.campaign, owner=self.ana, name="Ilse")
        self.log_in(self.gm, self.ana)

    def room(self, browser, username):
        page = self.logged_in_page(browser, username)
        page.goto(f"{self.live_server_url}/campaigns/{self.campaign.id}/room/")
        room_ready(page)
        return page

    def add(self, gm, *, character="", name="", score="", dice=""):
        card = gm.locator("#initiative")
        if character:
            card.get_by_label("Character").select_option(label=character)
        card.get_by_label("Name").fill(name)
        card.get_by_label("Score").fill(score)
        card.get_by_label("or roll").fill(dice)
        card.get_by_role("button", name="Add", exact=True).click()
        settled(gm)

    def test_the_gm_runs_the_order_and_the_player_sees_their_turn(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            gm, ana = self.room(browser, "gm"), self.room(browser, "ana")
            base = "Room · Marches · Rollroom"
            expect(ana).to_have_title(base)
            self.add(gm, name="Goblin", score="18")
            self.add(gm, character="Ilse", score="12")
            self.add(gm, name="Wolf", dice="d6")
            order = ana.locator("#initiative ol li .initiative-name")
            expect(order).to_have_text(["Goblin", "Ilse", "Wolf"])  # live, on the player's page

            gm.locator("#initiative").get_by_role("button", name="Start").click()
            current = ana.locator('#initiative li[aria-current="true"] .initiative-name')
            expect(current).to_have_text("Goblin")
            expect(ana.locator("#initiative [data-round]")).to_have_text("1")
            expect(ana).to_have_title(base)
            expect(ana.locator("#log")).to_contain_text("Initiative started: round 1")

            gm.locator("#initiative").get_by_role("button", name="Next turn").click()
            expect(current).to_have_text("Ilse")
            expect(ana.locator("#initiative [data-my-turn]")).to_contain_text("Your turn")
            expect(ana).to_have_title(f"Your turn · {base}")
            expect(gm).to_have_title(base)

            # A check asked meanwhile: the count and the turn side by side.
            gm.select_option("#ask-character", label="Ilse (ana)")
            gm.fill("#ask-target", "2")
            gm.click("#ask button")
            expect(ana).to_have_title(f"(1) Your turn · {base}")

            gm.locator("#initiative").get_by_role("button", name="Next turn").click()
            expect(current).to_have_text("Wolf")
            expect(ana).to_have_title(f"(1) {base}")
            gm.locator("#initiative").get_by_role("button", name="Next turn").click()
            expect(current).to_have_text("Goblin")
            expect(ana.locator("#initiative [data-round]")).to_have_text("2")

            # After a reload, the page shows the order as it is.
            ana.reload()
            room_ready(ana)
            expect(current).to_have_text("Goblin")
            expect(ana.locator("#initiative [data-round]")).to_have_text("2")

            gm.locator("#initiative").get_by_role("button", name="End").click()
            expect(ana.locator("#initiative")).to_contain_text("No turn order.")
            expect(ana.locator("#log")).to_contain_text("Initiative ended after round 2")
