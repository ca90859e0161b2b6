"""Rollroom settings: one file, read from the environment.

With nothing set it runs on a SQLite file beside manage.py and the in-memory channel layer,
with DEBUG off and a secret key generated on first run (in .rollroom/, which git ignores);
DJANGO_DEBUG=1 turns DEBUG on for development. Production sets DJANGO_SECRET_KEY,
DJANGO_ALLOWED_HOSTS and, to scale out, DATABASE_URL (PostgreSQL) and REDIS_URL
(channels_redis). Every variable read here is in the README's configuration table.
"""

import ipaddress
import os
import secrets
import tempfile
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name, default):
    """The boolean environment variable ``name``: 1/0, true/false, yes/no or on/off, in any
    case; ``default`` when unset or empty. Any other value is refused, so that a typo cannot
    turn DEBUG or the HTTPS hardening the wrong way."""
    pairs = (("1", "0"), ("true", "false"), ("yes", "no"), ("on", "off"))
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    for true, false in pairs:
        if value in (true, false):
            return value == true
    accepted = ", ".join("/".join(pair) for pair in pairs)
    raise ImproperlyConfigured(f"{name}={os.environ[name]!r}: use one of {accepted}.")


# --- Safe by default: DEBUG only when asked for, a secret key of this installation. ---
DEBUG = env_bool("DJANGO_DEBUG", False)


def secret_key_from_file(path):
    """The secret key kept in the file ``path``, made on first use: 50 random URL-safe
    characters, readable by this user only (0600), outside the files git tracks. The file is
    written whole before it takes its name, so processes starting together read one key."""
    path = Path(path)
    if not path.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        descriptor, draft = tempfile.mkstemp(dir=path.parent, prefix=".secret_key-")  # 0600
        try:
            with os.fdopen(descriptor, "w") as file:
                file.write(secrets.token_urlsafe(50) + "\n")
                file.flush()
                os.fsync(file.fileno())
            os.link(draft, path)  # fails if another process made it first: theirs is kept
        except FileExistsError:
            pass
        finally:
            os.unlink(draft)
    key = path.read_text().strip()
    if not key:
        raise ImproperlyConfigured(f"The secret key file {path} is empty: delete it to get one.")
    return key


SECRET_KEY_FILE = os.environ.get("DJANGO_SECRET_KEY_FILE") or BASE_DIR / ".rollroom" / "secret_key"
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or secret_key_from_file(SECRET_KEY_FILE)
# The key that signs the roll log (rolls/chain.py); empty: one derived from SECRET_KEY.
ROLLROOM_LOG_KEY = os.environ.get("ROLLROOM_LOG_KEY", "")
# --- end of safe by default ---


# --- Backups (backups/: `manage.py backup` and `restore`) ---------------------------------------
def env_number(name, default, kind=int, least=0):
    """The number in the environment variable ``name`` (``kind``: int or float), at least
    ``least``; ``default`` when unset or empty. Anything else is refused at start-up."""
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        number = kind(value)
    except ValueError:
        number = None
    if number is None or not number >= least or number == float("inf"):
        raise ImproperlyConfigured(f"{name}={value!r}: a number, at least {least}.")
    return number


# Where `manage.py backup` (without --to) and `host` put the backups: beside the secret key file
# (.rollroom/backups/), readable by their owner only. `restore --replace` backs up there too.
BACKUP_DIR = Path(os.environ.get("ROLLROOM_BACKUP_DIR") or Path(SECRET_KEY_FILE).parent / "backups")
# How many backups a folder keeps: the oldest beyond this many are deleted after each new one.
BACKUP_KEEP = env_number("ROLLROOM_BACKUP_KEEP", 10, least=1)
# `manage.py host` takes a backup as it starts and then every BACKUP_HOURS while it serves;
# 0 turns both off (e.g. when cron or a systemd timer runs `manage.py backup`).
BACKUP_HOURS = env_number("ROLLROOM_BACKUP_HOURS", 24.0, kind=float)
# --- end of backups ------------------------------------------------------------------------------
ALLOWED_HOSTS = [
    h.strip()
    for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]").split(",")
    if h.strip()
]
CSRF_TRUSTED_ORIGINS = [
    o.strip() for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()
]


