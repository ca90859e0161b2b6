"""Fixtures of the systems tests: the toy third system, coins (tests/systems/coins/), registered
as the real systems are, through the setting ``ROLL_SYSTEMS``, for the tests that ask for it
alone; and the sheet tests' characters (tests/sheets/conftest.py), for the tests of a system's
own views (its sheet section's writes, its GM panel sections)."""

import copy
from pathlib import Path

import pytest

from campaigns.systems import SYSTEMS
from rolls.systems import register_all
from tests.conftest import make_campaign
from tests.sheets.conftest import (  # noqa: F401 (fixtures)
    ana_hero,
    ana_mage,
    ben_hero,
    ben_mage,
    elsewhere_hero,
    elsewhere_mage,
)
from tests.systems import coins

#: The coin package, as the setting ``ROLL_SYSTEMS`` names it.
COINS = "tests.systems.coins"


@pytest.fixture
def coin_system(settings):
    """The coin system, registered for the test: ``ROLL_SYSTEMS`` names its package and the
    registry is filled again from the setting (``rolls.systems.register_all``, as ``rolls``
    does at its ``ready()``); its templates (``templates/`` in its package, as Pool's and
    Mana's are in theirs) are a template directory, since it is no installed app, made one
    before it is registered (registration refuses a system whose templates are not there).
    Afterwards
    the registry holds what it held before: no other test sees the coin."""
    before = dict(SYSTEMS)
    engine = copy.deepcopy(settings.TEMPLATES[0])
    engine["DIRS"] = [*engine["DIRS"], Path(coins.__file__).parent / "templates"]
    settings.TEMPLATES = [engine]  # first: registration finds the templates the coin names
    settings.ROLL_SYSTEMS = [*settings.ROLL_SYSTEMS, COINS]
    register_all()
    yield SYSTEMS[coins.SYSTEM.key]
    SYSTEMS.clear()
    SYSTEMS.update(before)


@pytest.fixture
def coin_campaign(coin_system, gm, player):
    return make_campaign(gm, system=coin_system.key, name="Heads or tails", players=[player])
