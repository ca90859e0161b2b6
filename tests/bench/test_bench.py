"""The roll benchmark (python manage.py bench_rolls): its statistics, matching and process
helpers, its floors and the settings that route them, and one small real run end to end."""

import asyncio
import json
import os
import socket
import ssl
import subprocess
import sys
from urllib.parse import urlsplit

import pytest
from channels.routing import ProtocolTypeRouter, URLRouter
from channels.security.websocket import OriginValidator
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test import AsyncRequestFactory, Client
from django.test.utils import CaptureQueriesContext
from django.urls import NoReverseMatch, reverse
from django.utils.crypto import get_random_string

from bench import asgi as bench_asgi
from bench import command, floors, meters, report, stats
from bench import server as procs
from bench import settings as bench_settings
from bench.client import HttpPool, Tracker, http_request, marker
from bench.command import LADDER
from bench.runner import Server, Servers
from campaigns.models import FormToken
from config import asgi as config_asgi
from config.admission import LATEST, TRY_AGAIN_IN, Admission
from config.routing import SocketGuard, websocket_urlpatterns
from config.shutdown import Draining
from rolls.management.commands.host import daphne_limits
from tests.helpers import is_number

# Statistics -----------------------------------------------------------------------------------


def test_percentile_interpolates_between_ranks():
    assert stats.percentile([], 50) is None
    assert stats.percentile([7], 99) == 7
    assert stats.percentile([4, 1, 3, 2], 50) == 2.5
    assert stats.percentile(list(range(1, 101)), 99) == pytest.approx(99.01)
    assert stats.percentile([3, 1, 2], 0) == 1
    assert stats.percentile([3, 1, 2], 100) == 3


def test_summarize_counts_lost_and_rate():
    out = stats.summarize(
        latencies=[0.010, 0.020, 0.030],
        sent=4,
        duplicated=1,
        misrouted=0,
        errors=1,
        span=2.0,
        send_lags=[0.0, 0.002],
    )
    assert out["p50_ms"] == 20.0
    assert out["max_ms"] == 30.0
    assert out["delivered"] == 3
    assert out["lost"] == 1
    assert out["duplicated"] == 1
    assert out["errors"] == 1
    assert out["rolls_per_s"] == 1.5
    assert out["send_lag_max_ms"] == 2.0


def test_summarize_without_deliveries():
    out = stats.summarize(
        latencies=[], sent=2, duplicated=0, misrouted=0, errors=2, span=1.0, send_lags=[]
    )
    assert out["p99_ms"] is None
    assert out["lost"] == 2
    assert out["rolls_per_s"] == 0.0


def test_ratio():
    assert stats.ratio(30.0, 10.0) == 3.0
    assert stats.ratio(None, 10.0) is None
    assert stats.ratio(5.0, 0) is None


#: A run's config, as the reports below print it.
CONFIG = {
    "rooms": 1,
    "clients": 2,
    "rate": 5,
    "seconds": 1,
    "sends": 5,
    "cpu": 1,
    "database": "sqlite3",
    "layer": "InMemoryChannelLayer",
    "loadavg_1m": 0.5,
}


def test_report_ratios_and_table():
    phase = {"p50_ms": 2.0, "p99_ms": 4.0, "max_ms": 5.0, "rolls_per_s": 20.0, "lost": 0}
    out = report.result(CONFIG, {"app": {**phase, "p99_ms": 12.0}, "floor_http": phase})
    assert out["app_over_http_p99"] == 3.0
    assert out["app_over_http_p50"] == 1.0
    assert "app_over_channels_p99" not in out
    assert "floor_http" in report.table(out)


def test_report_the_cpu_per_roll_over_the_floors():
    app = {"p50_ms": 3.0, "p99_ms": 9.0, "cpu_ms_per_roll": 12.0}
    floor = {"p50_ms": 1.0, "p99_ms": 3.0, "cpu_ms_per_roll": 4.0}
    unmeasured = {**floor, "cpu_ms_per_roll": None}
    out = report.result(CONFIG, {"app": app, "floor_http": floor, "floor_channels": unmeasured})
    assert out["app_over_http_cpu"] == 3.0
    assert out["app_over_channels_cpu"] is None
    assert "app CPU per roll over floor CPU per request: http 3.0x" in report.table(out)
    assert "ladder" not in out and "saturation" not in report.table(out)


