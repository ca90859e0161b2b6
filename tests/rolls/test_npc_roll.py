"""The GM's roll for an NPC in one step: rolls.services.check_roll_npc and the views npc_roll,
npc_form and npc_odds."""

import re

import pytest
from django.urls import reverse

from rolls import services
from rolls.models import PRIVATE, PUBLIC, SECRET, Check, LogEntry
from rolls.systems.mana import models as mana_models
from rolls.systems.mana.models import ManaPool
from rolls.systems.pool.models import Rating
from sheets.models import Character
from tests.helpers import HTMX, raises_refused, unchanged
from tests.rolls.room_setup import refused, script_dice, url

# The service -------------------------------------------------------------------------------------


def mana_data(table, **overrides):
    data = {"skill": table.gather, "spend_a": 1, "spend_b": 1, "colorless": 0, "intent": ""}
    return {**data, **overrides}


def pool_data(table, **overrides):
    data = {
        "attribute": Rating.objects.get(character=table.npc, attribute="Strength", skill=""),
        "skill": None,
        "shift_d6": 0,
        "shift_d10": 0,
        "bonus_effect": "",
        "intent": "",
    }
    return {**data, **overrides}


def pools(character):
    return dict(ManaPool.objects.filter(character=character).values_list("color", "current"))


def test_a_mana_npc_roll_asks_and_rolls_in_one_write(mana_table, monkeypatch):
    t = mana_table
    script_dice(monkeypatch, 8, 9, 1, 1)
    check, entry = services.check_roll_npc(
        campaign=t.campaign,
        character=t.npc,
        by=t.gm,
        target=2,
        data=mana_data(t, intent="Spot the thief"),
        note="At the gate",
    )
    check.refresh_from_db()
    skill = mana_models.check_of(check).skill
    assert (check.status, check.created_by, skill, check.target) == (
        Check.DONE,
        t.gm,
        t.gather,
        2,
    )
    assert (check.note, check.intent, check.visibility) == ("At the gate", "Spot the thief", PUBLIC)
    assert (entry.kind, entry.check_ref, entry.actor, entry.character) == (
        LogEntry.ROLL,
        check,
        t.gm,
        t.npc,
    )
    assert entry.data["success"] and entry.data["dice"] == 4 and entry.data["faces"] == [8, 9, 1, 1]
    assert pools(t.npc)["blue"] == 1 and pools(t.npc)["white"] == 1


def test_a_failed_mana_npc_roll_stays_live_for_a_reattempt(mana_table, monkeypatch):
    t = mana_table
    script_dice(monkeypatch, 1, 2, 3, 4)
    check, entry = services.check_roll_npc(
        campaign=t.campaign, character=t.npc, by=t.gm, target=2, data=mana_data(t)
    )
    assert check.status == Check.FAILED and not entry.data["success"]


def test_a_pool_npc_roll_with_a_shift_is_rolled_at_once(pool_table, monkeypatch):
    t = pool_table
    script_dice(monkeypatch, 5, 3, 2)
    check, entry = services.check_roll_npc(
        campaign=t.campaign,
        character=t.npc,
        by=t.gm,
        target=4,
        data=pool_data(t, shift_d6=1, bonus_effect="Knock him down"),
    )
    check.refresh_from_db()
    assert check.status == Check.DONE and check.suggestion == "Strength"
    assert entry.data["shift"] == {"d6": 1, "d10": 0} and entry.data["bonus_achieved"]
    assert entry.data["highest"] == 5 and entry.data["success"]


def test_a_secret_npc_roll_is_sealed(pool_table, monkeypatch):
    t = pool_table
    script_dice(monkeypatch, 1, 2, 3, 4)
    _check, entry = services.check_roll_npc(
        campaign=t.campaign,
        character=t.npc,
        by=t.gm,
        target=4,
        data=pool_data(t),
        visibility=SECRET,
    )
    assert entry.visibility == SECRET and entry.commitment
    assert services.log_verify(t.campaign) is None


@pytest.mark.parametrize(
    ("who", "character", "overrides", "message"),
    [
        ("gm", "mira", {}, "Choose one of your own characters (an NPC)."),
        ("player", "mira", {}, "Only the GM rolls for NPCs."),
        ("gm", "npc", {"spend_a": 3}, "Not enough blue mana"),
        ("gm", "npc", {"spend_a": -1}, "Blue mana must be a whole number"),
    ],
)
def test_refused_npc_rolls_change_nothing(mana_table, who, character, overrides, message):
    t = mana_table
    with unchanged(), raises_refused(match=re.escape(message)):
        services.check_roll_npc(
            campaign=t.campaign,
            character=getattr(t, character),
            by=getattr(t, who),
            target=2,
            data=mana_data(t, **overrides),
        )


