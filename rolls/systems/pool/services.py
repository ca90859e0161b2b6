"""Pool's writes: the roll, the shift the GM answers, what a check's suggestion binds, a
campaign's settings, a character's HP, its ratings and skills. Each write is one transaction;
what every system shares (the log, the check's state) is ``rolls.services``."""

from django.db import transaction

from core.text import isolated
from core.writes import Refused
from rules import odds, pool
from rules import sheet as pool_sheet
from sheets.models import Character

from ... import services as shared
from ...dice import GM
from ...models import PRIVATE, PUBLIC, Check, LogEntry
from .models import (
    BONUS_MAX,
    DECLINE_REASON_MAX,
    PROPOSAL_RELATED,
    SETTINGS,
    PoolCheck,
    PoolSettings,
    PoolSheet,
    Rating,
    check_of,
    hp_max_of,
    settings_of,
    sheet_of,
)

#: Highest rating the GM may set by hand.
RATING_MAX = 100
#: Longest custom skill name, and longest text filled into a template's blank.
SKILL_NAME_MAX = 60


def _given(settings):
    """The settings given (not None), by field name; nothing but them."""
    unknown = set(settings) - set(SETTINGS)
    if unknown:
        raise TypeError(f"Not Pool settings: {', '.join(sorted(unknown))}")
    return {key: value for key, value in settings.items() if value is not None}


@transaction.atomic(savepoint=False)
def campaign_fill(*, campaign, **settings):
    """A new Pool campaign's settings (the system's ``campaign_fill``): those given, the rest
    at their defaults."""
    campaign.pool_settings = PoolSettings.objects.create(campaign=campaign, **_given(settings))


@transaction.atomic(savepoint=False)
def settings_update(*, campaign, **settings):
    """The GM changes the campaign's settings (those given; None: unchanged)."""
    row = settings_of(campaign)
    for field, value in _given(settings).items():
        setattr(row, field, value)
    row.save()


@transaction.atomic(savepoint=False)
def hp_set(*, character, value):
    """Damage and healing at the table: current HP lies in 0..hp_max."""
    hp_max = hp_max_of(character)
    if not 0 <= value <= hp_max:
        raise Refused(f"Current HP lies between 0 and {hp_max}.")
    row = sheet_of(character)
    row.hp_current = value
    row.save()


@transaction.atomic(savepoint=False)
def hp_change(*, character, by, value=None, step=None):
    """Damage and healing from the room's party (the system's ``hp_change``): current HP set to
    ``value``, or moved by ``step`` from what it is, in 0..hp_max, under the row's lock (two
    presses at once move it twice), and logged in the same transaction: who set
    whose HP from what to what (``LogEntry.HP``), public as the HP the party shows, private (the
    GM's alone) for the GM's own characters, whom players do not see. Refused, nothing changed:
    a value out of range, or the HP it has already. Returns the entry."""
    row = PoolSheet.objects.select_for_update().filter(pk=character.pk).first()
    if row is None:  # a character made without ``character_fill``: its row, at 0 HP
        row = PoolSheet.objects.create(character=character, hp_current=0)
    hp_max = hp_max_of(character)
    before = row.hp_current
    if value is None:
        value = before + step
    if not 0 <= value <= hp_max:
        raise Refused(f"Current HP lies between 0 and {hp_max}.")
    if value == before:
        raise Refused(f"{isolated(character.name)} has {value} HP already.")
    row.hp_current = value
    row.save(update_fields=["hp_current"])
    character.pool_sheet = row
    campaign = character.campaign
    npc = character.owner_id is not None and character.owner_id == campaign.gm_id()
    return shared.log_append(
        campaign=campaign,
        kind=LogEntry.HP,
        actor=by,
        data={"name": character.name, "before": before, "after": value},
        character=character,
        visibility=PRIVATE if npc else PUBLIC,
    )


def hp_follow_endurance(*, character, raised=0):
    """Endurance changed, and with it the HP maximum. ``raised``: by how many points a raise
    paid with sparetime moved it (a build's too; negative: its undo or reversal): current HP
    moves by what they add to the maximum or take from it, so that a character built at full HP
    stays at full and a wounded one keeps its wounds (and an undo heals nobody). Then, as for
    the GM's hand-set rating (``raised`` 0), it stays within 0 and the new maximum."""
    row = PoolSheet.objects.select_for_update().filter(pk=character.pk).first()
    if row is None:  # a character made without ``character_fill``: no HP to follow
        return
    hp_max = hp_max_of(character)
    moved = row.hp_current + raised * settings_of(character.campaign).hp_per_endurance
    value = max(0, min(moved, hp_max))
    if value != row.hp_current:
        row.hp_current = value
        row.save(update_fields=["hp_current"])
    character.pool_sheet = row


