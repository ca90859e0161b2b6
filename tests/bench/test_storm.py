"""The reconnect storm (python manage.py bench_storm, bench/storm.py, bench/storm_client.py):
the client's page model (static/js/site.js's waits, static/js/room.js's log), and one tiny real
run: two daphne processes, one stopped and started again, every socket back with every entry
once. No timing is asserted.

The run needs Redis (two processes share their rooms through it): REDIS_URL's (the worker's
database) when set, else a redis-server of the test's own (missing: a skip, a failure under
CI=true)."""

import asyncio
import json
import os
import random
import subprocess
import sys

import pytest
from django.conf import settings
from websockets.asyncio.server import serve

from bench import storm_client
from bench.storm_client import REOPENED, Page, Run, wait_after
from config import admission
from tests.bench.test_bench import bench_env
from tests.faults import RedisServer
from tests.helpers import is_number

# The page model -----------------------------------------------------------------------------


def test_waits_follow_site_js():
    """The first try within 125-250 ms, doubling, never over 2.5 s for eight tries in a row,
    then up to 10 s; 4503 from 1 s to 10 s."""
    rng = random.Random(4)
    steps = [(0, 0.25), (1, 0.5), (2, 1.0), (3, 2.0), (4, 2.5), (7, 2.5), (8, 10), (9, 10)]
    for code in (4012, 1006):
        for retries, most in steps:
            waits = [wait_after(code, retries, rng) for _ in range(200)]
            assert most / 2 <= min(waits) and max(waits) <= most
    assert 5 <= wait_after(4503, 5, rng) <= 10
    assert set(REOPENED) == {1006, 1011, 1012, 1013, 4503, 4012}


def test_a_turn_is_kept_within_its_second():
    """A socket given its turn (config/admission.py: TRY_AGAIN_IN + s) comes back within the
    s-th second, at a random moment of it, as static/js/site.js does."""
    rng = random.Random(5)
    for seconds in (1, 7, storm_client.LATEST):
        waits = [wait_after(storm_client.TRY_AGAIN_IN + seconds, 3, rng) for _ in range(200)]
        assert seconds - 1 <= min(waits) and max(waits) <= seconds
        assert max(waits) - min(waits) > 0.8  # spread over the second
    page = Page(Run([]), 0, 0, "ws://x/", "", "http://x", True)
    assert 2 <= page.closed(storm_client.TRY_AGAIN_IN + 3) <= 3


def test_the_waits_after_4503_count_from_the_first_4503_in_a_row():
    """A page that tried while its process restarted, then is asked to wait by the process
    restarted, waits 1 s first, not 10 s at once."""
    page = Page(Run([]), 0, 0, "ws://x/", "", "http://x", True)
    for _ in range(4):  # refused while the process restarts
        page.closed(1006)
    assert 0.5 <= page.closed(4503) <= 1
    assert 1 <= page.closed(4503) <= 2
    assert page.closed(1006) <= 2.5  # the seventh try: still within 2.5 s
    assert 0.5 <= page.closed(4503) <= 1  # in a row again from the first


def test_the_page_model_has_site_js_numbers():
    """The model's numbers are those of static/js/site.js, which has them in its own words."""
    js = (settings.BASE_DIR / "static" / "js" / "site.js").read_text()
    first, most = storm_client.WAITS[storm_client.TRY_AGAIN_LATER]
    assert f"const first = busy ? {first} : {storm_client.RESTART_WAITS[0]};" in js
    slow, swift = storm_client.SLOW_MOST, storm_client.RESTART_WAITS[1]
    assert most == slow
    assert f"const most = busy || n >= SWIFT ? {slow} : {swift};" in js
    assert f"const SWIFT = {storm_client.SWIFT};" in js
    assert f"const SETTLED = {round(storm_client.SETTLED * 1000)};" in js
    assert f"const TRY_AGAIN_IN = {storm_client.TRY_AGAIN_IN};" in js
    assert f"const LATEST = {storm_client.LATEST};" in js
    assert storm_client.TRY_AGAIN_IN == admission.TRY_AGAIN_IN
    assert storm_client.LATEST == admission.LATEST


