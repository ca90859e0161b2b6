"""A user deletes their own account (campaigns.views.account_delete,
services.account_delete): what they did at the table stays, as a former member's, and every
log still verifies with the fingerprints it had."""

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse

from campaigns import services
from campaigns.models import Campaign, Membership
from rolls.models import Check, LogEntry
from rolls.services import log_verify
from sheets.models import Character
from sparetime.models import SparetimeEntry
from tests.campaigns.leaving import played
from tests.conftest import PASSWORD, make_campaign, make_user
from tests.helpers import HTMX, raises_refused, unchanged

User = get_user_model()
DELETE = reverse("account_delete")


def test_the_page_says_what_stays_and_offers_the_data_first(as_user, pool_table, player):
    html = as_user(player).get(DELETE).content.decode()
    assert "a former member" in html
    assert reverse("my_data") in html
    assert 'name="password"' in html
    assert "disabled" not in html


def test_a_player_who_played_leaves_and_every_log_still_verifies(as_user, pool_table, player):
    evening = played(pool_table)
    campaign, ana_id = pool_table.campaign, player.pk
    sparetime_rows = SparetimeEntry.objects.filter(campaign=campaign).count()
    client = as_user(player)
    response = client.post(DELETE, {"password": PASSWORD})
    assert response.status_code == 302
    assert response["Location"] == reverse("login")
    assert "Your account was deleted." in client.get(reverse("login")).content.decode()
    assert not User.objects.filter(pk=ana_id).exists()
    # The log: every entry there, as signed, the same fingerprints; it verifies.
    log = LogEntry.objects.filter(campaign=campaign)
    assert list(log.values_list("hash", flat=True)) == evening.hashes
    assert log.filter(actor_id=ana_id).count() == 4  # a roll, a free roll, a whisper, a message
    assert log.filter(recipient_id=ana_id).count() == 1
    assert log_verify(Campaign.objects.get(pk=campaign.pk)) is None
    out = StringIO()
    call_command("verify_rolls", stdout=out)
    assert "1 roll log is whole: 7 entries in all." in out.getvalue()
    # Her character, her check and the ledger stay, a former member's.
    ilse = Character.objects.get(pk=pool_table.ilse.pk)
    assert ilse.owner_id is None
    assert Check.objects.get(pk=evening.check.pk).created_by_id is None
    assert SparetimeEntry.objects.filter(campaign=campaign).count() == sparetime_rows
    # Memberships, sessions and presence go with her.
    assert not Membership.objects.filter(user_id=ana_id).exists()


def test_the_former_member_is_named_so_on_every_page(as_user, pool_table, player, gm, other_player):
    played(pool_table)
    services.account_delete(user=player, password=PASSWORD)
    campaign, ilse = pool_table.campaign, pool_table.ilse
    pages = [
        reverse("room", args=[campaign.id]),
        reverse("campaign_detail", args=[campaign.id]),
        reverse("party", args=[campaign.id]),
        reverse("character_detail", args=[campaign.id, ilse.id]),
        reverse("campaign_luck", args=[campaign.id]),
        reverse("session_summary", args=[campaign.id, 1]),
        reverse("dice", args=[campaign.id]),
        reverse("log_csv", args=[campaign.id]),
        reverse("log_json", args=[campaign.id]),
    ]
    for user in (gm, other_player):
        client = as_user(user)
        for page in pages:
            response = client.get(page)
            assert response.status_code == 200, (user, page)
    gm_client = as_user(gm)
    for page in (
        reverse("gm_panel", args=[campaign.id]),
        reverse("gm_sparetime", args=[campaign.id]),
        reverse("verify_log", args=[campaign.id]),
    ):
        assert gm_client.get(page).status_code == 200, page
    room = as_user(other_player).get(reverse("room", args=[campaign.id])).content.decode()
    assert '<span class="former">a former member</span>' in room
    assert "whispers to <span" in room  # ben's whisper to her, his own
    sheet = as_user(gm).get(reverse("character_detail", args=[campaign.id, ilse.id]))
    assert 'Played by <span class="former">a former member</span>' in sheet.content.decode()
    assert (
        "a former member" in as_user(gm).get(reverse("party", args=[campaign.id])).content.decode()
    )


