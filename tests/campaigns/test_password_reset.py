"""A forgotten password (campaigns/views.py ``password_reset``, campaigns/accounts.py): a link
mailed when the server sends mail (settings.SENDS_MAIL); else the page says so and to ask the
host, who makes the link with ``manage.py reset_link`` or the admin's action. Every account
page in the site's own look, none in Django admin's."""

import io
import re
from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.mail.backends.locmem import EmailBackend
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from campaigns.accounts import LINK_DAYS, reset_path
from campaigns.management.commands import reset_link as reset_link_command
from tests.conftest import PASSWORD

NEW = "a-brand-new-phrase"
NO_MAIL = "This server sends no mail, so it cannot mail you a link."
DEAD_LINK = "This link does not work"


@pytest.fixture
def mailing(settings):
    """A server that sends mail, into Django's test outbox."""
    settings.SENDS_MAIL = True
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


@pytest.fixture
def no_mail(settings):
    """A server with no mail configured; a mail sent anyway would land in the test outbox."""
    settings.SENDS_MAIL = False
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


@pytest.fixture
def ana(player):
    player.email = "ana@example.org"
    player.save()
    return player


def set_password_by_link(client, link, password=NEW):
    """Open the reset ``link`` and choose ``password`` there: the page's last answer (a
    redirect once the password is set)."""
    opened = client.get(urlsplit(link).path)
    if opened.status_code != 302:  # a dead link: its page
        return opened
    form_url = opened["Location"]  # Django moves the token into the session
    assert 'name="new_password1"' in client.get(form_url).content.decode()
    return client.post(form_url, {"new_password1": password, "new_password2": password})


def logs_in(password, username="ana"):
    response = Client().post(reverse("login"), {"username": username, "password": password})
    return response.status_code == 302


def in_site_look(html):
    return 'class="brand"' in html and "Django site admin" not in html and "admin/css" not in html


# With mail ----------------------------------------------------------------------------------


def test_a_mailed_link_sets_a_new_password_that_logs_in(client, ana, mailing):
    page = client.get(reverse("password_reset")).content.decode()
    assert in_site_look(page) and 'name="email"' in page and f"within {LINK_DAYS} days" in page
    response = client.post(reverse("password_reset"), {"email": "ANA@example.org"})
    assert response.status_code == 302
    assert response["Location"] == reverse("password_reset_done")
    assert in_site_look(client.get(response["Location"]).content.decode())
    [message] = mail.outbox
    assert message.to == ["ana@example.org"]
    assert message.subject == "Choose a new Rollroom password"
    assert "account ana at testserver" in message.body
    [link] = re.findall(r"http://testserver/accounts/reset/\S+", message.body)
    done = set_password_by_link(client, link)
    assert done.status_code == 302 and done["Location"] == reverse("password_reset_complete")
    assert in_site_look(client.get(done["Location"]).content.decode())
    assert logs_in(NEW) and not logs_in(PASSWORD)
    # Once: the link is dead now.
    again = set_password_by_link(Client(), link, "yet-another-phrase")
    assert DEAD_LINK in again.content.decode() and logs_in(NEW)


def test_an_unknown_address_gets_the_same_answer_and_no_mail(client, ana, mailing):
    response = client.post(reverse("password_reset"), {"email": "nobody@example.org"})
    assert response.status_code == 302
    assert response["Location"] == reverse("password_reset_done")
    assert mail.outbox == []


def test_an_unreachable_mail_server_gets_the_same_answer_and_is_logged(
    client, ana, mailing, monkeypatch, caplog
):
    def refused(self, messages):
        raise ConnectionRefusedError(111, "Connection refused")

    monkeypatch.setattr(EmailBackend, "send_messages", refused)
    response = client.post(reverse("password_reset"), {"email": "ana@example.org"})
    # As for an address without an account: a stranger learns nothing of who has one.
    assert response.status_code == 302
    assert response["Location"] == reverse("password_reset_done")
    assert "Failed to send password reset email" in caplog.text
    done = client.get(response["Location"]).content.decode()
    assert "ask the host of this Rollroom for a link" in done


# Without mail ---------------------------------------------------------------------------------


def test_without_mail_the_page_says_so_and_sends_nothing(client, ana, no_mail):
    page = client.get(reverse("password_reset")).content.decode()
    assert NO_MAIL in page and "manage.py reset_link USERNAME" in page
    assert 'name="email"' not in page and in_site_look(page)
    response = client.post(reverse("password_reset"), {"email": "ana@example.org"})
    assert response.status_code == 200
    assert NO_MAIL in response.content.decode()
    assert mail.outbox == []


def test_the_login_page_leads_to_it(client, db):
    login = client.get(reverse("login")).content.decode()
    assert f'href="{reverse("password_reset")}"' in login


# The host's link ---------------------------------------------------------------------------------


def reset_link(*args):
    out = io.StringIO()
    call_command("reset_link", *args, stdout=out)
    return out.getvalue()


