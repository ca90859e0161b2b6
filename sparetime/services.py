"""Sparetime, the Pool system's progression (the /rules/ page, "Sparetime"): the ledger's writes
and the balances derived from it.

Every write appends ``SparetimeEntry`` rows (a spend also raises its rating) in one transaction
and raises ``core.writes.Refused`` with a sentence for the player when it refuses; a refusal
changes nothing. Balances are always summed from the rows, never stored. A row is taken back only
by a counter-entry (``sparetime_undo``, ``sparetime_reverse``), never edited or deleted.
"""

from django.db import transaction
from django.db.models import Q, Sum

from campaigns.models import GameSession, Membership
from campaigns.systems import system_of
from core.text import isolated, member_name
from core.writes import Refused
from rolls.systems.pool.models import KEY, Rating, settings_of
from rolls.systems.pool.services import hp_follow_endurance, rating_set
from rules.sheet import ENDURANCE
from sheets.models import Character

from .models import SparetimeEntry, SparetimeLine

#: The largest amount one row may carry (grants, awards, delegations, hand-outs).
MAX_AMOUNT = 10_000
#: ``SparetimeEntry.note`` is a CharField of this length.
MAX_NOTE = 200


# Checks shared by the services -------------------------------------------------------------------
def _check_pool(campaign):
    if campaign.system != KEY:
        system = system_of(campaign)
        raise Refused(f"Sparetime belongs to the Pool system; this campaign plays {system.name}.")


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
        raise Refused(f"{isolated(character)} is not in this campaign.")


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
    """What raising ``rating`` by one point costs in ``campaign`` (its Pool settings)."""
    return settings_of(campaign).raise_cost(rating)


# Balances -------------------------------------------------------------------------------------
def party_free_sparetime():
    """The party's sum of each character's free sparetime (Pool's party column,
    ``rolls.systems.pool.sheet``; from the Character side): what it was granted or awarded and
    spent, hand-outs aside."""
    free = Q(sparetime__source__isnull=True) & ~Q(sparetime__kind=SparetimeEntry.HANDOUT)
    return Sum("sparetime__amount", filter=free)


def ledger_export(character):
    """``character``'s rows of the ledger, oldest first, as JSON's values (Pool's sheet in its
    player's own data, ``rolls.systems.pool.sheet.export``)."""
    rows = SparetimeEntry.objects.filter(character=character).order_by("created_at", "id")
    return [
        {
            "kind": row.kind,
            "amount": row.amount,
            "note": row.note,
            "time": row.created_at.isoformat(),
        }
        for row in rows
    ]


def free_sparetime(character):
    """Sparetime ``character`` may spend on anything."""
    total = (
        SparetimeEntry.objects.filter(character=character, source__isnull=True)
        .exclude(kind=SparetimeEntry.HANDOUT)
        .aggregate(total=Sum("amount"))["total"]
    )
    return total or 0


def earmarked_sparetime(character):
    """Portions handed out to ``character``, with what is left of each:
    [(handout entry, remaining), ...], oldest first."""
    handouts = list(
        SparetimeEntry.objects.filter(character=character, kind=SparetimeEntry.HANDOUT)
        .annotate(spent=Sum("spends__amount"))
        .prefetch_related("targets")
        .order_by("created_at", "id")
    )
    return [(h, h.amount + (h.spent or 0)) for h in handouts]


def portion_left(handout):
    """What is left of a hand-out row: its amount plus its (negative) spends."""
    spent = handout.spends.aggregate(total=Sum("amount"))["total"] or 0
    return handout.amount + spent


def delegation_left(campaign, player):
    """What ``player`` may still hand out in ``campaign``; a former member (None: they deleted
    their account) nothing."""
    if player is None:
        return 0
    rows = SparetimeEntry.objects.filter(campaign=campaign, player=player)

    def total(kind):  # the rows of ``kind`` and their counter-entries
        rows_of = rows.filter(Q(kind=kind) | Q(reverses__kind=kind))
        return rows_of.aggregate(t=Sum("amount"))["t"] or 0

    return total(SparetimeEntry.DELEGATE) - total(SparetimeEntry.HANDOUT)


