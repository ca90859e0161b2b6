"""The limits on writes, rolls and odds previews (core/throttle.py)."""

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.urls import reverse

from config.settings import trusted_proxies
from core import shared_redis, throttle
from rules import notation
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


def test_an_anonymous_visitors_writes_are_counted_by_address(client, clock, settings, db):
    """Signing up and asking for a password reset link (which mails it) need no login: without
    a count by address one visitor could make accounts or send mail without end."""
    settings.SENDS_MAIL = False
    most, _ = settings.WRITE_LIMITS["writes"]
    here = {"REMOTE_ADDR": "203.0.113.5"}
    resets = [
        client.post(reverse("password_reset"), {"email": "a@example.org"}, **here).status_code
        for _ in range(most - 1)
    ]
    assert resets == [200] * (most - 1)
    signup = {"username": "newcomer", "password1": "a-long-pass-phrase"}
    signup["password2"] = signup["password1"]
    assert client.post(reverse("signup"), signup, **here).status_code == 302
    client.logout()
    refused = client.post(reverse("signup"), {**signup, "username": "another"}, **here)
    assert refused.status_code == 429 and refused["Retry-After"]
    assert get_user_model().objects.filter(username="another").count() == 0
    # Another address has a count of its own.
    other = client.post(
        reverse("signup"), {**signup, "username": "another"}, REMOTE_ADDR="198.51.100.7"
    )
    assert other.status_code == 302


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


def test_a_saved_rolls_button_counts_as_a_roll(mana_table, player, as_user, clock):
    from sheets.services import saved_roll_add

    kept = saved_roll_add(
        campaign=mana_table.campaign, character=mana_table.mira, name="Sneak", notation="2d6"
    )
    path = reverse("saved_roll", args=[mana_table.campaign.id, mana_table.mira.id, kept.id])
    client = as_user(player)
    most, _ = django_settings.WRITE_LIMITS["rolls"]
    statuses = [client.post(path, **HTMX).status_code for _ in range(most + 1)]
    assert statuses == [200] * most + [429]


# Odds previews -----------------------------------------------------------------------------------

#: A free roll whose exact odds are worked out before it is sent, as costly as a preview may be.
COSTLY_PREVIEW = "/r 26d6!>=2 vs 50"


@pytest.fixture
def computed(monkeypatch):
    """How many exact odds of free rolls the views worked out (``rules.notation.chance``), and
    their estimated work."""

    class Computed:
        calls = 0
        work = 0

    real = notation.chance

    def counting(typed):
        Computed.calls += 1
        Computed.work += notation.chance_cost(typed)
        return real(typed)

    monkeypatch.setattr(notation, "chance", counting)
    return Computed


def test_a_burst_of_odds_previews_is_refused_past_the_limit_and_computes_no_more(
    pool_table, player, other_player, as_user, clock, computed
):
    """The issue's burst: 200 previews in ten seconds by one player. Past the limit each is
    answered 429 before its view runs, so the work done for the burst is bounded by the limit
    times the most a preview may cost, whatever the burst's size: what other members' pages
    wait on is bounded by construction (the tests measure no time)."""
    assert notation.chance_cost(notation.parse(COSTLY_PREVIEW[3:])) <= notation.MAX_PREVIEW_COST
    most, window = django_settings.WRITE_LIMITS["previews"]
    path = url("talk_odds", pool_table)
    client = as_user(player)
    answers = []
    for _ in range(200):
        answers.append(client.get(path, {"text": COSTLY_PREVIEW}, **HTMX))
        clock.now += 0.04  # 200 in 8 s: one window
    assert [a.status_code for a in answers] == [200] * most + [429] * (200 - most)
    assert computed.calls == most
    assert computed.work <= most * notation.MAX_PREVIEW_COST
    refused = answers[-1]
    assert refused["Content-Type"].startswith("text/plain")
    assert 1 <= int(refused["Retry-After"]) <= window
    assert refused.content.decode().startswith(
        f"Slow down: at most {most} odds previews every {window} seconds."
    )
    # Another member's pages and previews, and the player's own writes, are not held back.
    other = as_user(other_player)
    assert other.get(url("room", pool_table)).status_code == 200
    assert other.get(path, {"text": COSTLY_PREVIEW}, **HTMX).status_code == 200
    client = as_user(player)
    assert client.post(url("talk_say", pool_table), {"text": "hi"}, **HTMX).status_code == 200
    # The next window previews again.
    clock.now += window
    assert client.get(path, {"text": COSTLY_PREVIEW}, **HTMX).status_code == 200


