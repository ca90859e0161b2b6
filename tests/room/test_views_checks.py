"""Asking for checks and the GM's answers: check_ask, check_request, check_set_target,
check_cancel, check_allow_reattempt, check_answer_shift (room.views)."""

import re

import pytest
from django.urls import reverse

from rolls import services
from rolls.models import PRIVATE, PUBLIC, SECRET, Check
from rolls.systems.mana import models as mana_models
from rolls.systems.pool import models as pool_models
from rolls.systems.pool import services as pool_services
from tests.conftest import make_user
from tests.helpers import HTMX, db_snapshot
from tests.rolls.room_setup import ask, refused, roll_mana, script_dice, url

# check_ask --------------------------------------------------------------------------------------


def ask_data(mana_table, **overrides):
    data = {
        "character": mana_table.mira.id,
        "mana_skill": mana_table.gather.id,
        "target": 3,
        "note": "Find the smuggler",
        "visibility": PUBLIC,
    }
    return {**data, **overrides}


def test_gm_asks_a_check(
    mana_table, as_user, gm, player, pushes, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(gm).post(url("check_ask", mana_table), ask_data(mana_table), **HTMX)
    assert response.status_code == 200
    check = Check.objects.get()
    assert (check.character, check.created_by, check.status) == (mana_table.mira, gm, Check.OPEN)
    assert (check.target, mana_models.check_of(check).skill, check.note) == (
        3,
        mana_table.gather,
        "Find the smuggler",
    )
    html = response.content.decode()
    assert 'id="ask"' in html and "Asked" in html
    assert 'value="Find the smuggler"' not in html  # a fresh form
    assert f'id="check-{check.id}"' not in html  # the card comes once, on the GM's socket
    # Pushed on commit to the GM and to Mira's player only, each in their variant.
    [message] = pushes.checks()
    assert set(message) == {"gm", "users"} and set(message["users"]) == {str(player.id)}
    assert reverse("check_cancel", args=[mana_table.campaign.id, check.id]) in message["gm"]
    assert reverse("check_roll", args=[mana_table.campaign.id, check.id]) not in message["gm"]
    owner_html = message["users"][str(player.id)]
    assert reverse("check_roll", args=[mana_table.campaign.id, check.id]) in owner_html
    assert reverse("check_cancel", args=[mana_table.campaign.id, check.id]) not in owner_html
    assert owner_html.startswith('<div hx-swap-oob="afterbegin:#checks">')
    assert pushes.entries() == []


def form_token(html):
    """The one-time token of the form in ``html``."""
    return re.search(r'name="once" value="([^"]+)"', html).group(1)


def test_a_double_submitted_ask_asks_once(mana_table, as_user, gm, pushes):
    client = as_user(gm)
    html = client.get(url("room", mana_table)).content.decode()
    token = form_token(html)
    data = ask_data(mana_table, once=token)
    first = client.post(url("check_ask", mana_table), data, **HTMX)
    second = client.post(url("check_ask", mana_table), data, **HTMX)
    assert first.status_code == second.status_code == 200
    assert "Asked" in second.content.decode()
    assert Check.objects.count() == 1
    assert form_token(first.content.decode()) != token  # the fresh form has a new one
    # A new token asks again.
    client.post(url("check_ask", mana_table), ask_data(mana_table, once="another"), **HTMX)
    assert Check.objects.count() == 2


def test_gm_asks_for_a_pool_check_with_a_suggestion(pool_table, as_user, gm):
    data = {"character": pool_table.ilse.id, "suggestion": "Strength + Jump", "target": 8}
    data.update(note="", visibility=PRIVATE)
    response = as_user(gm).post(url("check_ask", pool_table), data, **HTMX)
    assert response.status_code == 200
    check = Check.objects.get()
    assert (check.suggestion, check.target, check.visibility) == ("Strength + Jump", 8, PRIVATE)


def test_gm_secret_check_for_own_npc(
    mana_table, as_user, gm, pushes, django_capture_on_commit_callbacks
):
    data = ask_data(mana_table, character=mana_table.npc.id, visibility=SECRET)
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(gm).post(url("check_ask", mana_table), data, **HTMX)
    assert response.status_code == 200
    assert Check.objects.get().visibility == SECRET
    [message] = pushes.checks()
    assert set(message) == {"gm"}  # the owner is the GM: nobody else hears of it


def test_ask_without_htmx_redirects_to_the_room(mana_table, as_user, gm):
    response = as_user(gm).post(url("check_ask", mana_table), ask_data(mana_table))
    assert response.status_code == 302 and response.url == url("room", mana_table)
    assert Check.objects.count() == 1


def test_refused_ask_without_htmx_shows_the_room_with_the_error(mana_table, as_user, gm):
    response = as_user(gm).post(url("check_ask", mana_table), ask_data(mana_table, target="lots"))
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" in html and "Enter a whole number." in html
    assert Check.objects.count() == 0


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"target": 0}, "greater than or equal to 1"),
        ({"target": -3}, "greater than or equal to 1"),
        ({"target": 1001}, "less than or equal to 1000"),
        ({"target": "9" * 40}, "less than or equal to 1000"),
        ({"target": "three"}, "Enter a whole number."),
        ({"target": "2.5"}, "Enter a whole number."),
        ({"target": ""}, "Set the difficulty or TN"),
        ({"character": 99999}, "Choose a character of this campaign."),
        ({"character": "x"}, "Choose a character of this campaign."),
        ({"character": "9" * 30}, "Choose a character of this campaign."),
        ({"mana_skill": "9" * 30}, "Choose one of this campaign"),
        ({"mana_skill": 99999}, "Choose one of this campaign"),
        ({"visibility": "everyone"}, "Select a valid choice"),
        ({"note": "n" * 301}, "at most 300 characters"),
        ({"visibility": SECRET}, "Only the GM&#x27;s own characters roll GM-secret checks."),
    ],
)
def test_bad_asks_are_refused(
    mana_table, as_user, gm, pushes, django_capture_on_commit_callbacks, overrides, message
):
    client = as_user(gm)
    html = refused(
        client,
        url("check_ask", mana_table),
        ask_data(mana_table, **overrides),
        mana_table.campaign,
        pushes,
        capture=django_capture_on_commit_callbacks,
    )
    assert message in html
    assert 'id="ask"' in html


