"""The error pages of config/views.py, as served with DEBUG off."""

import pytest

pytestmark = pytest.mark.django_db


def test_an_unknown_host_gets_a_page_saying_how_to_add_it(client):
    response = client.get("/accounts/login/", HTTP_HOST="192.168.1.23:8000")
    assert response.status_code == 400
    page = response.content.decode()
    assert "does not answer to the name <code>192.168.1.23</code>" in page
    assert "DJANGO_ALLOWED_HOSTS=localhost,127.0.0.1,192.168.1.23" in page
    assert 'class="topbar"' in page  # the site's own look
    assert "testserver" not in page  # never the names that are allowed


def test_an_unknown_host_name_is_escaped(client):
    response = client.get("/", HTTP_HOST="game.example")
    assert response.status_code == 400
    assert "<code>game.example</code>" in response.content.decode()


def test_a_malformed_host_is_not_repeated(client):
    response = client.get("/", HTTP_HOST="bad<script>host")
    assert response.status_code == 400
    page = response.content.decode()
    assert "could not understand this request" in page
    assert "<script>" not in page