def preview_requests(table):
    """Every view that works out odds before a roll: its name -> (who asks, path, its GET)."""
    check = ask(table, table.ilse, target=6)
    npc = {"character": table.npc.id, "target": 6}
    return {
        "talk_odds": (table.player, url("talk_odds", table), {"text": "/r 2d6 vs 7"}),
        "check_odds": (table.player, url("check_odds", table, check.id), {}),
        "check_form": (table.player, url("check_form", table, check.id), {}),
        "npc_odds": (table.gm, url("npc_odds", table), npc),
        "npc_form": (table.gm, url("npc_form", table), npc),
        "odds_calculator": (None, reverse("odds_calculator"), CALCULATOR),
    }


#: A Pool question to the public calculator.
CALCULATOR = {"system": "pool", "d6": 2, "d10": 1, "tn": 6}


@pytest.mark.parametrize("view", sorted(throttle.PREVIEW_VIEWS))
def test_every_odds_preview_is_limited(pool_table, as_user, clock, settings, view):
    settings.WRITE_LIMITS = {**settings.WRITE_LIMITS, "previews": (3, 10)}
    who, path, params = preview_requests(pool_table)[view]
    client = as_user(who)
    statuses = [client.get(path, params, **HTMX).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    page = client.get(path, params)  # a plain GET: the site's own page
    assert page.status_code == 429 and 'class="brand"' in page.content.decode()
    assert page["Retry-After"] == "10"


def test_a_users_odds_previews_share_one_count(pool_table, as_user, clock, settings):
    settings.WRITE_LIMITS = {**settings.WRITE_LIMITS, "previews": (4, 10)}
    requests = preview_requests(pool_table)
    # The calculator counts a logged-in visitor's previews as theirs.
    asks = [requests[view][1:] for view in ("talk_odds", "check_odds", "check_form")]
    asks.append(requests["odds_calculator"][1:])
    client = as_user(pool_table.player)
    assert [client.get(path, params, **HTMX).status_code for path, params in asks] == [200] * 4
    assert {client.get(path, params, **HTMX).status_code for path, params in asks} == {429}
    # The room page itself is not a preview; the GM's previews are the GM's.
    assert client.get(url("room", pool_table)).status_code == 200
    gm = as_user(pool_table.gm)
    for view in ("npc_odds", "npc_form"):
        _, path, params = requests[view]
        assert gm.get(path, params, **HTMX).status_code == 200


def test_an_anonymous_visitors_previews_are_counted_by_address(client, clock, settings):
    most, _ = settings.WRITE_LIMITS["previews"]
    path = reverse("odds_calculator")
    here = {"REMOTE_ADDR": "203.0.113.5", **HTMX}
    statuses = [client.get(path, CALCULATOR, **here).status_code for _ in range(most + 1)]
    assert statuses == [200] * most + [429]
    assert client.get(path, CALCULATOR, REMOTE_ADDR="203.0.113.5").status_code == 429
    # Another address has a count of its own.
    assert client.get(path, CALCULATOR, REMOTE_ADDR="198.51.100.7", **HTMX).status_code == 200


def test_the_client_address_is_the_connections(rf):
    assert throttle.client_address(rf.get("/", REMOTE_ADDR="203.0.113.5")) == "203.0.113.5"
    assert throttle.client_address(rf.get("/", REMOTE_ADDR="")) is None


# The client's address behind a proxy (config/settings.py TRUSTED_PROXIES) ----------------------
def address(rf, remote, forwarded=None):
    headers = {} if forwarded is None else {"HTTP_X_FORWARDED_FOR": forwarded}
    return throttle.client_address(rf.get("/", REMOTE_ADDR=remote, **headers))


@pytest.fixture
def behind_proxies(settings):
    """Caddy on this machine and a load balancer on the private network trusted."""
    settings.TRUSTED_PROXIES = trusted_proxies("127.0.0.1, ::1, 10.0.0.0/8")


def test_a_connection_from_an_untrusted_address_is_its_own_whatever_it_forwards(rf, behind_proxies):
    assert address(rf, "203.0.113.5", "198.51.100.7") == "203.0.113.5"
    assert address(rf, "203.0.113.5", "10.0.0.2") == "203.0.113.5"


def test_without_trusted_proxies_the_header_is_ignored(rf, settings):
    assert settings.TRUSTED_PROXIES == ()
    assert address(rf, "127.0.0.1", "198.51.100.7") == "127.0.0.1"


def test_from_a_trusted_proxy_the_address_it_forwards(rf, behind_proxies):
    assert address(rf, "127.0.0.1", "203.0.113.5") == "203.0.113.5"
    assert address(rf, "::1", "2001:db8::5") == "2001:db8::5"
    assert address(rf, "::ffff:127.0.0.1", "203.0.113.5") == "203.0.113.5"


def test_a_forged_left_most_address_is_never_taken(rf, behind_proxies):
    """A proxy that appends (nginx's $proxy_add_x_forwarded_for) keeps what the client wrote on
    the left: the right-most address not a trusted proxy is the one a trusted proxy wrote."""
    assert address(rf, "127.0.0.1", "198.51.100.7, 203.0.113.5") == "203.0.113.5"
    assert address(rf, "127.0.0.1", "10.0.0.9,198.51.100.7,203.0.113.5, 10.0.0.2") == (
        "203.0.113.5"
    )


def test_a_header_of_trusted_proxies_only_or_of_no_address_gives_the_proxys(rf, behind_proxies):
    assert address(rf, "127.0.0.1") == "127.0.0.1"
    assert address(rf, "127.0.0.1", "") == "127.0.0.1"
    assert address(rf, "127.0.0.1", "10.0.0.2, 127.0.0.1") == "127.0.0.1"
    assert address(rf, "127.0.0.1", "203.0.113.5, unknown") == "127.0.0.1"
    assert address(rf, "127.0.0.1", "<script>") == "127.0.0.1"


def test_the_login_lock_reads_the_same_address(rf, behind_proxies):
    from axes.helpers import get_client_ip_address

    request = rf.post("/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.5")
    assert get_client_ip_address(request) == throttle.client_address(request) == "203.0.113.5"


def test_anonymous_counts_behind_a_trusted_proxy_are_per_forwarded_address(
    client, clock, settings, behind_proxies
):
    most, _ = settings.WRITE_LIMITS["previews"]
    path = reverse("odds_calculator")
    one = {"REMOTE_ADDR": "127.0.0.1", "HTTP_X_FORWARDED_FOR": "203.0.113.5", **HTMX}
    statuses = [client.get(path, CALCULATOR, **one).status_code for _ in range(most + 1)]
    assert statuses == [200] * most + [429]
    # A new forged address on the left does not escape the count.
    forged = {**one, "HTTP_X_FORWARDED_FOR": "198.51.100.1, 203.0.113.5"}
    assert client.get(path, CALCULATOR, **forged).status_code == 429
    # Another visitor behind the same proxy has a count of their own.
    other = {**one, "HTTP_X_FORWARDED_FOR": "198.51.100.7"}
    assert client.get(path, CALCULATOR, **other).status_code == 200


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


def test_with_redis_odds_previews_are_counted_across_processes(
    client, clock, settings, shared_redis_at
):
    most, window = settings.WRITE_LIMITS["previews"]
    path = reverse("odds_calculator")
    here = {"REMOTE_ADDR": "203.0.113.5", **HTMX}
    for n in range(most):
        if n == most // 2:
            cache.clear()  # what another process would see of its own: nothing
        assert client.get(path, CALCULATOR, **here).status_code == 200
    cache.clear()
    assert client.get(path, CALCULATOR, **here).status_code == 429
    keys = shared_redis.client(shared_redis_at.url()).keys("rollroom:limit:*")
    assert keys == [f"rollroom:limit:previews:ip:203.0.113.5:{int(clock.now // window)}".encode()]
