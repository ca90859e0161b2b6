from urllib.parse import quote

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from campaigns.models import Campaign, Membership
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


def test_anonymous_sees_the_campaign_and_its_gm(client, mana_campaign):
    before = db_snapshot()
    link = join(mana_campaign)
    response = client.get(link)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Join Blue Harbor as a player" in html
    assert "A Mana campaign run by gm." in html
    # The ways in come back to the invite, the header's too; no join button without a login.
    back = f"?next={quote(link)}"
    assert html.count(f'href="{reverse("signup")}{back}"') == 2
    assert html.count(f'href="{reverse("login")}{back}"') == 2
    assert "Join as a player</button>" not in html
    assert db_snapshot() == before


def test_anonymous_logs_in_and_comes_back(client, pool_campaign, outsider):
    link = join(pool_campaign)
    login_page = client.get(f"{reverse('login')}?next={quote(link)}").content.decode()
    # The sign-up link of the login page and of its header keep the invite.
    assert login_page.count(f"{reverse('signup')}?next={quote(link)}") == 2
    response = client.post(
        reverse("login"), {"username": "zed", "password": PASSWORD, "next": link}
    )
    assert response["Location"] == link
    assert "Join as a player</button>" in client.get(link).content.decode()


def test_the_sign_up_page_keeps_the_invite_in_its_links(client, pool_campaign):
    link = join(pool_campaign)
    page = client.get(f"{reverse('signup')}?next={quote(link)}").content.decode()
    assert f'name="next" value="{link}"' in page
    assert page.count(f"{reverse('login')}?next={quote(link)}") == 2
    assert page.count(f"{reverse('signup')}?next={quote(link)}") == 1  # the header's


def test_names_are_escaped_on_the_join_page(client, pool_campaign, gm):
    Campaign.objects.filter(pk=pool_campaign.pk).update(name="<script>alert(1)</script>")
    get_user_model().objects.filter(pk=gm.pk).update(username="<b>gm</b>")
    html = client.get(join(pool_campaign)).content.decode()
    assert "<script>alert(1)</script>" not in html and "<b>gm</b>" not in html
    assert "Join &lt;script&gt;alert(1)&lt;/script&gt; as a player" in html
    assert "run by &lt;b&gt;gm&lt;/b&gt;" in html


def test_anonymous_with_a_bad_token_gets_404(client, pool_campaign):
    assert client.get("/join/not-a-token/").status_code == 404


def test_anonymous_post_joins_nobody(client, pool_campaign):
    before = db_snapshot()
    response = client.post(join(pool_campaign))
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next={quote(join(pool_campaign))}"
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
