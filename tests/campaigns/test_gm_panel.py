import pytest
from django.urls import reverse

from campaigns.models import Campaign, Membership
from tests.campaigns.helpers import panel, renew
from tests.conftest import make_campaign
from tests.helpers import HTMX, db_snapshot


def remove(campaign, user):
    return reverse("member_remove", args=[campaign.id, user.id])


# The panel -------------------------------------------------------------------------------------


def test_panel_url(pool_campaign):
    assert panel(pool_campaign) == f"/campaigns/{pool_campaign.id}/gm/"


def test_anonymous_is_sent_to_login(client, pool_campaign):
    response = client.get(panel(pool_campaign))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_outsider_404_player_403(as_user, pool_campaign, outsider, player):
    assert as_user(outsider).get(panel(pool_campaign)).status_code == 404
    assert as_user(player).get(panel(pool_campaign)).status_code == 403


def test_pool_panel(as_user, pool_campaign, gm, player):
    client = as_user(gm)
    response = client.get(panel(pool_campaign))
    content = response.content.decode()
    assert response.status_code == 200
    assert f"http://testserver/join/{pool_campaign.invite_token}/" in content
    assert all(name in content for name in ("gm", "ana", "ben"))
    assert remove(pool_campaign, player) in content
    assert remove(pool_campaign, gm) not in content
    assert 'name="attribute_cost"' in content and 'name="color_0"' not in content
    cid = pool_campaign.id
    assert (
        f'<section id="gm-approvals" hx-get="/campaigns/{cid}/gm/approvals/" hx-trigger="load"'
        ' hx-swap="outerHTML">' in content
    )
    assert (
        f'<section id="gm-sparetime" hx-get="/campaigns/{cid}/gm/sparetime/" hx-trigger="load">'
        in content
    )
    # The sparetime card renders itself again when a facts push arrives (core/push.py), with
    # the NPCs when the GM asked for them.
    card = client.get(f"/campaigns/{cid}/gm/sparetime/", HTTP_HX_REQUEST="true").content.decode()
    assert 'hx-trigger="facts from:body, facts-resync from:body"' in card
    card = client.get(f"/campaigns/{cid}/gm/sparetime/?npcs=1", HTTP_HX_REQUEST="true")
    assert f'hx-get="/campaigns/{cid}/gm/sparetime/?npcs=1"' in card.content.decode()
    assert f'ws-connect="/ws/campaigns/{cid}/facts/"' in content
    assert 'id="gm-mana"' not in content
    assert 'id="gm-skills"' not in content


def test_mana_panel(as_user, mana_campaign, gm):
    content = as_user(gm).get(panel(mana_campaign)).content.decode()
    cid = mana_campaign.id
    assert (
        f'<section id="gm-mana" hx-get="/campaigns/{cid}/gm/mana/" hx-trigger="load"'
        ' hx-swap="outerHTML">' in content
    )
    assert 'id="gm-sparetime"' not in content  # sparetime is the Pool system's progression
    assert 'id="gm-approvals"' not in content
    assert 'id="gm-skills"' in content
    assert 'name="color_0" value="white"' in content
    assert 'name="attribute_cost"' not in content


def test_panel_only_lists_own_members(as_user, pool_campaign, gm, outsider):
    make_campaign(outsider, name="Elsewhere")
    assert "zed" not in as_user(gm).get(panel(pool_campaign)).content.decode()


# Renewing the invite link ----------------------------------------------------------------------


def test_gm_renews_invite(as_user, pool_campaign, gm):
    old = pool_campaign.invite_token
    response = as_user(gm).post(renew(pool_campaign))
    assert response.status_code == 302
    assert response["Location"] == panel(pool_campaign)
    pool_campaign.refresh_from_db()
    assert pool_campaign.invite_token != old


def test_gm_renews_invite_with_htmx(as_user, pool_campaign, gm):
    response = as_user(gm).post(renew(pool_campaign), **HTMX)
    pool_campaign.refresh_from_db()
    content = response.content.decode()
    assert response.status_code == 200
    assert content.startswith('<section id="gm-invite"')
    assert f"/join/{pool_campaign.invite_token}/" in content
    assert "old one no longer works" in content