def test_ask_for_another_campaigns_character_or_skill(
    mana_table, as_user, gm, pushes, elsewhere, django_capture_on_commit_callbacks
):
    _campaign, character, skill, _check = elsewhere
    client = as_user(gm)
    for data in (
        ask_data(mana_table, character=character.id),
        ask_data(mana_table, mana_skill=skill.id),
    ):
        html = refused(
            client,
            url("check_ask", mana_table),
            data,
            mana_table.campaign,
            pushes,
            capture=django_capture_on_commit_callbacks,
        )
        assert "of this campaign" in html


def test_player_cannot_ask(mana_table, as_user, player):
    assert (
        as_user(player).post(url("check_ask", mana_table), ask_data(mana_table), **HTMX).status_code
        == 403
    )
    assert Check.objects.count() == 0


def test_outsider_and_anonymous_cannot_ask(mana_table, as_user, outsider):
    assert (
        as_user(outsider).post(url("check_ask", mana_table), ask_data(mana_table)).status_code
        == 404
    )
    response = as_user(None).post(url("check_ask", mana_table), ask_data(mana_table))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))
    assert Check.objects.count() == 0


def test_ask_is_post_only(mana_table, as_user, gm):
    assert as_user(gm).get(url("check_ask", mana_table)).status_code == 405


# check_request ----------------------------------------------------------------------------------


def request_url(mana_table, character):
    return reverse("check_request", args=[mana_table.campaign.id, character.id])


