import ast
import asyncio
import contextlib
import gzip
import io
import os
import re
import runpy
import subprocess
import sys
import tempfile
import threading
import traceback
import uuid
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest
import redis
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.db import connection
from django.urls import reverse
from django.utils.module_loading import import_string

from config.settings import env_bool
from tests.faults import redis_server  # noqa: F401

SETTINGS_FILE = Path(settings.BASE_DIR) / "config" / "settings.py"


@dataclass
class Read:
    """What reading the settings printed, as a process would have: its output, the traceback
    of what it raised, and 0 or 1."""

    stdout: str
    stderr: str
    returncode: int


@contextlib.contextmanager
def environment(env):
    """The test's environment without Django's, the databases' and Redis's variables, plus
    ``env``, restored after."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_", "REDIS_", "SQLITE_"))
    }
    saved = dict(os.environ)
    try:
        os.environ.clear()
        os.environ.update({**clean, **env})
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def settings_of(env):
    """config/settings.py read afresh with the environment ``env`` (see ``environment``), in
    this process: the module is run again, as a new process would import it (the settings are
    a module that reads its environment and nothing else)."""
    with environment(env):
        return SimpleNamespace(**runpy.run_path(str(SETTINGS_FILE), run_name="config.settings"))


def settings_read(env, expr):
    """Print ``expr`` against the settings read with the environment ``env``
    (``settings_of``)."""
    out, err = io.StringIO(), ""
    try:
        s = settings_of(env)
        with contextlib.redirect_stdout(out):
            exec(f"print({expr})", {"s": s})
    except Exception:
        err = traceback.format_exc()
    return Read(out.getvalue(), err, 1 if err else 0)


def test_defaults_are_sqlite_and_in_memory_layer():
    out = settings_read(
        {}, "s.DATABASES['default']['ENGINE'], s.CHANNEL_LAYERS['default']['BACKEND']"
    ).stdout
    assert "sqlite3" in out
    assert "channels.layers.InMemoryChannelLayer" in out


def test_debug_is_off_unless_asked_for():
    assert settings_read({}, "s.DEBUG").stdout.strip() == "False"
    assert settings_read({"DJANGO_DEBUG": "1"}, "s.DEBUG").stdout.strip() == "True"


def test_sqlite_uses_wal_and_immediate():
    out = settings_read({}, "s.DATABASES['default']['OPTIONS']").stdout
    assert "IMMEDIATE" in out
    assert "journal_mode=WAL" in out
    assert "synchronous=FULL" in out


@pytest.mark.django_db
def test_a_sqlite_connection_syncs_each_commit():
    """What the connections get (the tests' own, as the servers'): WAL, and FULL (2), which
    makes every commit durable before its request is answered (tests/config/test_crashes.py)."""
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's settings")
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        assert cursor.fetchone() == ("wal",)
        cursor.execute("PRAGMA synchronous")
        assert cursor.fetchone() == (2,)


def test_environment_selects_postgres_and_redis():
    out = settings_read(
        {
            "DATABASE_URL": "postgres://u@127.0.0.1:5432/test",
            "REDIS_URL": "redis://127.0.0.1:6379/0",
        },
        "s.DATABASES['default']['ENGINE'], s.CHANNEL_LAYERS['default']['BACKEND']",
    ).stdout
    assert "postgresql" in out
    assert "channels_redis.core.RedisChannelLayer" in out


def test_a_secret_key_is_made_on_first_run_readable_by_its_user_only(tmp_path):
    key_file = tmp_path / "data" / "secret_key"
    env = {"DJANGO_SECRET_KEY_FILE": str(key_file)}
    first = settings_read(env, "s.SECRET_KEY")
    assert first.returncode == 0, first.stderr
    key = first.stdout.strip()
    assert len(key) >= 50
    assert key_file.read_text().strip() == key
    assert key_file.stat().st_mode & 0o777 == 0o600
    assert key_file.parent.stat().st_mode & 0o077 == 0
    assert [p.name for p in key_file.parent.iterdir()] == ["secret_key"]  # no draft left
    # Kept: the next start (and the next process) signs with the same key.
    assert settings_read(env, "s.SECRET_KEY").stdout.strip() == key
    assert key_file.stat().st_mode & 0o777 == 0o600


def test_processes_starting_together_agree_on_one_key(tmp_path):
    key_file = tmp_path / "secret_key"
    code = "import config.settings as s; print(s.SECRET_KEY)"
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_", "REDIS_"))
    }
    env["DJANGO_SECRET_KEY_FILE"] = str(key_file)
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", code],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
            cwd=settings.BASE_DIR,
        )
        for _ in range(4)
    ]
    keys = {process.communicate()[0].strip() for process in processes}
    assert keys == {key_file.read_text().strip()}


def test_the_secret_key_from_the_environment_wins_and_no_file_is_made(tmp_path):
    key_file = tmp_path / "secret_key"
    env = {"DJANGO_SECRET_KEY": "k" * 50, "DJANGO_SECRET_KEY_FILE": str(key_file)}
    assert settings_read(env, "s.SECRET_KEY").stdout.strip() == "k" * 50
    assert not key_file.exists()


def test_an_empty_secret_key_file_is_refused(tmp_path):
    key_file = tmp_path / "secret_key"
    key_file.write_text("\n")
    result = settings_read({"DJANGO_SECRET_KEY_FILE": str(key_file)}, "s.SECRET_KEY")
    assert result.returncode != 0
    assert f"The secret key file {key_file} is empty" in result.stderr


def test_plain_http_unless_a_proxy_terminates_https():
    """DEBUG off is not HTTPS: a friend at http://192.168.1.5:8000 must be able to log in."""
    expr = (
        "s.SECURE_SSL_REDIRECT, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, "
        "s.SECURE_PROXY_SSL_HEADER"
    )
    assert settings_read({}, expr).stdout.strip() == "False False False None"


