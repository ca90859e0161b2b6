"""Facts pushed by the views, heard through real sockets (config.asgi, the in-memory channel
layer): a character's HP and ratings reach every member, its mana pool and sparetime only its
player and the GM; a closed check's card leaves the GM's and its player's live checks; pages
outside the room (``room.consumers.FactsConsumer``) hear facts pushes alone; a refused write
pushes nothing."""

from contextlib import AsyncExitStack

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.urls import reverse

from campaigns.models import Membership
from rolls.models import Presence
from rolls.systems.mana.models import palette_of
from rolls.systems.pool.models import Rating
from rolls.systems.pool.sparetime import services as sparetime_services
from rules.sheet import ENDURANCE
from tests.conftest import make_user
from tests.helpers import HTMX
from tests.rolls.room_setup import ask
from tests.rolls.sockets import TIMEOUT, before_mark, enter, post, socket, with_clients

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.asyncio,
    pytest.mark.usefixtures("empty_channel_layer"),
]

USERS = ("gm", "ana", "ben")


@pytest.fixture
def mana(mana_table, gm, player, other_player):
    return with_clients(mana_table, gm, player, other_player)


@pytest.fixture
def pool(pool_table, gm, player, other_player):
    return with_clients(pool_table, gm, player, other_player)


async def sockets(stack, table, path=""):
    """The GM's, ana's and ben's sockets, having read what they heard on opening."""
    opened = {name: await enter(stack, table, name, path=path) for name in USERS}
    await heard(opened)
    return opened


async def heard(opened):
    """What each socket heard until now (``before_mark``), presence lists left out."""
    frames = await before_mark(*opened.values(), presence=False)
    return dict(zip(opened, frames, strict=True))


def facts(*characters):
    return "<!--facts " + " ".join(str(c.id) for c in characters) + "-->"


# Public facts: HP and ratings ------------------------------------------------------------------


async def test_hp_set_by_its_player_reaches_every_member(pool):
    async with AsyncExitStack() as stack:
        opened = await sockets(stack, pool)
        response = await post(pool, "ana", "character_hp", {"hp_current": 3}, pool.ilse.id)
        assert response.status_code == 200
        assert await heard(opened) == {name: [facts(pool.ilse)] for name in USERS}


async def test_a_rating_set_by_the_gm_reaches_every_member(pool):
    async with AsyncExitStack() as stack:
        opened = await sockets(stack, pool)
        path = "rating_set"
        response = await post(pool, "gm", path, {"value": 5}, pool.ilse.id, pool.strength.id)
        assert response.status_code == 200
        assert await heard(opened) == {name: [facts(pool.ilse)] for name in USERS}


async def test_a_raise_reaches_every_member_the_rating_is_public(pool):
    """A raise spends sparetime (private) but changes a rating (and through Endurance HP):
    everyone hears that the sheet changed; the balance itself comes only with the sections
    its player and the GM fetch again (tests/sparetime)."""
    endurance = await database_sync_to_async(
        lambda: Rating.objects.get(character=pool.ilse, skill=ENDURANCE)
    )()
    await database_sync_to_async(sparetime_services.sparetime_grant)(
        character=pool.ilse, amount=10, by=pool.gm
    )
    async with AsyncExitStack() as stack:
        opened = await sockets(stack, pool)
        response = await post(
            pool, "ana", "sparetime_spend", {"rating": endurance.id}, pool.ilse.id
        )
        assert response.status_code == 200
        assert await heard(opened) == {name: [facts(pool.ilse)] for name in USERS}


# Private facts: mana pools and sparetime ---------------------------------------------------------


async def test_a_mana_roll_s_spend_reaches_only_the_roller_and_the_gm(mana, monkeypatch):
    check = await database_sync_to_async(ask)(mana, mana.mira)
    roll = {"skill": mana.gather.id, "color_a": "blue", "color_b": "white", "spend_a": 1}
    roll.update(spend_b=1, colorless=0)
    async with AsyncExitStack() as stack:
        opened = await sockets(stack, mana)
        response = await post(mana, "ana", "check_roll", roll, check.id)
        assert response.status_code == 204
        got = await heard(opened)
        for name in ("gm", "ana"):
            assert facts(mana.mira) in got[name]
        assert len(got["ben"]) == 1 and "#log" in got["ben"][0]  # the roll's entry alone
        assert not any("facts" in frame for frame in got["ben"])


