"""HP from the room's party in a browser (room.views.party_hp): the GM's − and set change a
character's HP, and the player's room shows the new HP and the log entry without a reload; a
number out of range comes back with its reason in place; no page logs an error (the
Content-Security-Policy included)."""

from rolls.systems.pool.models import sheet_of
from sheets.models import Character
from sheets.services import character_create
from tests.browser import BROWSER, BrowserTestCase, room_ready, settled
from tests.conftest import make_campaign, make_user

pytestmark = BROWSER


class TestHpFromTheParty(BrowserTestCase):
    def setUp(self):
        self.gm, self.ana = make_user("gm"), make_user("ana")
        self.campaign = make_campaign(self.gm, system="pool", name="Far table", players=[self.ana])
        self.ilse = character_create(campaign=self.campaign, owner=self.ana, name="Ilse")
        self.log_in(self.gm, self.ana)

    def test_the_gm_changes_hp_and_the_player_sees_it_live(self):
        from playwright.sync_api import expect

        room = f"/campaigns/{self.campaign.id}/room/"
        row = f"#party-{self.ilse.id}"
        with self.browser() as browser:
            ana = self.open_page(browser, "ana", room)
            room_ready(ana)
            expect(ana.locator(f"{row} .party-hp")).to_have_text("10 / 10")
            assert ana.locator(f"{row} form").count() == 0  # not by default: no controls
            gm = self.open_page(browser, "gm", room)
            room_ready(gm)
            gm.click(f"{row} button.hp-less")
            expect(gm.locator(f"{row} .hp-now")).to_have_text("9 / 10")
            expect(ana.locator(f"{row} .party-hp")).to_have_text("9 / 10")
            expect(ana.locator("#log .entry.hp")).to_contain_text("Ilse’s HP 10 → 9")
            settled(gm)
            gm.fill(f"{row} input.hp-value", "0")
            gm.press(f"{row} input.hp-value", "Enter")
            expect(ana.locator(f"{row} .party-hp")).to_have_text("0 / 10")
            expect(gm.locator(f"{row} button.hp-less")).to_be_disabled()
            settled(gm)
            # Past the browser's own check of the field's range: the server's refusal.
            gm.locator(f"{row} input.hp-value").evaluate("i => i.removeAttribute('max')")
            gm.fill(f"{row} input.hp-value", "11")
            gm.press(f"{row} input.hp-value", "Enter")
            expect(gm.locator(f"{row} .error")).to_have_text("Current HP lies between 0 and 10.")
            expect(ana.locator("#log .entry.hp")).to_have_count(2)
        assert sheet_of(Character.objects.get(pk=self.ilse.pk)).hp_current == 0
