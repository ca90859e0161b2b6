"""The rule of tests/browser.py: without Chromium the browser tests skip, but under ``CI=true``
they fail, so CI cannot pass without running them."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.browser import in_ci

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
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs"]
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
