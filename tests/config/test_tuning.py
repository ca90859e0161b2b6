"""config.tuning: what it relies on in Django and Channels is still there, and it tunes a
server process only when asked (config.asgi asks; settings and the test process do not)."""

import ast
import gc
import inspect
import os
import sys
import textwrap
import threading
from concurrent.futures import ThreadPoolExecutor

import asgiref
import channels
import django
import pytest
from asgiref.sync import SyncToAsync, ThreadSensitiveContext, iscoroutinefunction, sync_to_async
from channels.db import database_sync_to_async
from django.conf import settings
from django.core import asgi as django_asgi
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.base import BaseHandler

from config import tuning
from tests.helpers import fresh_python

RECHECK = (
    "config/tuning.py overrides and calls parts of Django's ASGIHandler "
    "(django/core/handlers/asgi.py and base.py) and relies on Channels' database_sync_to_async "
    "running in asgiref's shared thread; none of it is public API. Re-read those parts in the "
    "installed versions: SyncChainHandler.__call__ must still be Django's, minus the "
    "ThreadSensitiveContext with one_thread and with a kept thread's executor given to it "
    "otherwise (asgiref's ThreadSensitiveContext(executor=...) must leave the executor running), "
    "SyncChainHandler.handle and serve must still do what Django's handle and run_get_response "
    "do, and load_middleware and get_response must still be called as it expects "
    "(tests/config/test_asgi.py runs it); then set CHECKED_WITH."
)


def parameters(function):
    return [
        (p.name, p.default) if p.default is not inspect.Parameter.empty else p.name
        for p in inspect.signature(function).parameters.values()
    ]


def statements(source):
    """The statements of the function defined in ``source``, as AST dumps: without its
    docstring, comments or formatting."""
    function = ast.parse(textwrap.dedent(source)).body[0]
    body = function.body
    if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return [ast.dump(statement) for statement in body]


def body(function):
    return statements(inspect.getsource(function))


def major_minor(version):
    return tuple(int(part) for part in version.split(".")[:2])


def test_checked_against_the_installed_django_channels_and_asgiref():
    installed = {
        "Django": django.VERSION[:2],
        "Channels": major_minor(channels.__version__),
        "asgiref": major_minor(asgiref.__version__),
    }
    assert installed == tuning.CHECKED_WITH, (
        f"Installed {installed}, checked with {tuning.CHECKED_WITH}. {RECHECK}"
    )


def test_the_methods_it_overrides_or_calls_keep_their_signatures():
    expected = {
        ASGIHandler.__init__: (False, ["self"]),
        ASGIHandler.__call__: (True, ["self", "scope", "receive", "send"]),
        ASGIHandler.handle: (True, ["self", "scope", "receive", "send"]),
        ASGIHandler.read_body: (True, ["self", "receive"]),
        ASGIHandler.create_request: (False, ["self", "scope", "body_file"]),
        ASGIHandler.listen_for_disconnect: (True, ["self", "receive"]),
        ASGIHandler.send_response: (True, ["self", "response", "send"]),
        BaseHandler.get_response: (False, ["self", "request"]),
        BaseHandler.load_middleware: (False, ["self", ("is_async", False)]),
    }
    for method, (is_async, names) in expected.items():
        assert iscoroutinefunction(method) is is_async, f"{method.__qualname__}. {RECHECK}"
        assert parameters(method) == names, f"{method.__qualname__}. {RECHECK}"
    assert ASGIHandler.chunk_size == 2**16, RECHECK


def test_django_calls_what_it_overrides_where_it_expects():
    call = "self.load_middleware(is_async=True)"
    assert call in inspect.getsource(ASGIHandler.__init__), f"__init__: {call}? {RECHECK}"