def last_raise(character):
    """The raise an undo of ``character``'s would take back: its latest spend that is neither
    undone nor reversed (None without one)."""
    return (
        SparetimeEntry.objects.filter(
            character=character, kind=SparetimeEntry.SPEND, reversal__isnull=True
        )
        .select_related("rating")
        .prefetch_related("lines__rating")
        .order_by("-id")
        .first()
    )


def raise_text(entry):
    """What a raise row (or its counter-entry) changed, as text: "Climb 2 → 3", or a build's
    "Strength 0 → 2, Endurance 0 → 2"."""
    return ", ".join(f"{isolated(rating.label)} {a} → {b}" for rating, a, b in entry.changes)


# Writes -------------------------------------------------------------------------------------------
def sparetime_grant(*, character, amount, by, note=""):
    """The GM grants ``character`` its starting sparetime."""
    with transaction.atomic(savepoint=False):
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
    """The GM awards ``amount`` to each of ``characters``: one row per character. With a
    ``session``, a character awarded for it already is refused (once per session and character)."""
    with transaction.atomic(savepoint=False):
        _check_pool(campaign)
        _check_amount(amount)
        _check_note(note)
        characters = list(characters)
        if not characters:
            raise Refused("There is no character to award.")
        for character in characters:
            _check_character(campaign, character)
        if session is not None:
            if session.campaign_id != campaign.id:
                raise Refused("That session is not in this campaign.")
            # Two awards for one session, sent at once, wait for each other here: the second
            # then sees the first's rows.
            GameSession.objects.select_for_update().filter(pk=session.pk).first()
            done = SparetimeEntry.objects.filter(
                kind=SparetimeEntry.AWARD, session=session, character__in=characters
            ).select_related("character")
            names = [isolated(name) for name in sorted({str(entry.character) for entry in done})]
            if names:
                raise Refused(
                    f"{', '.join(names)} already had an award for {session}; a session's award "
                    "is given once."
                )
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
    with transaction.atomic(savepoint=False):
        _check_pool(campaign)
        _check_amount(amount)
        _check_note(note)
        if player.pk not in _player_ids(campaign):
            raise Refused(f"{isolated(player)} is not a player in this campaign.")
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
    with transaction.atomic(savepoint=False):
        _check_pool(campaign)
        _check_amount(amount)
        _check_note(note)
        _check_character(campaign, character)
        if character.owner_id == giver.pk:
            raise Refused("You cannot hand sparetime out to your own character.")
        if character.owner_id not in _player_ids(campaign):
            raise Refused(f"{isolated(character)} is not a player's character.")
        targets = list(targets)
        if not targets:
            raise Refused("Say what the sparetime is for: pick at least one rating.")
        for target in targets:
            if target.character_id != character.id:
                raise Refused(f"{isolated(target.label)} is not on {isolated(character)}'s sheet.")
            if target.status != Rating.APPROVED:
                raise Refused(f"{isolated(target.label)} is not an approved rating.")
        # Lock the giver's membership, then read the balance: concurrent hand-outs by the same
        # giver wait here, so together they can never overspend the delegation.
        try:
            Membership.objects.select_for_update().get(campaign=campaign, user=giver)
        except Membership.DoesNotExist:
            raise Refused("You are not in this campaign.") from None
        left = delegation_left(campaign, giver)
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


#: The most points one build may add.
BUILD_MAX = 100


