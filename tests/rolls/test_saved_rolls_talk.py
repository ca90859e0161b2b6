"""``/r name`` in the room's box (#47 item 6): a saved roll of one of the speaker's characters
(the GM's: the NPCs), whatever its case, rolled as its button rolls it; ``/r Character:name``
when several of them have one of that name; dice notation otherwise, as ever (a saved roll's
name is never notation)."""

import pytest
from django.urls import reverse

from rolls.models import PRIVATE, PUBLIC, SECRET, Check, LogEntry
from sheets.services import character_create, saved_roll_add
from tests.helpers import HTMX
from tests.rolls.room_setup import refused, script_dice


def say(client, table, text):
    return client.post(reverse("talk_say", args=[table.campaign.pk]), {"text": text}, **HTMX)


def preview(client, table, text):
    path = reverse("talk_odds", args=[table.campaign.pk])
    return client.get(path, {"text": text}, **HTMX).content.decode()


def keep(table, character, name="Sword", notation="1d8+2", **kwargs):
    character.campaign = table.campaign
    return saved_roll_add(
        campaign=table.campaign, character=character, name=name, notation=notation, **kwargs
    )


@pytest.mark.parametrize("text", ["/r Sword", "/r sword", "/roll  SWORD ", "/r Ilse:sword"])
def test_a_players_saved_notation_rolls_by_its_name(
    pool_table, as_user, pushes, monkeypatch, text, django_capture_on_commit_callbacks
):
    keep(pool_table, pool_table.ilse)
    script_dice(monkeypatch, 4)
    with django_capture_on_commit_callbacks(execute=True):
        response = say(as_user(pool_table.player), pool_table, text)
    assert response.status_code == 200, response.content.decode()
    entry = LogEntry.objects.get(kind=LogEntry.FREE)
    assert (entry.character, entry.visibility, entry.data["total"], entry.data["saved"]) == (
        pool_table.ilse,
        PUBLIC,
        6,
        "Sword",
    )
    assert [m["seq"] for m in pushes.entries()] == [entry.seq]


def test_gr_rolls_it_for_the_player_and_the_gm(pool_table, as_user):
    keep(pool_table, pool_table.ilse)
    assert say(as_user(pool_table.player), pool_table, "/gr sword").status_code == 200
    assert LogEntry.objects.get(kind=LogEntry.FREE).visibility == PRIVATE


def test_notation_still_rolls_as_notation(pool_table, as_user):
    keep(pool_table, pool_table.ilse)
    assert say(as_user(pool_table.player), pool_table, "/r 1d4").status_code == 200
    entry = LogEntry.objects.get(kind=LogEntry.FREE)
    assert entry.character is None and "saved" not in entry.data


def test_another_players_saved_roll_is_not_theirs_to_roll(
    pool_table, as_user, pushes, django_capture_on_commit_callbacks
):
    keep(pool_table, pool_table.tor)
    client = as_user(pool_table.player)
    path = reverse("talk_say", args=[pool_table.campaign.pk])
    html = refused(
        client,
        path,
        {"text": "/r sword"},
        pool_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert 'class="error"' in html or "error" in html
    # The GM's box knows only the NPCs' saved rolls.
    html = refused(
        as_user(pool_table.gm),
        path,
        {"text": "/r sword"},
        pool_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert "error" in html


def test_a_name_two_characters_share_asks_whose(
    pool_table, as_user, pushes, django_capture_on_commit_callbacks, monkeypatch
):
    second = character_create(campaign=pool_table.campaign, owner=pool_table.player, name="Ulla")
    keep(pool_table, pool_table.ilse)
    keep(pool_table, second, notation="1d6")
    client = as_user(pool_table.player)
    path = reverse("talk_say", args=[pool_table.campaign.pk])
    html = refused(
        client,
        path,
        {"text": "/r sword"},
        pool_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert "Several of your characters have" in html and "/r Ilse:Sword" in html
    assert "Ulla" in preview(client, pool_table, "/r sword")
    script_dice(monkeypatch, 3)
    assert say(client, pool_table, "/r ulla : sword").status_code == 200
    entry = LogEntry.objects.get(kind=LogEntry.FREE)
    assert (entry.character, entry.data["expression"]) == (second, "1d6")


def test_a_players_saved_check_files_its_request(
    pool_table, as_user, pushes, django_capture_on_commit_callbacks
):
    keep(
        pool_table,
        pool_table.ilse,
        name="Leap",
        notation="",
        check={"attribute": "Strength", "skill": str(pool_table.jump.id)},
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = say(as_user(pool_table.player), pool_table, "/gr leap")
    assert response.status_code == 200
    check = Check.objects.get()
    assert (check.status, check.visibility, check.note, check.character) == (
        Check.REQUESTED,
        PRIVATE,
        "Leap",
        pool_table.ilse,
    )
    assert pushes.checks() and not pushes.entries()


def test_the_gm_rolls_an_npcs_saved_check_in_secret(
    pool_table, as_user, pushes, monkeypatch, django_capture_on_commit_callbacks
):
    keep(
        pool_table,
        pool_table.npc,
        name="Smash",
        notation="",
        check={"attribute": "Strength", "skill": ""},
        target=5,
    )
    script_dice(monkeypatch, 5, 1, 1, 1)
    with django_capture_on_commit_callbacks(execute=True):
        response = say(as_user(pool_table.gm), pool_table, "/sr smash")
    assert response.status_code == 200, response.content.decode()
    entry = LogEntry.objects.get(kind=LogEntry.ROLL)
    assert (entry.character, entry.visibility, entry.data["target"]) == (pool_table.npc, SECRET, 5)


def test_an_npcs_saved_check_without_a_number_is_refused_in_the_box(
    pool_table, as_user, pushes, django_capture_on_commit_callbacks
):
    keep(
        pool_table,
        pool_table.npc,
        name="Smash",
        notation="",
        check={"attribute": "Strength", "skill": ""},
    )
    path = reverse("talk_say", args=[pool_table.campaign.pk])
    html = refused(
        as_user(pool_table.gm),
        path,
        {"text": "/r smash"},
        pool_table.campaign,
        pushes,
        django_capture_on_commit_callbacks,
    )
    assert "Set the TN" in html


def test_the_preview_names_the_saved_roll(mana_table, as_user):
    keep(
        mana_table,
        mana_table.mira,
        name="Ask around",
        notation="",
        check={"skill": str(mana_table.gather.id), "spend_a": "1"},
    )
    html = preview(as_user(mana_table.player), mana_table, "/r ask around")
    assert "Mira's “Ask around”" in html and "Gather Information (1 blue)" in html
    assert "error" in preview(as_user(mana_table.player), mana_table, "/r nothing here")
