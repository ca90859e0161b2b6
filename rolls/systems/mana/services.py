"""Mana's writes: the roll, which spends the pool's mana; the GM's maxima and refills; a new
campaign's settings and skills; a palette change, which its skills' and pools' colors follow.
Each write is one transaction; what every system shares (the log, the check's state) is
``rolls.services``."""

from django.db import transaction
from django.db.models import F

from core.text import isolated
from core.writes import Refused
from rules import RulesError, mana, odds

from ... import services as shared
from ...models import Check, LogEntry
from .models import (
    COLORLESS,
    ManaCheck,
    ManaPool,
    ManaSettings,
    ManaSkill,
    check_of,
    has_trait,
    palette_of,
    settings_of,
    sheet_of,
)

#: Highest mana maximum per color.
MANA_MAX = 99
#: Longest trait.
TRAIT_MAX = 60


def mana_colors(campaign):
    """The colors a character's mana pool has: the campaign's palette, then colorless."""
    return list(dict.fromkeys([*palette_of(campaign), COLORLESS]))


@transaction.atomic(savepoint=False)
def campaign_fill(*, campaign, palette=None, skills=()):
    """What a new Mana campaign adds (the system's ``campaign_fill``): its settings (``palette``;
    None: the default) and its skills (``skills``: dicts with name, color_a, color_b and
    (optional) trait)."""
    given = {} if palette is None else {"palette": list(palette)}
    campaign.mana_settings = ManaSettings.objects.create(campaign=campaign, **given)
    ManaSkill.objects.bulk_create(ManaSkill(campaign=campaign, **skill) for skill in skills)


@transaction.atomic(savepoint=False)
def palette_update(*, campaign, palette):
    """Set a Mana campaign's palette, keeping skills and character pools consistent.

    ``palette`` lists the new names position for position: ``palette[i]`` is the new name of
    the current ``palette_of(campaign)[i]`` (a rename when it differs) and entries beyond the
    current length are added colors. Colors are never removed. A renamed color is renamed in
    every skill and pool of the campaign, and every character gets a pool row (0/0) for each
    palette color it lacks. The caller validates names (see ``forms.renamed_palette``): a new
    name must not be another current color."""
    row = settings_of(campaign)
    old = list(row.palette)
    if len(palette) < len(old):
        raise Refused("Palette colors can be renamed or added, not removed.")
    renamed = [
        (before, after) for before, after in zip(old, palette, strict=False) if before != after
    ]
    row.palette = list(palette)
    row.save()
    _skills_follow_palette(campaign=campaign, renamed=renamed)
    _pools_follow_palette(campaign=campaign, renamed=renamed)


def _skills_follow_palette(*, campaign, renamed):
    """A renamed color is renamed in every skill of the campaign."""
    for before, after in renamed:
        campaign.mana_skills.filter(color_a=before).update(color_a=after)
        campaign.mana_skills.filter(color_b=before).update(color_b=after)


def _pools_follow_palette(*, campaign, renamed):
    """Rename the campaign's characters' pools of each renamed color, and give every character a
    pool (0/0) of each palette color it lacks."""
    pools = ManaPool.objects.filter(character__campaign=campaign)
    for before, after in renamed:
        pools.filter(color=before).update(color=after)
    have = set(pools.values_list("character_id", "color"))
    ManaPool.objects.bulk_create(
        ManaPool(character_id=character_id, color=color, current=0, maximum=0)
        for character_id in campaign.characters.values_list("id", flat=True)
        for color in palette_of(campaign)
        if (character_id, color) not in have
    )


@transaction.atomic(savepoint=False)
def traits_set(*, character, traits):
    """Replace the character's traits; blanks are dropped and a trait repeated in any case kept
    once."""
    kept = {}
    for trait in traits:
        trait = " ".join(trait.split())
        if trait:
            kept.setdefault(trait.casefold(), trait)
    row = sheet_of(character)
    row.traits = list(kept.values())
    row.save()


def mana_set_maxima(*, character, maxima):
    """Set the mana maximum of each color in ``maxima`` ({color: 0..MANA_MAX}); a current amount
    above its new maximum drops to it. Colors of the palette without a pool row get one."""
    colors = mana_colors(character.campaign)
    for color, maximum in maxima.items():
        if color not in colors:
            raise Refused(f"“{isolated(color)}” is not a color of this campaign.")
        if not 0 <= maximum <= MANA_MAX:
            raise Refused(f"A mana maximum lies between 0 and {MANA_MAX}.")
    with transaction.atomic(savepoint=False):
        for color, maximum in maxima.items():
            pool, _ = ManaPool.objects.select_for_update().get_or_create(
                character=character, color=color
            )
            pool.set_maximum(maximum)


def mana_refill(*, campaign, character=None):
    """Refill every color of ``character``'s pool (or of every character of ``campaign``) to
    its maximum. Returns the number of pool rows written."""
    if character is not None and character.campaign_id != campaign.pk:
        raise Refused(f"{isolated(character)} does not play in {isolated(campaign)}.")
    pools = ManaPool.objects.filter(character__campaign=campaign)
    if character is not None:
        pools = pools.filter(character=character)
    with transaction.atomic(savepoint=False):
        return pools.update(current=F("maximum"))


def previous_units(check):
    """Mana units spent on the earlier attempts of ``check``."""
    if check.pk is None:  # a check not asked yet (the GM's NPC roll form)
        return 0
    return sum(
        entry.data["units"]
        for entry in LogEntry.objects.filter(check_ref=check, kind=LogEntry.ROLL)
    )