def sparetime_build(*, character, by, points):
    """A build: several raises of ``character``'s at once (``points``: {rating: how many points
    to add}), e.g. a new character spending its starting grant, paid from free sparetime, with
    the checks and the cost of ``sparetime_spend``'s raises, all in one transaction: every
    rating raised, or none when one is refused. One ledger row (its ``points`` the sum): of one
    rating, that rating ``from_value`` → ``to_value``; of several, one line each
    (``SparetimeLine``). An undo or a reversal takes the whole row back. Returns the row."""
    points = {rating: n for rating, n in points.items() if n}
    if any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in points.values()):
        raise Refused("Points are whole numbers from 0.")
    total = sum(points.values())
    if total < 1:
        raise Refused("Add at least one point.")
    if total > BUILD_MAX:
        raise Refused(f"A build adds at most {BUILD_MAX} points.")
    campaign = character.campaign
    with transaction.atomic(savepoint=False):
        _check_pool(campaign)
        Character.objects.select_for_update().get(pk=character.pk)
        cost = sum(raise_cost(campaign, rating) * n for rating, n in points.items())
        have = free_sparetime(character)
        if cost > have:
            raise Refused(
                f"This build costs {cost} sparetime; {isolated(character)} has {have} free."
            )
        locked = Rating.objects.select_for_update().in_bulk([rating.pk for rating in points])
        order = sorted(points.items(), key=lambda item: (item[0].attribute, item[0].skill))
        changes = [(_raisable(character, locked.get(rating.pk)), n) for rating, n in order]
        lines = []
        for rating, n in changes:
            lines.append(
                SparetimeLine(rating=rating, from_value=rating.value, to_value=rating.value + n)
            )
            rating.value += n
            rating.save(update_fields=["value"])
        (one,) = lines if len(lines) == 1 else (None,)
        raised = (
            {"rating": one.rating, "from_value": one.from_value, "to_value": one.to_value}
            if one
            else {}
        )
        entry = SparetimeEntry.objects.create(
            campaign=campaign,
            kind=SparetimeEntry.SPEND,
            amount=-cost,
            character=character,
            points=total,
            created_by=by,
            **raised,
        )
        if one is None:
            for line in lines:
                line.entry = entry
            SparetimeLine.objects.bulk_create(lines)
        for rating, n in changes:
            if rating.skill == ENDURANCE:
                hp_follow_endurance(character=character, raised=n)
        return entry


def _raisable(character, rating):
    """``rating`` (locked, or None when there is none), if it is ``character``'s and approved
    by the GM; else refused, saying why."""
    if rating is None or rating.character_id != character.id:
        raise Refused(f"That rating is not on {isolated(character)}'s sheet.")
    if rating.status == Rating.PENDING:
        raise Refused(f"{isolated(rating.label)} is still waiting for the GM's approval.")
    if rating.status != Rating.APPROVED:
        raise Refused(f"{isolated(rating.label)} was not approved by the GM.")
    return rating


def sparetime_spend(*, character, rating, by, source=None):
    """Raise ``rating`` of ``character`` by one point, paid from free sparetime or, with
    ``source``, from that earmarked hand-out. Returns the spend row."""
    with transaction.atomic(savepoint=False):
        campaign = character.campaign
        _check_pool(campaign)
        # Lock the character first: concurrent spends on it wait here, then see every row.
        Character.objects.select_for_update().get(pk=character.pk)
        rating = _raisable(
            character, Rating.objects.select_for_update().filter(pk=rating.pk).first()
        )
        cost = raise_cost(campaign, rating)
        raising = (
            f"raising {isolated(rating.label)} {rating.value} → {rating.value + 1} costs {cost}"
        )
        if source is None:
            have = free_sparetime(character)
            if cost > have:
                raise Refused(f"Not enough sparetime: {raising}, you have {have}.")
        else:
            source = SparetimeEntry.objects.filter(pk=source.pk).first()
            if source is None or source.kind != SparetimeEntry.HANDOUT:
                raise Refused("That is not a handed-out portion of sparetime.")
            if source.character_id != character.id:
                raise Refused(f"That portion was not handed out to {isolated(character)}.")
            if not source.targets.filter(pk=rating.pk).exists():
                raise Refused(f"That portion is not earmarked for {isolated(rating.label)}.")
            have = portion_left(source)
            if cost > have:
                raise Refused(
                    f"Not enough sparetime in that portion: {raising}, it has {have} left."
                )
        from_value = rating.value
        rating.value = from_value + 1
        rating.save(update_fields=["value"])
        if rating.skill == ENDURANCE:
            hp_follow_endurance(character=character, raised=1)
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


