"""Fixtures of the systems tests: the toy third system, coins (tests/systems/coins/), and the
fourth, Fate-style (tests/systems/fate/, an app with models of its own), registered as the real
systems are, through the setting ``ROLL_SYSTEMS``, for the tests that ask for them alone; and
the sheet tests' characters (tests/sheets/conftest.py), for the tests of a system's
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
#: The Fate-style package, as the settings name it (tests/settings.py installs it as an app).
FATE = "tests.systems.fate"


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


@pytest.fixture
def fate_system(settings):
    """The Fate-style system, registered for the test as the coin is: ``ROLL_SYSTEMS`` names its
    package and the registry is filled again from the setting. Its templates and tables are an
    installed app's (tests/settings.py), nothing more. Afterwards the registry holds what it
    held before."""
    from tests.systems import fate

    before = dict(SYSTEMS)
    settings.ROLL_SYSTEMS = [*settings.ROLL_SYSTEMS, FATE]
    register_all()
    yield SYSTEMS[fate.SYSTEM.key]
    SYSTEMS.clear()
    SYSTEMS.update(before)
