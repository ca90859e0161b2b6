"""The toy third system (tests/systems/coins/) in the room, through the real views and sockets:
the room page for the GM and a player, the GM's ask and a player's request, the coin roll form
with its odds, the roll, the GM's NPC flip, a private and a GM-secret flip and its reveal; each
flip heard on the sockets of those who may see it (a stub on the others'); the log's pages, its
check and ``manage.py verify_rolls``. Nothing of it is outside the coin's package."""

from contextlib import AsyncExitStack
from io import StringIO
from types import SimpleNamespace

import pytest
from channels.db import database_sync_to_async
from django.core.management import call_command
from django.urls import reverse

from rolls import services
from rolls.models import PRIVATE, PUBLIC, SECRET, Check, LogEntry
from sheets.services import character_create
from tests.conftest import make_campaign
from tests.helpers import HTMX, unchanged
from tests.rolls.room_setup import entry_html, odds, refused, script_dice, url
from tests.rolls.sockets import (
    DIE,
    NOTE,
    before_mark,
    enter,
    is_full,
    is_stub,
    post,
    with_clients,
)
from tests.systems import coins


def build_coin_table(campaign, gm, player, other_player):
    """The coin ``campaign`` with Flip (``player``'s), Toss (``other_player``'s) and the GM's
    NPC, the Toll keeper."""
    table = SimpleNamespace(campaign=campaign, gm=gm, player=player, other_player=other_player)
    table.flip = character_create(campaign=campaign, owner=player, name="Flip")
    table.toss = character_create(campaign=campaign, owner=other_player, name="Toss")
    table.keeper = character_create(campaign=campaign, owner=gm, name="Toll keeper")
    return table


@pytest.fixture
def coin_table(coin_system, gm, player, other_player):
    campaign = make_campaign(
        gm, system=coin_system.key, name="Heads or tails", players=[player, other_player]
    )
    return build_coin_table(campaign, gm, player, other_player)


def ask(table, character, target=2, **kwargs):
    """A coin check asked by the GM (services, no view)."""
    return services.check_ask(
        campaign=table.campaign, character=character, by=table.gm, target=target, **kwargs
    )


def page(client, name, table, *args, **params):
    response = client.get(url(name, table, *args), params)
    assert response.status_code == 200, response.content.decode()
    return response.content.decode()


# The room page ----------------------------------------------------------------------------------


def test_the_room_shows_a_coin_check_to_the_gm_and_its_player(coin_table, as_user, gm, player):
    check = ask(coin_table, coin_table.flip, suggestion="the rope bridge")
    mine = page(as_user(player), "room", coin_table)
    assert f'<article id="check-{check.id}"' in mine and "data-asks-me" in mine
    assert "the rope bridge" in mine and "heads needed <b>2</b>" in mine
    assert reverse("check_roll", args=[coin_table.campaign.id, check.id]) in mine
    assert f'name="coins" id="roll-{check.id}-coins"' in mine and 'value="1"' in mine
    assert f'id="odds-{check.id}"' in mine
    assert "<b>Toll keeper</b>" not in mine  # a player sees their own checks alone
    assert '<section class="card" id="requests"' in mine  # and may ask for one

    gms = page(as_user(gm), "room", coin_table)
    assert f'<article id="check-{check.id}"' in gms and "Waiting for ana to roll." in gms
    assert f'name="coins" id="roll-{check.id}-coins"' not in gms
    assert 'id="ask"' in gms and 'name="suggestion"' in gms and "Heads needed" in gms
    assert "What for" in gms  # the coin's own field of what a check is about
    assert 'id="npc-roll"' in gms and 'name="coins" id="roll-npc-coins"' in gms
    assert '<span class="tag">Coins</span>' in gms


def test_another_player_does_not_see_a_coin_check_in_the_room(coin_table, as_user, other_player):
    check = ask(coin_table, coin_table.flip)
    html = page(as_user(other_player), "room", coin_table)
    assert f'id="check-{check.id}"' not in html


def test_an_outsider_gets_404_for_a_coin_room(coin_table, as_user, outsider):
    assert as_user(outsider).get(url("room", coin_table)).status_code == 404


