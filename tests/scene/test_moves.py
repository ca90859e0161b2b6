"""Moving a token over HTTP (scene.move_views, scene.moves): who may move which token, where
to, what is stored and what is pushed; every refusal changes and pushes nothing."""

import re
from functools import partial

import pytest
from django.db import transaction
from django.test import Client
from django.urls import reverse

from scene.models import Token
from scene.moves import snapped, token_move
from tests.helpers import HTMX, race, raises_refused, unchanged
from tests.rolls.room_setup import refused
from tests.scene.move_setup import build_scene_table


@pytest.fixture
def table(pool_campaign, gm, player, other_player):
    return build_scene_table(pool_campaign, gm, player, other_player)


def client_as(user):
    client = Client()
    client.force_login(user)
    return client


def move_path(table, token):
    return reverse("token_move", args=[table.campaign.pk, token.pk])


@pytest.fixture
def move(table, django_capture_on_commit_callbacks):
    """``move(user, token, data)``: the user's htmx POST, its on-commit callbacks (its pushes)
    run as after a real commit."""

    def post(user, token, data):
        with django_capture_on_commit_callbacks(execute=True):
            return client_as(user).post(move_path(table, token), data, **HTMX)

    return post


def place(token):
    token.refresh_from_db()
    return token.x, token.y, token.moves


# Who may move what ----------------------------------------------------------------------------


def test_a_player_moves_their_character_s_token_snapped_and_pushed(table, pushes, move):
    mira = table.tokens.mira
    response = move(table.player, mira, {"x": "160", "y": "110"})
    assert response.status_code == 200
    html = response.content.decode()
    assert f'id="token-{mira.pk}"' in html and 'data-moves="1"' in html
    assert "data-movable" in html
    assert place(mira) == (175, 125, 1)  # the middle of its square
    [(campaign_id, message)] = pushes.sent
    assert campaign_id == table.campaign.pk
    assert 'data-x="175"' in message["all"] and "data-movable" not in message["all"]
    assert "data-movable" in message["gm"]
    assert "data-movable" in message["users"][str(table.player.pk)]
    assert 'hx-swap-oob="true"' in message["all"]


def test_the_gm_moves_any_token_and_the_gm_only_layer_is_pushed_to_the_gm_alone(
    table, pushes, move
):
    for token in (table.tokens.tobin, table.tokens.guard, table.tokens.ambush):
        response = move(table.gm, token, {"x": "399", "y": "0"})
        assert response.status_code == 200
        assert place(token)[2] == 1
    *_, (_, ambush) = pushes.sent
    assert list(ambush) == ["gm"]  # no "all", no "users": it never reaches a player's socket
    assert "Ghoul" in ambush["gm"]


def test_moves_count_up_and_the_last_wins(table, move):
    mira = table.tokens.mira
    for x, expected in ((60, 75), (260, 275), (0, 25)):
        assert move(table.player, mira, {"x": x, "y": 10}).status_code == 200
        assert place(mira)[0] == expected
    assert place(mira) == (25, 25, 3)


def test_without_snap_or_grid_the_token_lands_where_dropped(table, move):
    table.scene.snap = False
    table.scene.save()
    assert move(table.gm, table.tokens.guard, {"x": "7", "y": "299"}).status_code == 200
    assert place(table.tokens.guard) == (7, 299, 1)
    table.scene.snap, table.scene.grid = True, 0
    table.scene.save()
    assert move(table.gm, table.tokens.guard, {"x": " 8 ", "y": "9"}).status_code == 200
    assert place(table.tokens.guard) == (8, 9, 2)


def test_a_snapped_square_cut_by_the_edge_stays_on_the_map(table, move):
    table.scene.grid_x, table.scene.grid_y = 20, 20
    table.scene.save()
    assert move(table.gm, table.tokens.guard, {"x": "5", "y": "299"}).status_code == 200
    x, y, _ = place(table.tokens.guard)
    assert x == 0 and y == 295  # the square the bottom edge cuts: its middle is on the map
    assert snapped(5, grid=50, offset=20) == -5  # the square left of the first line


def test_an_outsider_gets_404(table, outsider, pushes, move):
    with unchanged():
        response = move(outsider, table.tokens.mira, {"x": 10, "y": 10})
    assert response.status_code == 404 and pushes.sent == []


def test_another_player_s_token_is_403(table, pushes, move):
    with unchanged():
        for token in (table.tokens.tobin, table.tokens.guard):
            assert move(table.player, token, {"x": 10, "y": 10}).status_code == 403
    assert pushes.sent == []


