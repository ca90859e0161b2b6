"""Fixtures of the rolls tests (their helpers are in room_setup.py and sockets.py; the tables
``mana_table`` and ``pool_table``, ``pushes`` and ``empty_channel_layer`` are in
tests/conftest.py)."""

import pytest

from rolls import services
from rolls.systems.mana.models import ManaSkill
from sheets.services import character_create
from tests.conftest import make_campaign


@pytest.fixture
def elsewhere(gm, player):
    """Another Mana campaign of the same GM and player, with a character, skill and check."""
    campaign = make_campaign(gm, system="mana", name="Elsewhere", players=[player])
    character = character_create(campaign=campaign, owner=player, name="Faraway")
    skill = ManaSkill.objects.create(
        campaign=campaign, name="Far Sight", color_a="blue", color_b="white"
    )
    check = services.check_ask(campaign=campaign, character=character, by=gm, target=2)
    return campaign, character, skill, check
