"""deploy/: the Caddyfile as Caddy reads it, the systemd unit as systemd reads it and as it
runs, and env.example against what the settings and the Caddyfile read."""

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from rolls.management.commands.host import daphne_limits
from tests.faults import CADDY, fail_or_skip, http, start_daphne
from tests.helpers import free_port, stop

DEPLOY = Path(settings.BASE_DIR) / "deploy"


def env_example():
    """env.example's variables, as systemd's EnvironmentFile (and a shell) reads them."""
    pairs = {}
    for line in (DEPLOY / "env.example").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, value = line.partition("=")
            pairs[name] = value.strip('"')
    return pairs


def unit():
    """rollroom@.service's [Service] lines: {key: value}."""
    lines = (DEPLOY / "rollroom@.service").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line and not line.startswith("#"))


def adapted(env):
    """The Caddyfile adapted to Caddy's JSON with ``env`` (env.example's values)."""
    if not shutil.which(CADDY):
        fail_or_skip(f"{CADDY} is not installed (apt-get install caddy)")
    done = subprocess.run(
        [CADDY, "adapt", "--config", str(DEPLOY / "Caddyfile"), "--adapter", "caddyfile"],
        env={"PATH": "/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
        check=True,
    )
    assert "WARN" not in done.stderr, done.stderr
    return json.loads(done.stdout)


def test_the_caddyfile_with_env_example_balances_over_the_processes():
    env = env_example()
    config = adapted(env)
    server = config["apps"]["http"]["servers"]["srv0"]
    assert server["listen"] == ["0.0.0.0:443", "[::]:443"]
    assert server["strict_sni_host"] is True
    (site,) = server["routes"]
    assert site["match"] == [{"host": [env["ROLLROOM_DOMAIN"]]}]
    handlers = {h["handler"]: h for route in site["handle"][0]["routes"] for h in route["handle"]}
    refusal, body = handlers["static_response"], handlers["request_body"]
    encode, proxy = handlers["encode"], handlers["reverse_proxy"]
    assert refusal["status_code"] == 413
    assert body == {"handler": "request_body", "max_size": 1000000}
    assert encode["handler"] == "encode" and set(encode["encodings"]) == {"zstd", "gzip"}
    assert proxy["load_balancing"]["selection_policy"] == {"policy": "least_conn"}
    assert [u["dial"] for u in proxy["upstreams"]] == env["ROLLROOM_UPSTREAMS"].split()
    active = proxy["health_checks"]["active"]
    assert active["uri"] == "/healthz"
    # Asked every second; a process that could not be reached is left alone for 2 s
    # (tests/deploy/test_restarts.py: without them, restarts answer 502s).
    assert active["interval"] == 1_000_000_000
    assert proxy["health_checks"]["passive"]["fail_duration"] == 2_000_000_000
    assert active["headers"] == {"Host": [env["ROLLROOM_DOMAIN"]], "X-Forwarded-Proto": ["https"]}
    # A real domain's certificate comes from an ACME issuer (Let's Encrypt) with the address.
    (policy,) = config["apps"]["tls"]["automation"]["policies"]
    assert policy["subjects"] == [env["ROLLROOM_DOMAIN"]]
    assert {i["module"] for i in policy["issuers"]} >= {"acme"}
    assert all(i.get("email") == env["ROLLROOM_TLS"] for i in policy["issuers"])


def test_the_caddyfile_refuses_to_start_without_a_domain():
    env = {k: v for k, v in env_example().items() if k != "ROLLROOM_DOMAIN"}
    with pytest.raises(subprocess.CalledProcessError):
        adapted(env)


def test_env_example_names_only_variables_that_are_read():
    read = (Path(settings.BASE_DIR) / "config" / "settings.py").read_text()
    caddyfile = (DEPLOY / "Caddyfile").read_text()
    for name in env_example():
        where = caddyfile if name.startswith("ROLLROOM_") else read
        needle = "{$" + name if name.startswith("ROLLROOM_") else f'"{name}"'
        assert needle in where, f"{name} is read by nothing"


def test_the_unit_runs_daphne_as_host_does_and_stops_on_sigterm():
    service = unit()
    assert service["EnvironmentFile"] == "/etc/rollroom/env"
    assert (service["Restart"], service["KillSignal"]) == ("on-failure", "SIGTERM")
    assert service["TimeoutStopSec"] == "15"
    argv = shlex.split(service["ExecStart"])
    assert argv[0] == "/srv/rollroom/.venv/bin/daphne"
    assert argv[1:] == [*daphne_limits(), "-b", "127.0.0.1", "-p", "%i", "config.asgi:application"]


def systemd_sees(tmp_path, text):
    """What ``systemd-analyze verify`` says of the unit ``text``, instantiated for port 8001."""
    if not shutil.which("systemd-analyze"):
        pytest.skip("systemd-analyze is not installed")
    path = tmp_path / "rollroom@8001.service"
    path.write_text(text)
    done = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", str(path)], capture_output=True, text=True
    )
    return done.stdout + done.stderr


def test_systemd_reads_the_unit_without_a_complaint(tmp_path):
    text = (DEPLOY / "rollroom@.service").read_text()
    # The paths of a real install made those of this checkout, which exist here.
    here = text.replace("/srv/rollroom/.venv/bin/", str(Path(sys.executable).parent) + "/")
    here = here.replace("/srv/rollroom", str(settings.BASE_DIR))
    said = systemd_sees(tmp_path, here)
    problems = [
        line
        for line in said.splitlines()
        # This container runs no systemd and has neither its user nor its environment file.
        if not re.search(r"EnvironmentFile|rollroom\b.*user|Failed to|systemd-analyze", line)
    ]
    assert problems == [], said
    # A mistyped line is named: the check does read the unit.
    assert "Unknown key" in systemd_sees(tmp_path, here.replace("KillSignal", "KillSignul"))


@pytest.mark.django_db(transaction=True)
def test_the_units_command_serves_the_app(tmp_path):
    port = free_port()
    argv = shlex.split(unit()["ExecStart"].replace("%i", str(port)))
    argv[0] = str(Path(sys.executable).parent / "daphne")
    env = {
        k: v
        for k, v in env_example().items()
        if k.startswith("DJANGO_") and k not in ("DJANGO_SECURE",)
    }
    env["DJANGO_ALLOWED_HOSTS"] = "127.0.0.1"
    process = start_daphne(port, argv=argv, **env)
    try:
        status, _headers, body = http(port, "/healthz")
    finally:
        stop(process)
    assert (status, body) == (200, "ok")