def test_a_bad_number_refuses_the_npc_roll(pool_table):
    t = pool_table
    with unchanged(), raises_refused(match="whole number from 1 to 1000"):
        services.check_roll_npc(
            campaign=t.campaign, character=t.npc, by=t.gm, target=0, data=pool_data(t)
        )


# The views ---------------------------------------------------------------------------------------


def mana_post(t, **overrides):
    data = {
        "character": t.npc.id,
        "target": 2,
        "visibility": PUBLIC,
        "note": "At the gate",
        "skill": t.gather.id,
        "color_a": "blue",
        "color_b": "white",
        "spend_a": 1,
        "spend_b": 1,
        "colorless": 0,
        "intent": "Spot the thief",
    }
    return {**data, **overrides}


def pool_post(t, **overrides):
    strength = Rating.objects.get(character=t.npc, attribute="Strength", skill="")
    data = {
        "character": t.npc.id,
        "target": 4,
        "visibility": PUBLIC,
        "attribute": strength.id,
        "skill": "",
        "shift_d6": 0,
        "shift_d10": 0,
    }
    return {**data, **overrides}


def test_the_gm_rolls_for_an_npc_from_the_room(
    mana_table, as_user, monkeypatch, pushes, django_capture_on_commit_callbacks
):
    t = mana_table
    script_dice(monkeypatch, 8, 9, 1, 1)
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(t.gm).post(url("npc_roll", t), mana_post(t), **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    # The form comes back holding what was posted, with a new one-time token.
    assert 'id="npc-roll"' in html and "Rolled" in html
    assert 'class="error"' not in html  # a roll that went through shows no refusal
    assert 'name="target" id="npc-target"' in html and 'value="2"' in html
    assert 'value="At the gate"' in html and 'value="Spot the thief"' in html
    assert f'<option value="{t.gather.id}" selected>' in html
    check = Check.objects.get()
    assert check.status == Check.DONE and check.character == t.npc
    # One entry for the whole room; a closed check has no card to push.
    [entry] = pushes.entries()
    assert set(entry) == {"seq", "prev_seq", "all"} and "The Warden" in entry["all"]
    assert pushes.checks() == []


def test_a_failed_npc_roll_pushes_its_card_to_the_gm_alone(
    mana_table, as_user, monkeypatch, pushes, django_capture_on_commit_callbacks
):
    t = mana_table
    script_dice(monkeypatch, 1, 2, 3, 4)
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(t.gm).post(url("npc_roll", t), mana_post(t), **HTMX)
    assert response.status_code == 200
    check = Check.objects.get()
    assert check.status == Check.FAILED
    [card] = pushes.checks()
    assert set(card) == {"gm"}
    assert reverse("check_allow_reattempt", args=[t.campaign.id, check.id]) in card["gm"]


@pytest.mark.parametrize("visibility", [PRIVATE, SECRET])
def test_a_hidden_npc_roll_reaches_the_players_as_a_stub(
    pool_table, as_user, monkeypatch, pushes, django_capture_on_commit_callbacks, visibility
):
    t = pool_table
    script_dice(monkeypatch, 5, 3, 2, 1)
    data = pool_post(t, visibility=visibility, note="The ogre lies in wait")
    with django_capture_on_commit_callbacks(execute=True):
        response = as_user(t.gm).post(url("npc_roll", t), data, **HTMX)
    assert response.status_code == 200
    [entry] = pushes.entries()
    assert "The ogre lies in wait" in entry["gm"]
    assert "The ogre lies in wait" not in entry["all"] and "success" not in entry["all"]
    assert set(entry.get("users", {})) <= {str(t.gm.id)}  # the actor is the GM
    if visibility == SECRET:
        assert LogEntry.objects.get().commitment


def test_a_pool_npc_roll_posted_without_htmx_is_redirected(pool_table, as_user, monkeypatch):
    t = pool_table
    script_dice(monkeypatch, 5, 3, 2, 1)
    response = as_user(t.gm).post(url("npc_roll", t), pool_post(t))
    assert response.status_code == 302 and response.url == url("room", t)
    assert LogEntry.objects.get().data["attribute"] == "Strength"


def test_a_double_submit_rolls_once(mana_table, as_user, monkeypatch):
    t = mana_table
    script_dice(monkeypatch, 8, 9, 1, 1)
    client = as_user(t.gm)
    data = mana_post(t, once="token-1")
    assert client.post(url("npc_roll", t), data, **HTMX).status_code == 200
    assert client.post(url("npc_roll", t), data, **HTMX).status_code == 200
    assert LogEntry.objects.count() == 1


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"character": "mira"}, "NPC: Choose one of your NPCs."),
        ({"character": "99999999999999999999999"}, "NPC: Choose one of your NPCs."),
        ({"target": "lots"}, "Difficulty / TN"),
        ({"target": 0}, "Difficulty / TN"),
        ({"visibility": "everyone"}, "Visibility"),
        ({"skill": ""}, "This field is required."),
        ({"spend_a": 3}, "Not enough blue mana"),
        ({"color_a": "red", "color_b": "green"}, "Enter the amounts again."),
    ],
)
def test_bad_npc_rolls_are_refused(
    mana_table, as_user, pushes, django_capture_on_commit_callbacks, overrides, message
):
    t = mana_table
    if overrides.get("character") == "mira":
        overrides = {"character": t.mira.id}
    html = refused(
        as_user(t.gm),
        url("npc_roll", t),
        mana_post(t, **overrides),
        t.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert message in html and 'id="npc-roll"' in html


def test_a_refused_pool_npc_roll_names_the_rating(
    pool_table, as_user, pushes, django_capture_on_commit_callbacks
):
    t = pool_table
    html = refused(
        as_user(t.gm),
        url("npc_roll", t),
        pool_post(t, attribute=t.strength.id),  # Ilse's, not the Ogre's
        t.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert "Choose one of your character&#x27;s attributes." in html


def test_only_the_gm_rolls_for_npcs(mana_table, as_user, outsider):
    t = mana_table
    for user, status in ((t.player, 403), (t.other_player, 403), (outsider, 404)):
        with unchanged():
            response = as_user(user).post(url("npc_roll", t), mana_post(t), **HTMX)
        assert response.status_code == status
    for name in ("npc_form", "npc_odds"):
        assert as_user(t.player).get(url(name, t)).status_code == 403
        assert as_user(outsider).get(url(name, t)).status_code == 404
    response = as_user(None).post(url("npc_roll", t), mana_post(t))
    assert response.status_code == 302 and "/login/" in response.url


def test_the_room_shows_the_npc_form_to_the_gm_only(pool_table, as_user):
    t = pool_table
    html = as_user(t.gm).get(url("room", t)).content.decode()
    assert 'id="npc-roll"' in html and "The Ogre" in html and "Strength 4d6" in html
    # Nothing typed yet: the odds say what to do, with no refusal in red (issue #43).
    npc = html[html.index('id="npc-roll"') :]
    npc = npc[: npc.index("</section>")]
    assert '<span class="muted">Set the TN to see the chance.</span>' in npc
    assert 'class="error"' not in npc
    html = as_user(t.player).get(url("room", t)).content.decode()
    assert 'id="npc-roll"' not in html and "The Ogre" not in html


def test_the_npc_form_follows_the_chosen_npc(pool_table, as_user):
    t = pool_table
    other = Character.objects.create(campaign=t.campaign, owner=t.gm, name="Aardvark")
    agility = Rating.objects.create(character=other, attribute="Agility", value=2)
    client = as_user(t.gm)
    html = client.get(url("npc_form", t), {"character": other.id, "target": 5}).content.decode()
    assert html.startswith("\n<form") or "<form" in html.split("\n", 2)[1]
    assert f'<option value="{other.id}" selected>' in html
    assert f'<option value="{agility.id}" selected>Agility 2d6</option>' in html
    assert "Strength 4d6" not in html
    assert 'value="5"' in html


def test_the_npc_odds(mana_table, as_user):
    t = mana_table
    client = as_user(t.gm)
    odds = client.get(url("npc_odds", t), mana_post(t)).content.decode()
    assert "4d10" in odds and "%" in odds
    # Nothing typed yet: what to do, quietly; a number the form refuses: why, as a refusal.
    odds = client.get(url("npc_odds", t), mana_post(t, target="")).content.decode()
    assert odds.strip() == '<span class="muted">Set the difficulty to see the chance.</span>'
    odds = client.get(url("npc_odds", t), mana_post(t, target="0")).content.decode()
    assert '<span class="error">Set the difficulty (a whole number from 1).</span>' in odds
    odds = client.get(url("npc_odds", t), mana_post(t, spend_a=9)).content.decode()
    assert "Not enough blue mana" in odds
    odds = client.get(url("npc_odds", t), mana_post(t, character=t.mira.id)).content.decode()
    assert "Choose one of your NPCs." in odds


def test_a_gm_without_npcs_is_told_how_to_make_one(pool_campaign, as_user, gm):
    html = as_user(gm).get(reverse("room", args=[pool_campaign.id])).content.decode()
    assert 'id="npc-roll"' in html and "You have no NPC yet." in html
