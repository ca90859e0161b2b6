import ast
import contextlib
import gzip
import io
import os
import re
import runpy
import subprocess
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.urls import reverse
from django.utils.module_loading import import_string

from config.settings import env_bool

SETTINGS_FILE = Path(settings.BASE_DIR) / "config" / "settings.py"


@dataclass
class Read:
    """What reading the settings printed, as a process would have: its output, the traceback
    of what it raised, and 0 or 1."""

    stdout: str
    stderr: str
    returncode: int


def settings_read(env, expr):
    """Print ``expr`` against config/settings.py read afresh with the environment ``env`` (the
    test's own without Django's, the databases' and Redis's variables, plus ``env``), in this
    process: the module is run again, as a new process would import it, and the environment
    restored after (the settings are a module that reads its environment and nothing else)."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_", "REDIS_", "SQLITE_"))
    }
    saved = dict(os.environ)
    out, err = io.StringIO(), ""
    try:
        os.environ.clear()
        os.environ.update({**clean, **env})
        s = SimpleNamespace(**runpy.run_path(str(SETTINGS_FILE), run_name="config.settings"))
        with contextlib.redirect_stdout(out):
            exec(f"print({expr})", {"s": s})
    except Exception:
        err = traceback.format_exc()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return Read(out.getvalue(), err, 1 if err else 0)


def test_defaults_are_sqlite_and_in_memory_layer():
    out = settings_read(
        {}, "s.DATABASES['default']['ENGINE'], s.CHANNEL_LAYERS['default']['BACKEND']"
    ).stdout
    assert "sqlite3" in out
    assert "core.layers.RoomChannelLayer" in out


def test_debug_is_off_unless_asked_for():
    assert settings_read({}, "s.DEBUG").stdout.strip() == "False"
    assert settings_read({"DJANGO_DEBUG": "1"}, "s.DEBUG").stdout.strip() == "True"


def test_sqlite_uses_wal_and_immediate():
    out = settings_read({}, "s.DATABASES['default']['OPTIONS']").stdout
    assert "IMMEDIATE" in out
    assert "journal_mode=WAL" in out


def test_environment_selects_postgres_and_redis():
    out = settings_read(
        {
            "DATABASE_URL": "postgres://u@127.0.0.1:5432/test",
            "REDIS_URL": "redis://127.0.0.1:6379/0",
        },
        "s.DATABASES['default']['ENGINE'], s.CHANNEL_LAYERS['default']['BACKEND']",
    ).stdout
    assert "postgresql" in out
    assert "core.redis_layer.RoomRedisChannelLayer" in out


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

    assert set(application.application_mapping) == {"http", "websocket"}


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


def test_requests_share_one_thread_and_its_connection_only_on_sqlite():
    local = settings_read(
        {}, "s.REQUESTS_IN_ONE_THREAD, s.DATABASES['default']['CONN_MAX_AGE']"
    ).stdout
    assert local.strip() == "True None"
    shared = settings_read(
        {"DATABASE_URL": "postgres://u@127.0.0.1:5432/test"}, "s.REQUESTS_IN_ONE_THREAD"
    ).stdout
    assert shared.strip() == "False"


@pytest.mark.parametrize("env", [{}, {"REDIS_URL": "redis://127.0.0.1:6379/0"}])
def test_a_socket_behind_in_a_burst_keeps_a_thousand_pushes(env):
    out = settings_read(env, "s.CHANNEL_LAYERS['default']['CONFIG']['capacity']").stdout
    assert out.strip() == "1000"


def test_redis_reads_wait_well_past_the_channel_layers_blocking_pop():
    """A read that gives up before Redis answers the layer's blocking pop (empty, after
    brpop_timeout) kills a consumer of a quiet process: the connections the layer makes must
    wait longer, with seconds to spare."""
    out = settings_read(
        {"REDIS_URL": "redis://127.0.0.1:6379/0"}, "s.CHANNEL_LAYERS['default']"
    ).stdout
    config = ast.literal_eval(out)
    layer = import_string(config["BACKEND"])(**config["CONFIG"])
    connection = layer.create_pool(0).make_connection()  # made, not connected
    assert connection.socket_timeout >= layer.brpop_timeout + 5


def test_a_sqlite_database_url_gets_the_same_settings_as_the_sqlite_file():
    expr = "s.DATABASES, s.REQUESTS_IN_ONE_THREAD"
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
        "'CONN_MAX_AGE': None",
    ):
        assert setting in by_url
    assert by_url.strip().endswith("True")


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
            {"DATABASE_URL": "postgres://u@127.0.0.1:5432/test", "DATABASE_POOL_SIZE": "3"},
            "(s.REQUESTS_IN_ONE_THREAD, s.REQUEST_THREADS_KEPT)",
            "(False, 3)",
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
    """The names in every os.environ.get(...), os.environ[...] and env_bool(...) of
    config/settings.py."""
    tree = ast.parse((settings.BASE_DIR / "config" / "settings.py").read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            function = ast.unparse(node.func)
            if function in ("os.environ.get", "env_bool"):
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
    command = " && ".join(
        [*exports, f"{sys.executable} manage.py check --deploy --fail-level WARNING"]
    )
    return subprocess.run(
        ["bash", "-c", command], env=clean, capture_output=True, text=True, cwd=settings.BASE_DIR
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
