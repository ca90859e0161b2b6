"""Every page in a real browser (tests/browser.py): usable at 375 px without scrolling sideways,
no serious or critical accessibility violation (axe-core, through axe-playwright-python, which
ships it), the light and dark themes and the remembered toggle, the icons, and the room's new
entries marked and announced to screen readers."""

import re

from django.db import transaction

from rolls import services as rolls
from rolls.systems.mana import services as mana_services
from rolls.systems.mana.models import ManaSkill
from rolls.systems.pool import services as pool_services
from rules.notation import parse
from scene.services import (
    combatant_add,
    handout_share,
    initiative_start,
    scene_add,
    scene_show,
    token_add,
)
from sheets.services import character_create
from sparetime.services import sparetime_grant, sparetime_spend
from tests.browser import BROWSER, BrowserTestCase, confirm, settled
from tests.conftest import make_campaign, make_user
from tests.rolls.room_setup import fill, rate
from tests.rules.scripted_rng import ScriptedRng
from tests.scene.conftest import picture_bytes

pytestmark = BROWSER

PHONE = {"width": 375, "height": 740}
LIGHT_BG, DARK_BG = "rgb(247, 245, 240)", "rgb(23, 22, 20)"

# Elements wider than the page, for a readable failure.
OVERFLOWING = """() => Array.from(document.querySelectorAll('body *'))
  .filter(el => el.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
  .slice(0, 8).map(el => el.tagName + (el.id ? '#' + el.id : '') + '.' + el.className
    + ' ' + Math.round(el.getBoundingClientRect().right))"""

# The page shows a theme: its background (arg[0]) and its toggles pressed or not (arg[1]; the
# page updates them when the system setting changes).
THEME_SHOWN = """([color, dark]) => getComputedStyle(document.body).backgroundColor === color
  && Array.from(document.querySelectorAll('[data-theme-toggle]'))
    .every(button => button.getAttribute('aria-pressed') === String(dark))"""


#: The pages every check visits, with the user who visits them (None: logged out). In the paths
#: {pool} and {mana} are the campaigns' ids, {pool_sheet} and {mana_sheet} the characters' sheets
#: (``PagesTestCase.ids``).
PAGES = [
    (None, "/accounts/login/"),
    (None, "/accounts/signup/"),
    (None, "/accounts/password_reset/"),
    ("ana", "/"),
    ("ana", "/campaigns/{pool}/"),
    ("ana", "/campaigns/{pool}/room/"),
    ("ana", "{pool_sheet}"),
    ("ana", "{pool_sheet}sparetime/"),
    ("ana", "/campaigns/{pool}/characters/new/"),
    ("ana", "/campaigns/{mana}/room/"),
    ("ana", "{mana_sheet}"),
    ("ana", "/campaigns/new/"),
    ("ana", "/accounts/password_change/"),
    ("ana", "/campaigns/{pool}/room/dice/"),
    ("gm", "/"),
    ("gm", "/campaigns/{pool}/"),
    ("gm", "/campaigns/{pool}/room/"),
    ("gm", "/campaigns/{pool}/gm/"),
    ("gm", "{pool_sheet}"),
    ("gm", "/campaigns/{mana}/room/"),
    ("gm", "/campaigns/{mana}/gm/"),
    ("gm", "{mana_sheet}"),
    ("gm", "/campaigns/{pool}/room/dice/"),
    ("ana", "/campaigns/{pool}/handouts/"),
    ("gm", "/campaigns/{pool}/handouts/"),
    ("gm", "/campaigns/{pool}/scenes/"),
]