def check_fill(check, *, skill=None):
    """A new check's Mana row (``Mana.check_fill``, inside ``rolls.services.check_ask``'s or
    ``check_request``'s transaction): the skill asked (None: any)."""
    check.mana_check = ManaCheck.objects.create(check_ref=check, skill=skill)


def mana_skill_require(check, skill):
    """Refuse a Mana skill other than the check's own, when it has one: the skill asked, or
    the one its first attempt rolled (a re-attempt keeps it)."""
    own = check_of(check)
    if own.skill_id and own.skill_id != skill.pk:
        if check.rolls.exists():
            raise Refused(f"A re-attempt uses the same skill ({isolated(own.skill)}).")
        raise Refused(f"This check is for {isolated(own.skill)}: roll {isolated(own.skill)}.")


def mana_dice(*, check, skill, spend_a, spend_b, colorless):
    """The dice a mana spend would roll on ``check`` (for the live odds and the roll)."""
    try:
        dice = mana.dice_for(
            spend_a,
            spend_b,
            colorless,
            has_trait=has_trait(check.character, skill.trait),
            previous_units=previous_units(check),
        )
    except RulesError as error:
        raise Refused(str(error)) from error
    # The engine knows a re-attempt by its earlier units only; after a free-die attempt that
    # spent nothing there are none, yet a re-attempt must still spend new mana (the /rules/ page).
    if not dice.units and check.pk is not None and check.rolls.exists():
        raise Refused("A re-attempt must spend at least one new mana unit.")
    return dice


def mana_require(spend, have):
    """Refuse a spend (``{color: amount}``) the pool (``have``: ``{color: current}``) cannot pay."""
    for color, amount in spend.items():
        if amount > have.get(color, 0):
            raise Refused(
                f"Not enough {color} mana: you spend {amount}, the pool has {have.get(color, 0)}."
            )


def roll(check, *, by, data):
    """``check_roll_mana`` with what the roll form sent (``Mana.roll``: its cleaned ``data``)."""
    return check_roll_mana(
        check=check,
        by=by,
        skill=data["skill"],
        spend_a=data["spend_a"],
        spend_b=data["spend_b"],
        colorless=data["colorless"],
        intent=data["intent"],
        contribution=data.get("contribution", ""),
    )


@transaction.atomic(savepoint=False)
def check_roll_mana(
    *, check, by, skill, spend_a, spend_b, colorless, intent="", contribution="", rng=None
):
    """Spend mana and roll a Mana check. ``skill`` is a ManaSkill of the campaign, the check's
    own if it has one (asked, or rolled at the first attempt); ``spend_a`` and ``spend_b`` are
    mana of its two colors. The mana leaves the pool whatever the outcome. ``contribution``: the
    roller's browser's to the dice (``rolls.services.roll_dice``)."""
    check = shared.check_locked(check)
    character = check.character
    if check.status != Check.OPEN:
        raise Refused("This check cannot be rolled now.")
    if character.owner_id != by.pk:
        raise Refused("Only the character's player rolls this check.")
    if skill.campaign_id != check.campaign_id:
        raise Refused("Choose one of this campaign's skills.")
    mana_skill_require(check, skill)
    asked = skill.name if check_of(check).skill_id else ""
    spend = {
        skill.color_a: shared.spend_count(spend_a, f"{skill.color_a.title()} mana"),
        skill.color_b: shared.spend_count(spend_b, f"{skill.color_b.title()} mana"),
        COLORLESS: shared.spend_count(colorless, "Colorless mana"),
    }
    dice = mana_dice(
        check=check, skill=skill, spend_a=spend_a, spend_b=spend_b, colorless=colorless
    )
    pools = {
        p.color: p
        for p in ManaPool.objects.select_for_update().filter(character=character, color__in=spend)
    }
    mana_require(spend, {color: p.current for color, p in pools.items()})
    for color, amount in spend.items():
        if amount:
            ManaPool.objects.filter(pk=pools[color].pk).update(
                current=pools[color].current - amount
            )
    head, rolled_dice = shared.roll_dice(check.campaign, contribution=contribution, rng=rng)
    result = mana.roll(dice.dice, check.target, rolled_dice)
    attempt = check.rolls.count() + 1
    data = {
        "system": "mana",
        "asked": asked,
        "skill": skill.name,
        "spent": {color: amount for color, amount in spend.items() if amount},
        "units": dice.units,
        "parts": dice.parts,
        "dice": dice.dice,
        "faces": list(result.faces),
        "successes": result.successes,
        "target": check.target,
        "success": result.success,
        "chance": odds.as_text(mana.success_probability(dice.dice, check.target)),
        "attempt": attempt,
        "intent": intent,
        "note": check.note,
    }
    entry = shared.log_append(
        campaign=check.campaign,
        kind=LogEntry.ROLL,
        actor=by,
        character=character,
        check=check,
        visibility=check.visibility,
        data=data,
        rolled=rolled(data),
        head=head,
        dice=rolled_dice,
    )
    check.status = Check.DONE if result.success else Check.FAILED
    check.intent = intent
    check.save(update_fields=["status", "intent"])
    own = check_of(check)
    if own.skill_id != skill.pk:  # the first attempt's skill, which a re-attempt keeps
        own.skill = skill
        own.save()
        check.mana_check = own
    return entry


def rolled(data):
    """(the number of dice, as text; the successes shown) of a roll's data, or None."""
    dice, shown = data.get("dice"), data.get("successes")
    return (str(dice), shown) if dice and shown is not None else None