# --- The addresses in links (campaigns/links.py) -------------------------------------------------
def public_url(value):
    """ROLLROOM_PUBLIC_URL's ``value`` as links begin with it (``https://table.example``, no
    slash at the end), or "" when unset. Anything but an http(s) address without a path, query
    or fragment is refused: a link made from it would lead nowhere."""
    value = value.strip()
    if not value:
        return ""
    parts = urlsplit(value)
    try:
        parts.port  # noqa: B018 (a port that is not a number raises)
        sound = (
            parts.scheme.lower() in ("http", "https")
            and parts.hostname
            and parts.username is None
            and parts.path in ("", "/")
            and not parts.query
            and not parts.fragment
            and "?" not in value
            and "#" not in value
        )
    except ValueError:
        sound = False
    if not sound:
        raise ImproperlyConfigured(
            f"ROLLROOM_PUBLIC_URL={value!r}: the address players open, as http(s)://NAME[:PORT] "
            "without a path, e.g. https://table.example or http://192.168.1.23:8000."
        )
    return f"{parts.scheme.lower()}://{parts.netloc}"


def listen_address(value):
    """ROLLROOM_LISTEN's ``value`` (``ADDRESS:PORT``, e.g. ``0.0.0.0:8000`` or ``[::]:8000``)
    as (address, port), or None when unset."""
    value = value.strip()
    if not value:
        return None
    address, _, port = value.rpartition(":")
    address = address.strip("[]")
    if not address or not port.isdigit() or not 0 < int(port) < 65536:
        raise ImproperlyConfigured(
            f"ROLLROOM_LISTEN={value!r}: the address:port the server listens on, e.g. "
            "0.0.0.0:8000 (`manage.py host` sets it for daphne)."
        )
    return address, int(port)


# Links made for players (the GM panel's invite link, password reset links) begin with
# ROLLROOM_PUBLIC_URL when set (a proxy's name, a forwarded port), else with the address the
# visitor reached the site by.
ROLLROOM_PUBLIC_URL = public_url(os.environ.get("ROLLROOM_PUBLIC_URL", ""))
# What the server listens on, as `manage.py host` tells the daphne it starts: without it the
# GM panel cannot tell a GM on 127.0.0.1 which address their players should use instead.
ROLLROOM_LISTEN = listen_address(os.environ.get("ROLLROOM_LISTEN", ""))
# --- end of the addresses in links ---------------------------------------------------------------


# --- The client's address behind a proxy (core/throttle.py client_address) ----------------------
def trusted_proxies(value):
    """DJANGO_TRUSTED_PROXIES's ``value``: comma-separated addresses or networks (``127.0.0.1``,
    ``::1``, ``10.0.0.0/8``), as a tuple of networks; empty when unset."""
    networks = []
    for part in value.split(","):
        if part.strip():
            try:
                networks.append(ipaddress.ip_network(part.strip(), strict=False))
            except ValueError:
                raise ImproperlyConfigured(
                    f"DJANGO_TRUSTED_PROXIES={value!r}: comma-separated addresses or networks of "
                    "the proxies in front, e.g. 127.0.0.1,::1 for Caddy on this machine."
                ) from None
    return tuple(networks)


# The proxies whose X-Forwarded-For is believed. A request whose connection comes from one of
# them is counted (the write and preview limits of visitors not logged in, the login lock) by the
# right-most address of that header not itself a trusted proxy: without it every visitor behind
# the proxy has the proxy's address and shares one count and one lock. Unset: the connection's
# address always, as when visitors reach daphne directly (`host`), where the header is the
# visitor's own to forge.
TRUSTED_PROXIES = trusted_proxies(os.environ.get("DJANGO_TRUSTED_PROXIES", ""))
# --- end of the client's address behind a proxy --------------------------------------------------

