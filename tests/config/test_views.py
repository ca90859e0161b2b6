"""The error pages (templates/400.html, 403.html, 403_csrf.html, 404.html, 500.html and
config/views.py), as served with DEBUG off: in the site's own look, never Django's debug pages."""

import pytest
from django.test import Client
from django.urls import path, reverse

from config.urls import urlpatterns as site_urlpatterns

pytestmark = pytest.mark.django_db


def boom(request):
    raise RuntimeError("the secret cause")


#: The site's routes and one that fails, for ``pytest.mark.urls(__name__)``.
urlpatterns = [path("boom/", boom), *site_urlpatterns]


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
