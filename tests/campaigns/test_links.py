"""Links people can open (campaigns/links.py): the GM panel's invite link, the admin's and the
mailed password reset links begin with ROLLROOM_PUBLIC_URL when set, else with the address the
visitor came by; a GM who came by a loopback address while the server listens on the network
(ROLLROOM_LISTEN, as ``manage.py host`` sets it) is shown the address players use."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import reverse

from campaigns import links
from tests.campaigns.helpers import panel, renew
from tests.helpers import HTMX

LAN = "192.168.1.23"
HINT = 'id="invite-elsewhere"'


@pytest.fixture
def hosts(settings, monkeypatch):
    """A server that answers to this computer, its network address and a name, whose network
    address is LAN, told nothing of what it listens on and no public address."""
    settings.ALLOWED_HOSTS = ["localhost", "127.0.0.1", "[::1]", LAN, "table.example"]
    settings.ROLLROOM_PUBLIC_URL = ""
    settings.ROLLROOM_LISTEN = None
    monkeypatch.setattr(links, "network_address", lambda: LAN)
    return settings


def invite_section(client, campaign, host, **extra):
    """The GM panel's invite section as ``client`` gets it by the Host ``host``."""
    response = client.get(panel(campaign), HTTP_HOST=host, **extra)
    assert response.status_code == 200
    page = response.content.decode()
    return page[page.index('<section id="gm-invite"') : page.index('<section id="gm-settings"')]


def invite_input(section):
    """The link in the invite section's box."""
    return re.search(r'value="([^"]*)" id="invite-link"', section)[1]


def join(campaign):
    return f"/join/{campaign.invite_token}/"


@pytest.mark.parametrize(
    ("host", "secure", "origin"),
    [
        (f"{LAN}:8000", False, f"http://{LAN}:8000"),
        ("table.example", False, "http://table.example"),
        ("table.example", True, "https://table.example"),
        ("127.0.0.1:8000", False, "http://127.0.0.1:8000"),
    ],
)
def test_the_invite_link_names_the_address_the_gm_came_by(
    as_user, pool_campaign, gm, hosts, host, secure, origin
):
    section = invite_section(as_user(gm), pool_campaign, host, secure=secure)
    assert invite_input(section) == origin + join(pool_campaign)
    assert HINT not in section  # nothing says where the server listens


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost:8000", "[::1]:8000"])
def test_on_loopback_while_listening_on_the_network_the_panel_shows_the_address_to_use(
    as_user, pool_campaign, gm, hosts, host
):
    hosts.ROLLROOM_LISTEN = ("0.0.0.0", 8000)
    section = invite_section(as_user(gm), pool_campaign, host)
    assert invite_input(section) == f"http://{host}{join(pool_campaign)}"  # the box: as before
    hint = re.search(r'<p class="warning" id="invite-elsewhere">(.*?)</p>', section, re.S)[1]
    visited = host.rsplit(":", 1)[0]
    assert f"<bdi>{visited}</bdi>" in hint or f" {visited}," in hint
    said = " ".join(re.sub(r"</?bdi>", "", hint).split())
    assert f"This link names {visited}, which only this computer reaches." in said
    assert f"Players on your network open this server at http://{LAN}:8000:" in said
    assert f"send them http://{LAN}:8000{join(pool_campaign)}" in said
    assert "DJANGO_ALLOWED_HOSTS" not in said  # the server answers to LAN already


def test_the_hint_says_when_the_server_does_not_answer_to_its_network_address(
    as_user, pool_campaign, gm, hosts
):
    hosts.ALLOWED_HOSTS = ["localhost", "127.0.0.1"]
    hosts.ROLLROOM_LISTEN = ("0.0.0.0", 8000)
    section = invite_section(as_user(gm), pool_campaign, "127.0.0.1:8000")
    assert f"send them http://{LAN}:8000{join(pool_campaign)} (it answers" in section
    assert "once DJANGO_ALLOWED_HOSTS names it" in section


def test_a_server_listening_on_one_address_shows_that_address(as_user, pool_campaign, gm, hosts):
    hosts.ROLLROOM_LISTEN = ("192.168.1.50", 9000)
    hosts.ALLOWED_HOSTS = [*hosts.ALLOWED_HOSTS, "192.168.1.50"]
    section = invite_section(as_user(gm), pool_campaign, "localhost:9000")
    assert f"send them http://192.168.1.50:9000{join(pool_campaign)}" in section
    assert LAN not in section


def test_the_hint_is_escaped_and_isolated(as_user, pool_campaign, gm, hosts):
    """A name the server listens on is shown as every string is: escaped, and in a ``<bdi>``
    when it can turn the text around it (core/templatetags/text.py)."""
    hosts.ROLLROOM_LISTEN = ("שולחן<b>.local", 8000)
    section = invite_section(as_user(gm), pool_campaign, "127.0.0.1:8000")
    assert "<bdi>http://שולחן&lt;b&gt;.local:8000</bdi>" in section
    assert "<b>" not in section


@pytest.mark.parametrize(
    ("listen", "host", "public"),
    [
        (("127.0.0.1", 8000), "127.0.0.1:8000", ""),  # listens on this computer alone
        (("::1", 8000), "[::1]:8000", ""),
        (("0.0.0.0", 8000), f"{LAN}:8000", ""),  # the GM came by the network address
        (("0.0.0.0", 8000), "table.example", ""),
        (("0.0.0.0", 8000), "127.0.0.1:8000", "https://table.example"),  # links use the setting
    ],
)
def test_no_hint_otherwise(as_user, pool_campaign, gm, hosts, listen, host, public):
    hosts.ROLLROOM_LISTEN = listen
    hosts.ROLLROOM_PUBLIC_URL = public
    assert HINT not in invite_section(as_user(gm), pool_campaign, host)


