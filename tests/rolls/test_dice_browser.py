"""Fair dice in a real browser (Debian's Chromium through playwright, against a live Daphne):
a free roll typed in the room carries the browser's own random part (static/js/site.js); once
the session ends, the fair-dice page recomputes every die in the page's own script
(static/js/dice.js over static/js/fair.js) and marks a changed die, a changed random part or a
changed seed."""

from rolls import services
from rolls.models import DiceSeed, LogEntry
from sheets.services import character_create
from tests.browser import BROWSER, BrowserTestCase, settled
from tests.conftest import make_campaign, make_user

pytestmark = BROWSER


class TestFairDiceInTheBrowser(BrowserTestCase):
    def setUp(self):
        self.gm, self.ana = make_user("gm"), make_user("ana")
        self.campaign = make_campaign(self.gm, system="pool", name="Fair table", players=[self.ana])
        character_create(campaign=self.campaign, owner=self.ana, name="Mira")
        services.session_start(campaign=self.campaign, by=self.gm)
        self.log_in(self.gm, self.ana)

    def page(self, browser, username, path):
        page = self.logged_in_page(browser, username)
        page.goto(f"{self.live_server_url}/campaigns/{self.campaign.id}/room/{path}")
        settled(page)
        return page

    def dice_page(self, username="ana"):
        """The fair-dice page once its script is done: (its summary, each row's check)."""
        with self.browser() as browser:
            page = self.page(browser, username, "dice/")
            page.wait_for_selector('#fair-summary:not([data-state="wait"])')
            summary = page.locator("#fair-summary")
            return (
                summary.get_attribute("data-state"),
                summary.inner_text(),
                [cell.inner_text() for cell in page.locator("[data-check]").all()],
            )

    def test_a_roll_from_the_browser_is_checked_by_the_browser(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            room = self.page(browser, "ana", "")
            page_commitment = room.locator("#dice-commitment code").inner_text()
            room.fill("#talk-text", "/r 4d6!")
            room.press("#talk-text", "Enter")
            expect(room.locator("#log .entry.free_roll")).to_have_count(1)
        roll = LogEntry.objects.get(campaign=self.campaign, kind=LogEntry.FREE)
        record = roll.data["fair"]
        assert record["by"] == "browser" and len(record["contribution"]) == 32
        assert record["commitment"].startswith(page_commitment)  # the one shown before

        services.session_end(campaign=self.campaign, by=self.gm)
        state, text, checks = self.dice_page()
        assert state == "good", text
        assert checks == ["✓ recomputed"]

        # A changed die (its draw too): the browser finds it.
        draws = [list(draw) for draw in record["draws"]]
        draws[0][2] = draws[0][2] % 6 + 1
        changed = {**roll.data, "fair": {**record, "draws": draws}}
        LogEntry.objects.filter(pk=roll.pk).update(data=changed)
        state, text, checks = self.dice_page()
        assert state == "bad" and checks == ["✗ die 1 is not what the seed gives"], checks

        # Another random part: every die differs.
        changed = {**roll.data, "fair": {**record, "contribution": "ab" * 16}}
        LogEntry.objects.filter(pk=roll.pk).update(data=changed)
        state, text, checks = self.dice_page()
        assert state == "bad" and checks[0].startswith("✗ die"), checks

        # A random part no roll could have: this roll does not verify, the check goes on.
        changed = {**roll.data, "fair": {**record, "contribution": "not hex at all"}}
        LogEntry.objects.filter(pk=roll.pk).update(data=changed)
        state, text, checks = self.dice_page()
        assert state == "bad" and checks == ["✗ its dice record is malformed"], (text, checks)
        assert "1 of the 1 roll above does not verify." in text

        # The roll as it was, its seed changed: the seed no longer hashes to its commitment.
        LogEntry.objects.filter(pk=roll.pk).update(data=roll.data)
        seed = DiceSeed.objects.get(commitment=record["commitment"])
        DiceSeed.objects.filter(pk=seed.pk).update(seed="0" * 64)
        state, text, checks = self.dice_page()
        assert state == "bad" and "does not match its commitment" in text
        assert checks == ["✗ the seed is not the one committed"]

    def test_fate_dice_are_checked_by_the_browser_as_d3_draws(self):
        """A Fate die is a d3's draw shown less 2 (rules.notation): the page's script checks its
        draws as any die's, and a Fate die shown otherwise than drawn is marked."""
        from playwright.sync_api import expect

        with self.browser() as browser:
            room = self.page(browser, "ana", "")
            room.fill("#talk-text", "/r 4dF+1")
            room.press("#talk-text", "Enter")
            expect(room.locator("#log .entry.free_roll .die.fate")).to_have_count(4)
            faces = room.locator("#log .entry.free_roll .die.fate .sr-only").all_inner_texts()
            assert faces and set(faces) <= {"minus", "blank", "plus"}
        roll = LogEntry.objects.get(campaign=self.campaign, kind=LogEntry.FREE)
        assert [draw[:2] for draw in roll.data["fair"]["draws"]] == [[1, 3]] * 4

        services.session_end(campaign=self.campaign, by=self.gm)
        state, text, checks = self.dice_page()
        assert state == "good", text
        assert checks == ["✓ recomputed"]

        # A Fate die shown as another face than its draw gives: the browser finds it.
        group = roll.data["groups"][0]
        dice = [dict(die) for die in group["dice"]]
        dice[0]["value"] = (dice[0]["value"] + 2) % 3 - 1
        changed = {**roll.data, "groups": [{**group, "dice": dice}]}
        LogEntry.objects.filter(pk=roll.pk).update(data=changed)
        state, text, checks = self.dice_page()
        assert state == "bad" and checks == ["✗ the dice it shows are not the ones drawn"], checks
