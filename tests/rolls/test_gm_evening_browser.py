"""The loose ends of a GM's evening in a real browser (Debian's Chromium through playwright,
against a live Daphne): a session ended with a check still open says so and offers to close it
(closing it takes its card out of the player's room too); an ask for what the character has no
dice for is refused, saying so, before the player is stuck with it; the room links to the
session's summary, the tuning (the GM's) and the exports; the first Tab of the room skips to
the player's checks (the GM's tools); the NPC roll form's fields have ids of their own; the
luck page counts "1 success in 1 roll"; a revealed secret roll counts in the players' summary;
a Mana campaign's new skill offers two different
colors; a row of the Mana advisor puts its spend in the roll form in one click."""

import base64

from django.contrib.auth import get_user_model
from django.core.management import call_command

from campaigns.models import Campaign
from rolls import services
from rolls.systems.mana.models import ManaSkill
from rolls.systems.pool.models import Rating, rating_of
from rolls.systems.pool.services import check_roll_pool
from sheets.services import character_create
from tests.browser import BROWSER, BrowserTestCase, confirm, room_ready, settled
from tests.conftest import make_campaign, make_user
from tests.rolls.room_setup import fill
from tests.rules.scripted_rng import ScriptedRng

pytestmark = BROWSER


class TestGmEveningInTheBrowser(BrowserTestCase):
    def setUp(self):
        self.gm, self.ana = make_user("gm"), make_user("ana")
        self.campaign = make_campaign(self.gm, name="The Table", players=[self.ana])
        ilse = character_create(campaign=self.campaign, owner=self.ana, name="Ilse")
        Rating.objects.filter(character=ilse, attribute="Strength", skill="").update(value=3)
        ogre = character_create(campaign=self.campaign, owner=self.gm, name="The Ogre")
        Rating.objects.filter(character=ogre, attribute="Strength", skill="").update(value=4)
        services.session_start(campaign=self.campaign, by=self.gm)
        self.log_in(self.gm, self.ana)

    def test_ending_a_session_with_an_open_check_offers_to_close_it(self):
        from playwright.sync_api import expect

        room = f"/campaigns/{self.campaign.id}/room/"
        with self.browser() as browser:
            gm = self.open_page(browser, "gm", room)
            ana = self.open_page(browser, "ana", room)
            for page in (gm, ana):
                room_ready(page)  # the confirmation below would go with the first resync
            gm.select_option("#ask-character", label="Ilse (ana)")
            gm.fill("#ask-target", "5")
            gm.fill("#ask-note", "Climb the wall")
            gm.click("#ask button")
            expect(ana.locator("#checks > .check")).to_contain_text("Climb the wall")

            gm.get_by_role("button", name="End session 1").click()
            assert confirm(gm).startswith("1 check is still open.")
            session = gm.locator("#session")
            expect(session.get_by_role("status")).to_have_text(
                "1 check is still open after the session."
            )
            expect(ana.locator("#checks > .check")).to_have_count(1)  # kept until the GM says

            session.get_by_role("button", name="Close it").click()
            expect(session.locator(".ok")).to_have_text("Closed 1 check.")
            expect(session).not_to_contain_text("still open")
            expect(ana.locator("#checks > .check")).to_have_count(0)
            expect(gm.locator("#checks > .check")).to_have_count(0)
            browser.close()

    def test_the_offer_to_close_goes_when_the_last_open_check_does(self):
        from playwright.sync_api import expect

        ilse = self.campaign.characters.get(name="Ilse")
        services.check_ask(campaign=self.campaign, character=ilse, by=self.gm, target=5)
        services.session_end(campaign=self.campaign, by=self.gm)
        with self.browser() as browser:
            gm = self.open_page(browser, "gm", f"/campaigns/{self.campaign.id}/room/")
            room_ready(gm)  # the confirmation below the card would go with its first resync
            offer = gm.locator("#session .live-checks")
            expect(offer).to_be_visible()
            gm.locator("#checks > .check").get_by_role("button", name="Close check").click()
            confirm(gm)
            expect(gm.locator("#checks > .check")).to_have_count(0)
            expect(offer).to_be_hidden()
            browser.close()

    def test_every_confirmation_is_the_apps_own_and_works_by_keyboard(self):
        """No browser dialog (issue #43): the question below its form, the focus on Yes;
        Escape keeps (the focus back on the button), Enter on Yes does it."""
        from playwright.sync_api import expect

        ilse = self.campaign.characters.get(name="Ilse")
        services.check_ask(campaign=self.campaign, character=ilse, by=self.gm, target=5)
        with self.browser() as browser:
            gm = self.open_page(browser, "gm", f"/campaigns/{self.campaign.id}/room/")
            room_ready(gm)
            dialogs = []
            gm.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
            close = gm.locator("#checks > .check").get_by_role("button", name="Close check")
            # The locator's press focuses the button as it is when pressed (a push may have
            # drawn the card again since the page loaded), then presses Enter on it.
            close.press("Enter")
            box = gm.locator("[data-confirm-box]")
            expect(box).to_contain_text("Close this check without a roll?")
            expect(box.get_by_role("button", name="Yes")).to_be_focused()
            gm.keyboard.press("Escape")
            expect(box).to_have_count(0)
            expect(close).to_be_focused()
            expect(gm.locator("#checks > .check")).to_have_count(1)  # kept

            # Ending the session with the check open asks first, saying so.
            end = gm.get_by_role("button", name="End session 1")
            end.press("Enter")
            expect(box).to_contain_text("1 check is still open. End session 1 anyway?")
            expect(box.get_by_role("button", name="Yes")).to_be_focused()
            gm.keyboard.press("Enter")  # on Yes
            expect(gm.locator("#session")).to_contain_text("Session 1 ended")

            close.press("Enter")
            expect(box.get_by_role("button", name="Yes")).to_be_focused()
            gm.keyboard.press("Enter")
            expect(gm.locator("#checks > .check")).to_have_count(0)
            assert dialogs == []
            browser.close()

    def test_an_ask_the_character_has_no_dice_for_says_so(self):
        from playwright.sync_api import expect

        room = f"/campaigns/{self.campaign.id}/room/"
        with self.browser() as browser:
            gm = self.open_page(browser, "gm", room)
            ana = self.open_page(browser, "ana", room)
            for page in (gm, ana):
                page.wait_for_selector('#ws-status[data-state="ok"]')
            gm.select_option("#ask-character", label="Ilse (ana)")
            gm.fill("#ask-suggestion", "Agility")
            gm.fill("#ask-target", "5")
            gm.click("#ask button")
            expect(gm.locator("#ask .error")).to_contain_text(
                "Ilse has no dice for Agility (rated 0): raise it first, or ask for something else."
            )
            expect(gm.locator("#checks > .check")).to_have_count(0)
            expect(ana.locator("#checks > .check")).to_have_count(0)
            # What she can roll is asked as before.
            gm.fill("#ask-suggestion", "Strength")
            gm.click("#ask button")
            expect(gm.locator("#ask .ok")).to_have_text("Asked.")
            expect(ana.locator("#checks > .check")).to_have_count(1)
            browser.close()

    def test_the_room_links_to_the_summary_the_tuning_and_the_exports(self):
        from playwright.sync_api import expect

        room = f"/campaigns/{self.campaign.id}/room/"
        with self.browser() as browser:
            gm = self.open_page(browser, "gm", room)
            ana = self.open_page(browser, "ana", room)
            for page in (gm, ana):
                page.wait_for_selector('#ws-status[data-state="ok"]')
            gm.get_by_role("button", name="End session 1").click()
            # The session's end in the log, live on every page, links to its summary.
            for page in (gm, ana):
                link = page.locator("#log").get_by_role("link", name="its summary")
                expect(link).to_have_count(1)
            ana.locator("#log").get_by_role("link", name="its summary").click()
            expect(ana.get_by_role("heading", level=1)).to_have_text("The Table: session 1")

            head = gm.locator(".room-head")
            expect(head.get_by_role("link", name="Tuning")).to_have_count(1)
            for name, kind in (("Log (CSV)", "text/csv"), ("Log (JSON)", "application/json")):
                href = head.get_by_role("link", name=name).get_attribute("href")
                response = gm.request.get(f"{self.live_server_url}{href}")
                assert response.ok and response.headers["content-type"].startswith(kind)
            gm.locator(".room-head").get_by_role("link", name="Tuning").click()
            expect(gm.get_by_role("heading", level=1)).to_have_text(
                "Difficulty tuning in The Table"
            )

            ana.goto(f"{self.live_server_url}{room}")
            player_head = ana.locator(".room-head")
            expect(player_head.get_by_role("link", name="Tuning")).to_have_count(0)
            expect(player_head.get_by_role("link", name="Log (CSV)")).to_have_count(1)
            browser.close()

    def test_the_first_tab_skips_to_the_players_checks_and_the_gms_tools(self):
        from playwright.sync_api import expect

        room = f"/campaigns/{self.campaign.id}/room/"
        ilse = self.campaign.characters.get(name="Ilse")
        services.check_ask(
            campaign=self.campaign, character=ilse, by=self.gm, target=5, suggestion="Strength"
        )
        with self.browser() as browser:
            ana = self.open_page(browser, "ana", room)
            # The live checks fetched again as the socket opens: focus set before that lands
            # would be on cards swapped away.
            room_ready(ana)
            ana.keyboard.press("Tab")
            skip = ana.get_by_role("link", name="Skip to your checks")
            expect(skip).to_be_focused()
            expect(skip).to_be_in_viewport()
            ana.keyboard.press("Enter")
            roll = ana.locator("#checks form.roll button", has_text="Roll")
            # The sound's checkbox, then the card's fields: skill, shifted dice, bonus, intent.
            for _ in range(7):
                ana.keyboard.press("Tab")
                if roll.evaluate("b => b === document.activeElement"):
                    break
            expect(roll).to_be_focused()

            gm = self.open_page(browser, "gm", room)
            room_ready(gm)
            gm.keyboard.press("Tab")
            expect(gm.get_by_role("link", name="Skip to the GM's tools")).to_be_focused()
            gm.keyboard.press("Enter")
            gm.keyboard.press("Tab")
            focused = gm.evaluate("document.activeElement.closest('#live-checks, #session')")
            assert focused is not None
            browser.close()

    def test_the_npc_roll_form_has_ids_of_its_own_and_luck_counts_one_success(self):
        from playwright.sync_api import expect

        ilse = self.campaign.characters.get(name="Ilse")
        check = services.check_ask(campaign=self.campaign, character=ilse, by=self.gm, target=5)
        check_roll_pool(
            check=check,
            by=self.ana,
            attribute=rating_of(ilse, "Strength"),
            rng=ScriptedRng(5, 1, 1),
        )
        with self.browser() as browser:
            gm = self.open_page(browser, "gm", f"/campaigns/{self.campaign.id}/room/")
            npc = gm.locator("#npc-roll")
            expect(npc.locator("#roll-npc-attribute")).to_have_count(1)
            expect(gm.locator("[id*='None']")).to_have_count(0)
            gm.goto(f"{self.live_server_url}/campaigns/{self.campaign.id}/luck/")
            expect(gm.locator(".luck-total")).to_contain_text("All rolls: 1 success in 1 roll,")
            browser.close()

    def test_a_revealed_secret_roll_counts_in_the_players_summary(self):
        from playwright.sync_api import expect

        ogre = self.campaign.characters.get(name="The Ogre")
        check = services.check_ask(
            campaign=self.campaign, character=ogre, by=self.gm, target=5, visibility="secret"
        )
        entry = check_roll_pool(
            check=check,
            by=self.gm,
            attribute=rating_of(ogre, "Strength"),
            rng=ScriptedRng(2, 1, 1, 1),
        )
        services.session_end(campaign=self.campaign, by=self.gm)
        summary = f"/campaigns/{self.campaign.id}/sessions/1/"
        with self.browser() as browser:
            ana = self.open_page(browser, "ana", summary)
            expect(ana.locator(".luck-total")).to_contain_text("1 hidden roll not counted.")
            gm = self.open_page(browser, "gm", f"/campaigns/{self.campaign.id}/room/")
            gm.locator(f"#entry-{entry.seq}").get_by_role("button", name="Reveal").click()
            confirm(gm)
            expect(gm.locator(f"#entry-{entry.seq}")).to_contain_text("Revealed as")
            ana.reload()
            expect(ana.locator(".luck-total")).not_to_contain_text("hidden")
            expect(ana.locator(".luck-total")).to_contain_text("0 successes in 1 roll,")
            expect(ana.get_by_role("cell", name="The Ogre")).to_have_count(1)
            browser.close()