class PagesTestCase(BrowserTestCase):
    """A Pool and a Mana campaign with rolls, checks, sheets and sparetime, seen through
    ``PAGES``. The live server lives as long as its class (and its worker)."""

    def setUp(self):
        self.gm, ana = make_user("gm"), make_user("ana")
        pool = make_campaign(self.gm, system="pool", name="The Northern Marches", players=[ana])
        ilse = character_create(campaign=pool, owner=ana, name="Ilse of the Long Road")
        strength = rate(ilse, "Strength", value=3)
        jump = rate(ilse, "Strength", "Jump", value=2)
        rate(ilse, "Agility", value=1)
        sparetime_grant(character=ilse, amount=5, by=self.gm, note="Her years at the border fort")
        sparetime_spend(character=ilse, rating=jump, by=ana)
        # Enough rolls that the room's log scrolls (axe then asks that the keyboard reach it).
        for _ in range(8):
            check = rolls.check_ask(campaign=pool, character=ilse, by=self.gm, target=8)
            pool_services.check_roll_pool(
                check=check,
                by=ana,
                attribute=strength,
                skill=jump,
                intent="Leap the ditch",
                rng=ScriptedRng(4, 6, 3, 1, 2, 10, 5, 7),
            )
        rolls.check_ask(campaign=pool, character=ilse, by=self.gm, target=6)
        # Fair dice (no scripted dice): a roll of the seed, which the GM reveals, so that its
        # page shows the seed, the commitment and the rolls' table.
        rolls.free_roll_make(
            campaign=pool, by=ana, notation=parse("3d6 vs 10"), contribution="ab" * 16
        )
        rolls.dice_seed_reveal(campaign=pool, by=self.gm)
        # A handout with a picture, for ana alone: the room's card and the handouts page show it.
        handout_share(
            campaign=pool,
            title="A letter from the harbour master",
            text="Meet me at the docks.\n\nCome alone.",
            upload=picture_bytes(size=(1200, 800)),
            everyone=False,
            recipients=[ana],
        )

        # A scene shown, with ana's token and one on the GM's layer; an initiative order running.
        with transaction.atomic():  # the writes are one transaction each, as the views make them
            ford = scene_add(campaign=pool, name="The ford", upload=picture_bytes(size=(800, 600)))
            token_add(scene=ford, name=ilse.name, colour="#1f618d", character=ilse)
            token_add(scene=ford, name="Lurker", colour="#000000", gm_only=True)
            scene_add(campaign=pool, name="The lair", upload=picture_bytes("JPEG", size=(300, 200)))
            scene_show(scene=ford, by=self.gm)
            combatant_add(campaign=pool, by=self.gm, character=ilse, score=12)
            combatant_add(campaign=pool, by=self.gm, name="The Ogre", score=7)
            initiative_start(campaign=pool, by=self.gm)

        mana = make_campaign(self.gm, system="mana", name="Blue Harbor", players=[ana])
        gather = ManaSkill.objects.create(
            campaign=mana, name="Gather Information", color_a="blue", color_b="white"
        )
        ManaSkill.objects.create(
            campaign=mana, name="Jump", color_a="red", color_b="green", trait="Athletic"
        )
        mira = character_create(campaign=mana, owner=ana, name="Mira")
        fill(mira, blue=3, white=2, red=1, colorless=4)
        check = rolls.check_ask(campaign=mana, character=mira, by=self.gm, target=3)
        mana_services.check_roll_mana(
            check=check,
            by=ana,
            skill=gather,
            spend_a=1,
            spend_b=1,
            colorless=0,
            rng=ScriptedRng(7, 10, 4, 8),
        )
        rolls.check_ask(campaign=mana, character=mira, by=self.gm, target=2)

        self.pool, self.mana = pool, mana
        self.ids = {
            "pool": pool.id,
            "mana": mana.id,
            "pool_sheet": f"/campaigns/{pool.id}/characters/{ilse.id}/",
            "mana_sheet": f"/campaigns/{mana.id}/characters/{mira.id}/",
        }
        self.log_in(self.gm, ana)

    def visit(self, browser, username, path, **context):
        """``path`` for ``username`` (None: logged out), once its sections loaded; the responses
        that failed (status >= 400) are kept in ``page.failed``."""
        context = browser.new_context(**context)
        if username:
            context.add_cookies(
                [
                    {
                        "name": "sessionid",
                        "value": self.cookies[username],
                        "url": self.live_server_url,
                    }
                ]
            )
        page = context.new_page()
        page.set_default_timeout(10_000)
        page.failed = []
        page.on(
            "response",
            lambda response: (
                page.failed.append(f"{response.status} {response.url}")
                if response.status >= 400
                else None
            ),
        )
        # Loaded, then settled: the sections a page loads (hx-trigger "load") are asked for
        # as htmx starts, before the load event; "networkidle" would add 500 ms of quiet.
        page.goto(f"{self.live_server_url}{path}")
        settled(page)
        return page

    def path(self, page):
        """The path of ``page`` (one of ``PAGES``' paths) in this test's campaigns."""
        return page.format(**self.ids)


def slug(username, page):
    path = re.sub(r"[^a-z0-9]+", "_", page.lower()).strip("_") or "home"
    return f"{username or 'anonymous'}__{path}"


#: ``PAGES`` one by one, and by user (in their order).
EACH_PAGE = {slug(username, page): [(username, page)] for username, page in PAGES}
EACH_USER = {
    username or "anonymous": [(u, page) for u, page in PAGES if u == username]
    for username in dict.fromkeys(username for username, _ in PAGES)
}


def one_test_each(check, groups):
    """A test method of the decorated class for each group of pages in ``groups`` (so that
    xdist spreads them over its workers), named after ``check`` and the group, each calling
    ``check(self, [(username, path), ...])``."""

    def decorate(cls):
        for name, pages in groups.items():

            def test(self, pages=pages):
                check(self, [(username, self.path(page)) for username, page in pages])

            test.__name__ = f"test_{check.__name__}__{name}"
            test.__qualname__ = f"{cls.__qualname__}.{test.__name__}"
            setattr(cls, test.__name__, test)
        return cls

    return decorate


