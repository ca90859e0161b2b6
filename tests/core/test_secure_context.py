"""core/secure_context.py: Cross-Origin-Opener-Policy on the answers to an origin a browser
takes as potentially trustworthy (HTTPS, localhost, a loopback address), and off those to plain
HTTP on the network, where Chromium would ignore it and log a console error on every page."""

import pytest
from django.test import Client

HEADER = "Cross-Origin-Opener-Policy"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("host", "secure", "sent"),
    [
        ("localhost:8000", False, True),
        ("table.localhost", False, True),
        ("127.0.0.1:8000", False, True),
        ("127.0.0.2", False, True),
        ("[::1]:8000", False, True),
        ("192.168.1.20:8000", False, False),
        ("[fe80::1]:8000", False, False),
        ("table.example", False, False),
        ("table.example", True, True),
        ("192.168.1.20:8000", True, True),
    ],
)
def test_the_header_only_where_a_browser_honours_it(settings, host, secure, sent):
    settings.ALLOWED_HOSTS = ["*"]
    response = Client().get("/accounts/login/", HTTP_HOST=host, secure=secure)
    assert response.status_code == 200
    assert (response.headers.get(HEADER) == "same-origin") is sent
    assert response.headers["Content-Security-Policy"]  # the other headers stay


@pytest.mark.django_db
def test_a_refused_host_is_refused_as_before(settings):
    settings.ALLOWED_HOSTS = ["localhost"]
    response = Client().get("/accounts/login/", HTTP_HOST="elsewhere.example")
    assert response.status_code == 400
    assert HEADER not in response.headers
