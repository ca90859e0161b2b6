"""The per-user limit on writes and rolls (core/throttle.py)."""

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache
from django.urls import reverse

from campaigns.models import Campaign
from core import shared_redis, throttle
from tests.campaigns.helpers import renew
from tests.faults import redis_server  # noqa: F401
from tests.helpers import HTMX, db_snapshot
from tests.rolls.room_setup import ask, url


@pytest.fixture
def clock(monkeypatch):
    """The throttle's clock, at the start of a window; ``clock.now += seconds`` moves it."""

    class Clock:
        now = 1_000_000_000.0

    monkeypatch.setattr(throttle.time, "time", lambda: Clock.now)
    return Clock


def test_the_31st_write_in_ten_seconds_is_refused_with_a_sentence(
    as_user, gm, pool_campaign, clock
):
    client = as_user(gm)
    for _ in range(30):
        assert client.post(renew(pool_campaign), **HTMX).status_code == 200
    before = db_snapshot()
    clock.now += 4
    response = client.post(renew(pool_campaign), **HTMX)
    assert response.status_code == 429
    assert response["Content-Type"].startswith("text/plain")
    assert response["Retry-After"] == "6"
    assert response.content.decode() == (
        "Slow down: at most 30 changes every 10 seconds. Nothing was done; try again in 6 s."
    )
    page = client.post(renew(pool_campaign))
    assert page.status_code == 429
    html = page.content.decode()
    assert "Slow down" in html and 'class="brand"' in html  # the site's own page
    assert db_snapshot() == before
    # Reading goes on; the next window writes again.
    assert client.get(reverse("campaign_detail", args=[pool_campaign.id])).status_code == 200
    clock.now += 6
    assert client.post(renew(pool_campaign), **HTMX).status_code == 200


def test_the_limit_is_each_users_own(as_user, gm, player, pool_campaign, clock):
    client = as_user(gm)
    for _ in range(31):
        client.post(renew(pool_campaign), **HTMX)
    assert client.post(renew(pool_campaign), **HTMX).status_code == 429
    client = as_user(player)
    url = reverse("character_create", args=[pool_campaign.id])
    assert client.post(url, {"name": "Ada"}).status_code == 302


def test_logging_out_is_never_limited(as_user, gm, pool_campaign, clock):
    client = as_user(gm)
    for _ in range(31):
        client.post(renew(pool_campaign), **HTMX)
    assert client.post(reverse("logout")).status_code == 302
    assert client.get(reverse("home")).status_code == 302  # logged out


def test_rolls_have_a_limit_of_their_own(mana_table, player, as_user, clock):
    check = mana_table.campaign.checks.create(
        character=mana_table.mira, created_by=mana_table.gm, status="open", target=2
    )
    url = reverse("check_roll", args=[mana_table.campaign.id, check.id])
    client = as_user(player)
    # A refused roll is a roll request all the same.
    statuses = [client.post(url, {"skill": "nope"}, **HTMX).status_code for _ in range(11)]
    assert 429 not in statuses[:10]
    assert statuses[10] == 429
    response = client.post(url, {"skill": "nope"}, **HTMX)
    assert "at most 10 rolls every 10 seconds" in response.content.decode()
    # Other writes still have room.
    renew_url = renew(mana_table.campaign)
    assert as_user(mana_table.gm).post(renew_url, **HTMX).status_code == 200


def test_table_talk_has_a_limit_of_its_own(pool_table, player, as_user, clock):
    url = reverse("talk_say", args=[pool_table.campaign.id])
    client = as_user(player)
    statuses = [client.post(url, {"text": f"line {n}"}, **HTMX).status_code for n in range(11)]
    assert statuses[:10] == [200] * 10 and statuses[10] == 429
    before = db_snapshot()
    response = client.post(url, {"text": "/r 1d6"}, **HTMX)
    assert "at most 10 messages and free rolls every 10 seconds" in response.content.decode()
    assert db_snapshot() == before
    clock.now += 10
    assert client.post(url, {"text": "again"}, **HTMX).status_code == 200


