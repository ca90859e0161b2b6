"""What the browser tests share: Debian's Chromium through playwright, against a live Daphne that
serves the app as in production (``BrowserTestCase``).

Without Chromium they skip and say why, except under ``CI=true``: there a missing Chromium fails
them (``BrowserTestCase.browser``), so that CI never passes without having run them.

They are strict about the console: every page a test opens (in any context of the browser
``browser()`` gave it) is watched, and the test fails at its end, naming them, if any page logged
an error to the console, threw an error nobody caught, or broke the Content-Security-Policy."""

import asyncio
import json
import os
import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import partial
from urllib.parse import urlsplit

import pytest
from asgiref.sync import SyncToAsync
from channels.layers import channel_layers
from channels.testing import ChannelsLiveServerTestCase
from channels.testing.live import make_application
from daphne.testing import DaphneProcess
from django.conf import settings
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.db import connections
from django.db.backends.postgresql.base import DatabaseWrapper as PostgresWrapper
from django.test import Client, modify_settings

CHROMIUM = shutil.which("chromium")
#: What the live servers serve: the app with its static files, as channels' own live server.
APPLICATION = partial(make_application, static_wrapper=ASGIStaticFilesHandler)
TIMEOUT = 10_000  # ms
#: What a context given back keeps open (``reset``): the login page, signed out.
KEEPER = "/accounts/login/"
#: A name Chromium resolves to 127.0.0.1 (``Chromium.resume``'s --host-resolver-rules) without
#: taking it for this machine: a page there over plain HTTP is not a secure context, as a
#: player's page on the GM's server reached over the network is not
#: (``BrowserTestCase.network_url``; the worker's live server allows it as a host).
NETWORK_HOST = "rollroom.test"

#: The binding through which a page reports each violation of the Content-Security-Policy
#: (``WATCH_CSP``, which calls it by this name, installed before the page's own scripts in every
#: page of a watched context).
REPORT_VIOLATION = "rollroomReportViolation"
WATCH_CSP = """
document.addEventListener("securitypolicyviolation", function (event) {
  const target = event.target;
  const element = target && target.tagName
    ? target.tagName.toLowerCase() + (target.id ? "#" + target.id : "")
      + (typeof target.className === "string" && target.className.trim()
        ? "." + target.className.trim().split(/\\s+/).join(".") : "")
    : "document";
  window.rollroomReportViolation(
    event.violatedDirective + " refused " + (event.blockedURI || "inline")
    + " (sample " + JSON.stringify(event.sample) + ", on " + element + ", at "
    + (event.sourceFile || "?") + ":" + event.lineNumber + ":" + event.columnNumber + ")"
  );
}, true);
"""

#: Counts the swaps of the room's live checks (``window.rollroomChecksSettled``): the room
#: fetches them again each time its socket opens (static/js/room.js), and a test that acts on a
#: card before that fetch lands may see its work replaced by it (:func:`room_ready`).
COUNT_CHECKS_SWAPS = """
document.addEventListener("htmx:afterSettle", function (event) {
  if (event.detail && event.detail.elt && event.detail.elt.id === "checks") {
    window.rollroomChecksSettled = (window.rollroomChecksSettled || 0) + 1;
  }
});
"""


def room_ready(page):
    """Wait until the room on ``page`` is live: its socket open and the live checks fetched
    again on that opening (static/js/room.js), so that a card the test works on is the one the
    page keeps (an inline confirmation opened before the fetch lands is swapped away)."""
    page.wait_for_selector('#ws-status[data-state="ok"]')
    page.wait_for_function("() => (window.rollroomChecksSettled || 0) >= 1")


def in_ci(environ=os.environ):
    """Whether the tests run in CI (``CI=true``, as CI services set it; also ``1`` or ``yes``)."""
    return environ.get("CI", "").strip().lower() in ("true", "1", "yes")


#: ``pytestmark = BROWSER`` in a module of browser tests.
BROWSER = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None and not in_ci(), reason="needs Debian's chromium"),
]


#: The only console errors a test may cause without failing: Chromium's own line for an answer
#: whose status says the request was refused, 422 (an invalid form, swapped in with its errors:
#: base.html's htmx-config), 429 (over the write limit) and 503 (the database unreachable;
#: site.js shows the sentence of either). The browser logs every 4xx and 5xx it receives,
#: whoever handles it; the page logs nothing more (htmx treats none of them as an error, so it
#: logs none).
REFUSED = re.compile(
    r"Failed to load resource: the server responded with a status of (422|429|503)\b"
)


def expected(message):
    """Whether a console error is the browser reporting a status the app answers on purpose."""
    return REFUSED.match(message.text or "") is not None


