"""Server processes of the benchmark: start (pinned to a core), wait, measure, stop."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import time

from django.conf import settings
from django.utils.crypto import get_random_string

from rolls.management.commands.host import daphne_limits

from . import meters

TICKS = os.sysconf("SC_CLK_TCK")
#: Environment variable of a server's channel layer prefix (read by bench/settings.py).
LAYER_PREFIX = "ROLLROOM_BENCH_LAYER_PREFIX"


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def free_ports(count):
    """``count`` distinct free ports of 127.0.0.1 (all bound at once while chosen)."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def pinned(command, cpu):
    """``command`` run on core ``cpu`` (or on the cores of a collection) through taskset
    (unpinned without cpu or taskset)."""
    if cpu is None or not shutil.which("taskset"):
        return command
    cores = ",".join(map(str, sorted(cpu))) if isinstance(cpu, set | list | tuple) else str(cpu)
    return ["taskset", "-c", cores, *command]


def generator_core(server_cpu):
    """A core of this process other than the server's, or None when there is none."""
    if server_cpu is None:
        return None
    others = sorted(os.sched_getaffinity(0) - {server_cpu})
    return others[0] if others else None


class Process:
    """A child process whose output goes to ``log_path``; stopped with SIGTERM, then SIGKILL."""

    def __init__(self, command, *, log_path, env=None, cwd=None):
        self.log_path = log_path
        with open(log_path, "ab") as log:
            self.popen = subprocess.Popen(
                command,
                env=env,
                cwd=cwd,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # a Ctrl-C reaches the bench only, which stops this
            )
        self.pid = self.popen.pid

    def wait_listening(self, port, timeout=30.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.popen.poll() is not None:
                raise RuntimeError(f"the server exited ({self.popen.returncode}):\n{self.tail()}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"the server did not listen on port {port}:\n{self.tail()}")

    def tail(self, lines=30):
        return tail(self.log_path, lines)

    def stop(self):
        stop(self.popen)


def tail(path, lines=30):
    """The last ``lines`` lines of the log file ``path`` ("" when it cannot be read)."""
    try:
        with open(path, errors="replace") as log:
            return "".join(log.readlines()[-lines:])
    except OSError:
        return ""


def stop(popen, timeout=5):
    """Stop the child ``popen``: SIGTERM, then SIGKILL after ``timeout`` seconds."""
    if popen.poll() is None:
        popen.send_signal(signal.SIGTERM)
        try:
            popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            popen.kill()
            popen.wait()


def cpu_seconds(pid):
    """User + system CPU seconds of process ``pid`` so far (None when it cannot be read)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime (fields 14 and 15)


def peak_rss_mb(pid):
    """The peak resident set size (VmHWM) of ``pid`` in MB, or None."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def pid_listening(port):
    """The pid of the local process listening on TCP ``port`` (for ``--url``), or None."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as rows:
                next(rows)
                for row in rows:
                    cols = row.split()
                    if cols[3] == "0A" and int(cols[1].rsplit(":", 1)[1], 16) == port:
                        inodes.add(f"socket:[{cols[9]}]")
        except OSError:
            continue
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                if os.readlink(f"/proc/{pid}/fd/{fd}") in inodes:
                    return int(pid)
        except OSError:
            continue
    return None


def process_name(pid):
    """The name of process ``pid`` (``/proc/PID/comm``: ``python3``, ``daphne``, ``caddy``), or
    None."""
    try:
        with open(f"/proc/{pid}/comm") as comm:
            return comm.read().strip()
    except OSError:
        return None


def is_python(name):
    """Whether a process named ``name`` (``process_name``) is a Python server (daphne run as
    ``python -m daphne`` or by its script), not a proxy in front of one."""
    return bool(name) and (name.startswith("python") or name == "daphne")


def python_module(module, *args):
    return [sys.executable, "-m", module, *map(str, args)]


def start_daphne(application, *, cpu, log_path, application_name, args=(), env=None):
    """A daphne process serving ``application`` on a free port of 127.0.0.1, pinned to core
    ``cpu``, with the websocket limits ``manage.py host`` gives it and its own ``args``; its
    database connections named ``application_name`` (bench/meters.py) and its channel layer's
    keys under a fresh prefix of its own (bench/settings.py), ``env`` over this environment.
    Returns (the process, its port) once it listens; stopped if it does not."""
    port = free_port()
    command = python_module("daphne", "-b", "127.0.0.1", "-p", port, *daphne_limits(), *args)
    process = Process(
        pinned([*command, application], cpu),
        log_path=log_path,
        env={
            **os.environ,
            meters.APPLICATION_NAME: application_name,
            LAYER_PREFIX: f"bench-{get_random_string(8).lower()}",
            **(env or {}),
        },
        cwd=settings.BASE_DIR,
    )
    try:
        process.wait_listening(port)
    except Exception:
        process.stop()
        raise
    return process, port
