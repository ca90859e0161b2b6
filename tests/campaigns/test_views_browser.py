"""Invites and the new-campaign form in a real browser (Debian's Chromium through playwright,
against a live Daphne): the GM copies the invite link (static/js/site.js), which fits its card;
a logged-out invitee sees the campaign, signs up and joins; the new-campaign form shows only
the chosen system's settings."""

from campaigns.models import Campaign, Membership
from tests.browser import BROWSER, BrowserTestCase
from tests.conftest import make_campaign, make_user

pytestmark = BROWSER


class TestAnInviteInTheBrowser(BrowserTestCase):
    def setUp(self):
        self.gm = make_user("gm")
        self.campaign = make_campaign(self.gm, system="mana", name="Blue Harbor")
        self.log_in(self.gm)

    def test_the_gm_copies_the_link_and_a_newcomer_signs_up_and_joins(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            gm = self.open_page(browser, "gm", f"/campaigns/{self.campaign.id}/gm/")
            gm.context.grant_permissions(
                ["clipboard-read", "clipboard-write"], origin=self.live_server_url
            )
            link = gm.locator("#invite-link")
            # The link box stays inside its card, even on a narrow screen.
            for width in (1200, 360):
                gm.set_viewport_size({"width": width, "height": 800})
                box, card = link.bounding_box(), gm.locator("#gm-invite").bounding_box()
                assert box["x"] + box["width"] <= card["x"] + card["width"]
                copy = gm.get_by_role("button", name="Copy link")
                copy_box = copy.bounding_box()
                assert copy_box["x"] + copy_box["width"] <= card["x"] + card["width"]
            gm.get_by_role("button", name="Copy link").click()
            expect(gm.locator('[data-copied-for="invite-link"]')).to_have_text("Copied.")
            invite = link.input_value()
            assert gm.evaluate("navigator.clipboard.readText()") == invite
            assert invite.endswith(f"/join/{self.campaign.invite_token}/")

            # A newcomer, logged out, follows the link.
            newcomer = browser.new_context().new_page()
            newcomer.goto(invite)
            expect(newcomer.locator("h1")).to_have_text("Join Blue Harbor as a player")
            expect(newcomer.locator("main")).to_contain_text("A Mana campaign run by gm.")
            # The header's "Sign up" keeps the invite too; take it.
            newcomer.locator("header.topbar").get_by_role("link", name="Sign up").click()
            newcomer.fill("#id_username", "newbie")
            newcomer.fill("#id_password1", "a-long-pass-phrase")
            newcomer.fill("#id_password2", "a-long-pass-phrase")
            newcomer.get_by_role("button", name="Create account").click()
            # Back on the invite, now logged in: one click and they are in.
            expect(newcomer).to_have_url(invite)
            newcomer.get_by_role("button", name="Join as a player").click()
            expect(newcomer).to_have_url(f"{self.live_server_url}/campaigns/{self.campaign.id}/")
            browser.close()
        assert Membership.objects.get(user__username="newbie").role == Membership.PLAYER


class TestTheCampaignFormInTheBrowser(BrowserTestCase):
    def setUp(self):
        self.gm = make_user("gm")
        self.log_in(self.gm)

    def test_only_the_chosen_systems_settings_show(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            page = self.open_page(browser, "gm", "/campaigns/new/")
            mana, pool = page.locator("#settings-mana"), page.locator("#settings-pool")
            # Nothing chosen yet: neither system's settings.
            expect(mana).to_be_hidden()
            expect(pool).to_be_hidden()
            page.get_by_label("Pool", exact=True).check()
            expect(pool).to_be_visible()
            expect(mana).to_be_hidden()
            page.get_by_label("Mana", exact=True).check()
            expect(mana).to_be_visible()
            expect(pool).to_be_hidden()
            # A Pool setting left invalid while hidden does not stop a Mana campaign.
            page.get_by_label("Pool", exact=True).check()
            page.fill("#id_attribute_cost", "0")
            page.get_by_label("Mana", exact=True).check()
            page.fill("#id_name", "Blue Harbor")
            page.get_by_role("button", name="Create campaign").click()
            expect(page.locator("h1")).to_contain_text("Blue Harbor")
            browser.close()
        assert Campaign.objects.get().system == "mana"


class TestAHandOverInTheBrowser(BrowserTestCase):
    def setUp(self):
        self.gm, self.ana = make_user("gm"), make_user("ana")
        self.campaign = make_campaign(
            self.gm, system="pool", name="The Marches", players=[self.ana]
        )
        self.log_in(self.gm, self.ana)

    def test_both_rooms_load_again_as_what_they_are_now(self):
        """The GM hands the campaign to ana from the GM panel: the room pages both had open
        load again by themselves (room.consumers.RECAST), ana's now the GM's, the old GM's a
        player's."""
        from playwright.sync_api import expect

        from tests.browser import confirm, room_ready

        room = f"/campaigns/{self.campaign.id}/room/"
        with self.browser() as browser:
            gm_room = self.open_page(browser, "gm", room)
            ana_room = self.open_page(browser, "ana", room)
            for page in (gm_room, ana_room):
                room_ready(page)
            expect(gm_room.locator("#ask")).to_have_count(1)
            expect(ana_room.locator("#ask")).to_have_count(0)
            gm_room.evaluate("() => { window.beforeTheHandOver = true; }")
            ana_room.evaluate("() => { window.beforeTheHandOver = true; }")

            panel = gm_room.context.new_page()
            panel.goto(f"{self.live_server_url}/campaigns/{self.campaign.id}/gm/")
            panel.select_option("#gm-leave select", label="ana")
            panel.locator("#gm-leave button[type=submit]").click()
            confirm(panel)
            # The panel is no longer theirs: it goes to the campaign's page.
            panel.wait_for_url(f"{self.live_server_url}/campaigns/{self.campaign.id}/")

            # Loaded again (the marks set on the old pages are gone), each as what they are now.
            for page in (gm_room, ana_room):
                page.wait_for_function("() => !window.beforeTheHandOver")
                room_ready(page)
            expect(ana_room.locator("#ask")).to_have_count(1)
            expect(gm_room.locator("#ask")).to_have_count(0)
