"""The room in a real browser (Debian's Chromium through playwright, against a live Daphne):
pushes between two players' pages, the live odds, a refused roll swapped in place, a
reconnect that resumes after the last entry the page shows (static/js/room.js), and a GM-secret
roll revealed to every page with the log's new fingerprint."""

import os
import re
import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest
from asgiref.sync import SyncToAsync
from channels.layers import channel_layers
from channels.testing import ChannelsLiveServerTestCase
from daphne.testing import DaphneProcess
from django.test import Client

from campaigns.models import Campaign, ManaSkill
from sheets.models import ManaPool
from sheets.services import character_create
from tests.conftest import make_campaign, make_user

CHROMIUM = shutil.which("chromium")
TIMEOUT = 10_000  # ms

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium"),
]


def settled(page):
    """Wait until htmx has no request in flight and has processed what it swapped in (new
    content gets its behaviour a moment after it appears)."""
    page.wait_for_function(
        "() => !document.querySelector('.htmx-request, .htmx-added, .htmx-settling')"
    )


class FreshDaphne(DaphneProcess):
    """The live server, forked from this test process: it starts with asgiref's sync thread
    and the channel layer of its own (the parent's, after async tests, would hang it). It keeps
    the test database settings it inherits: channels' own setup would prefix ``test_`` to the
    already prefixed PostgreSQL name."""

    def __init__(self, host, get_application, **kwargs):
        kwargs["setup"] = None
        super().__init__(host, get_application, **kwargs)

    def run(self):
        SyncToAsync.single_thread_executor = ThreadPoolExecutor(max_workers=1)
        channel_layers.backends.clear()
        super().run()


class TestRoomInTheBrowser(ChannelsLiveServerTestCase):
    ProtocolServerProcess = FreshDaphne

    def setUp(self):
        self.gm, self.ana, self.ben = (make_user(n) for n in ("gm", "ana", "ben"))
        self.campaign = make_campaign(
            self.gm, system=Campaign.MANA, name="Blue Harbor", players=[self.ana, self.ben]
        )
        ManaSkill.objects.create(
            campaign=self.campaign, name="Gather Information", color_a="blue", color_b="white"
        )
        ManaSkill.objects.create(
            campaign=self.campaign, name="Jump", color_a="red", color_b="green"
        )
        mira = character_create(campaign=self.campaign, owner=self.ana, name="Mira")
        ManaPool.objects.filter(character=mira).update(current=5, maximum=5)
        self.cookies = {}
        for user in (self.gm, self.ana, self.ben):
            client = Client()
            client.force_login(user)
            self.cookies[user.username] = client.cookies["sessionid"].value
        # playwright's sync API runs an event loop in this thread; the ORM is done by now.
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        self.addCleanup(os.environ.pop, "DJANGO_ALLOW_ASYNC_UNSAFE", None)

    def open_room(self, browser, username):
        context = browser.new_context()
        context.add_cookies(
            [{"name": "sessionid", "value": self.cookies[username], "url": self.live_server_url}]
        )
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        page.goto(f"{self.live_server_url}/campaigns/{self.campaign.id}/room/")
        page.wait_for_selector('#ws-status[data-state="ok"]')
        return page

    def test_a_check_from_ask_to_roll_and_a_reconnect(self):
        from playwright.sync_api import expect, sync_playwright

        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            gm = self.open_room(browser, "gm")
            # Ana's page goes through a route that can cut her socket like a server restart.
            ana_context = browser.new_context()
            ana_context.add_cookies(
                [{"name": "sessionid", "value": self.cookies["ana"], "url": self.live_server_url}]
            )
            ana = ana_context.new_page()
            ana.set_default_timeout(TIMEOUT)
            sockets, routes = [], []

            def through(route):
                sockets.append(route.url)
                routes.append(route)
                route.connect_to_server()

            ana.route_web_socket(re.compile(".*/ws/campaigns/.*"), through)
            ana.goto(f"{self.live_server_url}/campaigns/{self.campaign.id}/room/")
            ana.wait_for_selector('#ws-status[data-state="ok"]')
            ben = self.open_room(browser, "ben")
            expect(gm.locator("#presence")).to_contain_text("ana")

            # The GM asks a private check: it appears for the GM and for Ana, once each.
            gm.select_option("#ask-character", label="Mira (ana)")
            gm.select_option("#ask-mana_skill", label="Gather Information")
            gm.fill("#ask-target", "3")
            gm.fill("#ask-note", "Find the smuggler")
            gm.select_option("#ask-visibility", "private")
            gm.click("#ask button")
            expect(ana.locator("#checks > .check")).to_have_count(1)
            expect(gm.locator("#checks > .check")).to_have_count(1)
            settled(ana)
            expect(gm.locator("#ask .ok")).to_have_text("Asked.")

            # Live odds while Ana edits the spend.
            odds = ana.locator("#checks .odds")
            expect(odds).to_contain_text("1 free = 1d10")
            ana.fill("#checks input[name=spend_a]", "1")
            ana.fill("#checks input[name=spend_b]", "1")
            expect(odds).to_contain_text("1 free + 2 mana + 1 synergy = 4d10")
            expect(odds).to_contain_text("23.1%")
            ana.fill("#checks input[name=colorless]", "3")
            expect(odds).to_contain_text("Colorless mana is spent in pairs")
            ana.fill("#checks input[name=colorless]", "0")
            # Another skill brings its colors.
            ana.select_option("#checks select[name=skill]", label="Jump (red + green)")
            expect(ana.locator("#checks input[name=color_a]")).to_have_value("red")
            settled(ana)
            gather = "Gather Information (blue + white)"
            ana.select_option("#checks select[name=skill]", label=gather)
            expect(ana.locator("#checks input[name=color_a]")).to_have_value("blue")
            settled(ana)

            # A refused roll (422) is swapped in with its reason.
            ana.fill("#checks input[name=spend_a]", "9")
            expect(odds).to_contain_text("Not enough blue mana")
            ana.click("#checks form.roll button")
            expect(ana.locator("#checks .odds .error")).to_contain_text(
                "Not enough blue mana: you spend 9, the pool has 5."
            )
            settled(ana)

            # The roll: the full entry for Ana and the GM, a stub for Ben.
            ana.fill("#checks input[name=spend_a]", "1")
            ana.fill("#checks input[name=spend_b]", "1")
            ana.fill("#checks input[name=intent]", "Ask around the docks")
            ana.click("#checks form.roll button")
            for page in (ana, gm):
                expect(page.locator("#log article.entry")).to_have_count(1)
                expect(page.locator("#log")).to_contain_text("Ask around the docks")
            expect(ben.locator("#log article.entry")).to_have_count(1)
            expect(ben.locator("#log")).to_contain_text("ana rolled privately.")
            expect(ben.locator("#log .die")).to_have_count(0)
            expect(ben.locator("#checks > .check")).to_have_count(0)

            # Ana's socket drops (as when the server restarts); meanwhile the GM starts a
            # session. Her page reconnects asking for what came after entry 1, and gets it.
            room_ws = f"{self.live_server_ws_url}/ws/campaigns/{self.campaign.id}/"
            assert sockets == [room_ws + "?after=0"]
            routes[-1].close(code=1012, reason="restart")
            expect(ana.locator("#ws-status")).to_have_text("reconnecting…")
            gm.click("#session button")
            expect(gm.locator("#log")).to_contain_text("Session 1 started")
            expect(ana.locator('#ws-status[data-state="ok"]')).to_have_count(1)
            assert sockets[-1] == room_ws + "?after=1"
            expect(ana.locator("#log")).to_contain_text("Session 1 started")
            expect(ana.locator("#log article.entry")).to_have_count(2)
            browser.close()


