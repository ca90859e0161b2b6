"""The initiative order heard through real sockets (config.asgi, the channel layer of the run):
each change of the order reaches every member's room socket as the card rendered for them (the
GM's with the controls, the player whose turn it is with "Your turn", nobody else's with
either), and a start, a turn and an end arrive in the log, chained as every entry; a refused
write sends nothing."""

import re
from contextlib import AsyncExitStack

import pytest
from asgiref.sync import sync_to_async

from rolls import services as rolls_services
from rolls.models import LogEntry
from tests.rolls.sockets import before_mark, enter, post, receive, with_clients

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.asyncio,
    pytest.mark.usefixtures("empty_channel_layer"),
]


@pytest.fixture
def table(pool_table, gm, player, other_player):
    """The Pool table, its GM and players' clients; ana plays Ilse, ben plays Tor."""
    return with_clients(pool_table, gm, player, other_player)


async def sockets(stack, table):
    found = [await enter(stack, table, name) for name in ("gm", "ana", "ben")]
    await before_mark(*found, presence=False)
    return found


def split(frames):
    """(the log entries, the initiative cards) among ``frames``."""
    entries = [f for f in frames if "data-seq=" in f]
    cards = [f for f in frames if 'id="initiative"' in f and "data-seq=" not in f]
    assert len(entries) + len(cards) == len(frames), frames
    return entries, cards


def current(card):
    """The name marked as the current turn in a card."""
    found = re.search(r'aria-current="true"[^>]*><span class="initiative-name">([^<]+)<', card)
    return found.group(1) if found else None


async def test_start_next_and_end_reach_every_member(table):
    await post(table, "gm", "combatant_add", {"character": table.ilse.pk, "score": 12})
    await post(table, "gm", "combatant_add", {"name": "Goblin", "score": 9})
    async with AsyncExitStack() as stack:
        gm, ana, ben = await sockets(stack, table)

        response = await post(table, "gm", "initiative_start", {})
        assert response.status_code == 200
        heard = await before_mark(gm, ana, ben, presence=False)
        for name, frames in zip(("gm", "ana", "ben"), heard, strict=True):
            [entry], [card] = split(frames)
            assert "Initiative started: round 1, Ilse’s turn" in entry
            assert current(card) == "Ilse" and "Round <b data-round>1</b>" in card
            assert ("Next turn" in card) == (name == "gm")  # the GM's controls, the GM's alone
            assert ("initiative-add" in card) == (name == "gm")
            assert ("data-my-turn" in card) == (name == "ana")  # Ilse is ana's

        await post(table, "gm", "initiative_next", {})
        heard = await before_mark(gm, ana, ben, presence=False)
        for frames in heard:
            [entry], [card] = split(frames)
            assert "Round 1: Goblin’s turn" in entry
            assert current(card) == "Goblin" and "data-my-turn" not in card

        await post(table, "gm", "initiative_next", {})  # past the last: round 2
        heard = await before_mark(gm, ana, ben, presence=False)
        for name, frames in zip(("gm", "ana", "ben"), heard, strict=True):
            [entry], [card] = split(frames)
            assert "Round 2: Ilse’s turn" in entry
            assert "Round <b data-round>2</b>" in card
            assert ("data-my-turn" in card) == (name == "ana")

        await post(table, "gm", "initiative_end", {})
        heard = await before_mark(gm, ana, ben, presence=False)
        for frames in heard:
            [entry], [card] = split(frames)
            assert "Initiative ended after round 2" in entry
            assert "No turn order." in card and "aria-current" not in card

        # Refused (no order any more): nothing at all reaches anyone.
        response = await post(table, "gm", "initiative_next", {})
        assert response.status_code == 422
        assert await before_mark(gm, ana, ben, presence=False) == [[], [], []]

    kinds = await sync_to_async(
        lambda: [
            e.data["action"]
            for e in LogEntry.objects.filter(campaign=table.campaign, kind=LogEntry.TURNS)
        ]
    )()
    assert kinds == ["start", "turn", "turn", "end"]
    found = await sync_to_async(rolls_services.log_check)(table.campaign)
    assert not found.broken


async def test_a_rolled_score_arrives_as_a_free_roll_and_the_card(table):
    async with AsyncExitStack() as stack:
        gm, ana, ben = await sockets(stack, table)
        await post(table, "gm", "combatant_add", {"name": "Wolf", "dice": "2d6"})
        for frames in await before_mark(gm, ana, ben, presence=False):
            [entry], [card] = split(frames)
            assert "free_roll" in entry and "2d6" in entry
            total = re.search(r"Total <b>(\d+)</b>", entry).group(1)
            assert re.search(rf'Wolf</span> <b class="initiative-score">{total}</b>', card)


async def test_a_reconnecting_socket_gets_the_turns_it_missed(table):
    await post(table, "gm", "combatant_add", {"name": "Goblin", "score": 9})
    await post(table, "gm", "initiative_start", {})
    await post(table, "gm", "initiative_next", {})
    async with AsyncExitStack() as stack:
        ana = await enter(stack, table, "ana", query="?after=0")
        frames = [await receive(ana) for _ in range(2)]
        assert "Initiative started" in frames[0] and "Round 2: Goblin’s turn" in frames[1]