def test_the_table_plays_on_after_she_left(as_user, pool_table, player, gm, other_player):
    played(pool_table)
    services.account_delete(user=player, password=PASSWORD)
    campaign = Campaign.objects.get(pk=pool_table.campaign.pk)
    client = as_user(other_player)
    talk = reverse("talk_say", args=[campaign.id])
    assert client.post(talk, {"text": "farewell"}, **HTMX).status_code in (200, 204)
    assert log_verify(Campaign.objects.get(pk=campaign.pk)) is None


def test_the_gm_hands_her_character_to_another_player(
    as_user, pool_table, player, gm, other_player
):
    played(pool_table)
    services.account_delete(user=player, password=PASSWORD)
    ilse = Character.objects.get(pk=pool_table.ilse.pk)
    from sheets.services import character_hand_over

    campaign = Campaign.objects.get(pk=pool_table.campaign.pk)
    character_hand_over(campaign=campaign, character=ilse, to=other_player)
    assert Character.objects.get(pk=ilse.pk).owner == other_player


def test_a_wrong_password_changes_nothing(as_user, pool_table, player):
    played(pool_table)
    client = as_user(player)
    with unchanged():
        response = client.post(DELETE, {"password": "not it"})
    assert response.status_code == 200
    assert "That is not your password: nothing was deleted." in response.content.decode()
    assert User.objects.filter(pk=player.pk).exists()
    with unchanged():
        response = client.post(DELETE, {"password": "not it"}, **HTMX)
    assert response.status_code == 422


def test_an_empty_form_is_refused(as_user, pool_table, player):
    with unchanged():
        response = as_user(player).post(DELETE, {})
    assert response.status_code == 200
    assert "This field is required." in response.content.decode()


def test_a_gm_with_players_hands_over_first(as_user, pool_table, gm):
    html = as_user(gm).get(DELETE).content.decode()
    assert "hand it over to one of them" in html
    assert reverse("gm_panel", args=[pool_table.campaign.id]) in html
    with unchanged():
        response = as_user(gm).post(DELETE, {"password": PASSWORD})
    assert "You are the GM of The Marches: hand it to another member" in response.content.decode()
    assert User.objects.filter(pk=gm.pk).exists()


def test_a_campaign_its_gm_plays_alone_goes_with_them(as_user, db):
    solo = make_user("solo")
    campaign = make_campaign(solo, name="Alone")
    html = as_user(solo).get(DELETE).content.decode()
    assert "deleted with your account" in html and "Alone" in html
    services.account_delete(user=solo, password=PASSWORD)
    assert not Campaign.objects.filter(pk=campaign.pk).exists()


def test_the_service_refuses_a_wrong_password(pool_table, player):
    with unchanged(), raises_refused("not your password"):
        services.account_delete(user=player, password="")


def test_her_sockets_close_once_deleted(
    pool_table, player, monkeypatch, django_capture_on_commit_callbacks
):
    left = []
    monkeypatch.setattr(
        "core.push.leave", lambda user_id, campaign_id=None, **_: left.append(user_id)
    )
    ana_id = player.pk
    with django_capture_on_commit_callbacks(execute=True):
        services.account_delete(user=player, password=PASSWORD)
    assert ana_id in left


def test_anonymous_goes_to_log_in(client):
    response = client.get(DELETE)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("system", ["mana"])
def test_a_mana_player_leaves_and_the_log_verifies(as_user, mana_table, player, system):
    from tests.rolls.room_setup import ask, roll_mana

    roll_mana(ask(mana_table, mana_table.mira, target=2), player, mana_table.gather, [8, 10, 1, 2])
    hashes = list(LogEntry.objects.values_list("hash", flat=True))
    services.account_delete(user=player, password=PASSWORD)
    assert list(LogEntry.objects.values_list("hash", flat=True)) == hashes
    assert log_verify(Campaign.objects.get(pk=mana_table.campaign.pk)) is None
    page = as_user(mana_table.gm).get(reverse("gm_mana", args=[mana_table.campaign.id]))
    assert page.status_code == 200