# The rule systems a campaign may play: each a package with its SYSTEM (rolls/systems/base.py),
# registered by rolls at its ready(), and a Django app of its own (its models, e.g. Mana's:
# named once here, they join INSTALLED_APPS after rolls).
ROLL_SYSTEMS = ["rolls.systems.mana", "rolls.systems.pool"]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.forms",  # the widgets' templates, for FORM_RENDERER
    "channels",
    "django_htmx",
    "core",
    "campaigns",
    "sheets",
    "rolls",
    *ROLL_SYSTEMS,
    "sparetime",  # the Pool system's progression, above rolls: Pool's pages need it
    "scene",  # maps, tokens, initiative, handouts: above the room, whose sockets push them
    "room",
    "insights",
    "backups",  # its commands: backup, restore
    "bench",  # its commands: bench_rolls, seed_demo
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

# --- Compression of pages (gzip) --------------------------------------------------------------
# Text responses of at least 200 bytes are gzipped for a client that accepts it (the room page:
# about 28 KB, 3-4 KB gzipped), on the embedded default as behind a proxy; WhiteNoise serves
# static files already compressed, and websocket frames are not touched. First in the list, so
# that it compresses the response every other middleware has finished writing.
#
# Compression next to secrets invites BREACH: an attacker who can put chosen text into a
# page and watch the length of its encrypted responses guesses a secret in it byte by byte.
# - Protected: the CSRF token. Django masks it with a new random value in every response, so
#   no two responses carry the same bytes for it; and Django adds 0-99 random bytes to each
#   gzip header, which blurs every length measured.
# - Not protected by masking: the rest of a page: a private or secret roll's result, a note, a
#   character sheet, shown to the member entitled to it. Guessing it takes many requests that
#   carry the member's session cookie, from a page of the attacker's, while watching the
#   network. The session cookie is SameSite=Lax (Django's default): cross-site subrequests
#   (images, scripts, fetch) go without it, only top-level navigations carry it; that slows
#   such an attack but does not rule it out (some pages echo their query string, e.g. the odds
#   calculator). The random gzip header bytes are then the only defence. A site that must rule
#   it out serves its pages uncompressed: drop the line below.
MIDDLEWARE.insert(0, "django.middleware.gzip.GZipMiddleware")
# --- end of compression -----------------------------------------------------------------------

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = None
# The largest websocket frame and message (bytes) daphne reads from a client; the room's socket
# only listens (its consumer refuses a frame over room.consumers.MAX_CLIENT_FRAME). Over it,
# daphne (autobahn) fails the connection as soon as the frame's header gives its length, before
# reading it into memory; without these, daphne's default (1 MiB since 4.2.2, CVE-2026-44545)
# lets a client make a socket hold that much. Daphne's runserver reads these settings by these
# names (4.2.3, django/daphne#580); `manage.py host` gives them to daphne's command line
# (rolls/management/commands/host.py, daphne_limits), the tests' live servers to daphne's
# Server (tests/browser.py); a daphne started by hand needs `--websocket-max-message-size 65536
# --websocket-max-frame-size 65536`. The client then gets no close frame (1006, not 1009):
# daphne has no option for autobahn's failByDrop, which drops the connection instead.
DAPHNE_WEBSOCKET_MAX_MESSAGE_SIZE = 64 * 1024
DAPHNE_WEBSOCKET_MAX_FRAME_SIZE = 64 * 1024
# How many websockets one process may have connecting at once (their handshake received, not yet
# accepted); past it a new one is asked at once to try again later (config/admission.py), its
# page waiting 1 s and more. Too high, and the sockets admitted wait past daphne's 5 s handshake
# timeout, which refuses them after their connect has cost its work; too low, and pages are sent
# away while the process could take them. 0: no limit. docs/scaling.md, "Admission".
SOCKETS_CONNECTING = env_number("ROLLROOM_SOCKETS_CONNECTING", 150)

