"""Table talk and free rolls in a real browser (Debian's Chromium through playwright, against a
live Daphne), for the GM and two players, in both systems: a message with a mention (its alert
and tab badge), a whisper only its two ends see (no page reloads or reconnects for it), a free
roll with its exact chance shown before rolling, the GM's secret free roll, all on a phone's
width too."""

import re

from rolls.systems.mana.models import ManaSkill
from sheets.services import character_create
from tests.browser import BROWSER, BrowserTestCase, losing_first, settled
from tests.conftest import make_campaign, make_user

pytestmark = BROWSER


class TestTalkInPool(BrowserTestCase):
    system = "pool"

    def setUp(self):
        self.gm, self.ana, self.ben = (make_user(n) for n in ("gm", "ana", "ben"))
        self.campaign = make_campaign(
            self.gm, system=self.system, name="Talk table", players=[self.ana, self.ben]
        )
        if self.system == "mana":
            ManaSkill.objects.create(
                campaign=self.campaign, name="Jump", color_a="red", color_b="green"
            )
        character_create(campaign=self.campaign, owner=self.ana, name="Mira")
        self.log_in(self.gm, self.ana, self.ben)

    def open_room(self, browser, username, sockets=None, **context):
        page = self.logged_in_page(browser, username)
        if sockets is not None:

            def through(route):
                sockets.append(route.url)
                route.connect_to_server()

            page.route_web_socket(re.compile(".*/ws/campaigns/.*"), through)
        page.goto(f"{self.live_server_url}/campaigns/{self.campaign.id}/room/")
        page.wait_for_selector('#ws-status[data-state="ok"]')
        settled(page)
        return page

    def say(self, page, text):
        page.fill("#talk-text", text)
        page.press("#talk-text", "Enter")
        settled(page)

    def test_messages_whispers_and_free_rolls_between_three_pages(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            gm = self.open_room(browser, "gm")
            ana = self.open_room(browser, "ana")
            ben_sockets = []
            ben = self.open_room(browser, "ben", ben_sockets)
            ben.set_viewport_size({"width": 375, "height": 740})

            # A message calling ben: everyone reads it; ben is alerted, his tab badged.
            self.say(ana, "Over here, @ben <b>now</b>")
            for page in (gm, ana, ben):
                expect(page.locator("#log .entry.message").last).to_contain_text(
                    "Over here, @ben <b>now</b>"
                )
            expect(ben.locator("#talk-alert")).to_contain_text("You were called")
            expect(ben).to_have_title(re.compile(r"^✉1 "))
            expect(ana).not_to_have_title(re.compile("✉"))
            expect(ana.locator("#talk-text")).to_have_value("")  # the box, emptied
            ben.locator("#log").click()
            expect(ben).not_to_have_title(re.compile("✉"))

            # A whisper to the GM: only ana and the GM ever see it. While it is typed, the page
            # asks the server nothing (a preview is for dice only): its words leave the page
            # once, when it is sent.
            ana.fill("#talk-text", "/r 1d6 vs 4")
            expect(ana.locator("#talk-odds")).to_contain_text("50.0%")
            asked = []
            ana.on("request", lambda request: asked.append(request.url))
            ana.fill("#talk-text", "/w gm I pick the lock quietly")
            # The preview's request, due once the typing pauses, is stopped in the page,
            # which empties the preview instead.
            expect(ana.locator("#talk-odds")).to_have_text("")
            ana.press("#talk-text", "Enter")
            settled(ana)
            assert [url for url in asked if "lock" in url or "odds" in url] == [], asked
            expect(gm.locator("#log .entry[data-whisper]")).to_contain_text(
                "I pick the lock quietly"
            )
            expect(gm.locator("#talk-alert")).to_contain_text("Whisper")
            expect(ana.locator("#log .entry[data-whisper]")).to_contain_text("whispers to gm")

            # A free roll, its exact chance shown before it is sent; it follows the whisper
            # on ben's page with no gap (his socket is never reopened).
            ben.fill("#talk-text", "/r 1d20 vs 11")
            expect(ben.locator("#talk-odds")).to_contain_text("50.0%")
            ben.press("#talk-text", "Enter")
            for page in (gm, ana, ben):
                entry = page.locator("#log .entry.free_roll").last
                expect(entry).to_contain_text("1d20")
                expect(entry).to_contain_text("chance 50.0%")
            expect(ben.locator("#log")).not_to_contain_text("pick the lock")
            assert ben.locator("#log .entry[data-whisper]").count() == 0

            # The GM's secret roll: a commitment for the players, the dice for the GM.
            self.say(gm, "/sr 3d6!")
            expect(gm.locator("#log .entry.free_roll").last).to_contain_text("3d6!")
            expect(ben.locator("#log .entry.hidden").last).to_contain_text("rolled in secret")

            # The up arrow in the empty box brings back what was sent last.
            gm.focus("#talk-text")
            gm.press("#talk-text", "ArrowUp")
            expect(gm.locator("#talk-text")).to_have_value("/sr 3d6!")
            gm.fill("#talk-text", "")

            # A refused roll: the reason in place, nothing logged.
            self.say(ana, "/r 1000d1000000")
            expect(ana.locator("#talk-error")).to_be_visible()
            expect(ana.locator("#talk-text")).to_have_value("/r 1000d1000000")

            # Nothing scrolls sideways on the phone, and ben's socket was opened once.
            width = ben.evaluate("document.documentElement.scrollWidth")
            assert width <= 375, width
            expect(ben.locator("#ws-status")).to_have_attribute("data-state", "ok")
            assert len(ben_sockets) == 1, ben_sockets
            browser.close()


class TestTalkInMana(TestTalkInPool):
    """The same in a Mana campaign, on a server of its own."""

    system = "mana"


class TestWhisperReplayInTheBrowser(BrowserTestCase):
    """A page that missed a push after a whisper it has reopens its socket after its last
    number: the whisper comes again and is dropped, the missed entry comes once (on a server of
    its own)."""

    system = "pool"
    setUp = TestTalkInPool.setUp
    say = TestTalkInPool.say

    def test_a_whisper_replayed_after_a_gap_is_shown_once(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            gm = TestTalkInPool.open_room(self, browser, "gm")
            # Ana's socket loses the first frame of entry 2.
            ana = self.logged_in_page(browser, "ana")
            sockets, lost = losing_first(ana, 'data-seq="2"')
            ana.goto(f"{self.live_server_url}/campaigns/{self.campaign.id}/room/")
            ana.wait_for_selector('#ws-status[data-state="ok"]')
            settled(ana)
            entries = ana.locator("#log article.entry")
            self.say(gm, "ONE")  # 1
            self.say(gm, "/w ana PSST")  # a whisper after 1
            expect(entries).to_have_count(2)
            self.say(gm, "TWO")  # 2, lost on its way to Ana's page
            expect(gm.locator("#log article.entry")).to_have_count(3)
            expect(entries).to_have_count(2)
            self.say(gm, "THREE")  # 3: Ana's page sees the gap and reopens after #1
            expect(entries).to_have_count(4)
            room_ws = f"{self.live_server_ws_url}/ws/campaigns/{self.campaign.id}/"
            assert sockets == [room_ws + "?after=0", room_ws + "?after=1"]
            texts = [" ".join(text.split()) for text in entries.all_inner_texts()]
            assert ["ONE" in texts[0], "PSST" in texts[1], "TWO" in texts[2]] == [True] * 3
            assert "THREE" in texts[3]
            self.say(gm, "FOUR")
            expect(entries).to_have_count(5)
            assert len(sockets) == 2
            browser.close()


#: The left edges of the characters of ``text`` (arg[1]) where it first stands in the text of
#: the element ``selector`` (arg[0]), in the order they are drawn; null if it is not there.
DRAWN_AT = """([selector, text]) => {
  const root = document.querySelector(selector);
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.data.indexOf(text);
    if (at === -1) continue;
    return Array.from(text, (_, i) => {
      const range = document.createRange();
      range.setStart(node, at + i);
      range.setEnd(node, at + i + 1);
      return range.getBoundingClientRect().left;
    });
  }
  return null;
}"""


class TestADirectionOverrideInAMessage(BrowserTestCase):
    """A message carrying U+202E (right-to-left override) turns only itself around (issue #43):
    the entry's time after it reads left to right, live, after a reload and in the alert."""

    setUp = TestTalkInPool.setUp
    open_room = TestTalkInPool.open_room
    say = TestTalkInPool.say
    system = "pool"

    def reads_left_to_right(self, page, selector, text):
        lefts = page.evaluate(DRAWN_AT, [selector, text])
        assert lefts is not None, (selector, text)
        assert lefts == sorted(lefts) and len(set(lefts)) == len(lefts), (selector, text, lefts)

    def test_the_time_after_the_message_reads_left_to_right(self):
        from playwright.sync_api import expect

        entry = "#log .entry.message:last-of-type"
        with self.browser() as browser:
            ben = self.open_room(browser, "ben")
            ana = self.open_room(browser, "ana")
            self.say(ana, "\u202eevil words @ben")
            expect(ben.locator("#talk-alert")).to_contain_text("evil words")
            for page in (ana, ben):
                expect(page.locator(entry)).to_contain_text("evil words")
                time = page.locator(f"{entry} time").text_content()
                self.reads_left_to_right(page, f"{entry} time", time)
            # The alert says the message, then the time: the time still reads left to right.
            self.reads_left_to_right(ben, "#talk-alert", time)
            ana.reload()
            settled(ana)
            self.reads_left_to_right(ana, f"{entry} time", time)
            browser.close()
