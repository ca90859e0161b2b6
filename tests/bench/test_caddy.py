"""The roll benchmark through Caddy over HTTPS (bench/caddy.py, deploy/Caddyfile with
``tls internal``): ``bench_rolls --through-caddy`` starting Caddy in front of daphne processes
of its own, and ``bench_rolls --url https://...`` driving a deployment started beside it, its
name mapped to 127.0.0.1 (``--resolve``) and Caddy's authority trusted (``--ca``). Short runs:
nothing lost, duplicated or misrouted, and the report's shape (what is measured behind the
proxy, and what is not); no timing is asserted.

PostgreSQL and Redis only (the deployment's several processes share them); skipped on SQLite.
Under CI=true a missing Caddy fails."""

import json
import os
import subprocess
import sys

import pytest
from django.conf import settings

import bench.caddy
from tests.faults import Caddy, database_env, fail_or_skip, start_daphne
from tests.helpers import free_port, is_number, stop

pytestmark = [
    pytest.mark.skipif(
        not os.environ.get("DATABASE_URL", "").startswith("postgres")
        or not os.environ.get("REDIS_URL"),
        reason="needs PostgreSQL and Redis: set DATABASE_URL=postgres://... and REDIS_URL=redis://...",
    ),
    pytest.mark.django_db(transaction=True),
]

DOMAIN = bench.caddy.DOMAIN
#: A short run: every room has sockets on both processes behind Caddy.
SHORT = ["--rooms", "2", "--clients", "2", "--rate", "5", "--seconds", "1", "--json"]


def bench_env():
    """The environment of a benchmark run on the test database."""
    return {**os.environ, **database_env()}


def bench_rolls(*args, env=None):
    return subprocess.run(
        [sys.executable, "manage.py", "bench_rolls", *args],
        cwd=settings.BASE_DIR,
        env=env or bench_env(),
        capture_output=True,
        text=True,
        timeout=180,
    )


def assert_all_delivered(phase):
    """Each of the run's five rolls reached every socket of its room once, and no other."""
    assert phase["sent"] == phase["delivered"] == 5, phase
    counts = {key: phase[key] for key in ("lost", "duplicated", "misrouted", "errors")}
    assert counts == dict.fromkeys(counts, 0), phase


def test_through_caddy_starts_caddy_in_front_of_its_servers_and_measures_both():
    """``--through-caddy --servers 2``: every phase over HTTPS and wss through Caddy to two
    daphne processes; the CPU of both processes and of Caddy, per roll."""
    if not bench.caddy.installed():
        fail_or_skip(f"{bench.caddy.CADDY} is not installed (apt-get install caddy)")
    done = bench_rolls("--through-caddy", "--servers", "2", *SHORT)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    config = out["config"]
    assert config["proxy"] == "caddy"
    assert (config["servers"], config["measured"]) == (2, 2)
    [endpoint] = config["endpoints"]
    assert endpoint.startswith(f"https://{DOMAIN}:")
    assert (config["database"], config["layer"]) == ("postgresql", "RedisChannelLayer")
    for name in ("app", "floor_http", "floor_channels", "floor_websockets"):
        assert_all_delivered(out[name])
    app = out["app"]
    assert len(app["cpu_s_by_server"]) == 2 and all(is_number(c) for c in app["cpu_s_by_server"])
    assert app["cpu_s"] > 0
    # Caddy's CPU beside daphne's, in each phase through it; the raw floor is not through it.
    for name in ("app", "floor_http", "floor_channels"):
        for key in ("cpu_ms_per_roll", "proxy_cpu_ms_per_roll", "pg_cpu_ms_per_roll"):
            assert is_number(out[name][key]) and out[name][key] >= 0, (name, key)
    # (Five rolls may cost Caddy less than the kernel's clock tick: 0 is a figure too.)
    assert "proxy_cpu_ms_per_roll" not in out["floor_websockets"]
    assert out["notes"] == [
        "floor_websockets: a plain ws server on loopback, neither through the proxy nor over "
        "TLS (floor_django, floor_http and floor_channels are)"
    ]


@pytest.fixture
def deployment(tmp_path):
    """Caddy (tests/faults.py) in front of two daphne processes serving the site's own
    application, configured as /etc/rollroom/env would, on the test database and Redis."""
    ports = [free_port(), free_port()]
    caddy = Caddy(tmp_path, DOMAIN, [f"127.0.0.1:{port}" for port in ports])
    env = {**caddy.upstream_env(), "REDIS_URL": os.environ["REDIS_URL"], "DJANGO_DEBUG": "0"}
    processes = []
    try:
        processes = [start_daphne(port, **env) for port in ports]
        caddy.start()
        yield caddy
    finally:
        caddy.stop()
        for process in processes:
            stop(process)


def test_url_over_https_drives_a_running_deployment_through_its_proxy(deployment):
    """``--url https://rollroom.test:PORT --resolve rollroom.test:127.0.0.1 --ca ROOT``: the
    rolls go through Caddy; the process at the URL's port is Caddy, measured as the proxy,
    and the processes behind it are not measured (and the report says so)."""
    caddy = deployment
    url = ["--url", caddy.url(), "--resolve", f"{DOMAIN}:127.0.0.1", "--skip-floors"]
    done = bench_rolls(*url, "--ca", str(caddy.root_certificate), *SHORT)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    config = out["config"]
    assert config["endpoints"] == [caddy.url()]
    assert config["proxy"] == "caddy"
    assert (config["servers"], config["measured"]) == (1, 0)
    app = out["app"]
    assert_all_delivered(app)
    # daphne's CPU and memory: not measured (no key; "-" in the table).
    assert not {"cpu_s", "cpu_ms_per_roll", "cpu_s_by_server"} & set(app)
    assert app["rss_peak_mb"] is None
    assert is_number(app["proxy_cpu_ms_per_roll"]) and app["proxy_cpu_ms_per_roll"] >= 0
    assert app["pg_cpu_ms_per_roll"] is None
    assert out["notes"] == [
        f"{caddy.url()}: port {caddy.https_port} is caddy's (pid {caddy.pid}), a proxy: its CPU "
        "is the proxy's (proxy_cpu_*); the processes behind it are not measured",
        "PostgreSQL's backends: measured only for servers the benchmark starts (pg_cpu_* -)",
    ]
    assert "floor_http" not in out


def test_url_over_https_trusts_ssl_cert_file_and_refuses_an_unknown_authority(deployment):
    """Without ``--ca`` the system's authorities are trusted, or SSL_CERT_FILE's: Caddy's own
    then, and without it the run stops at the first connection, naming the failure."""
    caddy = deployment
    url = ["--url", caddy.url(), "--resolve", f"{DOMAIN}:127.0.0.1", "--skip-floors"]
    tiny = ["--rooms", "1", "--clients", "1", "--rate", "5", "--seconds", "0.2", "--json"]
    env = {k: v for k, v in bench_env().items() if k not in ("SSL_CERT_FILE", "SSL_CERT_DIR")}
    done = bench_rolls(*url, *tiny, env={**env, "SSL_CERT_FILE": str(caddy.root_certificate)})
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout)["app"]["lost"] == 0

    done = bench_rolls(*url, *tiny, env=env)
    assert done.returncode != 0
    assert "CERTIFICATE_VERIFY_FAILED" in done.stderr
