"""The admin of campaigns/, sheets/ and sparetime/."""

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.urls import reverse

from campaigns.models import Campaign, GameSession, Membership
from rolls.systems.mana.models import ManaPool, ManaSkill
from rolls.systems.pool.models import Rating
from sheets.models import Character
from sparetime.models import SparetimeEntry

MODELS = [Campaign, Membership, ManaSkill, GameSession, Character, Rating, ManaPool, SparetimeEntry]


@pytest.fixture
def admin_client_(client, db):
    boss = get_user_model().objects.create_superuser("boss", "boss@example.com", "pw-boss-123")
    client.force_login(boss)
    return client


@pytest.fixture
def entry(mana_campaign, gm, player, character_with_pools):
    character = character_with_pools(mana_campaign, player, "Ilse", pools={"blue": (1, 2)})
    Rating.objects.create(character=character, attribute="Agility", skill="Jump", value=2)
    GameSession.objects.create(campaign=mana_campaign, number=1)
    ManaSkill.objects.create(campaign=mana_campaign, name="Jump", color_a="red", color_b="blue")
    return SparetimeEntry.objects.create(
        campaign=mana_campaign,
        kind=SparetimeEntry.GRANT,
        amount=5,
        character=character,
        created_by=gm,
    )


def admin_url(model, action, *args):
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{action}", args=args)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_every_model_is_registered_and_lists(admin_client_, entry, model):
    assert admin.site.is_registered(model)
    response = admin_client_.get(admin_url(model, "changelist"))
    assert response.status_code == 200
    obj = model.objects.first()
    assert admin_client_.get(admin_url(model, "change", obj.pk)).status_code == 200


def test_campaign_add_page(admin_client_):
    assert admin_client_.get(admin_url(Campaign, "add")).status_code == 200


def test_sparetime_ledger_is_read_only(admin_client_, entry):
    model_admin = admin.site._registry[SparetimeEntry]
    assert not model_admin.has_add_permission(None)
    assert not model_admin.has_change_permission(None, entry)
    assert not model_admin.has_delete_permission(None, entry)
    assert admin_client_.get(admin_url(SparetimeEntry, "add")).status_code == 403
    delete = admin_url(SparetimeEntry, "delete", entry.pk)
    assert admin_client_.post(delete, {"post": "yes"}).status_code == 403
    response = admin_client_.post(
        admin_url(SparetimeEntry, "change", entry.pk), {"amount": "500", "kind": "award"}
    )
    assert response.status_code == 403
    entry.refresh_from_db()
    assert (entry.amount, entry.kind) == (5, SparetimeEntry.GRANT)
    assert SparetimeEntry.objects.count() == 1


def test_non_staff_user_cannot_reach_the_admin(as_user, gm):
    response = as_user(gm).get(admin_url(Campaign, "changelist"))
    assert response.status_code == 302


def test_a_gm_with_players_is_not_deleted_from_the_admin(admin_client_, mana_campaign, gm, player):
    """The admin keeps a GM whose campaign has other members (it would be left without a GM),
    on the user's page and through the list's action; a player is deleted as usual."""
    User = get_user_model()
    page = admin_client_.get(admin_url(User, "delete", gm.pk))
    assert page.status_code == 200
    html = page.content.decode()
    assert "protected" in html and f"{mana_campaign.name}: gm is its GM" in html
    admin_client_.post(admin_url(User, "delete", gm.pk), {"post": "yes"})
    listed = {"action": "delete_selected", "_selected_action": [gm.pk], "post": "yes"}
    admin_client_.post(admin_url(User, "changelist"), listed)
    assert User.objects.filter(pk=gm.pk).exists()
    assert Membership.objects.filter(campaign=mana_campaign, user=gm, role=Membership.GM).exists()

    response = admin_client_.post(admin_url(User, "delete", player.pk), {"post": "yes"})
    assert response.status_code == 302
    assert not User.objects.filter(pk=player.pk).exists()
