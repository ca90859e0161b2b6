"""Sheet fixtures: a character for each player in each system, and characters elsewhere."""

import pytest

from sheets.services import character_create
from tests.conftest import make_campaign


@pytest.fixture
def ana_hero(pool_campaign, player):
    return character_create(campaign=pool_campaign, owner=player, name="Ada", concept="Scout")


@pytest.fixture
def ben_hero(pool_campaign, other_player):
    return character_create(campaign=pool_campaign, owner=other_player, name="Bram")


@pytest.fixture
def ana_mage(mana_campaign, player):
    return character_create(campaign=mana_campaign, owner=player, name="Mira")


@pytest.fixture
def ben_mage(mana_campaign, other_player):
    return character_create(campaign=mana_campaign, owner=other_player, name="Tobin")


@pytest.fixture
def elsewhere_hero(gm, player):
    """Ana's character in another Pool campaign run by the same GM."""
    campaign = make_campaign(gm, name="Elsewhere", players=[player])
    return character_create(campaign=campaign, owner=player, name="Ada Elsewhere")


@pytest.fixture
def elsewhere_mage(gm, player):
    """Ana's character in another Mana campaign run by the same GM."""
    campaign = make_campaign(gm, system="mana", name="Far Harbor", players=[player])
    return character_create(campaign=campaign, owner=player, name="Mira Elsewhere")
