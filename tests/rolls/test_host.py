"""``manage.py host``: migrate, collectstatic and daphne, as a GM serves Rollroom for friends.
The server runs in a process of its own on 127.0.0.1, with a database, static files and secret
key of its own in a temporary folder, and the environment of a fresh machine."""

import asyncio
import os
import re
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
import websockets
from cryptography.hazmat.primitives import serialization
from daphne.cli import CommandLineInterface
from django.conf import settings
from django.contrib.auth.hashers import PBKDF2PasswordHasher, make_password
from django.core.management import CommandError
from django.urls import reverse

from config.settings import listen_address
from rolls.management.commands import host
from rolls.management.commands.host import parse_addrport
from tests.conftest import PASSWORD, make_campaign, make_user
from tests.faults import database_env
from tests.helpers import free_port, make_certificate, make_chain, stop
from tests.rolls.sockets import build_harbor_table, npc_roll_form


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


def daphne_of(monkeypatch, **options):
    """What ``host`` (its ``options``) replaces itself with: (daphne's parsed arguments, the
    environment), migrate, collectstatic and the backups left out."""
    executed = []
    monkeypatch.setattr(host, "call_command", lambda *args, **kwargs: None)
    monkeypatch.setattr(host, "migrated", lambda: False)
    monkeypatch.setattr(host, "backups_beside", lambda hours: None)
    monkeypatch.setattr(host, "network_address", lambda: None)
    monkeypatch.setattr(host.os, "execve", lambda path, argv, env: executed.append((argv, env)))
    host.Command(stdout=StringIO()).handle(**options)
    [(argv, env)] = executed
    assert argv[:3] == [sys.executable, "-m", "daphne"]
    return CommandLineInterface().parser.parse_args(argv[3:]), env


def test_daphne_gets_the_settings_websocket_limits(monkeypatch, settings):
    """The command replaces itself with daphne, whose own command line reads the settings'
    limits from its arguments (without them daphne reads frames of up to 1 MiB)."""
    monkeypatch.delenv("ROLLROOM_LISTEN", raising=False)  # restored after: handle sets it
    settings.DAPHNE_WEBSOCKET_MAX_MESSAGE_SIZE = 3000
    settings.DAPHNE_WEBSOCKET_MAX_FRAME_SIZE = 2000
    args, _ = daphne_of(monkeypatch, addrport="127.0.0.1:8123")
    assert (args.host, args.port, args.application) == (
        "127.0.0.1",
        8123,
        "config.asgi:application",
    )
    assert (args.websocket_max_message_size, args.websocket_max_frame_size) == (3000, 2000)


def test_with_a_certificate_daphne_listens_on_the_tls_endpoint(monkeypatch, tmp_path):
    """The certificate's folder has a colon in its name, which the endpoint description
    escapes (it separates the fields); plain HTTP has no listener; the server runs with
    DJANGO_SECURE and without HSTS."""
    folder = tmp_path / "certs: mine"
    folder.mkdir()
    cert, key = make_certificate(folder)
    monkeypatch.delenv("DJANGO_HSTS_SECONDS", raising=False)
    monkeypatch.setenv("DJANGO_SECURE", "0")
    args, env = daphne_of(monkeypatch, addrport="127.0.0.1:8443", cert=str(cert), key=str(key))
    escaped = str(folder).replace(":", "\\:")
    assert args.socket_strings == [
        f"rollroomtls:port=8443:interface=127.0.0.1:privateKey={escaped}/cert.key"
        f":certKey={escaped}/cert.pem"
    ]
    assert (args.host, args.port) == (None, None)
    assert (env["DJANGO_SECURE"], env["DJANGO_HSTS_SECONDS"]) == ("1", "0")


def test_a_full_chain_file_sends_its_issuers(monkeypatch, tmp_path):
    _, fullchain, key = make_chain(tmp_path)
    args, _ = daphne_of(monkeypatch, addrport="127.0.0.1:8443", cert=str(fullchain), key=str(key))
    assert args.socket_strings == [
        f"rollroomtls:port=8443:interface=127.0.0.1:privateKey={key}:certKey={fullchain}"
        f":extraCertChain={fullchain}"
    ]


