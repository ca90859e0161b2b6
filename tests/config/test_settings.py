import ast
import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.utils.module_loading import import_string


def settings_in_subprocess(env, expr):
    """Evaluate ``expr`` against config.settings imported fresh with ``env``."""
    code = f"import config.settings as s; print({expr})"
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_", "REDIS_"))
    }
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={**clean, **env},
        capture_output=True,
        text=True,
        cwd=settings.BASE_DIR,
    )
    return result


def test_defaults_are_sqlite_and_in_memory_layer():
    out = settings_in_subprocess(
        {}, "s.DATABASES['default']['ENGINE'], s.CHANNEL_LAYERS['default']['BACKEND'], s.DEBUG"
    ).stdout
    assert "sqlite3" in out
    assert "rolls.layers.RoomChannelLayer" in out
    assert "True" in out


def test_sqlite_uses_wal_and_immediate():
    out = settings_in_subprocess({}, "s.DATABASES['default']['OPTIONS']").stdout
    assert "IMMEDIATE" in out
    assert "journal_mode=WAL" in out


def test_environment_selects_postgres_and_redis():
    out = settings_in_subprocess(
        {
            "DATABASE_URL": "postgres://u@127.0.0.1:5432/test",
            "REDIS_URL": "redis://127.0.0.1:6379/0",
        },
        "s.DATABASES['default']['ENGINE'], s.CHANNEL_LAYERS['default']['BACKEND']",
    ).stdout
    assert "postgresql" in out
    assert "rolls.redis_layer.RoomRedisChannelLayer" in out


def test_production_needs_a_secret_key():
    result = settings_in_subprocess({"DJANGO_DEBUG": "0"}, "s.DEBUG")
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr


def test_production_settings_are_hardened_and_hosts_read():
    out = settings_in_subprocess(
        {
            "DJANGO_DEBUG": "0",
            "DJANGO_SECRET_KEY": "x" * 50,
            "DJANGO_ALLOWED_HOSTS": "roll.example",
        },
        "s.DEBUG, s.SECURE_SSL_REDIRECT, s.SESSION_COOKIE_SECURE, s.ALLOWED_HOSTS",
    ).stdout
    assert out.strip() == "False True True ['roll.example']"


def test_daphne_is_first_app():
    assert settings.INSTALLED_APPS[0] == "daphne"


def test_asgi_application_routes_http_and_websocket():
    from config.asgi import application

    assert set(application.application_mapping) == {"http", "websocket"}


def test_postgres_uses_a_connection_pool():
    out = settings_in_subprocess(
        {"DATABASE_URL": "postgres://u@127.0.0.1:5432/test"},
        "s.DATABASES['default']['CONN_MAX_AGE'], s.DATABASES['default']['OPTIONS']['pool']",
    ).stdout
    assert out.startswith("0 {'min_size': 2")


def test_sessions_are_cached_only_in_a_single_process_setup():
    local = settings_in_subprocess({}, "s.SESSION_ENGINE, s.CACHES['default']['BACKEND']").stdout
    assert "cached_db" in local and "LocMemCache" in local
    shared = settings_in_subprocess(
        {"REDIS_URL": "redis://127.0.0.1:6379/0"}, "s.SESSION_ENGINE"
    ).stdout
    assert shared.strip() == "django.contrib.sessions.backends.db"


def test_requests_share_one_thread_and_its_connection_only_on_sqlite():
    local = settings_in_subprocess(
        {}, "s.REQUESTS_IN_ONE_THREAD, s.DATABASES['default']['CONN_MAX_AGE']"
    ).stdout
    assert local.strip() == "True None"
    shared = settings_in_subprocess(
        {"DATABASE_URL": "postgres://u@127.0.0.1:5432/test"}, "s.REQUESTS_IN_ONE_THREAD"
    ).stdout
    assert shared.strip() == "False"


@pytest.mark.parametrize("env", [{}, {"REDIS_URL": "redis://127.0.0.1:6379/0"}])
def test_a_socket_behind_in_a_burst_keeps_a_thousand_pushes(env):
    out = settings_in_subprocess(env, "s.CHANNEL_LAYERS['default']['CONFIG']['capacity']").stdout
    assert out.strip() == "1000"


def test_redis_reads_wait_well_past_the_channel_layers_blocking_pop():
    """A read that gives up before Redis answers the layer's blocking pop (empty, after
    brpop_timeout) kills a consumer of a quiet process: the connections the layer makes must
    wait longer, with seconds to spare."""
    out = settings_in_subprocess(
        {"REDIS_URL": "redis://127.0.0.1:6379/0"}, "s.CHANNEL_LAYERS['default']"
    ).stdout
    config = ast.literal_eval(out)
    layer = import_string(config["BACKEND"])(**config["CONFIG"])
    connection = layer.create_pool(0).make_connection()  # made, not connected
    assert connection.socket_timeout >= layer.brpop_timeout + 5
