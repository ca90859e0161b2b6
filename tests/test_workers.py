"""tests/workers.py: each pytest-xdist worker's Redis database, and its ports
(tests.helpers.free_port)."""

from tests.helpers import free_port
from tests.workers import redis_url_of_worker, worker_count, worker_number


def test_each_worker_has_a_redis_database_of_its_own():
    assert redis_url_of_worker("redis://127.0.0.1:6379/11", 0) == "redis://127.0.0.1:6379/11"
    assert redis_url_of_worker("redis://127.0.0.1:6379/11", 2) == "redis://127.0.0.1:6379/13"
    assert redis_url_of_worker("redis://127.0.0.1:6379", 1) == "redis://127.0.0.1:6379/1"
    assert redis_url_of_worker("redis://h:6379/15?socket_timeout=3", 1) == (
        "redis://h:6379/0?socket_timeout=3"
    )


def test_the_worker_is_read_from_xdist_s_environment():
    assert worker_number({}) is None and worker_count({}) == 1
    environ = {"PYTEST_XDIST_WORKER": "gw2", "PYTEST_XDIST_WORKER_COUNT": "3"}
    assert (worker_number(environ), worker_count(environ)) == (2, 3)


def test_free_port_hands_out_a_port_once_and_only_this_worker_s():
    ports = [free_port() for _ in range(20)]
    assert len(set(ports)) == 20
    if worker_number() is not None:
        assert {port % worker_count() for port in ports} == {worker_number()}
