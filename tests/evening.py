"""What the end-to-end evenings share (tests/test_evening_browser.py): a table of three in one
Chromium, each in a browser context of their own, who sign up and join through the pages; the
dropped connection of one page; the screenshots of the room, a sheet and the GM panel.

Selectors name what is stable: form field names, the URLs forms post to, ids of the room's
parts, roles with their accessible names where the words are the point."""

import os
import re
import tempfile
from pathlib import Path

from tests.browser import TIMEOUT, BrowserTestCase, settled

PASSWORD = "a long table-side passphrase"

#: Where the screenshots go: the folder ``ROLLROOM_SCREENSHOTS`` names, else a temporary one, so
#: that a run leaves the working tree alone (the README's are copied from there into
#: docs/screenshots).
SCREENSHOTS_VARIABLE = "ROLLROOM_SCREENSHOTS"
VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "mobile": {"width": 375, "height": 812}}

_shots_dir = None


def screenshots_dir():
    global _shots_dir
    if _shots_dir is None:
        chosen = os.environ.get(SCREENSHOTS_VARIABLE)
        _shots_dir = Path(chosen) if chosen else Path(tempfile.mkdtemp(prefix="rollroom-shots-"))
        _shots_dir.mkdir(parents=True, exist_ok=True)
    return _shots_dir


def shoot(page, name):
    """``name-desktop.png`` and ``name-mobile.png`` of the page's first screen, then the
    desktop size again. Returns the paths."""
    paths = []
    for label, size in VIEWPORTS.items():
        page.set_viewport_size(size)
        page.evaluate(
            "() => new Promise(r => { window.scrollTo(0, 0); requestAnimationFrame(() => r()); })"
        )
        path = screenshots_dir() / f"{name}-{label}.png"
        page.screenshot(path=str(path))
        paths.append(path)
    page.set_viewport_size(VIEWPORTS["desktop"])
    return paths


def seqs(page):
    """The sequence numbers of the log entries the page shows, in page order."""
    return page.eval_on_selector_all(
        "#log article.entry", "els => els.map(e => Number(e.dataset.seq))"
    )


def check_card(page, character):
    """The check card of ``character`` in the room's live checks."""
    return page.locator("#checks article.check", has_text=character)


def posting_to(scope, path_end):
    """The form of ``scope`` that posts to a URL ending with ``path_end``."""
    return scope.locator(f"form[action$='{path_end}']")


def submit(form):
    form.locator("button[type=submit], button:not([type])").first.click()


class Table(BrowserTestCase):
    """A live server for a table that signs up through the pages: ``new_page`` gives each
    member a browser context of their own (no cookies)."""

    def new_page(self, browser):
        context = browser.new_context(viewport=VIEWPORTS["desktop"])
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        return page

    def url(self, path):
        return f"{self.live_server_url}{path}"

    def sign_up(self, page, username):
        """Fill in the sign-up page the browser is on and create the account."""
        form = page.locator("main form")
        form.locator("[name=username]").fill(username)
        form.locator("[name=password1]").fill(PASSWORD)
        form.locator("[name=password2]").fill(PASSWORD)
        submit(form)

    def gm_signs_up_and_creates(self, page, username, *, name, system, skills=""):
        from playwright.sync_api import expect

        page.goto(self.url("/accounts/signup/"))
        self.sign_up(page, username)
        expect(page.locator("header.topbar")).to_contain_text(username)
        page.get_by_role("link", name="New campaign").click()
        form = page.locator("main form")
        form.locator("[name=name]").fill(name)
        form.locator(f"[name=system][value={system}]").check()
        if skills:
            form.locator("[name=skills]").fill(skills)
        submit(form)
        expect(page.locator("h1")).to_contain_text(name)
        self.campaign_path = re.search(r"/campaigns/\d+/", page.url).group(0)
        page.goto(self.url(self.campaign_path + "gm/"))
        return page.locator("main input[value*='/join/']").input_value()

    def player_joins(self, page, invite, username, character, concept=""):
        """Open the invite link logged out, sign up from its page, join, make a character.
        Returns the sheet's path."""
        from playwright.sync_api import expect

        page.goto(invite)
        page.locator("main a[href*='/accounts/signup/?next=']").click()
        self.sign_up(page, username)
        expect(page).to_have_url(re.compile(r"/join/"))
        submit(page.locator("main form"))
        expect(page).to_have_url(self.url(self.campaign_path))
        return self.create_character(page, character, concept)

    def create_character(self, page, name, concept=""):
        from playwright.sync_api import expect

        page.goto(self.url(self.campaign_path))
        page.locator(f"a[href$='{self.campaign_path}characters/new/']").click()
        form = page.locator("main form")
        form.locator("[name=name]").fill(name)
        form.locator("[name=concept]").fill(concept)
        submit(form)
        expect(page.locator("#sheet-header h1")).to_have_text(name)
        return re.search(r"/campaigns/\d+/characters/\d+/", page.url).group(0)

    def open_room(self, page):
        page.goto(self.url(self.campaign_path + "room/"))
        page.wait_for_selector('#ws-status[data-state="ok"]')
        settled(page)

    def droppable_room(self, page):
        """Open the room through a route that can take the page's socket away. ``drop()``
        takes the page's browser context offline and closes its socket; until ``back()`` every
        new socket the page opens is refused at once, as when the network is down (Chromium's
        offline mode alone leaves open sockets alone). Returns (the socket URLs the page asked
        for, drop, back)."""
        sockets, routes, away = [], [], [False]

        def through(route):
            sockets.append(route.url)
            if away[0]:
                route.close(code=1013, reason="offline")
                return
            routes.append(route)
            route.connect_to_server()

        page.route_web_socket(re.compile(".*/ws/campaigns/.*"), through)
        self.open_room(page)
        # After each refusal the page tries again within 2.5 s, from the ninth in a row within
        # 10 s (static/js/site.js).

        def drop():
            away[0] = True
            page.context.set_offline(True)
            routes[-1].close(code=1012, reason="network down")

        def back():
            page.context.set_offline(False)
            away[0] = False

        return sockets, drop, back

    def ask(self, gm, *, character, about, target, visibility="public", note=""):
        """The GM asks ``character`` (its label, "Name (player)") for a check."""
        form = posting_to(gm, "/checks/ask/")
        form.locator("[name=character]").select_option(label=character)
        about_field = form.locator("[name=mana_skill], [name=suggestion]")
        if about_field.evaluate("e => e.tagName") == "SELECT":
            about_field.select_option(label=about)
        else:
            about_field.fill(about)
        form.locator("[name=target]").fill(str(target))
        form.locator("[name=visibility]").select_option(visibility)
        form.locator("[name=note]").fill(note)
        submit(form)
        settled(gm)
