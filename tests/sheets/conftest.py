"""Sheet fixtures: a character for each player in each system, characters elsewhere, and the
sparetime tests' characters (made with helpers.make_character: the SHEET ratings only)."""

import pytest

from campaigns.models import Campaign
from sheets.services import character_create, sparetime_delegate
from tests.conftest import make_campaign
from tests.sheets.helpers import make_character


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
    campaign = make_campaign(gm, system=Campaign.MANA, name="Far Harbor", players=[player])
    return character_create(campaign=campaign, owner=player, name="Mira Elsewhere")


# Sparetime: Strength 2, Climb 2, Agility 1, Dodge 0 each ------------------------------------------
@pytest.fixture
def hero(pool_campaign, player):
    """Ana's character Aria."""
    return make_character(pool_campaign, player, "Aria")


@pytest.fixture
def bens(pool_campaign, other_player):
    """Ben's character Bram."""
    return make_character(pool_campaign, other_player, "Bram")


@pytest.fixture
def npc(pool_campaign, gm):
    """The GM's Innkeeper."""
    return make_character(pool_campaign, gm, "Innkeeper")


@pytest.fixture
def delegated(pool_campaign, gm, player):
    """Ana may hand out 5."""
    return sparetime_delegate(campaign=pool_campaign, player=player, amount=5, by=gm)
