"""Writes on character sheets that touch several rows or models, each in one transaction.

Every function raises ``campaigns.writes.Refused`` with a sentence a player can read when the
rules refuse the change; nothing is written then.
"""

from django.db import transaction
from django.db.models import F, Sum

from campaigns.models import Membership
from campaigns.writes import Refused
from rolls.rules import sheet as pool_sheet

from .models import COLORLESS, Character, ManaPool, Rating, SparetimeEntry

# Characters and Pool ratings ------------------------------------------------------------------

#: Highest rating the GM may set by hand.
RATING_MAX = 100
#: Longest custom skill name, and longest text filled into a template's blank.
SKILL_NAME_MAX = 60
#: Highest mana maximum per color.
MANA_MAX = 99


def mana_colors(campaign):
    """The colors a character's mana pool has: the campaign's palette, then colorless."""
    return list(dict.fromkeys([*campaign.palette, COLORLESS]))


def character_create(*, campaign, owner, name, concept="", history=""):
    """A new character with a full sheet: every attribute and fixed skill at 0 (Pool), or an
    empty mana pool per color and colorless (Mana). Pool characters start at full HP."""
    with transaction.atomic():
        character = Character.objects.create(
            campaign=campaign,
            owner=owner,
            name=name,
            concept=concept,
            history=history,
            hp_current=campaign.hp_max_for(0) if campaign.is_pool else 0,
        )
        if campaign.is_pool:
            Rating.objects.bulk_create(
                Rating(character=character, attribute=attribute, skill=skill)
                for attribute in pool_sheet.ATTRIBUTES
                for skill in ["", *pool_sheet.fixed_skills(attribute)]
            )
        else:
            ManaPool.objects.bulk_create(
                ManaPool(character=character, color=color) for color in mana_colors(campaign)
            )
    return character


def rating_set(*, rating, value):
    """The GM sets an approved rating to ``value`` (0..RATING_MAX). Lowering Endurance below
    what the current HP needs lowers the current HP to the new maximum."""
    if not rating.is_approved:
        raise Refused(
            f"{rating.label} is {rating.get_status_display().lower()}; only approved skills "
            "can be rated."
        )
    if not 0 <= value <= RATING_MAX:
        raise Refused(f"A rating lies between 0 and {RATING_MAX}.")
    with transaction.atomic():
        rating.value = value
        rating.save(update_fields=["value"])
        if rating.skill == pool_sheet.ENDURANCE:
            character = rating.character
            hp_max = character.hp_max
            if character.hp_current > hp_max:
                character.hp_current = hp_max
                character.save(update_fields=["hp_current"])
    return rating


def _check_attribute(attribute):
    if attribute not in pool_sheet.ATTRIBUTES:
        raise Refused(f"{attribute!r} is not an attribute.")


def _add_skill(character, attribute, name, **fields):
    """Add skill ``name`` under ``attribute`` unless the sheet already has that name."""
    if "{" in name or "}" in name:
        raise Refused("A skill name cannot contain braces.")
    with transaction.atomic():
        # Serialise additions to one sheet, so two requests cannot both pass the check below.
        Character.objects.select_for_update().filter(pk=character.pk).first()
        existing = character.ratings.all()
        clash = next((r for r in existing if r.label.casefold() == name.casefold()), None)
        if clash is not None:
            state = "" if clash.is_approved else f" ({clash.get_status_display().lower()})"
            raise Refused(f"This sheet already has {clash.label}{state}.")
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
    with transaction.atomic():
        changed = Rating.objects.filter(pk=rating.pk, custom=True, status=Rating.PENDING).update(
            status=status
        )
        if not changed:
            rating.refresh_from_db(fields=["status"])
            raise Refused(f"{rating.label} was already {rating.get_status_display().lower()}.")
    rating.status = status
    return rating


# Mana pools -----------------------------------------------------------------------------------


def mana_set_maxima(*, character, maxima):
    """Set the mana maximum of each color in ``maxima`` ({color: 0..MANA_MAX}); a current amount
    above its new maximum drops to it. Colors of the palette without a pool row get one."""
    colors = mana_colors(character.campaign)
    for color, maximum in maxima.items():
        if color not in colors:
            raise Refused(f"{color!r} is not a color of this campaign.")
        if not 0 <= maximum <= MANA_MAX:
            raise Refused(f"A mana maximum lies between 0 and {MANA_MAX}.")
    with transaction.atomic():
        for color, maximum in maxima.items():
            pool, _ = ManaPool.objects.select_for_update().get_or_create(
                character=character, color=color
            )
            pool.set_maximum(maximum)