def test_a_coin_room_s_live_checks_and_requests_again(coin_table, as_user, player):
    check = ask(coin_table, coin_table.flip)
    client = as_user(player)
    checks = page(client, "room_checks", coin_table)
    assert f'<article id="check-{check.id}"' in checks and 'name="coins"' in checks
    requests = page(client, "room_requests", coin_table)
    assert 'id="request-' in requests and 'name="suggestion"' in requests


def test_the_gm_plays_a_session_of_a_coin_campaign(coin_table, as_user, gm, player):
    client = as_user(gm)
    started = client.post(url("session_start", coin_table), **HTMX).content.decode()
    assert "Session 1 is running since" in started
    ended = client.post(url("session_end", coin_table), **HTMX).content.decode()
    assert "Session 1 ended" in ended
    assert "Sparetime for session" not in ended  # a coin campaign awards none
    with unchanged():
        assert as_user(player).post(url("session_start", coin_table)).status_code == 403


def test_the_gm_closes_a_coin_check(coin_table, as_user, gm, player):
    check = ask(coin_table, coin_table.flip)
    path = url("check_cancel", coin_table, check.id)
    with unchanged():
        assert as_user(player).post(path, **HTMX).status_code == 403
    assert as_user(gm).post(path, **HTMX).status_code == 204
    check.refresh_from_db()
    assert check.status == Check.DONE
    assert f'id="check-{check.id}"' not in page(as_user(player), "room", coin_table)


# Asking and requesting --------------------------------------------------------------------------


def test_the_gm_asks_a_coin_check_with_htmx(coin_table, as_user, gm, pushes):
    data = {"character": coin_table.flip.id, "suggestion": "the rope bridge", "target": 3}
    data["visibility"] = PUBLIC
    response = as_user(gm).post(url("check_ask", coin_table), data, **HTMX)
    html = response.content.decode()
    assert response.status_code == 200 and 'id="ask"' in html and "Asked." in html
    check = Check.objects.get()
    assert (check.character, check.suggestion, check.target) == (
        coin_table.flip,
        "the rope bridge",
        3,
    )
    assert check.status == Check.OPEN and check.visibility == PUBLIC


def test_the_gm_asks_a_coin_check_with_a_plain_post(coin_table, as_user, gm):
    data = {"character": [coin_table.flip.id, coin_table.toss.id], "target": 1}
    data["visibility"] = PUBLIC
    response = as_user(gm).post(url("check_ask", coin_table), data)
    assert response.status_code == 302 and response["Location"] == url("room", coin_table)
    assert Check.objects.filter(target=1).count() == 2


def test_a_refused_coin_ask_shows_the_room_with_the_refusal(coin_table, as_user, gm):
    data = {"character": coin_table.flip.id, "target": 0}
    with unchanged():
        response = as_user(gm).post(url("check_ask", coin_table), data)
    assert response.status_code == 200
    assert "Ensure this value is greater than or equal to 1." in response.content.decode()


def test_a_player_may_not_ask_a_coin_check(coin_table, as_user, player):
    data = {"character": coin_table.flip.id, "target": 1}
    with unchanged():
        assert as_user(player).post(url("check_ask", coin_table), data).status_code == 403


