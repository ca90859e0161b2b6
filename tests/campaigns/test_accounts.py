import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from config.settings import trusted_proxies
from tests.conftest import PASSWORD

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
    # The free rolls' limits, as rules.notation has them.
    said = " ".join(content.split())
    assert "1 to 1000 faces" in said and "at most 100 dice a roll" in said
    assert "at most 20 times a die" in said and "at most 4 deep" in said
    assert "each face of a chain counts as a die of its own" in said  # counting exploding dice


# Login throttling (config/settings.py, django-axes) -----------------------------------------------
def log_in(client, password, username="ana", address="10.0.0.1"):
    data = {"username": username, "password": password}
    return client.post(reverse("login"), data, REMOTE_ADDR=address)


def test_fifty_wrong_passwords_lock_the_right_one_out(client, player):
    for attempt in range(50):
        response = log_in(client, f"wrong-{attempt}")
        assert response.status_code == (200 if attempt < 4 else 429)
    response = log_in(client, PASSWORD)
    assert response.status_code == 429
    html = response.content.decode()
    assert "Too many attempts" in html and 'class="brand"' in html  # the site's own page
    assert "After 5 wrong passwords for <strong>ana</strong>" in html
    assert "paused for 15 minutes" in html and "even the right password is refused" in html
    assert client.get(reverse("home")).status_code == 302  # not logged in


def test_the_lock_holds_for_that_username_from_that_address(client, player, other_player):
    for _ in range(5):
        log_in(client, "wrong")
    assert log_in(client, PASSWORD).status_code == 429
    assert log_in(client, PASSWORD, username="ben").status_code == 302
    client.logout()
    assert log_in(client, PASSWORD, address="10.0.0.2").status_code == 302


def test_behind_a_trusted_proxy_the_lock_holds_for_the_forwarded_address(client, player, settings):
    """Every visitor's connection comes from the proxy: the lock is by the address it forwards
    (core.throttle.client_address), and a forged address on the left does not escape it."""
    settings.TRUSTED_PROXIES = trusted_proxies("127.0.0.1")

    def through_proxy(password, forwarded):
        data = {"username": "ana", "password": password}
        return client.post(
            reverse("login"), data, REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=forwarded
        )

    for _ in range(5):
        through_proxy("wrong", "203.0.113.5")
    assert through_proxy(PASSWORD, "203.0.113.5").status_code == 429
    assert through_proxy(PASSWORD, "198.51.100.1, 203.0.113.5").status_code == 429
    assert through_proxy(PASSWORD, "198.51.100.7").status_code == 302


def test_a_login_clears_the_failures_before_it(client, player):
    for _ in range(4):
        assert log_in(client, "wrong").status_code == 200
    assert log_in(client, PASSWORD).status_code == 302
    client.logout()
    for _ in range(4):
        assert log_in(client, "wrong").status_code == 200
    assert log_in(client, PASSWORD).status_code == 302


def test_the_lock_ends_after_its_time(client, player, settings):
    for _ in range(5):
        log_in(client, "wrong")
    assert log_in(client, PASSWORD).status_code == 429
    AccessAttempt.objects.update(attempt_time=timezone.now() - settings.LOGIN_LOCKOUT)
    assert log_in(client, PASSWORD).status_code == 302


# Sign-up's password rule (config/settings.py AUTH_PASSWORD_VALIDATORS) ----------------------------
@pytest.mark.parametrize(
    "username, password, refusal",
    [
        ("newbie", "password", "This password is too common."),
        ("newbie", "12345678", "This password is too common."),
        ("newbie", "39174628", "This password is entirely numeric."),
        ("dragonslayer", "dragonslayer1", "The password is too similar to the username."),
        ("newbie", "k7#Qz", "This password is too short. It must contain at least 8 characters."),
    ],
    ids=["common", "common-digits", "numeric", "like-the-username", "short"],
)
def test_signup_refuses_a_weak_password_beside_the_rule(client, db, username, password, refusal):
    data = {"username": username, "password1": password, "password2": password}
    response = client.post(reverse("signup"), data)
    assert response.status_code == 200
    html = response.content.decode()
    # The refusal is in the password's field, next to the rule it breaks.
    start = html.rindex('<div class="field', 0, html.index('<label for="id_password1">'))
    field = html[start : html.index('<label for="id_password2">')]
    assert field.startswith('<div class="field has-error">')
    assert escape(refusal) in field
    for rule in RULES:
        assert escape(rule) in field
    assert not get_user_model().objects.filter(username=username).exists()


#: The rule the sign-up form states, one sentence per validator.
RULES = [
    "Your password can’t be too similar to your other personal information.",
    "Your password must contain at least 8 characters.",
    "Your password can’t be a commonly used password.",
    "Your password can’t be entirely numeric.",
]


def test_the_signup_form_states_the_password_rule(client, db):
    html = client.get(reverse("signup")).content.decode()
    for rule in RULES:
        assert html.count(escape(rule)) == 1


def test_signup_keeps_an_optional_email_for_a_reset_link(client, db, settings):
    settings.SENDS_MAIL = False
    html = client.get(reverse("signup")).content.decode()
    assert "Email (optional)" in html
    assert "This server sends no mail for now: the host can make you one." in html
    client.post(reverse("signup"), {**NEWBIE, "email": "newbie@example.org"})
    assert get_user_model().objects.get(username="newbie").email == "newbie@example.org"
    settings.SENDS_MAIL = True
    assert "sends no mail" not in Client().get(reverse("signup")).content.decode()


def test_signup_refuses_a_password_like_the_email(client, db):
    data = {"username": "newbie", "email": "moonlit.harbor@example.org"}
    data |= {"password1": "moonlitharbor", "password2": "moonlitharbor"}
    html = client.post(reverse("signup"), data).content.decode()
    assert "The password is too similar to the email address." in html
    assert not get_user_model().objects.filter(username="newbie").exists()