def mana_refill(*, campaign, character=None):
    """Refill every color of ``character``'s pool (or of every character of ``campaign``) to
    its maximum. Returns the number of pool rows written."""
    if character is not None and character.campaign_id != campaign.pk:
        raise Refused(f"{character} does not play in {campaign}.")
    pools = ManaPool.objects.filter(character__campaign=campaign)
    if character is not None:
        pools = pools.filter(character=character)
    with transaction.atomic():
        return pools.update(current=F("maximum"))


# Sparetime ------------------------------------------------------------------------------------
# Sparetime: the Pool system's progression ledger (RULES.md, "Progression: sparetime").
#
# Every write is one append-only ``SparetimeEntry`` row (plus, for a spend, the raised rating);
# balances are always derived from the rows, never stored. Each function runs in one transaction
# and raises ``Refused`` with a message for the player when it refuses; a refusal changes
# nothing.

#: The largest amount one row may carry (grants, awards, delegations, hand-outs).
MAX_AMOUNT = 10_000
#: ``SparetimeEntry.note`` is a CharField of this length.
MAX_NOTE = 200


# Checks shared by the services -------------------------------------------------------------------
def _check_pool(campaign):
    if not campaign.is_pool:
        raise Refused("Sparetime belongs to the Pool system; this campaign plays Mana.")


def _check_amount(amount):
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise Refused("The amount must be a whole number.")
    if amount < 1:
        raise Refused("The amount must be at least 1.")
    if amount > MAX_AMOUNT:
        raise Refused(f"The amount can be at most {MAX_AMOUNT}.")


def _check_note(note):
    if len(note) > MAX_NOTE:
        raise Refused(f"Keep the note to {MAX_NOTE} characters.")


def _check_character(campaign, character):
    if character.campaign_id != campaign.id:
        raise Refused(f"{character} is not in this campaign.")


def _player_ids(campaign):
    """The ids of the campaign's members with the player role."""
    return set(
        Membership.objects.filter(campaign=campaign, role=Membership.PLAYER).values_list(
            "user_id", flat=True
        )
    )


def player_characters(campaign):
    """The characters of ``campaign`` owned by its players (the GM's NPCs left out)."""
    return Character.objects.filter(
        campaign=campaign,
        owner__memberships__campaign=campaign,
        owner__memberships__role=Membership.PLAYER,
    )


def raise_cost(campaign, rating):
    """What raising ``rating`` by one point costs in ``campaign``."""
    return campaign.attribute_cost if rating.is_attribute else campaign.skill_cost


def portion_left(handout):
    """What is left of a hand-out row: its amount plus its (negative) spends."""
    spent = handout.spends.aggregate(total=Sum("amount"))["total"] or 0
    return handout.amount + spent


# Services -----------------------------------------------------------------------------------------
def sparetime_grant(*, character, amount, by, note=""):
    """The GM grants ``character`` its starting sparetime."""
    with transaction.atomic():
        _check_pool(character.campaign)
        _check_amount(amount)
        _check_note(note)
        return SparetimeEntry.objects.create(
            campaign=character.campaign,
            kind=SparetimeEntry.GRANT,
            amount=amount,
            character=character,
            note=note,
            created_by=by,
        )


def sparetime_award(*, campaign, characters, amount, by, note="", session=None):
    """The GM awards ``amount`` to each of ``characters``: one row per character."""
    with transaction.atomic():
        _check_pool(campaign)
        _check_amount(amount)
        _check_note(note)
        characters = list(characters)
        if not characters:
            raise Refused("There is no character to award.")
        for character in characters:
            _check_character(campaign, character)
        if session is not None and session.campaign_id != campaign.id:
            raise Refused("That session is not in this campaign.")
        return [
            SparetimeEntry.objects.create(
                campaign=campaign,
                kind=SparetimeEntry.AWARD,
                amount=amount,
                character=character,
                session=session,
                note=note,
                created_by=by,
            )
            for character in characters
        ]