def test_no_hint_without_a_network(as_user, pool_campaign, gm, hosts, monkeypatch):
    hosts.ROLLROOM_LISTEN = ("0.0.0.0", 8000)
    monkeypatch.setattr(links, "network_address", lambda: None)
    assert HINT not in invite_section(as_user(gm), pool_campaign, "127.0.0.1:8000")


@pytest.mark.parametrize("host", ["127.0.0.1:8000", f"{LAN}:8000", "table.example"])
def test_the_public_url_makes_the_invite_link_whatever_the_address(
    as_user, pool_campaign, gm, hosts, host
):
    hosts.ROLLROOM_PUBLIC_URL = "https://play.example:8443"
    section = invite_section(as_user(gm), pool_campaign, host)
    assert invite_input(section) == f"https://play.example:8443{join(pool_campaign)}"


def test_the_section_is_unchanged_but_for_the_hint(as_user, pool_campaign, gm, hosts):
    """With and without the hint, the invite section is the same markup around it (its form's
    CSRF token aside, new in every answer)."""
    client = as_user(gm)

    def section():
        text = invite_section(client, pool_campaign, "127.0.0.1:8000")
        return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", text)

    without = section()
    hosts.ROLLROOM_LISTEN = ("0.0.0.0", 8000)
    hinted = section()
    hint = re.search(r'\n  <p class="warning" id="invite-elsewhere">.*?</p>', hinted, re.S)[0]
    assert hinted.replace(hint, "") == without


def test_a_renewed_link_keeps_the_hint(as_user, pool_campaign, gm, hosts):
    """The invite section htmx swaps in after a renewal is the panel's, hint included."""
    hosts.ROLLROOM_LISTEN = ("0.0.0.0", 8000)
    response = as_user(gm).post(renew(pool_campaign), HTTP_HOST="127.0.0.1:8000", **HTMX)
    assert response.status_code == 200
    pool_campaign.refresh_from_db()
    assert f"send them http://{LAN}:8000{join(pool_campaign)}" in response.content.decode()


@pytest.mark.parametrize("public", ["", "https://play.example"])
@pytest.mark.parametrize("host", ["127.0.0.1:8000", f"{LAN}:8000"])
def test_permissions_are_unchanged(
    as_user, pool_campaign, gm, player, outsider, hosts, host, public
):
    hosts.ROLLROOM_LISTEN = ("0.0.0.0", 8000)
    hosts.ROLLROOM_PUBLIC_URL = public
    url = panel(pool_campaign)
    assert Client().get(url, HTTP_HOST=host).status_code == 302  # to the login page
    assert as_user(outsider).get(url, HTTP_HOST=host).status_code == 404
    assert as_user(player).get(url, HTTP_HOST=host).status_code == 403
    assert as_user(gm).get(url, HTTP_HOST=host).status_code == 200
    for who, status in ((outsider, 404), (player, 403)):
        assert as_user(who).post(renew(pool_campaign), HTTP_HOST=host).status_code == status


# Password reset links ----------------------------------------------------------------------------


@pytest.fixture
def boss(client, db):
    user = get_user_model().objects.create_superuser("boss", "boss@example.com", "pw-boss-123")
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    ("public", "host", "origin"),
    [
        ("", f"{LAN}:8000", f"http://{LAN}:8000"),
        ("https://play.example", f"{LAN}:8000", "https://play.example"),
    ],
)
def test_the_admins_reset_link(boss, player, hosts, public, host, origin):
    hosts.ROLLROOM_PUBLIC_URL = public
    data = {"action": "make_reset_links", "_selected_action": [player.pk]}
    page = boss.post(
        reverse("admin:auth_user_changelist"), data, HTTP_HOST=host, follow=True
    ).content.decode()
    assert re.search(re.escape(origin) + r"/accounts/reset/[^\s<]+/", page)


@pytest.mark.parametrize(
    ("public", "host", "origin"),
    [
        ("", "table.example", "http://table.example"),
        ("https://play.example:8443", "127.0.0.1:8000", "https://play.example:8443"),
    ],
)
def test_the_mailed_reset_link(client, player, hosts, public, host, origin):
    hosts.ROLLROOM_PUBLIC_URL = public
    hosts.SENDS_MAIL = True
    hosts.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    player.email = "ana@example.org"
    player.save()
    client.post(reverse("password_reset"), {"email": "ana@example.org"}, HTTP_HOST=host)
    [sent] = mail.outbox
    assert re.search(r"^" + re.escape(origin) + r"/accounts/reset/\S+/$", sent.body, re.M)
    domain = origin.split("://")[1]
    assert f"Rollroom account ana at {domain}." in sent.body


# The addresses -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("localhost", True),
        ("LOCALHOST.", True),
        ("[::1]", True),
        ("::1", True),
        (LAN, False),
        ("[fe80::1]", False),
        ("table.example", False),
        ("localhost.example", False),
    ],
)
def test_loopback(host, loopback):
    assert links.is_loopback(host) is loopback


@pytest.mark.parametrize(
    ("listen", "origin"),
    [
        (None, None),
        (("0.0.0.0", 8000), f"https://{LAN}:8000"),
        (("::", 8000), f"https://{LAN}:8000"),
        (("fd00::5", 8443), "https://[fd00::5]:8443"),
        (("table.example", 8000), "https://table.example:8000"),
        (("127.0.0.2", 8000), None),
        (("localhost", 8000), None),
    ],
)
def test_the_network_origin(hosts, listen, origin):
    hosts.ROLLROOM_LISTEN = listen
    assert links.network_origin("https") == origin
