"""The GM's handouts in a real browser (Debian's Chromium through playwright, against a live
Daphne): the GM shares a handout with an image with ana alone from the room; ana's room shows it
live, with its image and a notice in the live region; ben's room never receives a frame of it;
the GM takes it back and it leaves ana's room. A push ana's page missed shows once its socket
reopens (the list fetches itself again)."""

import re

from scene.models import Handout
from sheets.services import character_create
from tests.browser import BROWSER, BrowserTestCase, confirm, room_ready, settled, wait_until
from tests.conftest import make_campaign, make_user
from tests.scene.conftest import picture_bytes

pytestmark = BROWSER

TITLE = "The harbour master writes"


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
            # Every frame ben's page receives, from its socket's opening.
            ben = self.logged_in_page(browser, "ben")
            ben_frames = []
            ben.on(
                "websocket",
                lambda socket: socket.on("framereceived", lambda frame: ben_frames.append(frame)),
            )
            ben.goto(f"{self.live_server_url}/campaigns/{self.campaign.id}/room/")
            room_ready(ben)
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
            assert ben_frames  # the talk, at least
            assert not [frame for frame in ben_frames if TITLE in str(frame)]
            assert not [frame for frame in ben_frames if "handout" in str(frame)]

            # The GM takes it back: it leaves ana's room.
            gm.locator("#handouts-list").get_by_role("button", name="Delete").click()
            confirm(gm)
            expect(gm.locator("#handouts-list")).to_contain_text("No handouts shared yet.")
            expect(ana.locator("#handouts-list")).to_contain_text("No handouts for you yet.")
            assert not [frame for frame in ben_frames if "handout" in str(frame)]
        assert not Handout.objects.exists()

    def test_a_handout_whose_push_was_lost_shows_after_the_socket_reopens(self):
        from playwright.sync_api import expect

        room = f"/campaigns/{self.campaign.id}/room/"
        with self.browser() as browser:
            gm = self.open_room(browser, "gm")
            # Ana's socket goes through a route that loses the handout's push and log entry 2.
            ana = self.logged_in_page(browser, "ana")
            sockets, lost = [], []

            def through(route):
                sockets.append(route.url)
                server = route.connect_to_server()

                def to_page(message):
                    for needle in (TITLE, 'data-seq="2"'):
                        if needle in str(message) and not any(needle in str(m) for m in lost):
                            lost.append(message)
                            return
                    route.send(message)

                server.on_message(to_page)

            ana.route_web_socket(re.compile(".*/ws/campaigns/.*"), through)
            ana.goto(f"{self.live_server_url}{room}")
            room_ready(ana)

            gm.locator("#handout-share summary").click()
            gm.fill("#handout-title", TITLE)
            gm.get_by_role("button", name="Share").click()
            expect(gm.locator("#handouts-list")).to_contain_text(TITLE)
            wait_until(ana, lambda: lost)  # the handout's push, lost on its way to ana's page
            expect(ana.locator("#handouts-list")).to_contain_text("No handouts for you yet.")

            # Entries 1 and 2 (lost), then 3: ana's page sees the gap and reopens its socket,
            # and its list fetches itself again.
            for count in (1, 2, 3):
                gm.click("#session button")
                expect(gm.locator("#log article.entry")).to_have_count(count)
                settled(gm)
            expect(ana.locator("#log article.entry")).to_have_count(3)
            expect(ana.locator("#handouts-list article.handout h3")).to_have_text(TITLE)
            assert len(sockets) == 2 and len(lost) == 2
