"""A player on the GM's server reached over the network by plain HTTP (Chromium on
``NETWORK_HOST``, tests/browser.py: an address that is not this machine's, so not a secure
context, and WebCrypto's ``crypto.subtle`` and the clipboard API are not there): the fair-dice
page (room.views.dice_page) still checks every die itself, with the vendored @noble/hashes
(static/js/fair.js), the invite link's copy button (static/js/site.js) falls back to copying
the selected text, and no page logs an error (tests/browser.py fails a test that logs one)."""

import re
from urllib.parse import urlsplit

from rolls import services
from rolls.models import LogEntry
from sheets.services import character_create
from tests.browser import BROWSER, NETWORK_HOST, BrowserTestCase, settled
from tests.conftest import make_campaign, make_user

pytestmark = BROWSER

#: What the page reports of itself: not a secure context, and neither API that needs one.
INSECURE = """() => [
  window.isSecureContext, !!(window.crypto && crypto.subtle), "clipboard" in navigator
]"""


class TestOverPlainHttpOnTheNetwork(BrowserTestCase):
    def setUp(self):
        self.gm, self.ana = make_user("gm"), make_user("ana")
        self.campaign = make_campaign(self.gm, system="pool", name="Far table", players=[self.ana])
        self.mira = character_create(campaign=self.campaign, owner=self.ana, name="Mira")
        services.session_start(campaign=self.campaign, by=self.gm)
        self.log_in(self.gm, self.ana)

    def open(self, browser, username, path):
        page = self.open_page(browser, username, path, site=self.network_url)
        settled(page)
        assert page.url.startswith(f"http://{NETWORK_HOST}:")
        assert page.evaluate(INSECURE) == [False, False, False]
        return page

    def test_a_roll_is_checked_by_the_players_browser(self):
        from playwright.sync_api import expect

        room = f"/campaigns/{self.campaign.id}/room/"
        with self.browser() as browser:
            page = self.open(browser, "ana", room)
            page.wait_for_selector('#ws-status[data-state="ok"]')  # the socket, on that host
            page.fill("#talk-text", "/r 4d6!")
            page.press("#talk-text", "Enter")
            expect(page.locator("#log .entry.free_roll")).to_have_count(1)
        record = LogEntry.objects.get(campaign=self.campaign, kind=LogEntry.FREE).data["fair"]
        assert record["by"] == "browser"  # crypto.getRandomValues needs no secure context

        services.session_end(campaign=self.campaign, by=self.gm)
        with self.browser() as browser:
            page = self.open(browser, "ana", f"{room}dice/")
            page.wait_for_selector('#fair-summary:not([data-state="wait"])')
            summary = page.locator("#fair-summary")
            state, text = summary.get_attribute("data-state"), summary.inner_text()
            seed_check = page.locator("[data-seed-check]").inner_text()
            checks = [cell.inner_text() for cell in page.locator("[data-check]").all()]
        assert state == "good", text
        assert text.startswith("Checked by your browser: the seed matches its commitment")
        assert seed_check == "✓ the seed hashes to it"
        assert checks == ["✓ recomputed"]

    def test_the_gm_copies_the_invite_link_and_no_page_logs_an_error(self):
        from playwright.sync_api import expect

        campaign = f"/campaigns/{self.campaign.id}"
        with self.browser() as browser:
            gm = self.open(browser, "gm", f"{campaign}/gm/")
            gm.click("button[data-copy='invite-link']")
            # Without the clipboard API: the link selected and copied the older way, or, where
            # the browser refuses that too, the player told to copy the selection.
            expect(gm.locator("[data-copied-for='invite-link']")).to_have_text(
                re.compile(r"^(Copied\.|Select the link and copy it \(Ctrl\+C\)\.)$")
            )
            link = gm.locator("#invite-link")
            assert link.evaluate("i => i.selectionStart === 0 && i.selectionEnd === i.value.length")
            # A friend not signed in follows it: the join page, then signing in or up.
            friend = browser.new_page()
            join = urlsplit(link.input_value()).path
            for path in (join, "/accounts/login/", "/accounts/signup/"):
                assert friend.goto(f"{self.network_url}{path}").status == 200, path
                settled(friend)
                assert friend.evaluate(INSECURE) == [False, False, False], path
            for path in (
                "/",
                "/campaigns/new/",
                f"{campaign}/",
                f"{campaign}/room/",
                f"{campaign}/room/dice/",
                f"{campaign}/characters/{self.mira.id}/",
                f"{campaign}/luck/",
                f"{campaign}/tuning/",
                f"{campaign}/gm/sparetime/",
                "/rules/",
                "/rules/odds/",
            ):
                assert gm.goto(f"{self.network_url}{path}").status == 200, path
                settled(gm)
                assert gm.evaluate(INSECURE) == [False, False, False], path
            gm.evaluate("1")  # what the pages logged so far has reached the test
            assert self.take_console_errors() == []