def test_production_settings_are_hardened_and_hosts_read():
    out = settings_read(
        {
            "DJANGO_SECRET_KEY": "x" * 50,
            "DJANGO_ALLOWED_HOSTS": "roll.example",
            "DJANGO_SECURE": "1",
        },
        "s.DEBUG, s.SECURE_SSL_REDIRECT, s.SESSION_COOKIE_SECURE, s.ALLOWED_HOSTS",
    ).stdout
    assert out.strip() == "False True True ['roll.example']"


def test_allowed_hosts_default_to_this_computer():
    out = settings_read({}, "s.ALLOWED_HOSTS").stdout
    assert out.strip() == "['localhost', '127.0.0.1', '[::1]']"


def test_daphne_is_first_app():
    assert settings.INSTALLED_APPS[0] == "daphne"


def test_runserver_gives_daphne_the_websocket_limits(monkeypatch, settings):
    """Daphne's runserver (first app: it replaces Django's) reads the limits from the settings
    by their names; the server it would start gets them."""
    from daphne.management.commands.runserver import Command

    settings.DAPHNE_WEBSOCKET_MAX_MESSAGE_SIZE = 3000
    settings.DAPHNE_WEBSOCKET_MAX_FRAME_SIZE = 2000
    ran = []
    monkeypatch.setattr(Command, "run", lambda command, **options: ran.append(command))
    call_command("runserver", "127.0.0.1:8123", use_reloader=False, skip_checks=True)
    [command] = ran
    assert isinstance(command, Command)
    assert (command.websocket_max_message_size, command.websocket_max_frame_size) == (3000, 2000)


def test_asgi_application_routes_http_and_websocket():
    from config.asgi import application

    assert set(application.app.application_mapping) == {"http", "websocket"}


def test_postgres_uses_a_connection_pool():
    out = settings_read(
        {"DATABASE_URL": "postgres://u@127.0.0.1:5432/test"},
        "s.DATABASES['default']['CONN_MAX_AGE'], s.DATABASES['default']['OPTIONS']['pool']",
    ).stdout
    assert out.startswith("0 {'min_size': 2")


def test_sessions_are_cached_in_memory_in_one_process_and_in_the_database_alone_across_processes():
    """Several processes do not keep sessions in Redis: a page, a login and a logout need only
    the database (docs/scaling.md, "When Redis is down")."""
    local = settings_read({}, "s.SESSION_ENGINE, s.CACHES['default']['BACKEND']").stdout
    assert local.split() == [
        "django.contrib.sessions.backends.cached_db",
        "django.core.cache.backends.locmem.LocMemCache",
    ]
    shared = settings_read(
        {"REDIS_URL": "redis://127.0.0.1:6379/3"}, "s.SESSION_ENGINE, list(s.CACHES), s.REDIS_URL"
    ).stdout
    assert shared.split() == [
        "django.contrib.sessions.backends.db",
        "['default']",
        "redis://127.0.0.1:6379/3",
    ]