def test_djangos_handle_and_run_get_response_are_what_sync_chain_handler_copies():
    """SyncChainHandler.handle and serve do what these do, with the signal, the chain
    (run_get_response's) and the close in one call into a thread: a change here must be
    carried over there."""
    handle = statements(
        """
        async def handle(self, scope, receive, send):
            try:
                body_file = await self.read_body(receive)
            except RequestAborted:
                return
            set_script_prefix(get_script_prefix(scope))
            await signals.request_started.asend(sender=self.__class__, scope=scope)
            request, error_response = self.create_request(scope, body_file)
            if request is None:
                body_file.close()
                await self.send_response(error_response, send)
                await sync_to_async(error_response.close)()
                return

            async def process_request(request, send):
                response = await self.run_get_response(request)
                try:
                    await self.send_response(response, send)
                except asyncio.CancelledError:
                    pass
                return response

            tasks = [
                asyncio.create_task(self.listen_for_disconnect(receive)),
                asyncio.create_task(process_request(request, send)),
            ]
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in tasks:
                if task.done():
                    try:
                        task.result()
                    except RequestAborted:
                        pass
                    except AssertionError:
                        body_file.close()
                        raise
                else:
                    task.cancel()
                    try:
                        await task
                    except asyncio.CancelledError:
                        pass
            try:
                response = tasks[1].result()
            except asyncio.CancelledError:
                await signals.request_finished.asend(sender=self.__class__)
            else:
                await sync_to_async(response.close)()
            body_file.close()
        """
    )
    assert body(ASGIHandler.handle) == handle, RECHECK
    run_get_response = statements(
        """
        async def run_get_response(self, request):
            response = await self.get_response_async(request)
            response._handler_class = self.__class__
            if isinstance(response, FileResponse):
                response.block_size = self.chunk_size
            return response
        """
    )
    assert body(ASGIHandler.run_get_response) == run_get_response, RECHECK


def test_djangos_call_is_the_type_check_and_the_context_around_handle():
    """SyncChainHandler.__call__ is this, minus the context with one_thread and with a kept
    thread's executor given to the context otherwise: anything else Django's __call__ does
    would be skipped."""
    expected = statements(
        """
        async def f(self, scope, receive, send):
            if scope["type"] != "http":
                raise ValueError(
                    "Django can only handle ASGI/HTTP connections, not %s." % scope["type"]
                )
            async with ThreadSensitiveContext():
                await self.handle(scope, receive, send)
        """
    )
    assert body(ASGIHandler.__call__) == expected, RECHECK


def test_djangos_get_asgi_application_is_setup_then_the_handler():
    expected = statements(
        """
        def f():
            django.setup(set_prefix=False)
            return ASGIHandler()
        """
    )
    assert body(django_asgi.get_asgi_application) == expected, RECHECK


@pytest.mark.asyncio
async def test_a_context_given_an_executor_runs_there_and_leaves_it_running():
    """What SyncChainHandler's kept threads rely on: thread-sensitive calls in the block go to
    the executor's thread, and the executor serves a later block after this one exits."""
    executor = ThreadPoolExecutor(1)
    try:
        threads = []
        for _ in range(2):
            async with ThreadSensitiveContext(executor=executor):
                threads.append(await sync_to_async(threading.current_thread)())
        assert threads[0] is threads[1] is not threading.current_thread()
        assert executor.submit(threading.current_thread).result(timeout=10) is threads[0]
    finally:
        executor.shutdown()


def test_channels_database_calls_are_thread_sensitive():
    assert issubclass(database_sync_to_async, SyncToAsync), RECHECK
    init = inspect.signature(SyncToAsync.__init__).parameters
    assert init["thread_sensitive"].default is True, RECHECK


def test_get_asgi_application_runs_requests_as_the_settings_ask():
    handler = tuning.get_asgi_application()
    assert isinstance(handler, tuning.SyncChainHandler)
    assert handler.one_thread is settings.REQUESTS_IN_ONE_THREAD
    assert handler.threads_kept == settings.REQUEST_THREADS_KEPT


def test_tune_process_does_nothing_inside_pytest():
    assert "PYTEST_VERSION" in os.environ
    before = sys.getswitchinterval(), gc.get_freeze_count()
    assert tuning.tune_process() is False
    assert (sys.getswitchinterval(), gc.get_freeze_count()) == before


def test_tune_process_when_a_test_asks(monkeypatch):
    monkeypatch.delenv("PYTEST_VERSION")
    interval = sys.getswitchinterval()
    try:
        assert tuning.tune_process() is True
        assert sys.getswitchinterval() == tuning.SWITCH_INTERVAL
        assert gc.get_freeze_count() > 0
    finally:
        sys.setswitchinterval(interval)
        gc.unfreeze()


def test_importing_the_application_in_tests_leaves_python_alone():
    from config import asgi  # noqa: F401

    assert sys.getswitchinterval() == pytest.approx(0.005)


def interpreter_after(statement):
    """The switch interval and whether gc froze anything, in a fresh Python (not under pytest)
    after ``statement``."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_VERSION", "DATABASE_URL")}
    code = f"{statement}; import gc, sys; print(sys.getswitchinterval(), gc.get_freeze_count() > 0)"
    return fresh_python(code, env).split()


def test_the_asgi_application_opts_in_and_the_settings_do_not():
    assert interpreter_after("import config.asgi") == [str(tuning.SWITCH_INTERVAL), "True"]
    assert interpreter_after("import config.settings") == ["0.005", "False"]