# Seconds between daphne's pings of an open socket (its --ping-interval, given as the limits
# above are; a daphne started by hand needs `--ping-interval 45`). At daphne's default, 20, a
# process holding thousands of idle sockets spends a third of its idle CPU sending pings and
# reading pongs (bench/README.md, "What closed the sockets"). A socket whose pong has not come
# 30 s after a ping (daphne's --ping-timeout) is dropped: a page gone without a word (a laptop
# shut) leaves the room's presence list within 75 s instead of 50. Longer than that timeout:
# autobahn keeps one pong timer per socket, and a ping sent while the last one's timer ran
# would leave that timer to drop a socket whose pong was only late. Shorter than a minute: a
# proxy that closes a connection quiet for 60 s (nginx's and many load balancers' default)
# would otherwise cut a quiet room's socket before its ping. (Measured at 60: 45 costs a third
# more pings, about 1 % of a core at 10,000 sockets.)
DAPHNE_PING_INTERVAL = 45

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
            # |bdi and |isolate, for every user-typed string shown (core/templatetags/text.py).
            "builtins": ["core.templatetags.text"],
        },
    },
]

# Every form in the site's own look: templates/forms/ (config/forms.py).
FORM_RENDERER = "config.forms.SiteFormRenderer"


def sqlite_database(name, options=None):
    """SQLite at path ``name`` as Rollroom runs it, whether named by SQLITE_PATH or by a
    ``sqlite://`` DATABASE_URL (whose query ``options`` are kept, over these)."""
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": name,
        # Every request runs in a thread of its own (Django's ASGI handler) and closes its
        # connection when it finishes (Django's default CONN_MAX_AGE, 0, as its docs ask under
        # ASGI): a connection kept would stay open, unused, after its thread ended.
        "CONN_MAX_AGE": 0,
        "OPTIONS": {
            # Requests write side by side, each on its own connection. A write takes the lock
            # when its transaction starts and waits up to 20 s for it: a transaction that read
            # first and then wrote (SQLite's default, DEFERRED) would fail at once with
            # "database is locked" when another wrote in between, without waiting.
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
            # Readers and the writer do not block each other (WAL). A commit is on the disk
            # before the request is answered (synchronous=FULL: the log is synced at each
            # commit): with NORMAL, a commit survives a crash of the process but the last ones
            # may be undone by a power cut or a crash of the system, and a roll the table saw
            # would vanish, its number then taken by another roll (README "Configuration").
            "init_command": (
                "PRAGMA journal_mode=WAL;PRAGMA synchronous=FULL;PRAGMA busy_timeout=20000;"
            ),
            **(options or {}),
        },
        # A file, not memory, so that threads, websocket tests and servers share it; one per
        # test process, so that test runs side by side never share one.
        "TEST": {
            "NAME": os.environ.get("SQLITE_TEST_PATH")
            or str(Path(tempfile.gettempdir()) / f"rollroom-test-{os.getpid()}.sqlite3")
        },
    }


# Database: the SQLite file SQLITE_PATH unless DATABASE_URL names another.
DATABASE_POOL_SIZE = int(os.environ.get("DATABASE_POOL_SIZE", "10"))
#: PostgreSQL: seconds a request waits for a connection from the pool (all busy, or the database
#: unreachable) before it is answered 503; seconds a new connection may take to open; seconds
#: the pool keeps retrying a connection that failed before it waits for the next request.
DATABASE_WAIT = 3
DATABASE_CONNECT_TIMEOUT = 3
DATABASE_RECONNECT = 10
if os.environ.get("DATABASE_URL"):
    database = dj_database_url.parse(os.environ["DATABASE_URL"])
    if database["ENGINE"] == "django.db.backends.sqlite3":
        database = sqlite_database(database["NAME"], database.get("OPTIONS"))
    elif database["ENGINE"] == "django.db.backends.postgresql":
        # Requests run side by side, a thread each (Django's ASGI handler), and hand their
        # connection back to a pool as they finish: a connection is held only while a request
        # runs, however many threads the server has started.
        #
        # When PostgreSQL stops or restarts under a running server, the pool's connections are
        # cut: the pool checks each before handing it to a request (CONN_HEALTH_CHECKS: psycopg's
        # ConnectionPool.check_connection: an empty query's round trip per request, not an SQL
        # statement) and replaces a dead one, and Django hands a connection
        # that failed during a request back only to be discarded. Meanwhile every request is
        # answered 503 (config/views.py, server_error) once it has waited DATABASE_WAIT for a
        # connection, and a connection attempt gives up after DATABASE_CONNECT_TIMEOUT (a host
        # that does not answer at all). The pool keeps trying to reconnect, backing off, for
        # DATABASE_RECONNECT; then the next request starts it again: once PostgreSQL is back,
        # the pool reconnects by itself within seconds, without a restart of the server.
        database["CONN_HEALTH_CHECKS"] = True
        database["OPTIONS"] = {
            "connect_timeout": DATABASE_CONNECT_TIMEOUT,
            **database.get("OPTIONS", {}),
            "pool": {
                "min_size": 2,
                "max_size": DATABASE_POOL_SIZE,
                "timeout": DATABASE_WAIT,
                "reconnect_timeout": DATABASE_RECONNECT,
            },
        }
