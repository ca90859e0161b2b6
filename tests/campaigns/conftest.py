"""Fixtures for the campaigns tests: a snapshot of the campaign tables, characters, htmx posts."""

import pytest

from campaigns.models import Campaign, ManaSkill, Membership
from sheets.models import Character, ManaPool

HTMX = {"HX-Request": "true"}


@pytest.fixture
def db_state():
    """``db_state()`` -> every row of the tables the campaigns views write, to compare."""

    def snapshot():
        return {
            model.__name__: list(model.objects.order_by("pk").values())
            for model in (Campaign, Membership, ManaSkill, Character, ManaPool)
        }

    return snapshot


@pytest.fixture
def make_character():
    """``make_character(campaign, owner, name, pools={color: (current, maximum)})``."""

    def make(campaign, owner, name="Rook", pools=None):
        character = Character.objects.create(campaign=campaign, owner=owner, name=name)
        for color, (current, maximum) in (pools or {}).items():
            ManaPool.objects.create(
                character=character, color=color, current=current, maximum=maximum
            )
        return character

    return make
