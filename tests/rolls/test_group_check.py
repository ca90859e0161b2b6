"""Group checks and the ask form that keeps its choices: rolls.services.check_ask_group and the
view check_ask with several characters."""

import re

import pytest
from django.urls import reverse

from rolls import services
from rolls.models import PRIVATE, SECRET, Check
from rolls.systems.mana import models as mana_models
from tests.helpers import HTMX, raises_refused, unchanged
from tests.rolls.room_setup import refused, url

# The service -------------------------------------------------------------------------------------


def test_a_group_check_asks_each_character_once(mana_table):
    t = mana_table
    checks, left_out = services.check_ask_group(
        campaign=t.campaign,
        characters=[t.mira, t.bo],
        by=t.gm,
        target=3,
        mana_skill=t.gather,
        note="Search the docks",
        visibility=PRIVATE,
    )
    assert [c.character for c in checks] == [t.mira, t.bo] and left_out == []
    for check in Check.objects.all():
        skill = mana_models.check_of(check).skill
        assert (check.target, skill, check.note, check.visibility, check.status) == (
            3,
            t.gather,
            "Search the docks",
            PRIVATE,
            Check.OPEN,
        )


@pytest.mark.parametrize(
    ("characters", "overrides", "message"),
    [
        ([], {}, "Choose at least one character."),
        (["mira", "bo"], {"target": 0}, "whole number from 1 to 1000"),
        # One player's character among them: no check for anyone.
        (["npc", "mira"], {"visibility": SECRET}, "Only the GM's own characters"),
    ],
)
def test_a_refused_group_check_asks_nobody(mana_table, characters, overrides, message):
    t = mana_table
    kwargs = {"target": 3, **overrides}
    with unchanged(), raises_refused(match=re.escape(message)):
        services.check_ask_group(
            campaign=t.campaign,
            characters=[getattr(t, name) for name in characters],
            by=t.gm,
            **kwargs,
        )


def test_a_group_check_leaves_out_a_character_without_dice_and_asks_the_others(pool_table):
    t = pool_table
    # Ilse has Agility 1, the Ogre none rated, Tor Agility 0 and no Agility skill.
    checks, left_out = services.check_ask_group(
        campaign=t.campaign,
        characters=[t.ilse, t.tor, t.npc],
        by=t.gm,
        target=5,
        suggestion="Agility",
    )
    assert [c.character for c in checks] == [t.ilse]
    assert [(c.character, c.target) for c in Check.objects.all()] == [(t.ilse, 5)]
    assert left_out == [
        (
            t.tor,
            "Tor has no dice for Agility (rated 0): raise it first, or ask for something else.",
        ),
        (
            t.npc,
            "The Ogre has no dice for Agility (rated 0): raise it first, or ask for something "
            "else.",
        ),
    ]


def test_a_group_check_nobody_has_dice_for_asks_nobody(pool_table):
    t = pool_table
    with unchanged(), raises_refused(match="^Tor has no dice .* The Ogre has no dice "):
        services.check_ask_group(
            campaign=t.campaign, characters=[t.tor, t.npc], by=t.gm, target=5, suggestion="Agility"
        )


# The view ----------------------------------------------------------------------------------------


def group_data(t, **overrides):
    data = {
        "character": [t.mira.id, t.bo.id],
        "mana_skill": t.gather.id,
        "target": 3,
        "note": "Search the docks",
        "visibility": PRIVATE,
    }
    return {**data, **overrides}


def chosen(html, name):
    """The values selected in the select named ``name``."""
    select = re.search(rf'<select name="{name}".*?</select>', html, re.S).group(0)
    return re.findall(r'<option value="([^"]*)"[^>]*\bselected\b', select)


