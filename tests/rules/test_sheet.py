"""The Pool sheet (rules.sheet): how its template skills read before and after they are
taken; what a check's suggestion binds (asked_in)."""

import pytest

from rules import sheet


@pytest.mark.parametrize(
    ("template", "label"),
    [
        ("Geography: {Region}", "Geography (name a region)"),
        ("Manners: {Society}", "Manners (name a society)"),
        ("{Vocation}", "Vocation (name a vocation)"),
        ("Lore: {Age}", "Lore (name an age)"),
        ("Dodge", "Dodge"),
    ],
)
def test_template_label(template, label):
    assert sheet.template_label(template) == label


def test_every_template_of_the_sheet_reads_without_braces():
    for attribute in sheet.ATTRIBUTES:
        for template in sheet.templates(attribute):
            assert "{" not in sheet.template_label(template)
            assert "{" not in sheet.template_example(template)


def test_template_example():
    assert sheet.template_example("Geography: {Region}") == "Geography: Northern Marches"
    assert sheet.template_example("{Vocation}") == "Blacksmith"
    assert sheet.template_example("Lore: {Age}") == "Lore: Age"


def test_fill_template():
    assert sheet.fill_template("Geography: {Region}", "  Salt   Coast ") == "Geography: Salt Coast"
    with pytest.raises(ValueError, match="Name the Region."):
        sheet.fill_template("Geography: {Region}", "   ")


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
    assert sheet.asked_in(text, SHEET) == asked
