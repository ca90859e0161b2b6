"""The idle-sockets benchmark (python manage.py bench_sockets): its arguments, and one tiny real
run end to end, on the test database (SQLite, or PostgreSQL + Redis in CI's other half)."""

import json
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from bench.crowd import Crowd
from bench.sockets import counts
from tests.bench.test_bench import bench_env


def test_counts_are_positive_and_comma_separated():
    assert counts("1000,5000, 10000") == [1000, 5000, 10000]
    for wrong in ("", "0", "10,-1"):
        with pytest.raises(CommandError, match="--sockets"):
            counts(wrong)


def test_wrong_arguments_are_refused_before_anything_runs():
    with pytest.raises(CommandError, match="--room-sockets at least 2"):
        call_command("bench_sockets", room_sockets=1)
    with pytest.raises(CommandError, match="--holders is at least 1"):
        call_command("bench_sockets", holders=0)
    with pytest.raises(CommandError, match="--moves is at least 1"):
        call_command("bench_sockets", moves=0)
    with pytest.raises(CommandError, match="more open files than the limit"):
        call_command("bench_sockets", sockets="10000000")


def test_the_crowd_spreads_over_rooms_then_over_members_as_tabs():
    crowd = Crowd([11, 12], [["a0", "a1"], ["b0"]], [])
    targets = crowd.targets(5, lambda path: "ws://x" + path)
    cookie = settings.SESSION_COOKIE_NAME
    assert targets == [
        ("ws://x/ws/campaigns/11/?after=0", f"{cookie}=a0"),
        ("ws://x/ws/campaigns/12/?after=0", f"{cookie}=b0"),
        ("ws://x/ws/campaigns/11/?after=0", f"{cookie}=a1"),
        ("ws://x/ws/campaigns/12/?after=0", f"{cookie}=b0"),  # b0's second tab
        ("ws://x/ws/campaigns/11/?after=0", f"{cookie}=a0"),
    ]


@pytest.mark.django_db(transaction=True)
def test_a_tiny_run_opens_every_socket_and_loses_no_event():
    command = [
        sys.executable,
        "manage.py",
        "bench_sockets",
        *("--sockets", "6,20", "--rooms", "2", "--room-sockets", "4", "--idle", "0.3"),
        *("--rolls", "2", "--roll-rate", "20", "--moves", "2", "--move-rate", "20"),
        *("--turns", "2", "--turn-rate", "20", "--holders", "2", "--json"),
    ]
    done = subprocess.run(
        command, cwd=settings.BASE_DIR, env=bench_env(), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    assert out["config"]["room_sockets"] == 4
    assert out["config"]["nofile"] >= 64
    assert [level["sockets"] for level in out["levels"]] == [6, 20]
    for level in out["levels"]:
        assert level["opened"] == level["sockets"]
        assert level["failed"] == level["closed_by_server"] == level["closed_while_idle"] == 0
        assert level["close_codes"] == {}
        assert level["settle_s"] >= 0
        for key in ("open_s", "kb_per_socket", "idle_cpu_pct", "fds_after", "rss_after_mb"):
            assert isinstance(level[key], int | float), key
        assert level["fds_after"] >= level["fds_before"] + level["sockets"]
        for phase in ("alone", "beside"):
            assert set(level[phase]) == {"roll", "move", "turn"}
            for event in level[phase].values():
                assert (event["sent"], event["delivered"]) == (2, 2)
                assert event["lost"] == event["errors"] == 0
                for key in ("p50_ms", "p90_ms", "max_ms", "cpu_ms_per_event"):
                    assert isinstance(event[key], int | float), key
        assert "cpu_ms_per_event_net" in level["beside"]["roll"]
