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


#: A name for each blank, to show how a taken template reads.
EXAMPLES = {"Region": "Northern Marches", "Society": "High Court", "Vocation": "Blacksmith"}


def template_label(template):
    """How a template reads on a sheet before it is taken, without its braces:
    ``"Geography: {Region}"`` -> ``"Geography (name a region)"``, ``"{Vocation}"`` ->
    ``"Vocation (name a vocation)"``."""
    blank = template_blank(template)
    if blank is None:
        return template
    before = template[: template.index("{")].rstrip(" :")
    article = "an" if blank[:1].lower() in "aeiou" else "a"
    return f"{before or blank} (name {article} {blank.lower()})"


def template_example(template):
    """The template taken with an example name: ``"Geography: Northern Marches"``."""
    blank = template_blank(template)
    return fill_template(template, EXAMPLES.get(blank, blank))


def fixed_skills(attribute):
    """The attribute's skills that every sheet starts with (templates left out)."""
    return [s for s in ATTRIBUTES[attribute] if not is_template(s)]


def templates(attribute):
    return [s for s in ATTRIBUTES[attribute] if is_template(s)]


def _names(text, name):
    """Whether ``text`` names ``name`` (casefolded, as a whole word or words)."""
    return re.search(rf"(?<!\w){re.escape(name.casefold())}(?!\w)", text.casefold()) is not None


def asked_in(text, ratings):
    """What a check's suggestion ``text`` asks a sheet to roll: ``(attribute, skill)``, names
    of ``ratings`` (``(attribute, skill)`` pairs, skill "" for the attribute itself), "" for
    what it leaves to the player.

    An attribute named binds the attribute; a skill named binds the skill and its attribute
    (a skill of another attribute than the one named binds nothing more). A choice between
    several attributes, or between several skills, is the player's: "Climb or Jump" binds
    Strength alone, "Strength or Agility" nothing. Text that names none of them binds nothing."""
    attributes = {a for a, s in ratings if not s and _names(text, a)}
    if len(attributes) > 1:
        return "", ""
    attribute = next(iter(attributes), "")
    skills = [(a, s) for a, s in ratings if s and _names(text, s)]
    if attribute:
        skills = [(a, s) for a, s in skills if a == attribute]
    # A name inside a longer one found ("Alchemy" in "Alchemy Spells") is that one.
    skills = [(a, s) for a, s in skills if not any(s != o and _names(o, s) for _a, o in skills)]
    if len(skills) == 1:
        return skills[0]
    if not attribute and skills and len({a for a, _s in skills}) == 1:
        attribute = skills[0][0]
    return attribute, ""
