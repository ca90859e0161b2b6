"""Being asked, in a real browser: when the GM asks a player for a check, the player's room tab
shows it in its title (static/js/room.js), in both systems; closing the check takes the badge
away; the chime plays only for a player who ticked the box, which the browser remembers."""

from rolls.systems.mana.models import ManaSkill
from sheets.services import character_create
from tests.browser import BROWSER, BrowserTestCase, confirm, settled
from tests.conftest import make_campaign, make_user

pytestmark = BROWSER

#: A stand-in for the Web Audio API, installed before the page's scripts: it counts the tones
#: started (window.tones), so that a test can tell whether the chime played.
FAKE_AUDIO = """
window.tones = 0;
window.AudioContext = class {
  constructor() { this.state = "running"; this.currentTime = 0; this.destination = {}; }
  resume() { this.state = "running"; }
  createOscillator() {
    return { frequency: {}, connect: (n) => n, start() { window.tones += 1; }, stop() {} };
  }
  createGain() {
    return {
      gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} },
      connect: (n) => n,
    };
  }
};
"""


class BeingAsked(BrowserTestCase):
    """A Mana and a Pool campaign of the GM, where Ana plays Mira and Ilse. (One test per class:
    the live server keeps a class's sessions in its memory.)"""

    def setUp(self):
        self.gm, self.ana = make_user("gm"), make_user("ana")
        self.mana = make_campaign(self.gm, system="mana", name="Blue Harbor", players=[self.ana])
        ManaSkill.objects.create(campaign=self.mana, name="Jump", color_a="red", color_b="green")
        character_create(campaign=self.mana, owner=self.ana, name="Mira")
        self.pool = make_campaign(self.gm, system="pool", name="Marches", players=[self.ana])
        character_create(campaign=self.pool, owner=self.ana, name="Ilse")
        self.log_in(self.gm, self.ana)

    def room(self, browser, username, campaign, *, context=None):
        if context is None:
            page = self.logged_in_page(browser, username)
        else:
            page = context.new_page()
        page.add_init_script(FAKE_AUDIO)
        page.goto(f"{self.live_server_url}/campaigns/{campaign.id}/room/")
        page.wait_for_selector('#ws-status[data-state="ok"]')
        return page

    def ask(self, gm, label):
        gm.select_option("#ask-character", label=label)
        gm.fill("#ask-target", "2")
        gm.click("#ask button")
        settled(gm)


class TestTheTabTitleInTheBrowser(BeingAsked):
    def test_the_tab_title_counts_the_checks_asked_in_both_systems(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            for campaign, label in ((self.mana, "Mira (ana)"), (self.pool, "Ilse (ana)")):
                gm = self.room(browser, "gm", campaign)
                ana = self.room(browser, "ana", campaign)
                base = f"Room · {campaign.name} · Rollroom"
                expect(ana).to_have_title(base)
                self.ask(gm, label)
                expect(ana).to_have_title(f"(1) {base}")
                self.ask(gm, label)
                expect(ana).to_have_title(f"(2) {base}")
                expect(gm).to_have_title(base)  # nobody asked the GM
                # No opt-in: no sound.
                assert ana.evaluate("window.tones") == 0
                # The GM cancels one: the badge follows.
                gm.locator("#checks .cancel button").first.click()
                confirm(gm)
                expect(ana).to_have_title(f"(1) {base}")
                expect(ana.locator("#checks [data-asks-me]")).to_have_count(1)
            browser.close()


class TestTheChimeInTheBrowser(BeingAsked):
    def test_the_chime_plays_once_opted_in_and_the_choice_is_remembered(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            gm = self.room(browser, "gm", self.mana)
            context = browser.new_context()
            context.add_cookies(
                [{"name": "sessionid", "value": self.cookies["ana"], "url": self.live_server_url}]
            )
            ana = self.room(browser, "ana", self.mana, context=context)
            expect(ana.locator("#ask-sound")).not_to_be_checked()
            ana.check("#ask-sound")
            self.ask(gm, "Mira (ana)")
            expect(ana).to_have_title("(1) Room · Blue Harbor · Rollroom")
            ana.wait_for_function("window.tones > 0")
            # The same browser, another visit: still ticked, and the chime plays again.
            ana.close()
            ana = self.room(browser, "ana", self.mana, context=context)
            expect(ana.locator("#ask-sound")).to_be_checked()
            expect(ana).to_have_title("(1) Room · Blue Harbor · Rollroom")
            assert ana.evaluate("window.tones") == 0  # a check already there is no news
            ana.click("h1")  # the browser wants a gesture before any sound
            self.ask(gm, "Mira (ana)")
            expect(ana).to_have_title("(2) Room · Blue Harbor · Rollroom")
            ana.wait_for_function("window.tones > 0")
            browser.close()
