"""Rolling a check through the room (room.views.check_roll): Mana and Pool, refusals."""

import re
from fractions import Fraction

import pytest
from django.db import transaction
from django.urls import reverse
from django.utils.html import escape
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rolls import services
from rolls.models import Check, LogEntry
from rolls.systems.mana import models as mana_models
from rolls.systems.mana.models import ManaSkill
from rolls.systems.mana.services import traits_set
from rolls.systems.pool import models as pool_models
from rolls.systems.pool.models import Rating, rating_of
from rolls.templatetags.dice import percent
from rules import mana, odds, pool
from sheets.services import character_create
from tests.conftest import make_campaign
from tests.helpers import HTMX, db_snapshot
from tests.rolls.room_setup import (
    ask,
    fill,
    rate,
    refused,
    roll_mana,
    roll_url,
    script_dice,
    url,
)


def mana_data(mana_table, with_skill=None, **overrides):
    skill = with_skill or mana_table.gather
    data = {
        "skill": skill.id,
        "color_a": skill.color_a,
        "color_b": skill.color_b,
        "spend_a": 1,
        "spend_b": 1,
        "colorless": 0,
        "intent": "Ask around the docks",
    }
    return {**data, **overrides}


def pool_data(pool_table, **overrides):
    data = {
        "attribute": pool_table.strength.id,
        "skill": pool_table.jump.id,
        "shift_d6": 0,
        "shift_d10": 0,
        "bonus_effect": "",
        "intent": "Jump the gap",
    }
    return {**data, **overrides}


def mana_of(character):
    return dict(character.mana.values_list("color", "current"))


# Mana -------------------------------------------------------------------------------------------


def test_player_rolls_a_mana_check(
    mana_table, as_user, gm, player, pushes, monkeypatch, django_capture_on_commit_callbacks
):
    check = ask(mana_table, mana_table.mira, target=3)
    script_dice(monkeypatch, 1, 10, 9, 8)
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(player).post(roll_url(mana_table, check), mana_data(mana_table), **HTMX)
    assert (response.status_code, response.content) == (204, b"")  # the card comes on the socket
    check.refresh_from_db()
    assert check.status == Check.DONE and mana_models.check_of(check).skill == mana_table.gather
    assert mana_of(mana_table.mira)["blue"] == 2 and mana_of(mana_table.mira)["white"] == 1
    entry = LogEntry.objects.get(check_ref=check)
    assert entry.data["faces"] == [1, 10, 9, 8] and entry.data["successes"] == 4
    assert entry.data["intent"] == "Ask around the docks"
    [entry_message] = pushes.entries()
    assert entry_message["seq"] == entry.seq and "all" in entry_message
    [check_message] = pushes.checks()
    assert set(check_message) == {"gm", "users"}
    assert set(check_message["users"]) == {str(player.id)}
    # Done: the card leaves the live checks (the log keeps the roll).
    gone = f'<article id="check-{check.id}" hx-swap-oob="delete"></article>'
    assert check_message["users"][str(player.id)] == check_message["gm"] == gone
    # The spend changed Mira's pool: her player's and the GM's pages hear of it, nobody else's.
    [facts] = pushes.facts()
    assert facts["gm"] == f"<!--facts {mana_table.mira.id}-->"
    assert facts["users"] == {str(player.id): f"<!--facts {mana_table.mira.id}-->"}
    assert "all" not in facts


def test_failed_mana_roll_then_reattempt_through_the_views(
    mana_table, as_user, gm, player, monkeypatch, django_capture_on_commit_callbacks
):
    """The rules' worked example: 7 0 4 2 fails, the re-attempt's 1 0 9 8 6 succeeds."""
    check = ask(mana_table, mana_table.mira, target=3)
    client = as_user(player)
    script_dice(monkeypatch, 7, 10, 4, 2)
    client.post(roll_url(mana_table, check), mana_data(mana_table), **HTMX)
    check.refresh_from_db()
    assert check.status == Check.FAILED
    as_user(gm).post(
        reverse("check_allow_reattempt", args=[mana_table.campaign.id, check.id]), **HTMX
    )
    script_dice(monkeypatch, 1, 10, 9, 8, 6)
    response = as_user(player).post(roll_url(mana_table, check), mana_data(mana_table), **HTMX)
    assert response.status_code == 204
    check.refresh_from_db()
    assert check.status == Check.DONE
    second = check.rolls.order_by("seq").last()
    assert second.data["parts"] == [["free", 1], ["mana", 2], ["synergy", 1], ["reroll", 1]]
    assert second.data["success"] is True
    assert mana_of(mana_table.mira)["blue"] == 1 and mana_of(mana_table.mira)["white"] == 0