def test_player_requests_a_check(
    mana_table, as_user, gm, player, pushes, django_capture_on_commit_callbacks
):
    data = {"mana_skill": mana_table.jump.id, "note": "Over the wall", "visibility": PRIVATE}
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(player).post(request_url(mana_table, mana_table.mira), data, **HTMX)
    assert response.status_code == 200
    check = Check.objects.get()
    assert (check.status, check.target, check.created_by) == (Check.REQUESTED, None, player)
    assert (mana_models.check_of(check).skill, check.visibility, check.note) == (
        mana_table.jump,
        PRIVATE,
        "Over the wall",
    )
    html = response.content.decode()
    assert f'id="request-{mana_table.mira.id}"' in html and "Requested" in html
    assert f'id="check-{check.id}"' not in html  # the card comes once, on the socket
    [message] = pushes.checks()
    assert set(message["users"]) == {str(player.id)}
    # The GM gets the form to set the number; the player waits for it.
    assert reverse("check_set_target", args=[mana_table.campaign.id, check.id]) in message["gm"]
    assert "the GM sets the difficulty" in message["users"][str(player.id)]


def test_player_requests_a_pool_check(pool_table, as_user, player):
    data = {"suggestion": "Climb", "note": "", "visibility": PUBLIC}
    response = as_user(player).post(request_url(pool_table, pool_table.ilse), data, **HTMX)
    assert response.status_code == 200
    assert Check.objects.get().suggestion == "Climb"


def test_request_for_another_players_character_is_403(mana_table, as_user, player):
    data = {"note": "", "visibility": PUBLIC}
    assert (
        as_user(player).post(request_url(mana_table, mana_table.bo), data, **HTMX).status_code
        == 403
    )
    assert Check.objects.count() == 0


def test_request_for_another_campaigns_character_is_404(mana_table, as_user, player, elsewhere):
    _campaign, character, _skill, _check = elsewhere
    data = {"note": "", "visibility": PUBLIC}
    path = reverse("check_request", args=[mana_table.campaign.id, character.id])
    assert as_user(player).post(path, data, **HTMX).status_code == 404


@pytest.mark.parametrize(
    "data, message",
    [
        ({"visibility": SECRET}, "Select a valid choice"),
        ({"visibility": PUBLIC, "mana_skill": 99999}, "Choose one of this campaign"),
        ({"visibility": PUBLIC, "note": "n" * 301}, "at most 300 characters"),
    ],
)
def test_bad_requests_are_refused(
    mana_table, as_user, player, pushes, django_capture_on_commit_callbacks, data, message
):
    html = refused(
        as_user(player),
        request_url(mana_table, mana_table.mira),
        data,
        mana_table.campaign,
        pushes,
        capture=django_capture_on_commit_callbacks,
    )
    assert message in html


def test_request_access(mana_table, as_user, outsider):
    data = {"note": "", "visibility": PUBLIC}
    assert as_user(outsider).post(request_url(mana_table, mana_table.mira), data).status_code == 404
    response = as_user(None).post(request_url(mana_table, mana_table.mira), data)
    assert response.status_code == 302 and response.url.startswith(reverse("login"))
    assert Check.objects.count() == 0


# check_set_target -------------------------------------------------------------------------------


@pytest.fixture
def requested(mana_table, player):
    return services.check_request(
        campaign=mana_table.campaign, character=mana_table.mira, by=player
    )


def target_url(mana_table, check):
    return reverse("check_set_target", args=[mana_table.campaign.id, check.id])


