"""The per-user limit on writes and rolls (campaigns/throttle.py)."""

import pytest
from django.urls import reverse

from campaigns import throttle
from campaigns.models import Campaign
from tests.campaigns.helpers import renew
from tests.helpers import HTMX, db_snapshot


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


def test_no_limit_without_the_setting(as_user, gm, pool_campaign, settings):
    settings.WRITE_LIMITS = {}
    client = as_user(gm)
    assert all(client.post(renew(pool_campaign), **HTMX).status_code == 200 for _ in range(40))


def test_anonymous_posts_are_left_to_the_login_throttle(client, pool_campaign):
    assert Campaign.objects.count() == 1
    for _ in range(35):
        assert client.post(renew(pool_campaign)).status_code == 302  # to the login page