def test_gm_rolls_own_npc_check(
    mana_table, as_user, gm, pushes, django_capture_on_commit_callbacks
):
    check = ask(mana_table, mana_table.npc, target=1)
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(gm).post(roll_url(mana_table, check), mana_data(mana_table), **HTMX)
    assert response.status_code == 204
    assert LogEntry.objects.get(check_ref=check).actor == gm
    [check_message] = pushes.checks()
    assert set(check_message) == {"gm"}


def test_roll_without_htmx_redirects(mana_table, as_user, player):
    check = ask(mana_table, mana_table.mira)
    response = as_user(player).post(roll_url(mana_table, check), mana_data(mana_table))
    assert response.status_code == 302 and response.url == url("room", mana_table)
    assert LogEntry.objects.filter(check_ref=check).count() == 1


def test_refused_roll_without_htmx_shows_the_room_with_the_error(mana_table, as_user, player):
    """(The player rolls from the room, whose first view made the campaign's dice seed.)"""
    check = ask(mana_table, mana_table.mira)
    as_user(player).get(url("room", mana_table))
    before = db_snapshot()
    response = as_user(player).post(roll_url(mana_table, check), mana_data(mana_table, spend_a=4))
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" in html
    assert "Not enough blue mana: you spend 4, the pool has 3." in html
    assert db_snapshot() == before


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"spend_a": 4}, "Not enough blue mana: you spend 4, the pool has 3."),
        ({"spend_b": 3}, "Not enough white mana: you spend 3, the pool has 2."),
        ({"colorless": 6}, "Not enough colorless mana: you spend 6, the pool has 4."),
        ({"colorless": 1}, "Colorless mana is spent in pairs"),
        ({"color_a": "red"}, "Gather Information is rolled with blue and white mana, not red"),
        ({"color_b": "green"}, "rolled with blue and white mana"),
        ({"color_a": ""}, "rolled with blue and white mana"),
        ({"spend_a": -1}, "greater than or equal to 0"),
        ({"spend_b": "two"}, "Enter a whole number."),
        ({"colorless": "1.5"}, "Enter a whole number."),
        ({"spend_a": "9" * 30}, "less than or equal to 100"),
        ({"skill": 99999}, "Choose one of this campaign&#x27;s skills."),
        ({"skill": "blue"}, "Choose one of this campaign&#x27;s skills."),
        ({"skill": "9" * 30}, "Choose one of this campaign&#x27;s skills."),
        ({"skill": ""}, "This field is required."),
        ({"intent": "x" * 301}, "at most 300 characters"),
    ],
)
def test_bad_mana_rolls_change_nothing(
    mana_table, as_user, player, pushes, django_capture_on_commit_callbacks, overrides, message
):
    check = ask(mana_table, mana_table.mira)
    html = refused(
        as_user(player),
        roll_url(mana_table, check),
        mana_data(mana_table, **overrides),
        mana_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert message in html
    assert f'<article id="check-{check.id}" class="check open" data-asks-me>' in html
    assert 'name="spend_a"' in html  # the form again, to correct


@pytest.mark.parametrize(
    "overrides", [{"spend_a": 4}, {"spend_a": -1}, {"spend_b": "two"}, {"colorless": 1}]
)
def test_a_refused_roll_keeps_the_labels_of_its_colors(
    mana_table, as_user, player, pushes, django_capture_on_commit_callbacks, overrides
):
    check = ask(mana_table, mana_table.mira)
    html = refused(
        as_user(player),
        roll_url(mana_table, check),
        mana_data(mana_table, **overrides),
        mana_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert "First color" not in html and "Second color" not in html
    assert f'<label>Blue <input type="number" name="spend_a" id="roll-{check.id}-spend_a"' in html
    assert f'<label>White <input type="number" name="spend_b" id="roll-{check.id}-spend_b"' in html


def test_a_refused_amount_is_named_after_its_color(
    mana_table, as_user, player, pushes, django_capture_on_commit_callbacks
):
    check = ask(mana_table, mana_table.mira)
    html = refused(
        as_user(player),
        roll_url(mana_table, check),
        mana_data(mana_table, spend_a=-1),
        mana_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert "Blue: Ensure this value is greater than or equal to 0." in html


def test_a_skill_of_another_campaign_is_refused(
    mana_table, as_user, gm, player, pushes, django_capture_on_commit_callbacks
):
    other = make_campaign(gm, system="mana", name="Elsewhere", players=[player])
    skill = ManaSkill.objects.create(campaign=other, name="Far", color_a="blue", color_b="white")
    check = ask(mana_table, mana_table.mira)
    html = refused(
        as_user(player),
        roll_url(mana_table, check),
        mana_data(mana_table, with_skill=skill),
        mana_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert "Choose one of this campaign&#x27;s skills." in html


def test_a_reattempt_keeps_its_skill_and_spends_new_mana(
    mana_table, as_user, player, pushes, django_capture_on_commit_callbacks
):
    check = ask(mana_table, mana_table.mira, target=3)
    roll_mana(check, player, mana_table.gather, (1, 1, 1), spend_b=0)
    services.check_allow_reattempt(check=check)
    client = as_user(player)
    other_skill = mana_data(mana_table, with_skill=mana_table.jump, spend_a=1, spend_b=0)
    html = refused(
        client,
        roll_url(mana_table, check),
        other_skill,
        mana_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert "A re-attempt uses the same skill (Gather Information)." in html
    nothing = mana_data(mana_table, spend_a=0, spend_b=0)
    html = refused(
        client,
        roll_url(mana_table, check),
        nothing,
        mana_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert "A re-attempt must spend at least one new mana unit." in html


@pytest.mark.parametrize("status", [Check.REQUESTED, Check.FAILED, Check.DONE])
def test_a_check_that_is_not_open_cannot_be_rolled(
    mana_table, as_user, player, pushes, django_capture_on_commit_callbacks, status
):
    check = ask(mana_table, mana_table.mira)
    Check.objects.filter(pk=check.pk).update(status=status)
    html = refused(
        as_user(player),
        roll_url(mana_table, check),
        mana_data(mana_table),
        mana_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert "This check cannot be rolled now." in html


def test_roll_access(mana_table, as_user, gm, other_player, outsider, player):
    check = ask(mana_table, mana_table.mira)
    before = db_snapshot()
    # Another player's, and the GM's on a player's character: 403.
    assert (
        as_user(other_player)
        .post(roll_url(mana_table, check), mana_data(mana_table), **HTMX)
        .status_code
        == 403
    )
    assert (
        as_user(gm).post(roll_url(mana_table, check), mana_data(mana_table), **HTMX).status_code
        == 403
    )
    assert (
        as_user(outsider)
        .post(roll_url(mana_table, check), mana_data(mana_table), **HTMX)
        .status_code
        == 404
    )
    response = as_user(None).post(roll_url(mana_table, check), mana_data(mana_table))
    assert response.status_code == 302 and response.url.startswith(reverse("login"))
    assert as_user(player).get(roll_url(mana_table, check)).status_code == 405
    assert db_snapshot() == before


def test_another_campaigns_check_is_404(mana_table, as_user, player, elsewhere):
    _campaign, _character, _skill, check = elsewhere
    path = reverse("check_roll", args=[mana_table.campaign.id, check.id])
    assert as_user(player).post(path, mana_data(mana_table), **HTMX).status_code == 404
    assert not LogEntry.objects.exists()


@pytest.mark.parametrize("count", [10, 300])
def test_a_roll_runs_the_same_queries_whatever_the_log(
    mana_table,
    as_user,
    player,
    django_assert_max_num_queries,
    django_capture_on_commit_callbacks,
    count,
):
    for _ in range(count):
        services.log_append(campaign=mana_table.campaign, kind=LogEntry.ROLL, actor=player, data={})
    check = ask(mana_table, mana_table.mira)
    client = as_user(player)
    with django_assert_max_num_queries(28), django_capture_on_commit_callbacks(execute=True):
        response = client.post(roll_url(mana_table, check), mana_data(mana_table), **HTMX)
    assert response.status_code == 204


# Pool -------------------------------------------------------------------------------------------


def test_player_rolls_a_pool_check(
    pool_table, as_user, player, pushes, monkeypatch, django_capture_on_commit_callbacks
):
    check = ask(pool_table, pool_table.ilse, target=8)
    script_dice(monkeypatch, 4, 6, 3, 1, 2, 5)  # d6 4, 6→3 = 9, 1; d10 2, 5
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(player).post(roll_url(pool_table, check), pool_data(pool_table), **HTMX)
    assert response.status_code == 204
    check.refresh_from_db()
    assert check.status == Check.DONE
    entry = check.rolls.get()
    assert entry.data["d6"] == [[4], [6, 3], [1]] and entry.data["d10"] == [[2], [5]]
    assert (entry.data["highest"], entry.data["success"]) == (9, True)
    assert len(pushes.entries()) == 1
    [check_message] = pushes.checks()
    assert 'hx-swap-oob="delete"' in check_message["users"][str(player.id)]
    assert pushes.facts() == []  # a Pool roll changes no sheet


def test_attribute_alone(pool_table, as_user, player, monkeypatch):
    check = ask(pool_table, pool_table.ilse, target=2)
    script_dice(monkeypatch, 1)
    response = as_user(player).post(
        roll_url(pool_table, check),
        pool_data(pool_table, attribute=pool_table.agility.id, skill=""),
        **HTMX,
    )
    assert response.status_code == 204
    entry = check.rolls.get()
    assert entry.data["d6"] == [[1]] and entry.data["d10"] == []
    assert entry.data["success"] is False  # a highest total of 1 always fails


def test_a_shift_waits_for_the_gm(
    pool_table, as_user, gm, player, pushes, django_capture_on_commit_callbacks
):
    check = ask(pool_table, pool_table.ilse, target=8)
    data = pool_data(pool_table, shift_d6=1, shift_d10=1, bonus_effect="land silently")
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(player).post(roll_url(pool_table, check), data, **HTMX)
    assert response.status_code == 204
    check.refresh_from_db()
    own = pool_models.check_of(check)
    assert (check.status, own.shift_d6, own.shift_d10) == (Check.SHIFT, 1, 1)
    assert own.bonus_effect == "land silently"
    assert not check.rolls.exists()
    [check_message] = pushes.checks()
    waiting = "Shift proposed: waiting for the GM to agree to it."
    assert waiting in check_message["users"][str(player.id)]
    assert pushes.entries() == []
    [message] = pushes.checks()
    assert 'name="answer" value="approve"' in message["gm"]
    assert "roll 2d6 + 1d10 (1d6 + 1d10 shifted)" in message["gm"]


def test_a_roll_refused_while_a_shift_awaits_the_gm_shows_the_proposal(
    pool_table, as_user, player, pushes, django_capture_on_commit_callbacks
):
    """The roll reads the check without its card's rows (the shifted attribute and skill); the
    refused card reads them to show them."""
    check = ask(pool_table, pool_table.ilse, target=8)
    data = pool_data(pool_table, shift_d6=1, bonus_effect="land silently")
    assert as_user(player).post(roll_url(pool_table, check), data, **HTMX).status_code == 204
    html = refused(
        as_user(player),
        roll_url(pool_table, check),
        pool_data(pool_table),
        pool_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert "This check cannot be rolled now." in html
    assert "Shift proposed: Strength 3 + Jump 2, roll 2d6 + 2d10" in " ".join(html.split())


def test_the_roll_button_says_when_it_proposes_a_shift(pool_table, as_user, player):
    check = ask(pool_table, pool_table.ilse, target=4)
    client = as_user(player)
    form_url = reverse("check_form", args=[pool_table.campaign.id, check.id])
    button = f'<button id="roll-{check.id}-submit" data-shift-label="Propose shift"'
    html = client.get(url("room", pool_table)).content.decode()
    assert f'{button} data-roll-label="Roll">Roll</button>' in html
    html = client.get(form_url, pool_data(pool_table, shift_d6=1)).content.decode()
    assert f'{button} data-roll-label="Roll">Propose shift</button>' in html
    html = client.get(form_url, pool_data(pool_table, shift_d10="x")).content.decode()
    assert f'{button} data-roll-label="Roll">Roll</button>' in html


@pytest.mark.parametrize(
    "overrides, message",
    [
        ({"shift_d6": 3, "shift_d10": 2, "bonus_effect": "x"}, "At least one die must stay"),
        ({"shift_d6": 4, "bonus_effect": "x"}, "cannot shift more dice than the pool has"),
        ({"shift_d6": 1}, "Say which bonus effect the shifted dice are for."),
        ({"shift_d6": -1}, "greater than or equal to 0"),
        ({"shift_d10": "one"}, "Enter a whole number."),
        ({"shift_d10": "9" * 30}, "less than or equal to 100"),
        ({"attribute": "Strength"}, "Choose one of your character&#x27;s attributes."),
        ({"attribute": ""}, "This field is required."),
        ({"skill": "Jump"}, "Choose one of your character&#x27;s skills."),
        ({"bonus_effect": "b" * 201}, "at most 200 characters"),
        ({"attribute": "agility"}, "Choose one of your character&#x27;s attributes."),
        ({"attribute": "9" * 30}, "Choose one of your character&#x27;s attributes."),
        ({"skill": "9" * 30}, "Choose one of your character&#x27;s skills."),
    ],
)
def test_bad_pool_rolls_change_nothing(
    pool_table, as_user, player, pushes, django_capture_on_commit_callbacks, overrides, message
):
    check = ask(pool_table, pool_table.ilse)
    html = refused(
        as_user(player),
        roll_url(pool_table, check),
        pool_data(pool_table, **overrides),
        pool_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert message in html
    assert 'name="shift_d6"' in html


def test_skill_of_another_attribute_pending_skill_and_others_ratings(
    pool_table, as_user, gm, player, pushes, django_capture_on_commit_callbacks
):
    check = ask(pool_table, pool_table.ilse)
    other = make_campaign(gm, name="Elsewhere", players=[player])
    faraway = character_create(campaign=other, owner=player, name="Faraway")
    cases = [
        (
            pool_data(pool_table, attribute=pool_table.agility.id),
            "Jump is a skill of Strength, not of Agility.",
        ),
        (
            pool_data(pool_table, attribute=pool_table.agility.id, skill=pool_table.parkour.id),
            "Parkour has not been greenlit by the GM.",
        ),
        (
            pool_data(pool_table, attribute=pool_table.strength.id, skill=pool_table.strength.id),
            "your character&#x27;s skills",
        ),
        (
            pool_data(pool_table, skill=pool_table.agility.id),
            "Choose one of your character&#x27;s skills.",
        ),
        (
            pool_data(pool_table, attribute=pool_table.tor_strength.id),
            "your character&#x27;s attributes",
        ),
        (
            pool_data(pool_table, attribute=rating_of(faraway, "Strength").id),
            "your character&#x27;s attributes",
        ),
        (
            pool_data(pool_table, skill=rating_of(faraway, "Strength", "Jump").id),
            "your character&#x27;s skills",
        ),
    ]
    client = as_user(player)
    for data, message in cases:
        html = refused(
            client,
            roll_url(pool_table, check),
            data,
            pool_table.campaign,
            pushes,
            django_capture_on_commit_callbacks,
        )
        assert message in html


def test_a_pool_of_no_dice(pool_table, as_user, player, pushes, django_capture_on_commit_callbacks):
    combat = rating_of(pool_table.ilse, "Combat")
    check = ask(pool_table, pool_table.ilse)
    html = refused(
        as_user(player),
        roll_url(pool_table, check),
        pool_data(pool_table, attribute=combat.id, skill=""),
        pool_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert "This pool has no dice" in html


def test_the_pool_form_lists_only_approved_skills_of_the_attribute(pool_table, as_user, player):
    ask(pool_table, pool_table.ilse, suggestion="Agility")
    rate(pool_table.ilse, "Agility", "Dodge", value=1)
    rate(pool_table.ilse, "Agility", "Wallrun", value=1, status=Rating.DECLINED)
    html = as_user(player).get(url("room", pool_table)).content.decode()
    form = html[html.index('<form class="roll"') :]
    # The attribute asked for is fixed; its skills are the player's choice.
    assert "Attribute <b>Agility 1d6</b>" in form
    assert f'<input type="hidden" name="attribute" value="{pool_table.agility.id}">' in form
    assert "Dodge 1d10" in form
    for hidden in ("Parkour", "Wallrun", "Jump 2d10"):
        assert hidden not in form


# Every number the forms accept, at both ends (issue #43) ----------------------------------------


def shown_chance(html):
    """The chance an odds fragment shows (escaped as the page has it), or None: refused."""
    found = re.search(r'<b class="chance">(.*?)</b>', html)
    return found and found.group(1)


def test_a_pool_of_60_d10_against_tn_1000_is_rolled_and_logged(
    pool_table, as_user, gm, player, pushes, django_capture_on_commit_callbacks
):
    """Its exact chance has terms of about 6,000 digits, more than Python writes as text: the
    roll answered 500 every time, nothing logged, the check stuck open."""
    jump = pool_table.jump
    rating_url = reverse("rating_set", args=[pool_table.campaign.id, pool_table.ilse.id, jump.id])
    assert as_user(gm).post(rating_url, {"value": "60"}, **HTMX).status_code == 200
    ask_data = {"character": pool_table.ilse.id, "suggestion": "Strength + Jump", "target": 1000}
    ask_data |= {"note": "", "visibility": "public"}
    assert as_user(gm).post(url("check_ask", pool_table), ask_data, **HTMX).status_code == 200
    check = Check.objects.get(target=1000)
    services.session_start(campaign=pool_table.campaign, by=gm)
    client = as_user(player)
    preview = client.get(url("check_odds", pool_table, check.id), pool_data(pool_table), **HTMX)
    assert "3d6 + 60d10" in preview.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(roll_url(pool_table, check), pool_data(pool_table), **HTMX)
    assert response.status_code == 204
    check.refresh_from_db()
    assert check.status == Check.DONE
    entry = check.rolls.get()
    assert entry.data["chance"] == entry.chance == "~6e-99"
    assert odds.read(entry.chance) == Fraction(60, 10**100)  # 1 - (1 - 10**-100)**60, nearly
    assert shown_chance(preview.content.decode()) == "&lt;0.1%" == escape(percent(entry.chance))
    [message] = pushes.entries()
    assert "(chance &lt;0.1%)" in str(message)
    assert ",~6e-99,6e-99," in entry.cells
    assert services.log_verify(pool_table.campaign) is None
    # What reads the chance back: the room, luck, tuning, the summary, both exports.
    pages = {page: url(page, pool_table) for page in ("room", "campaign_luck", "tuning")}
    pages["session_summary"] = url("session_summary", pool_table, 1)
    for page, path in pages.items():
        html = as_user(gm).get(path).content.decode()
        assert "&lt;0.1%" in html, page
    assert "<b>0</b> successes in 1 roll, 0.00 ± 0.00 expected" in html
    for page in ("log_csv", "log_json"):
        assert as_user(gm).get(url(page, pool_table)).status_code == 200, page


def rating_value():
    return st.one_of(st.integers(0, 100), st.sampled_from([0, 1, 59, 60, 99, 100]))


@st.composite
def pool_rolls(draw):
    """What the GM may set (ratings 0..100, TN 1..1000) and the player may send (a skill or
    none, 0..100 dice shifted of each kind), most of them rolls a check can roll."""
    strength = draw(rating_value())
    jump = draw(st.one_of(st.integers(0, 100 - strength), rating_value()))
    tn = draw(st.one_of(st.integers(1, 1000), st.sampled_from([1, 2, 7, 11, 350, 606, 1000])))
    with_skill = draw(st.booleans())
    shift = st.one_of(st.just(0), st.integers(0, 3), st.integers(0, 100))
    return strength, jump, tn, with_skill, draw(shift), draw(shift)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(chosen=pool_rolls())
def test_every_pool_roll_the_forms_accept_previews_and_rolls(
    pool_table, as_user, gm, player, pushes, django_capture_on_commit_callbacks, settings, chosen
):
    """Whatever the GM set and the player sent, the preview answers and the roll is logged with
    the chance the preview showed, or refused with nothing changed: never a 500."""
    settings.WRITE_LIMITS = {}  # one player rolls faster here than the table allows
    strength, jump, tn, with_skill, shift_d6, shift_d10 = chosen
    with transaction.atomic():  # each example on the table as the fixtures made it
        Rating.objects.filter(pk=pool_table.strength.pk).update(value=strength)
        Rating.objects.filter(pk=pool_table.jump.pk).update(value=jump)
        check = ask(pool_table, pool_table.ilse, target=tn)
        data = pool_data(pool_table, shift_d6=shift_d6, shift_d10=shift_d10)
        data |= {"skill": pool_table.jump.id if with_skill else ""}
        data |= {"bonus_effect": "land softly" if shift_d6 or shift_d10 else ""}
        client = as_user(player)
        preview = client.get(url("check_odds", pool_table, check.id), data, **HTMX)
        assert preview.status_code == 200
        shown = shown_chance(preview.content.decode())
        d6, d10 = strength - shift_d6, (jump if with_skill else 0) - shift_d10
        rollable = d6 >= 0 and d10 >= 0 and 1 <= d6 + d10 <= 100
        assert (shown is not None) == rollable
        pushes.sent.clear()
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(roll_url(pool_table, check), data, **HTMX)
            if shift_d6 or shift_d10:
                assert response.status_code == (204 if rollable else 422)
                if rollable:  # the GM sees the proposal with its chance, and agrees
                    room = as_user(gm).get(url("room", pool_table)).content.decode()
                    assert f"({shown})" in room
                    answer = reverse("check_answer_shift", args=[pool_table.campaign.id, check.id])
                    response = as_user(gm).post(answer, {"answer": "approve"}, **HTMX)
        check.refresh_from_db()
        if not rollable:
            assert response.status_code == 422
            assert check.status == Check.OPEN and not check.rolls.exists()
        else:
            assert response.status_code == 204
            assert check.status == Check.DONE
            entry = check.rolls.get()
            chance = pool.success_probability(d6, d10, tn)
            assert entry.data["chance"] == entry.chance == odds.as_text(chance)
            assert escape(percent(entry.chance)) == shown == escape(percent(chance))
            assert f"(chance {shown})" in str(pushes.entries())
            assert services.log_verify(pool_table.campaign) is None
        transaction.set_rollback(True)


@st.composite
def mana_rolls(draw):
    """What the GM may set (mana maxima 0..99, a trait, difficulty 1..1000, a re-attempt) and
    the player may send (0..100 of each of the skill's colors and colorless)."""
    amount = st.one_of(st.integers(0, 99), st.sampled_from([0, 1, 98, 99]))
    have = draw(amount), draw(amount), draw(amount)
    spent = tuple(
        draw(
            st.one_of(st.integers(0, min(at_hand, 4)), st.integers(0, at_hand), st.integers(0, 100))
        )
        for at_hand in have
    )
    if draw(st.booleans()):  # colorless in pairs, as a player spends it but now and then
        spent = (*spent[:2], spent[2] - spent[2] % 2)
    difficulty = draw(st.one_of(st.integers(1, 1000), st.sampled_from([1, 2, 200, 201, 1000])))
    return have, spent, difficulty, draw(st.booleans()), draw(st.booleans())


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(chosen=mana_rolls())
def test_every_mana_roll_the_forms_accept_previews_and_rolls(
    mana_table, as_user, player, pushes, django_capture_on_commit_callbacks, settings, chosen
):
    """As Pool's, for Mana: whatever the pool holds and the player spends, on a first attempt
    or a re-attempt."""
    settings.WRITE_LIMITS = {}  # one player rolls faster here than the table allows
    (have_a, have_b, colorless), (spend_a, spend_b, spend_c), difficulty, trait, again = chosen
    with transaction.atomic():
        fill(mana_table.mira, red=have_a, green=have_b, colorless=colorless)
        traits_set(character=mana_table.mira, traits=["Athletic"] if trait else [])
        check = ask(mana_table, mana_table.mira, target=difficulty)
        data = mana_data(mana_table, mana_table.jump, spend_a=spend_a, spend_b=spend_b)
        data |= {"colorless": spend_c}
        client = as_user(player)
        if again:  # a re-attempt after spending 1 red on a roll that failed
            Check.objects.filter(pk=check.pk).update(target=201)  # 2 d10 cannot reach it
            check.refresh_from_db()
            first = mana_data(mana_table, mana_table.jump, spend_a=1, spend_b=0)
            if (
                have_a
                and client.post(roll_url(mana_table, check), first, **HTMX).status_code == 204
            ):
                services.check_allow_reattempt(check=check)
            Check.objects.filter(pk=check.pk).update(target=difficulty)
            check.refresh_from_db()
        preview = client.get(url("check_odds", mana_table, check.id), data, **HTMX)
        assert preview.status_code == 200
        shown = shown_chance(preview.content.decode())
        rolls = check.rolls.count()
        pushes.sent.clear()
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(roll_url(mana_table, check), data, **HTMX)
        assert response.status_code == (204 if shown else 422)
        if shown:
            entry = check.rolls.order_by("seq").last()
            chance = mana.success_probability(entry.data["dice"], difficulty)
            assert entry.data["chance"] == str(chance)  # Mana's: always exact
            assert escape(percent(entry.chance)) == shown
            assert f"(chance {shown})" in str(pushes.entries())
            assert services.log_verify(mana_table.campaign) is None
        else:
            assert check.rolls.count() == rolls
        transaction.set_rollback(True)
