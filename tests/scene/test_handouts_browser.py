"""The GM's handouts in a real browser (Debian's Chromium through playwright, against a live
Daphne): the GM shares a handout with an image with ana alone from the room; ana's room shows it
live, with its image and a notice in the live region; ben's room never receives a frame of it;
the GM takes it back and it leaves ana's room."""

from scene.models import Handout
from sheets.services import character_create
from tests.browser import BROWSER, BrowserTestCase, confirm, room_ready
from tests.conftest import make_campaign, make_user
from tests.scene.conftest import picture_bytes

pytestmark = BROWSER

TITLE = "The harbour master's letter"


class TestHandouts(BrowserTestCase):
    def setUp(self):
        self.gm, self.ana, self.ben = (make_user(n) for n in ("gm", "ana", "ben"))
        self.campaign = make_campaign(
            self.gm, system="pool", name="Handout table", players=[self.ana, self.ben]
        )
        character_create(campaign=self.campaign, owner=self.ana, name="Mira")
        self.log_in(self.gm, self.ana, self.ben)

    def open_room(self, browser, username):
        page = self.open_page(browser, username, f"/campaigns/{self.campaign.id}/room/")
        room_ready(page)
        return page

    def test_the_gm_shares_with_one_player_and_only_her_room_shows_it(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            gm = self.open_room(browser, "gm")
            ana = self.open_room(browser, "ana")
            ben = self.open_room(browser, "ben")
            ben_frames = []
            ben.on(
                "websocket",
                lambda socket: socket.on("framereceived", lambda frame: ben_frames.append(frame)),
            )
            expect(ana.locator("#handouts-list")).to_contain_text("No handouts for you yet.")

            gm.locator("#handout-share summary").click()
            gm.fill("#handout-title", TITLE)
            gm.fill("#handout-text", "Meet me at the docks.\n\nCome alone.")
            gm.set_input_files(
                "#handout-picture",
                files=[{"name": "clue.png", "mimeType": "image/png", "buffer": picture_bytes()}],
            )
            gm.get_by_label("Only the players ticked below").check()
            gm.get_by_label("ana", exact=True).check()
            gm.get_by_role("button", name="Share").click()
            expect(gm.locator("#handout-form [role=status]")).to_have_text(
                f"Shared {TITLE} with ana."
            )
            expect(gm.locator("#handouts-list")).to_contain_text(TITLE)
            expect(gm.locator("#handout-title")).to_have_value("")

            # ana's room shows it as it comes, the notice in the live region, its image loaded.
            handout = ana.locator("#handouts-list article.handout")
            expect(handout).to_have_count(1)
            expect(handout.locator("h3")).to_have_text(TITLE)
            expect(handout.locator(".handout-text p")).to_have_count(2)
            expect(ana.locator("#handouts-news")).to_have_text(f"New handout: {TITLE}")
            ana.wait_for_function(
                "() => { const img = document.querySelector('#handouts-list img');"
                " return img && img.complete && img.naturalWidth === 40; }"
            )

            # ben's room: nothing came. The GM's talk after the share reaches every room, each
            # socket's pushes in the order they were sent: once ben reads it, a push of the
            # handout to him would have come before it.
            gm.fill("#talk-text", "Letters are out")
            gm.press("#talk-text", "Enter")
            expect(ben.locator("#log .entry.message").last).to_contain_text("Letters are out")
            expect(ben.locator("#handouts-list")).to_contain_text("No handouts for you yet.")
            expect(ben.locator("#handouts-news")).to_have_text("")
            assert not [frame for frame in ben_frames if TITLE in str(frame)]

            # The GM takes it back: it leaves ana's room.
            gm.locator("#handouts-list").get_by_role("button", name="Delete").click()
            confirm(gm)
            expect(gm.locator("#handouts-list")).to_contain_text("No handouts shared yet.")
            expect(ana.locator("#handouts-list")).to_contain_text("No handouts for you yet.")
            assert not [frame for frame in ben_frames if TITLE in str(frame)]
        assert not Handout.objects.exists()
