"""Facts in a real browser (tests/browser.py), the GM and two players each on their pages: what
one of them changes shows on the others' open pages without a reload, to those entitled only
(core/push.py's facts pushes, static/js/site.js)."""

import re

from django.urls import reverse

from rolls import services
from rolls.systems.mana.models import ManaPool, ManaSkill
from rolls.systems.pool.models import Rating
from sheets.services import character_create
from sparetime.services import sparetime_grant
from tests.browser import BROWSER, BrowserTestCase, settled
from tests.conftest import make_campaign, make_user

pytestmark = BROWSER

SOCKET_OPEN = '[ws-connect][data-socket="open"]'


class FactsCase(BrowserTestCase):
    def open(self, browser, username, path):
        """``username``'s page at ``path``, its socket open, marked to tell a reload."""
        page = self.open_page(browser, username, path)
        page.wait_for_selector(SOCKET_OPEN)
        settled(page)
        page.evaluate("window.notReloaded = true")
        return page

    @staticmethod
    def not_reloaded(*pages):
        for page in pages:
            assert page.evaluate("window.notReloaded") is True

    def mana_table(self, *players):
        """A Mana campaign of a GM and ``players`` (usernames), with Gather Information
        (blue/white); the first player's Mira has 5/5 of each color. Returns the GM and the
        players."""
        gm, *players = (make_user(n) for n in ("gm", *players))
        self.campaign = make_campaign(gm, system="mana", players=players)
        ManaSkill.objects.create(
            campaign=self.campaign, name="Gather Information", color_a="blue", color_b="white"
        )
        self.mira = character_create(campaign=self.campaign, owner=players[0], name="Mira")
        ManaPool.objects.filter(character=self.mira).update(current=5, maximum=5)
        return gm, players


class TestManaFacts(FactsCase):
    def setUp(self):
        self.gm, (ana, ben) = self.mana_table("ana", "ben")
        character_create(campaign=self.campaign, owner=ben, name="Bo")
        self.checks = [
            services.check_ask(campaign=self.campaign, character=self.mira, by=self.gm, target=1)
            for _ in range(2)
        ]
        self.log_in(self.gm, ana, ben)

    def test_a_mana_spend_shows_on_the_roller_s_and_the_gm_s_pages_only(self):
        from playwright.sync_api import expect

        room = f"/campaigns/{self.campaign.id}/room/"
        sheet = f"/campaigns/{self.campaign.id}/characters/{self.mira.id}/"
        rolled, other = (f"#check-{check.id}" for check in self.checks)
        with self.browser() as browser:
            gm = self.open(browser, "gm", room)
            ben = self.open(browser, "ben", room)
            ana_sheet = self.open(browser, "ana", sheet)
            ana = self.open(browser, "ana", room)
            party = f"#party-{self.mira.id}"
            expect(gm.locator(party)).to_contain_text("blue 5/5")
            expect(ben.locator(party)).to_contain_text("Mira")
            expect(ana.locator(f"{other} form.roll")).to_contain_text("has 5/5")

            ana.fill(f"{rolled} input[name=spend_a]", "1")
            ana.fill(f"{rolled} input[name=spend_b]", "2")
            settled(ana)
            ana.locator(f"{rolled} form.roll").get_by_role(
                "button", name="Roll", exact=True
            ).click()

            # The other open check's roll form, the sheet and the party follow the pool.
            expect(ana.locator(f"{other} form.roll")).to_contain_text("has 4/5")
            expect(ana.locator(f"{other} form.roll")).to_contain_text("has 3/5")
            expect(ana.locator(party)).to_contain_text("blue 4/5")
            expect(ana.locator(party)).to_contain_text("white 3/5")
            pool = ana_sheet.locator("#sheet-mana table").first
            expect(pool).to_contain_text(re.compile(r"blue\s*4\s*5"))
            expect(pool).to_contain_text(re.compile(r"white\s*3\s*5"))
            expect(gm.locator(party)).to_contain_text("blue 4/5")
            expect(gm.locator(party)).to_contain_text("white 3/5")
            # Ben hears the roll (its log entry), never Mira's pool.
            expect(ben.locator("#log [data-seq]")).to_have_count(1)
            settled(ben)
            assert "4/5" not in ben.content() and "5/5" not in ben.content()
            self.not_reloaded(gm, ben, ana, ana_sheet)
            browser.close()