def test_hsts_is_sent_when_asked_for(monkeypatch, tmp_path):
    cert, key = make_certificate(tmp_path)
    monkeypatch.setenv("DJANGO_HSTS_SECONDS", "3600")
    _, env = daphne_of(monkeypatch, addrport="[::1]:8443", cert=str(cert), key=str(key))
    assert env["DJANGO_HSTS_SECONDS"] == "3600"


def test_without_a_certificate_the_environment_is_left_as_it_is(monkeypatch):
    monkeypatch.delenv("DJANGO_SECURE", raising=False)
    args, env = daphne_of(monkeypatch, addrport="127.0.0.1:8123")
    assert args.socket_strings == [] and "DJANGO_SECURE" not in env


@pytest.mark.parametrize("given", [{"cert": "cert.pem"}, {"key": "cert.key"}])
def test_a_certificate_needs_its_key(given):
    with pytest.raises(CommandError, match="--cert and --key go together"):
        host.Command(stdout=StringIO()).handle(addrport="8443", **given)


def test_an_encrypted_key_is_refused(tmp_path):
    cert, key = make_certificate(tmp_path)
    plain = serialization.load_pem_private_key(key.read_bytes(), password=None)
    key.write_bytes(
        plain.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"secret"),
        )
    )
    with pytest.raises(CommandError, match="is encrypted and the server cannot ask"):
        host.check_certificate(cert, key)


def bad_certificate(folder, case):
    """(--cert, --key, the sentence ``host`` refuses them with) for each ``case``."""
    cert, key = make_certificate(folder)
    if case == "missing":
        return folder / "none.pem", key, f"The certificate file {folder}/none.pem does not exist."
    if case == "unreadable":
        return folder, key, f"The certificate file {folder} cannot be read: Is a directory."
    if case == "not a certificate":
        key.with_name("notes.txt").write_text("my certificate\n")
        return key.with_name("notes.txt"), key, f"{folder}/notes.txt holds no PEM certificate."
    if case == "not a key":
        return cert, cert, f"{cert} holds no PEM private key."
    if case == "mismatched":
        _, other = make_certificate(folder, "other")
        return cert, other, f"The private key {other} does not belong to the certificate {cert}."
    year = datetime.now(UTC).year
    if case == "expired":
        until = datetime(year - 1, 1, 2, 3, 4, tzinfo=UTC)
        cert, key = make_certificate(
            folder, "old", valid_from=until - timedelta(days=90), valid_until=until
        )
        return cert, key, f"The certificate {cert} expired on {year - 1}-01-02 03:04 UTC."
    since = datetime(year + 1, 1, 2, 3, 4, tzinfo=UTC)
    cert, key = make_certificate(folder, "early", valid_from=since, valid_until=since)
    return cert, key, f"The certificate {cert} is not valid before {year + 1}-01-02 03:04 UTC."


@pytest.mark.parametrize(
    "case",
    [
        "missing",
        "unreadable",
        "not a certificate",
        "not a key",
        "mismatched",
        "expired",
        "not yet valid",
    ],
)
def test_a_bad_certificate_is_refused_before_serving(tmp_path, case):
    """The real command exits with its one sentence, no traceback, before it touched the
    database (let alone listened)."""
    cert, key, sentence = bad_certificate(tmp_path, case)
    done = subprocess.run(
        [sys.executable, "manage.py", "host", "--cert", cert, "--key", key, "127.0.0.1:8443"],
        cwd=settings.BASE_DIR,
        env=host_environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert done.stderr.strip() == f"CommandError: {sentence}"
    assert not (tmp_path / "db.sqlite3").exists()


@pytest.mark.parametrize(
    ("addrport", "listen"),
    [("8123", "0.0.0.0:8123"), ("127.0.0.1:8123", "127.0.0.1:8123"), ("[::]:8123", "[::]:8123")],
)
def test_daphne_is_told_what_it_listens_on(monkeypatch, addrport, listen):
    """ROLLROOM_LISTEN, in the environment daphne inherits: the GM panel reads it
    (settings.ROLLROOM_LISTEN, campaigns/links.py) to show a GM on 127.0.0.1 the address
    players use."""
    monkeypatch.delenv("ROLLROOM_LISTEN", raising=False)  # restored after: handle sets it
    monkeypatch.setattr(host, "call_command", lambda *args, **kwargs: None)
    monkeypatch.setattr(host, "migrated", lambda: False)
    monkeypatch.setattr(host, "backups_beside", lambda hours: None)
    monkeypatch.setattr(host, "network_address", lambda: None)
    environments = []
    monkeypatch.setattr(host.os, "execve", lambda path, argv, env: environments.append(dict(env)))
    host.Command(stdout=StringIO()).handle(addrport=addrport)
    [environment] = environments
    assert environment["ROLLROOM_LISTEN"] == listen
    assert listen_address(listen) == parse_addrport(addrport)  # as the settings read it


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def get(port, path, host=None, *, data=None, headers=(), context=None):
    """(status, headers, body) of GET ``path`` (POST ``data`` when given), redirects not
    followed; over HTTPS when ``context`` (an ``ssl.SSLContext`` trusting the certificate)."""
    scheme = "https" if context else "http"
    request = urllib.request.Request(
        f"{scheme}://127.0.0.1:{port}{path}",
        data=None if data is None else urllib.parse.urlencode(data).encode(),
        headers=dict(headers),
    )
    if host:
        request.add_header("Host", host)
    opener = urllib.request.build_opener(NoRedirect, urllib.request.HTTPSHandler(context=context))
    try:
        with opener.open(request, timeout=10) as response:
            return response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read().decode()


def host_environment(folder, **env):
    """The environment of a fresh machine for ``manage.py host``, with the database, static
    files and secret key in ``folder``, and ``env`` over it."""
    environment = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_", "REDIS_", "SQLITE_"))
    }
    environment.update(
        SQLITE_PATH=str(folder / "db.sqlite3"),
        DJANGO_STATIC_ROOT=str(folder / "static"),
        DJANGO_SECRET_KEY_FILE=str(folder / "data" / "secret_key"),
    )
    return {**environment, **env}


