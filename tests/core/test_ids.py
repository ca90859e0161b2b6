"""Ids in URLs (core/ids.py): every id a route names goes through the ``<id:...>``
converter, whose bound every column the ids go to holds; a number beyond it, 0, a negative or a
non-number matches no route, on every route of the URLconf (walked, so a new route is covered as
soon as it is added): 404 for GET and POST, signed in as the GM of the campaign the URL names or
not signed in at all (the URL matches nothing: no login comes before it), never 500. An id in
range that names nothing gets what any unknown id gets. The websocket routes refuse the same ids.
"""

import re

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.backends.base.operations import BaseDatabaseOperations
from django.test import Client
from django.urls import resolve
from django.urls.converters import get_converters

from campaigns.models import Campaign, GameSession, Membership
from config.routing import websocket_urlpatterns
from core.ids import MAX_ID, IdConverter
from rolls.models import Check, LogEntry
from rolls.systems.mana.models import ManaSkill
from rolls.systems.pool.models import Rating
from scene.models import Combatant, Handout, Picture, Scene, Token
from sheets.models import Character, SavedRoll
from tests.config import test_permission_matrix
from tests.config.test_permission_matrix import (
    MATRIX,
    ROLES,
    answers,
    connects,
    http_routes,
    kwargs_for,
    matches,
)
from tests.helpers import HTMX

#: The permission matrix's campaigns: a Pool and a Mana one, with everything a route names,
#: built once for a class of tests.
class_world = test_permission_matrix.class_world

#: Each id a URL names -> the column it is looked up in (a foreign key's column is its target's).
COLUMNS = {
    "campaign_id": Campaign._meta.pk,
    "user_id": get_user_model()._meta.pk,
    "skill_id": ManaSkill._meta.pk,
    "character_id": Character._meta.pk,
    "rating_id": Rating._meta.pk,
    "check_id": Check._meta.pk,
    "seq": LogEntry._meta.get_field("seq"),
    "number": GameSession._meta.get_field("number"),
    "picture_id": Picture._meta.pk,
    "handout_id": Handout._meta.pk,
    "combatant_id": Combatant._meta.pk,
    "saved_id": SavedRoll._meta.pk,
    "scene_id": Scene._meta.pk,
    "token_id": Token._meta.pk,
}
#: What a URL names that is not an id: a password reset link's parts, an invite's token, a
#: picture's digest.
TEXT_PARAMETERS = {"uidb64", "token", "digest"}

#: Numbers beyond any id, or no ids at all: each matches no route.
NOT_IDS = [str(2**63), str(10**30), str(MAX_ID + 1), "0", "-1", "abc", "1.5", "1e3"]

PARAMETER = re.compile(r"<(?:(\w+):)?(\w+)>")


def parameters(route):
    """[(converter, name)] of a route, in order (converter "str" when the route names none)."""
    return [(converter or "str", name) for converter, name in PARAMETER.findall(route)]


def id_routes():
    """[(route, id parameter)]: every HTTP route of the URLconf once per id it names."""
    return [
        (route, name)
        for route in http_routes()
        for converter, name in parameters(route)
        if converter == "id"
    ]


def path_with(route, table, name, value):
    """The route's path with ``value`` for the id ``name``, real values for the rest."""
    values = {**kwargs_for(route, table), name: value}
    return "/" + PARAMETER.sub(lambda m: str(values[m.group(2)]), route)


def system_of_route(route):
    return MATRIX[route][0] if route in MATRIX else "pool"


def clients(world):
    """A client for each role the walks ask as: the GM's signed in once for the test."""
    gm = Client(raise_request_exception=False)
    gm.force_login(world.users["GM"])
    return {"GM": gm, "anonymous": Client(raise_request_exception=False)}


def ask(client, path, method):
    """``client``'s answer to ``method`` on ``path``, in a transaction rolled back."""
    with transaction.atomic():
        if method == "GET":
            response = client.get(path)
        else:
            response = client.post(path, **HTMX)
        transaction.set_rollback(True)
    return response


# The converter and its bound ----------------------------------------------------------------


def test_every_parameter_of_every_route_is_an_id_or_text():
    routes = list(http_routes()) + [str(p.pattern) for p in websocket_urlpatterns]
    wrong = [
        f"{route}: <{converter}:{name}>"
        for route in routes
        for converter, name in parameters(route)
        if not (converter == "id" and name in COLUMNS)
        and not (converter == "str" and name in TEXT_PARAMETERS)
    ]
    assert wrong == []
    assert len(id_routes()) > 50  # the walk below finds the routes


def test_the_id_converter_is_the_one_registered():
    assert isinstance(get_converters()["id"], IdConverter)
    match = resolve("/campaigns/7/")
    assert (match.route, match.kwargs) == ("campaigns/<id:campaign_id>/", {"campaign_id": 7})


