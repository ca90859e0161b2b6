"""The sockets' shared trips to the database thread (core.trips): a piece alone goes at once;
the pieces queued while a trip runs go together in the next one, in the order they came, each
with its own result or exception; a piece whose waiter was cancelled before its trip began is
not run."""

import asyncio
import threading

import pytest

from core import trips as trips_module
from core.trips import Trips

pytestmark = pytest.mark.asyncio

TIMEOUT = 10


@pytest.fixture
def counted(monkeypatch):
    """The trips taken: the pieces of each, by their first argument."""
    taken = []
    run_each = trips_module.run_each

    def counting(pieces):
        taken.append([args[0] for _, args, _ in pieces])
        return run_each(pieces)

    monkeypatch.setattr(trips_module, "run_each", counting)
    return taken


async def test_a_piece_alone_goes_at_once_in_a_trip_of_its_own(counted):
    trips = Trips()
    assert await asyncio.wait_for(trips.run(lambda x: x * 2, 21), TIMEOUT) == 42
    assert counted == [[21]]


async def test_pieces_queued_while_a_trip_runs_share_the_next_one_in_order(counted):
    trips = Trips()
    started, release = threading.Event(), threading.Event()
    ran = []

    def first(name):
        started.set()
        release.wait(TIMEOUT)
        ran.append(name)
        return name

    def piece(name):
        ran.append(name)
        if name == "c":
            raise ValueError(name)
        return name.upper()

    head = asyncio.ensure_future(trips.run(first, "a"))
    assert await asyncio.to_thread(started.wait, TIMEOUT)
    rest = [asyncio.ensure_future(trips.run(piece, name)) for name in "bcd"]
    await asyncio.sleep(0)  # queued, while the first trip holds the thread
    release.set()
    results = await asyncio.wait_for(asyncio.gather(head, *rest, return_exceptions=True), TIMEOUT)
    assert results[0] == "a" and results[1] == "B" and results[3] == "D"
    assert isinstance(results[2], ValueError)  # its own exception, the others unharmed
    assert ran == ["a", "b", "c", "d"]
    assert counted == [["a"], ["b", "c", "d"]]


async def test_a_piece_whose_waiter_was_cancelled_before_its_trip_is_not_run(counted):
    trips = Trips()
    started, release = threading.Event(), threading.Event()
    ran = []

    def first(name):
        started.set()
        release.wait(TIMEOUT)
        return name

    head = asyncio.ensure_future(trips.run(first, "a"))
    assert await asyncio.to_thread(started.wait, TIMEOUT)
    gone = asyncio.ensure_future(trips.run(ran.append, "gone"))
    kept = asyncio.ensure_future(trips.run(ran.append, "kept"))
    await asyncio.sleep(0)
    gone.cancel()
    release.set()
    assert await asyncio.wait_for(head, TIMEOUT) == "a"
    await asyncio.wait_for(kept, TIMEOUT)
    assert ran == ["kept"]
    assert gone.cancelled()
