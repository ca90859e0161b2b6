"""The GM shows a scene and a player's open room shows it, live (Debian's Chromium through
playwright, against a live Daphne): the map served to the member, its grid, the tokens placed
on it by static/js/scene.js (no inline style: the CSP is watched), the GM-only one absent."""

from scene import services
from sheets.services import character_create
from tests.browser import BROWSER, BrowserTestCase, room_ready, settled
from tests.conftest import make_campaign, make_user
from tests.scene.conftest import picture_bytes

pytestmark = BROWSER


class TestShowingAScene(BrowserTestCase):
    def setUp(self):
        self.gm, self.ana = make_user("gm"), make_user("ana")
        self.campaign = make_campaign(self.gm, name="Map table", players=[self.ana])
        ilse = character_create(campaign=self.campaign, owner=self.ana, name="Ilse")
        self.scene = services.scene_add(
            campaign=self.campaign, name="The ford", upload=picture_bytes(size=(400, 300))
        )
        services.token_add(scene=self.scene, name="Ilse", colour="#1f618d", character=ilse)
        services.token_add(scene=self.scene, name="Lurker", colour="#000000", gm_only=True)
        self.log_in(self.gm, self.ana)

    def test_the_gms_show_appears_on_a_players_open_room(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            ana = self.logged_in_page(browser, "ana")
            ana.goto(f"{self.live_server_url}/campaigns/{self.campaign.id}/room/")
            room_ready(ana)
            expect(ana.locator("#scene")).to_be_hidden()

            gm = self.logged_in_page(browser, "gm")
            gm.goto(f"{self.live_server_url}/campaigns/{self.campaign.id}/scenes/")
            gm.get_by_role("button", name="Show it to the table").click()
            settled(gm)
            expect(gm.locator("#scenes")).to_contain_text("The table sees The ford.")

            scene = ana.locator("#scene")
            expect(scene).to_be_visible(timeout=10_000)
            expect(scene.get_by_role("heading")).to_have_text("The ford")
            expect(ana.locator("#log")).to_contain_text("The GM showed the scene The ford")
            # The map came from the server to this member (loaded, not a broken image).
            ana.wait_for_function(
                "() => { const img = document.querySelector('#scene .scene-map');"
                " return img && img.complete && img.naturalWidth === 400; }"
            )
            token = scene.get_by_role("button", name="Ilse, token")
            expect(token).to_be_visible()
            # Placed by scene.js at its centre: the middle of its square, in map pixels.
            ana.wait_for_function(
                "() => { const t = document.querySelector('#scene .token');"
                " const m = document.querySelector('#scene .scene-map');"
                " if (!t.style.left) return false;"
                " const tr = t.getBoundingClientRect(), mr = m.getBoundingClientRect();"
                " const x = ((tr.left + tr.width / 2 - mr.left) / mr.width) * m.naturalWidth;"
                " const y = ((tr.top + tr.height / 2 - mr.top) / mr.height) * m.naturalHeight;"
                " return Math.abs(x - t.dataset.x) < 2 && Math.abs(y - t.dataset.y) < 2; }"
            )
            expect(scene.get_by_role("button", name="Lurker, token (GM only)")).to_have_count(0)
            expect(scene.locator(".scene-grid")).to_have_count(1)

    def test_the_gm_uploads_a_map_and_adds_a_token_on_the_scenes_page(self):
        from playwright.sync_api import expect

        with self.browser() as browser:
            gm = self.logged_in_page(browser, "gm")
            gm.goto(f"{self.live_server_url}/campaigns/{self.campaign.id}/scenes/")
            gm.fill("#scene-add-name", "The cave")
            gm.set_input_files(
                "#scene-add-image",
                files=[
                    {"name": "cave.jpg", "mimeType": "image/jpeg", "buffer": picture_bytes("JPEG")}
                ],
            )
            gm.get_by_role("button", name="Upload").click()
            settled(gm)
            expect(gm.locator("#scenes")).to_contain_text("Added the scene The cave.")
            # A GIF is refused with its sentence, in place (422, swapped).
            gm.fill("#scene-add-name", "Animated")
            gm.set_input_files(
                "#scene-add-image",
                files=[{"name": "a.png", "mimeType": "image/png", "buffer": picture_bytes("GIF")}],
            )
            gm.get_by_role("button", name="Upload").click()
            settled(gm)
            expect(gm.locator("#scenes")).to_contain_text("not a PNG, JPEG or WebP")
            cave = gm.locator("li", has=gm.get_by_role("heading", name="The cave"))
            cave.get_by_label("Or a name (an NPC, a marker)").fill("Bat")
            cave.get_by_role("button", name="Add the token").click()
            settled(gm)
            expect(gm.locator("#scenes")).to_contain_text("Added the token Bat.")