@contextmanager
def host_running(folder, *arguments, **env):
    """``manage.py host ARGUMENTS 127.0.0.1:PORT`` running with ``host_environment(folder,
    **env)`` until the block ends, as (port, its output so far)."""
    port = free_port()
    log = folder / "host.log"
    with open(log, "w") as out:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "host", *map(str, arguments), f"127.0.0.1:{port}"],
            cwd=settings.BASE_DIR,
            env=host_environment(folder, **env),
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
        yield port, log.read_text
    finally:
        stop(process)


@pytest.fixture
def hosted(tmp_path):
    """``manage.py host 127.0.0.1:PORT`` running, as (port, the folder of its files, its
    output so far)."""
    with host_running(tmp_path) as (port, output):
        yield port, tmp_path, output


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


@pytest.mark.django_db(transaction=True)
def test_host_serves_https_and_wss_with_secure_cookies(tmp_path):
    """``host --cert --key`` on the test database: the login page and a login over HTTPS (the
    test trusts the certificate), both cookies Secure and no HSTS; the room's socket over wss
    hears the presence list and a roll's push; plain HTTP to the port is answered with a 400
    that says to use https://, without a traceback in the log, and HTTPS goes on."""
    gm, ana, ben = make_user("gm"), make_user("ana"), make_user("ben")
    campaign = make_campaign(gm, name="Blue Harbor", system="mana", players=[ana, ben])
    table = build_harbor_table(campaign, gm, ana, ben)
    # The server checks passwords with the settings' hashers, not the tests' fast one.
    gm.password = make_password(PASSWORD, hasher=PBKDF2PasswordHasher())
    gm.save(update_fields=["password"])
    cert, key = make_certificate(tmp_path)
    trusted = ssl.create_default_context(cafile=cert)
    with host_running(tmp_path, "--cert", cert, "--key", key, **database_env()) as (port, log):
        origin = f"https://127.0.0.1:{port}"
        status, headers, _ = get(port, "/accounts/login/", context=trusted)
        assert status == 200
        csrf = cookies(headers)["csrftoken"]
        assert "Secure" in csrf and "Strict-Transport-Security" not in headers
        token = csrf.split(";")[0].split("=", 1)[1]
        status, headers, _ = get(
            port,
            "/accounts/login/",
            data={"username": "gm", "password": PASSWORD, "csrfmiddlewaretoken": token},
            headers={"Cookie": f"csrftoken={token}", "Origin": origin},
            context=trusted,
        )
        assert status == 302, "the login over HTTPS"
        session = cookies(headers)["sessionid"]
        assert "Secure" in session
        session_id = session.split(";")[0].split("=", 1)[1]

        async def room():
            async with websockets.connect(
                f"wss://127.0.0.1:{port}/ws/campaigns/{campaign.pk}/",
                ssl=trusted,
                origin=origin,
                additional_headers={"Cookie": f"sessionid={session_id}"},
                open_timeout=TIMEOUT,
            ) as ws:
                assert 'id="presence"' in await next_frame(ws, 'id="presence"')
                status, _, _ = await asyncio.to_thread(
                    get,
                    port,
                    reverse("npc_roll", args=[campaign.pk]),
                    data=npc_roll_form(table),
                    headers={
                        "Cookie": f"sessionid={session_id}; csrftoken={token}",
                        "X-CSRFToken": token,
                        "HX-Request": "true",
                        "Origin": origin,
                    },
                    context=trusted,
                )
                assert status == 200
                assert 'data-seq="1"' in await next_frame(ws, "data-seq=")

        asyncio.run(room())

        # Plain HTTP to the HTTPS port (a player who typed http://): a 400 that says to use
        # https://, then the connection closes, before daphne (rolls/https_port.py).
        with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as plain:
            plain.sendall(
                f"GET /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
            )
            answer = b""
            while chunk := plain.recv(4096):
                answer += chunk
        head, _, body = answer.decode().partition("\r\n\r\n")
        assert head.startswith("HTTP/1.1 400 Bad Request\r\n")
        assert "Content-Type: text/plain; charset=utf-8" in head
        assert body == (
            f"This address is served over HTTPS: open https://127.0.0.1:{port}/ instead.\n"
        )
        assert get(port, "/accounts/login/", context=trusted)[0] == 200
        assert "Traceback" not in log() and "Error" not in log()
        assert f"Rollroom serves https://127.0.0.1:{port}/" in log()
        assert "certificate is for localhost, 127.0.0.1: browsers trust those only." in log()


