"""What a check asks for binds its roll (room.views.check_roll, rolls.services): the Mana skill,
the Pool attribute (and skill) its suggestion names, fixed in the player's form and refused
otherwise; "any" leaves the choice to the player. The log (page, push, export) and the finished
card say what was asked and what was rolled."""

import csv
import io

import pytest
from django.urls import reverse

from rolls import services
from rolls.models import Check
from rolls.systems.pool import models as pool_models
from rolls.systems.pool import services as pool_services
from rolls.systems.pool.models import Rating
from room import push
from room.push import Viewer, render_check
from tests.helpers import HTMX
from tests.rolls.room_setup import (
    ask,
    rate,
    refused,
    roll_mana,
    roll_url,
    script_dice,
    url,
)


def mana_data(skill, **overrides):
    data = {
        "skill": skill.id,
        "color_a": skill.color_a,
        "color_b": skill.color_b,
        "spend_a": 1,
        "spend_b": 0,
        "colorless": 0,
        "intent": "",
    }
    return {**data, **overrides}


def pool_data(attribute, skill=None, **overrides):
    data = {
        "attribute": attribute.id,
        "skill": skill.id if skill else "",
        "shift_d6": 0,
        "shift_d10": 0,
        "bonus_effect": "",
        "intent": "",
    }
    return {**data, **overrides}


def roll_form_of(html):
    start = html.index('<form class="roll"')
    return html[start : html.index("</form>", start)]


def post_roll(client, table, check, data, capture):
    with capture(execute=True):
        response = client.post(roll_url(table, check), data, **HTMX)
    assert response.status_code == 204, response.content.decode()
    return Check.objects.get(pk=check.pk).rolls.get()


# What a Pool suggestion binds (rolls.systems.pool.services.asked_fields) ----------------------


@pytest.mark.parametrize(
    ("suggestion", "asked"),
    [
        ("Strength", ("Strength", "")),
        ("Jump", ("Strength", "Jump")),
        ("Strength + Jump", ("Strength", "Jump")),
        ("jump the gap", ("Strength", "Jump")),
        ("Agility + Jump", ("Agility", "")),  # Jump is Strength's: the attribute named binds
        ("Strength or Agility", ("", "")),  # a choice of attributes is the player's
        ("Parkour", ("", "")),  # pending: not rollable, binds nothing
        ("Leap across", ("", "")),
        ("", ("", "")),
    ],
)
def test_a_pool_suggestion_binds_what_it_names_of_the_sheet(pool_table, suggestion, asked):
    check = ask(pool_table, pool_table.ilse, suggestion=suggestion)
    own = pool_models.check_of(check)
    assert (own.asked_attribute, own.asked_skill) == asked


def test_a_pool_request_binds_too(pool_table, player):
    check = services.check_request(
        campaign=pool_table.campaign, character=pool_table.ilse, by=player, suggestion="Jump"
    )
    own = pool_models.check_of(check)
    assert (own.asked_attribute, own.asked_skill) == ("Strength", "Jump")


def test_a_mana_suggestion_binds_nothing_but_the_skill(mana_table, player):
    check = services.check_request(
        campaign=mana_table.campaign, character=mana_table.mira, by=player, suggestion="Strength"
    )
    own = pool_models.check_of(check)
    assert (own.asked_attribute, own.asked_skill) == ("", "")


# Mana -------------------------------------------------------------------------------------------


def test_the_asked_skill_is_fixed_in_the_players_form(mana_table, as_user, player):
    ask(mana_table, mana_table.mira, mana_skill=mana_table.jump)
    html = as_user(player).get(url("room", mana_table)).content.decode()
    form = roll_form_of(html)
    assert "<select" not in form
    assert "Skill <b>Jump</b> (red + green; trait Athletic)" in form
    assert f'<input type="hidden" name="skill" value="{mana_table.jump.id}">' in form


def test_any_skill_stays_the_players_choice(mana_table, as_user, player):
    check = ask(mana_table, mana_table.mira)
    html = as_user(player).get(url("room", mana_table)).content.decode()
    form = roll_form_of(html)
    assert f'<select name="skill" id="roll-{check.id}-skill"' in form
    # Arrowing through the skills does not redraw the form at each step.
    assert 'hx-trigger="change delay:400ms"' in form
    assert "Gather Information (blue + white)" in form and "Jump (red + green" in form


