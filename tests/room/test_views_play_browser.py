"""Play at the table in a real browser (Debian's Chromium through playwright, against a live
Daphne), seen from the GM and the player, for both systems: what a check asks is fixed in the
player's form and named in the log; a declined shift says so with the GM's reason; the buttons
say what they do; the keyboard alone makes a whole check, its focus kept across swaps (htmx's
and the socket's) and the result announced (static/js/room.js)."""

import re

from tests.browser import BROWSER, BrowserTestCase, settled
from tests.conftest import make_campaign, make_user
from tests.rolls.room_setup import build_mana_table, build_pool_table

pytestmark = BROWSER


def focused_id(page):
    return page.evaluate("() => document.activeElement && document.activeElement.id")


def tab_to(page, element_id, most=12):
    """Press Tab until the element ``element_id`` has the focus (the keyboard's way there)."""
    for _ in range(most):
        if focused_id(page) == element_id:
            return
        page.keyboard.press("Tab")
    assert focused_id(page) == element_id


class PlayTestCase(BrowserTestCase):
    system = None

    def setUp(self):
        self.gm, self.ana, self.ben = (make_user(n) for n in ("gm", "ana", "ben"))
        self.campaign = make_campaign(
            self.gm, system=self.system, name="Table", players=[self.ana, self.ben]
        )
        self.table = self.build(self.campaign, self.gm, self.ana, self.ben)
        self.log_in(self.gm, self.ana)

    def open_room(self, browser, username):
        page = self.open_page(browser, username, f"/campaigns/{self.campaign.id}/room/")
        page.wait_for_selector('#ws-status[data-state="ok"]')
        return page

    def new_card(self, page):
        """The id of the newest check card on ``page``, once it is there and live."""
        from playwright.sync_api import expect

        card = page.locator("#checks > .check").first
        expect(card).to_be_visible()
        settled(page)
        return card.get_attribute("id")


