"""``manage.py host``: migrate, collectstatic and daphne, as a GM serves Rollroom for friends.
The server runs in a process of its own on 127.0.0.1, with a database, static files and secret
key of its own in a temporary folder, and the environment of a fresh machine."""

import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from io import StringIO

import pytest
from daphne.cli import CommandLineInterface
from django.conf import settings
from django.core.management import CommandError

from rolls.management.commands import host
from rolls.management.commands.host import parse_addrport
from tests.helpers import free_port, stop


@pytest.mark.parametrize(
    ("addrport", "expected"),
    [
        ("8000", ("0.0.0.0", 8000)),
        ("127.0.0.1:9000", ("127.0.0.1", 9000)),
        ("[::1]:8001", ("::1", 8001)),
    ],
)
def test_address_and_port(addrport, expected):
    assert parse_addrport(addrport) == expected


@pytest.mark.parametrize("addrport", ["", "eight", "127.0.0.1:", "127.0.0.1:70000"])
def test_a_bad_address_is_refused(addrport):
    with pytest.raises(CommandError, match="not a port or an address:port"):
        parse_addrport(addrport)


def greeting(address, monkeypatch, lan="192.168.1.23", port=8000):
    monkeypatch.setattr(host, "network_address", lambda: lan)
    out = StringIO()
    host.Command(stdout=out).greet(address, port, "python manage.py host")
    return out.getvalue()


def test_the_greeting_says_how_to_let_friends_in(monkeypatch, settings):
    settings.ALLOWED_HOSTS = ["localhost", "127.0.0.1", "[::1]"]
    text = greeting("0.0.0.0", monkeypatch)
    assert "Rollroom serves http://127.0.0.1:8000/" in text
    assert (
        "DJANGO_ALLOWED_HOSTS='localhost,127.0.0.1,[::1],192.168.1.23' python manage.py host"
        in text
    )
    assert "Plain HTTP; for HTTPS" in text


def test_the_line_to_copy_is_the_command_that_was_run_with_the_hosts_added(
    monkeypatch, settings, tmp_path
):
    """``host 0.0.0.0:8723`` run by a Python of its own: the line keeps the address and port
    and names that Python (a bare ``python`` may be another, or none); pasted into a shell, it
    runs that Python with the same arguments and the variable set."""
    settings.ALLOWED_HOSTS = ["localhost", "127.0.0.1", "[::1]"]
    # A "Python" in a folder whose name needs quoting, which says what it was given.
    python = tmp_path / "my games" / "python"
    python.parent.mkdir()
    python.write_text('#!/bin/sh\nprintf "%s\\n" "$DJANGO_ALLOWED_HOSTS" "$@"\n')
    python.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(python))
    monkeypatch.setattr(sys, "argv", ["manage.py", "host", "0.0.0.0:8723"])
    monkeypatch.setattr(host, "network_address", lambda: "192.168.1.23")
    out = StringIO()
    host.Command(stdout=out).greet("0.0.0.0", 8723, host.command_line())
    text = out.getvalue()
    assert "Friends on your network would open http://192.168.1.23:8723/" in text
    line = text.split("start again:\n", 1)[1].splitlines()[0].strip()
    assert line == (
        f"DJANGO_ALLOWED_HOSTS='localhost,127.0.0.1,[::1],192.168.1.23' '{python}' "
        "manage.py host 0.0.0.0:8723"
    )
    ran = subprocess.run(
        ["sh", "-c", line], capture_output=True, text=True, check=True, env={"PATH": "/bin"}
    )
    assert ran.stdout.splitlines() == [
        "localhost,127.0.0.1,[::1],192.168.1.23",
        "manage.py",
        "host",
        "0.0.0.0:8723",
    ]


def test_the_line_to_copy_of_python_m_django(monkeypatch):
    monkeypatch.setattr(sys, "executable", "/usr/bin/python3")
    argv = ["/venv/lib/python3.11/site-packages/django/__main__.py", "host", "[::]:8000"]
    assert host.command_line(argv) == "/usr/bin/python3 -m django host '[::]:8000'"