class TestSecretRollsInTheBrowser(ChannelsLiveServerTestCase):
    """The reveal, on a server of its own (one per class): a second test on the server of the
    class above finds its pages sent to the login page."""

    ProtocolServerProcess = FreshDaphne
    setUp = TestRoomInTheBrowser.setUp
    open_room = TestRoomInTheBrowser.open_room

    def test_a_secret_roll_revealed_reaches_every_page_with_the_new_fingerprint(self):
        from playwright.sync_api import expect, sync_playwright

        from rolls import services
        from rolls.models import SECRET, LogEntry
        from tests.rolls.room_setup import roll_mana

        warden = character_create(campaign=self.campaign, owner=self.gm, name="The Warden")
        ManaPool.objects.filter(character=warden).update(current=5, maximum=5)
        check = services.check_ask(
            campaign=self.campaign, character=warden, by=self.gm, target=2, visibility=SECRET
        )
        skill = ManaSkill.objects.get(campaign=self.campaign, name="Gather Information")
        secret = roll_mana(check, self.gm, skill, (9, 9, 8, 10), intent="Spot the knife")
        commitment = secret.data["commitment"]

        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            gm, ben = self.open_room(browser, "gm"), self.open_room(browser, "ben")
            fingerprint = f"#1 {secret.hash[:12]}"
            for page in (gm, ben):
                expect(page.locator("#log-fingerprint")).to_have_text(fingerprint)
            expect(ben.locator("#entry-1")).to_contain_text(f"Commitment {commitment[:16]}")
            expect(ben.locator("#log")).not_to_contain_text("Spot the knife")

            gm.once("dialog", lambda dialog: dialog.accept())
            gm.click("#entry-1 .reveal-form button")
            expect(gm.locator("#entry-1")).to_contain_text("Revealed as #2.")
            for page in (gm, ben):
                entry = page.locator("#entry-2")
                expect(entry).to_contain_text("gm revealed the secret roll #1")
                expect(entry).to_contain_text("Spot the knife")
                expect(entry).to_contain_text("matches the commitment")
                expect(page.locator("#log-fingerprint")).to_have_text(re.compile(r"#2 \w{12}"))
            shown = {page.locator("#log-fingerprint").text_content() for page in (gm, ben)}
            browser.close()
        revealed = LogEntry.objects.get(campaign=self.campaign, seq=2)
        assert shown == {f"#2 {revealed.hash[:12]}"}