def test_gm_sets_the_number(
    mana_table, as_user, gm, player, requested, pushes, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(gm).post(target_url(mana_table, requested), {"target": 4}, **HTMX)
    assert (response.status_code, response.content) == (204, b"")  # the card comes on the socket
    requested.refresh_from_db()
    assert (requested.status, requested.target) == (Check.OPEN, 4)
    [message] = pushes.checks()
    assert (
        f'<article id="check-{requested.id}" class="check open" hx-swap-oob="outerHTML">'
        in (message["gm"])
    )
    owner_html = message["users"][str(player.id)]
    # Now it waits for the player: marked for the room's tab title (room.push.asks).
    assert (
        f'<article id="check-{requested.id}" class="check open" data-asks-me '
        'hx-swap-oob="outerHTML">' in owner_html
    )
    assert reverse("check_roll", args=[mana_table.campaign.id, requested.id]) in owner_html


@pytest.mark.parametrize("target", [0, -1, 1001, "x", "", "1e3", "9" * 30])
def test_bad_numbers_are_refused(
    mana_table, as_user, gm, requested, pushes, django_capture_on_commit_callbacks, target
):
    html = refused(
        as_user(gm),
        target_url(mana_table, requested),
        {"target": target},
        mana_table.campaign,
        pushes,
        capture=django_capture_on_commit_callbacks,
    )
    assert f'<article id="check-{requested.id}"' in html
    assert 'class="errorlist' in html


def test_number_of_an_open_check_cannot_be_set_again(
    mana_table, as_user, gm, pushes, django_capture_on_commit_callbacks
):
    check = ask(mana_table, mana_table.mira)
    html = refused(
        as_user(gm),
        target_url(mana_table, check),
        {"target": 5},
        mana_table.campaign,
        pushes,
        capture=django_capture_on_commit_callbacks,
    )
    assert "This check already has its number." in html


# GM actions on one check: access ----------------------------------------------------------------

GM_ACTIONS = [
    ("check_set_target", {"target": 3}),
    ("check_cancel", {}),
    ("check_allow_reattempt", {}),
    ("check_answer_shift", {"answer": "approve"}),
]


@pytest.mark.parametrize("name, data", GM_ACTIONS)
def test_players_cannot_answer_checks(mana_table, as_user, player, requested, name, data):
    before = db_snapshot()
    path = reverse(name, args=[mana_table.campaign.id, requested.id])
    assert as_user(player).post(path, data, **HTMX).status_code == 403
    assert db_snapshot() == before


@pytest.mark.parametrize("name, data", GM_ACTIONS)
def test_outsiders_and_anonymous_cannot_answer_checks(
    mana_table, as_user, outsider, requested, name, data
):
    path = reverse(name, args=[mana_table.campaign.id, requested.id])
    assert as_user(outsider).post(path, data, **HTMX).status_code == 404
    response = as_user(None).post(path, data)
    assert response.status_code == 302 and response.url.startswith(reverse("login"))


@pytest.mark.parametrize("name, data", GM_ACTIONS)
def test_another_campaigns_check_is_404(mana_table, as_user, gm, elsewhere, name, data):
    _campaign, _character, _skill, check = elsewhere
    before = db_snapshot()
    path = reverse(name, args=[mana_table.campaign.id, check.id])
    assert as_user(gm).post(path, data, **HTMX).status_code == 404
    assert db_snapshot() == before


@pytest.mark.parametrize("name, data", GM_ACTIONS)
def test_gm_actions_are_post_only(mana_table, as_user, gm, requested, name, data):
    path = reverse(name, args=[mana_table.campaign.id, requested.id])
    assert as_user(gm).get(path).status_code == 405


# check_cancel -----------------------------------------------------------------------------------


def test_gm_cancels_a_check(
    mana_table, as_user, gm, player, pushes, django_capture_on_commit_callbacks
):
    check = ask(mana_table, mana_table.mira)
    path = reverse("check_cancel", args=[mana_table.campaign.id, check.id])
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(gm).post(path, **HTMX)
    assert response.status_code == 204
    check.refresh_from_db()
    assert check.status == Check.DONE
    [message] = pushes.checks()  # the card leaves the live checks
    gone = f'<article id="check-{check.id}" hx-swap-oob="delete"></article>'
    assert message["gm"] == message["users"][str(player.id)] == gone
    assert pushes.entries() == []


def test_cancel_without_htmx_redirects(mana_table, as_user, gm):
    check = ask(mana_table, mana_table.mira)
    response = as_user(gm).post(reverse("check_cancel", args=[mana_table.campaign.id, check.id]))
    assert response.status_code == 302 and response.url == url("room", mana_table)


def test_a_closed_check_cannot_be_cancelled(
    mana_table, as_user, gm, pushes, django_capture_on_commit_callbacks
):
    check = ask(mana_table, mana_table.mira)
    services.check_cancel(check=check)
    html = refused(
        as_user(gm),
        reverse("check_cancel", args=[mana_table.campaign.id, check.id]),
        {},
        mana_table.campaign,
        pushes,
        capture=django_capture_on_commit_callbacks,
    )
    assert "This check is already closed." in html


# check_allow_reattempt --------------------------------------------------------------------------


@pytest.fixture
def failed(mana_table, player):
    check = ask(mana_table, mana_table.mira, target=3)
    roll_mana(check, player, mana_table.gather, (7, 10, 4, 2))
    check.refresh_from_db()
    assert check.status == Check.FAILED
    return check


def test_gm_allows_a_reattempt(
    mana_table, as_user, gm, player, failed, pushes, django_capture_on_commit_callbacks
):
    path = reverse("check_allow_reattempt", args=[mana_table.campaign.id, failed.id])
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(gm).post(path, **HTMX)
    assert response.status_code == 204
    failed.refresh_from_db()
    assert failed.status == Check.OPEN
    [message] = pushes.checks()
    owner_html = message["users"][str(player.id)]
    # The re-attempt keeps the skill and counts the 2 earlier units: 1 reroll die.
    assert "Jump (red" not in owner_html
    assert "Skill <b>Gather Information</b> (blue + white)" in owner_html
    assert "A re-attempt must spend at least one new mana unit." in owner_html


def test_failed_check_shows_the_outcome_and_the_gm_button(mana_table, as_user, gm, player, failed):
    gm_html = as_user(gm).get(url("room", mana_table)).content.decode()
    assert "Attempt 1: 2 successes vs difficulty 3" in gm_html
    assert reverse("check_allow_reattempt", args=[mana_table.campaign.id, failed.id]) in gm_html
    html = as_user(player).get(url("room", mana_table)).content.decode()
    assert "The GM may allow a re-attempt." in html
    assert reverse("check_allow_reattempt", args=[mana_table.campaign.id, failed.id]) not in html


def test_only_a_failed_check_can_be_reattempted(
    mana_table, as_user, gm, pushes, django_capture_on_commit_callbacks
):
    check = ask(mana_table, mana_table.mira)
    html = refused(
        as_user(gm),
        reverse("check_allow_reattempt", args=[mana_table.campaign.id, check.id]),
        {},
        mana_table.campaign,
        pushes,
        capture=django_capture_on_commit_callbacks,
    )
    assert "Only a failed check can be attempted again." in html


# check_answer_shift -----------------------------------------------------------------------------


@pytest.fixture
def shifted(pool_table, player):
    check = ask(pool_table, pool_table.ilse, target=5, note="The gap")
    assert (
        pool_services.check_roll_pool(
            check=check,
            by=player,
            attribute=pool_table.strength,
            skill=pool_table.jump,
            shift_d6=1,
            shift_d10=0,
            bonus_effect="land silently",
            intent="Jump the gap",
        )
        is None
    )
    check.refresh_from_db()
    assert check.status == Check.SHIFT
    return check


def shift_url(pool_table, check):
    return reverse("check_answer_shift", args=[pool_table.campaign.id, check.id])


def test_gm_sees_the_shift_proposal(pool_table, as_user, gm, shifted):
    html = as_user(gm).get(url("room", pool_table)).content.decode()
    assert "Shift proposed: Strength 3 + Jump 2" in html
    assert "roll 2d6 + 2d10 (1d6 shifted)" in html
    assert "land silently" in html
    assert 'name="answer" value="approve"' in html


def test_gm_approves_a_shift_and_the_check_is_rolled(
    pool_table,
    as_user,
    gm,
    player,
    shifted,
    pushes,
    monkeypatch,
    django_capture_on_commit_callbacks,
):
    script_dice(monkeypatch, 6, 2, 3, 1, 4)  # d6: 6+2 = 8, 3; d10: 1, 4
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(gm).post(shift_url(pool_table, shifted), {"answer": "approve"}, **HTMX)
    assert response.status_code == 204
    shifted.refresh_from_db()
    assert shifted.status == Check.DONE
    entry = shifted.rolls.get()
    assert entry.actor == player  # the roll is the player's
    assert entry.data["shift"] == {"d6": 1, "d10": 0}
    assert (entry.data["highest"], entry.data["success"], entry.data["bonus_achieved"]) == (
        8,
        True,
        True,
    )
    [entry_message] = pushes.entries()
    assert entry_message["seq"] == entry.seq
    [check_message] = pushes.checks()
    assert 'hx-swap-oob="delete"' in check_message["users"][str(player.id)]


def test_gm_declines_a_shift(
    pool_table, as_user, gm, player, shifted, pushes, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(gm).post(shift_url(pool_table, shifted), {"answer": "decline"}, **HTMX)
    assert response.status_code == 204
    shifted.refresh_from_db()
    own = pool_models.check_of(shifted)
    assert (shifted.status, own.shift_d6, own.bonus_effect) == (Check.OPEN, 0, "")
    assert not shifted.rolls.exists()
    assert pushes.entries() == []
    [message] = pushes.checks()
    owner_html = message["users"][str(player.id)]
    # The player chooses anew, from the attribute and skill proposed before.
    assert f'<option value="{pool_table.strength.id}" selected>Strength 3d6</option>' in owner_html
    assert f'<option value="{pool_table.jump.id}" selected>Jump 2d10</option>' in owner_html


def test_a_declined_shift_says_so_with_the_gms_reason(
    pool_table, as_user, gm, player, shifted, pushes, django_capture_on_commit_callbacks
):
    data = {"answer": "decline", "reason": "  Not <b>here</b>: the floor is ice  "}
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(gm).post(shift_url(pool_table, shifted), data, **HTMX)
    assert response.status_code == 204
    shifted.refresh_from_db()
    own = pool_models.check_of(shifted)
    assert (own.shift_declined, own.decline_reason) == (
        True,
        "Not <b>here</b>: the floor is ice",
    )
    [message] = pushes.checks()
    said = "declined your shift: “Not &lt;b&gt;here&lt;/b&gt;: the floor is ice”"
    assert said in message["users"][str(player.id)]
    assert "You declined the shift: “Not &lt;b&gt;here&lt;/b&gt;" in message["gm"]
    # The player's page says it too after a reload, until the next proposal.
    html = as_user(player).get(url("room", pool_table)).content.decode()
    assert said in html
    data = {
        "attribute": pool_table.strength.id,
        "skill": pool_table.jump.id,
        "shift_d10": 1,
        "bonus_effect": "land on the rope",
    }
    roll_path = reverse("check_roll", args=[pool_table.campaign.id, shifted.id])
    with django_capture_on_commit_callbacks(execute=True):
        assert as_user(player).post(roll_path, data, **HTMX).status_code == 204
    shifted.refresh_from_db()
    own = pool_models.check_of(shifted)
    assert (shifted.status, own.shift_declined, own.decline_reason) == (
        Check.SHIFT,
        False,
        "",
    )
    assert "declined" not in as_user(player).get(url("room", pool_table)).content.decode()


def test_a_shift_declined_without_a_reason_says_so_too(
    pool_table, as_user, gm, player, shifted, pushes, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(gm).post(shift_url(pool_table, shifted), {"answer": "decline"}, **HTMX)
    assert response.status_code == 204
    [message] = pushes.checks()
    assert "The GM declined your shift. Roll without it" in message["users"][str(player.id)]


def test_a_decline_reason_too_long_is_refused(
    pool_table, as_user, gm, shifted, pushes, django_capture_on_commit_callbacks
):
    html = refused(
        as_user(gm),
        shift_url(pool_table, shifted),
        {"answer": "decline", "reason": "x" * 201},
        pool_table.campaign,
        pushes,
        capture=django_capture_on_commit_callbacks,
    )
    assert "A reason has at most 200 characters." in html


def test_the_gms_shift_answer_is_named_for_what_it_does(pool_table, as_user, gm, shifted):
    html = as_user(gm).get(url("room", pool_table)).content.decode()
    decline = (
        f'<button name="answer" value="decline" class="secondary" id="check-{shifted.id}-decline">'
    )
    assert decline + "Decline shift</button>" in html
    assert f'<input name="reason" id="check-{shifted.id}-reason" maxlength="200">' in html
    assert "Reason (optional)" in html
    # The reason and the decline are a form of their own: Enter there declines.
    form = html[html.rindex("<form", 0, html.index('name="reason"')) :]
    form = form[: form.index("</form>")]
    assert 'value="approve"' not in form


def test_closing_a_check_reads_as_closing_it(mana_table, as_user, gm, player, failed):
    open_check = ask(mana_table, mana_table.bo)
    html = as_user(gm).get(url("room", mana_table)).content.decode()
    assert "Cancel" not in html
    failed_card = html[html.index(f'id="check-{failed.id}"') :]
    assert '<button class="secondary">Close without re-attempt</button>' in failed_card
    assert 'data-confirm="Close this check without a re-attempt?"' in failed_card
    open_card = html[
        html.index(f'id="check-{open_check.id}"') : html.index(f'id="check-{failed.id}"')
    ]
    assert '<button class="secondary">Close check</button>' in open_card
    assert 'data-confirm="Close this check without a roll?"' in open_card


@pytest.mark.parametrize("data", [{}, {"answer": "maybe"}, {"answer": ""}])
def test_a_shift_needs_a_clear_answer(
    pool_table, as_user, gm, shifted, pushes, django_capture_on_commit_callbacks, data
):
    html = refused(
        as_user(gm),
        shift_url(pool_table, shifted),
        data,
        pool_table.campaign,
        pushes,
        capture=django_capture_on_commit_callbacks,
    )
    assert "Approve or decline the shift." in html


def test_no_shift_to_answer(pool_table, as_user, gm, pushes, django_capture_on_commit_callbacks):
    check = ask(pool_table, pool_table.ilse)
    html = refused(
        as_user(gm),
        shift_url(pool_table, check),
        {"answer": "approve"},
        pool_table.campaign,
        pushes,
        capture=django_capture_on_commit_callbacks,
    )
    assert "No shift awaits an answer on this check." in html


def test_player_sees_own_shift_waiting(pool_table, as_user, player, other_player, shifted):
    html = as_user(player).get(url("room", pool_table)).content.decode()
    assert "Shift proposed: waiting for the GM to agree to it." in html
    assert 'name="answer"' not in html
    assert (
        "land silently" not in as_user(other_player).get(url("room", pool_table)).content.decode()
    )


def test_another_players_check_is_not_in_the_room_of_a_third(mana_table, as_user, other_player):
    ask(mana_table, mana_table.mira, note="Only for ana")
    make_user("cy")
    assert "Only for ana" not in as_user(other_player).get(url("room", mana_table)).content.decode()


def test_refused_action_on_a_closed_check_without_htmx_shows_why(mana_table, as_user, gm):
    check = ask(mana_table, mana_table.mira)
    services.check_cancel(check=check)
    response = as_user(gm).post(reverse("check_cancel", args=[mana_table.campaign.id, check.id]))
    assert response.status_code == 200
    assert "This check is already closed." in response.content.decode()


# An ask the character cannot roll ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("suggestion", "message"),
    [
        ("Social", "Ilse has no dice for Social (rated 0)"),
        ("Combat + Cut Weapons", "Ilse has no dice for Combat + Cut Weapons (rated 0)"),
    ],
)
def test_an_ask_the_character_has_no_dice_for_is_refused_saying_so(
    pool_table, as_user, gm, pushes, django_capture_on_commit_callbacks, suggestion, message
):
    data = {"character": pool_table.ilse.id, "suggestion": suggestion, "target": 5}
    html = refused(
        as_user(gm),
        url("check_ask", pool_table),
        {**data, "note": "", "visibility": "public"},
        pool_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert message in html


def test_an_attribute_at_0_with_a_skill_above_0_can_be_asked(pool_table, as_user, gm):
    """Strength's own rating 0 still rolls Jump's d10s: asking for Strength is fine."""
    pool_models.Rating.objects.filter(pk=pool_table.strength.pk).update(value=0)
    data = {"character": pool_table.ilse.id, "suggestion": "Strength", "target": 5}
    data.update(note="", visibility=PUBLIC)
    response = as_user(gm).post(url("check_ask", pool_table), data, **HTMX)
    assert response.status_code == 200
    assert Check.objects.get().status == Check.OPEN
