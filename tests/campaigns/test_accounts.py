from django.contrib.auth import get_user_model
from django.urls import reverse

NEWBIE = {
    "username": "newbie",
    "password1": "a-long-pass-phrase",
    "password2": "a-long-pass-phrase",
}


def test_signup_creates_user_and_logs_in(client, db):
    response = client.post(
        reverse("signup"),
        NEWBIE,
    )
    assert response.status_code == 302
    assert get_user_model().objects.filter(username="newbie").exists()
    assert client.get(reverse("home")).status_code == 200


def test_signup_bad_input_shows_error_and_creates_nothing(client, db):
    response = client.post(
        reverse("signup"), {"username": "x", "password1": "abc", "password2": "abd"}
    )
    assert response.status_code == 200
    assert b"errorlist" in response.content
    assert not get_user_model().objects.filter(username="x").exists()


def test_signup_ignores_offsite_next(client, db):
    response = client.post(
        reverse("signup") + "?next=https://evil.example/",
        NEWBIE,
    )
    assert response["Location"] == reverse("home")


def test_login_and_logout(client, player):
    from tests.conftest import PASSWORD

    response = client.post(reverse("login"), {"username": "ana", "password": PASSWORD})
    assert response.status_code == 302
    assert client.get(reverse("home")).status_code == 200
    client.post(reverse("logout"))
    assert client.get(reverse("home")).status_code == 302


def test_home_requires_login(client, db):
    response = client.get(reverse("home"))
    assert response.status_code == 302
    assert reverse("login") in response["Location"]


def test_home_lists_only_own_campaigns(as_user, pool_campaign, outsider):
    from tests.conftest import make_campaign

    make_campaign(outsider, name="Secret Table")
    content = (
        as_user(pool_campaign.memberships.get(role="player", user__username="ana").user)
        .get(reverse("home"))
        .content.decode()
    )
    assert "The Marches" in content
    assert "Secret Table" not in content


def test_rules_page_is_public_and_states_the_decisions(client, db):
    content = client.get(reverse("rules")).content.decode()
    assert "highest total of 1 always fails" in content
    assert "at most 100 times" in content
    assert "What the table sees" in content
    assert "player and the GM alone" in content