# Counter-entries ---------------------------------------------------------------------------------
def _locked_entry(entry):
    """``entry`` read again under its row's lock: a second undo or reversal of it waits here, then
    sees the first's counter-entry."""
    entry = SparetimeEntry.objects.select_for_update().filter(pk=entry.pk).first()
    if entry is None:
        raise Refused("That ledger entry does not exist.")
    return entry


def _check_standing(entry):
    if entry.kind in SparetimeEntry.COUNTERS:
        raise Refused(
            f"That row is itself the {entry.get_kind_display().lower()} of an earlier one; a "
            "counter-entry is not reversed (write a new grant or raise instead)."
        )
    done = SparetimeEntry.objects.filter(reverses=entry).first()
    if done is not None:
        what = "undone" if done.kind == SparetimeEntry.UNDO else "reversed"
        raise Refused(f"That entry was {what} already; an entry is taken back once.")


def _raised(entry, *, lock=False):
    """[(rating, from_value, to_value)] a raise row ``entry`` changed (its rating's, or its
    lines': a build of several), each rating read as it is now (``lock``: under its lock)."""
    if entry.rating_id is not None:
        changes = [(entry.rating_id, entry.from_value, entry.to_value)]
    else:
        changes = list(entry.lines.values_list("rating_id", "from_value", "to_value"))
    ratings = Rating.objects.select_for_update() if lock else Rating.objects
    now = ratings.in_bulk([rating_id for rating_id, _, _ in changes])
    return [(now[rating_id], from_value, to_value) for rating_id, from_value, to_value in changes]


def _check_rating_at(rating, to_value):
    """A raise is taken back only while its rating is at the value it raised it to."""
    if rating.value != to_value:
        raise Refused(
            f"{isolated(rating.label)} is at {rating.value} now, not {to_value}: take back the "
            "later change first."
        )


def _counter(entry, *, kind, by, note=""):
    """Append ``entry``'s counter-entry of ``kind``; of a spend, set its ratings back (refused
    unless each is still at the value the spend raised it to), HP with Endurance. The caller
    holds the locks."""
    rating = from_value = to_value = None
    lines = []
    if entry.kind == SparetimeEntry.SPEND:
        changes = _raised(entry, lock=True)
        for raised, _, to in changes:
            _check_rating_at(raised, to)
        for raised, back_to, _ in changes:
            raised.character = entry.character
            rating_set(rating=raised, value=back_to, hp_follows=True)
        if entry.rating_id is not None:
            rating, from_value, to_value = changes[0][0], entry.to_value, entry.from_value
        else:
            lines = [
                SparetimeLine(rating=r, from_value=to, to_value=back) for r, back, to in changes
            ]
    counter = SparetimeEntry.objects.create(
        campaign=entry.campaign,
        kind=kind,
        amount=-entry.amount,
        character=entry.character,
        player_id=entry.player_id,
        # A spend's refund goes back where it came from; a hand-out's counter-entry draws on it.
        source=entry if entry.kind == SparetimeEntry.HANDOUT else entry.source,
        rating=rating,
        from_value=from_value,
        to_value=to_value,
        points=entry.points,
        reverses=entry,
        note=note,
        created_by=by,
    )
    for line in lines:
        line.entry = counter
    SparetimeLine.objects.bulk_create(lines)
    return counter