def step(rate, p99, lost=0, errors=0):
    return {"rate": rate, "p99_ms": p99, "lost": lost, "errors": errors, "cpu_ms_per_roll": 11.0}


def test_the_saturation_rate_is_the_last_step_under_the_knee():
    assert report.saturation_rate([step(20, 15.0), step(40, 60.0), step(60, 240.0)]) == 40
    assert report.saturation_rate([step(20, 15.0), step(40, 99.0)]) == 40
    # A step that lost or failed a roll is past the knee, whatever its p99.
    assert report.saturation_rate([step(20, 15.0), step(40, 30.0, lost=1)]) == 20
    assert report.saturation_rate([step(20, 15.0), step(40, 30.0, errors=2)]) == 20
    assert report.saturation_rate([step(20, 101.0)]) is None
    assert report.saturation_rate([step(20, None, lost=4)]) is None


def test_report_the_ladder():
    phase = {"p50_ms": 2.0, "p99_ms": 4.0, "cpu_ms_per_roll": 10.0}
    ladder = [step(20, 15.0), step(40, 130.0)]
    out = report.result(CONFIG, {"app": phase}, ladder)
    assert out["ladder"] == ladder and out["saturation_rate"] == 20
    text = report.table(out)
    assert (
        "ladder: 20/s p99 15.0 ms 11.0 ms/roll, 40/s p99 130.0 ms 11.0 ms/roll (past the knee)"
        in (text)
    )
    assert "saturation: 20 rolls/s, the last rate with p99 under 100 ms" in text
    out = report.result(CONFIG, {"app": phase}, [step(20, 130.0)])
    assert "saturation: below 20 rolls/s" in report.table(out)


def test_report_through_a_proxy_shows_its_column_the_servers_and_the_notes():
    config = {
        **CONFIG,
        "servers": 2,
        "measured": 2,
        "endpoints": ["https://rollroom.test:8443"],
        "proxy": "caddy",
    }
    app = {"p50_ms": 3.0, "p99_ms": 9.0, "cpu_ms_per_roll": 12.0, "proxy_cpu_ms_per_roll": 2.5}
    out = report.result(config, {"app": app}, notes=["floor_websockets: not through it"])
    assert out["notes"] == ["floor_websockets: not through it"]
    lines = report.table(out).splitlines()
    assert lines[1] == (
        "servers: https://rollroom.test:8443 through caddy; the CPU of 2 of 2 app process(es) "
        "measured"
    )
    assert lines[2].split()[-6:] == ["prx", "ms/r", "rss", "MB", "lag", "ms"]
    assert lines[3].split()[-3:] == ["2.5", "-", "-"]
    assert lines[-1] == "note: floor_websockets: not through it"
    # Without a proxy, no proxy column and no notes.
    plain = report.table(report.result(CONFIG, {"app": app | {"proxy_cpu_ms_per_roll": None}}))
    assert "prx ms/r" in plain
    plain = report.table(report.result(CONFIG, {"app": {"p50_ms": 3.0, "p99_ms": 9.0}}))
    assert "prx ms/r" not in plain and "note:" not in plain and "servers:" not in plain


# Matching arrivals to sends --------------------------------------------------------------------


def test_marker():
    assert marker('<article id="entry-3"><p class="note">bench#42</p>') == 42
    assert marker("bench#7 xxxx") == 7
    assert marker("<div>presence</div>") is None
    assert marker("bench# no number") is None


def test_tracker_delivers_when_every_socket_of_the_room_has_it():
    async def scenario():
        tracker = Tracker([0, 1], sockets_per_room=2)
        a, b, c = set(), set(), set()
        tracker.frame(0, a, "bench#0", 1.0)
        assert tracker.done_at[0] is None
        tracker.frame(0, b, "bench#0", 1.5)
        tracker.frame(0, b, "bench#0", 1.6)  # twice on one socket
        tracker.frame(0, c, "bench#1", 1.7)  # room 1's roll on a socket of room 0
        tracker.frame(0, a, "presence", 1.8)
        return tracker

    tracker = asyncio.run(scenario())
    assert tracker.done_at == [1.5, None]
    assert tracker.remaining == 1
    assert tracker.duplicated == 1
    assert tracker.misrouted == 1
    assert tracker.last_frame == 1.8
    assert tracker.sizes == [7, 7]