def test_the_greeting_gives_friends_the_address_once_allowed(monkeypatch, settings):
    settings.ALLOWED_HOSTS = ["localhost", "192.168.1.23"]
    text = greeting("0.0.0.0", monkeypatch)
    assert "Friends on your network: http://192.168.1.23:8000/" in text
    assert "DJANGO_ALLOWED_HOSTS=" not in text


def test_the_greeting_on_loopback_says_only_this_computer_reaches_it(monkeypatch):
    assert "Only this computer reaches it" in greeting("127.0.0.1", monkeypatch)


def test_daphne_gets_the_settings_websocket_limits(monkeypatch, settings):
    """The command replaces itself with daphne, whose own command line reads the settings'
    limits from its arguments (without them daphne reads frames of up to 1 MiB)."""
    settings.DAPHNE_WEBSOCKET_MAX_MESSAGE_SIZE = 3000
    settings.DAPHNE_WEBSOCKET_MAX_FRAME_SIZE = 2000
    executed = []
    monkeypatch.setattr(host, "call_command", lambda *args, **kwargs: None)
    monkeypatch.setattr(host, "network_address", lambda: None)
    monkeypatch.setattr(host.os, "execv", lambda path, argv: executed.append(argv))
    host.Command(stdout=StringIO()).handle(addrport="127.0.0.1:8123")
    [argv] = executed
    assert argv[:3] == [sys.executable, "-m", "daphne"]
    args = CommandLineInterface().parser.parse_args(argv[3:])
    assert (args.host, args.port, args.application) == (
        "127.0.0.1",
        8123,
        "config.asgi:application",
    )
    assert (args.websocket_max_message_size, args.websocket_max_frame_size) == (3000, 2000)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def get(port, path, host=None):
    """(status, headers, body) of GET ``path``, redirects not followed."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
    if host:
        request.add_header("Host", host)
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(request, timeout=10) as response:
            return response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read().decode()


@pytest.fixture
def hosted(tmp_path):
    """``manage.py host 127.0.0.1:PORT`` running, as (port, the folder of its files, its
    output so far)."""
    port = free_port()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_", "REDIS_", "SQLITE_"))
    }
    env.update(
        SQLITE_PATH=str(tmp_path / "db.sqlite3"),
        DJANGO_STATIC_ROOT=str(tmp_path / "static"),
        DJANGO_SECRET_KEY_FILE=str(tmp_path / "data" / "secret_key"),
    )
    log = tmp_path / "host.log"
    with open(log, "w") as out:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "host", f"127.0.0.1:{port}"],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                pytest.fail(f"manage.py host exited with {process.returncode}:\n{log.read_text()}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"manage.py host did not listen:\n{log.read_text()}")
                time.sleep(0.2)
        yield port, tmp_path, log.read_text
    finally:
        stop(process)


def test_host_serves_the_app_with_debug_off_over_plain_http(hosted):
    port, folder, output = hosted

    status, headers, _ = get(port, "/")
    assert status == 302
    assert headers["Location"] == "/accounts/login/?next=/"  # no redirect to HTTPS

    status, headers, page = get(port, "/accounts/login/")
    assert status == 200
    cookie = headers["Set-Cookie"]
    assert "csrftoken=" in cookie and "Secure" not in cookie
    # Static files through whitenoise, from collectstatic's manifest.
    stylesheet = re.search(r'href="(/static/css/rollroom\.[0-9a-f]+\.css)"', page).group(1)
    status, headers, css = get(port, stylesheet)
    assert status == 200 and headers["Content-Type"].startswith("text/css")
    assert "--accent" in css

    # DEBUG off: an unknown host gets the page that says how to add it, no debug page.
    status, _, page = get(port, "/accounts/login/", host=f"192.168.1.23:{port}")
    assert status == 400
    assert "DJANGO_ALLOWED_HOSTS=localhost,127.0.0.1,192.168.1.23" in page
    assert "Traceback" not in page and "ALLOWED_HOSTS setting" not in page

    # The secret key was made, for this user only, outside the repository.
    key_file = folder / "data" / "secret_key"
    assert key_file.stat().st_mode & 0o777 == 0o600
    assert f"Rollroom serves http://127.0.0.1:{port}/" in output()