def test_no_limit_without_the_setting(as_user, gm, pool_campaign, settings):
    settings.WRITE_LIMITS = {}
    client = as_user(gm)
    assert all(client.post(renew(pool_campaign), **HTMX).status_code == 200 for _ in range(40))


def test_anonymous_posts_are_left_to_the_login_throttle(client, pool_campaign):
    assert Campaign.objects.count() == 1
    for _ in range(35):
        assert client.post(renew(pool_campaign)).status_code == 302  # to the login page


def test_a_refused_write_counts_toward_its_limits_as_an_accepted_one(
    mana_table, player, as_user, clock
):
    """Refused writes (422: nothing written) are counted before their view runs, so they cannot
    be sent without limit either: refused rolls against the rolls' limit, refused table talk
    against the talk's, refused changes of any kind against the writes'."""
    campaign = mana_table.campaign
    check = ask(mana_table, mana_table.mira, target=2)
    client = as_user(player)
    cases = [
        (url("check_roll", mana_table, check.id), {"skill": "nope"}, "rolls"),
        (url("talk_say", mana_table), {"text": "/r 2d"}, "talk"),
    ]
    for path, data, kind in cases:
        most, _ = django_settings.WRITE_LIMITS[kind]
        statuses = [client.post(path, data, **HTMX).status_code for _ in range(most + 1)]
        assert statuses == [422] * most + [429], kind
    clock.now += 10
    writes, _ = django_settings.WRITE_LIMITS["writes"]
    path = reverse("character_create", args=[campaign.id])
    statuses = [client.post(path, {"name": ""}, **HTMX).status_code for _ in range(writes + 1)]
    assert statuses == [422] * writes + [429]


# With Redis (a redis-server of the test's own, tests/faults.py) --------------------------------


@pytest.fixture
def shared_redis_at(redis_server, settings):  # noqa: F811
    """The limits counted in the test's own Redis."""
    settings.REDIS_URL = redis_server.url()
    return redis_server


def test_with_redis_the_limit_holds_across_processes(
    as_user, gm, pool_campaign, clock, shared_redis_at
):
    client = as_user(gm)
    for _ in range(15):
        assert client.post(renew(pool_campaign), **HTMX).status_code == 200
    cache.clear()  # what another process would see of its own: nothing
    for _ in range(15):
        assert client.post(renew(pool_campaign), **HTMX).status_code == 200
    cache.clear()
    assert client.post(renew(pool_campaign), **HTMX).status_code == 429
    keys = shared_redis.client(shared_redis_at.url()).keys("rollroom:limit:*")
    assert keys == [f"rollroom:limit:writes:{gm.pk}:{int(clock.now // 10)}".encode()]


def test_with_redis_down_the_limit_holds_per_process_and_nothing_fails(
    as_user, gm, pool_campaign, clock, shared_redis_at, caplog, monkeypatch
):
    client = as_user(gm)
    assert client.post(renew(pool_campaign), **HTMX).status_code == 200  # counted in Redis
    shared_redis_at.stop()
    monkeypatch.setattr(shared_redis, "BACKOFF", 0)  # every write tries Redis again
    with caplog.at_level("WARNING", logger="core.shared_redis"):
        for _ in range(30):
            assert client.post(renew(pool_campaign), **HTMX).status_code == 200
        assert client.post(renew(pool_campaign), **HTMX).status_code == 429
    said = [r.getMessage()[:17] for r in caplog.records if r.name == "core.shared_redis"]
    assert said == ["Redis unreachable"]  # once, not per write
    # Redis back: counted there again (this window's count started afresh there).
    shared_redis_at.start()
    clock.now += 10
    with caplog.at_level("WARNING", logger="core.shared_redis"):
        assert client.post(renew(pool_campaign), **HTMX).status_code == 200
    assert "Redis reachable again" in caplog.records[-1].getMessage()
    key = f"rollroom:limit:writes:{gm.pk}:{int(clock.now // 10)}"
    assert shared_redis.client(shared_redis_at.url()).get(key) == b"1"