# The HTTP client -------------------------------------------------------------------------------


def test_http_pool_keeps_the_connection_and_reads_both_framings():
    answers = [
        b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
        b"HTTP/1.1 422 Unprocessable\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
    ]
    connections = []

    async def serve(reader, writer):
        connections.append(writer)
        for answer in answers:
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
            await reader.readexactly(length)
            writer.write(answer)
        writer.close()

    async def scenario():
        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        pool = HttpPool("127.0.0.1", port)
        request = http_request("POST", "/x/", host=f"127.0.0.1:{port}", body=b"a=1")
        replies = [await pool.send(request), await pool.send(request)]
        pool.close()
        server.close()
        return replies

    assert asyncio.run(scenario()) == [(200, b"hello"), (422, b"abcde")]
    assert len(connections) == 1


# Process helpers -------------------------------------------------------------------------------


def test_process_measures_and_listener():
    me = os.getpid()
    assert procs.cpu_seconds(me) > 0
    assert procs.peak_rss_mb(me) > 0
    assert procs.cpu_seconds(2**22 + 1) is None
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        assert procs.pid_listening(listener.getsockname()[1]) == me


def test_a_proxy_is_told_from_a_python_server_by_its_process_name():
    assert procs.is_python("python3") and procs.is_python("python3.11")
    assert procs.is_python("daphne")
    assert not procs.is_python("caddy") and not procs.is_python("nginx")
    assert not procs.is_python(None)
    assert procs.process_name(os.getpid())
    assert procs.process_name(2**22 + 1) is None
    assert procs.pinned(["caddy"], {1, 0}) in (["caddy"], ["taskset", "-c", "0,1", "caddy"])
    first, second = procs.free_ports(2)
    assert first != second


def test_url_takes_http_and_https_origins_and_maps_a_name_to_an_address():
    found = command.endpoints(
        "https://rollroom.test:1,http://127.0.0.1:2", resolve=["rollroom.test:127.0.0.1"]
    )
    secure, plain = found.servers
    assert secure.origin == "https://rollroom.test:1" and secure.netloc == "rollroom.test:1"
    assert secure.address == "127.0.0.1"
    assert secure.socket_url("/ws/x/") == "wss://rollroom.test:1/ws/x/"
    assert isinstance(secure.ssl, ssl.SSLContext) and secure.ssl.verify_mode == ssl.CERT_REQUIRED
    assert plain.socket_url("/ws/x/") == "ws://127.0.0.1:2/ws/x/"
    assert plain.ssl is None and plain.address is None
    # Nothing listens on those ports: nothing is measured, and the notes say so.
    assert found.pids == [None, None] and found.proxy is None
    assert found.notes[0] == (
        "https://rollroom.test:1: no process found listening on port 1 of this machine (or none "
        "this user may read): its CPU is not measured"
    )
    defaults = command.endpoints("https://example.test,http://example.test").servers
    assert [s.port for s in defaults] == [443, 80]
    assert command.resolved(["a.test:[::1]", "B.test:10.0.0.1"]) == {
        "a.test": "::1",
        "b.test": "10.0.0.1",
    }


@pytest.mark.parametrize(
    "url",
    [
        "ftp://rollroom.test:21",
        "rollroom.test:8443",
        "https://rollroom.test:99999",
        "https://rollroom.test:8443/room/",
        "https://:8443",
    ],
)
def test_url_refuses_what_is_not_a_servers_origin(url):
    with pytest.raises(CommandError, match="--url takes"):
        command.endpoints(url)


@pytest.mark.parametrize("value", ["rollroom.test", "rollroom.test:localhost", ":127.0.0.1"])
def test_resolve_refuses_what_is_not_a_name_and_an_address(value):
    with pytest.raises(CommandError, match="--resolve takes NAME:IP"):
        command.resolved([value])


def test_ca_refuses_a_file_that_is_not_a_certificate(tmp_path):
    with pytest.raises(CommandError, match="--ca .*missing.pem: not a readable PEM certificate"):
        command.tls_context(str(tmp_path / "missing.pem"))
    (tmp_path / "junk.pem").write_text("not a certificate")
    with pytest.raises(CommandError, match="not a readable PEM certificate"):
        command.tls_context(str(tmp_path / "junk.pem"))