def asked_fields(character, suggestion):
    """The attribute (and skill) of ``character``'s sheet that ``suggestion`` names, which its
    roll must use (``rules.sheet.asked_in``; skills: the greenlit ones), as its Pool row's
    fields. Refused when what it names gives no dice (rated 0, and no skill of the attribute
    above 0 when it names none): the character could not roll it."""
    if not suggestion.strip():
        return {}
    ratings = Rating.objects.filter(character=character).values_list(
        "attribute", "skill", "status", "value"
    )
    greenlit = {(a, s): v for a, s, status, v in ratings if not s or status == Rating.APPROVED}
    attribute, skill = pool_sheet.asked_in(suggestion, list(greenlit))
    if attribute:
        if skill:
            dice = greenlit.get((attribute, ""), 0) + greenlit.get((attribute, skill), 0)
        else:
            skills = [v for (a, s), v in greenlit.items() if a == attribute and s]
            dice = greenlit.get((attribute, ""), 0) + max(skills, default=0)
        if dice < 1:
            asked = " + ".join(n for n in (attribute, skill) if n)
            raise Refused(
                f"{isolated(character.name)} has no dice for {isolated(asked)} (rated 0): raise it "
                "first, or ask for something else."
            )
    return {"asked_attribute": attribute, "asked_skill": skill}


def check_fill(check, *, suggestion=""):
    """A new check's Pool row (``Pool.check_fill``, inside ``rolls.services.check_ask``'s or
    ``check_request``'s transaction): what its suggestion binds the roll to."""
    check.pool_check = PoolCheck.objects.create(
        check_ref=check, **asked_fields(check.character, suggestion)
    )


def pool_choice(*, check, attribute, skill):
    """Validate a Pool choice: an approved attribute of the character and optionally one
    approved skill of that attribute."""
    character = check.character
    if attribute is None or attribute.character_id != character.pk or not attribute.is_attribute:
        raise Refused("Choose one of your character's attributes.")
    if skill is not None:
        if skill.character_id != character.pk or skill.is_attribute:
            raise Refused("Choose one of your character's skills.")
        if skill.attribute != attribute.attribute:
            raise Refused(
                f"{isolated(skill.skill)} is a skill of {skill.attribute}, "
                f"not of {attribute.attribute}."
            )
        if skill.status != Rating.APPROVED:
            raise Refused(f"{isolated(skill.skill)} has not been greenlit by the GM.")
    return attribute, skill


def pool_dice(*, check, attribute, skill, shift_d6=0, shift_d10=0):
    """The (d6, d10) a Pool choice rolls after the shift."""
    attribute, skill = pool_choice(check=check, attribute=attribute, skill=skill)
    shift_d6 = shared.spend_count(shift_d6, "Shifted d6")
    shift_d10 = shared.spend_count(shift_d10, "Shifted d10")
    d6 = attribute.value - shift_d6
    d10 = (skill.value if skill else 0) - shift_d10
    if d6 < 0 or d10 < 0:
        raise Refused("You cannot shift more dice than the pool has.")
    if d6 + d10 < 1:
        if shift_d6 or shift_d10:
            raise Refused("At least one die must stay in the pool.")
        raise Refused("This pool has no dice: choose an attribute or skill rated above 0.")
    if d6 + d10 > pool.MAX_DICE:
        raise Refused(f"A check rolls at most {pool.MAX_DICE} dice.")
    return d6, d10


def roll(check, *, by, data):
    """``check_roll_pool`` with what the roll form sent (``Pool.roll``: its cleaned ``data``)."""
    return check_roll_pool(
        check=check,
        by=by,
        attribute=data["attribute"],
        skill=data["skill"],
        shift_d6=data["shift_d6"],
        shift_d10=data["shift_d10"],
        bonus_effect=data["bonus_effect"],
        intent=data["intent"],
        contribution=data.get("contribution", ""),
    )