def test_a_request_keeps_no_sqlite_connection_after_it_finishes():
    """Each request runs in a thread of its own (Django's ASGI handler): a connection kept past
    the request would stay open after its thread ended. Writers wait for one another."""
    out = settings_read(
        {},
        "s.DATABASES['default']['CONN_MAX_AGE'], "
        "s.DATABASES['default']['OPTIONS']['transaction_mode']",
    ).stdout
    assert out.split() == ["0", "IMMEDIATE"]


@pytest.mark.parametrize("env", [{}, {"REDIS_URL": "redis://127.0.0.1:6379/0"}])
def test_a_socket_behind_in_a_burst_keeps_a_thousand_pushes(env):
    out = settings_read(env, "s.CHANNEL_LAYERS['default']['CONFIG']['capacity']").stdout
    assert out.strip() == "1000"


# The channel layer on Redis, as the settings make it ------------------------------------------


def layer_on(url, **config):
    """The channel layer the settings make for REDIS_URL ``url``, ``config`` over its own."""
    layers = settings_of({"REDIS_URL": url}).CHANNEL_LAYERS["default"]
    return import_string(layers["BACKEND"])(**{**layers["CONFIG"], **config})


def test_the_redis_layers_connections_retry_wait_for_replies_and_connect_quickly():
    """What the settings hand redis-py through channels_redis (config/settings.py says why):
    a failed command tried once more, no timeout on a reply (none around a write either), a
    connection attempt given up as quickly as a request's own client gives up."""
    from core.shared_redis import TIMEOUT

    connection = layer_on("redis://127.0.0.1:6379/0").create_pool(0).make_connection()
    assert connection.retry.get_retries() == 1
    assert connection.socket_timeout is None
    assert connection.socket_connect_timeout <= TIMEOUT


async def blocked_in_redis(server, timeout=10):
    """Wait until ``server`` holds a client blocked in a BZPOPMIN (``CLIENT LIST``: flag b)."""
    client = redis.Redis(port=server.port)
    try:
        async with asyncio.timeout(timeout):
            while not any(
                "b" in c["flags"] and c["cmd"] == "bzpopmin"
                for c in await asyncio.to_thread(client.client_list)
            ):
                await asyncio.sleep(0.01)  # polled: Redis tells no one when a client blocks
    finally:
        client.close()


@pytest.mark.asyncio
async def test_the_redis_layer_carries_on_after_redis_restarts(redis_server):  # noqa: F811
    """A connection the restarted Redis's predecessor closed fails its next command: that
    command is tried again on a new connection, and a socket joining its group after the
    restart is not closed (1011) for it."""
    layer = layer_on(redis_server.url())
    channel = await layer.new_channel()
    await layer.group_add("room", channel)  # its connection now idle in the pool
    await asyncio.to_thread(redis_server.stop)
    await asyncio.to_thread(redis_server.start)
    await layer.group_add("room", channel)
    await layer.group_send("room", {"type": "room.push", "n": 1})
    assert await layer.receive(channel) == {"type": "room.push", "n": 1}
    await layer.flush()


@pytest.mark.asyncio
async def test_a_group_send_that_skips_a_full_queue_is_logged(redis_server, caplog):  # noqa: F811
    """channels_redis logs a group send's full queues at INFO (the group and how many):
    the settings' LOGGING lets it out."""
    prefix = f"rollroom-test-{uuid.uuid4().hex}"
    behind, reading = (layer_on(redis_server.url(), prefix=prefix, capacity=1) for _ in "ab")
    late, fine = await behind.new_channel(), await reading.new_channel()
    await behind.group_add("room", late)
    await behind.group_add("room", fine)
    await behind.group_send("room", {"type": "room.push", "n": 1})
    assert await reading.receive(fine) == {"type": "room.push", "n": 1}
    caplog.clear()
    await reading.group_send("room", {"type": "room.push", "n": 2})  # late's queue is full
    [record] = [r for r in caplog.records if r.name == "channels_redis.core"]
    assert record.getMessage() == "1 of 2 channels over capacity in group room"
    assert await reading.receive(fine) == {"type": "room.push", "n": 2}
    assert await behind.receive(late) == {"type": "room.push", "n": 1}