else:
    database = sqlite_database(os.environ.get("SQLITE_PATH") or str(BASE_DIR / "db.sqlite3"))
DATABASES = {"default": database}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Channel layer: Channels' in-memory one (one process) unless REDIS_URL is set, then
# channels_redis's, both as released. A socket that falls behind in a burst keeps up to
# CAPACITY pushes queued (Channels' default: 100); beyond, a push is dropped for it and the
# socket reads the gap from the log on its next push (room.consumers).
CHANNEL_CAPACITY = 1000
# The Redis the processes share, if any; a request's own use of it (the write limits, its
# pushes) fails open and backs off when Redis is away (core/shared_redis.py, core/push.py).
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    # channels_redis hands each host's keys to redis-py's connection pool
    # (channels_redis.utils.create_pool, 4.3.0 pinned in requirements.txt); a key in
    # REDIS_URL's query string overrides the one here. tests/config/test_settings.py checks
    # what the pool's connections get.
    REDIS_LAYER_HOST = {
        "address": REDIS_URL,
        # A failed command tried once more on a new connection: after Redis restarted, the
        # pool's idle connections are closed by the server it had, and without a retry the
        # first command of each (a socket's group_add, the receive loop's pop) failed and
        # closed its socket with 1011, once per connection left over (redis-py retries
        # nothing unless told; channels_redis#20).
        "retry": Retry(NoBackoff(), 1),
        # No timeout on a reply. With one, redis-py (8.1) wraps each write in
        # asyncio.wait_for, which in Python 3.11 swallows a cancellation that comes as the
        # write completes (python/cpython#86296, fixed in 3.12 by wait_for on
        # asyncio.timeout): a socket's receive cancelled as it took over the process's
        # blocking pop went on waiting in the pop until a message came for the process,
        # and its consumer (and an event loop closing) with it. Without a timeout a reply
        # is read as long as the connection lives: Redis answers the pop empty after
        # channels_redis's brpop_timeout (5 s), and redis-py's TCP keepalive (on by
        # default) ends a connection to a Redis host that is gone. A request's pushes wait
        # for Redis at most core.push.SEND_TIMEOUT.
        "socket_timeout": None,
        # A request's pushes give up quickly on a Redis that cannot be reached (the write
        # answers as usual, core/push.py); redis-py's default waits 5 s per attempt.
        "socket_connect_timeout": 1,
        # The process's connections to Redis at most (redis-py's default is 100, and one more
        # raises at once, "Too many connections"). channels_redis cleans each message it
        # received in a task of its own, and a burst of pushes on a busy process (sockets
        # joining by the thousand: each one's presence to its room) had over 100 of them
        # waiting, and the joining sockets' group_add failed with them. Redis takes 10,000
        # clients.
        "max_connections": 1000,
    }
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [REDIS_LAYER_HOST], "capacity": CHANNEL_CAPACITY},
        }
    }
else:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels.layers.InMemoryChannelLayer",
            "CONFIG": {"capacity": CHANNEL_CAPACITY},
        }
    }

# Sessions: one process (no REDIS_URL) reads them through its memory before the database, which
# costs a request no statement. Several processes keep them in the database alone: a request
# reads its session with one primary-key statement, and needs nothing but the database to log
# in, be recognised or log out, so that pages and writes go on while Redis is down. A cache
# in Redis would save that statement but could not fail open safely: a logout (or a removal
# of a session) whose cache delete failed while Redis was unreachable would leave the session
# alive in Redis for every process that reaches it, until it expires (docs/scaling.md).
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
SESSION_ENGINE = (
    "django.contrib.sessions.backends.db"
    if REDIS_URL
    else "django.contrib.sessions.backends.cached_db"
)

