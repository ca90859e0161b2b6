"""Sparetime's pages (sparetime/urls.py, included by config/urls.py): each comes in once, and
each answers 404 to the GM of a campaign of another system, whatever the method it takes (405
for the other one): sparetime is the Pool system's progression."""

import pytest
from django.test import Client
from django.urls import get_resolver

from campaigns.systems import SYSTEMS
from rolls.systems.pool.models import KEY
from sparetime import urls
from tests.conftest import make_campaign
from tests.helpers import HTMX
from tests.systems.test_urls import named_routes, url_in

ROUTES = list(named_routes(urls.urlpatterns))


def test_each_page_comes_in_once():
    names = [name for _route, name in named_routes(get_resolver().url_patterns)]
    assert "gm_sparetime" in dict(ROUTES).values()
    assert all(names.count(name) == 1 for _route, name in ROUTES)


@pytest.mark.parametrize("other", [key for key in SYSTEMS if key != KEY])
def test_the_pages_are_404_in_a_campaign_of_another_system(gm, other):
    campaign = make_campaign(gm, system=other, name="Elsewhere")
    client = Client()
    client.force_login(gm)
    wrong = []
    for route, name in ROUTES:
        path = url_in(route, name, campaign)
        answers = {client.get(path).status_code, client.post(path, **HTMX).status_code}
        if answers not in ({404}, {404, 405}):
            wrong.append(f"{route}: {sorted(answers)}")
    assert not wrong, "\n".join(wrong)
