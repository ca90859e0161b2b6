"""Saved rolls in a real browser (#47 item 6): a player saves a roll on their character's sheet,
then rolls it from the room with one click; the GM's room shows the roll live."""

from rolls.models import LogEntry
from sheets.services import character_create
from tests.browser import BROWSER, BrowserTestCase, room_ready, settled
from tests.conftest import make_campaign, make_user

pytestmark = BROWSER


class TestSavedRolls(BrowserTestCase):
    def setUp(self):
        self.gm, self.ana = (make_user(n) for n in ("gm", "ana"))
        self.campaign = make_campaign(self.gm, system="pool", name="Saved", players=[self.ana])
        self.mira = character_create(campaign=self.campaign, owner=self.ana, name="Mira")
        self.log_in(self.gm, self.ana)

    def test_a_roll_saved_on_the_sheet_is_rolled_from_the_room_with_one_click(self):
        from playwright.sync_api import expect

        room = f"{self.live_server_url}/campaigns/{self.campaign.id}/room/"
        with self.browser() as browser:
            gm = self.logged_in_page(browser, "gm")
            gm.goto(room)
            room_ready(gm)

            ana = self.logged_in_page(browser, "ana")
            ana.goto(
                f"{self.live_server_url}/campaigns/{self.campaign.id}/characters/{self.mira.id}/"
            )
            section = ana.locator("#saved-rolls")
            section.get_by_label("Name", exact=True).fill("Sneak attack")
            section.get_by_label("Dice", exact=True).fill("2d6+3 vs 9")
            section.get_by_role("button", name="Save").click()
            expect(section.locator(".saved-list")).to_contain_text("Sneak attack")
            expect(section.get_by_role("button", name="Roll Sneak attack")).to_be_visible()

            ana.goto(room)
            room_ready(ana)
            settled(ana)
            ana.locator("#requests").get_by_role("button", name="Roll Sneak attack").click()
            expect(ana.locator("#requests")).to_contain_text("Rolled: the log shows it.")
            for page in (ana, gm):
                entry = page.locator("#log .entry.free_roll").last
                expect(entry).to_contain_text("Mira")
                expect(entry).to_contain_text("“Sneak attack”")
                expect(entry).to_contain_text("2d6+3")
        assert LogEntry.objects.filter(kind=LogEntry.FREE, character=self.mira).count() == 1
