"""A raise in a real browser (tests/browser.py): the sheet page's Pool section shows the new rating
and HP maximum as soon as the sparetime section answers, without a reload."""

from campaigns.models import Campaign
from sheets.services import character_create
from sparetime.services import sparetime_grant
from tests.browser import BROWSER, BrowserTestCase, settled
from tests.conftest import make_campaign, make_user

pytestmark = BROWSER


class TestSheetInTheBrowser(BrowserTestCase):
    def setUp(self):
        gm, ana = make_user("gm"), make_user("ana")
        campaign = make_campaign(gm, system=Campaign.POOL, players=[ana])
        ilse = character_create(campaign=campaign, owner=ana, name="Ilse")
        sparetime_grant(character=ilse, amount=3, by=gm)
        self.sheet = f"/campaigns/{campaign.id}/characters/{ilse.id}/"
        self.log_in(ana)

    def test_the_sheet_shows_a_raise_without_a_reload(self):
        from playwright.sync_api import expect, sync_playwright

        with sync_playwright() as pw:
            browser = self.launch(pw)
            page = self.open_page(browser, "ana", self.sheet)
            endurance = page.locator("#sheet-pool tr", has_text="Endurance")
            expect(endurance).to_contain_text("0d10")
            expect(page.locator("#sheet-pool .hp")).to_contain_text("HP 10 / 10")
            raise_endurance = page.get_by_role("button", name="Raise Endurance 0 → 1 (costs 1)")
            settled(page)
            page.evaluate("window.notReloaded = true")

            raise_endurance.click()
            expect(page.get_by_role("status")).to_have_text("Endurance raised to 1.")
            expect(page.locator("#sparetime .sparetime-free")).to_have_text("2")
            expect(endurance).to_contain_text("1d10")
            expect(page.locator("#sheet-pool .hp")).to_contain_text("HP 10 / 12")
            assert page.evaluate("window.notReloaded") is True
            browser.close()