@pytest.mark.asyncio
async def test_a_socket_that_stops_reading_loses_its_oldest_push(redis_server):  # noqa: F811
    """The process keeps each socket's pushes in a buffer of ``capacity``, which drops its
    oldest to take one more (channels_redis#212): the socket reads the gap from the log."""
    layer = layer_on(redis_server.url(), capacity=1)
    reader, stalled = [await layer.new_channel() for _ in range(2)]
    for channel in (reader, stalled):
        await layer.group_add("room", channel)
    await layer.group_send("room", {"type": "room.push", "n": 1})
    assert await layer.receive(reader) == {"type": "room.push", "n": 1}  # and buffers stalled's
    await layer.group_send("room", {"type": "room.push", "n": 2})
    assert await layer.receive(reader) == {"type": "room.push", "n": 2}
    assert await layer.receive(stalled) == {"type": "room.push", "n": 2}
    await layer.flush()


@pytest.mark.asyncio
async def test_a_group_send_reaches_every_member_on_every_process(redis_server):  # noqa: F811
    prefix = f"rollroom-test-{uuid.uuid4().hex}"
    first, second = (layer_on(redis_server.url(), prefix=prefix) for _ in "ab")
    channels = [await first.new_channel() for _ in range(2)] + [await second.new_channel()]
    for channel in channels:
        await first.group_add("room", channel)
    message = {"type": "room.push", "html": "<p>é</p>", "n": [1, {"2": 3}]}
    await first.group_send("room", message)
    assert await first.receive(channels[0]) == message
    assert await first.receive(channels[1]) == message
    assert await second.receive(channels[2]) == message
    await first.flush()


@pytest.mark.asyncio
async def test_a_receive_cut_short_loses_nothing(redis_server):  # noqa: F811
    layer = layer_on(redis_server.url())
    channel = await layer.new_channel()
    await layer.group_add("room", channel)
    waiting = asyncio.ensure_future(layer.receive(channel))
    await blocked_in_redis(redis_server)  # in its blocking pop
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await layer.group_send("room", {"type": "room.push", "n": 1})
    assert await layer.receive(channel) == {"type": "room.push", "n": 1}
    await layer.flush()


#: How long a cancelled receive may take to end (a swallowed cancellation waits for a message).
CANCEL_TIMEOUT = 10


@pytest.mark.asyncio
@pytest.mark.parametrize("turns", range(12))
async def test_a_receive_cancelled_as_it_takes_over_the_blocking_pop_ends_at_once(
    redis_server,  # noqa: F811
    turns,
):
    """A process's sockets share one blocking pop: when the socket holding it leaves, the next
    takes it over, and may leave too at any moment of that. Its receive ends when cancelled,
    whatever the moment (``turns`` of the event loop after the first left). With a timeout on
    the layer's replies, redis-py's wait_for around the pop's write swallowed a cancellation
    that came as the write completed (Python 3.11), and the receive went on popping, here
    until the end of the test (config/settings.py)."""
    layer = layer_on(redis_server.url())
    layer.brpop_timeout = 60  # an empty pop would hide a swallowed cancellation for longer
    receives = [asyncio.ensure_future(layer.receive(await layer.new_channel())) for _ in range(3)]
    await blocked_in_redis(redis_server)
    for receive in receives:
        receive.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(receive), CANCEL_TIMEOUT)
        for _ in range(turns):
            await asyncio.sleep(0)
    channel = await layer.new_channel()
    await layer.send(channel, {"type": "room.push", "n": 1})
    assert await layer.receive(channel) == {"type": "room.push", "n": 1}
    await layer.flush()


