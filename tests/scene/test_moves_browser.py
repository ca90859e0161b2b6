"""Moving tokens in a real browser (Debian's Chromium through playwright, against a live
Daphne): a drag and arrow keys on one page seen live on the others, the GM's layer never on a
player's page, and a phone-width scene zoomed, pinched, panned and a token dragged by touch."""

import re

from playwright.sync_api import expect

from scene.models import Token
from tests.browser import BROWSER, TIMEOUT, BrowserTestCase, room_ready, wait_until
from tests.conftest import make_campaign, make_user
from tests.scene.move_setup import build_scene_table

pytestmark = BROWSER

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}


class TestMovingTokens(BrowserTestCase):
    def setUp(self):
        gm, ana, ben = (make_user(n) for n in ("gm", "ana", "ben"))
        campaign = make_campaign(gm, players=[ana, ben], name="Harbor table")
        self.table = build_scene_table(campaign, gm, ana, ben)
        self.log_in(gm, ana, ben)

    def room_path(self):
        return f"/campaigns/{self.table.campaign.id}/room/"

    def open_room(self, browser, username):
        page = self.open_page(browser, username, self.room_path())
        room_ready(page)
        return page

    def open_phone(self, browser, username):
        context = browser.new_context(**PHONE)
        context.add_cookies(
            [{"name": "sessionid", "value": self.cookies[username], "url": self.live_server_url}]
        )
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        page.goto(self.live_server_url + self.room_path())
        room_ready(page)
        return page

    @staticmethod
    def on_screen(page, x, y):
        """Where the map's pixel (x, y) is on ``page``'s screen."""
        return page.evaluate(
            """([x, y]) => {
                const view = document.querySelector(".scene-view");
                const map = view.querySelector("img").getBoundingClientRect();
                return [map.left + x * map.width / Number(view.dataset.width),
                        map.top + y * map.height / Number(view.dataset.height)];
            }""",
            [x, y],
        )

    @staticmethod
    def centre(locator):
        box = locator.bounding_box()
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    def expect_at(self, page, token, x, y, moves):
        locator = page.locator(f"#token-{token.pk}")
        if moves is not None:  # None: moves coalesced on their way (scene.js), any count
            expect(locator).to_have_attribute("data-moves", str(moves))
        expect(locator).to_have_attribute("data-x", str(x))
        expect(locator).to_have_attribute("data-y", str(y))
        # Drawn there: its centre on that pixel of the map as this page shows it. The page
        # places a swapped card's tokens after the swap (scene.js), so the card's attributes can
        # be the new ones a moment before the token is drawn there: wait for it.

        def drawn_there():
            want, got = self.on_screen(page, x, y), self.centre(locator)
            return abs(got[0] - want[0]) < 2 and abs(got[1] - want[1]) < 2

        try:
            wait_until(page, drawn_there)
        except AssertionError:
            raise AssertionError((self.centre(locator), self.on_screen(page, x, y))) from None

    def test_a_drag_and_arrow_keys_are_seen_live_on_the_other_pages(self):
        mira, ambush = self.table.tokens.mira, self.table.tokens.ambush
        with self.browser() as browser:
            gm = self.open_room(browser, "gm")
            ana = self.open_room(browser, "ana")
            ben = self.open_room(browser, "ben")
            # ana drags Mira from the first square to near the middle of the fourth one along.
            start = self.centre(ana.locator(f"#token-{mira.pk}"))
            to = self.on_screen(ana, 160, 110)
            ana.mouse.move(*start)
            ana.mouse.down()
            for step in range(1, 6):
                ana.mouse.move(
                    start[0] + (to[0] - start[0]) * step / 5,
                    start[1] + (to[1] - start[1]) * step / 5,
                )
            ana.mouse.up()
            for page in (ana, gm, ben):
                self.expect_at(page, mira, 175, 125, 1)  # snapped, on every page
            # Ben may not move it: his page offers no drag.
            expect(ben.locator(f"#token-{mira.pk}")).not_to_have_attribute("data-movable", "")

            # The arrow keys, one square each: the page shows each at once, sends them in turn
            # (those pressed while one is on its way as one move), and every page ends there.
            ana.locator(f"#token-{mira.pk}").focus()
            ana.keyboard.press("ArrowRight")
            ana.keyboard.press("ArrowDown")
            ana.keyboard.press("ArrowDown")
            for page in (ana, gm, ben):
                self.expect_at(page, mira, 225, 225, None)
            moves = Token.objects.get(pk=mira.pk).moves
            assert 2 <= moves <= 4
            for page in (ana, gm, ben):
                expect(page.locator(f"#token-{mira.pk}")).to_have_attribute(
                    "data-moves", str(moves)
                )
            expect(ana.locator(f"#token-{mira.pk}")).to_be_focused()

            # The GM moves a token of the GM's layer by keyboard: never on a player's page.
            gm.locator(f"#token-{ambush.pk}").focus()
            gm.keyboard.press("ArrowLeft")
            self.expect_at(gm, ambush, 125, 175, 1)
            gm.locator(f"#token-{mira.pk}").focus()
            gm.keyboard.press("ArrowUp")
            self.expect_at(ana, mira, 225, 175, moves + 1)  # the GM's later move, heard after it
            for page in (ana, ben):
                expect(page.locator(f"#token-{ambush.pk}")).to_have_count(0)
                assert "Ghoul" not in page.content()
        assert Token.objects.get(pk=mira.pk).moves == moves + 1

    def test_an_opened_page_and_a_resync_show_the_tokens_where_they_are(self):
        mira = self.table.tokens.mira
        Token.objects.filter(pk=mira.pk).update(x=325, y=275, moves=7)
        with self.browser() as browser:
            ana = self.open_room(browser, "ana")
            self.expect_at(ana, mira, 325, 275, 7)
            ana.get_by_role("button", name="Zoom in").click()
            # A move the page missed (its socket away): the card fetched again after the
            # reconnect (site.js's facts-resync) shows it, placed on the map as zoomed.
            Token.objects.filter(pk=mira.pk).update(x=75, y=125, moves=8)
            width = ana.locator(".scene-view img").bounding_box()["width"]
            ana.evaluate("() => htmx.trigger(document.body, 'facts-resync')")
            self.expect_at(ana, mira, 75, 125, 8)
            assert ana.locator(".scene-view img").bounding_box()["width"] == width

    def test_a_push_older_than_what_the_page_shows_is_dropped(self):
        mira = self.table.tokens.mira
        with self.browser() as browser:
            ana = self.open_room(browser, "ana")
            # The token as the server pushes it (scene.js's inline style left out).
            template = ana.locator(f"#token-{mira.pk}").evaluate(
                "el => { const copy = el.cloneNode(true); copy.removeAttribute('style'); "
                "return copy.outerHTML; }"
            )

            def push(x, moves):
                html = re.sub(r'data-x="\d+"', f'data-x="{x}"', template)
                html = re.sub(r'data-moves="\d+"', f'data-moves="{moves}"', html)
                ana.evaluate(
                    """(html) => document.body.dispatchEvent(new CustomEvent(
                        "htmx:wsBeforeMessage",
                        {bubbles: true, cancelable: true, detail: {message: html}}))""",
                    html,
                )

            push(125, 3)
            self.expect_at(ana, mira, 125, 25, 3)
            push(75, 2)  # late: an older move
            push(375, 3)  # the same move again
            push(175, 4)
            self.expect_at(ana, mira, 175, 25, 4)
            push(225, 1)
            self.expect_at(ana, mira, 175, 25, 4)

    def test_a_phone_zooms_pinches_pans_and_moves_a_token_by_touch(self):
        mira = self.table.tokens.mira
        with self.browser() as browser:
            gm = self.open_room(browser, "gm")
            phone = self.open_phone(browser, "ana")
            view = phone.locator(".scene-view")
            view.scroll_into_view_if_needed()
            assert view.bounding_box()["width"] <= 390
            touch = phone.context.new_cdp_session(phone)

            def width():
                return phone.locator(".scene-view img").bounding_box()["width"]

            def left():
                return phone.locator(".scene-view img").bounding_box()["x"]

            def gesture(*paths):
                """Fingers moving together along ``paths`` (lists of points), then lifted."""
                steps = len(paths[0])
                for i in range(steps):
                    kind = "touchStart" if i == 0 else "touchMove"
                    points = [{"x": p[i][0], "y": p[i][1], "id": n} for n, p in enumerate(paths)]
                    touch.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})
                touch.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})

            def shown_at(wide, more=False):
                """Wait for the map to be drawn ``wide`` pixels wide (``more``: wider)."""
                phone.wait_for_function(
                    """([wide, more]) => {
                        const w = document.querySelector(".scene-view img").offsetWidth;
                        return more ? w > wide : Math.abs(w - wide) < 1;
                    }""",
                    arg=[wide, more],
                )

            # The buttons (a tap's click comes a moment after it).
            fitted = width()
            phone.get_by_role("button", name="Zoom in").tap()
            shown_at(fitted * 1.4, more=True)
            phone.get_by_role("button", name="Fit").tap()
            shown_at(fitted)

            # Two fingers spread apart on the empty map: it zooms.
            box = view.bounding_box()
            cx, cy = box["x"] + box["width"] * 0.8, box["y"] + box["height"] * 0.8
            gesture(
                [(cx - 20 - i * 10, cy) for i in range(6)],
                [(cx + 20 + i * 10, cy) for i in range(6)],
            )
            zoomed = width()
            assert zoomed > fitted * 1.5
            # One finger dragged on the empty map: it pans.
            before = left()
            gesture([(cx - i * 15, cy - 40) for i in range(6)])
            assert left() < before - 40
            assert abs(width() - zoomed) < 1

            # Fit again (by keyboard), then a finger drags Mira two squares right: the GM sees it.
            phone.get_by_role("button", name="Fit").press("Enter")
            shown_at(fitted)
            start = self.centre(phone.locator(f"#token-{mira.pk}"))
            to = self.on_screen(phone, 125, 25)
            gesture(
                [
                    (start[0] + (to[0] - start[0]) * i / 6, start[1] + (to[1] - start[1]) * i / 6)
                    for i in range(7)
                ]
            )
            self.expect_at(phone, mira, 125, 25, 1)
            self.expect_at(gm, mira, 125, 25, 1)
