"""Sparetime in a real browser (tests/browser.py): a raise asks first and spends only once
confirmed (by mouse or keyboard), the sheet page's Pool section shows the new rating and HP
maximum without a reload, the last raise is undone, and the GM reverses a ledger row."""

import re

from rolls import services as rolls
from rolls.systems.pool import services as pool_services
from rolls.systems.pool.models import PoolSettings, Rating, rating_of
from sheets.services import character_create
from sparetime.models import SparetimeEntry
from sparetime.services import (
    free_sparetime,
    sparetime_build,
    sparetime_grant,
)
from tests.browser import BROWSER, BrowserTestCase, confirm, settled, wait_until
from tests.conftest import make_campaign, make_user

pytestmark = BROWSER


def said(scope):
    """The notice said in ``scope``: the sheet has other live regions, empty until they speak
    (its saved rolls')."""
    return scope.get_by_role("status").filter(has_text=re.compile(r"\S"))


#: Records every free sparetime the sheet's piece shows from now on, other than the current.
WATCH_FREE = """() => {
  window.freeShown = [];
  const piece = document.getElementById("sparetime");
  const shown = () => piece.querySelector(".sparetime-free")?.textContent;
  const now = shown();
  new MutationObserver(() => {
    if (shown() !== now) window.freeShown.push(shown());
  }).observe(piece, {childList: true, subtree: true, characterData: true});
}"""


#: Counts the facts pushes the page's socket brings from now on (``window.factsHeard``): read
#: after site.js has handled each (its listener came first), fetching or deferring the pieces.
HEAR_FACTS = """() => {
  window.factsHeard = 0;
  document.addEventListener("htmx:wsAfterMessage", (event) => {
    if (/<!--facts /.test(event.detail.message)) window.factsHeard += 1;
  });
}"""


#: Whether an element lies within every box around it that clips it (a table scrolled sideways
#: in its ``.scroll-x`` box hides the columns past its edge): "in view", or what hides it.
IN_VIEW = """(el) => {
  const own = el.getBoundingClientRect();
  for (let box = el.parentElement; box; box = box.parentElement) {
    if (getComputedStyle(box).overflowX === "visible") continue;
    const edge = box.getBoundingClientRect();
    if (own.left < edge.left - 1 || own.right > edge.right + 1)
      return `${box.tagName}.${box.className} ${edge.left}..${edge.right} hides `
        + `${own.left}..${own.right}`;
  }
  return "in view";
}"""


class RaiseCase(BrowserTestCase):
    """Ana's Ilse, with 3 sparetime, in a Pool campaign; the GM and Ana logged in."""

    def setUp(self):
        gm, ana = make_user("gm"), make_user("ana")
        campaign = make_campaign(gm, system="pool", players=[ana])
        self.ilse = character_create(campaign=campaign, owner=ana, name="Ilse")
        self.grant = sparetime_grant(character=self.ilse, amount=3, by=gm)
        self.sheet = f"/campaigns/{campaign.id}/characters/{self.ilse.id}/"
        self.gm_panel = f"/campaigns/{campaign.id}/gm/"
        self.log_in(gm, ana)