def test_the_options_of_https_go_together():
    with pytest.raises(CommandError, match="--through-caddy starts its own servers"):
        call_command("bench_rolls", url="http://127.0.0.1:1", through_caddy=True)
    with pytest.raises(CommandError, match="--ca and --resolve go with --url"):
        call_command("bench_rolls", ca="root.crt")
    with pytest.raises(CommandError, match="--ca and --resolve go with --url"):
        call_command("bench_rolls", resolve=["rollroom.test:127.0.0.1"])


def test_sockets_spread_over_every_server_round_robin():
    servers = Servers([Server("127.0.0.1", port) for port in (1, 2, 3)], clients=4)
    for room in range(5):
        assert {servers.of(room, member) for member in range(4)} == {0, 1, 2}
    assert [servers.of(0, m) for m in range(4)] + [servers.of(1, 0)] == [0, 1, 2, 0, 1]


def test_behind_a_proxy_the_app_processes_are_measured_not_the_endpoint():
    me = os.getpid()
    endpoint = Server("rollroom.test", 8443, scheme="https", address="127.0.0.1")
    behind = Servers([endpoint], clients=2, pids=[me])
    assert behind.cpu() > 0 and behind.rss() > 0
    assert behind.cpu_each()[0] > 0
    # One process unknown: no total, which would pass for the whole.
    partly = Servers([Server("127.0.0.1", 1, me), Server("127.0.0.1", 2)], clients=2)
    assert partly.pids == [me, None]
    assert partly.cpu() is None and partly.rss() is None
    assert partly.cpu_each()[1] is None
    proxy = meters.meters(None, [me])[-1]
    assert (proxy.name, list(proxy.snapshot())) == ("proxy", [me])
    assert [meter.name for meter in meters.meters(None)] == ["pg", "redis"]
    assert meters.Processes("proxy", []).snapshot() is None
    assert meters.Processes("proxy", [2**22 + 1]).snapshot() is None


def test_meters_add_what_each_key_used():
    assert meters.increase({1: 2.0, 2: 1.0}, {1: 2.5, 2: 1.25, 3: 0.5}) == 1.25
    assert meters.increase(None, {1: 1.0}) is None
    assert meters.increase({1: 1.0}, None) is None
    assert meters.PostgresBackends(None).snapshot() is None
    assert meters.RedisServer(None).snapshot() is None


