"""The GM adds an existing user by username (campaigns.views.member_add,
services.membership_add)."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from campaigns import services
from campaigns.models import Membership
from tests.campaigns.helpers import panel
from tests.conftest import make_user
from tests.helpers import HTMX, raises_refused, unchanged


def add(campaign):
    return reverse("member_add", args=[campaign.id])


def test_the_panel_offers_the_form(as_user, pool_campaign, gm):
    html = as_user(gm).get(panel(pool_campaign)).content.decode()
    assert f'action="{add(pool_campaign)}"' in html
    assert 'id="member-add-username"' in html


def test_gm_adds_a_user_with_htmx(as_user, pool_campaign, gm, outsider):
    response = as_user(gm).post(add(pool_campaign), {"username": "zed"}, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    assert html.startswith('<section id="gm-members"')
    assert "zed joined The Marches as a player." in html
    assert "<li>zed" in html
    assert pool_campaign.member(outsider).role == Membership.PLAYER
    assert 'value=""' in html  # the form is ready for the next name


def test_gm_adds_a_user_with_a_plain_post(as_user, pool_campaign, gm, outsider):
    client = as_user(gm)
    response = client.post(add(pool_campaign), {"username": "  ZED "})
    assert response.status_code == 302
    assert response["Location"] == panel(pool_campaign)
    assert pool_campaign.member(outsider).role == Membership.PLAYER
    assert (
        "zed joined The Marches as a player." in client.get(panel(pool_campaign)).content.decode()
    )
    # Now a member: the campaign is theirs to open.
    assert (
        as_user(outsider).get(reverse("campaign_detail", args=[pool_campaign.id])).status_code
        == 200
    )


@pytest.mark.parametrize(
    ("username", "sentence"),
    [
        ("nobody", "There is no user called “nobody”."),
        ("ana", "ana is already a member of The Marches."),
        ("gm", "gm is already a member of The Marches."),
        ("", "This field is required."),
        ("   ", "This field is required."),
        ("x" * 151, "at most 150 characters"),
    ],
)
def test_refused_cleanly(as_user, pool_campaign, gm, username, sentence):
    client = as_user(gm)
    with unchanged():
        response = client.post(add(pool_campaign), {"username": username}, **HTMX)
    assert response.status_code == 422
    html = response.content.decode()
    assert sentence in html
    assert 'aria-invalid="true"' in html
    with unchanged():
        response = client.post(add(pool_campaign), {"username": username})
    assert response.status_code == 200
    assert sentence in response.content.decode()
    assert "GM panel: The Marches" in response.content.decode()


def test_a_typed_name_is_escaped_in_the_refusal(as_user, pool_campaign, gm):
    response = as_user(gm).post(add(pool_campaign), {"username": "<b>x</b>"}, **HTMX)
    html = response.content.decode()
    assert "<b>x</b>" not in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html


@pytest.mark.parametrize(("who", "status"), [("outsider", 404), ("player", 403)])
def test_only_the_gm_adds(as_user, pool_campaign, request, who, status):
    make_user("newbie")
    with unchanged():
        response = as_user(request.getfixturevalue(who)).post(
            add(pool_campaign), {"username": "newbie"}, **HTMX
        )
    assert response.status_code == status


def test_needs_post_and_login(client, as_user, pool_campaign, gm, outsider):
    with unchanged():
        response = client.post(add(pool_campaign), {"username": "zed"})
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    assert as_user(gm).get(add(pool_campaign)).status_code == 405


def test_the_service_finds_a_name_whatever_its_case(pool_campaign, outsider):
    membership = services.membership_add(campaign=pool_campaign, username="Zed")
    assert membership.user == outsider and membership.role == Membership.PLAYER


def test_the_service_prefers_the_exact_name(pool_campaign):
    # Names differing by case alone can't be made through sign-up; the admin could.
    users = get_user_model().objects
    lower, upper = users.create_user("kim"), users.create_user("KIM")
    assert services.membership_add(campaign=pool_campaign, username="KIM").user == upper
    assert services.membership_add(campaign=pool_campaign, username="kim").user == lower
    users.create_user("Lee"), users.create_user("LEE")
    with raises_refused(match="no user called “lee”"):
        services.membership_add(campaign=pool_campaign, username="lee")


def test_the_service_refuses_a_blank_name(pool_campaign):
    with unchanged(), raises_refused(match="Name the user to add."):
        services.membership_add(campaign=pool_campaign, username="  ")


def test_a_refused_plain_post_shows_the_panel_with_each_section_once(as_user, pool_campaign, gm):
    """The refused section (``campaigns.views.MEMBERS``) stands in place of its include."""
    response = as_user(gm).post(add(pool_campaign), {"username": "nobody"})
    html = response.content.decode()
    for section in ("gm-members", "gm-invite", "gm-settings"):
        assert html.count(f'id="{section}"') == 1
    assert html.count("There is no user called “nobody”.") == 1