def test_a_gm_only_token_is_404_to_a_player(table, pushes, move):
    with unchanged():
        response = move(table.player, table.tokens.ambush, {"x": 10, "y": 10})
    assert response.status_code == 404 and pushes.sent == []


def test_a_token_of_another_campaign_is_404(table, gm, player, other_player, pushes):
    from tests.conftest import make_campaign

    other = build_scene_table(
        make_campaign(gm, players=[player, other_player], name="Elsewhere"),
        gm,
        player,
        other_player,
    )
    path = reverse("token_move", args=[table.campaign.pk, other.tokens.mira.pk])
    with unchanged():
        assert client_as(gm).post(path, {"x": 1, "y": 1}, **HTMX).status_code == 404


def test_get_is_not_allowed(table):
    assert client_as(table.gm).get(move_path(table, table.tokens.mira)).status_code == 405


# Bad input: refused with a sentence, nothing changed, nothing pushed ---------------------------


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"x": "10"},
        {"y": "10"},
        {"x": "", "y": ""},
        {"x": "ten", "y": "10"},
        {"x": "1.5", "y": "10"},
        {"x": "1e3", "y": "10"},
        {"x": "٣", "y": "10"},  # an Arabic-Indic digit
        {"x": "10", "y": "9" * 5000},  # past Python's int() digit limit
        {"x": "-" + "9" * 30, "y": "10"},
        {"x": "-1", "y": "10"},
        {"x": "10", "y": "-1"},
        {"x": "400", "y": "10"},  # the width: one past the last pixel
        {"x": "10", "y": "300"},
        {"x": "999999999", "y": "999999999"},
        {"x": str(2**31), "y": "10"},
    ],
)
def test_bad_coordinates_are_refused_with_a_sentence(
    table, data, pushes, django_capture_on_commit_callbacks
):
    client = client_as(table.player)
    path = move_path(table, table.tokens.mira)
    text = refused(client, path, data, table.campaign, pushes, django_capture_on_commit_callbacks)
    assert text.endswith(".") and ("off the map" in text or "whole numbers" in text)


def test_a_token_not_on_the_shown_scene_is_refused(
    table, pushes, django_capture_on_commit_callbacks
):
    for user in (table.player, table.gm):
        text = refused(
            client_as(user),
            move_path(table, table.tokens.cellar),
            {"x": 10, "y": 10},
            table.campaign,
            pushes,
            django_capture_on_commit_callbacks,
        )
        assert "not shown" in text


def test_a_plain_post_goes_back_to_the_room_with_the_refusal(table, pushes):
    client = client_as(table.player)
    path = move_path(table, table.tokens.mira)
    response = client.post(path, {"x": 1000, "y": 10})
    assert response.status_code == 302 and response["Location"] == reverse(
        "room", args=[table.campaign.pk]
    )
    page = client.get(response["Location"]).content.decode()
    assert "off the map" in page
    assert client.post(path, {"x": 100, "y": 10}).status_code == 302
    assert place(table.tokens.mira) == (125, 25, 1)


# The service ----------------------------------------------------------------------------------


def test_the_service_refuses_and_counts(table, move):
    mira = table.tokens.mira
    with raises_refused("off the map"):
        token_move(token=mira, x=400, y=0, by=table.player)
    moved = token_move(token=mira, x=399, y=299, by=table.player)
    assert (moved.x, moved.y, moved.moves) == (375, 275, 1)
    assert Token.objects.get(pk=mira.pk).moves == 1


def test_a_move_is_state_not_history(table, move):
    from rolls.models import LogEntry

    assert move(table.player, table.tokens.mira, {"x": 60, "y": 60}).status_code == 200
    assert not LogEntry.objects.filter(campaign=table.campaign).exists()


@pytest.mark.django_db(transaction=True)
def test_moves_at_once_each_take_the_next_number_and_the_last_wins(
    pool_campaign, gm, player, other_player, monkeypatch
):
    table = build_scene_table(pool_campaign, gm, player, other_player)
    mira = table.tokens.mira
    sent = []
    monkeypatch.setattr("core.push.send", lambda campaign_id, *messages: sent.extend(messages))
    places = [(25 + 50 * i, 75) for i in range(4)]
    outcomes = race(*[partial(atomic_move, mira, x, y, player) for x, y in places])
    assert sorted(moved.moves for moved in outcomes) == [1, 2, 3, 4]
    last = max(outcomes, key=lambda moved: moved.moves)
    assert place(mira) == (last.x, last.y, 4)
    counts = sorted(int(re.search(r'data-moves="(\d+)"', m["all"]).group(1)) for m in sent)
    assert counts == [1, 2, 3, 4]


def atomic_move(token, x, y, by):
    with transaction.atomic():
        return token_move(token=token, x=x, y=y, by=by)