def sparetime_delegate(*, campaign, player, amount, by, note=""):
    """The GM gives ``player`` an amount to hand out to other players' characters."""
    with transaction.atomic():
        _check_pool(campaign)
        _check_amount(amount)
        _check_note(note)
        if player.pk not in _player_ids(campaign):
            raise Refused(f"{player} is not a player in this campaign.")
        return SparetimeEntry.objects.create(
            campaign=campaign,
            kind=SparetimeEntry.DELEGATE,
            amount=amount,
            player=player,
            note=note,
            created_by=by,
        )


def sparetime_handout(*, campaign, giver, character, amount, targets, note=""):
    """``giver`` hands ``amount`` of their delegation to another player's ``character``,
    earmarked for ``targets`` (approved ratings of that character)."""
    with transaction.atomic():
        _check_pool(campaign)
        _check_amount(amount)
        _check_note(note)
        _check_character(campaign, character)
        if character.owner_id == giver.pk:
            raise Refused("You cannot hand sparetime out to your own character.")
        if character.owner_id not in _player_ids(campaign):
            raise Refused(f"{character} is not a player's character.")
        targets = list(targets)
        if not targets:
            raise Refused("Say what the sparetime is for: pick at least one rating.")
        for target in targets:
            if target.character_id != character.id:
                raise Refused(f"{target.label} is not on {character}'s sheet.")
            if target.status != Rating.APPROVED:
                raise Refused(f"{target.label} is not an approved rating.")
        # Lock the giver's membership, then read the balance: concurrent hand-outs by the same
        # giver wait here, so together they can never overspend the delegation.
        try:
            Membership.objects.select_for_update().get(campaign=campaign, user=giver)
        except Membership.DoesNotExist:
            raise Refused("You are not in this campaign.") from None
        left = SparetimeEntry.delegation_left(campaign, giver)
        if amount > left:
            raise Refused(f"You have {left} sparetime left to hand out; {amount} is too much.")
        entry = SparetimeEntry.objects.create(
            campaign=campaign,
            kind=SparetimeEntry.HANDOUT,
            amount=amount,
            character=character,
            player=giver,
            note=note,
            created_by=giver,
        )
        entry.targets.set(targets)
        return entry


def sparetime_spend(*, character, rating, by, source=None):
    """Raise ``rating`` of ``character`` by one point, paid from free sparetime or, with
    ``source``, from that earmarked hand-out. Returns the spend row."""
    with transaction.atomic():
        campaign = character.campaign
        _check_pool(campaign)
        # Lock the character first: concurrent spends on it wait here, then see every row.
        Character.objects.select_for_update().get(pk=character.pk)
        rating = Rating.objects.select_for_update().filter(pk=rating.pk).first()
        if rating is None or rating.character_id != character.id:
            raise Refused(f"That rating is not on {character}'s sheet.")
        if rating.status == Rating.PENDING:
            raise Refused(f"{rating.label} is still waiting for the GM's approval.")
        if rating.status != Rating.APPROVED:
            raise Refused(f"{rating.label} was not approved by the GM.")
        cost = raise_cost(campaign, rating)
        raising = f"raising {rating.label} {rating.value} → {rating.value + 1} costs {cost}"
        if source is None:
            have = character.free_sparetime()
            if cost > have:
                raise Refused(f"Not enough sparetime: {raising}, you have {have}.")
        else:
            source = SparetimeEntry.objects.filter(pk=source.pk).first()
            if source is None or source.kind != SparetimeEntry.HANDOUT:
                raise Refused("That is not a handed-out portion of sparetime.")
            if source.character_id != character.id:
                raise Refused(f"That portion was not handed out to {character}.")
            if not source.targets.filter(pk=rating.pk).exists():
                raise Refused(f"That portion is not earmarked for {rating.label}.")
            have = portion_left(source)
            if cost > have:
                raise Refused(
                    f"Not enough sparetime in that portion: {raising}, it has {have} left."
                )
        from_value = rating.value
        rating.value = from_value + 1
        rating.save(update_fields=["value"])
        return SparetimeEntry.objects.create(
            campaign=campaign,
            kind=SparetimeEntry.SPEND,
            amount=-cost,
            character=character,
            source=source,
            rating=rating,
            from_value=from_value,
            to_value=rating.value,
            created_by=by,
        )
