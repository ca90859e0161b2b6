"""What a Pool check's suggestion binds (rolls.rules.sheet.asked_in): pure, no database."""

import pytest

from rolls.rules.sheet import asked_in

SHEET = [
    ("Strength", ""),
    ("Strength", "Climb"),
    ("Strength", "Jump"),
    ("Agility", ""),
    ("Agility", "Run"),
    ("Education", ""),
    ("Education", "Alchemy"),
    ("MagicXP", ""),
    ("MagicXP", "Alchemy Spells"),
    ("Education", "Geography: Northern Marches"),
]


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        ("strength", ("Strength", "")),
        ("JUMP!", ("Strength", "Jump")),
        ("Climb or Jump", ("Strength", "")),  # two skills: the attribute they share
        ("Run or Jump", ("", "")),  # skills of two attributes: nothing
        ("Alchemy Spells", ("MagicXP", "Alchemy Spells")),  # not Education's Alchemy
        ("Alchemy", ("Education", "Alchemy")),
        ("Geography: Northern Marches", ("Education", "Geography: Northern Marches")),
        ("Running late", ("", "")),  # "Run" as a word only
        ("Strength or Agility", ("", "")),
        ("Agility + Jump", ("Agility", "")),
        ("", ("", "")),
    ],
)
def test_asked_in(text, asked):
    assert asked_in(text, SHEET) == asked