@pytest.mark.parametrize("turns", range(12))
def test_an_event_loop_closing_with_a_socket_just_gone_closes_at_once(
    redis_server,  # noqa: F811
    turns,
):
    """A socket that leaves as its receive's pop starts (``turns`` of the event loop later:
    connecting, sending, or blocked in Redis), then the event loop ends (``asyncio.run``, each
    test's own loop): it closes at once, not after a swallowed cancellation's pop."""
    layer = layer_on(redis_server.url())
    layer.brpop_timeout = 60

    async def a_socket_comes_and_goes():
        receive = asyncio.ensure_future(layer.receive(await layer.new_channel()))
        for _ in range(turns):
            await asyncio.sleep(0)
        receive.cancel()
        with pytest.raises(asyncio.CancelledError):
            await receive

    closed = threading.Event()

    def run():
        asyncio.run(a_socket_comes_and_goes())
        closed.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert closed.wait(CANCEL_TIMEOUT), "the loop waited for the pop's reply"
    thread.join(CANCEL_TIMEOUT)


def test_a_sqlite_database_url_gets_the_same_settings_as_the_sqlite_file():
    expr = "s.DATABASES"
    test_path = {"SQLITE_TEST_PATH": "/tmp/rollroom-settings-test.sqlite3"}
    by_path = settings_read(
        {**test_path, "SQLITE_PATH": "/tmp/rollroom-settings.sqlite3"}, expr
    ).stdout
    by_url = settings_read(
        {**test_path, "DATABASE_URL": "sqlite:////tmp/rollroom-settings.sqlite3"}, expr
    ).stdout
    assert by_url == by_path
    for setting in (
        "journal_mode=WAL",
        "busy_timeout=20000",
        "'IMMEDIATE'",
        "'CONN_MAX_AGE': 0",
    ):
        assert setting in by_url


def test_a_sqlite_database_urls_options_are_kept_over_the_defaults():
    out = settings_read(
        {"DATABASE_URL": "sqlite:////tmp/rollroom-settings.sqlite3?timeout=5"},
        "s.DATABASES['default']['OPTIONS']['timeout'], "
        "s.DATABASES['default']['OPTIONS']['transaction_mode']",
    ).stdout
    assert out.strip() == "5 IMMEDIATE"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1", True),
        ("true", True),
        ("Yes", True),
        (" ON ", True),
        ("0", False),
        ("FALSE", False),
        ("no", False),
        ("off", False),
        ("", "default"),
    ],
)
def test_boolean_variables_read_the_values_they_know(monkeypatch, value, expected):
    monkeypatch.setenv("ROLLROOM_TEST_FLAG", value)
    assert env_bool("ROLLROOM_TEST_FLAG", "default") == expected


@pytest.mark.parametrize("value", ["2", "maybe", "enabled", "y", "nope"])
def test_boolean_variables_refuse_values_they_do_not_know(monkeypatch, value):
    monkeypatch.setenv("ROLLROOM_TEST_FLAG", value)
    with pytest.raises(ImproperlyConfigured) as refused:
        env_bool("ROLLROOM_TEST_FLAG", True)
    message = str(refused.value)
    assert "ROLLROOM_TEST_FLAG" in message
    assert "1/0, true/false, yes/no, on/off" in message


@pytest.mark.parametrize("name", ["DJANGO_DEBUG", "DJANGO_SECURE"])
def test_the_settings_refuse_to_load_with_an_unknown_boolean(name):
    result = settings_read({name: "yes please"}, "s.DEBUG")
    assert result.returncode != 0
    assert f"ImproperlyConfigured: {name}='yes please'" in result.stderr


