"""The connect benchmark (python manage.py bench_connects): its arguments, the thread split of
its CPU, py-spy's stacks summed (bench.stacks), and one tiny real run end to end, on the test
database (SQLite, or PostgreSQL + Redis in CI's other half)."""

import json
import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from bench.connects import split_cpu, thread_cpu
from bench.stacks import read, summary
from tests.bench.test_bench import bench_env


def test_wrong_arguments_are_refused_before_anything_runs():
    with pytest.raises(CommandError, match="at least 1"):
        call_command("bench_connects", sockets=0)
    with pytest.raises(CommandError, match="more open files"):
        call_command("bench_connects", sockets=10000000)


def test_the_cpu_splits_into_the_main_thread_and_the_others():
    pid = os.getpid()
    now = thread_cpu(pid)
    assert pid in now and now[pid][1] >= 0
    before = {pid: ("python", 1.0), 7: ("worker", 0.5)}
    after = {pid: ("python", 1.5), 7: ("worker", 0.75), 8: ("new", 0.25)}
    assert split_cpu(pid, before, after) == (0.5, 0.5)


def test_stacks_count_a_function_once_per_sample(tmp_path):
    path = tmp_path / "raw.txt"
    path.write_text(
        "thread (1): MainThread;run (a.py:1);f (b.py:2);f (b.py:3) 3\n"
        "thread (2): Worker;run (a.py:1);g (c.py:4) 1\n"
    )
    rows = read(path)
    assert rows[0] == ("thread (1): MainThread", ["run (a.py)", "f (b.py)", "f (b.py)"], 3)
    text = summary(rows, match=("b.py",))
    assert "4 samples" in text
    assert " 75.0 %  f (b.py)" in text  # once per sample, though twice in the stack
    assert "100.0 %  run (a.py)" in text


@pytest.mark.django_db(transaction=True)
def test_a_tiny_run_opens_and_closes_every_socket():
    command = [sys.executable, "manage.py", "bench_connects"]
    command += ["--sockets", "12", "--rooms", "3", "--rounds", "2", "--json"]
    done = subprocess.run(
        command, cwd=settings.BASE_DIR, env=bench_env(), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    assert out["config"]["sockets"] == 12
    assert len(out["rounds"]) == 2
    for round_ in out["rounds"]:
        assert (round_["opened"], round_["failed"]) == (12, 0)
        for key in ("open_s", "connect_ms", "connect_main_ms", "disconnect_ms"):
            assert isinstance(round_[key], int | float), key