# What a password chosen in a form must be (sign-up, a reset, a change; each form states the rule):
# not like the username or email, 8 characters at least, not among the 20,000 most common
# passwords, not digits only. Without the last two, "password" and "12345678" passed, on a
# server that friends or the internet reach.
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# --- Mail: a password reset link, the only mail Rollroom sends -----------------------------------
# With DJANGO_EMAIL_HOST set, "Forgot your password?" mails a one-time link to the account's
# address through that SMTP server; without it the page says that this server sends no mail and
# to ask the host, who makes the link with `manage.py reset_link USERNAME` or the admin.
EMAIL_HOST = os.environ.get("DJANGO_EMAIL_HOST", "").strip()
SENDS_MAIL = bool(EMAIL_HOST)
try:
    EMAIL_PORT = int(os.environ.get("DJANGO_EMAIL_PORT", "") or 587)
except ValueError:
    raise ImproperlyConfigured("DJANGO_EMAIL_PORT: the SMTP server's port, a number.") from None
EMAIL_HOST_USER = os.environ.get("DJANGO_EMAIL_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("DJANGO_EMAIL_PASSWORD", "")
# How the connection is encrypted: STARTTLS (port 587), TLS from the start (465), or not at all
# (a relay on this computer or network).
EMAIL_SECURITY = os.environ.get("DJANGO_EMAIL_SECURITY", "").strip().lower() or "starttls"
if EMAIL_SECURITY not in ("starttls", "ssl", "none"):
    raise ImproperlyConfigured(
        f"DJANGO_EMAIL_SECURITY={os.environ['DJANGO_EMAIL_SECURITY']!r}: use starttls, ssl or none."
    )
EMAIL_USE_TLS = EMAIL_SECURITY == "starttls"
EMAIL_USE_SSL = EMAIL_SECURITY == "ssl"
# A mail server that does not answer would otherwise hold the request (and its thread) for good.
EMAIL_TIMEOUT = 10
DEFAULT_FROM_EMAIL = os.environ.get("DJANGO_EMAIL_FROM") or EMAIL_HOST_USER or "rollroom@localhost"
# --- end of mail ---------------------------------------------------------------------------------

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# --- Login throttling (django-axes) -------------------------------------------------------------
# After LOGIN_FAILURES wrong passwords for one username from one address, that pair is locked out
# for LOGIN_LOCKOUT: every login of it is refused, the right password too, with a page saying so
# (campaigns.views.login_locked_out, 429). A successful login clears the count. The
# address is the client's as the write limits read it (core.throttle.client_address: the
# connection's, or behind a proxy of TRUSTED_PROXIES the one it forwards), so that one visitor's
# lock does not lock the others behind the same proxy. The attempts are rows in the database,
# which every process shares.
INSTALLED_APPS.append("axes")
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # refuses a locked-out login before the next one
    "django.contrib.auth.backends.ModelBackend",
]
MIDDLEWARE.append("axes.middleware.AxesMiddleware")
LOGIN_FAILURES = 5
LOGIN_LOCKOUT = timedelta(minutes=15)
AXES_FAILURE_LIMIT = LOGIN_FAILURES
AXES_COOLOFF_TIME = LOGIN_LOCKOUT
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_CLIENT_IP_CALLABLE = "core.throttle.client_address"
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "campaigns.views.login_locked_out"
AXES_DISABLE_ACCESS_LOG = True  # no row per successful login
AXES_VERBOSE = False
# --- end of login throttling --------------------------------------------------------------------

# --- Content-Security-Policy (django-csp) ----------------------------------------------------
# Scripts, styles, images, fonts and connections from the site only: no inline script or style,
# no eval (base.html's htmx-config turns off htmx's own eval and injected indicator style), no
# framing, forms posted to the site only. 'self' in connect-src covers the room's websocket on
# the same host (ws:/wss:, CSP level 3, which current browsers follow).
MIDDLEWARE.append("csp.middleware.CSPMiddleware")
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}
# --- end of Content-Security-Policy ------------------------------------------------------------