class TestARaiseAnsweredAfterItsPush(RaiseCase):
    """The raise's own facts push reaches the page before the raise's answer (held back here):
    the sparetime piece fetches itself again only once the answer is in, so the answer, with
    its notice, lands on the page (fetched first, the piece would replace the answer's target
    and the notice would go nowhere)."""

    def test_the_answer_lands_and_the_piece_is_fetched_again_after_it(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            page = self.open_page(browser, "ana", self.sheet)
            settled(page)
            held = []

            def hold(route):
                held.append((route, route.fetch()))  # the raise is done; its answer waits

            page.route("**/sparetime/spend/", hold)
            fetched = []
            page.on("request", lambda r: "/sparetime/" in r.url and fetched.append(r.method))
            page.evaluate(HEAR_FACTS)
            page.get_by_role("button", name="Raise Endurance 0 → 1 (costs 1)").click()
            page.get_by_role("button", name="Confirm raise").click()
            wait_until(page, lambda: held)
            [(route, answer)] = held
            # The raise's facts push (sent on its commit, before its answer) is in, and handled.
            page.wait_for_function("() => window.factsHeard > 0")
            page.evaluate("() => true")  # a round trip: a fetch it made would be seen by now
            assert fetched == ["GET", "POST"]  # the raise's question, the raise: no fetch yet
            route.fulfill(response=answer)
            expect(said(page)).to_have_text("Endurance raised to 1.")
            expect(page.locator("#sparetime .sparetime-free")).to_have_text("2")
            settled(page)
            assert fetched == ["GET", "POST", "GET"]  # fetched again once the answer was in
            expect(said(page)).to_have_text("Endurance raised to 1.")
            browser.close()


class TestAFetchOnItsWayWhenARaiseStarts(RaiseCase):
    """A facts push made the sparetime piece fetch itself; that fetch is still on its way (held
    back here) when Ana raises, and comes back after the raise's answer, showing the piece as
    it was before. It is not swapped in: the raise's answer and its notice stay, and the piece
    is fetched again."""

    def test_the_old_piece_is_not_swapped_in_over_the_answer(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            page = self.open_page(browser, "ana", self.sheet)
            settled(page)
            held, gets = [], []

            def hold_the_first_fetch(route):
                if route.request.method == "GET" and not held:
                    held.append((route, route.fetch()))  # the piece before the raise
                else:
                    route.continue_()

            page.route(f"**/characters/{self.ilse.id}/sparetime/", hold_the_first_fetch)
            page.on("requestfinished", lambda r: "/sparetime/" in r.url and gets.append(r.method))
            page.evaluate(f"htmx.trigger(document.body, 'facts-{self.ilse.id}')")  # a push came
            wait_until(page, lambda: held)
            raised_at = len(gets)
            page.get_by_role("button", name="Raise Endurance 0 → 1 (costs 1)").click()
            page.get_by_role("button", name="Confirm raise").click()
            expect(said(page)).to_have_text("Endurance raised to 1.")
            expect(page.locator("#sparetime .sparetime-free")).to_have_text("2")
            # The raise's own facts push comes meanwhile: its fetch of the piece is done.
            wait_until(page, lambda: gets[raised_at:].count("GET") >= 1)
            fetched_before = len(gets)
            page.evaluate(WATCH_FREE)
            [(route, before)] = held
            route.fulfill(response=before)  # shows 3 sparetime and no notice
            # The old one, then the piece fetched again.
            wait_until(page, lambda: len(gets) > fetched_before + 1)
            settled(page)
            assert gets[fetched_before:] == ["GET", "GET"]
            assert page.evaluate("window.freeShown") == []  # the old piece never showed
            expect(page.locator("#sparetime .sparetime-free")).to_have_text("2")
            expect(said(page)).to_have_text("Endurance raised to 1.")
            browser.close()


class TestSheetInTheBrowser(RaiseCase):
    def test_a_raise_asks_first_then_shows_on_the_sheet_and_can_be_undone(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            page = self.open_page(browser, "ana", self.sheet)
            endurance = page.locator("#sheet-pool tr", has_text="Endurance")
            expect(endurance).to_contain_text("0d10")
            expect(page.locator("#sheet-pool .hp")).to_contain_text("HP 10 / 10")
            raise_endurance = page.get_by_role("button", name="Raise Endurance 0 → 1 (costs 1)")
            settled(page)
            page.evaluate("window.notReloaded = true")

            # The button asks; Keep leaves everything as it was, the button focused again.
            raise_endurance.click()
            question = page.get_by_text("Raise Endurance 0 → 1 for 1 sparetime (balance 3 → 2)?")
            expect(question).to_be_visible()
            expect(page.get_by_role("button", name="Confirm raise")).to_be_focused()
            page.get_by_role("button", name="Keep").click()
            expect(raise_endurance).to_be_focused()
            page.keyboard.press("Enter")  # the keyboard asks too; Escape keeps
            expect(page.get_by_role("button", name="Confirm raise")).to_be_focused()
            page.keyboard.press("Escape")
            expect(raise_endurance).to_be_focused()
            expect(page.get_by_role("button", name="Confirm raise")).to_have_count(0)
            expect(page.locator("#sparetime .sparetime-free")).to_have_text("3")

            # By keyboard: Enter opens the question, Enter on the focused Confirm raises.
            page.keyboard.press("Enter")
            expect(page.get_by_role("button", name="Confirm raise")).to_be_focused()
            page.keyboard.press("Enter")
            expect(said(page)).to_have_text("Endurance raised to 1.")
            expect(page.locator("#sparetime .sparetime-free")).to_have_text("2")
            expect(endurance).to_contain_text("1d10")
            # At full HP it stays at full: the raise's 2 HP count in both.
            expect(page.locator("#sheet-pool .hp")).to_contain_text("HP 12 / 12")

            # Undo: the rating, the balance and the HP maximum go back.
            expect(page.locator(".sparetime-undo")).to_contain_text(
                "Last raise: Endurance 0 → 1 for 1 sparetime."
            )
            page.get_by_role("button", name="Undo this raise").click()
            expect(said(page)).to_have_text("Undid the raise of Endurance 0 → 1; 1 sparetime back.")
            expect(page.locator("#sparetime .sparetime-free")).to_have_text("3")
            expect(endurance).to_contain_text("0d10")
            expect(page.locator("#sheet-pool .hp")).to_contain_text("HP 10 / 10")
            expect(page.locator(".sparetime-undo")).to_have_count(0)
            assert page.evaluate("window.notReloaded") is True
            browser.close()


class TestReversalInTheBrowser(BrowserTestCase):
    """On a server of its own (one per class, as tests/room/test_views_browser.py says: a second
    test on the server of the class above finds its pages sent to the login page)."""

    setUp = TestSheetInTheBrowser.setUp

    def test_the_gm_reverses_a_ledger_row(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            page = self.open_page(browser, "gm", self.gm_panel)
            card = page.locator("#gm-sparetime-body")
            expect(card).to_contain_text("Starting grant")
            settled(page)
            page.get_by_role("button", name="Reverse the starting grant of +3 for Ilse").click()
            expect(card).to_contain_text("Reverse the starting grant of +3 (Ilse)?")
            expect(card).to_contain_text("Ilse's free sparetime 3 → 0.")
            page.get_by_label("Why").fill("Granted to the wrong character")
            page.get_by_role("button", name="Confirm reversal").click()
            expect(said(card)).to_have_text("Reversed the starting grant of +3.")
            reversal = card.locator("tr", has_text="Reversal")
            expect(reversal).to_contain_text("-3")
            expect(reversal).to_contain_text("Granted to the wrong character")
            expect(card.locator(".sparetime-ledger .tag")).to_have_text("reversed")
            expect(card.get_by_role("button", name="Reverse")).to_have_count(0)
            browser.close()
        # The ORM once playwright's event loop is gone (in it, a query opens a connection).
        assert free_sparetime(self.ilse) == 0
        assert SparetimeEntry.objects.get(reverses=self.grant).kind == "reversal"


class TestRaisesOfferWhatCanBeAfforded(BrowserTestCase):
    """Ilse has 1 sparetime; an attribute point costs 2, a skill point 1: only the skills'
    raises can be asked for, and none once the point is spent."""

    def setUp(self):
        gm, ana = make_user("gm"), make_user("ana")
        campaign = make_campaign(gm, system="pool", players=[ana])
        PoolSettings.objects.update_or_create(
            campaign=campaign, defaults={"attribute_cost": 2, "skill_cost": 1}
        )
        self.ilse = character_create(campaign=campaign, owner=ana, name="Ilse")
        sparetime_grant(character=self.ilse, amount=1, by=gm)
        self.sheet = f"/campaigns/{campaign.id}/characters/{self.ilse.id}/"
        self.log_in(gm, ana)

    def test_a_raise_that_costs_more_than_is_left_is_disabled(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            page = self.open_page(browser, "ana", self.sheet)
            strength = page.get_by_role("button", name="Raise Strength 0 → 1 (costs 2)")
            endurance = page.get_by_role("button", name="Raise Endurance 0 → 1 (costs 1)")
            expect(strength).to_be_disabled()
            expect(strength).to_have_attribute("title", "1 free sparetime")
            expect(endurance).to_be_enabled()
            settled(page)
            endurance.click()
            page.get_by_role("button", name="Confirm raise").click()
            raised = page.get_by_role("button", name="Raise Endurance 1 → 2 (costs 1)")
            expect(raised).to_be_disabled()
            expect(page.locator(".sparetime-raises button:enabled")).to_have_count(0)
            browser.close()


class TestNpcsOnlyWhenTheGmAsks(BrowserTestCase):
    """The GM's Ogre rolled in the session with Ana's Ilse: the room's award ticks and offers
    Ilse alone; the GM panel's card leaves the Ogre out until the GM asks for the NPCs."""

    def setUp(self):
        gm, ana = make_user("gm"), make_user("ana")
        self.campaign = make_campaign(gm, system="pool", players=[ana])
        ilse = character_create(campaign=self.campaign, owner=ana, name="Ilse")
        ogre = character_create(campaign=self.campaign, owner=gm, name="The Ogre")
        rolls.session_start(campaign=self.campaign, by=gm)
        for character, by in ((ilse, ana), (ogre, gm)):
            Rating.objects.filter(character=character, attribute="Strength", skill="").update(
                value=3
            )
            check = rolls.check_ask(campaign=self.campaign, character=character, by=gm, target=9)
            pool_services.check_roll_pool(
                check=check, by=by, attribute=rating_of(character, "Strength")
            )
        self.log_in(gm, ana)

    def test_the_award_and_the_card_leave_the_npcs_out_unless_asked(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            room = self.open_page(browser, "gm", f"/campaigns/{self.campaign.id}/room/")
            room.get_by_role("button", name="End session 1").click()
            award = room.locator("#session form.award")
            expect(award.get_by_label("Ilse")).to_be_checked()
            expect(award.get_by_label("The Ogre")).to_have_count(0)

            panel = self.open_page(browser, "gm", f"/campaigns/{self.campaign.id}/gm/")
            card = panel.locator("#gm-sparetime-body")
            balances = card.locator(".sparetime-balances")
            expect(balances).to_contain_text("Ilse")
            expect(balances).not_to_contain_text("The Ogre")
            card.get_by_role("link", name="Include the NPCs").click()
            expect(balances).to_contain_text("The Ogre")
            card = panel.locator("#gm-sparetime-body")
            card.locator("select[name=grant-character]").select_option(label="The Ogre")
            card.locator("input[name=grant-amount]").fill("2")
            card.get_by_role("button", name="Grant").click()
            expect(said(card)).to_have_text("Granted 2 sparetime to The Ogre.")
            expect(card.locator(".sparetime-balances tr", has_text="The Ogre")).to_contain_text("2")
            browser.close()


class TestABuildInTheBrowser(BrowserTestCase):
    """A new character, all at 0, with a starting grant of 5: one build spends it."""

    def setUp(self):
        gm, ana = make_user("gm"), make_user("ana")
        campaign = make_campaign(gm, system="pool", players=[ana])
        self.ilse = character_create(campaign=campaign, owner=ana, name="Ilse")
        sparetime_grant(character=self.ilse, amount=5, by=gm)
        self.sheet = f"/campaigns/{campaign.id}/characters/{self.ilse.id}/"
        self.gm_panel = f"/campaigns/{campaign.id}/gm/"
        self.log_in(gm, ana)

    def test_a_build_counts_its_cost_as_typed_and_spends_it_in_one_confirm(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            page = self.open_page(browser, "ana", self.sheet)
            build = page.locator("form[data-build]")
            total = build.locator("[data-build-total]")
            spend = build.get_by_role("button", name="Spend on these ratings")
            expect(total).to_have_text("Costs 0 of 5 free sparetime.")
            expect(spend).to_be_disabled()
            build.get_by_label("Points for Strength").fill("2")
            build.get_by_label("Points for Endurance").fill("2")
            expect(total).to_have_text("Costs 4 of 5 free sparetime.")
            build.get_by_label("Points for Agility").fill("3")
            expect(total).to_have_text(
                "Costs 7 of 5 free sparetime. Not enough: take some points off."
            )
            expect(spend).to_be_disabled()
            build.get_by_label("Points for Agility").fill("1")
            expect(total).to_have_text("Costs 5 of 5 free sparetime.")
            expect(spend).to_be_enabled()
            settled(page)
            spend.click()
            confirm(page)
            expect(said(page)).to_have_text("Built: 5 points for 5 sparetime.")
            expect(page.locator(".sparetime-free")).to_have_text("0")
            strength = page.locator("#sheet-pool .attribute h3", has_text="Strength")
            expect(strength).to_contain_text("2d6")
            expect(page.locator("#sheet-pool tr", has_text="Endurance")).to_contain_text("2d10")
            # Built at full HP, it stays at full: Endurance 2 adds 4 to both.
            expect(page.locator("#sheet-pool .hp")).to_contain_text("HP 14 / 14")
            # The build is one row of the ledger, and one undo takes it all back.
            ledger = page.locator(".sparetime-ledger tbody tr")
            expect(ledger).to_have_count(2)
            expect(ledger.first).to_contain_text("Agility 0 → 1, Strength 0 → 2, Endurance 0 → 2")
            page.get_by_role("button", name="Undo this raise").click()
            expect(said(page)).to_contain_text("5 sparetime back.")
            expect(page.locator(".sparetime-free")).to_have_text("5")
            expect(page.locator("#sheet-pool .hp")).to_contain_text("HP 10 / 10")
            browser.close()
        strength = rating_of(self.ilse, "Strength")
        assert (strength.value, free_sparetime(self.ilse)) == (0, 5)
        spends = SparetimeEntry.objects.filter(character=self.ilse, kind=SparetimeEntry.SPEND)
        assert spends.count() == 1

    def test_the_ledgers_on_column_is_in_sight_at_375_px(self):
        """At a phone's width the ledger's rows wrap: what a row raised ("On") is on screen,
        not in a column scrolled out of sight, on the sheet and on the GM's card."""
        from playwright.sync_api import expect

        points = {
            rating_of(self.ilse, "Strength"): 2,
            rating_of(self.ilse, "Strength", "Endurance"): 2,
            rating_of(self.ilse, "Agility"): 1,
        }
        sparetime_build(character=self.ilse, by=self.ilse.owner, points=points)
        with self.browser() as browser:
            for user, path in (("ana", self.sheet), ("gm", self.gm_panel)):
                page = self.open_page(browser, user, path)
                page.set_viewport_size({"width": 375, "height": 740})
                on = page.locator(".sparetime-ledger td", has_text="Endurance 0 → 2").first
                expect(on).to_be_visible()
                box, frame = on.bounding_box(), on.evaluate(IN_VIEW)
                assert frame == "in view", (path, frame)
                assert 0 <= box["x"] and box["x"] + box["width"] <= 375, (path, box)
                page.context.close()
            browser.close()
