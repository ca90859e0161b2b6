import pytest
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.test import RequestFactory

from campaigns.access import campaign_for


def request_as(user):
    request = RequestFactory().get("/")
    request.user = user
    return request


def test_member_gets_campaign_with_viewer(pool_campaign, player):
    campaign = campaign_for(request_as(player), pool_campaign.id)
    assert campaign == pool_campaign
    assert campaign.viewer.user == player
    assert not campaign.viewer.is_gm


def test_gm_passes_gm_check(pool_campaign, gm):
    assert campaign_for(request_as(gm), pool_campaign.id, gm=True).viewer.is_gm


def test_outsider_gets_404(pool_campaign, outsider):
    with pytest.raises(Http404):
        campaign_for(request_as(outsider), pool_campaign.id)


def test_unknown_campaign_gets_404(pool_campaign, gm):
    with pytest.raises(Http404):
        campaign_for(request_as(gm), pool_campaign.id + 999)


def test_player_gets_403_for_gm_action(pool_campaign, player):
    with pytest.raises(PermissionDenied):
        campaign_for(request_as(player), pool_campaign.id, gm=True)


def test_anonymous_gets_404(pool_campaign):
    from django.contrib.auth.models import AnonymousUser

    with pytest.raises(Http404):
        campaign_for(request_as(AnonymousUser()), pool_campaign.id)


def test_huge_campaign_id_gets_404(client, gm):
    client.force_login(gm)
    assert client.get("/campaigns/99999999999999999999999/").status_code == 404


@pytest.mark.parametrize("who", ["gm", "player"])
def test_the_gms_id_comes_in_the_same_single_query(
    request, pool_campaign, gm, django_assert_num_queries, who
):
    with django_assert_num_queries(1):
        campaign = campaign_for(request_as(request.getfixturevalue(who)), pool_campaign.id)
        assert campaign.gm_id() == gm.pk
    assert campaign.viewer.user_id == request.getfixturevalue(who).pk


def test_a_campaign_without_gm_has_no_gm_id(pool_campaign, gm, player):
    pool_campaign.memberships.filter(user=gm).delete()
    assert campaign_for(request_as(player), pool_campaign.id).gm_id() is None