async def test_mana_maxima_and_refills_reach_only_the_player_and_the_gm(mana):
    async with AsyncExitStack() as stack:
        opened = await sockets(stack, mana)
        path = reverse("mana_maxima", args=[mana.campaign.id, mana.bo.id])
        colors = [*palette_of(mana.campaign), "colorless"]
        data = {f"c{mana.bo.id}-{color}": 6 for color in colors}
        response = await sync_to_async(mana.client["gm"].post)(path, data, **HTMX)
        assert response.status_code == 200
        assert await heard(opened) == {"gm": [facts(mana.bo)], "ana": [], "ben": [facts(mana.bo)]}

        response = await post(mana, "gm", "mana_refill_all", {})
        assert response.status_code == 200
        # Each player hears of their own character alone; the GM of every one.
        assert await heard(opened) == {
            "gm": [facts(mana.mira, mana.bo, mana.npc)],
            "ana": [facts(mana.mira)],
            "ben": [facts(mana.bo)],
        }


async def test_a_grant_reaches_only_the_character_s_player_and_the_gm(pool):
    async with AsyncExitStack() as stack:
        opened = await sockets(stack, pool)
        data = {"grant-character": pool.tor.id, "grant-amount": 4}
        response = await post(pool, "gm", "sparetime_grant", data)
        assert response.status_code == 200
        assert await heard(opened) == {"gm": [facts(pool.tor)], "ana": [], "ben": [facts(pool.tor)]}


async def test_an_award_names_to_each_player_only_their_own_characters(pool):
    async with AsyncExitStack() as stack:
        opened = await sockets(stack, pool)
        data = {"characters": [pool.ilse.id, pool.tor.id], "amount": 2}
        response = await post(pool, "gm", "sparetime_award", data)
        assert response.status_code == 200, response.content.decode()
        assert await heard(opened) == {
            "gm": [facts(pool.ilse, pool.tor)],
            "ana": [facts(pool.ilse)],
            "ben": [facts(pool.tor)],
        }


async def test_a_refused_write_pushes_no_fact(pool):
    async with AsyncExitStack() as stack:
        opened = await sockets(stack, pool)
        response = await post(pool, "ana", "character_hp", {"hp_current": 999}, pool.ilse.id)
        assert response.status_code == 422
        data = {"grant-character": pool.tor.id, "grant-amount": 0}
        response = await post(pool, "gm", "sparetime_grant", data)
        assert response.status_code == 422
        assert await heard(opened) == {name: [] for name in USERS}


# A player's delegation: private to the player and the GM ----------------------------------------

DELEGATION = "<!--facts delegation-->"


async def test_a_delegation_reaches_only_its_player_and_the_gm(pool):
    async with AsyncExitStack() as stack:
        opened = await sockets(stack, pool, "facts/")
        data = {"delegate-player": pool.player.id, "delegate-amount": 3}
        response = await post(pool, "gm", "sparetime_delegate", data)
        assert response.status_code == 200, response.content.decode()
        assert await heard(opened) == {"gm": [DELEGATION], "ana": [DELEGATION], "ben": []}


async def test_a_hand_out_reaches_the_giver_s_other_pages_and_the_character_s_player(pool):
    await database_sync_to_async(sparetime_services.sparetime_delegate)(
        campaign=pool.campaign, player=pool.player, amount=3, by=pool.gm
    )
    async with AsyncExitStack() as stack:
        opened = await sockets(stack, pool, "facts/")
        data = {"targets": [pool.tor_strength.id], "amount": 2}
        response = await post(pool, "ana", "sparetime_handout", data)
        assert response.status_code == 200, response.content.decode()
        assert await heard(opened) == {
            "gm": [facts(pool.tor), DELEGATION],
            "ana": [DELEGATION],
            "ben": [facts(pool.tor)],
        }


