"""The error pages (templates/400.html, 403.html, 403_csrf.html, 404.html, 500.html, 503.html and
config/views.py), as served with DEBUG off: in the site's own look, never Django's debug pages.
(PostgreSQL really stopped under a server: tests/config/test_database_outage.py.)"""

import logging
from contextlib import contextmanager

import pytest
from django.db import InterfaceError, OperationalError
from django.db.backends.utils import CursorWrapper
from django.test import Client
from django.urls import path, reverse
from psycopg_pool import PoolTimeout

from config.urls import handler500 as site_handler500
from config.urls import urlpatterns as site_urlpatterns
from tests.helpers import HTMX, unchanged
from tests.rolls.room_setup import ask, roll_url

pytestmark = pytest.mark.django_db


def boom(request):
    raise RuntimeError("the secret cause")


#: What ``unreachable/?error=<name>`` raises: the database gone (or its pool empty) under a view.
DATABASE_ERRORS = {
    "operational": OperationalError,
    "interface": InterfaceError,
    "pool": PoolTimeout,
}


def unreachable(request):
    raise DATABASE_ERRORS[request.GET["error"]]("connection to 127.0.0.1 failed: the secret cause")


#: The site's routes and ones that fail, for ``pytest.mark.urls(__name__)``.
urlpatterns = [path("boom/", boom), path("unreachable/", unreachable), *site_urlpatterns]
handler500 = site_handler500


def looks_like_the_site(page):
    return 'class="topbar"' in page and "Traceback" not in page


def test_a_page_that_does_not_exist_is_404_in_the_sites_look(as_user, player):
    response = as_user(player).get("/no/such/page/")
    assert response.status_code == 404
    page = response.content.decode()
    assert looks_like_the_site(page)
    assert "<h1>Not found</h1>" in page
    assert "URLconf" not in page and "Resolver404" not in page  # no list of the routes


def test_a_campaign_of_others_is_404_too(as_user, outsider, pool_campaign):
    response = as_user(outsider).get(reverse("campaign_detail", args=[pool_campaign.pk]))
    assert response.status_code == 404
    page = response.content.decode()
    assert "<h1>Not found</h1>" in page
    assert pool_campaign.name not in page


def test_an_invalid_invite_link_is_404_without_the_url_list(as_user, player):
    response = as_user(player).get(reverse("campaign_join", args=["not-a-token"]))
    assert response.status_code == 404
    assert "<h1>Not found</h1>" in response.content.decode()


def test_what_a_member_may_not_do_is_403_saying_why(as_user, player, pool_campaign):
    response = as_user(player).get(reverse("gm_panel", args=[pool_campaign.pk]))
    assert response.status_code == 403
    page = response.content.decode()
    assert looks_like_the_site(page)
    assert "<h1>Not allowed</h1>" in page
    assert "Only the GM can do that." in page


def test_a_form_without_its_csrf_token_is_403_form_expired(player):
    client = Client(enforce_csrf_checks=True)
    client.force_login(player)
    response = client.post(reverse("campaign_create"), {"name": "X"})
    assert response.status_code == 403
    page = response.content.decode()
    assert looks_like_the_site(page)
    assert "<h1>Form expired</h1>" in page


@pytest.mark.urls(__name__)
def test_a_failure_is_500_in_the_sites_look_without_its_cause(client):
    client.raise_request_exception = False
    response = client.get("/boom/")
    assert response.status_code == 500
    page = response.content.decode()
    assert "<h1>Something went wrong</h1>" in page
    assert 'class="topbar"' in page
    assert "the secret cause" not in page and "RuntimeError" not in page


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


# The database unreachable or locked: 503, try again -------------------------------------------


@pytest.mark.urls(__name__)
@pytest.mark.parametrize("error", ["operational", "interface", "pool"])
def test_a_page_without_its_database_is_503_in_the_sites_look(client, error):
    client.raise_request_exception = False
    response = client.get("/unreachable/", {"error": error})
    assert response.status_code == 503
    assert int(response["Retry-After"]) > 0
    page = response.content.decode()
    assert "<h1>Back in a moment</h1>" in page and "Nothing was done" in page
    assert 'class="topbar"' in page
    assert "the secret cause" not in page and "Error" not in page


@pytest.mark.urls(__name__)
def test_htmx_without_its_database_gets_the_sentence_for_the_notice_area(client):
    client.raise_request_exception = False
    response = client.get("/unreachable/", {"error": "pool"}, **HTMX)
    assert response.status_code == 503
    assert response["Content-Type"].startswith("text/plain")
    assert response.content.decode().startswith("The server cannot reach its database just now.")


@contextmanager
def locked_writes():
    """``with locked_writes(): ...``: every INSERT and UPDATE fails as SQLite's does when another
    process holds the write lock past its timeout ("database is locked"), through Django's
    wrapping of the driver's errors."""
    execute = CursorWrapper.execute

    def execute_locked(self, sql, params=None):
        if sql.lstrip().upper().startswith(("INSERT", "UPDATE")):
            with self.db.wrap_database_errors:
                raise self.db.Database.OperationalError("database is locked")
        return execute(self, sql, params)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(CursorWrapper, "execute", execute_locked)
        yield


def test_a_roll_on_a_locked_database_is_503_and_writes_nothing(
    pool_table, as_user, player, pushes, django_capture_on_commit_callbacks
):
    check = ask(pool_table, pool_table.ilse, target=4)
    client = as_user(player)
    client.raise_request_exception = False
    data = {"attribute": pool_table.agility.id, "intent": "Leap"}
    with unchanged(), django_capture_on_commit_callbacks(execute=True), locked_writes():
        response = client.post(roll_url(pool_table, check), data, **HTMX)
    assert response.status_code == 503
    assert "Nothing was done" in response.content.decode()
    assert pushes.entries() == [] and pushes.checks() == []


@pytest.mark.urls(__name__)
def test_an_outage_is_logged_once_not_per_request(client, caplog):
    # One filter, or more once a test imported config.asgi or bench.asgi in this process (their
    # django.setup() configures logging again; dictConfig adds a logger's filters beside those
    # it has).
    outages = [f for f in logging.getLogger("django.request").filters if hasattr(f, "kept_at")]
    assert outages
    for outage in outages:
        outage.reset()  # earlier tests' 503s
    client.raise_request_exception = False
    with caplog.at_level("ERROR", logger="django.request"):
        for error in ("operational", "pool", "interface"):
            assert client.get("/unreachable/", {"error": error}).status_code == 503
    assert [r.status_code for r in caplog.records if r.name == "django.request"] == [503]
    # Any other failure is logged as before.
    caplog.clear()
    with caplog.at_level("ERROR", logger="django.request"):
        assert client.get("/boom/").status_code == 500
    assert [r.status_code for r in caplog.records if r.name == "django.request"] == [500]
