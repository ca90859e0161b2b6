"""Who may do what, for every route of the URLconf and every websocket route: each route x
(anonymous, non-member, player, another player, GM) x (GET, POST) has its expected answer in
MATRIX below, and a route added without an entry fails ``test_every_route_has_an_entry``.

The player owns the character, the check and the rating a route names; another player is a
member of the same campaign who owns none of them. POSTs send no data: a write a viewer may
make is refused for its empty form (422 for htmx, the page with the errors for a plain post) or,
when it needs no data, done (200/204 for htmx, a redirect for a plain post). Each request runs
in a transaction rolled back afterwards, so none sees another's changes.
"""

import re
from types import SimpleNamespace

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from config.asgi import application
from config.routing import websocket_urlpatterns
from rolls import services
from rolls.systems.pool.models import Rating
from scene.services import combatant_add, handout_share, picture_add, scene_add, token_add
from scene.services import scene_show as services_scene_show
from sheets.models import SavedRoll
from tests.conftest import make_campaign, make_user
from tests.helpers import HTMX
from tests.rolls.room_setup import ask, build_mana_table, build_pool_table

ROLES = ("anonymous", "non-member", "player", "another player", "GM")

#: Routes left out of the matrix, and why.
EXCLUDED = {
    "admin/": "Django's admin: staff only, its own permission checks (no campaign data in it)",
}

# The answers. A row lists one answer per role, in ROLES' order; an answer is a status code,
# several joined by "|" (any of them), or "login" (a redirect to the login page). What they say:
# anonymous: the login page, but for the pages anyone may see (login, sign-up, password reset,
# the rules, an invite link's page). A method the route does not take: 405 for every signed-in
# user, before any access check (it tells nothing). Non-member: 404 for anything of the
# campaign. A member who may not: 403 (GM-only; another's character, check or roll). A member
# who may: 200, 302 (done, or already there), 204 (done, the socket brings it), 422 (refused:
# the empty form), 400 (a query that needs parameters).
LOGIN = "login"

#: A 1x1 PNG: the campaigns' picture.
TINY_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de"
    "0000000c49444154789c63382127070002b6010534a675aa0000000049454e44ae426082"
)