class TestTypingThroughFacts(FactsCase):
    """A piece fetched again by a facts push keeps what the viewer typed into it and has not
    sent (static/js/site.js)."""

    def setUp(self):
        gm, (ana,) = self.mana_table("ana")
        self.check = services.check_ask(
            campaign=self.campaign, character=self.mira, by=gm, target=1
        )
        self.log_in(gm, ana)

    def test_the_gm_s_half_typed_maximum_stays_while_a_roll_spends_mana(self):
        from playwright.sync_api import expect

        card = f"#check-{self.check.id}"
        maximum = f"#id_c{self.mira.id}-blue"
        with self.browser() as browser:
            gm = self.open(browser, "gm", f"/campaigns/{self.campaign.id}/gm/")
            ana = self.open(browser, "ana", f"/campaigns/{self.campaign.id}/room/")
            blue = gm.locator("#gm-mana tr", has=gm.locator(maximum))
            expect(blue.locator("td").nth(1)).to_have_text("5")
            gm.fill(maximum, "7")  # typed, not sent: the focus stays in the field

            ana.fill(f"{card} input[name=spend_a]", "1")
            ana.fill(f"{card} input[name=spend_b]", "1")
            settled(ana)
            ana.locator(f"{card} form.roll").get_by_role("button", name="Roll", exact=True).click()

            # The GM's mana card shows the spend, and still holds what the GM typed, focused.
            expect(blue.locator("td").nth(1)).to_have_text("4")
            expect(gm.locator(maximum)).to_have_value("7")
            expect(gm.locator(maximum)).to_be_focused()
            white = gm.locator(f"#id_c{self.mira.id}-white")
            expect(white).to_have_value("5")  # untouched: the server's value
            settled(gm)
            gm.locator(maximum).press("Enter")  # sends the form: the maximum is set
            expect(blue.locator("td").nth(1)).to_have_text("4")
            settled(gm)
            expect(gm.locator(maximum)).to_have_value("7")
            self.not_reloaded(gm, ana)
            browser.close()
        blue_pool = ManaPool.objects.get(character=self.mira, color="blue")
        assert (blue_pool.current, blue_pool.maximum) == (4, 7)

    def test_a_rename_shows_on_the_player_s_sheet_while_they_write_its_concept(self):
        from playwright.sync_api import expect

        sheet = f"/campaigns/{self.campaign.id}/characters/{self.mira.id}/"
        with self.browser() as browser:
            gm = self.open(browser, "gm", sheet)
            ana = self.open(browser, "ana", sheet)
            ana.get_by_text("Edit name, concept and history").click()
            ana.fill("#id_concept", "Dockside fixer")  # typed, not sent

            gm.get_by_text("Edit name, concept and history").click()
            gm.fill("#id_name", "Mira Vale")
            gm.locator("#sheet-header form").get_by_role("button", name="Save").click()
            expect(gm.locator("#sheet-header h1")).to_have_text("Mira Vale")

            # Ana's header shows the new name, and her page's title; her editor stays open with
            # what she typed.
            expect(ana.locator("#sheet-header h1")).to_have_text("Mira Vale")
            expect(ana).to_have_title(f"Mira Vale · {self.campaign.name}")
            expect(ana.locator("#sheet-header-edit")).to_have_attribute("open", "")
            expect(ana.locator("#id_concept")).to_have_value("Dockside fixer")
            expect(ana.locator("#id_concept")).to_be_focused()
            expect(ana.locator("#id_name")).to_have_value("Mira Vale")  # not hers: the new one
            self.not_reloaded(gm, ana)
            browser.close()


class TestPoolFacts(FactsCase):
    def setUp(self):
        gm, ana, ben = (make_user(n) for n in ("gm", "ana", "ben"))
        self.campaign = make_campaign(gm, system="pool", players=[ana, ben])
        self.ilse = character_create(campaign=self.campaign, owner=ana, name="Ilse")
        Rating.objects.filter(character=self.ilse, attribute="Strength", skill="").update(value=1)
        character_create(campaign=self.campaign, owner=ben, name="Tor")
        sparetime_grant(character=self.ilse, amount=3, by=gm)
        self.check = services.check_ask(
            campaign=self.campaign, character=self.ilse, by=gm, target=3
        )
        self.log_in(gm, ana, ben)

    def test_ratings_hp_sparetime_and_a_closed_check_show_on_the_others_pages(self):
        from playwright.sync_api import expect

        campaign = f"/campaigns/{self.campaign.id}/"
        sheet = f"{campaign}characters/{self.ilse.id}/"
        party = f"#party-{self.ilse.id}"
        card = f"#check-{self.check.id}"
        with self.browser() as browser:
            gm_sheet = self.open(browser, "gm", sheet)
            gm_campaign = self.open(browser, "gm", campaign)
            ben = self.open(browser, "ben", f"{campaign}room/")
            ana_sheet = self.open(browser, "ana", sheet)
            ana = self.open(browser, "ana", f"{campaign}room/")
            expect(ana_sheet.locator("#sparetime")).to_contain_text("Raise Strength 1 → 2")
            expect(gm_campaign.locator(f"{party} .party-sparetime")).to_have_text("3")
            expect(ben.locator(f"{party} .party-hp")).to_have_text("10 / 10")
            expect(ana.locator(f"{card} select[name=attribute]")).to_contain_text("Strength 1d6")

            # The GM sets a rating: the player's raise buttons and roll form follow.
            gm_sheet.fill("input[aria-label='Rating of Strength']", "2")
            strength = gm_sheet.locator("input[aria-label='Rating of Strength']")
            gm_sheet.locator("form.rating-form", has=strength).get_by_role("button").click()
            expect(ana_sheet.locator("#sparetime")).to_contain_text("Raise Strength 2 → 3")
            expect(ana_sheet.locator("#sheet-pool")).to_contain_text("2d6")
            expect(ana.locator(f"{card} select[name=attribute]")).to_contain_text("Strength 2d6")

            # The player raises Endurance: HP (at full, it stays at full) and sparetime follow
            # in the GM's party; Ben sees the HP, not the sparetime.
            settled(ana_sheet)
            ana_sheet.get_by_role("button", name="Raise Endurance 0 → 1 (costs 1)").click()
            ana_sheet.get_by_role("button", name="Confirm raise").click()
            expect(gm_campaign.locator(f"{party} .party-hp .hp-now")).to_have_text("12 / 12")
            expect(gm_campaign.locator(f"{party} .party-sparetime")).to_have_text("2")
            expect(gm_sheet.locator("#sheet-pool .hp")).to_contain_text("HP 12 / 12")
            expect(ben.locator(f"{party} .party-hp")).to_have_text("12 / 12")
            expect(ben.locator(f"{party} .party-sparetime")).to_have_text("–")

            # The player rolls: the closed check leaves her live checks.
            settled(ana)
            ana.select_option(f"{card} select[name=attribute]", label="Strength 2d6")
            expect(ana.locator(f"{card} .odds")).to_contain_text("%")
            settled(ana)
            ana.locator(f"{card} form.roll").get_by_role("button", name="Roll", exact=True).click()
            expect(ana.locator(card)).to_have_count(0)
            expect(ana.locator("#log [data-seq]")).to_have_count(1)
            self.not_reloaded(gm_sheet, gm_campaign, ben, ana_sheet, ana)
            browser.close()