@pytest.mark.parametrize(
    ("env", "expr", "expected"),
    [
        (
            {"DATABASE_URL": "postgres://u@127.0.0.1:5432/test", "DATABASE_POOL_SIZE": "3"},
            "s.DATABASES['default']['OPTIONS']['pool']['max_size']",
            "3",
        ),
        (
            {"DATABASE_URL": "postgres://u@127.0.0.1:5432/test?sslmode=require"},
            "s.DATABASES['default']['OPTIONS']['sslmode']",
            "require",
        ),
        ({"SQLITE_PATH": "/tmp/a.sqlite3"}, "s.DATABASES['default']['NAME']", "/tmp/a.sqlite3"),
        (
            {"SQLITE_TEST_PATH": "/tmp/b.sqlite3"},
            "s.DATABASES['default']['TEST']['NAME']",
            "/tmp/b.sqlite3",
        ),
        ({"DJANGO_STATIC_ROOT": "/tmp/static"}, "s.STATIC_ROOT", "/tmp/static"),
        ({"DJANGO_LOG_LEVEL": "INFO"}, "s.LOGGING['root']['level']", "INFO"),
        (
            {"DJANGO_CSRF_TRUSTED_ORIGINS": "https://a.example, https://b.example"},
            "s.CSRF_TRUSTED_ORIGINS",
            "['https://a.example', 'https://b.example']",
        ),
        ({}, "(s.SENDS_MAIL, s.EMAIL_HOST)", "(False, '')"),
        (
            {"DJANGO_EMAIL_HOST": "smtp.example"},
            "(s.SENDS_MAIL, s.EMAIL_HOST, s.EMAIL_PORT, s.EMAIL_USE_TLS, s.EMAIL_USE_SSL)",
            "(True, 'smtp.example', 587, True, False)",
        ),
        (
            {"DJANGO_EMAIL_PORT": "465", "DJANGO_EMAIL_SECURITY": "SSL"},
            "(s.EMAIL_PORT, s.EMAIL_USE_TLS, s.EMAIL_USE_SSL)",
            "(465, False, True)",
        ),
        ({"DJANGO_EMAIL_SECURITY": "none"}, "(s.EMAIL_USE_TLS, s.EMAIL_USE_SSL)", "(False, False)"),
        (
            {"DJANGO_EMAIL_USER": "gm@example.org", "DJANGO_EMAIL_PASSWORD": "secret"},
            "(s.EMAIL_HOST_USER, s.EMAIL_HOST_PASSWORD, s.DEFAULT_FROM_EMAIL)",
            "('gm@example.org', 'secret', 'gm@example.org')",
        ),
        (
            {"DJANGO_EMAIL_USER": "gm", "DJANGO_EMAIL_FROM": "Rollroom <table@example.org>"},
            "s.DEFAULT_FROM_EMAIL",
            "Rollroom <table@example.org>",
        ),
    ],
)
def test_each_variable_sets_what_the_readme_says(env, expr, expected):
    assert settings_read(env, expr).stdout.strip() == expected


@pytest.mark.parametrize(
    "env, refusal",
    [
        ({"DJANGO_EMAIL_PORT": "smtp"}, "DJANGO_EMAIL_PORT: the SMTP server's port, a number."),
        ({"DJANGO_EMAIL_SECURITY": "tls"}, "DJANGO_EMAIL_SECURITY='tls': use starttls, ssl or"),
    ],
)
def test_the_settings_refuse_a_mail_setting_they_cannot_use(env, refusal):
    result = settings_read(env, "s.SENDS_MAIL")
    assert result.returncode != 0
    assert f"ImproperlyConfigured: {refusal}" in result.stderr