POSTGRES_AND_REDIS = pytest.mark.skipif(
    not (os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL")),
    reason="PostgreSQL + Redis only (DATABASE_URL and REDIS_URL)",
)


@POSTGRES_AND_REDIS
@pytest.mark.django_db(transaction=True)
def test_meters_read_the_named_backends_and_redis():
    import psycopg

    params = {**connection.get_connection_params(), "application_name": "rollroom-meter-test"}
    params.pop("pool", None)
    params.pop("cursor_factory", None)
    with psycopg.connect(**params) as other:
        pid = other.info.backend_pid
        backends = meters.PostgresBackends("rollroom-meter-test").snapshot()
    assert list(backends) == [pid]
    assert backends[pid] >= 0
    redis = meters.RedisServer(os.environ["REDIS_URL"]).snapshot()
    assert redis["redis"] > 0


def test_pinned_command():
    assert procs.pinned(["python"], None) == ["python"]
    command = procs.pinned(["python"], 1)
    assert command[-1] == "python"
    assert command in (["python"], ["taskset", "-c", "1", "python"])


class FakeProcess:
    """What ``procs.start_daphne`` starts, without starting it: the command and environment it
    was given, listening or not (``fails``), stopped or not."""

    started = []
    fails = False

    def __init__(self, command, *, log_path, env, cwd):
        self.command, self.env, self.pid, self.stopped = command, env, 4242, False
        self.started.append(self)

    def wait_listening(self, port):
        if self.fails:
            raise RuntimeError("the server exited")

    def stop(self):
        self.stopped = True


def test_a_benchmark_daphne_gets_the_limits_its_name_and_a_layer_prefix_of_its_own(monkeypatch):
    monkeypatch.setattr(procs, "Process", FakeProcess)
    monkeypatch.setattr(FakeProcess, "started", [])
    start = dict(cpu=None, log_path="daphne.log", application_name="rollroom-bench-x")
    process, port = procs.start_daphne("bench.asgi:application", **start)
    other, _ = procs.start_daphne(
        "bench.asgi:application", args=["--x", "1"], env={"A": "b"}, **start
    )
    daphne = procs.python_module("daphne", "-b", "127.0.0.1", "-p", port, *daphne_limits())
    assert process.command == [*daphne, "bench.asgi:application"]
    assert other.command[-3:] == ["--x", "1", "bench.asgi:application"]
    assert process.env[meters.APPLICATION_NAME] == "rollroom-bench-x"
    assert process.env[procs.LAYER_PREFIX] != other.env[procs.LAYER_PREFIX]
    assert other.env["A"] == "b" and "A" not in process.env
    assert not process.stopped
    monkeypatch.setattr(FakeProcess, "fails", True)
    with pytest.raises(RuntimeError):
        procs.start_daphne("bench.asgi:application", **start)
    assert FakeProcess.started[-1].stopped


# The floors ------------------------------------------------------------------------------------


def test_the_app_does_not_route_the_floors():
    with pytest.raises(NoReverseMatch):
        reverse("bench_floor", kwargs={"room": 1})
    with pytest.raises(NoReverseMatch):
        reverse("bench_floor_django", kwargs={"campaign_id": 1})
    assert [str(route.pattern) for route in websocket_urlpatterns] == [
        "ws/campaigns/<id:campaign_id>/",
        "ws/campaigns/<id:campaign_id>/facts/",
    ]


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)  # the session lookup of the socket's auth middleware
async def test_the_benchmark_server_routes_both_floors_beside_the_app():
    assert bench_settings.ROOT_URLCONF == "bench.urls"
    assert bench_settings.ASGI_APPLICATION == "bench.asgi.application"
    assert reverse("bench_floor", urlconf="bench.urls", kwargs={"room": 1}) == "/bench/floor/1/"
    django_floor = reverse("bench_floor_django", urlconf="bench.urls", kwargs={"campaign_id": 7})
    assert django_floor == "/bench/floor/django/7/"
    assert reverse("login", urlconf="bench.urls") == reverse("login")
    headers = [(b"origin", b"http://127.0.0.1")]
    communicator = WebsocketCommunicator(
        bench_asgi.application, "/ws/bench/floor/1/", headers=headers
    )
    assert (await communicator.connect())[0]
    await communicator.send_to(text_data="bench#1 xx")
    assert await communicator.receive_from() == "bench#1 xx"
    await communicator.disconnect()


def stack(application):
    """The types of the websocket application's layers, outermost first, and the paths of its
    routes (``config.routing.asgi_application``)."""
    layers, app = [], application.app.application_mapping["websocket"]
    while not isinstance(app, URLRouter):
        layers.append(type(app))
        app = getattr(app, "app", None) or getattr(app, "inner", None) or app.application
    return [type(application), type(application.app), *layers], [
        str(route.pattern) for route in app.routes
    ]


def test_the_benchmark_servers_sockets_pass_through_all_that_the_apps_do():
    """bench.asgi is the app's application (config.asgi's) with the floor's route added: the
    drain's count, the admission, the guard, the origin check and the socket's user, the app's
    routes, then the floor's, then the refusal of any other path."""
    apps = [str(route.pattern) for route in websocket_urlpatterns]
    layers, routes = stack(bench_asgi.application)
    assert stack(config_asgi.application) == (layers, [*apps, ""])
    assert layers[:5] == [Draining, ProtocolTypeRouter, Admission, SocketGuard, OriginValidator]
    assert routes == [*apps, "ws/bench/floor/<int:room>/", ""]


@pytest.mark.asyncio
async def test_the_benchmark_server_turns_a_socket_away_past_the_admissions_limit(
    settings, monkeypatch
):
    """A floor socket arriving while the process has as many connecting as it takes is
    accepted and closed at once with a later turn, as the app's are (config.admission)."""
    admission = bench_asgi.application.app.application_mapping["websocket"]
    settings.SOCKETS_CONNECTING = 1
    monkeypatch.setattr(admission, "connecting", 1)
    headers = [(b"origin", b"http://127.0.0.1")]
    communicator = WebsocketCommunicator(
        bench_asgi.application, "/ws/bench/floor/1/", headers=headers
    )
    assert (await communicator.connect())[0]
    closed = await communicator.receive_output()
    assert closed["type"] == "websocket.close"
    assert TRY_AGAIN_IN < closed["code"] <= TRY_AGAIN_IN + LATEST
    await communicator.disconnect()


