"""Fixtures of the room's tests: the rolls tests' own (tests/rolls/conftest.py), whose helpers
(tests/rolls/room_setup.py, tests/rolls/sockets.py) they share."""

from tests.rolls.conftest import elsewhere  # noqa: F401 (a fixture, found by its name)
