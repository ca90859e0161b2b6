"""The GM deletes a campaign, after a page that offers its export first
(campaigns.views.campaign_delete, services.campaign_delete)."""

from django.urls import reverse

from campaigns import services
from campaigns.models import Campaign
from rolls.models import LogEntry
from tests.campaigns.leaving import played
from tests.helpers import HTMX, unchanged


def delete(campaign):
    return reverse("campaign_delete", args=[campaign.id])


def test_the_page_offers_the_export_first(as_user, pool_campaign, gm):
    html = as_user(gm).get(delete(pool_campaign)).content.decode()
    assert reverse("log_json", args=[pool_campaign.id]) in html
    assert reverse("log_csv", args=[pool_campaign.id]) in html
    assert 'name="confirm"' in html


def test_the_gm_deletes_a_played_campaign(as_user, pool_table, gm, player):
    played(pool_table)
    campaign = pool_table.campaign
    client = as_user(gm)
    response = client.post(delete(campaign), {"confirm": "on"})
    assert response.status_code == 302
    assert response["Location"] == reverse("home")
    assert "The Marches was deleted." in client.get(reverse("home")).content.decode()
    assert not Campaign.objects.filter(pk=campaign.pk).exists()
    assert not LogEntry.objects.filter(campaign_id=campaign.pk).exists()
    assert as_user(player).get(reverse("campaign_detail", args=[campaign.id])).status_code == 404


def test_every_members_sockets_close(
    pool_campaign, gm, player, other_player, monkeypatch, django_capture_on_commit_callbacks
):
    left = []
    monkeypatch.setattr(
        "core.push.leave", lambda user_id, campaign_id=None, **_: left.append(user_id)
    )
    with django_capture_on_commit_callbacks(execute=True):
        services.campaign_delete(campaign=pool_campaign)
    assert sorted(left) == sorted([gm.pk, player.pk, other_player.pk])


def test_without_the_yes_nothing_is_deleted(as_user, pool_table, gm):
    client = as_user(gm)
    for data in ({}, {"confirm": ""}):
        with unchanged():
            response = client.post(delete(pool_table.campaign), data)
        assert response.status_code == 200
        assert "This field is required." in response.content.decode()
        with unchanged():
            response = client.post(delete(pool_table.campaign), data, **HTMX)
        assert response.status_code == 422


def test_players_and_outsiders_may_not(as_user, pool_campaign, player, outsider):
    for user, status in ((player, 403), (outsider, 404)):
        client = as_user(user)
        assert client.get(delete(pool_campaign)).status_code == status
        assert client.post(delete(pool_campaign), {"confirm": "on"}).status_code == status
    assert Campaign.objects.filter(pk=pool_campaign.pk).exists()