@pytest.mark.asyncio
# No database work, but Channels checks the database thread's (persistent) connection when a
# socket disconnects.
@pytest.mark.django_db(transaction=True)
async def test_floor_consumer_and_view_broadcast_to_the_room():
    app = URLRouter(floors.websocket_urlpatterns)
    a = WebsocketCommunicator(app, "/ws/bench/floor/1/")
    b = WebsocketCommunicator(app, "/ws/bench/floor/1/")
    other = WebsocketCommunicator(app, "/ws/bench/floor/2/")
    for communicator in (a, b, other):
        assert (await communicator.connect())[0]
    await a.send_to(text_data="bench#1 xx")
    assert await a.receive_from() == "bench#1 xx"
    assert await b.receive_from() == "bench#1 xx"
    request = AsyncRequestFactory().post("/bench/floor/1/", "bench#2 yy", content_type="text/plain")
    response = await floors.floor_post(request, room=1)
    assert response.status_code == 204
    assert await b.receive_from() == "bench#2 yy"
    # Room 1's push did not reach room 2: the next frame there is room 2's own, pushed after.
    request = AsyncRequestFactory().post("/bench/floor/2/", "bench#3 zz", content_type="text/plain")
    assert (await floors.floor_post(request, room=2)).status_code == 204
    assert await other.receive_from() == "bench#3 zz"
    for communicator in (a, b, other):
        await communicator.disconnect()


@pytest.fixture
def django_floor(settings, pool_campaign):
    """The Django floor's URL for ``pool_campaign``, routed as in the benchmark's server."""
    settings.ROOT_URLCONF = "bench.urls"
    return reverse("bench_floor_django", kwargs={"campaign_id": pool_campaign.pk})


def csrf_client(user=None, *, token=True):
    """A client that CSRF checks as a browser's request is checked: logged in as ``user`` (None:
    no session), with the CSRF cookie and the token in its header as htmx sends it (unless
    not ``token``)."""
    client = Client(enforce_csrf_checks=True)
    if user is not None:
        client.force_login(user)
    headers = {"HX-Request": "true"}
    if token:
        secret = get_random_string(32)
        client.cookies[settings.CSRF_COOKIE_NAME] = secret
        headers["X-CSRFToken"] = secret
    return client, headers


def statements(queries, start):
    return [q["sql"] for q in queries if q["sql"].upper().startswith(start)]


def test_the_django_floor_reads_inserts_renders_and_pushes_to_the_room(
    django_floor, pool_campaign, player, pushes, django_capture_on_commit_callbacks
):
    client, headers = csrf_client(player)
    with CaptureQueriesContext(connection) as queries:
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(django_floor, {"note": "bench#3 xx"}, headers=headers)
    assert response.status_code == 204
    assert FormToken.objects.filter(user=player).count() == 1
    inserts = statements(queries.captured_queries, "INSERT")
    assert len(inserts) == 1 and "campaigns_formtoken" in inserts[0]
    selects = statements(queries.captured_queries, "SELECT")
    memberships = [sql for sql in selects if "campaigns_membership" in sql]
    assert len(memberships) == 1
    [(campaign_id, message)] = pushes.sent
    assert campaign_id == pool_campaign.pk
    assert message["all"] == floors.django_floor_html(("The Marches", "ana"), "bench#3 xx")
    assert 'id="bench-floor"' in message["all"] and "bench#3 xx" in message["all"]


@pytest.mark.parametrize(
    "who, token, status",
    [
        ("nobody", True, 302),  # no session: to the login page
        ("player", False, 403),  # no CSRF token: refused by CsrfViewMiddleware
        ("outsider", True, 404),  # logged in, not a member of the campaign
    ],
)
def test_the_django_floor_refuses_as_the_apps_writes_do(
    django_floor, player, outsider, pushes, django_capture_on_commit_callbacks, who, token, status
):
    user = {"nobody": None, "player": player, "outsider": outsider}[who]
    client, headers = csrf_client(user, token=token)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client.post(django_floor, {"note": "bench#4"}, headers=headers)
    assert response.status_code == status
    if status == 302:
        assert response["Location"].startswith(reverse("login"))
    assert not FormToken.objects.exists()
    assert callbacks == [] and pushes.sent == []