#: route -> (system of the campaign it is asked in, GET row, POST row); a POST is sent as htmx.
MATRIX = {
    # The proxy's health check: anyone, nothing of the tables in it.
    "healthz": ("pool", "200 200 200 200 200", "405 405 405 405 405"),
    "accounts/logout/": ("pool", "login 405 405 405 405", "login login login login login"),
    "accounts/login/": ("pool", "200 200 200 200 200", "200 200 200 200 200"),
    "accounts/password_change/": ("pool", "login 200 200 200 200", "login 200 200 200 200"),
    "accounts/password_change/done/": ("pool", "login 200 200 200 200", "login 405 405 405 405"),
    "accounts/password_reset/": ("pool", "200 200 200 200 200", "200 200 200 200 200"),
    "accounts/password_reset/done/": ("pool", "200 200 200 200 200", "405 405 405 405 405"),
    "accounts/reset/<uidb64>/<token>/": ("pool", "200 200 200 200 200", "200 200 200 200 200"),
    "accounts/reset/done/": ("pool", "200 200 200 200 200", "405 405 405 405 405"),
    "": ("pool", "login 200 200 200 200", "login 405 405 405 405"),
    "rules/": ("pool", "200 200 200 200 200", "405 405 405 405 405"),
    "accounts/signup/": ("pool", "200 200 200 200 200", "422 422 422 422 422"),
    # Deleting one's own account: an empty form is refused (the password is asked again).
    "accounts/delete/": ("pool", "login 200 200 200 200", "login 422 422 422 422"),
    # One's own data: whoever is logged in, theirs alone.
    "accounts/data.json": ("pool", "login 200 200 200 200", "login 405 405 405 405"),
    "campaigns/new/": ("pool", "login 200 200 200 200", "login 422 422 422 422"),
    "campaigns/<id:campaign_id>/": ("pool", "login 404 200 200 200", "login 405 405 405 405"),
    # The invite link: a logged-out invitee sees which campaign it is, and logs in to join.
    "join/<str:token>/": ("pool", "200 200 302 302 302", "login 200 200 200 200"),
    "campaigns/<id:campaign_id>/gm/": ("pool", "login 404 403 403 200", "login 405 405 405 405"),
    "campaigns/<id:campaign_id>/gm/settings/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    "campaigns/<id:campaign_id>/gm/invite/renew/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 200",
    ),
    "campaigns/<id:campaign_id>/gm/members/add/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    "campaigns/<id:campaign_id>/gm/members/<id:user_id>/remove/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 200",
    ),
    "campaigns/<id:campaign_id>/gm/hand-over/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    "campaigns/<id:campaign_id>/gm/delete/": (
        "pool",
        "login 404 403 403 200",
        "login 404 403 403 422",
    ),
    "campaigns/<id:campaign_id>/gm/skills/": (
        "mana",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    "campaigns/<id:campaign_id>/gm/skills/<id:skill_id>/": (
        "mana",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    "campaigns/<id:campaign_id>/gm/skills/<id:skill_id>/delete/": (
        "mana",
        "login 405 405 405 405",
        "login 404 403 403 200",
    ),
    "campaigns/<id:campaign_id>/characters/new/": (
        "pool",
        "login 404 200 200 200",
        "login 404 422 422 422",
    ),
    # Another player's sheet and its sparetime ledger: what they may see of them is the sheet's
    # privacy rule (the /rules/ page: the sheet yes, its pools and sparetime no).
    "campaigns/<id:campaign_id>/characters/<id:character_id>/": (
        "pool",
        "login 404 200 200 200",
        "login 405 405 405 405",
    ),
    "campaigns/<id:campaign_id>/characters/<id:character_id>/edit/": (
        "pool",
        "login 405 405 405 405",
        "login 404 422 403 422",
    ),
    # A saved roll (#47 item 6): its player and the GM keep them (an empty form is refused;
    # a delete needs no data); only the character's player rolls one (the player's is "1d6",
    # rolled at once; the GM may not roll a player's).
    "campaigns/<id:campaign_id>/characters/<id:character_id>/saved-rolls/": (
        "pool",
        "login 405 405 405 405",
        "login 404 422 403 422",
    ),
    "campaigns/<id:campaign_id>/characters/<id:character_id>/saved-rolls/<id:saved_id>/delete/": (
        "mana",
        "login 405 405 405 405",
        "login 404 200 403 200",
    ),
    "campaigns/<id:campaign_id>/room/characters/<id:character_id>/saved-rolls/<id:saved_id>/": (
        "pool",
        "login 405 405 405 405",
        "login 404 200 403 403",
    ),
    # The GM hands an NPC to a player: refused for the empty form (the player's character is
    # not the GM's either).
    "campaigns/<id:campaign_id>/characters/<id:character_id>/hand-over/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    "campaigns/<id:campaign_id>/characters/<id:character_id>/hp/": (
        "pool",
        "login 405 405 405 405",
        "login 404 422 403 422",
    ),
    "campaigns/<id:campaign_id>/characters/<id:character_id>/traits/": (
        "mana",
        "login 405 405 405 405",
        "login 404 403 403 200",
    ),
    "campaigns/<id:campaign_id>/characters/<id:character_id>/ratings/<id:rating_id>/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    "campaigns/<id:campaign_id>/characters/<id:character_id>/skills/take/": (
        "pool",
        "login 405 405 405 405",
        "login 404 422 403 422",
    ),
    "campaigns/<id:campaign_id>/characters/<id:character_id>/skills/propose/": (
        "pool",
        "login 405 405 405 405",
        "login 404 422 403 422",
    ),
    "campaigns/<id:campaign_id>/gm/approvals/": (
        "pool",
        "login 404 403 403 200",
        "login 405 405 405 405",
    ),
    "campaigns/<id:campaign_id>/gm/approvals/<id:rating_id>/approve/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 200",
    ),
    "campaigns/<id:campaign_id>/gm/approvals/<id:rating_id>/decline/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 200",
    ),
    "campaigns/<id:campaign_id>/gm/mana/": (
        "mana",
        "login 404 403 403 200",
        "login 405 405 405 405",
    ),
    "campaigns/<id:campaign_id>/gm/mana/refill/": (
        "mana",
        "login 405 405 405 405",
        "login 404 403 403 200",
    ),
    "campaigns/<id:campaign_id>/gm/mana/<id:character_id>/refill/": (
        "mana",
        "login 405 405 405 405",
        "login 404 403 403 200",
    ),
    "campaigns/<id:campaign_id>/gm/mana/<id:character_id>/maxima/": (
        "mana",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    "campaigns/<id:campaign_id>/characters/<id:character_id>/sparetime/": (
        "pool",
        "login 404 200 403 200",
        "login 405 405 405 405",
    ),
    # A build: several raises at once; with no points it is refused for the empty form.
    "campaigns/<id:campaign_id>/characters/<id:character_id>/sparetime/build/": (
        "pool",
        "login 405 405 405 405",
        "login 404 422 403 422",
    ),
    "campaigns/<id:campaign_id>/characters/<id:character_id>/sparetime/spend/": (
        "pool",
        "login 405 405 405 405",
        "login 404 422 403 422",
    ),
    # A raise's confirmation: the query names the rating (none here: 400).
    "campaigns/<id:campaign_id>/characters/<id:character_id>/sparetime/raise/": (
        "pool",
        "login 404 400 403 400",
        "login 405 405 405 405",
    ),
    "campaigns/<id:campaign_id>/characters/<id:character_id>/sparetime/undo/": (
        "pool",
        "login 405 405 405 405",
        "login 404 422 403 422",
    ),
    # The GM's reversal's confirmation: the query names the ledger entry (none here: 400).
    "campaigns/<id:campaign_id>/gm/sparetime/reversal/": (
        "pool",
        "login 404 403 403 400",
        "login 405 405 405 405",
    ),
    "campaigns/<id:campaign_id>/gm/sparetime/reverse/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    "campaigns/<id:campaign_id>/gm/sparetime/": (
        "pool",
        "login 404 403 403 200",
        "login 405 405 405 405",
    ),
    "campaigns/<id:campaign_id>/gm/sparetime/grant/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    "campaigns/<id:campaign_id>/gm/sparetime/award/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    "campaigns/<id:campaign_id>/gm/sparetime/delegate/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    "campaigns/<id:campaign_id>/sparetime/delegation/": (
        "pool",
        "login 404 200 200 200",
        "login 405 405 405 405",
    ),
    "campaigns/<id:campaign_id>/sparetime/handout/": (
        "pool",
        "login 405 405 405 405",
        "login 404 422 422 422",
    ),
    "campaigns/<id:campaign_id>/room/": ("pool", "login 404 200 200 200", "login 405 405 405 405"),
    "campaigns/<id:campaign_id>/room/log/": (
        "pool",
        "login 404 400 400 400",
        "login 405 405 405 405",
    ),
    "campaigns/<id:campaign_id>/room/log/<id:seq>/reveal/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    "rules/odds/": ("pool", "200 200 200 200 200", "405 405 405 405 405"),
    "campaigns/<id:campaign_id>/luck/": ("pool", "login 404 200 200 200", "login 405 405 405 405"),
    "campaigns/<id:campaign_id>/tuning/": (
        "pool",
        "login 404 403 403 200",
        "login 405 405 405 405",
    ),
    "campaigns/<id:campaign_id>/sessions/<id:number>/": (
        "pool",
        "login 404 200 200 200",
        "login 405 405 405 405",
    ),
    "campaigns/<id:campaign_id>/log.csv": (
        "pool",
        "login 404 200 200 200",
        "login 405 405 405 405",
    ),
    "campaigns/<id:campaign_id>/log.json": (
        "pool",
        "login 404 200 200 200",
        "login 405 405 405 405",
    ),
    "campaigns/<id:campaign_id>/room/log/verify/": (
        "pool",
        "login 404 403 403 200",
        "login 405 405 405 405",
    ),
    # Fair dice: every member sees the seeds and checks the rolls they may see; the GM alone
    # reveals the open seed early (done: back to the page).
    "campaigns/<id:campaign_id>/room/dice/": (
        "pool",
        "login 404 200 200 200",
        "login 405 405 405 405",
    ),
    "campaigns/<id:campaign_id>/room/dice/reveal/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 302",
    ),
    "campaigns/<id:campaign_id>/party/": (
        "pool",
        "login 404 200 200 200",
        "login 405 405 405 405",
    ),
    # A player's "Your characters" panel again (the GM has none).
    "campaigns/<id:campaign_id>/room/requests/": (
        "pool",
        "login 404 200 200 403",
        "login 405 405 405 405",
    ),
    "campaigns/<id:campaign_id>/room/checks/": (
        "pool",
        "login 404 200 200 200",
        "login 405 405 405 405",
    ),
    "campaigns/<id:campaign_id>/room/session/start/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 200",
    ),
    "campaigns/<id:campaign_id>/room/session/end/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    # Table talk: every member talks and rolls (an empty box is refused); its preview too.
    "campaigns/<id:campaign_id>/room/talk/": (
        "pool",
        "login 405 405 405 405",
        "login 404 422 422 422",
    ),
    "campaigns/<id:campaign_id>/room/talk/odds/": (
        "mana",
        "login 404 200 200 200",
        "login 405 405 405 405",
    ),
    "campaigns/<id:campaign_id>/room/checks/close/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 200",
    ),
    "campaigns/<id:campaign_id>/checks/ask/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    # The GM's NPC roll in one step: the form again, its live odds, the roll.
    "campaigns/<id:campaign_id>/room/npc/roll/": (
        "mana",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    "campaigns/<id:campaign_id>/room/npc/form/": (
        "pool",
        "login 404 403 403 200",
        "login 405 405 405 405",
    ),
    "campaigns/<id:campaign_id>/room/npc/odds/": (
        "mana",
        "login 404 403 403 200",
        "login 405 405 405 405",
    ),
    "campaigns/<id:campaign_id>/room/characters/<id:character_id>/request/": (
        "pool",
        "login 405 405 405 405",
        "login 404 422 403 403",
    ),
    # HP from the party: the GM; the player of the character only when the campaign allows it
    # (not by default: 403).
    "campaigns/<id:campaign_id>/room/characters/<id:character_id>/hp/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    "campaigns/<id:campaign_id>/checks/<id:check_id>/target/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    "campaigns/<id:campaign_id>/checks/<id:check_id>/roll/": (
        "pool",
        "login 405 405 405 405",
        "login 404 422 403 403",
    ),
    "campaigns/<id:campaign_id>/checks/<id:check_id>/form/": (
        "pool",
        "login 404 200 403 403",
        "login 405 405 405 405",
    ),
    "campaigns/<id:campaign_id>/checks/<id:check_id>/odds/": (
        "pool",
        "login 404 200 403 403",
        "login 405 405 405 405",
    ),
    "campaigns/<id:campaign_id>/checks/<id:check_id>/shift/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    "campaigns/<id:campaign_id>/checks/<id:check_id>/reattempt/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    "campaigns/<id:campaign_id>/checks/<id:check_id>/cancel/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 204",
    ),
    # The initiative order (scene/initiative.py): everyone sees it, the GM runs it. The world's
    # order holds one combatant, not started: the empty add and move are refused, and so is
    # "next" before the start.
    "campaigns/<id:campaign_id>/initiative/": (
        "pool",
        "login 404 200 200 200",
        "login 405 405 405 405",
    ),
    "campaigns/<id:campaign_id>/initiative/add/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    "campaigns/<id:campaign_id>/initiative/<id:combatant_id>/remove/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 200",
    ),
    "campaigns/<id:campaign_id>/initiative/<id:combatant_id>/move/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    "campaigns/<id:campaign_id>/initiative/sort/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 200",
    ),
    "campaigns/<id:campaign_id>/initiative/start/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 200",
    ),
    "campaigns/<id:campaign_id>/initiative/next/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    "campaigns/<id:campaign_id>/initiative/end/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 200",
    ),
    # The GM's scenes: the page and its writes (an empty form is refused; showing, hiding,
    # deleting and removing a token need no data); the room's scene card, every member's.
    "campaigns/<id:campaign_id>/scenes/": (
        "pool",
        "login 404 403 403 200",
        "login 405 405 405 405",
    ),
    "campaigns/<id:campaign_id>/scenes/add/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    "campaigns/<id:campaign_id>/scenes/hide/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 200",
    ),
    "campaigns/<id:campaign_id>/scenes/<id:scene_id>/grid/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    "campaigns/<id:campaign_id>/scenes/<id:scene_id>/show/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 200",
    ),
    "campaigns/<id:campaign_id>/scenes/<id:scene_id>/delete/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 200",
    ),
    "campaigns/<id:campaign_id>/scenes/<id:scene_id>/tokens/add/": (
        "mana",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    "campaigns/<id:campaign_id>/scenes/<id:scene_id>/tokens/<id:token_id>/remove/": (
        "mana",
        "login 405 405 405 405",
        "login 404 403 403 200",
    ),
    "campaigns/<id:campaign_id>/scene/card/": (
        "pool",
        "login 404 200 200 200",
        "login 405 405 405 405",
    ),
    # A picture of the campaign (a map, a token's, a handout's): every member sees it.
    "campaigns/<id:campaign_id>/pictures/<id:picture_id>/<str:digest>/": (
        "pool",
        "login 404 200 200 200",
        "login 405 405 405 405",
    ),
    # The handouts shared with the viewer: every member (the GM: all of them).
    "campaigns/<id:campaign_id>/handouts/": (
        "pool",
        "login 404 200 200 200",
        "login 405 405 405 405",
    ),
    # The GM's share form, its post (the empty form: 422) and a delete (done: the list, 200).
    "campaigns/<id:campaign_id>/gm/handouts/": (
        "pool",
        "login 404 403 403 200",
        "login 405 405 405 405",
    ),
    "campaigns/<id:campaign_id>/gm/handouts/share/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 422",
    ),
    "campaigns/<id:campaign_id>/gm/handouts/<id:handout_id>/delete/": (
        "pool",
        "login 405 405 405 405",
        "login 404 403 403 200",
    ),
    # The scene (#47). A token's move: its character's player and the GM, refused for the
    # empty form (no x and y); another player may not move it.
    "campaigns/<id:campaign_id>/scene/tokens/<id:token_id>/move/": (
        "pool",
        "login 405 405 405 405",
        "login 404 422 403 422",
    ),
}

