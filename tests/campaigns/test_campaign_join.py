from urllib.parse import quote

import pytest
from django.urls import reverse

from campaigns.models import Membership
from tests.conftest import PASSWORD
from tests.helpers import db_snapshot

NEWBIE = {
    "username": "newbie",
    "password1": "a-long-pass-phrase",
    "password2": "a-long-pass-phrase",
}


def join(campaign):
    return reverse("campaign_join", args=[campaign.invite_token])


def test_url_shape(pool_campaign):
    assert join(pool_campaign) == f"/join/{pool_campaign.invite_token}/"


def test_anonymous_is_sent_to_login_and_back(client, pool_campaign, outsider):
    link = join(pool_campaign)
    response = client.get(link)
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next={quote(link)}"
    login_page = client.get(response["Location"]).content.decode()
    assert f"{reverse('signup')}?next={quote(link)}" in login_page
    response = client.post(
        response["Location"], {"username": "zed", "password": PASSWORD, "next": link}
    )
    assert response["Location"] == link


def test_anonymous_post_joins_nobody(client, pool_campaign):
    before = db_snapshot()
    assert client.post(join(pool_campaign)).status_code == 302
    assert db_snapshot() == before


def test_signup_honours_next_to_the_join_link(client, pool_campaign):
    link = join(pool_campaign)
    response = client.post(
        f"{reverse('signup')}?next={quote(link)}",
        NEWBIE,
    )
    assert response["Location"] == link
    assert client.get(link).status_code == 200


def test_confirm_page_changes_nothing(as_user, mana_campaign, outsider):
    before = db_snapshot()
    response = as_user(outsider).get(join(mana_campaign))
    content = response.content.decode()
    assert response.status_code == 200
    assert "Join Blue Harbor as a player" in content
    assert "run by gm" in content
    assert db_snapshot() == before


def test_post_joins_as_player(as_user, mana_campaign, outsider):
    client = as_user(outsider)
    response = client.post(join(mana_campaign))
    assert response.status_code == 302
    assert response["Location"] == reverse("campaign_detail", args=[mana_campaign.id])
    assert mana_campaign.member(outsider).role == Membership.PLAYER
    assert client.get(response["Location"]).status_code == 200


def test_joining_twice_is_idempotent(as_user, pool_campaign, outsider):
    client = as_user(outsider)
    client.post(join(pool_campaign))
    response = client.post(join(pool_campaign))
    assert response.status_code == 302
    assert Membership.objects.filter(campaign=pool_campaign, user=outsider).count() == 1


@pytest.mark.parametrize("method", ["get", "post"])
def test_members_are_redirected_and_gm_stays_gm(as_user, pool_campaign, gm, player, method):
    for user in (gm, player):
        response = getattr(as_user(user), method)(join(pool_campaign))
        assert response.status_code == 302
        assert response["Location"] == reverse("campaign_detail", args=[pool_campaign.id])
    assert pool_campaign.member(gm).role == Membership.GM
    assert pool_campaign.member(player).role == Membership.PLAYER
    assert pool_campaign.memberships.count() == 3


@pytest.mark.parametrize("method", ["get", "post"])
def test_bad_or_old_token_is_404(as_user, pool_campaign, outsider, method):
    old = join(pool_campaign)
    pool_campaign.renew_invite()
    before = db_snapshot()
    client = as_user(outsider)
    assert getattr(client, method)(old).status_code == 404
    assert getattr(client, method)("/join/not-a-token/").status_code == 404
    assert db_snapshot() == before


def test_put_is_not_allowed(as_user, pool_campaign, outsider):
    assert as_user(outsider).put(join(pool_campaign)).status_code == 405