class TestManaSkillFormInTheBrowser(BrowserTestCase):
    def setUp(self):
        self.gm = make_user("gm")
        self.campaign = make_campaign(self.gm, system="mana", name="Far Harbor")
        self.log_in(self.gm)

    def test_a_new_skill_offers_two_different_colors(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            gm = self.open_page(browser, "gm", f"/campaigns/{self.campaign.id}/gm/")
            form = gm.locator("form.mana-skill-add")
            first = form.get_by_label("First color").input_value()
            second = form.get_by_label("Second color").input_value()
            assert first != second
            form.get_by_placeholder("Skill name").fill("Mend")
            form.get_by_role("button", name="Add skill").click()
            expect(gm.locator("#gm-skills .mana-skill")).to_have_count(1)
            expect(gm.locator("#gm-skills .errorlist")).to_have_count(0)
            browser.close()


class TestManaAdvisorInTheBrowser(BrowserTestCase):
    """Mira has 3 blue and 2 white mana; the GM asks her to Gather Information (blue + white)
    at difficulty 2."""

    def setUp(self):
        self.gm, self.ana = make_user("gm"), make_user("ana")
        self.campaign = make_campaign(self.gm, system="mana", name="Far Harbor", players=[self.ana])
        gather = ManaSkill.objects.create(
            campaign=self.campaign, name="Gather Information", color_a="blue", color_b="white"
        )
        mira = character_create(campaign=self.campaign, owner=self.ana, name="Mira")
        fill(mira, blue=3, white=2)
        services.check_ask(
            campaign=self.campaign, character=mira, by=self.gm, target=2, mana_skill=gather
        )
        self.log_in(self.gm, self.ana)

    def test_a_row_of_the_advisor_puts_its_spend_in_the_form(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            ana = self.open_page(browser, "ana", f"/campaigns/{self.campaign.id}/room/")
            # The socket's opening fetches the live checks again (room.js): the advisor is
            # opened in the card that came back, not in the one it replaced.
            ana.wait_for_selector('#ws-status[data-state="ok"]')
            settled(ana)
            form = ana.locator("#checks form.roll")
            form.get_by_text("Mana advisor").click()
            rows = form.locator(".advice-table tbody tr")
            expect(rows.nth(2)).to_be_visible()
            row = rows.nth(2)
            spend = row.get_by_role("button")
            values = {
                name: spend.get_attribute(f"data-{name}")
                for name in ("spend_a", "spend_b", "colorless")
            }
            chance = row.locator("td").nth(2).inner_text()
            spend.click()
            for name, value in values.items():
                expect(form.locator(f"input[name={name}]")).to_have_value(value)
            expect(form.locator(".odds .chance")).to_have_text(chance)
            assert sum(int(v) for v in values.values()) > 0
            browser.close()


class TestTheGmScreenInTheBrowser(BrowserTestCase):
    """The demo table (seed_demo) with an NPC of the GM's: its Pool room, as its GM sees it."""

    def setUp(self):
        call_command("seed_demo")
        self.campaign = Campaign.objects.get(system="pool")
        gm = get_user_model().objects.get(username="gm")
        ogre = character_create(campaign=self.campaign, owner=gm, name="The Ogre")
        Rating.objects.filter(character=ogre, attribute="Strength", skill="").update(value=4)
        self.log_in(gm)

    def test_the_gms_tools_are_in_the_first_screen_beside_the_log(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            context.add_cookies(
                [{"name": "sessionid", "value": self.cookies["gm"], "url": self.live_server_url}]
            )
            gm = context.new_page()
            gm.goto(f"{self.live_server_url}/campaigns/{self.campaign.id}/room/")
            gm.wait_for_selector('#ws-status[data-state="ok"]')
            for tool in ("#live-checks", "#ask button", "#npc-roll button", "#log"):
                expect(gm.locator(tool).first).to_be_in_viewport()
            # The controls themselves, whole, without scrolling: the ask's button, the NPC's.
            for control in ("#ask button", "#npc-roll button"):
                bottom = gm.locator(control).first.evaluate("e => e.getBoundingClientRect().bottom")
                assert bottom <= 800, (control, bottom)
            assert gm.evaluate("window.scrollY") == 0
            assert gm.evaluate("document.documentElement.scrollWidth") <= 1280
            # The party's HP figures, in the table's narrower column, each on one line (the
            # GM's controls beside them may wrap under them).
            lines = gm.locator("#party td.party-hp .hp-now").evaluate_all(
                """cells => cells.map(c => {
                    const range = document.createRange();
                    range.selectNodeContents(c);
                    return new Set(Array.from(range.getClientRects(), r => Math.round(r.top))).size;
                })"""
            )
            assert lines and all(n == 1 for n in lines), lines
            browser.close()


class TestTheLuckChartInTheBrowser(BrowserTestCase):
    """Six sessions of Ilse's rolls, one success in two each: the luck page's chart per
    session."""

    def setUp(self):
        self.gm, self.ana = make_user("gm"), make_user("ana")
        self.campaign = make_campaign(self.gm, name="The Table", players=[self.ana])
        ilse = character_create(campaign=self.campaign, owner=self.ana, name="Ilse")
        Rating.objects.filter(character=ilse, attribute="Strength", skill="").update(value=3)
        for _ in range(6):
            services.session_start(campaign=self.campaign, by=self.gm)
            for faces in ((5, 1, 1), (2, 1, 1)):
                check = services.check_ask(
                    campaign=self.campaign, character=ilse, by=self.gm, target=5
                )
                check_roll_pool(
                    check=check,
                    by=self.ana,
                    attribute=rating_of(ilse, "Strength"),
                    rng=ScriptedRng(*faces),
                )
            services.session_end(campaign=self.campaign, by=self.gm)
        self.log_in(self.ana)

    def chart_svg(self, page):
        src = page.locator("figure.chart img.chart").first.get_attribute("src")
        return base64.b64decode(src.split(",", 1)[1]).decode()

    def test_the_chart_reads_whole_and_dark_in_the_dark_theme(self):
        from playwright.sync_api import expect

        luck = f"/campaigns/{self.campaign.id}/luck/"
        with self.browser() as browser:
            svg = self.chart_svg(self.open_page(browser, "ana", luck))
            page = browser.new_page()  # the chart alone, as the browser draws the image
            page.set_content(svg)
            y_labels = page.locator(".axis.y .guides text").all_text_contents()
            assert 2 <= len(y_labels) <= 7, y_labels
            x_labels = page.locator(".axis.x .guides text")
            assert x_labels.count() == 6
            box = page.locator("svg").first.bounding_box()
            for label in x_labels.all():
                text, rect = label.text_content(), label.bounding_box()
                assert "…" not in text
                assert box["x"] <= rect["x"], (text, rect, box)
                assert rect["x"] + rect["width"] <= box["x"] + box["width"], (text, rect, box)
                assert rect["y"] + rect["height"] <= box["y"] + box["height"], (text, rect, box)

            for scheme, dark in (("dark", True), ("light", False)):
                context = browser.new_context(color_scheme=scheme)
                context.add_cookies(
                    [
                        {
                            "name": "sessionid",
                            "value": self.cookies["ana"],
                            "url": self.live_server_url,
                        }
                    ]
                )
                themed = context.new_page()
                themed.goto(f"{self.live_server_url}{luck}")
                chart = themed.locator("img.chart").first
                expect(chart).to_be_visible()
                applied = chart.evaluate("img => getComputedStyle(img).filter")
                assert ("invert" in applied) is dark, (scheme, applied)
                context.close()
            browser.close()