def no_page_scrolls_sideways_at_375_px(self, pages):
    wide = {}
    with self.browser() as browser:
        for username, path in pages:
            page = self.visit(browser, username, path, viewport=PHONE)
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > 375:
                wide[(username, path)] = (width, page.evaluate(OVERFLOWING))
            assert page.failed == [], (username, path, page.failed)
            page.context.close()
        browser.close()
    assert wide == {}


# A test per user: a page at 375 px takes about as long as launching the browser.
@one_test_each(no_page_scrolls_sideways_at_375_px, EACH_USER)
class TestPagesOnAPhone(PagesTestCase):
    pass


class TestTheRoomOnAPhone(PagesTestCase):
    def test_the_checks_come_first_for_a_player_and_after_a_short_log_for_the_gm(self):
        room = f"/campaigns/{self.pool.id}/room/"
        with self.browser() as browser:
            boxes = {}
            for username in ("ana", "gm"):
                page = self.visit(browser, username, room, viewport=PHONE)
                boxes[username] = {
                    card: page.locator(f".{card}").bounding_box()["y"]
                    for card in ("log-card", "checks-card", "presence-card")
                }
                if username == "ana":
                    # The roll button on the first screen, within a thumb's reach.
                    button = page.locator(".checks-card button", has_text="Roll").first
                    assert button.bounding_box()["y"] < PHONE["height"]
                page.context.close()
            browser.close()
        ana, gm = boxes["ana"], boxes["gm"]
        assert ana["checks-card"] < ana["log-card"] < ana["presence-card"]
        assert gm["log-card"] < gm["checks-card"] < gm["presence-card"]


