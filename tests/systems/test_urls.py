"""A system's own URLs (``system.urls``, included by config/urls.py with ``system=<key>``): each
of them answers 404 to the GM of a campaign of another system, whatever the method it takes
(405 for the other one), and the coin, which has none, adds no route. The sparetime app's pages,
open in Pool campaigns only: tests/sparetime/test_urls.py."""

import re
from importlib import import_module

import pytest
from django.test import Client
from django.urls import URLResolver, reverse

from campaigns.systems import SYSTEMS
from tests.conftest import make_campaign
from tests.helpers import HTMX
from tests.systems import coins


def named_routes(patterns, prefix=""):
    """(route, name) of every pattern, the included ones too."""
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            yield from named_routes(pattern.url_patterns, route)
        else:
            yield route, pattern.name


def system_routes(key):
    return list(named_routes(import_module(SYSTEMS[key].urls).urlpatterns))


def url_in(route, name, campaign):
    names = re.findall(r"<(?:\w+:)?(\w+)>", route)
    return reverse(name, kwargs={n: campaign.id if n == "campaign_id" else 1 for n in names})


#: Each registered system with URLs of its own, and another system.
WITH_URLS = [(k, other) for k, s in SYSTEMS.items() if s.urls for other in SYSTEMS if other != k]


@pytest.mark.parametrize(("key", "other"), WITH_URLS)
def test_a_systems_urls_are_404_in_a_campaign_of_another(gm, key, other):
    campaign = make_campaign(gm, system=other, name="Elsewhere")
    client = Client()
    client.force_login(gm)
    wrong = []
    for route, name in system_routes(key):
        path = url_in(route, name, campaign)
        answers = {client.get(path).status_code, client.post(path, **HTMX).status_code}
        if answers not in ({404}, {404, 405}):
            wrong.append(f"{route}: {sorted(answers)}")
    assert not wrong, "\n".join(wrong)


def test_the_coin_has_no_urls():
    assert coins.SYSTEM.urls is None