# --- Write and preview limits (core/throttle.py) ------------------------------------------
# A logged-in user's writes (POSTs), rolls and table talk, each at most so many per window of
# seconds; one more is answered 429 with a sentence, and nothing is written. "previews": the
# requests that work out odds before a roll (the roll forms, the room's box, the NPC form, the
# public calculator), a user's or, for a visitor not logged in, an address's; typing asks for
# a few a second at most. Counted in Redis when there is one (every process shares the count),
# else, or while it is unreachable, in each process's CACHES["default"] (see core/throttle.py).
MIDDLEWARE.append("core.throttle.WriteLimitMiddleware")
WRITE_LIMITS = {"writes": (30, 10), "rolls": (10, 10), "talk": (10, 10), "previews": (40, 10)}
# --- end of write and preview limits ----------------------------------------------------------

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = os.environ.get("DJANGO_STATIC_ROOT") or BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# --- Safe by default: HTTPS hardening where HTTPS is. ---
# Redirect to HTTPS, secure cookies and trust X-Forwarded-Proto only when DJANGO_SECURE says a
# proxy in front terminates HTTPS: Django cannot tell, and a table at home reaches the host over
# plain HTTP (http://192.168.x.y:8000), where secure cookies would make logging in impossible.
# `check --deploy` names each of these when they are off.
SECURE = env_bool("DJANGO_SECURE", False)
SECURE_SSL_REDIRECT = SECURE
SESSION_COOKIE_SECURE = SECURE
CSRF_COOKIE_SECURE = SECURE
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if SECURE else None
# HSTS: a browser that reached the site over HTTPS keeps to HTTPS for DJANGO_HSTS_SECONDS (a
# year), on the subdomains too. DJANGO_HSTS_SECONDS=0 when the proxy already sends
# Strict-Transport-Security: `check --deploy` then leaves it to the proxy. Preloading (browsers
# shipping the name as HTTPS-only, hard to undo) is for whoever owns the domain to ask for: off,
# and its check silenced.
try:
    HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", "") or 31536000)
except ValueError:
    raise ImproperlyConfigured("DJANGO_HSTS_SECONDS: a number of seconds (0: not sent).") from None
SECURE_HSTS_SECONDS = HSTS_SECONDS if SECURE else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = False
SILENCED_SYSTEM_CHECKS = ["security.W021"]
if SECURE and not HSTS_SECONDS:
    SILENCED_SYSTEM_CHECKS.append("security.W004")
# --- end of safe by default ---
SECURE_CONTENT_TYPE_NOSNIFF = True
# Cross-Origin-Opener-Policy (SecurityMiddleware's default, same-origin) is left off answers to
# plain HTTP on the network, where browsers ignore it and Chromium logs a console error on every
# page (core/secure_context.py); outside SecurityMiddleware, to see the header it adds.
MIDDLEWARE.insert(
    MIDDLEWARE.index("django.middleware.security.SecurityMiddleware"),
    "core.secure_context.OpenerPolicyWhereHonoured",
)
X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    # A database outage logs its first 503 and then one a minute, not one per request.
    "filters": {"outage": {"()": "config.views.OutageLogged"}},
    "loggers": {
        "django.request": {"filters": ["outage"]},
        # channels_redis says at INFO that a group send skipped full queues (how many, and the
        # group): a process that fell behind or stopped reading, which an operator must see.
        # Its maintainers' answer is to set this logger's level (channels_redis#181); naming
        # the channels would take a change upstream. Channels' in-memory layer and
        # channels_redis's per-socket buffer drop silently (channels#1244,
        # channels_redis#212): a room socket that missed an entry logs the gap, naming its
        # channel, when it reads it from the log (room.consumers); a missed card or facts
        # push goes unlogged.
        "channels_redis.core": {"level": "INFO"},
        # A restart's drain (config/shutdown.py) says when it begins and what it holds: without
        # it, a process slow to exit on SIGTERM looks hung.
        "config.shutdown": {"level": "INFO"},
    },
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "WARNING")},
}
