"""Saved rolls (#47 item 6): a character's named rolls, saved on its sheet (``sheets.services``,
``sheets.views``) and rolled with one click (``room.views.saved_roll``): dice notation as a free
roll in the character's name, a check as the system rolls one for that character now (a player's:
the request, whose number the GM sets; an NPC's: at once)."""

import pytest
from django.urls import reverse

from core.writes import Refused
from rolls.models import Check, LogEntry
from sheets.models import SavedRoll
from sheets.services import SAVED_MAX, SAVED_NAME_MAX, saved_roll_add, saved_roll_delete
from tests.helpers import HTMX, raises_refused, unchanged
from tests.rolls.room_setup import refused, script_dice


def add_url(table, character):
    return reverse("saved_roll_add", args=[table.campaign.id, character.id])


def delete_url(table, character, saved):
    return reverse("saved_roll_delete", args=[table.campaign.id, character.id, saved.id])


def roll_url(table, character, saved):
    return reverse("saved_roll", args=[table.campaign.id, character.id, saved.id])


def sheet_url(table, character):
    return reverse("character_detail", args=[table.campaign.id, character.id])


def saved(table, character, name="Sword", notation="1d8+2", **kwargs):
    return saved_roll_add(
        campaign=table.campaign, character=character, name=name, notation=notation, **kwargs
    )


def with_campaign(table, character):
    character.campaign = table.campaign
    return character


# The service ------------------------------------------------------------------------------------


def test_a_notation_is_saved_in_order(pool_table):
    first = saved(pool_table, pool_table.ilse)
    second = saved(pool_table, pool_table.ilse, name="Sneak attack", notation="2d6 vs 7")
    assert list(pool_table.ilse.saved_rolls.all()) == [first, second]
    assert (first.notation, first.choices, first.is_check) == ("1d8+2", None, False)


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("", "Name the saved roll"),
        ("   ", "Name the saved roll"),
        ("x" * (SAVED_NAME_MAX + 1), f"at most {SAVED_NAME_MAX}"),
        ("2d6", "reads as dice notation"),
        ("d20", "reads as dice notation"),
        ("Ilse:Sword", "no “:”"),
        ("Sword\u202e", "invisible or direction-changing"),
    ],
)
def test_a_bad_name_is_refused(pool_table, name, why):
    with unchanged(), raises_refused(why):
        saved(pool_table, pool_table.ilse, name=name)


def test_a_name_at_its_longest_is_kept(pool_table):
    assert saved(pool_table, pool_table.ilse, name="x" * SAVED_NAME_MAX).name == "x" * 40


def test_a_name_is_unique_per_character_whatever_its_case(pool_table):
    saved(pool_table, pool_table.ilse)
    with unchanged(), raises_refused("already has a roll named"):
        saved(pool_table, pool_table.ilse, name="  sWORD ")
    # Another character may have one of that name.
    assert saved(pool_table, pool_table.tor, name="SWORD").name == "SWORD"


@pytest.mark.parametrize(
    ("notation", "why"), [("", "Type the dice"), ("2d6+", None), ("hello", None)]
)
def test_a_bad_notation_is_refused(pool_table, notation, why):
    with unchanged(), raises_refused(why):
        saved(pool_table, pool_table.ilse, notation=notation)


def test_a_character_keeps_at_most_so_many(pool_table):
    for number in range(SAVED_MAX):
        saved(pool_table, pool_table.ilse, name=f"Roll {number}")
    with unchanged(), raises_refused("at most"):
        saved(pool_table, pool_table.ilse, name="One more")


def test_a_pool_check_keeps_its_attribute_and_skill_by_name(pool_table):
    ilse = with_campaign(pool_table, pool_table.ilse)
    kept = saved(
        pool_table,
        ilse,
        name="Leap",
        notation="",
        check={"attribute": "Strength", "skill": str(pool_table.jump.id)},
    )
    assert kept.choices == {"attribute": "Strength", "skill": "Jump", "text": "Strength + Jump"}
    assert kept.notation == ""


