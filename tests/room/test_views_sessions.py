"""The GM's session controls in the room: session_start, session_end, and the award the room
offers once a session ended (posted to sparetime_award with from=room, answered in the room)."""

import pytest
from django.urls import reverse

from rolls import services
from rolls.models import LogEntry
from rolls.systems.pool import services as pool_services
from rolls.systems.pool.sparetime.models import SparetimeEntry
from sheets.services import character_create
from tests.conftest import make_campaign
from tests.helpers import HTMX, db_snapshot
from tests.rolls.room_setup import ask, refused, url
from tests.rules.scripted_rng import ScriptedRng


def test_gm_starts_a_session(pool_table, as_user, gm, pushes, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(gm).post(url("session_start", pool_table), **HTMX)
    assert response.status_code == 200
    session = pool_table.campaign.game_sessions.get()
    assert session.number == 1 and session.is_open
    html = response.content.decode()
    assert html.startswith('<section id="session"') and "End session 1" in html
    entry = LogEntry.objects.get()
    assert entry.kind == LogEntry.SESSION_START
    [message] = pushes.entries()
    assert message["seq"] == entry.seq and "Session 1 started" in message["all"]


def test_a_running_session_cannot_start_again(
    pool_table, as_user, gm, pushes, django_capture_on_commit_callbacks
):
    services.session_start(campaign=pool_table.campaign, by=gm)
    html = refused(
        as_user(gm),
        url("session_start", pool_table),
        {},
        pool_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert "A session is already running." in html


def test_no_session_to_end(pool_table, as_user, gm, pushes, django_capture_on_commit_callbacks):
    html = refused(
        as_user(gm),
        url("session_end", pool_table),
        {},
        pool_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert "No session is running." in html


def test_ending_a_session_offers_the_award_to_those_who_rolled(
    pool_table, as_user, gm, player, pushes, django_capture_on_commit_callbacks
):
    services.session_start(campaign=pool_table.campaign, by=gm)
    check = ask(pool_table, pool_table.ilse, target=2)
    pool_services.check_roll_pool(
        check=check, by=player, attribute=pool_table.strength, skill=None, rng=ScriptedRng(1, 2, 3)
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(gm).post(url("session_end", pool_table), **HTMX)
    assert response.status_code == 200
    assert not pool_table.campaign.game_sessions.get().is_open
    html = response.content.decode()
    assert "Start session 2" in html
    assert "Sparetime for session 1" in html
    assert f'action="{url("sparetime_award", pool_table)}"' in html
    assert '<input type="hidden" name="from" value="room">' in html
    assert f'value="{pool_table.ilse.id}" id="id_characters_0" checked> Ilse' in html
    assert html.count(" checked>") == 1
    assert "Tor" in html  # offered, not ticked
    [message] = pushes.entries()
    assert "Session 1 ended" in message["all"]
    # The room keeps offering it until something was awarded for that session.
    assert "Sparetime for session 1" in as_user(gm).get(url("room", pool_table)).content.decode()


def test_session_without_htmx_redirects(pool_table, as_user, gm):
    response = as_user(gm).post(url("session_start", pool_table))
    assert response.status_code == 302 and response.url == url("room", pool_table)


@pytest.mark.parametrize("name", ["session_start", "session_end", "sparetime_award"])
def test_session_access(pool_table, as_user, player, outsider, name):
    before = db_snapshot()
    assert as_user(player).post(url(name, pool_table), **HTMX).status_code == 403
    assert as_user(outsider).post(url(name, pool_table), **HTMX).status_code == 404
    response = as_user(None).post(url(name, pool_table))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))
    assert db_snapshot() == before


@pytest.mark.parametrize("name", ["session_start", "session_end", "sparetime_award"])
def test_session_controls_are_post_only(pool_table, as_user, gm, name):
    assert as_user(gm).get(url(name, pool_table)).status_code == 405


# The award, from the room -------------------------------------------------------------------------


@pytest.fixture
def ended(pool_table, gm):
    services.session_start(campaign=pool_table.campaign, by=gm)
    session, _entry = services.session_end(campaign=pool_table.campaign, by=gm)
    return session


def award_data(pool_table, ended_session, **overrides):
    data = {
        "session": ended_session.id,
        "characters": [pool_table.ilse.id, pool_table.tor.id],
        "amount": 2,
    }
    return {**data, "note": "Good night", "from": "room", **overrides}


def test_gm_awards_sparetime(pool_table, as_user, gm, ended):
    response = as_user(gm).post(
        url("sparetime_award", pool_table), award_data(pool_table, ended), **HTMX
    )
    assert response.status_code == 200
    rows = SparetimeEntry.objects.filter(kind=SparetimeEntry.AWARD)
    assert sorted((r.character.name, r.amount, r.session_id, r.note) for r in rows) == [
        ("Ilse", 2, ended.id, "Good night"),
        ("Tor", 2, ended.id, "Good night"),
    ]
    html = response.content.decode()
    assert "Awarded 2 sparetime each to" in html and "Ilse" in html and "Tor" in html
    assert "Sparetime for session 1" not in html
    assert (
        "Sparetime for session 1" not in as_user(gm).get(url("room", pool_table)).content.decode()
    )


def test_award_without_htmx_redirects(pool_table, as_user, gm, ended):
    response = as_user(gm).post(url("sparetime_award", pool_table), award_data(pool_table, ended))
    assert response.status_code == 302 and response.url == url("room", pool_table)


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"amount": 0}, "greater than or equal to 1"),
        ({"amount": -2}, "greater than or equal to 1"),
        ({"amount": "two"}, "Enter a whole number."),
        ({"amount": 10**9}, "less than or equal to 10000"),
        ({"amount": ""}, "This field is required."),
        ({"characters": []}, "Tick at least one character."),
        ({"characters": [99999]}, "Choose characters of this campaign."),
        ({"characters": ["x"]}, "Choose characters of this campaign."),
        ({"characters": ["9" * 30]}, "Choose characters of this campaign."),
        ({"session": "9" * 30}, "Choose an ended session."),
        ({"session": 99999}, "Choose an ended session."),
        ({"note": "n" * 201}, "at most 200 characters"),
    ],
)
def test_bad_awards_change_nothing(
    pool_table, as_user, gm, ended, pushes, django_capture_on_commit_callbacks, overrides, message
):
    html = refused(
        as_user(gm),
        url("sparetime_award", pool_table),
        award_data(pool_table, ended, **overrides),
        pool_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert message in html
    assert 'class="award"' in html


def test_award_to_another_campaigns_character_or_session(
    pool_table, as_user, gm, player, ended, pushes, django_capture_on_commit_callbacks
):
    other = make_campaign(gm, name="Elsewhere", players=[player])
    faraway = character_create(campaign=other, owner=player, name="Faraway")
    services.session_start(campaign=other, by=gm)
    other_session, _entry = services.session_end(campaign=other, by=gm)
    client = as_user(gm)
    for data, message in [
        (
            award_data(pool_table, ended, characters=[faraway.id]),
            "Choose characters of this campaign.",
        ),
        (award_data(pool_table, other_session), "Choose an ended session."),
    ]:
        html = refused(
            client,
            url("sparetime_award", pool_table),
            data,
            pool_table.campaign,
            pushes,
            django_capture_on_commit_callbacks,
        )
        assert message in html


def test_a_running_session_cannot_be_awarded_yet(
    pool_table, as_user, gm, pushes, django_capture_on_commit_callbacks
):
    session, _entry = services.session_start(campaign=pool_table.campaign, by=gm)
    html = refused(
        as_user(gm),
        url("sparetime_award", pool_table),
        award_data(pool_table, session),
        pool_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert "Choose an ended session." in html


def test_mana_campaigns_have_no_sparetime(mana_table, mana_campaign, gm, as_user, pushes):
    services.session_start(campaign=mana_campaign, by=gm)
    session, _entry = services.session_end(campaign=mana_campaign, by=gm)
    room = as_user(gm).get(url("room", mana_table)).content.decode()
    assert "Sparetime for session" not in room
    data = {"session": session.id, "characters": [mana_table.mira.id], "amount": 1, "from": "room"}
    before = db_snapshot()
    # Sparetime's views do not exist in a Mana campaign.
    assert as_user(gm).post(url("sparetime_award", mana_table), data, **HTMX).status_code == 404
    assert db_snapshot() == before and pushes.sent == []


# Checks left open when a session ends ----------------------------------------------------------


def test_a_session_ended_with_live_checks_says_so_and_offers_to_close_them(
    pool_table, as_user, gm, player, pushes, django_capture_on_commit_callbacks
):
    services.session_start(campaign=pool_table.campaign, by=gm)
    check = ask(pool_table, pool_table.ilse)
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(gm).post(url("session_end", pool_table), **HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert "1 check is still open after the session." in html
    assert reverse("checks_close", args=[pool_table.campaign.id]) in html
    check.refresh_from_db()
    assert check.status == "open"  # kept until the GM closes it

    pushes.sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(gm).post(url("checks_close", pool_table), **HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert "Closed 1 check." in html and "still open" not in html
    check.refresh_from_db()
    assert check.status == "done"
    [message] = pushes.checks()
    gone = f'<article id="check-{check.id}" hx-swap-oob="delete"></article>'
    assert message["gm"] == gone and message["users"] == {str(player.pk): gone}
    # The room's session panel no longer offers it.
    page = as_user(gm).get(reverse("room", args=[pool_table.campaign.id])).content.decode()
    assert "still open after the session" not in page


def test_a_session_ended_with_every_check_closed_says_nothing_of_them(
    pool_table, as_user, gm, django_capture_on_commit_callbacks
):
    services.session_start(campaign=pool_table.campaign, by=gm)
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(gm).post(url("session_end", pool_table), **HTMX)
    assert "still open" not in response.content.decode()


def test_closing_checks_when_none_is_open_is_refused(
    pool_table, as_user, gm, pushes, django_capture_on_commit_callbacks
):
    html = refused(
        as_user(gm),
        url("checks_close", pool_table),
        {},
        pool_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert "No check is open." in html


@pytest.mark.parametrize("who", ["player", "other_player"])
def test_only_the_gm_closes_the_checks(pool_table, as_user, who, request):
    check = ask(pool_table, pool_table.ilse)
    response = as_user(request.getfixturevalue(who)).post(url("checks_close", pool_table), **HTMX)
    assert response.status_code == 403
    check.refresh_from_db()
    assert check.status == "open"