def test_a_player_requests_a_coin_check_and_the_gm_sets_its_number(
    coin_table, as_user, gm, player, pushes
):
    path = url("check_request", coin_table, coin_table.flip.id)
    data = {"suggestion": "the rope bridge", "visibility": PRIVATE}
    response = as_user(player).post(path, data, **HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert "Requested: the GM sets the heads needed." in html
    check = Check.objects.get()
    assert (check.status, check.suggestion, check.visibility) == (
        Check.REQUESTED,
        "the rope bridge",
        PRIVATE,
    )
    gms = page(as_user(gm), "room", coin_table)
    assert "Set the heads needed" in gms
    set_target = url("check_set_target", coin_table, check.id)
    assert as_user(gm).post(set_target, {"target": 2}, **HTMX).status_code == 204
    check.refresh_from_db()
    assert (check.status, check.target) == (Check.OPEN, 2)
    assert f'name="coins" id="roll-{check.id}-coins"' in page(as_user(player), "room", coin_table)


def test_a_plain_coin_request_goes_back_to_the_room(coin_table, as_user, player):
    path = url("check_request", coin_table, coin_table.flip.id)
    response = as_user(player).post(path, {"visibility": PUBLIC})
    assert response.status_code == 302 and response["Location"] == url("room", coin_table)
    assert Check.objects.get().status == Check.REQUESTED


def test_a_player_requests_a_coin_check_only_for_their_own_character(
    coin_table, as_user, other_player
):
    path = url("check_request", coin_table, coin_table.flip.id)
    with unchanged():
        assert as_user(other_player).post(path, {"visibility": PUBLIC}).status_code == 403


# The roll form and its odds ---------------------------------------------------------------------


def test_the_coin_roll_form_again_keeps_what_was_typed(coin_table, as_user, player):
    check = ask(coin_table, coin_table.flip)
    html = page(as_user(player), "check_form", coin_table, check.id, coins=4, intent="Run")
    assert '<form class="roll"' in html
    assert 'value="4"' in html and 'value="Run"' in html
    assert "68.8%</b> to succeed · 4 coins" in html  # 11 of 16: at least 2 heads of 4


def test_the_odds_of_a_coin_flip(coin_table, as_user, player):
    check = ask(coin_table, coin_table.flip)
    client = as_user(player)
    half = odds(client, coin_table, check, coins=3)
    assert half.strip() == '<b class="chance">50.0%</b> to succeed · 3 coins'
    none = odds(client, coin_table, check, coins=1)
    assert none.strip() == '<b class="chance">0.0%</b> to succeed · 1 coin'
    refused = odds(client, coin_table, check, coins=21)
    assert "Ensure this value is less than or equal to 20." in refused


def test_only_the_player_sees_a_coin_check_s_roll_form_and_odds(coin_table, as_user, gm):
    check = ask(coin_table, coin_table.flip)
    for name in ("check_form", "check_odds"):
        assert as_user(gm).get(url(name, coin_table, check.id), {"coins": 2}).status_code == 403


# Rolling ----------------------------------------------------------------------------------------


def test_a_player_flips_for_a_coin_check_with_htmx(
    coin_table, as_user, player, monkeypatch, pushes, django_capture_on_commit_callbacks
):
    check = ask(coin_table, coin_table.flip, note=NOTE)
    script_dice(monkeypatch, 1, 0, 1)
    data = {"coins": 3, "intent": "Cross the bridge"}
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(player).post(url("check_roll", coin_table, check.id), data, **HTMX)
    assert response.status_code == 204  # the card and the entry come on the sockets
    entry = LogEntry.objects.get(kind=LogEntry.ROLL)
    d = entry.data
    assert (d["faces"], d["heads"], d["success"]) == ([1, 0, 1], 2, True)
    assert entry.data["intent"] == "Cross the bridge" and entry.data["chance"] == "1/2"
    check.refresh_from_db()
    assert check.status == Check.DONE
    [pushed] = pushes.entries()
    [card] = pushes.checks()  # the check is done: its card leaves the live checks
    assert card["gm"] == f'<article id="check-{check.id}" hx-swap-oob="delete"></article>'
    assert pushed["all"].count('class="die coin"') == 3
    html = entry_html(page(as_user(player), "room", coin_table), entry.seq)
    assert "Flip · 3 coins" in html and "Cross the bridge" in html
    assert html.count('class="die coin"') == 3 and "2 heads vs 2: <b>✓ success</b>" in html


def test_a_player_flips_for_a_coin_check_with_a_plain_post(coin_table, as_user, player):
    check = ask(coin_table, coin_table.flip)
    response = as_user(player).post(url("check_roll", coin_table, check.id), {"coins": 2})
    assert response.status_code == 302 and response["Location"] == url("room", coin_table)
    assert LogEntry.objects.get(kind=LogEntry.ROLL).data["coins"] == 2


def test_a_refused_coin_flip_shows_the_card_with_the_refusal(
    coin_table, as_user, player, pushes, django_capture_on_commit_callbacks
):
    check = ask(coin_table, coin_table.flip)
    path, client = url("check_roll", coin_table, check.id), as_user(player)
    capture = django_capture_on_commit_callbacks
    html = refused(client, path, {"coins": 0}, coin_table.campaign, pushes, capture)
    assert f'<article id="check-{check.id}"' in html
    assert "Coins: Ensure this value is greater than or equal to 1." in html


def test_only_the_player_flips_for_a_coin_check(coin_table, as_user, gm, other_player):
    check = ask(coin_table, coin_table.flip)
    for user in (gm, other_player):
        with unchanged():
            response = as_user(user).post(url("check_roll", coin_table, check.id), {"coins": 2})
        assert response.status_code == 403


def test_a_coin_check_has_no_shift_to_answer(coin_table, as_user, gm):
    check = ask(coin_table, coin_table.flip)
    path = url("check_answer_shift", coin_table, check.id)
    with unchanged():
        response = as_user(gm).post(path, {"answer": "approve"}, **HTMX)
    assert response.status_code == 422
    assert "No shift awaits an answer on this check." in response.content.decode()


# The GM's NPC flip -------------------------------------------------------------------------------


def test_the_gm_s_npc_flip_form_and_odds(coin_table, as_user, gm):
    client = as_user(gm)
    values = {"character": coin_table.keeper.id, "target": 2, "coins": 2}
    html = page(client, "npc_form", coin_table, **values)
    assert '<form class="roll npc"' in html
    assert 'name="coins" id="roll-npc-coins"' in html and 'value="2"' in html
    assert "25.0%</b> to succeed · 2 coins" in html
    quarter = page(client, "npc_odds", coin_table, **values)
    assert quarter.strip() == '<b class="chance">25.0%</b> to succeed · 2 coins'
    missing = page(client, "npc_odds", coin_table, character=coin_table.keeper.id, coins=2)
    assert "Set the heads needed to see the chance." in missing and "error" not in missing


def test_the_gm_flips_for_an_npc_through_the_view(
    coin_table, as_user, gm, monkeypatch, pushes, django_capture_on_commit_callbacks
):
    script_dice(monkeypatch, 0, 0)
    data = {"character": coin_table.keeper.id, "target": 1, "coins": 2, "visibility": PUBLIC}
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(gm).post(url("npc_roll", coin_table), data, **HTMX)
    html = response.content.decode()
    assert response.status_code == 200 and "Rolled: the log shows it." in html
    entry = LogEntry.objects.get(kind=LogEntry.ROLL)
    assert (entry.actor, entry.character, entry.data["heads"]) == (gm, coin_table.keeper, 0)
    assert Check.objects.get().status == Check.DONE
    [message] = pushes.entries()
    assert "0 heads vs 1: <b>✗ failure</b>" in message["all"]


def test_a_refused_npc_flip_keeps_what_was_posted(
    coin_table, as_user, gm, pushes, django_capture_on_commit_callbacks
):
    data = {"character": coin_table.keeper.id, "target": 1, "coins": 30, "note": "Toll"}
    data["visibility"] = PUBLIC
    path, capture = url("npc_roll", coin_table), django_capture_on_commit_callbacks
    html = refused(as_user(gm), path, data, coin_table.campaign, pushes, capture)
    assert "Coins: Ensure this value is less than or equal to 20." in html
    assert 'value="Toll"' in html


def test_a_player_has_no_npc_flip(coin_table, as_user, player):
    client = as_user(player)
    for name in ("npc_form", "npc_odds"):
        assert client.get(url(name, coin_table)).status_code == 403
    data = {"character": coin_table.keeper.id, "target": 1, "coins": 2}
    with unchanged():
        assert client.post(url("npc_roll", coin_table), data).status_code == 403


# Private and secret flips, the reveal ------------------------------------------------------------


def test_a_private_coin_flip_is_a_stub_to_another_player(
    coin_table, as_user, gm, player, other_player, monkeypatch
):
    check = ask(coin_table, coin_table.flip, note=NOTE, visibility=PRIVATE)
    script_dice(monkeypatch, 0, 1, 0)
    data = {"coins": 3, "intent": "Hide"}
    assert as_user(player).post(url("check_roll", coin_table, check.id), data).status_code == 302
    seq = LogEntry.objects.get(kind=LogEntry.ROLL).seq
    for user in (gm, player):
        assert is_full(entry_html(page(as_user(user), "room", coin_table), seq))
    stub = entry_html(page(as_user(other_player), "room", coin_table), seq)
    assert is_stub(stub) and "ana</b> rolled privately." in stub and "Hide" not in stub


def test_the_gm_reveals_a_secret_npc_flip(coin_table, as_user, gm, player, monkeypatch):
    script_dice(monkeypatch, 1, 0, 0)
    data = {"character": coin_table.keeper.id, "target": 3, "coins": 3, "visibility": SECRET}
    data["note"] = NOTE
    assert as_user(gm).post(url("npc_roll", coin_table), data).status_code == 302
    secret = LogEntry.objects.get(kind=LogEntry.ROLL)
    assert secret.visibility == SECRET and secret.commitment
    stub = entry_html(page(as_user(player), "room", coin_table), secret.seq)
    assert is_stub(stub) and "rolled in secret" in stub
    gms = entry_html(page(as_user(gm), "room", coin_table), secret.seq)
    assert is_full(gms)
    reveal_url = url("roll_reveal", coin_table, secret.seq)
    assert reveal_url in gms

    response = as_user(player).post(reveal_url, **HTMX)
    assert response.status_code == 403
    response = as_user(gm).post(reveal_url, **HTMX)
    assert response.status_code == 200
    reveal = LogEntry.objects.get(kind=LogEntry.REVEAL)
    assert response.content.decode() == f'<span class="muted">Revealed as #{reveal.seq}.</span>'
    shown = entry_html(page(as_user(player), "room", coin_table), reveal.seq)
    assert "revealed the secret roll" in shown and "✓ matches the commitment" in shown
    assert "Toll keeper · 3 coins" in shown and shown.count('class="die coin"') == 3
    assert "1 heads vs 3: <b>✗ failure</b>" in shown
    assert services.log_verify(coin_table.campaign) is None


# The log's pages and its check ------------------------------------------------------------------


@pytest.fixture
def flipped(coin_table, gm, player):
    """Three flips in the coin campaign: Flip's public and private, the GM's secret one."""
    entries = []
    for visibility in (PUBLIC, PRIVATE):
        check = ask(coin_table, coin_table.flip, visibility=visibility)
        entries.append(coins.SYSTEM.roll(check, by=player, data={"coins": 2}))
    _check, secret = services.check_roll_npc(
        campaign=coin_table.campaign,
        character=coin_table.keeper,
        by=gm,
        target=1,
        data={"coins": 1},
        visibility=SECRET,
    )
    return [*entries, secret]


def test_the_log_page_of_a_coin_campaign(coin_table, flipped, as_user, gm, other_player):
    last = flipped[-1].seq
    ben = page(as_user(other_player), "room_log", coin_table, before=last + 1)
    assert [f'id="entry-{e.seq}"' in ben for e in flipped] == [True] * 3
    assert entry_html(ben, flipped[0].seq).count('class="die coin"') == 2
    assert not DIE.search(entry_html(ben, flipped[1].seq) + entry_html(ben, flipped[2].seq))
    gms = page(as_user(gm), "room_log", coin_table, before=last + 1)
    assert entry_html(gms, flipped[2].seq).count('class="die coin"') == 1
    assert url("roll_reveal", coin_table, flipped[2].seq) in gms
    older = page(as_user(gm), "room_log", coin_table, before=flipped[1].seq)
    assert f'id="entry-{flipped[0].seq}"' in older and f'id="entry-{flipped[1].seq}"' not in older


def test_a_coin_campaign_s_log_is_verified(coin_table, flipped, as_user, gm):
    html = page(as_user(gm), "verify_log", coin_table)
    assert "The log is whole." in html
    out = StringIO()
    call_command("verify_rolls", campaign=coin_table.campaign.id, stdout=out)
    assert out.getvalue().startswith(
        f"The roll log of campaign {coin_table.campaign.id} “Heads or tails” is whole: 3 entries"
    )


# The sockets -------------------------------------------------------------------------------------

sockets = pytest.mark.django_db(transaction=True)


@pytest.fixture
def table(coin_table, gm, player, other_player):
    """The coin table with a logged-in test client and its session cookie for each user."""
    return with_clients(coin_table, gm, player, other_player)


async def in_the_room(stack, table):
    """The GM's, ana's and ben's sockets, each past what it heard on arriving."""
    gm, ana, ben = [await enter(stack, table, name) for name in ("gm", "ana", "ben")]
    await before_mark(gm, ana, ben, presence=False)
    return gm, ana, ben


@sockets
@pytest.mark.asyncio
@pytest.mark.usefixtures("empty_channel_layer")
async def test_a_coin_check_and_its_flip_reach_the_room(table, monkeypatch):
    async with AsyncExitStack() as stack:
        gm, ana, ben = await in_the_room(stack, table)
        data = {"character": table.flip.id, "suggestion": "the rope bridge", "target": 2}
        data["visibility"] = PUBLIC
        response = await post(table, "gm", "check_ask", data)
        assert response.status_code == 200
        check = await database_sync_to_async(Check.objects.get)()

        [to_gm], [to_ana], to_ben = await before_mark(gm, ana, ben, presence=False)
        assert to_ben == []  # a check reaches the GM and its player alone
        assert to_gm.startswith('<div hx-swap-oob="afterbegin:#checks">')
        assert "Waiting for ana to roll." in to_gm
        assert f'name="coins" id="roll-{check.id}-coins"' in to_ana

        script_dice(monkeypatch, 1, 1, 0)
        roll = {"coins": 3, "intent": "Cross the bridge"}
        response = await post(table, "ana", "check_roll", roll, check.id)
        assert response.status_code == 204

        gm_frames, ana_frames, [ben_entry] = await before_mark(gm, ana, ben, presence=False)
        for entry, gone in (gm_frames, ana_frames):
            assert entry == ben_entry  # a public flip: the same entry to everyone
            assert gone == f'<article id="check-{check.id}" hx-swap-oob="delete"></article>'
        assert 'hx-swap-oob="beforeend:#log"' in ben_entry
        assert ben_entry.count('class="die coin"') == 3 and "Cross the bridge" in ben_entry
        assert "2 heads vs 2: <b>✓ success</b>" in ben_entry


@sockets
@pytest.mark.asyncio
@pytest.mark.usefixtures("empty_channel_layer")
async def test_a_private_coin_flip_reaches_another_player_as_a_stub(table, monkeypatch):
    check = await database_sync_to_async(ask)(table, table.flip, note=NOTE, visibility=PRIVATE)
    async with AsyncExitStack() as stack:
        gm, ana, ben = await in_the_room(stack, table)
        script_dice(monkeypatch, 0, 0)
        roll = {"coins": 2, "intent": "INTENT-PRIVATE"}
        response = await post(table, "ana", "check_roll", roll, check.id)
        assert response.status_code == 204

        gm_frames, ana_frames, [ben_entry] = await before_mark(gm, ana, ben, presence=False)
        assert is_stub(ben_entry) and "rolled privately" in ben_entry
        assert "INTENT-PRIVATE" not in ben_entry
        for entry, _gone in (gm_frames, ana_frames):
            assert is_full(entry) and entry.count('class="die coin"') == 2
            assert "INTENT-PRIVATE" in entry


@sockets
@pytest.mark.asyncio
@pytest.mark.usefixtures("empty_channel_layer")
async def test_a_secret_npc_flip_and_its_reveal_reach_the_room(table, monkeypatch):
    async with AsyncExitStack() as stack:
        gm, ana, ben = await in_the_room(stack, table)
        script_dice(monkeypatch, 0)
        data = {"character": table.keeper.id, "target": 1, "coins": 1, "visibility": SECRET}
        data["note"] = NOTE
        response = await post(table, "gm", "npc_roll", data)
        assert response.status_code == 200

        [to_gm], [to_ana], [to_ben] = await before_mark(gm, ana, ben, presence=False)
        assert is_full(to_gm) and 'class="die coin"' in to_gm
        for stub in (to_ana, to_ben):
            assert is_stub(stub) and "rolled in secret" in stub
        secret = await database_sync_to_async(LogEntry.objects.get)(kind=LogEntry.ROLL)
        assert url("roll_reveal", table, secret.seq) in to_gm

        response = await post(table, "gm", "roll_reveal", {}, secret.seq)
        assert response.status_code == 200
        heard = await before_mark(gm, ana, ben, presence=False)
        for [reveal] in heard:
            assert "revealed the secret roll" in reveal and reveal.count('class="die coin"') == 1
            assert "0 heads vs 1: <b>✗ failure</b>" in reveal
