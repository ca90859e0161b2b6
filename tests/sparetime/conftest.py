"""Sparetime fixtures: characters with the SHEET ratings (helpers.character_with_ratings) and a
delegation."""

import pytest

from sparetime.services import sparetime_delegate
from tests.sparetime.helpers import character_with_ratings


# Strength 2, Climb 2, Agility 1, Dodge 0 each ----------------------------------------------------
@pytest.fixture
def hero(pool_campaign, player):
    """Ana's character Aria."""
    return character_with_ratings(pool_campaign, player, "Aria")


@pytest.fixture
def bens(pool_campaign, other_player):
    """Ben's character Bram."""
    return character_with_ratings(pool_campaign, other_player, "Bram")


@pytest.fixture
def npc(pool_campaign, gm):
    """The GM's Innkeeper."""
    return character_with_ratings(pool_campaign, gm, "Innkeeper")


@pytest.fixture
def delegated(pool_campaign, gm, player):
    """Ana may hand out 5."""
    return sparetime_delegate(campaign=pool_campaign, player=player, amount=5, by=gm)