def sparetime_undo(*, entry, by):
    """Undo ``entry``, a raise (a build: all of it), while nothing depends on it: it is its
    character's last raise standing (no later spend on the character that is not undone or
    reversed), and each rating it raised is still at the value it raised it to. The refund goes
    back to where the raise was paid from. Returns the undo row."""
    with transaction.atomic(savepoint=False):
        entry = _locked_entry(entry)
        _check_pool(entry.campaign)
        if entry.kind != SparetimeEntry.SPEND:
            raise Refused("Only a raise can be undone.")
        # The same lock as a spend's: no raise of this character slips in meanwhile.
        entry.character = Character.objects.select_for_update().get(pk=entry.character_id)
        _check_standing(entry)
        latest = last_raise(entry.character)
        if latest != entry:
            raise Refused(
                f"Only {isolated(entry.character)}'s last raise can be undone; "
                f"{raise_text(latest)} came after this one."
            )
        return _counter(entry, kind=SparetimeEntry.UNDO, by=by)


def _check_reversible(entry):
    """Refuse reversing ``entry`` when it is a counter-entry or taken back already, when a
    balance would go below zero, or when a raise's rating moved since."""
    campaign = entry.campaign
    _check_standing(entry)
    if entry.kind in (SparetimeEntry.GRANT, SparetimeEntry.AWARD):
        have = free_sparetime(entry.character)
        if entry.amount > have:
            raise Refused(
                f"{isolated(entry.character)} has {have} free sparetime; reversing this "
                f"{entry.get_kind_display().lower()} takes {entry.amount}."
            )
    elif entry.kind == SparetimeEntry.DELEGATE:
        left = delegation_left(campaign, entry.player)
        if entry.amount > left:
            raise Refused(
                f"{member_name(entry.player)} has {left} left to hand out; reversing this "
                f"delegation takes {entry.amount}."
            )
    elif entry.kind == SparetimeEntry.HANDOUT:
        left = portion_left(entry)
        if entry.amount > left:
            raise Refused(
                f"{isolated(entry.character)} has {left} left of this hand-out of {entry.amount}; "
                "reverse the raises paid from it first."
            )
    elif entry.kind == SparetimeEntry.SPEND:
        for rating, _, to_value in _raised(entry):
            _check_rating_at(rating, to_value)


def reversal_refusal(entry):
    """Why the GM cannot reverse ``entry`` now, or "": what the reversal's confirmation shows
    (``sparetime_reverse`` checks the same under its locks)."""
    try:
        _check_reversible(entry)
    except Refused as refusal:
        return str(refusal)
    return ""


def sparetime_reverse(*, entry, by, note=""):
    """The GM reverses ``entry`` with a counter-entry: a grant's or award's sparetime is taken
    from the character, a delegation's from the player, a hand-out's portion goes back to the
    giver, a raise is refunded and its rating lowered again. Refused when a balance would go
    below zero, when the entry was reversed or undone already, or when it is a counter-entry.
    Returns the reversal row."""
    with transaction.atomic(savepoint=False):
        _check_note(note)
        entry = _locked_entry(entry)
        campaign = entry.campaign
        _check_pool(campaign)
        # The locks the writes drawing on the same balance take: a character's spends, a
        # giver's hand-outs.
        if entry.character_id is not None:
            entry.character = Character.objects.select_for_update().get(pk=entry.character_id)
        if entry.kind == SparetimeEntry.DELEGATE:
            Membership.objects.select_for_update().filter(
                campaign=campaign, user_id=entry.player_id
            ).first()
        _check_reversible(entry)
        return _counter(entry, kind=SparetimeEntry.REVERSAL, by=by, note=note)


def session_awards(campaign, session):
    """[{character_id, character__name, total}]: the sparetime awarded for ``session`` per
    character the viewer of ``campaign`` may see (``Character.objects.visible_to``), less the
    awards reversed (taken back: nobody has them). One query."""
    awards = (
        SparetimeEntry.objects.filter(session=session, kind=SparetimeEntry.AWARD)
        .filter(reversal__isnull=True)
        .filter(character__in=Character.objects.visible_to(campaign))
        .values("character_id", "character__name")
        .annotate(total=Sum("amount"))
        .order_by("character__name", "character_id")
    )
    return list(awards)