def test_the_command_prints_a_link_that_works_once(client, player, no_mail):
    said = reset_link("ana", "--site", "http://192.168.1.23:8000/")
    assert f"works once, within {LINK_DAYS} days" in said
    [link] = re.findall(r"http://192\.168\.1\.23:8000/accounts/reset/\S+/", said)
    done = set_password_by_link(client, link)
    assert done["Location"] == reverse("password_reset_complete")
    assert logs_in(NEW) and not logs_in(PASSWORD)
    again = set_password_by_link(Client(), link, "yet-another-phrase")
    assert again.status_code == 200 and DEAD_LINK in again.content.decode()
    assert in_site_look(again.content.decode())
    assert logs_in(NEW) and not logs_in("yet-another-phrase")
    assert mail.outbox == []


def test_the_command_without_an_address_prints_the_path_and_says_so(player, settings, monkeypatch):
    settings.ROLLROOM_PUBLIC_URL = ""
    monkeypatch.setattr(reset_link_command, "network_address", lambda: "192.168.1.23")
    said = reset_link("ana")
    [path] = re.findall(r"^    (/accounts/reset/\S+/)$", said, flags=re.MULTILINE)
    assert "This is only the end of the link: put the address your players open" in said
    assert f"e.g. http://192.168.1.23:PORT{path} (PORT: the one `manage.py host` serves on)" in said
    assert "--site ADDRESS, or ROLLROOM_PUBLIC_URL set, prints it whole." in said


def test_the_command_prints_the_public_url_whole(client, player, settings):
    settings.ROLLROOM_PUBLIC_URL = "https://play.example:8443"
    said = reset_link("ana")
    [link] = re.findall(r"^    (https://play\.example:8443/accounts/reset/\S+/)$", said, re.M)
    assert "end of the link" not in said
    assert set_password_by_link(client, link)["Location"] == reverse("password_reset_complete")
    # An address given to the command is the one it prints.
    said = reset_link("ana", "--site", "http://192.168.1.23:8000")
    assert re.search(r"^    http://192\.168\.1\.23:8000/accounts/reset/\S+/$", said, re.M)


def test_the_command_refuses_an_unknown_or_inactive_user(player):
    with pytest.raises(CommandError, match="There is no user 'nobody'"):
        reset_link("nobody")
    player.is_active = False
    player.save()
    with pytest.raises(CommandError, match="'ana' is not active"):
        reset_link("ana")


def test_the_new_password_keeps_to_the_rule(client, player):
    refused = set_password_by_link(client, reset_path(player), "password")
    assert refused.status_code == 200
    assert "This password is too common." in refused.content.decode()
    assert logs_in(PASSWORD)


@pytest.fixture
def host(client, db):
    boss = get_user_model().objects.create_superuser("boss", "boss@example.com", "pw-boss-123")
    client.force_login(boss)
    return client


def test_the_admin_makes_a_link_that_works(host, player, other_player, no_mail):
    changelist = reverse("admin:auth_user_changelist")
    data = {"action": "make_reset_links", "_selected_action": [player.pk, other_player.pk]}
    page = host.post(changelist, data, follow=True).content.decode()
    assert "A link for ana to choose a new password" in page
    links = re.findall(r"http://testserver/accounts/reset/[^\s<]+/", page)
    assert len(links) == 2  # ana's, then ben's
    done = set_password_by_link(Client(), links[0])
    assert done["Location"] == reverse("password_reset_complete")
    assert logs_in(NEW) and logs_in(PASSWORD, "ben")


# Every account page -------------------------------------------------------------------------


def account_routes():
    """{route name: route} of every page under accounts/ (Django's and the site's)."""
    found = {}

    def walk(patterns, prefix):
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, route)
            elif isinstance(pattern, URLPattern) and route.startswith("accounts/"):
                found.setdefault(pattern.name, route)

    walk(get_resolver().url_patterns, "")
    return found


def test_every_account_page_is_in_the_site_look(player, mailing):
    """Each page a GET reaches under accounts/, as the visitor who reaches it: a route added
    without a way here fails."""
    user = Client()
    user.force_login(player)
    link = Client()
    pages = {
        "login": (Client(), reverse("login")),
        "signup": (Client(), reverse("signup")),
        "password_reset": (Client(), reverse("password_reset")),
        "password_reset_done": (Client(), reverse("password_reset_done")),
        # A valid link leads to its form (followed below), a dead one to its page.
        "password_reset_confirm": (link, reset_path(player)),
        "password_reset_complete": (Client(), reverse("password_reset_complete")),
        "password_change": (user, reverse("password_change")),
        "password_change_done": (user, reverse("password_change_done")),
        "account_delete": (user, reverse("account_delete")),
    }
    # logout takes a POST only (405); my_data is a JSON file (tests/insights/test_my_data.py).
    gets = set(account_routes()) - {"logout", "my_data"}
    assert gets == set(pages)
    for name, (client, url) in pages.items():
        html = client.get(url, follow=True).content.decode()
        assert in_site_look(html), name
    assert 'name="new_password1"' in link.get(reset_path(player), follow=True).content.decode()
    dead = Client().get(reverse("password_reset_confirm", args=["MQ", "set-password"]))
    assert DEAD_LINK in dead.content.decode() and in_site_look(dead.content.decode())


def test_a_changed_password_logs_in(player):
    client = Client()
    client.force_login(player)
    data = {"old_password": PASSWORD, "new_password1": NEW, "new_password2": NEW}
    response = client.post(reverse("password_change"), data)
    assert response["Location"] == reverse("password_change_done")
    assert logs_in(NEW) and not logs_in(PASSWORD)
