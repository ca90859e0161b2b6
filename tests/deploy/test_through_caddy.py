"""The production layout with real parts (deploy/Caddyfile, the fixture ``deployment`` of
tests/deploy/conftest.py): Debian's Caddy with `tls internal` in front of two daphne processes on
PostgreSQL and Redis, all on 127.0.0.1, the site's name (``DOMAIN``) mapped to loopback.
Chromium over https:// logs in, opens a room, and a roll made on another page reaches it; bad
input through the proxy (plain HTTP to the HTTPS port, a wrong Host, a body over the limit, a
socket from a foreign Origin) is refused clearly and writes nothing; a GM's map of a few MB
passes the proxy's body limit, which only the three picture uploads have that high.

Chromium trusts Caddy's local authority through ``--ignore-certificate-errors-spki-list`` with
the hash of the public key of that authority's intermediate, read from Caddy's storage
(pki/authorities/local/intermediate.crt, beside root.crt): Chromium matches the list against
the chain the server sends, which is the site's certificate and that intermediate, never the
root (the root's hash alone leaves ERR_CERT_AUTHORITY_INVALID). It accepts that authority alone
(playwright's ``ignore_https_errors`` would accept any certificate, a wrong name included), and
needs no system trust store changed.

Skipped on SQLite; under CI=true a missing Caddy or Chromium fails it."""

import asyncio
import base64
import gzip
import hashlib
import http.client
import io
import os
import secrets
import select
import socket
import ssl
import urllib.parse

import pytest
import redis
import websockets
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.test.client import encode_multipart
from django.urls import reverse
from PIL import Image

import core.images
from scene.models import Scene
from tests.browser import CHROMIUM, TIMEOUT, Chromium
from tests.deploy.conftest import DOMAIN, PASSWORD, SCALEOUT
from tests.faults import daphne_log, fail_or_skip
from tests.helpers import unchanged