def test_every_column_an_id_goes_to_holds_every_id():
    """On every database Django supports (the ranges are PostgreSQL's; SQLite's integers are all
    64-bit): MAX_ID is what the smallest of the columns holds (auth's 32-bit user id), no less."""
    highest = {}
    for name, field in COLUMNS.items():
        low, high = BaseDatabaseOperations.integer_field_ranges[field.get_internal_type()]
        assert low <= 1 and MAX_ID <= high, f"{name} ({field}) holds {low}..{high}"
        highest[name] = high
    assert MAX_ID == min(highest.values())


def test_the_converter_takes_ids_only():
    converter = IdConverter()
    assert [converter.to_python(v) for v in ("1", "007", str(MAX_ID))] == [1, 7, MAX_ID]
    for value in NOT_IDS + ["", "١٢"]:
        with pytest.raises(ValueError):
            converter.to_python(value)


# Walking every route -------------------------------------------------------------------------


#: Routes where an id in range that names nothing is not a 404 for the GM, and why.
NOT_FOUND_ANSWERS = {
    # Revealing a log entry the campaign does not have is refused like revealing one that is not
    # a secret roll (the GM's button shows the refusal).
    ("campaigns/<id:campaign_id>/room/log/<id:seq>/reveal/", "seq"): "422",
    # A place the turn order does not hold (removed from another tab, or another campaign's):
    # refused with the card as it is now (scene/initiative.py).
    ("campaigns/<id:campaign_id>/initiative/<id:combatant_id>/remove/", "combatant_id"): "422",
    ("campaigns/<id:campaign_id>/initiative/<id:combatant_id>/move/", "combatant_id"): "422",
    # Only the character's player rolls its saved rolls: the GM is refused for the character
    # (a player's) before the saved roll is looked for (room.views.saved_roll).
    (
        "campaigns/<id:campaign_id>/room/characters/<id:character_id>/saved-rolls/<id:saved_id>/",
        "saved_id",
    ): "403",
}


class TestEveryRoute:
    @pytest.mark.parametrize(("route", "name"), id_routes())
    def test_a_number_beyond_any_id_or_no_number_matches_no_route(
        self, class_world, db, route, name
    ):
        table = class_world.tables[system_of_route(route)]
        asking = clients(class_world)
        wrong = []
        for value in NOT_IDS:
            path = path_with(route, table, name, value)
            for role in ("GM", "anonymous"):
                for method in ("GET", "POST"):
                    status = ask(asking[role], path, method).status_code
                    if status != 404:
                        wrong.append(f"{method} {path} as {role}: {status}")
        assert not wrong, "\n".join(wrong)

    @pytest.mark.parametrize(("route", "name"), id_routes())
    def test_the_biggest_id_is_looked_up_and_found_nowhere(self, class_world, db, route, name):
        """MAX_ID matches the route: the GM gets a 404 where the route takes the method (405
        where it does not, as for any id), anonymous the login page or the page anyone may see,
        as the permission matrix says for the route's real ids."""
        system = system_of_route(route)
        table = class_world.tables[system]
        path = path_with(route, table, name, MAX_ID)
        _, get_row, post_row = MATRIX[route]
        asking = clients(class_world)
        wrong = []
        for method, row in (("GET", get_row), ("POST", post_row)):
            anonymous, gm = answers(row)[0], answers(row)[ROLES.index("GM")]
            found_nowhere = NOT_FOUND_ANSWERS.get((route, name), "404")
            expected = {"anonymous": anonymous, "GM": gm if gm == "405" else found_nowhere}
            for role, answer in expected.items():
                response = ask(asking[role], path, method)
                if not matches(response, answer):
                    got = f"{response.status_code} {response.get('Location', '')}".strip()
                    wrong.append(f"{method} {path} as {role}: expected {answer}, got {got}")
        assert not wrong, "\n".join(wrong)


# The websocket routes ------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("route", [str(p.pattern) for p in websocket_urlpatterns])
def test_a_socket_with_no_id_is_refused(route):
    gm = get_user_model().objects.create_user(username="gm", password="x")
    campaign = Campaign.objects.create(name="The Marches", system="pool")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.GM)
    client = Client()
    client.force_login(gm)
    cookie = client.cookies["sessionid"].value
    real = "/" + route.replace("<id:campaign_id>", str(campaign.id))
    assert connects(real, cookie) == "open"
    got = {
        value: connects("/" + route.replace("<id:campaign_id>", value), cookie)
        for value in [*NOT_IDS, str(MAX_ID)]
    }
    assert got == dict.fromkeys([*NOT_IDS, str(MAX_ID)], "refused")
    async_to_sync(get_channel_layer().flush)()
