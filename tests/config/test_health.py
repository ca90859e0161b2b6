"""/healthz (config/views.py, healthz; config/health.py): what the proxy in front asks before it
sends a process requests (deploy/Caddyfile). 200 "ok" when the database answers (and Redis, when
REDIS_URL is set), 503 "unavailable" otherwise; it reads no session, sets no cookie, writes
nothing, is never limited and says nothing of the tables."""

import pytest
from django.db import connection
from django.db.backends.utils import CursorWrapper
from django.test.utils import CaptureQueriesContext

from config import health
from tests.faults import redis_server  # noqa: F401 (a fixture)
from tests.helpers import free_port, unchanged

pytestmark = pytest.mark.django_db

URL = "/healthz"


def queries_of(client, *, host="127.0.0.1"):
    """The response to GET /healthz and the SQL it ran."""
    with CaptureQueriesContext(connection) as captured:
        response = client.get(URL, HTTP_HOST=host)
    return response, [q["sql"] for q in captured.captured_queries]


def test_healthy_is_200_ok_and_nothing_about_the_table(client, pool_campaign):
    response = client.get(URL)
    assert response.status_code == 200
    assert response.content == b"ok"
    assert response["Content-Type"].startswith("text/plain")
    assert "no-cache" in response["Cache-Control"]


def test_it_reads_no_session_sets_no_cookie_and_writes_nothing(as_user, player):
    client = as_user(player)  # a session cookie sent: still not read
    with unchanged():
        response, sql = queries_of(client)
    assert response.status_code == 200
    assert sql == ["SELECT 1"]
    assert not response.cookies
    assert "Cookie" not in response.get("Vary", "")


def test_database_down_is_503(client):
    def execute_down(self, sql, params=None):
        with self.db.wrap_database_errors:
            raise self.db.Database.OperationalError("connection refused: the secret cause")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(CursorWrapper, "execute", execute_down)
        response = client.get(URL)
    assert response.status_code == 503
    assert response.content == b"unavailable"


def test_redis_nowhere_is_503(client, settings):
    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    response = client.get(URL)
    assert response.status_code == 503
    assert response.content == b"unavailable"


def test_redis_stopped_is_503_and_back_is_200(client, settings, redis_server):  # noqa: F811
    settings.REDIS_URL = redis_server.url(3)
    assert client.get(URL).status_code == 200
    redis_server.stop()
    assert client.get(URL).status_code == 503
    redis_server.start()
    assert client.get(URL).status_code == 200


def test_without_redis_configured_redis_is_not_asked(client, settings):
    settings.REDIS_URL = ""
    assert client.get(URL).status_code == 200


def test_a_further_check_plugs_in(client, monkeypatch):
    draining = []
    monkeypatch.setattr(health, "checks", [*health.checks, lambda: not draining])
    assert client.get(URL).status_code == 200
    draining.append(True)
    assert client.get(URL).status_code == 503


def test_a_burst_is_never_limited(client, settings):
    settings.WRITE_LIMITS = {"writes": (2, 60), "previews": (2, 60)}
    gets = [client.get(URL).status_code for _ in range(20)]
    posts = [client.post(URL).status_code for _ in range(5)]
    assert gets == [200] * 20
    assert posts == [405] * 5  # not 429: the limits never count it


def test_any_allowed_host_reaches_it_and_no_other(client, settings):
    settings.ALLOWED_HOSTS = ["rollroom.test", "127.0.0.1"]
    assert client.get(URL, HTTP_HOST="rollroom.test").status_code == 200
    assert client.get(URL, HTTP_HOST="127.0.0.1:8001").status_code == 200
    client.raise_request_exception = False
    assert client.get(URL, HTTP_HOST="elsewhere.example").status_code == 400


def test_a_process_draining_for_a_restart_is_503_and_asks_nothing_more(client, monkeypatch):
    """On SIGTERM (config/shutdown.py) the proxy must stop sending new requests to the process
    that finishes those it holds: its /healthz says so before it asks the database."""
    from config import shutdown

    monkeypatch.setitem(shutdown._state, "draining", True)
    response, sql = queries_of(client)
    assert (response.status_code, response.content) == (503, b"unavailable")
    assert sql == []
    monkeypatch.setitem(shutdown._state, "draining", False)
    assert client.get(URL).status_code == 200
