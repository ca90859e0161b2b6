"""config.asgi and the HTTP handler of config.tuning: Django's middleware chain run
synchronously, in one thread for every request on SQLite, in a thread per request otherwise."""

import threading

import pytest
from asgiref.sync import iscoroutinefunction
from channels.testing import HttpCommunicator
from django.conf import settings
from django.core.handlers.base import BaseHandler
from django.urls import reverse

from config import asgi
from config.tuning import SyncChainHandler

HOST = [(b"host", b"testserver")]


def test_http_goes_to_django_run_as_the_database_asks():
    http = asgi.application.application_mapping["http"]
    assert isinstance(http, SyncChainHandler)
    assert http.one_thread is settings.REQUESTS_IN_ONE_THREAD


def test_the_middleware_chain_is_synchronous():
    assert not iscoroutinefunction(SyncChainHandler(one_thread=True)._middleware_chain)


async def threads_of_two_requests(monkeypatch, *, one_thread):
    seen = []

    def get_response(self, request):
        seen.append(threading.current_thread())
        return BaseHandler.get_response(self, request)

    monkeypatch.setattr(SyncChainHandler, "get_response", get_response)
    http = SyncChainHandler(one_thread=one_thread)
    for _ in range(2):
        communicator = HttpCommunicator(http, "GET", reverse("login"), headers=HOST)
        response = await communicator.get_response()
        assert response["status"] == 200
        assert b'name="password"' in response["body"]
    return seen


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_one_thread_serves_every_request_in_the_same_thread(monkeypatch):
    first, second = await threads_of_two_requests(monkeypatch, one_thread=True)
    assert first is second is not threading.current_thread()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_otherwise_each_request_has_a_thread_of_its_own(monkeypatch):
    first, second = await threads_of_two_requests(monkeypatch, one_thread=False)
    assert first is not second