def test_a_roll_of_another_skill_than_asked_is_refused(
    mana_table, as_user, player, pushes, django_capture_on_commit_callbacks
):
    check = ask(mana_table, mana_table.mira, mana_skill=mana_table.jump)
    html = refused(
        as_user(player),
        roll_url(mana_table, check),
        mana_data(mana_table.gather),
        mana_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert "This check is for Jump: roll Jump." in html
    assert "Skill <b>Jump</b>" in html  # the form shows the asked skill again


def test_the_odds_of_another_skill_than_asked_say_why(mana_table, as_user, player):
    check = ask(mana_table, mana_table.mira, mana_skill=mana_table.jump)
    odds_url = reverse("check_odds", args=[mana_table.campaign.id, check.id])
    html = as_user(player).get(odds_url, mana_data(mana_table.gather)).content.decode()
    assert "This check is for Jump: roll Jump." in html


def test_the_log_says_what_was_asked_and_rolled(
    mana_table, as_user, player, pushes, monkeypatch, django_capture_on_commit_callbacks
):
    check = ask(mana_table, mana_table.mira, target=1, mana_skill=mana_table.jump)
    script_dice(monkeypatch, 9, 9)
    entry = post_roll(
        as_user(player),
        mana_table,
        check,
        mana_data(mana_table.jump),
        django_capture_on_commit_callbacks,
    )
    assert (entry.data["asked"], entry.data["skill"]) == ("Jump", "Jump")
    [message] = pushes.entries()
    assert "asked: Jump · rolled: Jump" in message["all"]
    html = as_user(player).get(url("room", mana_table)).content.decode()
    assert "asked: Jump · rolled: Jump" in html


def test_any_skill_is_marked_as_the_players_choice(
    mana_table, as_user, player, pushes, monkeypatch, django_capture_on_commit_callbacks
):
    check = ask(mana_table, mana_table.mira, target=3)
    script_dice(monkeypatch, 1, 1)
    entry = post_roll(
        as_user(player),
        mana_table,
        check,
        mana_data(mana_table.gather),
        django_capture_on_commit_callbacks,
    )
    assert entry.data["asked"] == ""
    [message] = pushes.entries()
    assert 'Gather Information <span class="muted">(free choice)</span>' in message["all"]
    # The failed card names the skill rolled, and the re-attempt keeps it, fixed.
    [card] = pushes.checks()
    assert "Gather Information" in card["gm"] and "any skill" not in card["gm"]
    services.check_allow_reattempt(check=check)
    form = roll_form_of(as_user(player).get(url("room", mana_table)).content.decode())
    assert "Skill <b>Gather Information</b>" in form and "<select" not in form


# Pool -------------------------------------------------------------------------------------------


def test_the_asked_attribute_is_fixed_and_its_skills_offered(pool_table, as_user, player):
    check = ask(pool_table, pool_table.ilse, suggestion="Strength")
    form = roll_form_of(as_user(player).get(url("room", pool_table)).content.decode())
    assert "Attribute <b>Strength 3d6</b>" in form
    assert f'<input type="hidden" name="attribute" value="{pool_table.strength.id}">' in form
    assert 'name="attribute"' in form and "Agility" not in form
    assert f'<select name="skill" id="roll-{check.id}-skill">' in form
    assert "Jump 2d10" in form


def test_the_asked_skill_is_fixed_too(pool_table, as_user, player):
    ask(pool_table, pool_table.ilse, target=4, suggestion="Strength + Jump")
    form = roll_form_of(as_user(player).get(url("room", pool_table)).content.decode())
    assert "<select" not in form
    assert "Attribute <b>Strength 3d6</b> · skill <b>Jump 2d10</b>" in form
    assert f'<input type="hidden" name="skill" value="{pool_table.jump.id}">' in form
    assert "3d6 + 2d10" in form  # the first odds are those of the asked pool


@pytest.mark.parametrize(
    ("suggestion", "header"),
    [
        # What it names is what the card says already: no "Strength + Jump (Jump)".
        ("Jump", "Strength + Jump\n"),
        ("strength + jump", "Strength + Jump\n"),
        # More than the ratings it binds: the words typed, beside them.
        ("jump the gap", 'Strength + Jump <span class="muted">(jump the gap)</span>'),
    ],
)
def test_a_card_repeats_the_suggestion_only_when_it_says_more(
    pool_table, as_user, suggestion, header
):
    check = ask(pool_table, pool_table.ilse, suggestion=suggestion)
    html = as_user(pool_table.gm).get(url("room", pool_table)).content.decode()
    card = html[html.index(f'<article id="check-{check.id}"') :]
    card = card[: card.index("</header>")]
    assert f"· {header}" in card


def test_any_attribute_stays_the_players_choice(pool_table, as_user, player):
    check = ask(pool_table, pool_table.ilse)
    form = roll_form_of(as_user(player).get(url("room", pool_table)).content.decode())
    assert f'<select name="attribute" id="roll-{check.id}-attribute"' in form
    assert "Agility 1d6" in form and "Strength 3d6" in form


@pytest.mark.parametrize(
    ("suggestion", "choice", "why"),
    [
        ("Strength", ("agility", None), "This check is for Strength: roll Strength."),
        ("Jump", ("strength", None), "This check is for Strength + Jump: roll Jump."),
        ("Jump", ("strength", "endurance"), "This check is for Strength + Jump: roll Jump."),
    ],
)
def test_a_roll_of_anything_else_than_asked_is_refused(
    pool_table,
    as_user,
    player,
    pushes,
    django_capture_on_commit_callbacks,
    suggestion,
    choice,
    why,
):
    endurance = rate(pool_table.ilse, "Strength", "Endurance", value=1)
    check = ask(pool_table, pool_table.ilse, suggestion=suggestion)
    ratings = {"agility": pool_table.agility, "strength": pool_table.strength}
    ratings["endurance"] = endurance
    attribute, skill = (ratings.get(name) for name in choice)
    html = refused(
        as_user(player),
        roll_url(pool_table, check),
        pool_data(attribute, skill),
        pool_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert why in html
    # The odds say so too, before the roll.
    odds_url = reverse("check_odds", args=[pool_table.campaign.id, check.id])
    odds = as_user(player).get(odds_url, pool_data(attribute, skill)).content.decode()
    assert why in odds


def test_a_pool_roll_logs_what_was_asked(
    pool_table, as_user, player, pushes, monkeypatch, django_capture_on_commit_callbacks
):
    check = ask(pool_table, pool_table.ilse, suggestion="Jump")
    script_dice(monkeypatch, 2, 2, 2, 2, 2)
    entry = post_roll(
        as_user(player),
        pool_table,
        check,
        pool_data(pool_table.strength, pool_table.jump),
        django_capture_on_commit_callbacks,
    )
    assert entry.data["asked"] == "Strength + Jump"
    [message] = pushes.entries()
    assert "asked: Strength + Jump · rolled: Strength 3 + Jump 2" in message["all"]
    # Done: the card leaves the live checks; the log keeps what was asked and rolled.
    [card] = pushes.checks()
    assert card["gm"] == f'<article id="check-{check.pk}" hx-swap-oob="delete"></article>'


def test_a_free_suggestion_is_logged_as_asked_but_binds_nothing(
    pool_table, as_user, player, pushes, monkeypatch, django_capture_on_commit_callbacks
):
    check = ask(pool_table, pool_table.ilse, suggestion="Leap across <the gap>")
    script_dice(monkeypatch, 2, 2, 2, 2, 2)
    entry = post_roll(
        as_user(player),
        pool_table,
        check,
        pool_data(pool_table.agility),
        django_capture_on_commit_callbacks,
    )
    assert entry.data["asked"] == "Leap across <the gap>"
    [message] = pushes.entries()
    assert "asked: Leap across &lt;the gap&gt; · rolled: Agility 1" in message["all"]


def test_a_finished_card_after_a_shift_names_what_was_rolled(
    pool_table, as_user, gm, player, pushes, monkeypatch, django_capture_on_commit_callbacks
):
    check = ask(pool_table, pool_table.ilse, target=5)  # any attribute
    client = as_user(player)
    with django_capture_on_commit_callbacks(execute=True):
        data = pool_data(pool_table.strength, pool_table.jump, shift_d6=1, bonus_effect="quietly")
        assert client.post(roll_url(pool_table, check), data, **HTMX).status_code == 204
    script_dice(monkeypatch, 6, 2, 3, 1, 4)
    shift_url = reverse("check_answer_shift", args=[pool_table.campaign.id, check.id])
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(gm).post(shift_url, {"answer": "approve"}, **HTMX)
    assert response.status_code == 204
    # The card left the live checks; wherever a finished card is drawn, it names the roll.
    check.refresh_from_db()
    assert check.status == Check.DONE
    for viewer in (Viewer(gm.id, True), Viewer(player.id, False)):
        html = render_check(check, viewer)
        header = html[html.index("<header>") : html.index("</header>")]
        assert "Strength 3 + Jump 2" in header
        assert "any attribute" not in header


def test_the_export_has_what_was_asked(pool_table, as_user, player):
    check = ask(pool_table, pool_table.ilse, suggestion="Strength")
    pool_services.check_roll_pool(
        check=check, by=player, attribute=pool_table.strength, rng=_dice(2, 2, 2)
    )
    response = as_user(player).get(reverse("log_csv", args=[pool_table.campaign.id]))
    [row] = list(csv.DictReader(io.StringIO(response.getvalue().decode())))
    assert (row["asked"], row["about"]) == ("Strength", "Strength 3")


def test_a_hidden_roll_keeps_what_was_asked_hidden(mana_table, player):
    check = ask(mana_table, mana_table.mira, mana_skill=mana_table.jump, visibility="private")
    entry = roll_mana(check, player, mana_table.jump, (1, 1, 1), spend_b=0, spend_a=1)
    message = push.entry_message(entry)
    assert "rolled privately" in message["all"] and "Jump" not in message["all"]
    assert "asked: Jump · rolled: Jump" in message["users"][str(player.id)]
    assert "asked: Jump · rolled: Jump" in message["gm"]


def _dice(*faces):
    from tests.rules.scripted_rng import ScriptedRng

    return ScriptedRng(*faces)


def test_a_pending_skill_named_leaves_the_roll_free(pool_table, as_user, player):
    """Parkour awaits the GM's greenlight: a check naming it binds nothing."""
    assert pool_table.parkour.status == Rating.PENDING
    ask(pool_table, pool_table.ilse, suggestion="Parkour")
    form = roll_form_of(as_user(player).get(url("room", pool_table)).content.decode())
    assert '<select name="attribute"' in form