@pytest.mark.parametrize(
    ("check", "why"),
    [
        ({"attribute": "Charm", "skill": ""}, "Choose one of the attributes"),
        ({"attribute": "Agility", "skill": "jump"}, "approved skills"),
        ({"attribute": "Agility", "skill": "Jump"}, "not Agility"),  # replaced by the id below
        ({"attribute": "Agility", "skill": "Parkour"}, "approved skills"),  # pending
    ],
)
def test_the_pool_system_refuses_choices_it_does_not_allow(pool_table, check, why):
    ids = {"Jump": str(pool_table.jump.id), "Parkour": str(pool_table.parkour.id)}
    check = {**check, "skill": ids.get(check["skill"], check["skill"])}
    ilse = with_campaign(pool_table, pool_table.ilse)
    with unchanged(), raises_refused(why):
        saved(pool_table, ilse, notation="", check=check)


def test_a_mana_check_keeps_its_skill_and_spends(mana_table):
    mira = with_campaign(mana_table, mana_table.mira)
    check = {"skill": str(mana_table.gather.id), "spend_a": "2", "spend_b": "", "colorless": "100"}
    kept = saved(mana_table, mira, name="Ask around", notation="", check=check)
    assert kept.choices == {
        "skill": mana_table.gather.id,
        "spend_a": 2,
        "spend_b": 0,
        "colorless": 100,
        "text": "Gather Information (2 blue + 100 colorless)",
    }


@pytest.mark.parametrize(
    ("overrides", "why"),
    [
        ({"skill": "999999"}, "Choose one of this campaign's skills"),
        ({"skill": "x"}, "Choose one of this campaign's skills"),
        ({"spend_a": "-1"}, "from 0 to 100"),
        ({"colorless": "101"}, "from 0 to 100"),
        ({"spend_b": "1.5"}, "from 0 to 100"),
    ],
)
def test_the_mana_system_refuses_choices_it_does_not_allow(mana_table, overrides, why):
    mira = with_campaign(mana_table, mana_table.mira)
    check = {"skill": str(mana_table.gather.id), "spend_a": "0", "spend_b": "0", "colorless": "0"}
    with unchanged(), raises_refused(why):
        saved(mana_table, mira, notation="", check={**check, **overrides})


def test_only_an_npc_check_keeps_a_number_at_both_ends_of_its_range(pool_table):
    npc = with_campaign(pool_table, pool_table.npc)
    check = {"attribute": "Strength", "skill": ""}
    for target in (1, 1000):
        kept = saved(
            pool_table, npc, name=f"Smash {target}", notation="", check=check, target=target
        )
        assert kept.target == target
    for target in (0, 1001, True):
        with unchanged(), raises_refused("whole number from 1 to 1000"):
            saved(pool_table, npc, name="Smash", notation="", check=check, target=target)
    ilse = with_campaign(pool_table, pool_table.ilse)
    with unchanged(), raises_refused("The GM sets the number"):
        saved(pool_table, ilse, notation="", check=check, target=5)
    with unchanged(), raises_refused("states its own target"):
        saved(pool_table, ilse, target=5)


def test_a_saved_roll_is_deleted_from_its_character_only(pool_table):
    kept = saved(pool_table, pool_table.ilse)
    with unchanged(), raises_refused("already gone"):
        saved_roll_delete(character=pool_table.tor, saved=kept)
    saved_roll_delete(character=pool_table.ilse, saved=kept)
    assert not SavedRoll.objects.exists()
    with pytest.raises(Refused):
        saved_roll_delete(character=pool_table.ilse, saved=kept)


# The sheet's views -------------------------------------------------------------------------------


def test_the_player_and_the_gm_see_the_section_and_another_player_does_not(pool_table, as_user):
    saved(pool_table, pool_table.ilse)
    for user, seen in (
        (pool_table.player, True),
        (pool_table.gm, True),
        (pool_table.other_player, False),
    ):
        html = as_user(user).get(sheet_url(pool_table, pool_table.ilse)).content.decode()
        assert ("Saved rolls" in html) is seen
        assert ("1d8+2" in html) is seen
    # Only the character's player rolls it: the GM sees no Roll button on a player's sheet.
    html = as_user(pool_table.gm).get(sheet_url(pool_table, pool_table.ilse)).content.decode()
    assert "Roll Sword" not in html
    html = as_user(pool_table.player).get(sheet_url(pool_table, pool_table.ilse)).content.decode()
    assert "Roll Sword" in html


def test_the_section_loads_on_its_own(pool_table, as_user):
    saved(pool_table, pool_table.ilse)
    client = as_user(pool_table.player)
    response = client.get(sheet_url(pool_table, pool_table.ilse) + "?section=saved_rolls", **HTMX)
    html = response.content.decode()
    assert html.startswith('<section id="saved-rolls"') and "Sword" in html