@transaction.atomic(savepoint=False)
def check_roll_pool(
    *,
    check,
    by,
    attribute,
    skill=None,
    shift_d6=0,
    shift_d10=0,
    bonus_effect="",
    intent="",
    contribution="",
    rng=None,
):
    """Roll a Pool check, or, when dice are shifted, put the shift to the GM first: then the
    check waits (status ``shift``) and is rolled by ``check_answer_shift``. Returns the log
    entry, or None while the shift awaits the GM. ``contribution``: the roller's browser's to
    the dice (``rolls.services.roll_dice``; a shift's are the GM's, who rolls it).

    The choices are checked first; then one statement takes the check (``check_claim``) and the
    roll follows."""
    if check.status != Check.OPEN:
        raise Refused("This check cannot be rolled now.")
    if check.character.owner_id != by.pk:
        raise Refused("Only the character's player rolls this check.")
    pool_dice(check=check, attribute=attribute, skill=skill, shift_d6=shift_d6, shift_d10=shift_d10)
    pool_asked_require(check, attribute, skill)
    bonus_effect = bonus_effect.strip()
    shifted = bool(shift_d6 or shift_d10)
    if shifted and not bonus_effect:
        raise Refused("Say which bonus effect the shifted dice are for.")
    if len(bonus_effect) > BONUS_MAX:
        raise Refused(f"A bonus effect has at most {BONUS_MAX} characters.")
    shared.check_claim(check, Check.SHIFT if shifted else Check.DONE, intent=intent)
    if shifted:
        _own_set(
            check,
            attribute=attribute,
            skill=skill,
            shift_d6=shift_d6,
            shift_d10=shift_d10,
            bonus_effect=bonus_effect,
            shift_declined=False,
            decline_reason="",
        )
        return None
    dice = (contribution, rng, None)
    return _roll_pool(check, by, dice, attribute=attribute, skill=skill)


def _own_set(check, **fields):
    """Write ``fields`` into ``check``'s Pool row (one statement; the row is made if the check
    has none), and into the row read along with it."""
    own = check_of(check)
    for name, value in fields.items():
        setattr(own, name, value)
    if not PoolCheck.objects.filter(pk=check.pk).update(**fields):
        own.save()
    check.pool_check = own


def pool_asked(check):
    """What a Pool check asked to roll, as text: the attribute (and skill) it binds, else its
    suggestion; "" for any attribute."""
    own = check_of(check)
    if own.asked_attribute:
        return " + ".join(n for n in (own.asked_attribute, own.asked_skill) if n)
    return check.suggestion


def pool_asked_require(check, attribute, skill):
    """Refuse a Pool choice other than the attribute (and skill) the check asked for."""
    own = check_of(check)
    asked = pool_asked(check)
    if own.asked_attribute and attribute.attribute != own.asked_attribute:
        raise Refused(f"This check is for {isolated(asked)}: roll {own.asked_attribute}.")
    if own.asked_skill and (skill is None or skill.skill != own.asked_skill):
        raise Refused(f"This check is for {isolated(asked)}: roll {isolated(own.asked_skill)}.")


@transaction.atomic(savepoint=False)
def check_answer_shift(*, check, approve, reason="", contribution="", rng=None):
    """The GM agrees to a shift (the check is rolled at once, as proposed) or declines it, with
    a ``reason`` if they give one (the check opens again, telling the player so, and the player
    chooses anew)."""
    # The proposal as it stands under the check's lock, with the ratings it rolls.
    check = shared.check_locked(check, *PROPOSAL_RELATED)
    if check.status != Check.SHIFT:
        raise Refused("No shift awaits an answer on this check.")
    reason = reason.strip()
    if len(reason) > DECLINE_REASON_MAX:
        raise Refused(f"A reason has at most {DECLINE_REASON_MAX} characters.")
    own = check_of(check)
    if not approve:
        check.status = Check.OPEN
        check.save(update_fields=["status"])
        _own_set(
            check,
            shift_d6=0,
            shift_d10=0,
            bonus_effect="",
            shift_declined=True,
            decline_reason=reason,
        )
        return None
    entry = _roll_pool(
        check,
        check.character.owner,
        (contribution, rng, GM),  # the GM's browser sent the contribution
        attribute=own.attribute,
        skill=own.skill,
        shift=(own.shift_d6, own.shift_d10),
        bonus_effect=own.bonus_effect,
    )
    check.status = Check.DONE
    check.save(update_fields=["status"])
    return entry


def _roll_pool(check, by, dice, *, attribute, skill, shift=(0, 0), bonus_effect=""):
    """Roll ``check`` with ``attribute`` and ``skill`` (rows), ``shift`` (d6, d10) dice shifted
    aside for ``bonus_effect``, and log the roll; the caller closes the check. ``dice``: (the
    contribution to them, a test's own dice or None, who sent the contribution when not the
    roller: ``rolls.dice.GM`` for a shift the GM approved)."""
    shift_d6, shift_d10 = shift
    d6, d10 = pool_dice(
        check=check, attribute=attribute, skill=skill, shift_d6=shift_d6, shift_d10=shift_d10
    )
    contribution, rng, maker = dice
    head, rolled_dice = shared.roll_dice(
        check.campaign, contribution=contribution, rng=rng, by=maker
    )
    result = pool.roll(d6, d10, check.target, rolled_dice)
    shifted = bool(shift_d6 or shift_d10)
    data = {
        "system": "pool",
        "asked": pool_asked(check),
        "attribute": attribute.attribute,
        "attribute_value": attribute.value,
        "skill": skill.skill if skill else "",
        "skill_value": skill.value if skill else 0,
        "shift": {"d6": shift_d6, "d10": shift_d10} if shifted else None,
        "bonus_effect": bonus_effect,
        "bonus_achieved": shifted and result.success,
        "d6": [list(c) for c in result.d6_chains],
        "d10": [list(c) for c in result.d10_chains],
        "highest": result.highest,
        "target": check.target,
        "success": result.success,
        "chance": odds.as_text(pool.success_probability(d6, d10, check.target)),
        "intent": check.intent,
        "note": check.note,
    }
    entry = shared.log_append(
        campaign=check.campaign,
        kind=LogEntry.ROLL,
        actor=by,
        character=check.character,
        check=check,
        visibility=check.visibility,
        data=data,
        rolled=rolled(data),
        head=head,
        dice=rolled_dice,
    )
    return entry