@pytest.mark.parametrize(("who", "status"), [("player", 403), ("outsider", 404)])
def test_renew_refused(as_user, pool_campaign, request, who, status):
    before = db_snapshot()
    assert as_user(request.getfixturevalue(who)).post(renew(pool_campaign)).status_code == status
    assert db_snapshot() == before


def test_renew_needs_post_and_login(client, as_user, pool_campaign, gm):
    before = db_snapshot()
    assert client.post(renew(pool_campaign)).status_code == 302
    assert as_user(gm).get(renew(pool_campaign)).status_code == 405
    unknown = f"/campaigns/{pool_campaign.id + 999}/gm/invite/renew/"
    assert as_user(gm).post(unknown).status_code == 404
    assert db_snapshot() == before


# Removing a player -----------------------------------------------------------------------------


def test_gm_removes_player_whose_characters_stay(
    as_user, pool_campaign, gm, player, character_with_pools
):
    ilse = character_with_pools(pool_campaign, player, "Ilse")
    response = as_user(gm).post(remove(pool_campaign, player))
    assert response.status_code == 302
    assert response["Location"] == panel(pool_campaign)
    assert pool_campaign.member(player) is None
    ilse.refresh_from_db()
    assert ilse.campaign == pool_campaign
    detail = reverse("campaign_detail", args=[pool_campaign.id])
    assert "Ilse" in as_user(gm).get(detail).content.decode()
    assert as_user(player).get(detail).status_code == 404


def test_gm_removes_player_with_htmx(as_user, pool_campaign, gm, player):
    response = as_user(gm).post(remove(pool_campaign, player), **HTMX)
    content = response.content.decode()
    assert response.status_code == 200
    assert content.startswith('<section id="gm-members"')
    assert "ana" not in content and "ben" in content


def test_gm_cannot_be_removed(as_user, pool_campaign, gm):
    before = db_snapshot()
    client = as_user(gm)
    response = client.post(remove(pool_campaign, gm), **HTMX)
    assert response.status_code == 422
    assert "The GM can&#x27;t be removed" in response.content.decode()
    response = client.post(remove(pool_campaign, gm))
    assert response.status_code == 200
    assert "The GM can&#x27;t be removed" in response.content.decode()
    assert db_snapshot() == before


def test_remove_user_of_another_campaign_or_unknown_is_404(as_user, pool_campaign, gm, outsider):
    make_campaign(outsider, name="Elsewhere")
    before = db_snapshot()
    client = as_user(gm)
    assert client.post(remove(pool_campaign, outsider)).status_code == 404
    unknown = f"/campaigns/{pool_campaign.id}/gm/members/999999/remove/"
    assert client.post(unknown).status_code == 404
    assert db_snapshot() == before


def test_gm_of_another_campaign_cannot_remove_here(as_user, pool_campaign, player, other_player):
    other_gm_campaign = make_campaign(player, name="Ana's table")
    before = db_snapshot()
    # ana is GM elsewhere but only a player here.
    response = as_user(player).post(remove(pool_campaign, other_player))
    assert response.status_code == 403
    assert other_gm_campaign.member(player).is_gm
    assert db_snapshot() == before


@pytest.mark.parametrize(("who", "status"), [("player", 403), ("outsider", 404)])
def test_remove_refused(as_user, pool_campaign, other_player, request, who, status):
    before = db_snapshot()
    client = as_user(request.getfixturevalue(who))
    assert client.post(remove(pool_campaign, other_player)).status_code == status
    assert db_snapshot() == before


def test_remove_needs_post_and_login(client, as_user, pool_campaign, gm, player):
    before = db_snapshot()
    assert client.post(remove(pool_campaign, player)).status_code == 302
    assert as_user(gm).get(remove(pool_campaign, player)).status_code == 405
    assert db_snapshot() == before
    assert Membership.objects.filter(campaign=pool_campaign).count() == 3
    assert Campaign.objects.count() == 1
