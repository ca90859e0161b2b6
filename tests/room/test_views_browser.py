"""The room in a real browser (Debian's Chromium through playwright, against a live Daphne):
pushes between two players' pages, the live odds, a refused roll swapped in place, a
reconnect that resumes after the last entry the page shows (static/js/room.js), and a GM-secret
roll revealed to every page with the log's new fingerprint."""

import re

from django.test import override_settings

from rolls.systems.mana.models import ManaPool, ManaSkill
from sheets.services import character_create
from tests.browser import BROWSER, BrowserTestCase, confirm, losing_first, settled, wait_until
from tests.conftest import make_campaign, make_user

pytestmark = BROWSER


class TestRoomInTheBrowser(BrowserTestCase):
    def setUp(self):
        self.gm, self.ana, self.ben = (make_user(n) for n in ("gm", "ana", "ben"))
        self.campaign = make_campaign(
            self.gm, system="mana", name="Blue Harbor", players=[self.ana, self.ben]
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
        from playwright.sync_api import expect

        with self.browser() as browser:
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
            # Any skill: Ana chooses (an asked skill would be fixed in her form).
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
            ana.click("#checks form.roll button:not([type=button])")
            expect(ana.locator("#checks .odds .error")).to_contain_text(
                "Not enough blue mana: you spend 9, the pool has 5."
            )
            settled(ana)

            # The roll: the full entry for Ana and the GM, a stub for Ben.
            ana.fill("#checks input[name=spend_a]", "1")
            ana.fill("#checks input[name=spend_b]", "1")
            ana.fill("#checks input[name=intent]", "Ask around the docks")
            ana.click("#checks form.roll button:not([type=button])")
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


#: Collects the page's Content-Security-Policy violations; playwright adds it before any script
#: of the page (the policy does not apply to it).
#: An empty inline style on every element of the page with an id, left the way any script that
#: touches ``element.style`` leaves it (a browser extension, the developer tools: the CSSOM is
#: no inline style for the policy). The settle of a swap must not copy it (htmx's
#: ``attributesToSettle``, base.html's htmx-config).
LEAVE_EMPTY_STYLES = """() => document.querySelectorAll("[id]").forEach((element) => {
  element.style.color = "red";
  element.style.color = "";
})"""


class TestContentSecurityPolicyInTheBrowser(BrowserTestCase):
    """Pages and swaps break no rule of the policy: tests/browser.py fails a test on any
    violation (and any console error) of the pages it opens."""

    def setUp(self):
        self.gm, self.ana = make_user("gm"), make_user("ana")
        self.campaign = make_campaign(
            self.gm, system="mana", name="Blue Harbor", players=[self.ana]
        )
        ManaSkill.objects.create(
            campaign=self.campaign, name="Jump", color_a="red", color_b="green"
        )
        self.mira = character_create(campaign=self.campaign, owner=self.ana, name="Mira")
        ManaPool.objects.filter(character=self.mira).update(current=5, maximum=5)
        self.log_in(self.gm, self.ana)

    def test_a_roll_in_the_room_breaks_no_rule_of_the_policy(self):
        from playwright.sync_api import expect

        room = f"/campaigns/{self.campaign.id}/room/"
        with self.browser() as browser:
            gm, ana = (self.open_page(browser, u, room) for u in ("gm", "ana"))
            for page in (gm, ana):
                page.wait_for_selector('#ws-status[data-state="ok"]')  # the socket: connect-src
            gm.select_option("#ask-character", label="Mira (ana)")
            gm.fill("#ask-target", "2")
            gm.click("#ask button")
            expect(ana.locator("#checks > .check")).to_have_count(1)
            settled(ana)
            ana.fill("#checks input[name=spend_a]", "1")
            expect(ana.locator("#checks .odds")).to_contain_text("2d10")
            ana.click("#checks form.roll button:not([type=button])")
            expect(gm.locator("#log article.entry")).to_have_count(1)
            # The other pages, with their htmx fragments loaded.
            for path in (
                f"/campaigns/{self.campaign.id}/",
                f"/campaigns/{self.campaign.id}/gm/",
                f"/campaigns/{self.campaign.id}/characters/{self.mira.id}/",
                "/rules/",
                f"/campaigns/{self.campaign.id}/luck/",
            ):
                gm.goto(f"{self.live_server_url}{path}")
                settled(gm)
            # The luck page's chart: an image of an SVG whose own styles the policy leaves alone.
            chart = gm.locator("img.chart").first
            assert chart.evaluate("i => i.complete && i.naturalWidth > 0")
            gm.goto(f"{self.live_server_url}/campaigns/{self.campaign.id}/gm/")
            gm.focus("input[data-select-on-focus]")  # static/js/site.js selects the link
            link = gm.locator("input[data-select-on-focus]")
            assert link.evaluate("i => i.selectionStart === 0 && i.selectionEnd === i.value.length")
            gm.evaluate("1")  # what the pages logged so far has reached the test
            assert self.take_console_errors() == []

            # The policy holds: an inline style and script are refused (and reported, on
            # purpose here: taken, so that the end of the test finds none).
            gm.evaluate(
                """() => new Promise((resolve) => {
                  let seen = 0;
                  document.addEventListener("securitypolicyviolation", () => {
                    if (++seen === 2) resolve();
                  });
                  document.body.insertAdjacentHTML("beforeend", '<p style="color: red">x</p>');
                  const s = document.createElement("script");
                  s.textContent = "window.ran = 1";
                  document.body.append(s);
                })"""
            )
            assert gm.evaluate("window.ran") is None
            browser.close()
        refused = "\n".join(self.take_console_errors())
        assert "CSP violation on /campaigns/" in refused
        assert "style-src-attr refused inline" in refused
        assert "script-src-elem refused inline" in refused


class TestSwapsInTheBrowser(BrowserTestCase):
    """The swaps the issue named (an ask and a re-attempt in a Mana room, a private request in a
    Pool room, a raise on a Pool sheet) on pages whose elements carry an empty inline style:
    none is copied into the new content, so the policy sees no inline style (tests/browser.py
    fails the test on a violation)."""

    def setUp(self):
        from sparetime.services import sparetime_grant
        from tests.rolls.room_setup import rate

        self.gm, self.ana = make_user("gm"), make_user("ana")
        self.mana = make_campaign(self.gm, system="mana", name="Blue Harbor", players=[self.ana])
        ManaSkill.objects.create(campaign=self.mana, name="Jump", color_a="red", color_b="green")
        mira = character_create(campaign=self.mana, owner=self.ana, name="Mira")
        ManaPool.objects.filter(character=mira).update(current=5, maximum=5)
        self.pool = make_campaign(self.gm, system="pool", name="Marches", players=[self.ana])
        self.ilse = character_create(campaign=self.pool, owner=self.ana, name="Ilse")
        rate(self.ilse, "Strength", value=3)
        sparetime_grant(character=self.ilse, amount=3, by=self.gm)
        self.log_in(self.gm, self.ana)

    @staticmethod
    def leave_empty_styles(*pages):
        for page in pages:
            settled(page)
            page.evaluate(LEAVE_EMPTY_STYLES)
            assert page.locator("main [id][style='']").count() > 0

    def rooms(self, browser, campaign):
        pages = [
            self.open_page(browser, u, f"/campaigns/{campaign.id}/room/") for u in ("gm", "ana")
        ]
        for page in pages:
            page.wait_for_selector('#ws-status[data-state="ok"]')
        return pages

    def test_an_ask_a_reattempt_a_private_request_and_a_raise_copy_no_inline_style(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            gm, ana = self.rooms(browser, self.mana)

            # An ask: the GM's form is swapped in again, the card in both rooms. TN 1000: the
            # roll fails.
            self.leave_empty_styles(gm, ana)
            gm.select_option("#ask-character", label="Mira (ana)")
            gm.fill("#ask-target", "1000")
            gm.click("#ask button")
            expect(gm.locator("#ask .ok")).to_have_text("Asked.")
            card = ana.locator("#checks > .check")
            expect(card).to_have_count(1)
            card_id = card.get_attribute("id")
            self.leave_empty_styles(gm, ana)
            ana.fill(f"#{card_id} input[name=spend_a]", "1")
            expect(ana.locator(f"#{card_id} .odds")).to_contain_text("2d10")
            ana.click(f"#roll-{card_id[6:]}-submit")
            expect(ana.locator(f"#{card_id}-result")).to_contain_text("Attempt 1")

            # A re-attempt: the GM's card is swapped in again, and Ana's by the socket.
            self.leave_empty_styles(gm, ana)
            gm.locator(f"#{card_id}").get_by_role("button", name="Allow a re-attempt").click()
            for page in (gm, ana):
                expect(page.locator(f"#{card_id}-result")).to_have_count(0)
            expect(ana.locator(f"#roll-{card_id[6:]}-submit")).to_be_visible()
            gm.close()
            ana.close()

            # A private request: Ana's form is swapped in again, the card reaches the GM.
            gm, ana = self.rooms(browser, self.pool)
            self.leave_empty_styles(gm, ana)
            request = ana.locator(f"#request-{self.ilse.id}")
            request.locator("[name=suggestion]").fill("Strength")
            request.locator("[name=visibility]").select_option("private")
            request.get_by_role("button", name="Request a check").click()
            expect(ana.locator(f"#request-{self.ilse.id} .ok")).to_contain_text("Requested")
            expect(gm.locator("#checks > .check")).to_have_count(1)

            # A raise on the Pool sheet: its question and its answer are swapped in, and the
            # sheet's pieces fetch themselves again.
            ana.goto(f"{self.live_server_url}/campaigns/{self.pool.id}/characters/{self.ilse.id}/")
            ana.wait_for_selector('[ws-connect][data-socket="open"]')
            self.leave_empty_styles(ana)
            ana.get_by_role("button", name="Raise Endurance 0 → 1 (costs 1)").click()
            self.leave_empty_styles(ana)
            ana.get_by_role("button", name="Confirm raise").click()
            expect(ana.locator("#sparetime").get_by_role("status")).to_have_text(
                "Endurance raised to 1."
            )
            expect(ana.locator("#sparetime .sparetime-free")).to_have_text("2")
            for page in (gm, ana):
                settled(page)
                page.evaluate("1")  # what the page logged has reached the test
            browser.close()


@override_settings(WRITE_LIMITS={"writes": (1, 60)})
class TestWriteLimitInTheBrowser(BrowserTestCase):
    def setUp(self):
        self.gm, self.ana = make_user("gm"), make_user("ana")
        self.campaign = make_campaign(self.gm, name="The Marches", players=[self.ana])
        character_create(campaign=self.campaign, owner=self.ana, name="Ada")
        self.log_in(self.gm)

    def test_a_write_over_the_limit_shows_its_sentence(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            gm = self.open_page(browser, "gm", f"/campaigns/{self.campaign.id}/room/")
            gm.wait_for_selector('#ws-status[data-state="ok"]')
            expect(gm.locator("#notice")).to_be_hidden()
            gm.fill("#ask-target", "3")
            gm.click("#ask button")
            expect(gm.locator("#ask .ok")).to_have_text("Asked.")
            settled(gm)
            gm.fill("#ask-target", "4")
            gm.click("#ask button")
            expect(gm.locator("#notice")).to_be_visible()
            expect(gm.locator("#notice")).to_contain_text("Slow down: at most 1 changes every 60")
            expect(gm.locator("#checks > .check")).to_have_count(1)
            browser.close()


class TestSecretRollsInTheBrowser(BrowserTestCase):
    """The reveal, on a server of its own (one per class): a second test on the server of the
    class above finds its pages sent to the login page."""

    setUp = TestRoomInTheBrowser.setUp
    open_room = TestRoomInTheBrowser.open_room

    def test_a_secret_roll_revealed_reaches_every_page_with_the_new_fingerprint(self):
        from playwright.sync_api import expect

        from rolls import services
        from rolls.models import SECRET, LogEntry
        from tests.rolls.room_setup import roll_mana

        warden = character_create(campaign=self.campaign, owner=self.gm, name="The Warden")
        ManaPool.objects.filter(character=warden).update(current=5, maximum=5)
        check = services.check_ask(
            campaign=self.campaign, character=warden, by=self.gm, target=2, visibility=SECRET
        )
        skill = ManaSkill.objects.get(campaign=self.campaign, name="Gather Information")
        secret = roll_mana(check, self.gm, skill, (9, 9, 8, 10), intent="Spot the knife")
        commitment = secret.data["commitment"]

        with self.browser() as browser:
            gm, ben = self.open_room(browser, "gm"), self.open_room(browser, "ben")
            fingerprint = f"#1 {secret.hash[:12]}"
            for page in (gm, ben):
                expect(page.locator("#log-fingerprint")).to_have_text(fingerprint)
            expect(ben.locator("#entry-1")).to_contain_text(f"Commitment {commitment[:16]}")
            expect(ben.locator("#log")).not_to_contain_text("Spot the knife")

            gm.click("#entry-1 .reveal-form button")
            confirm(gm)
            expect(gm.locator("#entry-1")).to_contain_text("Revealed as #2.")
            for page in (gm, ben):
                entry = page.locator("#entry-2")
                expect(entry).to_contain_text("gm revealed the secret roll #1")
                expect(entry).to_contain_text("Spot the knife")
                expect(entry).to_contain_text("matches the commitment")
                expect(page.locator("#log-fingerprint")).to_have_text(re.compile(r"#2 \w{12}"))
            shown = {page.locator("#log-fingerprint").text_content() for page in (gm, ben)}
            browser.close()
        revealed = LogEntry.objects.get(campaign=self.campaign, seq=2)
        assert shown == {f"#2 {revealed.hash[:12]}"}


class TestGapInTheBrowser(BrowserTestCase):
    """A push lost between the server and the page (the server fills only the gaps it sees):
    the page sees the next entry skip one, drops it and reopens its socket after its last
    entry (static/js/room.js); both entries then show, once each, in order."""

    def setUp(self):
        self.gm, self.ana = make_user("gm"), make_user("ana")
        self.campaign = make_campaign(
            self.gm, system="mana", name="Blue Harbor", players=[self.ana]
        )
        self.log_in(self.gm, self.ana)

    def test_the_page_reopens_its_socket_on_a_gap(self):
        from playwright.sync_api import expect

        room = f"/campaigns/{self.campaign.id}/room/"
        with self.browser() as browser:
            gm = self.open_page(browser, "gm", room)
            gm.wait_for_selector('#ws-status[data-state="ok"]')
            # Ana's socket goes through a route that loses the first frame of entry 2.
            ana = self.logged_in_page(browser, "ana")
            sockets, lost = losing_first(ana, 'data-seq="2"')
            ana.goto(f"{self.live_server_url}{room}")
            ana.wait_for_selector('#ws-status[data-state="ok"]')
            expect(gm.locator("#presence")).to_contain_text("ana")

            gm.click("#session button")  # entry 1
            expect(ana.locator("#log article.entry")).to_have_count(1)
            settled(gm)
            gm.click("#session button")  # entry 2, lost on its way to Ana's page
            expect(gm.locator("#log article.entry")).to_have_count(2)
            wait_until(ana, lambda: lost)  # the push reaches Ana's route after the GM's answer
            assert len(lost) == 1 and "Session 1 ended" in str(lost[0])
            expect(ana.locator("#log article.entry")).to_have_count(1)
            settled(gm)

            gm.click("#session button")  # entry 3: Ana's page sees the gap and reopens
            expect(gm.locator("#log article.entry")).to_have_count(3)
            expect(ana.locator("#log article.entry")).to_have_count(3)
            room_ws = f"{self.live_server_ws_url}/ws/campaigns/{self.campaign.id}/"
            assert sockets == [room_ws + "?after=0", room_ws + "?after=1"]
            expect(ana.locator('#ws-status[data-state="ok"]')).to_have_count(1)
            seqs = ana.locator("#log article.entry").evaluate_all(
                "entries => entries.map(e => e.dataset.seq)"
            )
            assert seqs == ["1", "2", "3"]
            texts = ana.locator("#log article.entry").all_inner_texts()
            assert "Session 1 started" in texts[0]
            assert "Session 1 ended" in texts[1]
            assert "Session 2 started" in texts[2]
            # Nothing more arrives late, twice: the log keeps the three.
            gm.click("#session button")  # entry 4, on the reopened socket
            expect(ana.locator("#log article.entry")).to_have_count(4)
            assert sockets == [room_ws + "?after=0", room_ws + "?after=1"]
            assert "#" in ana.locator("#log-fingerprint").inner_text()
            browser.close()