#: Websocket routes -> one answer per role: "open" or "refused" (in the player's campaign).
WS_MATRIX = {
    "ws/campaigns/<id:campaign_id>/": "refused refused open open open",
    "ws/campaigns/<id:campaign_id>/facts/": "refused refused open open open",
}


# Walking the routes ------------------------------------------------------------------------


def routes(patterns=None, prefix=""):
    """(route, name) of every URL pattern, the included ones too; admin/ stops the walk."""
    if patterns is None:
        patterns = get_resolver().url_patterns
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if route in EXCLUDED:
            continue
        if isinstance(pattern, URLResolver):
            yield from routes(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            yield route, pattern.name


def http_routes():
    """{route: name}, the first pattern of each route (the one that answers)."""
    found = {}
    for route, name in routes():
        found.setdefault(route, name)
    return found


# The tables --------------------------------------------------------------------------------


def build_world():
    """A Pool and a Mana campaign with the same GM, player and another player; an outsider."""
    gm, ana, ben, zed = (make_user(n) for n in ("gm", "ana", "ben", "zed"))
    pool = build_pool_table(make_campaign(gm, system="pool", players=[ana, ben]), gm, ana, ben)
    mana = build_mana_table(
        make_campaign(gm, system="mana", name="Blue Harbor", players=[ana, ben]),
        gm,
        ana,
        ben,
    )
    pool.character, mana.character = pool.ilse, mana.mira
    pool.check, mana.check = ask(pool, pool.ilse), ask(mana, mana.mira)
    # A session played and ended: its summary is there to see.
    for table in (pool, mana):
        services.session_start(campaign=table.campaign, by=gm)
        services.session_end(campaign=table.campaign, by=gm)
    # A skill the player proposed, pending: the GM may approve or decline it.
    pool.rating = Rating.objects.create(
        character=pool.ilse,
        attribute="Agility",
        skill="Lockpicking",
        value=1,
        status=Rating.PENDING,
        custom=True,
    )
    mana.rating = None
    # A saved roll of the player's character (#47 item 6).
    for table in (pool, mana):
        table.saved = SavedRoll.objects.create(
            character=table.character, name="Hit", notation="1d6"
        )
    mana.skill = mana.gather
    pool.skill = None
    # An initiative order with one combatant, not started (scene/initiative.py's routes).
    for table in (pool, mana):
        table.combatant = combatant_add(
            campaign=table.campaign, by=gm, character=table.character, score=10
        )[0]
    for table in (pool, mana):
        table.picture = picture_add(campaign=table.campaign, upload=TINY_PNG)
        # A handout for the player alone: the GM may delete it.
        table.handout = handout_share(
            campaign=table.campaign, title="A letter", everyone=False, recipients=[ana]
        )
        # A scene (the Pool one shown) with a token of the player's character.
        table.scene = scene_add(campaign=table.campaign, name="The ford", upload=TINY_PNG)
        table.token = token_add(
            scene=table.scene,
            name=table.character.name,
            colour="#1f618d",
            character=table.character,
        )
    services_scene_show(scene=pool.scene, by=gm)
    # The picture the route serves: the shown scene's map, which every member sees (a picture
    # of nothing the table sees is the GM's alone: scene.services.picture_visible).
    pool.picture = pool.scene.picture
    users = {"non-member": zed, "player": ana, "another player": ben, "GM": gm}
    return SimpleNamespace(tables={"pool": pool, "mana": mana}, users=users)


@pytest.fixture
def world(db):
    """The world of one test (``build_world``)."""
    return build_world()


@pytest.fixture(scope="class")
def class_world(django_db_setup, django_db_blocker):
    """The world built once for a class's tests, in a transaction rolled back after the last of
    them. Each of their requests runs in a transaction rolled back too (``ask_route``), so each
    sees the world as it was built. Its tests ask for ``db`` as well (a transaction of their
    own inside this one); a class of them holds no transactional test (``transaction=True``:
    its sockets' threads would not see an uncommitted world)."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield build_world()
        transaction.set_rollback(True)


def kwargs_for(route, table):
    values = {
        "campaign_id": table.campaign.id,
        "character_id": table.character.id,
        "check_id": table.check.id,
        "rating_id": table.rating.id if table.rating else 1,
        "user_id": table.player.id,
        "skill_id": table.skill.id if table.skill else 1,
        "token": table.campaign.invite_token,
        "seq": 1,  # the session's start: nothing to reveal
        "number": 1,
        "picture_id": table.picture.id,
        "digest": table.picture.digest,
        "handout_id": table.handout.id,
        "combatant_id": table.combatant.id,
        "scene_id": table.scene.id,
        "token_id": table.token.id,
        "saved_id": table.saved.id,
    }
    if route.startswith("accounts/reset/"):  # a password reset link (an invalid one)
        return {"uidb64": "MQ", "token": "set-password"}
    return {name: values[name] for name in re.findall(r"<(?:\w+:)?(\w+)>", route)}


def answers(row):
    return row.split()


def matches(response, expected):
    if expected == LOGIN:
        return response.status_code == 302 and response["Location"].startswith(
            reverse(settings.LOGIN_URL)
        )
    return str(response.status_code) in expected.split("|")


def ask_route(world, name, route, system, role, method):
    """The response to ``method`` on ``route`` as ``role``, in a transaction rolled back."""
    table = world.tables[system]
    path = reverse(name, kwargs=kwargs_for(route, table)) if "<" in route else "/" + route
    client = Client()
    with transaction.atomic():
        if role != "anonymous":
            client.force_login(world.users[role])
        if method == "GET":
            response = client.get(path)
        else:
            response = client.post(path, **HTMX)
        transaction.set_rollback(True)
    return response


# The tests -----------------------------------------------------------------------------------


def unmatched():
    """What is wrong between the routes and the matrix, one sentence each."""
    http, ws = http_routes(), [str(p.pattern) for p in websocket_urlpatterns]
    return (
        [f"new route {r} has no entry in the matrix" for r in http if r not in MATRIX]
        + [f"route {r} is in the matrix but not in the URLconf" for r in MATRIX if r not in http]
        + [f"new websocket route {r} has no entry in the matrix" for r in ws if r not in WS_MATRIX]
        + [f"websocket route {r} is in the matrix but not routed" for r in WS_MATRIX if r not in ws]
    )


def test_every_route_has_an_entry():
    assert unmatched() == []


def test_a_route_without_an_entry_is_named(monkeypatch):
    monkeypatch.delitem(MATRIX, "rules/")
    monkeypatch.delitem(WS_MATRIX, "ws/campaigns/<id:campaign_id>/")
    assert unmatched() == [
        "new route rules/ has no entry in the matrix",
        "new websocket route ws/campaigns/<id:campaign_id>/ has no entry in the matrix",
    ]


class TestEveryRoute:
    @pytest.mark.parametrize("route", list(MATRIX))
    def test_each_role_gets_the_expected_answer(self, class_world, db, route):
        name = http_routes()[route]
        system, get_row, post_row = MATRIX[route]
        wrong = []
        for method, row in (("GET", get_row), ("POST", post_row)):
            for role, expected in zip(ROLES, answers(row), strict=True):
                response = ask_route(class_world, name, route, system, role, method)
                if not matches(response, expected):
                    got = f"{response.status_code} {response.get('Location', '')}".strip()
                    wrong.append(f"{method} as {role}: expected {expected}, got {got}")
        assert not wrong, "\n".join(wrong)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("route", list(WS_MATRIX))
def test_each_role_gets_the_expected_socket(world, route):
    campaign = world.tables["pool"].campaign
    path = "/" + re.sub(r"<id:campaign_id>", str(campaign.id), route)
    cookies = {}
    for role, user in world.users.items():
        client = Client()
        client.force_login(user)
        cookies[role] = client.cookies[settings.SESSION_COOKIE_NAME].value
    got = [connects(path, cookies.get(role)) for role in ROLES]
    async_to_sync(get_channel_layer().flush)()
    assert " ".join(got) == WS_MATRIX[route]


def connects(path, cookie):
    headers = [(b"origin", b"http://127.0.0.1")]
    if cookie:
        headers.append((b"cookie", f"sessionid={cookie}".encode()))

    async def attempt():
        communicator = WebsocketCommunicator(application, path, headers=headers)
        try:
            connected, _ = await communicator.connect(timeout=5)
        finally:
            await communicator.disconnect(timeout=5)
        return "open" if connected else "refused"

    return async_to_sync(attempt)()