def settled(page):
    """Wait until htmx has no request in flight and has processed what it swapped in (new
    content gets its behaviour a moment after it appears)."""
    page.wait_for_function(
        "() => !document.querySelector('.htmx-request, .htmx-added, .htmx-settling')"
    )


def confirm(page, answer="Yes"):
    """Answer the app's inline confirmation (static/js/site.js, data-confirm) that an action
    asked on ``page``: its ``answer`` button, Yes or Keep. Returns the question it asked."""
    box = page.locator("[data-confirm-box]")
    question = box.locator("p").text_content()
    box.get_by_role("button", name=answer, exact=True).click()
    return question


def losing_first(page, needle):
    """Route ``page``'s room sockets through a route that loses the first frame holding
    ``needle`` on its way to the page: (the socket URLs the page asked for, the frames lost)."""
    sockets, lost = [], []

    def through(route):
        sockets.append(route.url)
        server = route.connect_to_server()

        def to_page(message):
            if needle in str(message) and not lost:
                lost.append(message)
                return
            route.send(message)

        server.on_message(to_page)

    page.route_web_socket(re.compile(".*/ws/campaigns/.*"), through)
    return sockets, lost


def wait_until(page, done):
    """Wait (10 s at most) until ``done()``, a fact the test's own handlers record (a route
    held, a request seen), letting playwright hand in the page's events meanwhile."""
    for _ in range(100):
        if done():
            return
        page.wait_for_timeout(100)
    raise AssertionError("waited 10 s in vain")


class FreshDaphne(DaphneProcess):
    """The live server, forked from this test process: it starts with asgiref's sync thread
    and the channel layer of its own (the parent's, after async tests, would hang it). It keeps
    the test database settings it inherits: channels' own setup would prefix ``test_`` to the
    already prefixed PostgreSQL name. Its daphne has the settings' websocket limits
    (config/settings.py), as ``manage.py host`` gives them to daphne's command line."""

    def __init__(self, host, get_application, **kwargs):
        kwargs["setup"] = None
        kwargs["kwargs"] = {
            "websocket_max_message_size": settings.DAPHNE_WEBSOCKET_MAX_MESSAGE_SIZE,
            "websocket_max_frame_size": settings.DAPHNE_WEBSOCKET_MAX_FRAME_SIZE,
            **(kwargs.get("kwargs") or {}),
        }
        super().__init__(host, get_application, **kwargs)

    def start(self):
        """Forked with no database connection open in this process (its thread and asgiref's
        sync thread): a SQLite connection must not cross a fork. The child inherited the
        parent's lock and WAL-index state of the file, and after the first test's flush read
        a stale snapshot: the next test's session and users were not there (its page went to
        the login page, and opened no socket), so a class could hold one browser test only."""
        connections.close_all()
        SyncToAsync.single_thread_executor.submit(connections.close_all).result(timeout=30)
        super().start()

    def run(self):
        SyncToAsync.single_thread_executor = ThreadPoolExecutor(max_workers=1)
        channel_layers.backends.clear()
        # A PostgreSQL pool of its own: the parent's idle connections share their sockets with
        # the parent, and its workers (which open connections) stayed there. Kept, not closed:
        # closing would end the parent's connections.
        self.parents_pools = dict(PostgresWrapper._connection_pools)
        PostgresWrapper._connection_pools.clear()
        super().run()


class Chromium:
    """The worker's one Chromium, driven by playwright: started by the first browser test that
    asks for it and stopped when the worker ends (``stop``, from tests/conftest.py), rather
    than launched again by every test.

    playwright's sync API runs its event loop in this thread and marks it running while the
    test waits between two calls; a loop marked running stops the ORM (it refuses to run
    synchronously in one) and every later async test (``asyncio.run`` refuses to start).
    ``resume`` marks it running again for a test's block, ``pause`` clears the mark after it."""

    playwright = browser = loop = None
    #: Contexts a test has done with, ready for the next one that asks for the same options
    #: (``WatchedBrowser``): a new context costs Chromium about a second of CPU (a renderer
    #: process, a profile, every script compiled again), most of a browser test's.
    idle = {}
    #: Which test's watch hears each context's pages (``BrowserTestCase.watch``).
    owners = {}

    @classmethod
    def resume(cls):
        if cls.browser is None:
            from playwright.sync_api import expect, sync_playwright

            cls.playwright = sync_playwright().start()
            cls.loop = asyncio.get_running_loop()
            cls.browser = cls.playwright.chromium.launch(
                executable_path=CHROMIUM,
                args=[
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    f"--host-resolver-rules=MAP {NETWORK_HOST} 127.0.0.1",
                ],
            )
            # Assertions wait as long as the pages' own calls do (playwright's default, 5 s,
            # was too short for a push on a loaded machine running the tests in parallel).
            expect.set_options(timeout=TIMEOUT)
        else:
            asyncio._set_running_loop(cls.loop)
        return cls.browser

    @staticmethod
    def pause():
        asyncio._set_running_loop(None)

    @classmethod
    def stop(cls):
        if cls.browser is None:
            return
        asyncio._set_running_loop(cls.loop)
        try:
            cls.browser.close()
            cls.playwright.stop()
        finally:
            cls.playwright = cls.browser = cls.loop = None
            cls.idle, cls.owners = {}, {}
            cls.pause()