def variables_read_by_the_settings():
    """The names in every os.environ.get(...), os.environ[...], env_bool(...) and env_number(...) of
    config/settings.py."""
    tree = ast.parse((settings.BASE_DIR / "config" / "settings.py").read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            function = ast.unparse(node.func)
            if function in ("os.environ.get", "env_bool", "env_number"):
                names.add(node.args[0])
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ":
            names.add(node.slice)
    # env_bool reads the variable named by its parameter; any other computed name would escape.
    computed = {ast.unparse(name) for name in names if not isinstance(name, ast.Constant)}
    assert computed == {"name"}
    return {name.value for name in names if isinstance(name, ast.Constant)}


def variables_in_the_readme():
    readme = (settings.BASE_DIR / "README.md").read_text()
    section = readme.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([A-Z_]+)` \|", section, flags=re.MULTILINE))


def test_the_readme_documents_every_variable_the_settings_read():
    read = variables_read_by_the_settings()
    assert "DATABASE_POOL_SIZE" in read
    documented = variables_in_the_readme()
    assert read - documented == set(), "read by config/settings.py, not in the README's table"
    assert documented - read == set(), "in the README's table, not read by config/settings.py"


def production_exports():
    """The ``export`` lines of the README's production setup (its "Scale out" section)."""
    readme = (settings.BASE_DIR / "README.md").read_text()
    section = readme.split("## Scale out", 1)[1].split("\n## ", 1)[0]
    exports = [line.strip() for line in section.splitlines() if line.strip().startswith("export ")]
    assert any("DJANGO_SECURE=1" in line for line in exports)
    return exports


def deploy_check(*exports):
    """``manage.py check --deploy --fail-level WARNING`` after the shell lines ``exports``."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_", "REDIS_", "SQLITE_"))
    }
    # A line each, as typed: a line's comment ends with it.
    command = "\n".join(
        ["set -e", *exports, f"{sys.executable} manage.py check --deploy --fail-level WARNING"]
    )
    with tempfile.TemporaryDirectory() as keys:
        # The secret key the README keeps (.rollroom/secret_key), made here, not in the checkout.
        clean["DJANGO_SECRET_KEY_FILE"] = os.path.join(keys, "secret_key")
        return subprocess.run(
            ["bash", "-c", command],
            env=clean,
            capture_output=True,
            text=True,
            cwd=settings.BASE_DIR,
        )


def test_the_deploy_check_passes_with_the_readmes_production_settings():
    result = deploy_check(*production_exports())
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_the_deploy_check_passes_when_the_proxy_sends_hsts():
    result = deploy_check(*production_exports(), "export DJANGO_HSTS_SECONDS=0")
    assert result.returncode == 0, result.stderr


def test_the_deploy_check_names_a_forgotten_djangos_secure():
    result = deploy_check(*production_exports(), "export DJANGO_SECURE=0")
    assert result.returncode != 0
    for check in ("W004", "W008", "W012", "W016"):  # HSTS, redirect, both cookies
        assert f"security.{check}" in result.stderr


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"DJANGO_SECURE": "1"}, "31536000 True False"),
        ({"DJANGO_SECURE": "1", "DJANGO_HSTS_SECONDS": "600"}, "600 True False"),
        ({"DJANGO_SECURE": "1", "DJANGO_HSTS_SECONDS": "0"}, "0 True False"),
        ({}, "0 True False"),  # plain HTTP: no HSTS (browsers ignore it there anyway)
    ],
)
def test_hsts_goes_with_https(env, expected):
    expr = "s.SECURE_HSTS_SECONDS, s.SECURE_HSTS_INCLUDE_SUBDOMAINS, s.SECURE_HSTS_PRELOAD"
    assert settings_read(env, expr).stdout.strip() == expected


def test_hsts_seconds_must_be_a_number():
    result = settings_read({"DJANGO_HSTS_SECONDS": "a year"}, "s.SECURE_HSTS_SECONDS")
    assert result.returncode != 0
    assert "DJANGO_HSTS_SECONDS: a number of seconds" in result.stderr


# The addresses in links (campaigns/links.py) -----------------------------------------------------
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("", ""),
        ("https://table.example", "https://table.example"),
        ("HTTPS://table.example/", "https://table.example"),
        ("http://203.0.113.7:8000", "http://203.0.113.7:8000"),
        ("https://[2001:db8::7]:8443/", "https://[2001:db8::7]:8443"),
    ],
)
def test_the_public_url_is_read_without_its_slash(value, expected):
    read = settings_read({"ROLLROOM_PUBLIC_URL": value}, "s.ROLLROOM_PUBLIC_URL")
    assert read.returncode == 0, read.stderr
    assert read.stdout.strip() == expected


@pytest.mark.parametrize(
    "value",
    [
        "table.example",  # no scheme
        "ftp://table.example",
        "https://",
        "https://table.example/rollroom",  # a path: links would lose it
        "https://table.example/?x=1",
        "https://table.example#top",
        "https://gm:secret@table.example",
        "https://table.example:port",
        "https://table.example:99999",
    ],
)
def test_the_settings_refuse_a_public_url_that_is_not_an_address(value):
    result = settings_read({"ROLLROOM_PUBLIC_URL": value}, "s.ROLLROOM_PUBLIC_URL")
    assert result.returncode != 0
    assert f"ImproperlyConfigured: ROLLROOM_PUBLIC_URL={value!r}: the address players" in (
        result.stderr
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("", "None"),
        ("0.0.0.0:8000", "('0.0.0.0', 8000)"),
        ("[::]:8723", "('::', 8723)"),
        ("127.0.0.1:9000", "('127.0.0.1', 9000)"),
    ],
)
def test_the_listen_address_is_read(value, expected):
    assert settings_read({"ROLLROOM_LISTEN": value}, "s.ROLLROOM_LISTEN").stdout.strip() == expected


@pytest.mark.parametrize("value", ["8000", "0.0.0.0", "0.0.0.0:http", ":8000", "[::]:0"])
def test_the_settings_refuse_a_listen_address_without_a_port(value):
    result = settings_read({"ROLLROOM_LISTEN": value}, "s.ROLLROOM_LISTEN")
    assert result.returncode != 0
    assert f"ImproperlyConfigured: ROLLROOM_LISTEN={value!r}: the address:port" in result.stderr


# The client's address behind a proxy (core/throttle.py) ----------------------------------------
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("", "()"),
        ("127.0.0.1,::1", "('127.0.0.1/32', '::1/128')"),
        (" 10.0.0.0/8 , 192.168.1.7/24", "('10.0.0.0/8', '192.168.1.0/24')"),
    ],
)
def test_the_trusted_proxies_are_read(value, expected):
    read = settings_read(
        {"DJANGO_TRUSTED_PROXIES": value}, "tuple(str(n) for n in s.TRUSTED_PROXIES)"
    )
    assert read.stdout.strip() == expected, read.stderr


@pytest.mark.parametrize("value", ["localhost", "127.0.0.1:2019", "10.0.0.0/33", "caddy,::1"])
def test_the_settings_refuse_a_trusted_proxy_that_is_not_an_address(value):
    result = settings_read({"DJANGO_TRUSTED_PROXIES": value}, "s.TRUSTED_PROXIES")
    assert result.returncode != 0
    assert f"ImproperlyConfigured: DJANGO_TRUSTED_PROXIES={value!r}: comma-separated" in (
        result.stderr
    )


# Content-Security-Policy ------------------------------------------------------------------------
def test_every_page_carries_the_policy(client, db):
    from django.urls import reverse

    policy = client.get(reverse("login"))["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    for name in ("default-src", "script-src", "style-src", "connect-src"):
        assert directives[name] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert "unsafe" not in policy


#: What the policy refuses in a template: an inline event handler, an inline script, a style
#: attribute or element, htmx's evaluated attributes, a javascript: link.
INLINE = re.compile(
    r"""\son[a-z]+\s*=|<script(?![^>]*\ssrc=)[^>]*>|\sstyle\s*=|<style|hx-on|hx-vals=["']js:"""
    r"|javascript:",
    re.IGNORECASE,
)


def templates():
    """Every template of the project: the site's (``templates/``) and its apps' (a rule
    system's, in its package)."""
    for path in sorted(settings.BASE_DIR.rglob("templates/**/*.html")):
        if ".venv" not in path.relative_to(settings.BASE_DIR).parts:
            yield path


def test_no_template_holds_what_the_policy_refuses():
    found = []
    for path in templates():
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if INLINE.search(line):
                found.append(f"{path.relative_to(settings.BASE_DIR)}:{number}: {line.strip()}")
    assert found == []


# Compression -----------------------------------------------------------------------------------

CSRF_INPUT = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


@pytest.fixture
def room(pool_table, player, as_user):
    """The player's client and the URL of a room with characters (as the rolls tests set it)."""
    return as_user(player), reverse("room", args=[pool_table.campaign.id])


def test_gzip_comes_first_in_the_middleware():
    assert settings.MIDDLEWARE[0] == "django.middleware.gzip.GZipMiddleware"


def test_the_room_page_is_gzipped_when_asked_and_under_5_kb(room):
    client, url = room
    response = client.get(url, headers={"accept-encoding": "gzip, deflate, br"})
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in response["Vary"]
    assert len(response.content) < 5 * 1024
    assert b'id="log"' in gzip.decompress(response.content)


def test_the_room_page_is_not_compressed_unasked(room):
    client, url = room
    response = client.get(url)
    assert response.status_code == 200
    assert not response.has_header("Content-Encoding")
    assert b'id="log"' in response.content


def test_the_csrf_token_differs_between_two_compressed_pages(room):
    client, url = room
    tokens = []
    for _ in range(2):
        html = gzip.decompress(client.get(url, headers={"accept-encoding": "gzip"}).content)
        tokens.append(CSRF_INPUT.search(html.decode()).group(1))
    assert tokens[0] != tokens[1]