def test_the_greeting_gives_the_https_address(monkeypatch, settings):
    settings.ALLOWED_HOSTS = ["localhost", "192.168.1.23"]
    out = StringIO()
    monkeypatch.setattr(host, "network_address", lambda: "192.168.1.23")
    host.Command(stdout=out).greet("0.0.0.0", 8443, "python manage.py host", scheme="https")
    text = out.getvalue()
    assert "Rollroom serves https://127.0.0.1:8443/" in text
    assert "Friends on your network: https://192.168.1.23:8443/" in text
    assert "Plain HTTP" not in text


def test_the_greeting_shares_the_name_of_the_certificate(monkeypatch, settings, tmp_path):
    """A certificate for a name of the host's own (Let's Encrypt's, say): the address to share
    is that name's, and the line to copy lets the server answer to it."""
    settings.ALLOWED_HOSTS = ["localhost", "127.0.0.1", "[::1]"]
    monkeypatch.setattr(host, "network_address", lambda: None)
    cert, key = make_certificate(tmp_path, names=["table.example.org"])
    [certificate] = host.check_certificate(cert, key)
    out = StringIO()
    host.Command(stdout=out).greet(
        "0.0.0.0", 8443, "python manage.py host", "https", host.certificate_names(certificate)
    )
    text = out.getvalue()
    assert "share https://table.example.org:8443/ if it leads here" in text
    assert (
        "DJANGO_ALLOWED_HOSTS='localhost,127.0.0.1,[::1],table.example.org' python manage.py host"
        in text
    )


TIMEOUT = 10


def cookies(headers):
    """Each cookie a response sets, by name: its whole Set-Cookie value."""
    return {value.split("=", 1)[0]: value for value in headers.get_all("Set-Cookie") or []}


async def next_frame(socket, containing):
    """The next frame the socket hears that contains ``containing`` (others skipped)."""
    async with asyncio.timeout(TIMEOUT):
        while containing not in (frame := await socket.recv()):
            pass
        return frame


@pytest.mark.django_db(transaction=True)
def test_host_serves_a_full_chain_to_a_client_that_trusts_only_the_root(tmp_path):
    """A certificate issued by an intermediate authority, given as a full chain file: a client
    that trusts only the root verifies it, as browsers do with a public authority's."""
    root, fullchain, key = make_chain(tmp_path)
    trusted = ssl.create_default_context(cafile=root)
    with host_running(tmp_path, "--cert", fullchain, "--key", key, **database_env()) as (port, _):
        assert get(port, "/accounts/login/", context=trusted)[0] == 200