async def test_the_gm_s_reversal_of_a_delegation_reaches_its_player_and_the_gm(pool):
    entry = await database_sync_to_async(sparetime_services.sparetime_delegate)(
        campaign=pool.campaign, player=pool.player, amount=3, by=pool.gm
    )
    async with AsyncExitStack() as stack:
        opened = await sockets(stack, pool, "facts/")
        response = await post(pool, "gm", "sparetime_reverse", {"entry": entry.id})
        assert response.status_code == 200, response.content.decode()
        assert await heard(opened) == {"gm": [DELEGATION], "ana": [DELEGATION], "ben": []}


async def test_a_refused_delegation_pushes_nothing(pool):
    async with AsyncExitStack() as stack:
        opened = await sockets(stack, pool, "facts/")
        data = {"delegate-player": pool.player.id, "delegate-amount": 0}
        response = await post(pool, "gm", "sparetime_delegate", data)
        assert response.status_code == 422
        assert await heard(opened) == {name: [] for name in USERS}


# Check state -------------------------------------------------------------------------------------


async def test_a_cancelled_check_leaves_the_live_checks_of_the_gm_and_its_player(mana):
    check = await database_sync_to_async(ask)(mana, mana.mira)
    async with AsyncExitStack() as stack:
        opened = await sockets(stack, mana)
        response = await post(mana, "gm", "check_cancel", {}, check.id)
        assert response.status_code == 204
        gone = f'<article id="check-{check.id}" hx-swap-oob="delete"></article>'
        assert await heard(opened) == {"gm": [gone], "ana": [gone], "ben": []}
    live = await sync_to_async(mana.client["ana"].get)(reverse("room", args=[mana.campaign.id]))
    assert f'id="check-{check.id}"' not in live.content.decode()


# Pages outside the room ------------------------------------------------------------------------


async def test_a_page_outside_the_room_hears_facts_alone_and_is_not_at_the_table(pool):
    async with AsyncExitStack() as stack:
        outside = await sockets(stack, pool, "facts/")
        assert await database_sync_to_async(Presence.objects.count)() == 0
        # A roll, a new check and its close: nothing of them reaches a page outside the room.
        check = await database_sync_to_async(ask)(pool, pool.ilse)
        data = {"attribute": pool.strength.id, "skill": pool.jump.id}
        response = await post(pool, "ana", "check_roll", data, check.id)
        assert response.status_code == 204
        assert await heard(outside) == {name: [] for name in USERS}
        # A private fact reaches the entitled pages; a public one every page.
        data = {"grant-character": pool.ilse.id, "grant-amount": 4}
        await post(pool, "gm", "sparetime_grant", data)
        assert await heard(outside) == {
            "gm": [facts(pool.ilse)],
            "ana": [facts(pool.ilse)],
            "ben": [],
        }
        await post(pool, "ana", "character_hp", {"hp_current": 2}, pool.ilse.id)
        assert await heard(outside) == {name: [facts(pool.ilse)] for name in USERS}


async def test_a_removed_member_s_page_outside_the_room_closes(pool, other_player):
    from campaigns.services import membership_remove

    async with AsyncExitStack() as stack:
        ben = await enter(stack, pool, "ben", path="facts/")
        membership = await database_sync_to_async(Membership.objects.get)(
            campaign=pool.campaign, user=other_player
        )
        await database_sync_to_async(membership_remove)(membership=membership)
        closed = await ben.receive_output(timeout=TIMEOUT)
        assert closed["type"] == "websocket.close"
        await post(pool, "ana", "character_hp", {"hp_current": 2}, pool.ilse.id)
        # A quiet window: the closed socket left the room's groups, so no mark reaches it.
        assert await ben.receive_nothing()


async def test_an_outsider_cannot_open_a_facts_socket(pool):
    outsider = await database_sync_to_async(make_user)("zed")
    await database_sync_to_async(with_clients)(pool, outsider)
    async with socket(pool.campaign.id, pool.cookie["zed"], path="facts/") as communicator:
        assert not communicator.connected
