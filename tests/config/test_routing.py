"""What reads a socket's user (config/routing.py, ``socket_auth``): the session of the
socket's cookie, read as Channels' auth middleware reads it (Django's ``get_user``: the
session's hash checked), with the server's own send passed on."""

import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.test import Client

from config.routing import socket_auth
from tests.conftest import make_user

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


def scope_with(cookie):
    headers = [(b"cookie", cookie.encode())] if cookie else []
    return {"type": "websocket", "path": "/ws/", "headers": headers}


async def seen_by_the_app(scope):
    """The scope's user and the send the app behind ``socket_auth`` gets, for the server's."""
    seen = {}

    async def app(scope, receive, send):
        seen.update(user=scope["user"], send=send, session=scope["session"])

    async def receive():  # pragma: no cover - the app reads nothing
        raise AssertionError

    async def send(message):  # pragma: no cover - the app sends nothing
        raise AssertionError

    await socket_auth(app)(scope, receive, send)
    return seen["user"], seen["send"] is send, seen["session"]


@pytest.fixture
def ana_cookie(db):
    client = Client()
    client.force_login(make_user("ana"))
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


async def test_a_socket_reads_its_user_from_its_session_and_keeps_the_servers_send(ana_cookie):
    user, same_send, session = await seen_by_the_app(scope_with(ana_cookie))
    assert user.username == "ana"
    assert same_send  # not wrapped: a socket never saves its session
    assert f"{settings.SESSION_COOKIE_NAME}={session.session_key}" == ana_cookie


async def test_a_socket_without_a_session_or_with_an_unknown_one_is_anonymous(db):
    for cookie in ("", f"{settings.SESSION_COOKIE_NAME}=nosuchsession"):
        user, same_send, _ = await seen_by_the_app(scope_with(cookie))
        assert isinstance(user, AnonymousUser) and same_send


async def test_a_session_from_before_its_user_s_password_changed_is_anonymous(ana_cookie):
    """The session's hash is checked, as for a request: a password change logs out the
    sessions it did not make."""

    def change_password():
        ana = get_user_model().objects.get(username="ana")
        ana.set_password("a-new-password-of-ana")
        ana.save()

    await database_sync_to_async(change_password)()
    user, _, _ = await seen_by_the_app(scope_with(ana_cookie))
    assert isinstance(user, AnonymousUser)
