"""Shared fixtures: a campaign of each system with its GM, two players and an outsider; a table
of each system ready to roll, and a recorder of the pushes."""

import os

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.contrib.auth import get_user_model
from django.test import override_settings
from hypothesis import HealthCheck, settings

from campaigns.models import Campaign, Membership
from tests import flush
from tests.browser import Chromium, LiveServer, in_ci
from tests.rolls.room_setup import build_mana_table, build_pool_table, record_pushes

PASSWORD = "correct-horse-battery"

# The flush after each transactional test: DELETE on PostgreSQL (tests/flush.py).
flush.install()

# Hypothesis's profiles, for every property test: "dev" by default, "ci" under CI=true, or the
# one HYPOTHESIS_PROFILE names. Neither has a deadline or the too-slow health check: both time the
# machine, which runs a worker per core (and in CI other jobs besides), not the code. CI runs
# each property on 150 examples (the most any test asked for; they take seconds), without the
# example database (a fresh checkout has none to replay), printing the blob that reproduces a
# failure; a developer runs hypothesis's default 100, and replays the failures it remembers.
UNTIMED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("dev", max_examples=100, **UNTIMED)
settings.register_profile("ci", max_examples=150, database=None, print_blob=True, **UNTIMED)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if in_ci() else "dev"))


#: The tests that take longest, by module: they run first, so that the workers finish together
#: rather than one waiting out the other's long test at the end (xdist's ``worksteal``, in
#: pyproject.toml's addopts, gives each worker its share of the tests in this order, and a
#: worker that has run its share takes over the tests still waiting in another's; a long test
#: cannot be shared). A whole evening in the browser, then any browser test, then the tests
#: that start servers of their own.
LONGEST_FIRST = {
    "tests/test_evening_browser.py": 3,
    "tests/config/test_database_outage.py": 1,
    "tests/config/test_redis_down.py": 1,
    "tests/config/test_scaleout.py": 1,
    "tests/config/test_crashes.py": 1,
    "tests/deploy/test_restarts.py": 1,
    "tests/room/test_consumers_live.py": 1,
    "tests/rolls/test_host.py": 1,
    "tests/rolls/test_host_backups.py": 1,
    "tests/backups/test_restore.py": 1,
    "tests/bench/test_bench.py": 1,
    "tests/rolls/test_move_to.py": 1,
    "tests/deploy/test_readme_scale_out.py": 1,
    "tests/test_browser.py": 1,
}


def expected_length(item):
    """A rank of how long ``item`` takes: higher runs earlier."""
    rank = LONGEST_FIRST.get(item.nodeid.split("::")[0], 0)
    if item.get_closest_marker("browser") is not None:
        rank = max(rank, 2)
    return rank


def pytest_collection_modifyitems(items):
    """The longest tests first (``LONGEST_FIRST``); the order within a rank is the collection's,
    so a class's tests stay together."""
    items.sort(key=expected_length, reverse=True)


@pytest.fixture(autouse=True, scope="session")
def sync_thread_connections_closed(django_db_setup):
    """Async tests run the ORM (channels' ``database_sync_to_async``) in asgiref's one sync
    thread, which outlives every test: its connection is closed before the test database is
    dropped (on PostgreSQL an open one keeps the database from being dropped)."""
    yield
    from asgiref.sync import SyncToAsync
    from django.db import connections

    SyncToAsync.single_thread_executor.submit(connections.close_all).result(timeout=30)


@pytest.fixture(autouse=True, scope="session")
def browser_parts_stopped(django_db_setup):
    """The worker's Chromium and live server (tests/browser.py), if a test started them, stop
    before the test database is dropped (the server holds connections to it)."""
    yield
    Chromium.stop()
    LiveServer.stop()


@pytest.fixture(autouse=True, scope="session")
def static_files_by_their_names():
    """With DEBUG off the pages name static files through collectstatic's manifest, which the
    tests do not make: they name them as with DEBUG on (whitenoise's own tests cover the rest,
    and tests/rolls/test_host.py a server with its manifest)."""
    storages = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    with override_settings(STORAGES=storages):
        yield


@pytest.fixture(autouse=True, scope="session")
def fast_password_hashing():
    """PBKDF2 is slow on purpose; the tests hash many passwords and prove nothing with it. For
    the whole session, so that the worlds built once for a class or a module hash fast too."""
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture(autouse=True)
def fresh_write_limits(settings):
    """Each test starts with no writes counted (core/throttle.py counts in the cache, or in
    Redis with REDIS_URL, both of which outlive a test; a later test's user may have an earlier
    one's id), and with Redis not known to be down (core/shared_redis.py)."""
    from django.core.cache import cache

    from core.shared_redis import client, outage

    cache.clear()
    outage.reset()
    if settings.REDIS_URL:
        shared = client()
        for key in shared.scan_iter("rollroom:limit:*"):
            shared.delete(key)
    yield
    outage.reset()


@pytest.fixture(autouse=True)
def fresh_channel_layers():
    """Each test gets channel layers of its own. A layer keeps state bound to the event loop
    that used it (channels_redis's receive lock and count), and each async test has a loop of
    its own: a consumer left waiting in a finished test's loop must not hold the next test's."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


def make_user(username):
    return get_user_model().objects.create_user(username=username, password=PASSWORD)


def make_campaign(gm, *, system="pool", name="The Marches", players=()):
    campaign = Campaign.objects.create(name=name, system=system)
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.GM)
    for player in players:
        Membership.objects.create(campaign=campaign, user=player, role=Membership.PLAYER)
    return campaign


@pytest.fixture
def gm(db):
    return make_user("gm")


@pytest.fixture
def player(db):
    return make_user("ana")


@pytest.fixture
def other_player(db):
    return make_user("ben")


@pytest.fixture
def outsider(db):
    return make_user("zed")


@pytest.fixture
def pool_campaign(gm, player, other_player):
    return make_campaign(gm, system="pool", players=[player, other_player])


@pytest.fixture
def mana_campaign(gm, player, other_player):
    return make_campaign(gm, system="mana", name="Blue Harbor", players=[player, other_player])


@pytest.fixture
def mana_table(mana_campaign, gm, player, other_player):
    """The Mana table: skills and characters ready to roll (rolls/room_setup.build_mana_table)."""
    return build_mana_table(mana_campaign, gm, player, other_player)


@pytest.fixture
def pool_table(pool_campaign, gm, player, other_player):
    """The Pool table: characters with ratings (rolls/room_setup.build_pool_table)."""
    return build_pool_table(pool_campaign, gm, player, other_player)


@pytest.fixture
def empty_channel_layer():
    """The channel layer flushed after the test (for the socket tests, here and in
    tests/systems: ``pytest.mark.usefixtures("empty_channel_layer")``)."""
    yield
    async_to_sync(get_channel_layer().flush)()


@pytest.fixture
def pushes(monkeypatch):
    """Every push sent during the test (rolls/room_setup.PushRecorder)."""
    return record_pushes(monkeypatch)


def client_for(client, user):
    client.force_login(user)
    return client


@pytest.fixture
def as_user(client):
    """``as_user(user)`` -> the test client logged in as ``user``."""

    def login_as(user):
        client.logout()
        if user is not None:
            client.force_login(user)
        return client

    return login_as


@pytest.fixture
def client_factory():
    """``client_factory(user, n)`` -> ``n`` test clients, each logged in as ``user`` in a session
    of its own: for requests sent at once from several threads (``tests.helpers.race``)."""
    from django.test import Client

    def clients(user, n):
        made = [Client() for _ in range(n)]
        for client in made:
            client.force_login(user)
        return made

    return clients