def serious_violations(page):
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [
        (v["id"], v["impact"], [n["target"] for n in v["nodes"]][:5])
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def no_serious_violation(self, pages):
    """In the light theme, then in the dark one: the same page, its system setting switched
    (as a reader's system would switch it; the page follows it, in CSS and in its toggle),
    rather than loaded again with the other setting."""
    found = {}
    with self.browser() as browser:
        for username, path in pages:
            page = self.visit(browser, username, path, color_scheme="light")
            for scheme, color in (("light", LIGHT_BG), ("dark", DARK_BG)):
                page.emulate_media(color_scheme=scheme)
                page.wait_for_function(THEME_SHOWN, arg=[color, scheme == "dark"])
                violations = serious_violations(page)
                if violations:
                    found[(username, path, scheme)] = violations
            page.context.close()
        browser.close()
    assert found == {}


@one_test_each(no_serious_violation, EACH_PAGE)
class TestAccessibility(PagesTestCase):
    pass


def background(page):
    return page.evaluate("getComputedStyle(document.body).backgroundColor")


class TestThemes(PagesTestCase):
    def test_the_system_setting_chooses_the_theme(self):
        with self.browser() as browser:
            dark = self.visit(browser, "ana", "/", color_scheme="dark")
            assert background(dark) == DARK_BG
            assert dark.get_attribute("[data-theme-toggle]", "aria-pressed") == "true"
            light = self.visit(browser, "ana", "/", color_scheme="light")
            assert background(light) == LIGHT_BG
            assert light.get_attribute("[data-theme-toggle]", "aria-pressed") == "false"
            browser.close()


class TestTheThemeToggle(PagesTestCase):
    def test_the_toggle_says_which_theme_is_on(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            page = self.visit(browser, "ana", "/", color_scheme="light")
            toggle = page.get_by_role("button", name="Dark theme")
            expect(toggle).to_have_text("Dark theme: off")
            toggle.click()
            expect(toggle).to_have_text("Dark theme: on")
            expect(toggle).to_have_attribute("aria-pressed", "true")
            toggle.click()
            expect(toggle).to_have_text("Dark theme: off")
            browser.close()

    def test_the_toggle_is_remembered_across_a_reload_and_pages(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            page = self.visit(browser, "ana", "/", color_scheme="dark")
            toggle = page.get_by_role("button", name="Dark theme")
            expect(toggle).to_have_attribute("aria-pressed", "true")
            toggle.click()
            expect(toggle).to_have_attribute("aria-pressed", "false")
            assert background(page) == LIGHT_BG
            page.reload()
            assert page.evaluate("document.documentElement.dataset.theme") == "light"
            assert background(page) == LIGHT_BG
            expect(toggle).to_have_attribute("aria-pressed", "false")
            page.goto(f"{self.live_server_url}/campaigns/{self.pool.id}/room/")
            assert background(page) == LIGHT_BG

            toggle = page.get_by_role("button", name="Dark theme")
            toggle.click()
            page.reload()
            assert background(page) == DARK_BG
            expect(toggle).to_have_attribute("aria-pressed", "true")
            browser.close()


class TestIcons(PagesTestCase):
    def test_the_linked_icons_are_served(self):
        with self.browser() as browser:
            page = self.visit(browser, "ana", "/")
            for rel, kind in (("icon", "image/svg+xml"), ("apple-touch-icon", "image/png")):
                href = page.get_attribute(f'link[rel="{rel}"]', "href")
                response = page.request.get(f"{self.live_server_url}{href}")
                assert response.status == 200 and response.headers["content-type"] == kind
            assert page.failed == []
            browser.close()


class TestTheLogInTheBrowser(PagesTestCase):
    def test_a_new_entry_is_marked_and_said_once_to_screen_readers(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            room = f"/campaigns/{self.pool.id}/room/"
            ana = self.visit(browser, "ana", room)
            gm = self.visit(browser, "gm", room)
            for page in (ana, gm):
                page.wait_for_selector('#ws-status[data-state="ok"]')
                assert page.locator("#log .entry.arrived").count() == 0
                assert page.get_attribute("#log-news", "aria-live") == "polite"
                assert page.get_attribute("#log", "aria-live") is None
            gm.get_by_role("button", name="Start session 1").click()
            for page in (ana, gm):
                expect(page.locator("#log .entry.arrived")).to_contain_text("Session 1 started")
                expect(page.locator("#log-news")).to_contain_text("Session 1 started")
                expect(page.locator("#log .entry.arrived")).to_have_count(1)
            gm.get_by_role("button", name="End session 1").click()
            confirm(gm)  # the checks left open
            expect(ana.locator("#log-news")).to_contain_text("Session 1 ended")
            assert "started" not in ana.text_content("#log-news")
            expect(ana.locator("#log .entry.arrived")).to_have_count(1)
            browser.close()


#: Boxes that scroll sideways inside the page (wider content than they show), but text inputs
#: (a long invite link scrolls in its box), the log's entries and what only screen readers get
#: (the ledgers' column headers, which a phone's wrapped rows do without).
SCROLLING_INSIDE = """() => Array.from(document.querySelectorAll('main *'))
  .filter(el => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible'
    && el.tagName !== 'INPUT' && !el.classList.contains('sr-only')
    && !el.closest('.sparetime-ledger thead')
    && !el.closest('.log'))
  .map(el => el.tagName + (el.id ? '#' + el.id : '') + '.' + el.className + ' '
    + el.scrollWidth + '/' + el.clientWidth)"""


class TestTheGmsPoolPagesAtPhoneWidth(PagesTestCase):
    def test_the_balances_and_the_rooms_cards_fit_at_375_px(self):
        """The GM panel's sparetime balances and the GM's Pool room (its check cards) fit a
        phone's width without a box that scrolls sideways (issue 28 measured 391 and 385 px)."""
        with self.browser() as browser:
            for path in (f"/campaigns/{self.pool.id}/gm/", f"/campaigns/{self.pool.id}/room/"):
                page = self.visit(browser, "gm", path, viewport=PHONE)
                if path.endswith("/gm/"):
                    page.wait_for_selector(".sparetime-balances")
                else:
                    page.wait_for_selector("#checks .check")
                assert page.evaluate(SCROLLING_INSIDE) == [], path
                page.context.close()
            browser.close()


#: The tables that stand out of their card: (table, right edge of the table, of the card).
SPILLING_TABLES = """() => Array.from(document.querySelectorAll('.card table'))
  .map(table => [table, table.closest('.card')])
  .filter(([table, card]) => table.getBoundingClientRect().right
    > card.getBoundingClientRect().right + 1)
  .map(([table, card]) => (table.closest('[id]') || {}).id + ' '
    + Math.round(table.getBoundingClientRect().right) + '/'
    + Math.round(card.getBoundingClientRect().right))"""

DESKTOP = {"width": 1280, "height": 800}


class TestTheRoomsAtADesktopsWidth(PagesTestCase):
    def test_no_table_spills_out_of_its_card_at_1280_px(self):
        """The party (and every table of the rooms) stays inside its card on the GM's
        three-column screen and the player's two (issue #43)."""
        spilling = {}
        with self.browser() as browser:
            for username in ("gm", "ana"):
                for campaign in (self.pool, self.mana):
                    path = f"/campaigns/{campaign.id}/room/"
                    page = self.visit(browser, username, path, viewport=DESKTOP)
                    page.wait_for_selector("#party table")
                    found = page.evaluate(SPILLING_TABLES)
                    if found:
                        spilling[(username, path)] = found
                    page.context.close()
            browser.close()
        assert spilling == {}