class WatchedBrowser:
    """The worker's Chromium as one test sees it: each context it opens is watched for this test
    (``BrowserTestCase.watch``) and given back when the test's block ends (``close``) or when
    the test closes it; the browser stays up.

    A context given back serves the next test that asks for one with the same options, as if
    new (``reset``): a new context costs Chromium about a second of CPU (a profile, a renderer
    process, every script compiled again), most of what a browser test costs it. A context
    the test changed in a way ``reset`` does not undo (``LASTING``: its routes, listeners,
    scripts) is closed instead."""

    #: What a test may do to a context that would outlast the test: such a context is closed.
    LASTING = (
        "add_init_script",
        "expose_binding",
        "expose_function",
        "on",
        "once",
        "route",
        "route_from_har",
        "route_web_socket",
        "set_extra_http_headers",
        "set_geolocation",
    )

    def __init__(self, browser, test):
        self._browser, self._test, self._contexts = browser, test, []

    def new_context(self, **options):
        key = json.dumps(options, sort_keys=True, default=str)
        idle = Chromium.idle.setdefault(key, [])
        context = idle.pop() if idle else self._test.watch(self._browser.new_context(**options))
        Chromium.owners[context] = self._test
        self._contexts.append(context)
        context.close = partial(self.give_back, key, context)
        for name in self.LASTING:
            setattr(context, name, partial(self.changed, context, name))
        return context

    def new_page(self, **options):
        return self.new_context(**options).new_page()

    def changed(self, context, name, *args, **kwargs):
        """``context.<name>(...)``, after which ``context`` cannot serve another test."""
        context.close = partial(self.give_back, None, context)
        return getattr(type(context), name)(context, *args, **kwargs)

    def give_back(self, key, context, **_):
        if context not in self._contexts:
            return
        self._contexts.remove(context)
        Chromium.owners.pop(context, None)
        for name in ("close", *self.LASTING):
            vars(context).pop(name, None)
        if key is not None and reset(context):
            Chromium.idle.setdefault(key, []).append(context)
        else:
            quietly(context.close)

    def close(self):
        while self._contexts:
            self._contexts[-1].close()


def reset(context):
    """Make ``context`` as a new one would be, but for one page, ``KEEPER`` of the site its
    pages were on, which keeps the site's renderer process up for the next test's pages: True
    if it could (its pages were on one site, to clear its storage from)."""
    pages = context.pages
    sites = {urlsplit(page.url)[:2] for page in pages if not page.url.startswith("about:")}
    if len(sites) != 1 or next(iter(sites))[0] != "http":
        return False
    scheme, host = sites.pop()

    def clear():
        site = next(page for page in pages if page.url.startswith("http"))
        site.evaluate("() => window.localStorage.clear()")
        context.clear_permissions()
        context.set_offline(False)
        context.new_page().goto(f"{scheme}://{host}{KEEPER}")
        for page in pages:
            page.close()
        context.clear_cookies()  # the keeper's too

    return quietly(clear)


def quietly(action):
    """``action()``: True if it went through, False if it failed (a page or browser gone)."""
    try:
        action()
    except Exception:
        return False
    return True


class LiveServer:
    """The worker's one live server, for every browser test class that changes no setting (it
    forks with the settings of the moment): started by the first and stopped when the worker
    ends (``stop``, before the test databases are dropped). Each test's rows are the test's own
    (a TransactionTestCase flushes them after it); the server reads them through connections
    of its own."""

    process = None

    @classmethod
    def port(cls, host, get_application):
        if cls.process is None:
            process = FreshDaphne(host, get_application)
            process.start()
            while not process.ready.wait(timeout=1):
                if not process.is_alive():
                    raise RuntimeError("The live server stopped as it started.")
            cls.process = process
        return cls.process.port.value

    @classmethod
    def stop(cls):
        if cls.process is not None:
            cls.process.terminate()
            cls.process.join()
            cls.process = None


