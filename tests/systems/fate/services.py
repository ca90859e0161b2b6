"""The Fate-style system's rules and its write, the roll: four Fudge dice, each drawn as a d3
from the dice source every system rolls with (``rolls.services.roll_dice``: 1, 2, 3 are -1, 0,
+1), so that ``verify_rolls`` checks them as it checks Pool's and Mana's; the exact odds of
their sum; the roll logged with its chance."""

from fractions import Fraction

from django.db import transaction

from core.text import isolated
from core.writes import Refused
from rolls import services as shared
from rolls.models import Check, LogEntry
from rules import odds

#: The system's key, which every roll's data names.
KEY = "fate_style"
#: How many Fudge dice a roll rolls, and the faces of the draw each one is.
DICE, FACES = 4, 3
#: In how many of the 3**4 ways four Fudge dice fall each sum from -4 to +4.
WAYS = {
    total: ways for total, ways in zip(range(-4, 5), (1, 4, 10, 16, 19, 16, 10, 4, 1), strict=True)
}


def sum_chance(total):
    """The exact chance that four Fudge dice sum to ``total``."""
    return Fraction(WAYS.get(total, 0), FACES**DICE)


def chance(rating, difficulty):
    """The exact chance that four Fudge dice plus ``rating`` meet ``difficulty``."""
    return sum((sum_chance(t) for t in WAYS if rating + t >= difficulty), Fraction(0))


def fudge_dice(rng):
    """Four Fudge dice from ``rng``: each a draw of 1 to 3, less 2."""
    return [rng.randint(1, FACES) - 2 for _ in range(DICE)]


def outcome(rating, target, faces):
    """What four Fudge dice ``faces`` decide of a roll of ``rating`` against ``target``."""
    total = rating + sum(faces)
    return {"faces": faces, "total": total, "success": total >= target}


def roll(check, *, by, data):
    """``check_roll_fate`` with what the roll form sent (its cleaned ``data``)."""
    return check_roll_fate(
        check=check,
        by=by,
        skill=data["skill"],
        intent=data.get("intent", ""),
        contribution=data.get("contribution", ""),
    )


@transaction.atomic(savepoint=False)
def check_roll_fate(*, check, by, skill, intent="", contribution="", rng=None):
    """Roll ``check`` with ``skill`` (one of its character's) and log the roll."""
    if check.character.owner_id != by.pk:
        raise Refused("Only the character's player rolls this check.")
    if skill is None or skill.character_id != check.character_id:
        raise Refused("Choose one of your character's skills.")
    skill_require(check, skill)
    shared.check_claim(check, Check.DONE, intent=intent)
    head, rolled_dice = shared.roll_dice(check.campaign, contribution=contribution, rng=rng)
    data = {
        "system": KEY,
        "asked": check.suggestion,
        "skill": skill.name,
        "rating": skill.rating,
        **outcome(skill.rating, check.target, fudge_dice(rolled_dice)),
        "target": check.target,
        "chance": odds.as_text(chance(skill.rating, check.target)),
        "intent": intent,
        "note": check.note,
    }
    return shared.log_append(
        campaign=check.campaign,
        kind=LogEntry.ROLL,
        actor=by,
        character=check.character,
        check=check,
        visibility=check.visibility,
        data=data,
        head=head,
        dice=rolled_dice,
    )


def skill_require(check, skill):
    """Refuse a skill other than the one of the character's that the check's suggestion names,
    when it names one."""
    asked = check.suggestion.strip()
    if asked and asked.casefold() != skill.name.casefold():
        if check.character.fate_skills.filter(name__iexact=asked).exists():
            raise Refused(f"This check is for {isolated(asked)}: roll {isolated(asked)}.")