def test_a_socket_closed_before_its_first_frame_is_a_refusal_not_an_open(monkeypatch):
    """As static/js/site.js: a socket accepted and closed at once (config/admission.py's 4503)
    leaves the count of tries growing and the page not open; one that hears a frame is open,
    its count of tries reset. Real sockets, on a websockets server of the test's own."""
    monkeypatch.setattr(storm_client, "wait_after", lambda code, retries: 0)

    async def scenario(answer, tries):
        arrived, enough = [], asyncio.Event()

        async def handler(socket_):
            arrived.append(socket_)
            if len(arrived) == tries:
                enough.set()
            await answer(socket_)

        async with serve(handler, "127.0.0.1", 0) as server:
            port = server.sockets[0].getsockname()[1]
            page = Page(Run([]), 0, 0, f"ws://127.0.0.1:{port}/", "", "http://x", True)
            page.retries = 5
            page.task = asyncio.create_task(page.live())
            await asyncio.wait_for(enough.wait(), 10)
            if tries == 1:
                await asyncio.wait_for(page.opened.wait(), 10)
            page.task.cancel()
            await asyncio.gather(page.task, return_exceptions=True)
            return page

    async def turned_away(socket_):
        await socket_.close(4503)

    async def joined(socket_):
        await socket_.send("<div id='presence'></div>")
        await socket_.wait_closed()

    page = asyncio.run(scenario(turned_away, 4))
    assert page.retries >= 5 + 3 and page.codes[4503] >= 3, (page.retries, page.codes)
    assert not page.opened.is_set()
    page = asyncio.run(scenario(joined, 1))
    assert page.retries == 0 and page.frames == 1


def entry(seq, whisper=False):
    mark = " data-whisper" if whisper else ""
    return (
        f'<div hx-swap-oob="beforeend:#log"><article id="entry-{seq}{"w" if whisper else ""}" '
        f'class="entry message" data-seq="{seq}" data-from="1"{mark}></article></div>'
    )


def test_the_log_drops_duplicates_and_reopens_once_per_gap():
    page = Page(Run([]), 0, 0, "ws://x/", "", "http://x", True)
    assert page.frame(entry(1)) and page.frame(entry(2))
    assert page.frame(entry(2))  # again: dropped
    assert page.duplicated == 1
    assert page.frame(entry(2, whisper=True))  # a whisper after 2: no gap
    assert not page.frame(entry(4))  # 3 missing: reopen from 2
    assert page.query_url() == "ws://x/?after=2"
    assert page.frame(entry(4))  # the same gap again: shown as it is
    assert page.shown == [1, 2, 2, 4] and page.gaps == 1


# A tiny real run ----------------------------------------------------------------------------


@pytest.fixture
def redis_url():
    if os.environ.get("REDIS_URL"):
        yield os.environ["REDIS_URL"]
        return
    server = RedisServer().start()
    try:
        yield server.url(0)
    finally:
        server.stop()


@pytest.mark.django_db(transaction=True)
def test_a_restart_brings_every_socket_back_with_every_entry_once(redis_url):
    command = [sys.executable, "manage.py", "bench_storm", "--rooms", "2", "--held", "5"]
    command += ["--others", "2", "--processes", "2", "--rate", "10", "--gets", "4"]
    command += ["--before", "0.5", "--after", "0.5", "--limit", "30", "--json"]
    done = subprocess.run(
        command,
        cwd=settings.BASE_DIR,
        env={**bench_env(), "REDIS_URL": redis_url},
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    assert out["config"]["layer"] == "RedisChannelLayer"
    assert (out["sockets"], out["watched"], out["client_processes"]) == (14, 10, 2)
    assert out["caught_up"] == 10 and out["not_caught"] == 0, out
    assert (out["lost"], out["duplicated"], out["out_of_order"]) == (0, 0, 0), out
    assert out["client_errors"] == []
    # SIGTERM: every socket of A was closed with 4012 (config/shutdown.py), then came back.
    assert out["close_codes"]["4012"] == 10
    assert out["entries_total"] >= out["entries_when_listening"] > 0
    for key in ("catch_up_p50_s", "catch_up_p99_s", "catch_up_max_s", "stop_to_listen_s"):
        assert is_number(out[key]), key
    for key in ("pages_steady", "writes_steady", "writes_during_storm"):
        assert out[key]["errors"] == 0, out[key]
    assert out["pages_steady"]["count"] > 0