class TestDelegationFacts(FactsCase):
    def setUp(self):
        gm, ana, ben = (make_user(n) for n in ("gm", "ana", "ben"))
        self.campaign = make_campaign(gm, system="pool", players=[ana, ben])
        character_create(campaign=self.campaign, owner=ana, name="Ilse")
        character_create(campaign=self.campaign, owner=ben, name="Tor")
        self.log_in(gm, ana, ben)

    def test_a_delegation_shows_on_its_player_s_campaign_page_only(self):
        from playwright.sync_api import expect

        campaign = f"/campaigns/{self.campaign.id}/"
        with self.browser() as browser:
            ana = self.open(browser, "ana", campaign)
            ben = self.open(browser, "ben", campaign)
            gm = self.open(browser, "gm", reverse("gm_panel", args=[self.campaign.id]))
            for page in (ana, ben):
                expect(page.locator("#delegation .sparetime-left")).to_have_text("0")
                expect(page.locator("#delegation")).to_contain_text("has not given you")

            gm.select_option("#id_delegate-player", label="ana")
            gm.fill("#id_delegate-amount", "4")
            settled(gm)
            gm.get_by_role("button", name="Delegate", exact=True).click()
            expect(gm.locator("body")).to_contain_text("ana may now hand out 4 more sparetime.")

            # Ana's section shows it, with the form to hand it out; Ben's shows nothing of it.
            expect(ana.locator("#delegation .sparetime-left")).to_have_text("4")
            expect(ana.locator("#delegation form")).to_contain_text("Tor")
            settled(ben)
            expect(ben.locator("#delegation .sparetime-left")).to_have_text("0")
            assert "4" not in ben.locator("#delegation").inner_text()
            self.not_reloaded(ana, ben, gm)
            browser.close()


class TestHandOverFacts(FactsCase):
    def setUp(self):
        gm, ana, ben = (make_user(n) for n in ("gm", "ana", "ben"))
        self.campaign = make_campaign(gm, system="pool", players=[ana, ben])
        character_create(campaign=self.campaign, owner=ana, name="Ilse")
        self.npc = character_create(campaign=self.campaign, owner=gm, name="The Ogre")
        self.log_in(gm, ana, ben)

    def test_an_npc_handed_over_shows_in_the_player_s_room_panel(self):
        from playwright.sync_api import expect

        room = f"/campaigns/{self.campaign.id}/room/"
        sheet = f"/campaigns/{self.campaign.id}/characters/{self.npc.id}/"
        with self.browser() as browser:
            ana = self.open(browser, "ana", room)
            ben = self.open(browser, "ben", room)
            gm = self.open(browser, "gm", sheet)
            expect(ana.locator("#requests")).to_contain_text("Ilse")
            expect(ana.locator("#requests")).not_to_contain_text("The Ogre")
            expect(ben.locator("#requests")).to_contain_text("no character")

            gm.locator("details.hand-over summary").click()
            gm.select_option("details.hand-over select", label="ana")
            settled(gm)
            gm.locator("details.hand-over").get_by_role("button", name="Hand over").click()

            expect(ana.locator("#requests")).to_contain_text("The Ogre")
            expect(ana.locator("#requests")).to_contain_text("Ilse")
            expect(ben.locator("#party")).to_contain_text("The Ogre")  # the public push came
            settled(ben)
            expect(ben.locator("#requests")).to_contain_text("no character")
            self.not_reloaded(ana, ben, gm)
            browser.close()