# Ratings and skills -------------------------------------------------------------------------


def rating_set(*, rating, value, hp_follows=False):
    """The GM sets an approved rating to ``value`` (0..RATING_MAX). Lowering Endurance below
    what the current HP needs lowers the current HP to the new maximum; ``hp_follows`` (a
    sparetime raise taken back): current HP moves with the maximum (``hp_follow_endurance``)."""
    if not rating.is_approved:
        raise Refused(
            f"{isolated(rating.label)} is {rating.get_status_display().lower()}; only approved "
            "skills can be rated."
        )
    if not 0 <= value <= RATING_MAX:
        raise Refused(f"A rating lies between 0 and {RATING_MAX}.")
    with transaction.atomic(savepoint=False):
        raised = value - rating.value if hp_follows else 0
        rating.value = value
        rating.save(update_fields=["value"])
        if rating.skill == pool_sheet.ENDURANCE:  # the HP maximum follows it
            hp_follow_endurance(character=rating.character, raised=raised)
    return rating


def _check_attribute(attribute):
    if attribute not in pool_sheet.ATTRIBUTES:
        raise Refused(f"{attribute!r} is not an attribute.")


def _add_skill(character, attribute, name, **fields):
    """Add skill ``name`` under ``attribute`` unless the sheet already has that name."""
    if "{" in name or "}" in name:
        raise Refused("A skill name cannot contain braces.")
    with transaction.atomic(savepoint=False):
        # Serialise additions to one sheet, so two requests cannot both pass the check below.
        Character.objects.select_for_update().filter(pk=character.pk).first()
        existing = character.ratings.all()
        clash = next((r for r in existing if r.label.casefold() == name.casefold()), None)
        if clash is not None:
            state = "" if clash.is_approved else f" ({clash.get_status_display().lower()})"
            raise Refused(f"This sheet already has {isolated(clash.label)}{state}.")
        return Rating.objects.create(character=character, attribute=attribute, skill=name, **fields)


def skill_take(*, character, attribute, template, fill):
    """Take a template skill of ``attribute`` with its blank filled: ``Geography: {Region}``
    with ``Northern Marches``. It starts approved at 0."""
    _check_attribute(attribute)
    if template not in pool_sheet.templates(attribute):
        raise Refused(f"{attribute} has no template skill {template!r}.")
    fill = " ".join(fill.split())
    if len(fill) > SKILL_NAME_MAX:
        raise Refused(
            f"The {pool_sheet.template_blank(template)} has at most {SKILL_NAME_MAX} characters."
        )
    try:
        name = pool_sheet.fill_template(template, fill)
    except ValueError as error:
        raise Refused(str(error)) from error
    return _add_skill(character, attribute, name)


def skill_propose(*, character, attribute, name):
    """A player proposes a new skill under ``attribute``; it waits for the GM (pending)."""
    _check_attribute(attribute)
    name = " ".join(name.split())
    if not 1 <= len(name) <= SKILL_NAME_MAX:
        raise Refused(f"A skill name has 1 to {SKILL_NAME_MAX} characters.")
    return _add_skill(character, attribute, name, custom=True, status=Rating.PENDING)


def skill_decide(*, rating, approve):
    """The GM greenlights (``approve=True``) or declines a pending custom skill. Deciding a
    skill that is not pending any more is refused."""
    status = Rating.APPROVED if approve else Rating.DECLINED
    with transaction.atomic(savepoint=False):
        changed = Rating.objects.filter(pk=rating.pk, custom=True, status=Rating.PENDING).update(
            status=status
        )
        if not changed:
            rating.refresh_from_db(fields=["status"])
            raise Refused(
                f"{isolated(rating.label)} was already {rating.get_status_display().lower()}."
            )
    rating.status = status
    return rating


def rolled(data):
    """(the pool, "<d6>+<d10>"; the highest total shown) of a roll's data, or None."""
    shown = data.get("highest")
    if shown is None:
        return None
    return f"{len(data.get('d6') or ())}+{len(data.get('d10') or ())}", shown