def test_the_gm_asks_a_group_check(mana_table, as_user, pushes, django_capture_on_commit_callbacks):
    t = mana_table
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(t.gm).post(url("check_ask", t), group_data(t), **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Asked 2 characters." in html
    mira, bo = Check.objects.get(character=t.mira), Check.objects.get(character=t.bo)
    # Each player gets their own card, the GM both; nobody else hears of them.
    cards = pushes.checks()
    assert len(cards) == 2 and pushes.entries() == []
    by_user = {}
    for message in cards:
        assert reverse("check_cancel", args=[t.campaign.id, mira.id]) in message["gm"] or (
            reverse("check_cancel", args=[t.campaign.id, bo.id]) in message["gm"]
        )
        [(user_id, card)] = message["users"].items()
        by_user[user_id] = card
    assert set(by_user) == {str(t.player.id), str(t.other_player.id)}
    assert reverse("check_roll", args=[t.campaign.id, mira.id]) in by_user[str(t.player.id)]
    assert "Bo" not in by_user[str(t.player.id)]
    assert reverse("check_roll", args=[t.campaign.id, bo.id]) in by_user[str(t.other_player.id)]
    assert "Mira" not in by_user[str(t.other_player.id)]


def test_the_ask_form_keeps_its_choices(mana_table, as_user):
    t = mana_table
    client = as_user(t.gm)
    html = client.post(url("check_ask", t), group_data(t), **HTMX).content.decode()
    assert set(chosen(html, "character")) == {str(t.mira.id), str(t.bo.id)}
    assert chosen(html, "mana_skill") == [str(t.gather.id)]
    assert chosen(html, "visibility") == [PRIVATE]
    assert 'name="target" value="3"' in html
    assert "Search the docks" not in html  # the note is for one ask
    first = re.search(r'name="once" value="([^"]+)"', html).group(1)
    # Asking again from the kept form asks again (a new one-time token).
    data = group_data(t, character=[t.npc.id], visibility=SECRET, target=5, once=first)
    html = client.post(url("check_ask", t), data, **HTMX).content.decode()
    assert "Asked." in html and Check.objects.count() == 3
    assert chosen(html, "character") == [str(t.npc.id)]
    assert chosen(html, "visibility") == [SECRET] and 'name="target" value="5"' in html
    assert re.search(r'name="once" value="([^"]+)"', html).group(1) != first


def test_a_pool_ask_keeps_its_suggestion(pool_table, as_user):
    t = pool_table
    data = {"character": t.ilse.id, "suggestion": "Strength + Jump", "target": 8}
    data["visibility"] = PRIVATE
    html = as_user(t.gm).post(url("check_ask", t), data, **HTMX).content.decode()
    assert "Asked." in html and Check.objects.get().suggestion == "Strength + Jump"
    assert 'value="Strength + Jump"' in html and 'name="target" value="8"' in html


def test_the_gm_asks_those_with_dice_and_is_told_who_was_left_out(
    pool_table, as_user, pushes, django_capture_on_commit_callbacks
):
    t = pool_table
    data = {"character": [t.ilse.id, t.tor.id], "suggestion": "Agility", "target": 5}
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(t.gm).post(url("check_ask", t), {**data, "visibility": "public"}, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Asked." in html
    assert re.search(
        r'role="alert"><p>Not asked:</p><ul><li>Tor has no dice for Agility \(rated 0\)', html
    )
    assert [c.character for c in Check.objects.all()] == [t.ilse]
    assert len(pushes.checks()) == 1


def test_an_ask_nobody_has_dice_for_is_refused_and_changes_nothing(
    pool_table, as_user, pushes, django_capture_on_commit_callbacks
):
    t = pool_table
    data = {"character": [t.tor.id], "suggestion": "Agility", "target": 5, "visibility": "public"}
    html = refused(
        as_user(t.gm),
        url("check_ask", t),
        data,
        t.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert "Tor has no dice for Agility (rated 0)" in html and "Not asked" not in html


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"character": []}, "Choose at least one character."),
        ({"character": ["mira", "x"]}, "Choose a character of this campaign."),
        ({"character": ["mira", "elsewhere"]}, "Choose a character of this campaign."),
        ({"visibility": SECRET}, "Only the GM&#x27;s own characters roll GM-secret checks."),
        ({"target": ""}, "Set the difficulty or TN"),
    ],
)
def test_a_refused_group_check_changes_and_pushes_nothing(
    mana_table,
    elsewhere,
    as_user,
    pushes,
    django_capture_on_commit_callbacks,
    overrides,
    message,
):
    t = mana_table
    ids = {"mira": t.mira.id, "elsewhere": elsewhere[1].id, "x": "x"}
    if "character" in overrides:
        overrides = {"character": [ids[name] for name in overrides["character"]]}
    html = refused(
        as_user(t.gm),
        url("check_ask", t),
        group_data(t, **overrides),
        t.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert message in html


def test_only_the_gm_asks_a_group_check(mana_table, as_user, outsider):
    t = mana_table
    for user, status in ((t.player, 403), (outsider, 404)):
        with unchanged():
            response = as_user(user).post(url("check_ask", t), group_data(t), **HTMX)
        assert response.status_code == status
