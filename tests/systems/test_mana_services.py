"""Mana's writes on the pools (rolls/systems/mana/services.py): the GM's maxima and refills."""

import pytest

from rolls.systems.mana import services
from rolls.systems.mana.models import COLORLESS, ManaSettings, palette_of
from tests.helpers import raises_refused, unchanged
from tests.sheets.helpers import pools

# Mana pools ------------------------------------------------------------------------------------


def test_mana_set_maxima_lowers_current_above_the_new_maximum(ana_mage):
    services.mana_set_maxima(character=ana_mage, maxima={"blue": 5, "red": 3})
    services.mana_refill(campaign=ana_mage.campaign, character=ana_mage)
    services.mana_set_maxima(character=ana_mage, maxima={"blue": 2, "red": 4})
    assert pools(ana_mage)["blue"] == (2, 2)
    assert pools(ana_mage)["red"] == (3, 4)


@pytest.mark.parametrize(
    ("maxima", "message"),
    [
        ({"blue": -1}, "between 0 and 99"),
        ({"blue": 100}, "between 0 and 99"),
        ({"blue": 1, "gold": 2}, "not a color"),
    ],
)
def test_mana_set_maxima_refuses_bad_input(ana_mage, maxima, message):
    with unchanged(), raises_refused(match=message):
        services.mana_set_maxima(character=ana_mage, maxima=maxima)


def test_mana_set_maxima_creates_the_row_of_a_new_palette_color(ana_mage, mana_campaign):
    palette = [*palette_of(mana_campaign), "gold"]
    ManaSettings.objects.update_or_create(campaign=mana_campaign, defaults={"palette": palette})
    ana_mage.campaign = mana_campaign
    services.mana_set_maxima(character=ana_mage, maxima={"gold": 4})
    assert pools(ana_mage)["gold"] == (0, 4)


def test_mana_refill_one_character(ana_mage, ben_mage, mana_campaign):
    for character in (ana_mage, ben_mage):
        services.mana_set_maxima(character=character, maxima={"white": 3, COLORLESS: 2})
    services.mana_refill(campaign=mana_campaign, character=ana_mage)
    assert pools(ana_mage)["white"] == (3, 3) and pools(ana_mage)[COLORLESS] == (2, 2)
    assert pools(ben_mage)["white"] == (0, 3)


def test_mana_refill_everyone(ana_mage, ben_mage, mana_campaign, elsewhere_mage):
    for character in (ana_mage, ben_mage, elsewhere_mage):
        services.mana_set_maxima(character=character, maxima={"green": 2})
    assert services.mana_refill(campaign=mana_campaign) == 12
    assert pools(ana_mage)["green"] == pools(ben_mage)["green"] == (2, 2)
    assert pools(elsewhere_mage)["green"] == (0, 2)


def test_mana_refill_refuses_a_character_of_another_campaign(mana_campaign, elsewhere_mage):
    services.mana_set_maxima(character=elsewhere_mage, maxima={"green": 2})
    with unchanged(), raises_refused(match="does not play"):
        services.mana_refill(campaign=mana_campaign, character=elsewhere_mage)