pytestmark = [SCALEOUT, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def deployment_env():
    """The servers count writes in windows of an hour: no window of the limits ends during a
    test that counts them."""
    return {"DJANGO_SETTINGS_MODULE": "tests.server_settings", "TEST_WRITE_WINDOW": "3600"}


def spki_hash(path):
    """base64(sha256(SubjectPublicKeyInfo)) of a PEM certificate: what Chromium's
    --ignore-certificate-errors-spki-list takes."""
    certificate = x509.load_pem_x509_certificate(path.read_bytes())
    der = certificate.public_key().public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


def log_in(context, origin, username):
    """A page of ``context`` logged in through the login form, over HTTPS."""
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(f"{origin}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{origin}/")
    return page


def test_chromium_over_https_logs_in_and_a_roll_reaches_the_other_page(deployment):
    if CHROMIUM is None:
        fail_or_skip("needs Debian's chromium")
    from playwright.sync_api import expect

    caddy = deployment.caddy
    origin = caddy.url()
    room = f"{origin}/campaigns/{deployment.campaign.id}/room/"
    Chromium.resume()
    browser = Chromium.playwright.chromium.launch(
        executable_path=CHROMIUM,
        args=["--headless", "--no-sandbox", "--disable-gpu"]
        + [f"--host-resolver-rules=MAP {DOMAIN} 127.0.0.1"]
        + [f"--ignore-certificate-errors-spki-list={spki_hash(caddy.intermediate_certificate)}"],
    )
    try:
        gm = log_in(browser.new_context(), origin, "gm")
        ana = log_in(browser.new_context(), origin, "ana")
        for page in (gm, ana):
            page.goto(room)
            expect(page.locator('#ws-status[data-state="ok"]')).to_be_attached()
        assert gm.url.startswith(f"https://{DOMAIN}:")
        expect(gm.locator("#presence")).to_contain_text("ana")
        ana.fill("#talk-text", "/r 2d6")
        ana.press("#talk-text", "Enter")
        expect(gm.locator("#log .entry").last).to_contain_text("ana")
        expect(gm.locator("#log .entry").last).to_contain_text("2d6")
        cookies = {c["name"]: c for c in gm.context.cookies()}
        assert cookies["sessionid"]["secure"] and cookies["sessionid"]["domain"] == DOMAIN
    finally:
        browser.close()
        Chromium.pause()


def session_cookie(user):
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


async def open_socket(caddy, path, origin, cookie):
    """A websocket through Caddy (wss, the domain's certificate verified), or its refusal."""
    context = ssl.create_default_context(cafile=str(caddy.root_certificate))
    sock = socket.create_connection(("127.0.0.1", caddy.https_port), timeout=10)
    return await websockets.connect(
        f"wss://{DOMAIN}:{caddy.https_port}{path}",
        sock=sock,
        ssl=context,
        server_hostname=DOMAIN,
        origin=origin,
        additional_headers={"Cookie": f"sessionid={cookie}"},
        open_timeout=10,
    )


def test_bad_input_through_the_proxy_is_refused_and_writes_nothing(deployment):
    caddy = deployment.caddy
    cookie = session_cookie(deployment.ana)
    socket_path = f"/ws/campaigns/{deployment.campaign.id}/?after=0"

    with unchanged():
        # Plain HTTP to the HTTPS port.
        with socket.create_connection(("127.0.0.1", caddy.https_port), timeout=10) as plain:
            plain.sendall(f"GET / HTTP/1.1\r\nHost: {DOMAIN}\r\n\r\n".encode())
            answer = plain.recv(4096).decode()
        assert answer.startswith("HTTP/1.0 400")
        assert "Client sent an HTTP request to an HTTPS server." in answer

        # A wrong Host on the domain's connection, and a wrong name for the connection.
        status, _headers, _body = caddy.request("GET", "/", headers={"Host": "evil.example"})
        assert status == 421
        with pytest.raises(ssl.SSLError):
            caddy.tls_socket("evil.example").close()

        # A body over the limit: refused before any process reads it.
        big = b"note=" + b"x" * 1_100_000
        status, _headers, body = caddy.request(
            "POST",
            "/accounts/login/",
            body=big,
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        assert (status, body) == (413, b"Request too large.")

        # A socket from a foreign Origin: refused.
        async def foreign():
            with pytest.raises(websockets.InvalidStatus) as refused:
                await open_socket(caddy, socket_path, "https://evil.example", cookie)
            return refused.value.response.status_code

        assert asyncio.run(foreign()) == 403

    # The same socket from the site's own origin opens (and the member is then present).
    async def own():
        await (await open_socket(caddy, socket_path, caddy.url(), cookie)).close()

    asyncio.run(own())
    for port in deployment.ports:
        assert "Traceback" not in daphne_log(port)


def test_healthz_pages_and_static_files_through_the_proxy(deployment):
    caddy = deployment.caddy
    status, headers, body = caddy.request("GET", "/healthz")
    assert (status, body) == (200, b"ok")
    assert "Set-Cookie" not in headers
    # Django's X-Forwarded-Proto trust: the login page is served (no redirect to HTTPS), with
    # its CSRF cookie secure.
    status, headers, _ = caddy.request("GET", "/accounts/login/")
    assert status == 200 and "Secure" in headers["Set-Cookie"]
    # A client's own X-Forwarded-Proto is not passed on (Caddy sets it): passed on, "http"
    # would have Django redirect to HTTPS.
    status, _, _ = caddy.request("GET", "/accounts/login/", headers={"X-Forwarded-Proto": "http"})
    assert status == 200
    # Compressed once, whoever compressed it (Django, whitenoise or Caddy).
    status, headers, body = caddy.request(
        "GET", "/accounts/login/", headers={"Accept-Encoding": "gzip"}
    )
    assert status == 200 and headers.get_all("Content-Encoding") == ["gzip"]
    assert b"<form" in gzip.decompress(body)
    status, headers, body = caddy.request(
        "GET", "/static/css/rollroom.css", headers={"Accept-Encoding": "gzip"}
    )
    assert status == 200 and headers.get_all("Content-Encoding") == ["gzip"]
    assert gzip.decompress(body).strip()


def test_visitors_through_caddy_have_limits_and_locks_of_their_own(deployment):
    """Every visitor's connection reaches daphne from Caddy's address; two visitors (from two
    addresses of loopback) are told apart by the X-Forwarded-For Caddy sets, trusted from Caddy
    (DJANGO_TRUSTED_PROXIES of deploy/env.example): one's anonymous limit and login lock are not
    the other's, and an X-Forwarded-For the visitor writes (Caddy drops it) escapes neither."""
    caddy = deployment.caddy
    one, two = "127.0.0.2", "127.0.0.3"
    forged = {"X-Forwarded-For": "198.51.100.1"}
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    for visitor in (one, two):  # counts an earlier run left within the window
        for key in client.scan_iter(f"rollroom:limit:*:ip:{visitor}:*"):
            client.delete(key)

    most, _ = settings.WRITE_LIMITS["previews"]
    query = urllib.parse.urlencode({"system": "pool", "d6": 2, "d10": 1, "tn": 6})
    odds = f"{reverse('odds_calculator')}?{query}"
    htmx = {"HX-Request": "true"}
    statuses = [caddy.request("GET", odds, headers=htmx, source=one)[0] for _ in range(most + 1)]
    assert statuses == [200] * most + [429]
    assert caddy.request("GET", odds, headers={**htmx, **forged}, source=one)[0] == 429
    assert caddy.request("GET", odds, headers=htmx, source=two)[0] == 200

    def log_in(password, source, headers=()):
        token = secrets.token_hex(16)
        form = urllib.parse.urlencode({"username": "ana", "password": password}).encode()
        return caddy.request(
            "POST",
            reverse("login"),
            body=form,
            headers={
                "Content-Type": "application/x-www-form-urlencoded",
                "Cookie": f"csrftoken={token}",
                "X-CSRFToken": token,
                "Origin": caddy.url(),
                "Referer": caddy.url(reverse("login")),
                **dict(headers),
            },
            source=source,
        )[0]

    assert [log_in("wrong", one) for _ in range(5)] == [200] * 4 + [429]  # the 5th locks
    assert log_in(PASSWORD, one) == 429
    assert log_in(PASSWORD, one, forged) == 429
    assert log_in(PASSWORD, two) == 302
    for port in deployment.ports:
        assert "Traceback" not in daphne_log(port)


def noise_png(width, height):
    """A valid PNG of random pixels, which no compression shrinks: about 3 bytes a pixel."""
    picture = Image.frombytes("RGB", (width, height), os.urandom(width * height * 3))
    out = io.BytesIO()
    picture.save(out, format="PNG")
    return out.getvalue()


class _Received:
    """Bytes received, as http.client's response reads a socket."""

    def __init__(self, data):
        self.data = data

    def makefile(self, *args, **kwargs):
        return io.BytesIO(self.data)


def post_through(caddy, path, body, headers, chunked=False):
    """(status, body) of a POST of ``body`` through Caddy, as a browser sends it: the body is
    sent while the answer is watched for, so an answer given before the body is read (Caddy's
    413) is read rather than lost to a connection reset, as it would be were the rest of the
    body written first. ``chunked``: without a length, in chunks. None for the status when the
    connection closed without an answer."""
    sock = caddy.tls_socket()
    head = f"POST {path} HTTP/1.1\r\nHost: {DOMAIN}:{caddy.https_port}\r\nConnection: close\r\n"
    head += "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    if chunked:
        step = 64 * 1024
        pieces = [body[i : i + step] for i in range(0, len(body), step)]
        pieces = [b"%x\r\n%s\r\n" % (len(piece), piece) for piece in pieces]
        data = f"{head}Transfer-Encoding: chunked\r\n\r\n".encode() + b"".join(pieces)
        data += b"0\r\n\r\n"
    else:
        data = f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body
    sent, received = 0, b""
    try:
        sock.setblocking(False)
        while sent < len(data) and not received:
            readable, writable, _ = select.select([sock], [sock], [], 15)
            assert readable or writable, "Caddy neither read nor answered for 15 s"
            try:
                if readable:  # the answer, or TLS's own records (a session ticket): no data
                    received = sock.recv(65536) or b"closed"
                elif writable:
                    sent += sock.send(data[sent : sent + 16 * 1024])
            except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
                continue
        sock.settimeout(15)
        while received != b"closed" and (more := sock.recv(65536)):
            received += more
    except ConnectionError:
        pass
    finally:
        sock.close()
    if received in (b"", b"closed"):
        return None, b""
    response = http.client.HTTPResponse(_Received(received))
    response.begin()
    return response.status, response.read()


def test_a_map_up_to_the_apps_limit_passes_the_proxy_and_no_more(deployment):
    """The three upload routes take a body up to 9 MB through Caddy (a picture the app keeps,
    at most 8 MiB, with its form around it), and every other route less than 1 MB: a GM's 2.7 MB
    map is stored; a body over 9 MB is refused by Caddy before daphne reads it, declared (413)
    or sent without a length (cut: the app never gets it whole), and nothing is stored; the room's
    talk box still refuses 1 MB."""
    caddy, campaign = deployment.caddy, deployment.campaign
    cookie = session_cookie(deployment.gm)
    scenes = reverse("scenes", args=[campaign.id])
    add = reverse("scene_add", args=[campaign.id])

    def form_post(path, fields, chunked=False):
        token = secrets.token_hex(16)
        boundary = secrets.token_hex(16)
        return post_through(
            caddy,
            path,
            encode_multipart(boundary, fields),
            {
                "Content-Type": f"multipart/form-data; boundary={boundary}",
                "Cookie": f"sessionid={cookie}; csrftoken={token}",
                "X-CSRFToken": token,
                "Origin": caddy.url(),
                "Referer": caddy.url(scenes),
            },
            chunked=chunked,
        )

    def map_upload(name, data):
        return {"name": name, "image": SimpleUploadedFile("map.png", data, "image/png")}

    # Over 1 MB, within the app's limit: stored, and shown on the scenes page.
    data = noise_png(900, 1000)
    assert 2_000_000 < len(data) < core.images.MAX_BYTES
    status, _body = form_post(add, map_upload("The Big Cave", data))
    assert status == 302
    scene = Scene.objects.get(campaign=campaign)
    assert (scene.name, bytes(scene.picture.data)) == ("The Big Cave", data)
    status, _headers, page = caddy.request("GET", scenes, headers={"Cookie": f"sessionid={cookie}"})
    assert status == 200 and b"The Big Cave" in page

    # Over the limit (a PNG the app would refuse itself too): never reaches daphne.
    too_big = noise_png(1800, 1700)
    assert 9_000_000 < len(too_big)
    with unchanged():
        assert form_post(add, map_upload("Too Big", too_big)) == (413, b"Request too large.")
        status, _body = form_post(add, map_upload("Too Big", too_big), chunked=True)
        # Cut at 9 MB: daphne never gets the whole request; Caddy answers an error (413 or
        # 502, without its refusal's sentence) or closes.
        assert status in (None, 413, 502)
        # Any other route: 1 MB is still too much.
        status, body = post_through(
            caddy,
            reverse("talk_say", args=[campaign.id]),
            b"said=" + b"x" * 1_000_000,
            {"Content-Type": "application/x-www-form-urlencoded", "Cookie": f"sessionid={cookie}"},
        )
        assert (status, body) == (413, b"Request too large.")
    assert Scene.objects.filter(campaign=campaign).count() == 1
    for port in deployment.ports:
        assert "Traceback" not in daphne_log(port)
