"""What the browser tests share: Debian's Chromium through playwright, against a live Daphne that
serves the app as in production (``BrowserTestCase``).

Without Chromium they skip and say why, except under ``CI=true``: there a missing Chromium fails
them (``launch``), so that CI never passes without having run them."""

import os
import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest
from asgiref.sync import SyncToAsync
from channels.layers import channel_layers
from channels.testing import ChannelsLiveServerTestCase
from daphne.testing import DaphneProcess
from django.db.backends.postgresql.base import DatabaseWrapper as PostgresWrapper
from django.test import Client

CHROMIUM = shutil.which("chromium")
TIMEOUT = 10_000  # ms


def in_ci(environ=os.environ):
    """Whether the tests run in CI (``CI=true``, as CI services set it; also ``1`` or ``yes``)."""
    return environ.get("CI", "").strip().lower() in ("true", "1", "yes")


#: ``pytestmark = BROWSER`` in a module of browser tests.
BROWSER = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None and not in_ci(), reason="needs Debian's chromium"),
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
        # A PostgreSQL pool of its own: the parent's idle connections share their sockets with
        # the parent, and its workers (which open connections) stayed there. Kept, not closed:
        # closing would end the parent's connections.
        self.parents_pools = dict(PostgresWrapper._connection_pools)
        PostgresWrapper._connection_pools.clear()
        super().run()


class BrowserTestCase(ChannelsLiveServerTestCase):
    """A live server for Chromium: ``log_in(*users)`` in ``setUp`` (once the test's rows are
    written), then ``launch(playwright)`` and ``open_page(browser, username, path)``.

    Read the database after the ``with sync_playwright()`` block, not inside it: there
    playwright's event loop runs in this thread, and Django gives the ORM a connection of that
    loop's own, which nothing closes (on PostgreSQL it kept the test database from being
    dropped at the end of the run)."""

    ProtocolServerProcess = FreshDaphne

    def log_in(self, *users):
        """Session cookies for ``users``; done with the ORM, so playwright may start after."""
        self.cookies = {}
        for user in users:
            client = Client()
            client.force_login(user)
            self.cookies[user.username] = client.cookies["sessionid"].value
        # playwright's sync API runs an event loop in this thread; the ORM is done by now.
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        self.addCleanup(os.environ.pop, "DJANGO_ALLOW_ASYNC_UNSAFE", None)

    @staticmethod
    def launch(playwright):
        if CHROMIUM is None:
            pytest.fail(
                "CI=true and no chromium on the PATH: the browser tests must run in CI "
                "(apt-get install chromium; never `playwright install`)."
            )
        return playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"]
        )

    def logged_in_page(self, browser, username):
        """A new page (in a context of its own) with ``username``'s session cookie."""
        context = browser.new_context()
        context.add_cookies(
            [{"name": "sessionid", "value": self.cookies[username], "url": self.live_server_url}]
        )
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        return page

    def open_page(self, browser, username, path):
        page = self.logged_in_page(browser, username)
        page.goto(f"{self.live_server_url}{path}")
        return page