def test_a_player_saves_a_notation_from_the_sheet(pool_table, as_user, pushes):
    client = as_user(pool_table.player)
    data = {"name": "Sword", "kind": "notation", "notation": "1d8+2"}
    response = client.post(add_url(pool_table, pool_table.ilse), data, **HTMX)
    assert response.status_code == 200
    assert "Roll Sword" in response.content.decode()
    assert SavedRoll.objects.get().notation == "1d8+2"


def test_a_player_saves_a_check_from_the_sheet(pool_table, as_user):
    client = as_user(pool_table.player)
    data = {"name": "Leap", "kind": "check", "notation": "ignored", "attribute": "Strength"}
    response = client.post(
        add_url(pool_table, pool_table.ilse), {**data, "skill": pool_table.jump.id}, **HTMX
    )
    assert response.status_code == 200, response.content.decode()
    kept = SavedRoll.objects.get()
    assert (kept.notation, kept.choices["text"]) == ("", "Strength + Jump")


def test_the_gm_saves_a_check_with_its_number_for_an_npc(mana_table, as_user):
    client = as_user(mana_table.gm)
    data = {"name": "Search", "kind": "check", "skill": mana_table.gather.id, "spend_a": 1}
    response = client.post(add_url(mana_table, mana_table.npc), {**data, "target": 1000}, **HTMX)
    assert response.status_code == 200, response.content.decode()
    assert SavedRoll.objects.get().target == 1000


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ({"name": "", "kind": "notation", "notation": "1d6"}, "Name the saved roll"),
        ({"name": "x" * 41, "kind": "notation", "notation": "1d6"}, "at most 40"),
        ({"name": "2d6", "kind": "notation", "notation": "1d6"}, "reads as dice notation"),
        ({"name": "Sword", "kind": "notation", "notation": "1d6+"}, ""),
        ({"name": "Sword", "kind": "dice", "notation": "1d6"}, "Choose dice notation or a check"),
        ({"name": "Sword", "kind": "check", "attribute": "Charm"}, "Choose one of the attributes"),
        ({"name": "Sword", "kind": "notation", "notation": "x" * 201}, ""),
        ({"name": "Sword", "kind": "check", "attribute": "Strength", "target": "5"}, "GM sets"),
        ({"name": "Sword", "kind": "check", "attribute": "Strength", "target": "0"}, ""),
        ({"name": "Sword", "kind": "check", "attribute": "Strength", "target": "1001"}, ""),
        ({"name": "Sword", "kind": "check", "attribute": "Strength", "target": "9" * 30}, ""),
    ],
)
def test_bad_input_on_the_sheet_is_refused(
    pool_table, as_user, pushes, data, why, django_capture_on_commit_callbacks
):
    client = as_user(pool_table.player)
    html = refused(
        client,
        add_url(pool_table, pool_table.ilse),
        data,
        pool_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert why in html and 'class="error"' in html


def test_a_duplicate_name_is_refused_on_the_sheet(
    pool_table, as_user, pushes, django_capture_on_commit_callbacks
):
    saved(pool_table, pool_table.ilse)
    client = as_user(pool_table.player)
    data = {"name": "sword", "kind": "notation", "notation": "1d6"}
    html = refused(
        client,
        add_url(pool_table, pool_table.ilse),
        data,
        pool_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert "already has a roll named" in html


def test_a_saved_roll_is_deleted_from_the_sheet(pool_table, as_user):
    kept = saved(pool_table, pool_table.ilse)
    response = as_user(pool_table.gm).post(delete_url(pool_table, pool_table.ilse, kept), **HTMX)
    assert response.status_code == 200
    assert not SavedRoll.objects.exists()


@pytest.mark.parametrize(
    ("role", "status"), [("outsider", 404), ("other_player", 403), ("player", 200), ("gm", 200)]
)
def test_who_may_save_and_delete(pool_table, outsider, as_user, role, status):
    user = outsider if role == "outsider" else getattr(pool_table, role)
    client = as_user(user)
    data = {"name": "Sword", "kind": "notation", "notation": "1d6"}
    if status != 200:
        with unchanged():
            assert (
                client.post(add_url(pool_table, pool_table.ilse), data, **HTMX).status_code
                == status
            )
    else:
        assert client.post(add_url(pool_table, pool_table.ilse), data, **HTMX).status_code == 200
    kept = SavedRoll.objects.first() or saved(pool_table, pool_table.ilse)
    if status != 200:
        with unchanged():
            assert (
                client.post(delete_url(pool_table, pool_table.ilse, kept), **HTMX).status_code
                == status
            )
    else:
        assert client.post(delete_url(pool_table, pool_table.ilse, kept), **HTMX).status_code == 200


def test_a_player_may_not_touch_an_npcs_saved_rolls(pool_table, as_user):
    kept = saved(pool_table, pool_table.npc, name="Smash")
    client = as_user(pool_table.player)
    with unchanged():
        assert client.post(delete_url(pool_table, pool_table.npc, kept), **HTMX).status_code == 404
        assert client.post(roll_url(pool_table, pool_table.npc, kept), **HTMX).status_code == 404


def test_another_characters_saved_roll_is_not_found_under_this_one(pool_table, as_user):
    kept = saved(pool_table, pool_table.tor)
    client = as_user(pool_table.player)
    with unchanged():
        assert client.post(delete_url(pool_table, pool_table.ilse, kept), **HTMX).status_code == 404
        assert client.post(roll_url(pool_table, pool_table.ilse, kept), **HTMX).status_code == 404


# Rolling with one click -------------------------------------------------------------------------


def test_a_saved_notation_rolls_as_a_free_roll_in_the_characters_name(
    pool_table, as_user, pushes, django_capture_on_commit_callbacks, monkeypatch
):
    kept = saved(pool_table, pool_table.ilse)
    script_dice(monkeypatch, 5)
    client = as_user(pool_table.player)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(roll_url(pool_table, pool_table.ilse, kept), **HTMX)
    assert response.status_code == 200 and "Rolled" in response.content.decode()
    entry = LogEntry.objects.get(kind=LogEntry.FREE)
    assert (entry.character, entry.actor, entry.data["total"], entry.data["saved"]) == (
        pool_table.ilse,
        pool_table.player,
        7,
        "Sword",
    )
    [pushed] = pushes.entries()
    assert pushed["seq"] == entry.seq
    page = client.get(reverse("room", args=[pool_table.campaign.id])).content.decode()
    assert "Ilse · rolled “Sword”" in page


def test_a_players_saved_check_files_its_request(
    pool_table, as_user, pushes, django_capture_on_commit_callbacks
):
    ilse = with_campaign(pool_table, pool_table.ilse)
    kept = saved(
        pool_table,
        ilse,
        name="Leap",
        notation="",
        check={"attribute": "Strength", "skill": str(pool_table.jump.id)},
    )
    client = as_user(pool_table.player)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(roll_url(pool_table, ilse, kept), **HTMX)
    assert response.status_code == 200 and "the GM sets the TN" in response.content.decode()
    check = Check.objects.get()
    assert (check.status, check.note, check.suggestion, check.target) == (
        Check.REQUESTED,
        "Leap",
        "Strength + Jump",
        None,
    )
    assert pushes.checks() and not pushes.entries()


def test_a_saved_check_the_sheet_no_longer_allows_is_refused(
    pool_table, as_user, pushes, django_capture_on_commit_callbacks
):
    ilse = with_campaign(pool_table, pool_table.ilse)
    kept = saved(
        pool_table,
        ilse,
        name="Leap",
        notation="",
        check={"attribute": "Strength", "skill": str(pool_table.jump.id)},
    )
    pool_table.jump.delete()
    client = as_user(pool_table.player)
    html = refused(
        client,
        roll_url(pool_table, ilse, kept),
        {},
        pool_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert "no longer fits the sheet" in html


def test_the_gm_rolls_an_npcs_saved_check_at_once(
    mana_table, as_user, pushes, django_capture_on_commit_callbacks, monkeypatch
):
    npc = with_campaign(mana_table, mana_table.npc)
    check = {"skill": str(mana_table.gather.id), "spend_a": "1", "spend_b": "0", "colorless": "0"}
    kept = saved(mana_table, npc, name="Search", notation="", check=check, target=1)
    script_dice(monkeypatch, 8, 8)
    client = as_user(mana_table.gm)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(roll_url(mana_table, npc, kept), **HTMX)
    assert response.status_code == 200, response.content.decode()
    entry = LogEntry.objects.get(kind=LogEntry.ROLL)
    assert entry.character == npc and entry.data["note"] == "Search"
    assert pushes.entries() and pushes.facts()  # the NPC's mana was spent


def test_an_npc_check_without_a_number_asks_for_one(
    pool_table, as_user, pushes, django_capture_on_commit_callbacks, monkeypatch
):
    npc = with_campaign(pool_table, pool_table.npc)
    kept = saved(
        pool_table, npc, name="Smash", notation="", check={"attribute": "Strength", "skill": ""}
    )
    client = as_user(pool_table.gm)
    html = client.get(reverse("room", args=[pool_table.campaign.id])).content.decode()
    assert 'name="target"' in html[html.index('id="npc-saved-') :]
    html = refused(
        client,
        roll_url(pool_table, npc, kept),
        {},
        pool_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert "Set the TN" in html
    for target in ("0", "1001", "x"):
        refused(
            client,
            roll_url(pool_table, npc, kept),
            {"target": target},
            pool_table.campaign,
            pushes,
            django_capture_on_commit_callbacks,
        )
    script_dice(monkeypatch, 5, 1, 1, 1, 1, 1)
    for target in ("1", "1000"):
        response = client.post(roll_url(pool_table, npc, kept), {"target": target}, **HTMX)
        assert response.status_code == 200, response.content.decode()
    assert list(Check.objects.values_list("target", flat=True).order_by("pk")) == [1, 1000]


@pytest.mark.parametrize(
    ("role", "status"), [("outsider", 404), ("other_player", 403), ("gm", 403)]
)
def test_only_the_characters_player_rolls_it(pool_table, outsider, as_user, role, status):
    kept = saved(pool_table, pool_table.ilse)
    user = outsider if role == "outsider" else getattr(pool_table, role)
    with unchanged():
        response = as_user(user).post(roll_url(pool_table, pool_table.ilse, kept), **HTMX)
    assert response.status_code == status


def test_the_rooms_panel_has_a_roll_button_per_saved_roll(pool_table, as_user):
    saved(pool_table, pool_table.ilse)
    saved(pool_table, pool_table.ilse, name="Dodge", notation="1d20")
    client = as_user(pool_table.player)
    html = client.get(reverse("room", args=[pool_table.campaign.id])).content.decode()
    panel = html[html.index('id="requests"') :]
    assert "Roll Sword" in panel and "Roll Dodge" in panel
    assert roll_url(pool_table, pool_table.ilse, SavedRoll.objects.get(name="Dodge")) in panel


def test_the_panel_is_fetched_again_when_a_saved_roll_changes(pool_table, as_user):
    client = as_user(pool_table.player)
    html = client.get(reverse("room", args=[pool_table.campaign.id])).content.decode()
    have = html.split("?have=")[1].split('"')[0]
    requests = reverse("room_requests", args=[pool_table.campaign.id])
    assert client.get(requests, {"have": have}, **HTMX).status_code == 204
    saved(pool_table, pool_table.ilse)
    response = client.get(requests, {"have": have}, **HTMX)
    assert response.status_code == 200 and "Roll Sword" in response.content.decode()


def test_a_plain_post_goes_back_to_the_room(pool_table, as_user):
    kept = saved(pool_table, pool_table.ilse)
    client = as_user(pool_table.player)
    response = client.post(roll_url(pool_table, pool_table.ilse, kept))
    assert response.status_code == 302
    assert response["Location"] == reverse("room", args=[pool_table.campaign.id])
    npc = saved(
        pool_table, pool_table.npc, name="Smash", notation="", check={"attribute": "Strength"}
    )
    client = as_user(pool_table.gm)
    response = client.post(roll_url(pool_table, pool_table.npc, npc))
    assert response.status_code == 200 and "Set the TN" in response.content.decode()


def test_a_name_is_shown_escaped_and_isolated_everywhere(pool_table, as_user):
    saved(pool_table, pool_table.ilse, name="<b>Bold</b> שלום")
    client = as_user(pool_table.player)
    for path in (
        sheet_url(pool_table, pool_table.ilse),
        reverse("room", args=[pool_table.campaign.id]),
    ):
        html = client.get(path).content.decode()
        assert "<b>Bold</b>" not in html
        assert "<bdi>&lt;b&gt;Bold&lt;/b&gt; שלום</bdi>" in html
