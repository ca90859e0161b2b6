"""The Pool system's sheet, as the rules list it: eight attributes (d6), each with its
skills (d10). Names written with braces are templates a character may take several times with
the blank filled in (``Geography: {Region}`` becomes ``Geography: Northern Marches``)."""

import re

ATTRIBUTES = {
    "Agility": ["Dodge", "Balance", "Run", "Catch"],
    "Combat": ["Cut Weapons", "Knock Weapons", "Pierce Weapons", "Ranged", "Unarmed"],
    "Education": [
        "Cooking",
        "Horse Riding",
        "Alchemy",
        "Medicine",
        "Geography: {Region}",
        "{Vocation}",
    ],
    "MagicXP": [
        "Alchemy Spells",
        "Antimagic Spells",
        "Focus Spells",
        "Geo Spells",
        "Heat Spells",
        "Ice Spells",
        "Life Spells",
        "Lightning Spells",
        "Water Spells",
    ],
    "Social": ["Empathy & Manipulation", "Negotiate", "Manners: {Society}"],
    "Strength": ["Endurance", "Block", "Climb", "Jump", "Swim"],
    "Survival": ["Animals", "Plants", "Orientation", "Traps"],
    "Trick": ["Stealth", "Quick Hands", "Ambush"],
}

#: The skill whose rating feeds the HP maximum.
ENDURANCE = "Endurance"

_BLANK = re.compile(r"\{([^}]+)\}")


def is_template(skill):
    return bool(_BLANK.search(skill))


def template_blank(skill):
    """``"Geography: {Region}"`` -> ``"Region"``."""
    match = _BLANK.search(skill)
    return match.group(1) if match else None


def fill_template(template, value):
    """Fill a template skill's blank: ``fill_template("Manners: {Society}", "Court")``."""
    value = " ".join(value.split())
    if not value:
        raise ValueError(f"Name the {template_blank(template)}.")
    return _BLANK.sub(value, template, count=1)


def fixed_skills(attribute):
    """The attribute's skills that every sheet starts with (templates left out)."""
    return [s for s in ATTRIBUTES[attribute] if not is_template(s)]


def templates(attribute):
    return [s for s in ATTRIBUTES[attribute] if is_template(s)]
