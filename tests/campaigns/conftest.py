"""Fixtures for the campaigns tests: characters with mana pools."""

import pytest

from rolls.systems.mana.models import ManaPool
from sheets.models import Character


@pytest.fixture
def character_with_pools():
    """``character_with_pools(campaign, owner, name, pools={color: (current, maximum)})``."""

    def make(campaign, owner, name="Rook", pools=None):
        character = Character.objects.create(campaign=campaign, owner=owner, name=name)
        for color, (current, maximum) in (pools or {}).items():
            ManaPool.objects.create(
                character=character, color=color, current=current, maximum=maximum
            )
        return character

    return make
