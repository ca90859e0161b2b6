"""The time to every screen (python manage.py bench_screens): a tiny real run in Chromium, three
pages and three events, every event on every other page with each part of its time. Without
Chromium it skips, except under CI=true, where that is a failure (tests/browser.py)."""

import json
import subprocess
import sys

import pytest
from django.conf import settings

from tests.bench.test_bench import bench_env
from tests.browser import CHROMIUM, in_ci

PARTS = ("frame_ms", "swap_ms", "scripts_ms", "paint_ms", "shown_ms", "screen_ms")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_every_event_reaches_every_other_page_with_its_parts():
    if CHROMIUM is None:
        if in_ci():
            pytest.fail("CI=true and no chromium on the PATH (apt-get install chromium).")
        pytest.skip("needs Debian's chromium")
    command = [sys.executable, "manage.py", "bench_screens", "--pages", "3", "--events", "3"]
    command += ["--warmups", "1", "--rate", "2", "--idle", "0.2", "--grace", "10", "--json"]
    done = subprocess.run(
        command, cwd=settings.BASE_DIR, env=bench_env(), capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    assert out["page_errors"] == {}
    events = [e for e in out["events"] if not e["warmup"]]
    assert [e["kind"] for e in events] == ["free_roll", "talk", "check"]
    for event in events:
        assert event["post_status"] in (200, 204)  # a check's card comes by the socket
        assert event["reached"] == 2
        assert set(event["screens"]) == {"gm", "player-1"}
        for screen in event["screens"].values():
            assert screen["kind_ok"]
            assert all(screen[part] is not None for part in PARTS)
        for key in ("to_post_ms", "post_ms", "server_ms", "reference_ms", "last_screen_ms"):
            assert event[key] is not None
    summary = out["summary"]
    assert summary["events"] == 3 and summary["reached_every_page"] == 3
    assert summary["wrong_kind"] == 0
    for key in ("every_screen", "screen", "server", "post", "reference"):
        assert summary[key]["count"] >= 3
    assert set(summary["parts"]) == set(PARTS) - {"screen_ms"}
    assert summary["over_server_p50_ms"] is not None