class TestManaAtTheTable(PlayTestCase):
    system = "mana"

    @staticmethod
    def build(*args):
        return build_mana_table(*args)

    def test_an_asked_skill_binds_and_a_check_is_made_with_the_keyboard(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            gm = self.open_room(browser, "gm")
            ana = self.open_room(browser, "ana")

            # The GM asks with the keyboard: type-ahead in the selects, Enter in the number.
            gm.focus("#ask-character")
            gm.keyboard.type("Mira")
            gm.keyboard.press("Tab")
            gm.keyboard.type("Jump")
            expect(gm.locator("#ask-mana_skill option:checked")).to_have_text("Jump")
            gm.keyboard.press("Tab")
            assert focused_id(gm) == "ask-target"
            gm.keyboard.type("1")
            gm.keyboard.press("Enter")
            expect(gm.locator("#ask .ok")).to_have_text("Asked.")

            # Ana's form shows the asked skill, fixed: nothing to switch.
            card_id = self.new_card(ana)
            card = ana.locator(f"#{card_id}")
            expect(card.locator(".fixed")).to_contain_text("Skill Jump (red + green")
            expect(card.locator("select[name=skill]")).to_have_count(0)
            expect(card.locator("label", has_text=re.compile(r"^Red"))).to_have_count(1)

            # A refused roll keeps the labels of the colors, and the keyboard on the button.
            spend = card.locator("input[name=spend_a]")
            spend.focus()
            ana.keyboard.press("Control+A")
            ana.keyboard.type("5")  # the pool has 1 red
            expect(card.locator(".odds")).to_contain_text("Not enough red mana")
            tab_to(ana, f"roll-{card_id[6:]}-submit")
            ana.keyboard.press("Enter")
            expect(ana.locator(f"#{card_id} .error").first).to_contain_text(
                "Not enough red mana: you spend 5, the pool has 1."
            )
            settled(ana)
            expect(ana.locator(f"#{card_id} label", has_text=re.compile(r"^Red"))).to_have_count(1)
            expect(ana.locator(f"#{card_id}")).not_to_contain_text("First color")
            expect(ana.locator(f"#roll-{card_id[6:]}-submit")).to_be_focused()

            # The roll, with the keyboard: Enter in the amount. The focus goes to the result,
            # which is announced.
            spend = ana.locator(f"#{card_id} input[name=spend_a]")
            spend.focus()
            ana.keyboard.press("Control+A")
            ana.keyboard.type("1")
            expect(ana.locator(f"#{card_id} .odds")).to_contain_text("2d10")
            ana.keyboard.press("Enter")
            # Both logs say what was asked and what was rolled.
            for page in (ana, gm):
                expect(page.locator("#log article.entry")).to_have_count(1)
                expect(page.locator("#log")).to_contain_text("asked: Jump · rolled: Jump")
            entry = ana.locator("#entry-1")
            if "✓ success" in entry.inner_text():
                # Done: the card leaves the live checks, the log entry is the result.
                expect(ana.locator(f"#{card_id}")).to_have_count(0)
                expect(entry).to_be_focused()
                expect(ana.locator("#announce")).to_contain_text("asked: Jump · rolled: Jump")
            else:
                # Failed: the card stays (a re-attempt may follow), its result focused.
                expect(ana.locator(f"#{card_id}-result")).to_be_focused()
                expect(ana.locator("#announce")).to_contain_text("Attempt 1: ")
                gm_card = gm.locator(f"#{card_id}")
                expect(gm_card.locator("button.secondary")).to_have_text("Close without re-attempt")
            expect(gm.locator("#checks")).not_to_contain_text("Cancel check")
            browser.close()


class TestManaAnySkillAtTheTable(PlayTestCase):
    system = "mana"

    @staticmethod
    def build(*args):
        return build_mana_table(*args)

    def test_any_skill_stays_the_players_and_the_select_keeps_the_focus(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            gm = self.open_room(browser, "gm")
            ana = self.open_room(browser, "ana")
            gm.select_option("#ask-character", label="Mira (ana)")
            gm.fill("#ask-target", "2")
            gm.click("#ask button")
            card_id = self.new_card(ana)
            number = card_id[6:]
            select = ana.locator(f"#roll-{number}-skill")
            expect(select.locator("option:checked")).to_contain_text("Gather Information")
            # Arrowing to the next skill redraws the form once, and the select keeps the focus.
            select.focus()
            ana.keyboard.press("ArrowDown")
            expect(ana.locator(f"#{card_id} input[name=color_a]")).to_have_value("red")
            settled(ana)
            expect(ana.locator(f"#roll-{number}-skill")).to_be_focused()
            ana.keyboard.press("ArrowUp")
            expect(ana.locator(f"#{card_id} input[name=color_a]")).to_have_value("blue")
            settled(ana)
            expect(ana.locator(f"#roll-{number}-skill")).to_be_focused()
            expect(ana.locator(f"#{card_id} label", has_text=re.compile(r"^Blue"))).to_have_count(1)
            # The roll: the log marks the skill as the player's choice.
            ana.fill(f"#{card_id} input[name=spend_a]", "1")
            expect(ana.locator(f"#{card_id} .odds")).to_contain_text("2d10")
            ana.locator(f"#roll-{number}-submit").focus()
            ana.keyboard.press("Enter")
            for page in (ana, gm):
                expect(page.locator("#log")).to_contain_text("Gather Information (free choice)")
            if "✓ success" in ana.locator("#entry-1").inner_text():
                # Done: the card left the live checks; the log entry is the result.
                expect(ana.locator(f"#{card_id}")).to_have_count(0)
                expect(ana.locator("#entry-1")).to_be_focused()
            else:
                expect(ana.locator(f"#{card_id}-result")).to_be_focused()
                expect(gm.locator(f"#{card_id} header")).not_to_contain_text("any skill")
            browser.close()


class TestPoolAtTheTable(PlayTestCase):
    system = "pool"

    @staticmethod
    def build(*args):
        return build_pool_table(*args)

    def test_an_asked_attribute_binds_a_shift_is_declined_then_rolled_with_the_keyboard(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            gm = self.open_room(browser, "gm")
            ana = self.open_room(browser, "ana")

            gm.select_option("#ask-character", label="Ilse (ana)")
            gm.fill("#ask-suggestion", "Strength")
            gm.fill("#ask-target", "4")
            gm.click("#ask button")
            card_id = self.new_card(ana)
            number = card_id[6:]
            card = ana.locator(f"#{card_id}")
            expect(card.locator(".fixed")).to_contain_text("Attribute Strength 3d6")
            expect(card.locator("select[name=attribute]")).to_have_count(0)
            expect(gm.locator(f"#{card_id} header")).to_contain_text("Strength")

            # The skill is hers to choose (arrowing through it keeps the focus: no redraw).
            skill = ana.locator(f"#roll-{number}-skill")
            skill.focus()
            ana.keyboard.type("Jump")  # type-ahead, as arrowing does
            expect(skill.locator("option:checked")).to_have_text("Jump 2d10")
            expect(card.locator(".odds")).to_contain_text("3d6 + 2d10")
            expect(skill).to_be_focused()

            # With a die shifted, the button proposes the shift.
            button = ana.locator(f"#roll-{number}-submit")
            expect(button).to_have_text("Roll")
            ana.keyboard.press("Tab")
            ana.keyboard.press("Control+A")
            ana.keyboard.type("1")  # shift 1d6
            expect(button).to_have_text("Propose shift")
            ana.fill(f"#{card_id} input[name=bonus_effect]", "land silently")
            ana.locator(f"#{card_id} input[name=bonus_effect]").focus()
            ana.keyboard.press("Enter")
            waiting = ana.locator(f"#{card_id} [data-result]")
            expect(waiting).to_have_text("Shift proposed: waiting for the GM to agree to it.")
            expect(waiting).to_be_focused()
            expect(ana.locator("#announce")).to_have_text(
                "Shift proposed: waiting for the GM to agree to it."
            )

            # The GM declines with a reason, with the keyboard: Enter in the reason declines.
            expect(gm.locator(f"#{card_id}")).to_contain_text("Shift proposed: Strength 3")
            gm.locator(f"#check-{number}-reason").focus()
            gm.keyboard.type("The floor is ice")
            gm.keyboard.press("Enter")
            declined = ana.locator(f"#check-{number}-declined")
            expect(declined).to_contain_text("The GM declined your shift: “The floor is ice”")
            expect(declined).to_be_focused()
            expect(ana.locator("#announce")).to_contain_text("The floor is ice")
            expect(gm.locator(f"#{card_id}")).to_contain_text("You declined the shift")
            expect(ana.locator("#log article.entry")).to_have_count(0)

            # She rolls without the shift: still Strength, fixed; the result is focused.
            settled(ana)
            card = ana.locator(f"#{card_id}")
            expect(card.locator(".fixed")).to_contain_text("Attribute Strength 3d6")
            expect(ana.locator(f"#roll-{number}-submit")).to_have_text("Roll")
            ana.locator(f"#roll-{number}-submit").focus()
            ana.keyboard.press("Enter")
            # Done: the card leaves the live checks; the log entry is the result, focused and
            # announced.
            for page in (ana, gm):
                expect(page.locator("#log")).to_contain_text("asked: Strength · rolled: Strength 3")
                expect(page.locator(f"#{card_id}")).to_have_count(0)
            expect(ana.locator("#entry-1")).to_be_focused()
            expect(ana.locator("#announce")).to_contain_text("vs TN 4")
            browser.close()


class TestPoolAnyAttributeAtTheTable(PlayTestCase):
    system = "pool"

    @staticmethod
    def build(*args):
        return build_pool_table(*args)

    def test_the_gm_approves_a_shift_of_any_attribute(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            gm = self.open_room(browser, "gm")
            ana = self.open_room(browser, "ana")
            gm.select_option("#ask-character", label="Ilse (ana)")
            gm.fill("#ask-target", "3")
            gm.click("#ask button")
            card_id = self.new_card(ana)
            number = card_id[6:]
            ana.select_option(f"#roll-{number}-attribute", label="Strength 3d6")
            jump = ana.locator(f"#roll-{number}-skill option", has_text="Jump 2d10")
            expect(jump).to_have_count(1)
            settled(ana)
            ana.select_option(f"#roll-{number}-skill", label="Jump 2d10")
            ana.fill(f"#{card_id} input[name=shift_d10]", "1")
            ana.fill(f"#{card_id} input[name=bonus_effect]", "grab the rope")
            ana.click(f"#roll-{number}-submit")
            expect(gm.locator(f"#check-{number}-approve")).to_be_visible()
            gm.locator(f"#check-{number}-approve").focus()
            gm.keyboard.press("Enter")
            # The check is done: its card leaves both live lists; the GM's focus goes to the
            # roll's log entry, which names what was rolled.
            for page in (gm, ana):
                expect(page.locator(f"#{card_id}")).to_have_count(0)
                entry = page.locator("#entry-1")
                expect(entry).to_contain_text("Strength 3 + Jump 2 (free choice)")
                expect(entry).not_to_contain_text("any attribute")
            expect(gm.locator("#entry-1")).to_be_focused()
            browser.close()