def test_the_benchmark_server_freezes_what_it_loaded_as_the_apps_does_but_does_not_drain():
    """bench.asgi ends as config.asgi does, with ``gc.freeze()``: the benchmark measures the
    app's server. It does not import config.asgi, which installs the drain on SIGTERM: the
    benchmark's commands stop their servers at once, as before."""
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    code = (
        "import sys, bench.asgi, gc; print(gc.get_freeze_count() > 0, 'config.asgi' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=settings.BASE_DIR,
        env={**env, "DJANGO_SETTINGS_MODULE": "bench.settings"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False"]


# One small real run ----------------------------------------------------------------------------


def bench_env():
    """The environment of a benchmark run: with DATABASE_URL the benchmark runs on that
    database, and then on the test database."""
    env = dict(os.environ)
    if env.get("DATABASE_URL"):
        url = urlsplit(env["DATABASE_URL"])
        env["DATABASE_URL"] = url._replace(path="/" + connection.settings_dict["NAME"]).geturl()
    return env


@pytest.mark.django_db(transaction=True)
def test_small_run_end_to_end():
    """A real server, real sockets and POSTs: every key is a number, nothing lost."""
    env = bench_env()
    command = [
        sys.executable,
        "manage.py",
        "bench_rolls",
        "--rooms",
        "1",
        "--clients",
        "2",
        "--rate",
        "5",
        "--seconds",
        "1",
        "--json",
    ]
    done = subprocess.run(
        command, cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    keys = {
        "app": [
            "p50_ms",
            "p99_ms",
            "max_ms",
            "rolls_per_s",
            "lost",
            "duplicated",
            "cpu_s",
            "cpu_pct",
            "rss_peak_mb",
            "cpu_ms_per_roll",
        ],
        "floor_django": ["p50_ms", "p99_ms", "max_ms", "rolls_per_s", "lost", "cpu_ms_per_roll"],
        "floor_http": ["p50_ms", "p99_ms", "max_ms", "rolls_per_s", "lost"],
        "floor_channels": ["p50_ms", "p99_ms", "max_ms", "rolls_per_s", "lost"],
        "floor_websockets": ["p50_ms", "p99_ms", "max_ms", "rolls_per_s", "lost"],
    }
    for phase, names in keys.items():
        for name in names:
            value = out[phase][name]
            assert is_number(value), (phase, name)
        assert out[phase]["lost"] == 0, out[phase]
        assert out[phase]["duplicated"] == 0, out[phase]
        assert out[phase]["misrouted"] == 0, out[phase]
    for short in ("django", "http", "channels", "websockets"):
        assert isinstance(out[f"app_over_{short}_p99"], float)
        assert f"app_over_{short}_cpu" in out
    # The Django floor's push is as long as the app's, and went to its room's every socket.
    assert out["floor_django"]["sent"] == out["app"]["sent"] == 5
    assert abs(out["floor_django"]["payload_bytes"] - out["app"]["payload_bytes"]) <= 1
    # The CPU ratio, unless the floor's five requests used less CPU than the kernel counts (a
    # clock tick, 10 ms): then there is no ratio to give, and it says so (None), not infinity.
    app_cpu, floor_cpu = out["app"]["cpu_ms_per_roll"], out["floor_http"]["cpu_ms_per_roll"]
    assert is_number(floor_cpu) and floor_cpu >= 0
    if floor_cpu:
        assert out["app_over_http_cpu"] == round(app_cpu / floor_cpu, 2)
    else:
        assert out["app_over_http_cpu"] is None
    assert "ladder" not in out


@pytest.mark.django_db(transaction=True)
def test_a_ladder_climbs_the_rates_until_the_knee():
    """``--ladder``: the app alone at rising rates, each on checks of its own, up to the first
    rate past the knee (or the last rate)."""
    command = [sys.executable, "manage.py", "bench_rolls", "--rooms", "1", "--clients", "1"]
    command += ["--seconds", "0.1", "--skip-floors", "--ladder", "--json"]
    done = subprocess.run(
        command, cwd=settings.BASE_DIR, env=bench_env(), capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    ladder = out["ladder"]
    rates = [step["rate"] for step in ladder]
    assert rates == list(LADDER[: len(rates)])
    assert all(report.under_the_knee(step) for step in ladder[:-1])
    assert len(ladder) == len(LADDER) or not report.under_the_knee(ladder[-1])
    for step in ladder:
        assert step["duplicated"] == 0 and step["misrouted"] == 0, step
        assert is_number(step["cpu_ms_per_roll"]), step
    assert out["saturation_rate"] == report.saturation_rate(ladder)


@POSTGRES_AND_REDIS
@pytest.mark.django_db(transaction=True)
def test_small_run_on_two_servers_measures_daphne_postgresql_and_redis():
    """Two daphne processes on PostgreSQL + Redis, each room's sockets on both: nothing lost,
    and the CPU per roll of both processes, of PostgreSQL's backends and of Redis."""
    command = [sys.executable, "manage.py", "bench_rolls", "--servers", "2", "--rooms", "2"]
    command += ["--clients", "2", "--rate", "10", "--seconds", "1", "--skip-floors", "--json"]
    done = subprocess.run(
        command, cwd=settings.BASE_DIR, env=bench_env(), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    assert out["config"]["servers"] == 2
    assert out["config"]["database"] == "postgresql"
    assert out["config"]["layer"] == "RedisChannelLayer"
    app = out["app"]
    assert (app["sent"], app["lost"], app["duplicated"], app["misrouted"]) == (10, 0, 0, 0)
    assert len(app["cpu_s_by_server"]) == 2
    assert all(is_number(cpu) and cpu >= 0 for cpu in app["cpu_s_by_server"])
    assert app["cpu_s"] == pytest.approx(sum(app["cpu_s_by_server"]), abs=0.002)
    assert app["cpu_s"] > 0
    for name in ("cpu_ms_per_roll", "pg_cpu_s", "pg_cpu_ms_per_roll", "redis_cpu_ms_per_roll"):
        assert is_number(app[name]) and app[name] >= 0, name
    assert app["redis_cpu_s"] > 0
    assert app["cpu_ms_per_roll"] == pytest.approx(100 * app["cpu_s"], abs=0.01)
    assert "floor_http" not in out


@pytest.mark.django_db(transaction=True)
def test_the_insights_benchmark_times_each_page_for_each_viewer():
    """``bench_insights``: a small log, built through the log's append, and every page timed
    over HTTP, each answered 200 with a body."""
    command = [sys.executable, "manage.py", "bench_insights", "--entries", "60"]
    command += ["--session-rolls", "20", "--repeat", "1", "--talk", "0.2", "--json"]
    done = subprocess.run(
        command, cwd=settings.BASE_DIR, env=bench_env(), capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    assert out["entries"] == 60 and out["session_rolls"] == 20 and out["talk"] == 0.2
    seen = [(page["page"], page["viewer"]) for page in out["pages"]]
    assert seen == [
        ("room", "gm"),
        ("room", "player"),
        ("luck", "gm"),
        ("luck", "player"),
        ("tuning", "gm"),
        ("session summary", "gm"),
        ("session summary", "player"),
        ("log.csv", "gm"),
        ("log.csv", "player"),
        ("log.json", "gm"),
        ("log.json", "player"),
    ]
    for page in out["pages"]:
        assert page["status"] == 200 and page["bytes"] > 0, page
        assert 0 < page["first_ms"] <= page["total_ms"] <= page["total_ms_max"], page


@pytest.mark.django_db(transaction=True)
def test_the_insights_benchmark_times_the_pages_asked_for_alone():
    """``bench_insights --pages``: those pages only, for each of their viewers; a page it does
    not know is refused before anything is built."""
    command = [sys.executable, "manage.py", "bench_insights", "--entries", "30"]
    command += ["--session-rolls", "10", "--repeat", "1", "--pages", "log.json,tuning", "--json"]
    done = subprocess.run(
        command, cwd=settings.BASE_DIR, env=bench_env(), capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    seen = [(page["page"], page["viewer"]) for page in out["pages"]]
    assert seen == [("tuning", "gm"), ("log.json", "gm"), ("log.json", "player")]
    assert all(page["status"] == 200 and page["bytes"] > 0 for page in out["pages"])
    command[command.index("log.json,tuning")] = "log.xml"
    done = subprocess.run(
        command, cwd=settings.BASE_DIR, env=bench_env(), capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0 and "no page log.xml" in done.stderr