class BrowserTestCase(ChannelsLiveServerTestCase):
    """A live server for Chromium: ``log_in(*users)`` in ``setUp`` (once the test's rows are
    written), then ``with self.browser() as browser:`` and ``open_page(browser, username,
    path)``. A worker has one live server and one Chromium for all of them (``LiveServer``,
    ``Chromium``).

    Read the database after the ``with self.browser()`` block, not inside it: there
    playwright's event loop runs in this thread, and Django gives the ORM a connection of that
    loop's own, which nothing closes (on PostgreSQL it kept the test database from being
    dropped at the end of the run)."""

    ProtocolServerProcess = FreshDaphne

    @classmethod
    def setUpClass(cls):
        """The worker's live server (``LiveServer``), or a server of the class's own when the
        class changes settings (``override_settings``, ``modify_settings``): the server has the
        settings it was forked with."""
        if cls.own_server():
            super().setUpClass()
            return
        super(ChannelsLiveServerTestCase, cls).setUpClass()
        cls._live_server_modified_settings = modify_settings(
            ALLOWED_HOSTS={"append": cls.host}  # NETWORK_HOST: tests/settings.py
        )
        cls._live_server_modified_settings.enable()
        cls.addClassCleanup(cls._live_server_modified_settings.disable)
        cls._port = LiveServer.port(cls.host, APPLICATION)

    @classmethod
    def tearDownClass(cls):
        if cls.own_server():
            super().tearDownClass()
        else:
            super(ChannelsLiveServerTestCase, cls).tearDownClass()

    @classmethod
    def own_server(cls):
        return bool(getattr(cls, "_overridden_settings", None) or cls._modified_settings)

    #: What the watched pages reported (``watch``); checked when the test ends.
    console_errors = ()

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

    @contextmanager
    def browser(self):
        """The worker's Chromium (``Chromium``) for this test: every context it opens here
        (``new_context``, ``new_page``) is watched, the test failing at its end if any of its
        pages logged an error (``check_console``), and closed when the block ends."""
        if CHROMIUM is None:
            pytest.fail(
                "CI=true and no chromium on the PATH: the browser tests must run in CI "
                "(apt-get install chromium; never `playwright install`)."
            )
        if not isinstance(self.console_errors, list):
            self.console_errors = []
            self.addCleanup(self.check_console)
        browser = WatchedBrowser(Chromium.resume(), self)
        try:
            yield browser
        finally:
            try:
                browser.close()
            finally:
                Chromium.pause()

    def watch(self, context):
        """Record in the ``console_errors`` of the test using ``context`` (``Chromium.owners``:
        a context serves one test after another) every console error of its pages, every error
        they throw uncaught, and every violation of the Content-Security-Policy (which Chromium
        also logs as a console error: ``WATCH_CSP`` says which element and which script)."""

        def report(text):
            test = Chromium.owners.get(context)
            if test is not None:
                test.console_errors.append(text)

        def where(page):
            test = Chromium.owners.get(context)
            url = page.url if page else "?"
            return url.removeprefix(test.live_server_url) if test else url

        def console(message):
            if message.type == "error" and not expected(message):
                at = message.location
                source = f"{at.get('url', '?')}:{at.get('lineNumber', '?')}"
                report(f"console error on {where(message.page)}: {message.text} ({source})")

        def page_error(error):
            report(f"uncaught error on {where(error.page)}: {error.error}")

        def violation(source, text):
            report(f"CSP violation on {where(source['page'])}: {text}")

        context.on("console", console)
        context.on("weberror", page_error)
        context.expose_binding(REPORT_VIOLATION, violation)
        context.add_init_script(WATCH_CSP)
        context.add_init_script(COUNT_CHECKS_SWAPS)
        return context

    def take_console_errors(self):
        """What the watched pages reported so far, forgotten: for a test that caused errors on
        purpose, to check them."""
        errors, self.console_errors[:] = list(self.console_errors), []
        return errors

    def check_console(self):
        errors = self.take_console_errors()
        assert not errors, "The pages logged errors:\n" + "\n".join(errors)

    @property
    def network_url(self):
        """The worker's live server as a page on the network sees it (``NETWORK_HOST``): plain
        HTTP on an address that is not this machine's, not a secure context. Only with the
        worker's live server, which allows that host."""
        return f"http://{NETWORK_HOST}:{self._port}"

    def logged_in_page(self, browser, username, site=None):
        """A new page (in a context of its own) with ``username``'s session cookie for ``site``
        (the live server's URL unless given, e.g. ``network_url``)."""
        context = browser.new_context()
        context.add_cookies(
            [
                {
                    "name": "sessionid",
                    "value": self.cookies[username],
                    "url": site or self.live_server_url,
                }
            ]
        )
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        return page

    def open_page(self, browser, username, path, site=None):
        page = self.logged_in_page(browser, username, site)
        page.goto(f"{site or self.live_server_url}{path}")
        return page
