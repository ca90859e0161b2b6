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
from django.urls import reverse

from core.images import MAX_BYTES
from rolls.management.commands.host import daphne_limits
from scene.services import HANDOUT_TEXT_MAX
from tests.faults import CADDY, fail_or_skip, http, start_daphne
from tests.helpers import free_port, stop

DEPLOY = Path(settings.BASE_DIR) / "deploy"

#: The Caddyfile's paths of the forms that carry a picture, and its body limits: a body that
#: declares a length matching the pattern is refused (413), one sent without a length is cut
#: after the limit (bytes).
UPLOADS = r"^/campaigns/[0-9]+/(scenes/add|scenes/[0-9]+/tokens/add|gm/handouts/share)/$"
UPLOAD_LIMIT = 9_000_000
UPLOAD_TOO_LARGE = r"^(9[0-9]{6}|[0-9]{8,})$"
TOO_LARGE = r"^[0-9]{7,}$"


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


def handled(routes, name):
    """The (matchers, handler) of each of ``routes``' handlers named ``name``, in order."""
    return [
        (route.get("match"), handler)
        for route in routes
        for handler in route["handle"]
        if handler["handler"] == name
    ]


def test_the_caddyfile_with_env_example_balances_over_the_processes():
    env = env_example()
    config = adapted(env)
    server = config["apps"]["http"]["servers"]["srv0"]
    assert server["listen"] == ["0.0.0.0:443", "[::]:443"]
    assert server["strict_sni_host"] is True
    (site,) = server["routes"]
    assert site["match"] == [{"host": [env["ROLLROOM_DOMAIN"]]}]
    routes = site["handle"][0]["routes"]
    handlers = {h["handler"]: h for route in routes for h in route["handle"]}
    encode, proxy = handlers["encode"], handlers["reverse_proxy"]
    # The body limits: 9 MB on the three uploads' paths, 1 MB on every other (both the declared
    # length's 413 and the cut of a body sent without one; test_body_limits_* below).
    upload = {"path_regexp": {"pattern": UPLOADS}}
    other = {"not": [upload]}
    assert handled(routes, "request_body") == [
        ([upload], {"handler": "request_body", "max_size": UPLOAD_LIMIT}),
        ([other], {"handler": "request_body", "max_size": 1_000_000}),
    ]
    refusal = {"handler": "static_response", "status_code": 413, "body": "Request too large."}
    refusal = {**refusal, "close": True}
    assert handled(routes, "static_response") == [
        ([{**upload, "header_regexp": {"Content-Length": {"pattern": UPLOAD_TOO_LARGE}}}], refusal),
        ([{**other, "header_regexp": {"Content-Length": {"pattern": TOO_LARGE}}}], refusal),
    ]
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


def test_body_limits_let_the_uploads_carry_a_whole_picture_and_nothing_else_more():
    """The patterns (RE2, as Caddy reads them, and Python's re agree on these): the three upload
    routes and no other path take 9 MB, which holds the largest picture the app keeps with its
    form around it; every other path takes less than 1 MB."""
    uploads = [
        reverse("scene_add", args=[7]),
        reverse("token_add", args=[7, 12]),
        reverse("scene_handout_share", args=[7]),
    ]
    others = [
        reverse("talk_say", args=[7]),
        reverse("scenes", args=[7]),
        reverse("scene_grid", args=[7, 12]),
        reverse("scene_handouts_gm", args=[7]),
        reverse("login"),
        "/campaigns/7/scenes/add/x/",
        "/x/campaigns/7/scenes/add/",
        "/campaigns/7/scenes/add",
        "/campaigns/x/scenes/add/",
    ]
    assert [bool(re.search(UPLOADS, path)) for path in uploads] == [True] * 3
    assert [path for path in others if re.search(UPLOADS, path)] == []
    # The largest picture, its form's largest text (a handout's, 4 bytes a character at most)
    # and the multipart's boundaries and part headers (far below 100 kB) fit.
    assert MAX_BYTES + 4 * HANDOUT_TEXT_MAX + 100_000 < UPLOAD_LIMIT

    def refused(pattern, length):
        return bool(re.search(pattern, str(length)))

    assert [refused(UPLOAD_TOO_LARGE, n) for n in (0, MAX_BYTES, 8_999_999)] == [False] * 3
    assert [refused(UPLOAD_TOO_LARGE, n) for n in (9_000_000, 9_999_999, 10**8)] == [True] * 3
    assert [refused(TOO_LARGE, n) for n in (0, 999_999)] == [False] * 2
    assert [refused(TOO_LARGE, n) for n in (1_000_000, MAX_BYTES, 10**8)] == [True] * 3


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
