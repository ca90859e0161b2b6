"""Restarts under load in the production layout (the fixture ``deployment``: Caddy with
`tls internal` in front of two daphne processes on PostgreSQL and Redis): players roll through
Caddy over HTTPS and hold the room's socket over wss (tests/load.py) while

- both processes are restarted one after the other, as an upgrade does (SIGTERM, the process
  drains and exits, started again, and the next one only once Caddy's health checks see it
  healthy);
- one process is killed (SIGKILL) and the players go on through the other.

Then every roll answered 2xx is in the log exactly once, none twice, none that no player sent,
the log verifies, and every socket has every entry of the log, once. The longest time a player
was without its socket is printed ("longest without socket: ... s", ``pytest -s``)."""

import io
import time

import pytest
from django.core.management import call_command

from tests.deploy.conftest import DOMAIN, SCALEOUT
from tests.faults import daphne_log
from tests.load import RollLoad, Site, load_table, rolls_logged_once, sockets_caught_up

pytestmark = [SCALEOUT, pytest.mark.django_db(transaction=True)]

#: Players rolling at once, and the open checks each has (more than it can roll in the test).
PLAYERS = 12
CHECKS = 60
#: Rolls answered 2xx between two steps of a test: the load goes on through each.
BETWEEN = 20


def wait_until(condition, what, timeout=60, details=str):
    """Wait until ``condition()`` holds, looking every 50 ms (a process's state that nothing
    signals: Caddy's log, daphne's access log)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"never: {what}{details()}")
        time.sleep(0.05)


@pytest.fixture
def table(deployment):
    return load_table(PLAYERS, CHECKS)


def site(deployment):
    return Site(DOMAIN, deployment.caddy.https_port, tls=deployment.ssl_context())


def checked(load, campaign_id, what):
    """The checks every test of the file makes once the load has stopped."""
    statuses = rolls_logged_once(campaign_id, load.players)
    sockets_caught_up(load)
    call_command("verify_rolls", stdout=io.StringIO())  # raises CommandError when broken
    longest = load.longest_without_socket()
    print(f"\n{what}: rolls answered {dict(statuses)}; longest without socket: {longest:.2f} s")
    return statuses


def test_a_rolling_restart_loses_no_roll_and_every_socket_catches_up(deployment, table):
    campaign_id, players = table
    with RollLoad(site(deployment), players) as load:
        load.wait_for_rolls(BETWEEN)
        for index in range(len(deployment.ports)):
            # systemctl restart: SIGTERM, the drain, the exit (within 10 s), a new process.
            assert deployment.terminate(index) == 0, daphne_log(deployment.ports[index])
            assert "Traceback" not in daphne_log(deployment.ports[index])
            deployment.start(index)
            wait_until(
                lambda index=index: deployment.healthy_behind_proxy(index),
                f"Caddy sees {deployment.upstream(index)} healthy again",
                details=lambda index=index: deployment.health_story(index),
            )
            load.wait_for_rolls(BETWEEN)
        load.stop_rolling()
        statuses = checked(load, campaign_id, "rolling restart")
    assert statuses[204] >= BETWEEN * 3
    for port in deployment.ports:
        assert "Traceback" not in daphne_log(port)


def test_a_process_killed_loses_no_answered_roll_and_the_other_serves(deployment, table):
    campaign_id, players = table
    with RollLoad(site(deployment), players) as load:
        load.wait_for_rolls(BETWEEN)
        deployment.kill(0)
        load.wait_for_rolls(BETWEEN * 2)
        load.stop_rolling()
        statuses = checked(load, campaign_id, "one process killed")
    assert statuses[204] >= BETWEEN * 3
    # Caddy's health checks took the dead process out; the other served the rest.
    assert deployment.caddy.health_seen(deployment.upstream(0)) is False
    assert "Traceback" not in daphne_log(deployment.ports[1])
