"""The rules of tests/browser.py: without Chromium the browser tests skip, but under ``CI=true``
they fail, so CI cannot pass without running them; and a page that logs an error or breaks the
Content-Security-Policy fails the test that opened it."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.browser import CHROMIUM, BrowserTestCase, in_ci, settled
from tests.conftest import make_user

ROOT = Path(__file__).resolve().parent.parent
A_BROWSER_TEST = "tests/sparetime/test_views_browser.py::TestReversalInTheBrowser"


@pytest.mark.parametrize(
    ("value", "expected"),
    [("true", True), ("True", True), ("1", True), ("yes", True), ("", False), ("false", False)],
)
def test_in_ci_reads_the_ci_variable(value, expected):
    assert in_ci({"CI": value}) is expected
    assert in_ci({}) is False


def run_without_chromium(ci):
    """pytest on a browser test, with a PATH where no chromium is found, on the default
    database (a SQLite file of its own: PostgreSQL's test database is this run's)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "CI")}
    env["PATH"] = str(ROOT / "no-such-folder")
    if ci is not None:
        env["CI"] = ci
    # One process (-n 0): starting a worker per core costs more than the one test.
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs", "-n", "0"]
    return subprocess.run(
        [*command, A_BROWSER_TEST], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


def test_without_chromium_the_browser_tests_skip_outside_ci():
    result = run_without_chromium(ci=None)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 skipped" in result.stdout
    assert "needs Debian's chromium" in result.stdout


def test_without_chromium_the_browser_tests_fail_under_ci():
    result = run_without_chromium(ci="true")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "1 failed" in result.stdout
    assert "CI=true and no chromium on the PATH" in result.stdout


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None and not in_ci(), reason="needs Debian's chromium")
class TestTheConsoleIsWatched(BrowserTestCase):
    """Every page a browser test opens is watched (tests/browser.py): what a page logs as an
    error, throws uncaught or refuses under the Content-Security-Policy fails the test."""

    def setUp(self):
        self.log_in(make_user("ana"))

    def test_a_console_error_an_uncaught_error_and_a_csp_violation_fail_the_test(self):
        with self.browser() as browser:
            # Pages of every kind of context: logged in, a context of the test's own, new_page.
            logged_in = self.open_page(browser, "ana", "/")
            own = browser.new_context().new_page()
            own.goto(f"{self.live_server_url}/rules/")
            bare = browser.new_page()
            bare.goto(f"{self.live_server_url}/accounts/login/")
            for page in (logged_in, own, bare):
                settled(page)
            assert self.console_errors == []  # the pages themselves are clean

            with logged_in.expect_console_message(lambda message: message.type == "error"):
                logged_in.evaluate("console.error('a console error')")
            with own.expect_event("pageerror"):
                own.evaluate("setTimeout(() => { throw new Error('thrown, caught by nobody'); })")
            # An empty inline style, as htmx's settle would set it; back once the page has seen
            # the violation (the watch, listening first, has reported it by then).
            bare.evaluate(
                """() => new Promise(resolve => {
                  document.addEventListener("securitypolicyviolation", resolve, {once: true});
                  document.body.setAttribute("style", "");
                })"""
            )
            browser.close()

        with pytest.raises(AssertionError) as failed:
            self.check_console()
        report = str(failed.value)
        assert "console error on /: a console error" in report
        assert "uncaught error on /rules/: " in report and "thrown, caught by nobody" in report
        # Chromium's own console error for the style, and the violation event, which says where.
        assert "console error on /accounts/login/: Applying inline style violates" in report
        assert "CSP violation on /accounts/login/: style-src-attr refused inline" in report
        assert 'sample "", on body' in report
        # Reported once: the end of this test finds nothing left.
        self.check_console()


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None and not in_ci(), reason="needs Debian's chromium")
class TestContextsGoOnCleared(BrowserTestCase):
    """A browser context a test is done with serves the next test that asks for one with the
    same options (tests/browser.py, ``WatchedBrowser``) as a new one would: signed out, its
    local storage empty, online, none of the last test's pages; one the test changed for good
    (a route, a listener, a script) is closed instead."""

    def setUp(self):
        self.log_in(make_user("ana"))

    def test_a_context_given_back_is_cleared_and_one_changed_for_good_is_closed(self):
        home = f"{self.live_server_url}/"
        with self.browser() as browser:
            page = self.open_page(browser, "ana", "/")
            context = page.context
            page.evaluate("() => window.localStorage.setItem('rollroom-theme', 'dark')")
            context.grant_permissions(["clipboard-read"], origin=self.live_server_url)
            context.set_offline(True)
            context.close()  # given back, as the end of the test's block would

            again = browser.new_context()
            assert again is context
            assert again.cookies() == []
            assert [p.url for p in again.pages] == [f"{self.live_server_url}/accounts/login/"]
            fresh = again.new_page()
            fresh.goto(home)  # online again
            assert fresh.evaluate("() => window.localStorage.length") == 0
            assert (
                "Log in" in fresh.content()
                and "ana" not in fresh.locator(".topbar nav").inner_text()
            )
            assert (
                fresh.evaluate(
                    "() => navigator.permissions.query({name: 'clipboard-read'}).then(p => p.state)"
                )
                == "prompt"
            )

            again.route("**/never/", lambda route: route.abort())
            again.close()  # a route would outlast the test: closed, not given back
            assert browser.new_context() is not again
            browser.close()
