"""Fixtures of the rolls tests (their helpers are in room_setup.py)."""

import pytest

from campaigns.models import Campaign, ManaSkill
from rolls import services
from sheets.services import character_create
from tests.conftest import make_campaign
from tests.rolls.room_setup import build_mana_table, build_pool_table, record_pushes


@pytest.fixture
def mana_table(mana_campaign, gm, player, other_player):
    """The Mana table (room_setup.build_mana_table)."""
    return build_mana_table(mana_campaign, gm, player, other_player)


@pytest.fixture
def pool_table(pool_campaign, gm, player, other_player):
    """The Pool table (room_setup.build_pool_table)."""
    return build_pool_table(pool_campaign, gm, player, other_player)


@pytest.fixture
def pushes(monkeypatch):
    """Every push sent during the test (room_setup.PushRecorder)."""
    return record_pushes(monkeypatch)


@pytest.fixture
def elsewhere(gm, player):
    """Another Mana campaign of the same GM and player, with a character, skill and check."""
    campaign = make_campaign(gm, system=Campaign.MANA, name="Elsewhere", players=[player])
    character = character_create(campaign=campaign, owner=player, name="Faraway")
    skill = ManaSkill.objects.create(
        campaign=campaign, name="Far Sight", color_a="blue", color_b="white"
    )
    check = services.check_ask(campaign=campaign, character=character, by=gm, target=2)
    return campaign, character, skill, check
