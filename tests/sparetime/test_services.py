"""Sparetime services: the append-only ledger, balances derived from it, and every refusal."""

import pytest
from django.db import IntegrityError, transaction

from campaigns.models import GameSession
from core.writes import Refused
from rolls.systems.pool.models import PoolSettings, Rating, hp_max_of, sheet_of
from rolls.systems.pool.services import hp_set
from sheets.models import Character
from sheets.services import character_create
from sparetime.models import SparetimeEntry
from sparetime.services import (
    delegation_left,
    earmarked_sparetime,
    free_sparetime,
    last_raise,
    player_characters,
    sparetime_award,
    sparetime_build,
    sparetime_delegate,
    sparetime_grant,
    sparetime_handout,
    sparetime_reverse,
    sparetime_spend,
    sparetime_undo,
)
from tests.conftest import make_campaign, make_user
from tests.helpers import db_snapshot, race, raises_refused, unchanged
from tests.sparetime.helpers import assert_ledger_matches_balances, character_with_ratings, rating


# Grants, awards, delegations ---------------------------------------------------------------------
def test_grant_adds_free_sparetime(hero, gm):
    entry = sparetime_grant(character=hero, amount=4, by=gm, note="A long history")
    assert (entry.kind, entry.amount, entry.character) == ("grant", 4, hero)
    assert entry.created_by == gm
    assert entry.note == "A long history"
    assert free_sparetime(hero) == 4
    assert_ledger_matches_balances(hero.campaign)


def test_award_writes_one_row_per_character(pool_campaign, hero, bens, gm):
    session = GameSession.objects.create(campaign=pool_campaign, number=1)
    entries = sparetime_award(
        campaign=pool_campaign, characters=[hero, bens], amount=2, by=gm, session=session
    )
    assert [(e.kind, e.character, e.session) for e in entries] == [
        ("award", hero, session),
        ("award", bens, session),
    ]
    assert free_sparetime(hero) == free_sparetime(bens) == 2
    assert_ledger_matches_balances(pool_campaign)


def test_a_sessions_award_reaches_a_character_once(pool_campaign, hero, bens, gm):
    session = GameSession.objects.create(campaign=pool_campaign, number=1)
    sparetime_award(campaign=pool_campaign, characters=[hero], amount=2, by=gm, session=session)
    before = db_snapshot()
    with raises_refused(match=r"^Aria already had an award for Session 1"):
        sparetime_award(
            campaign=pool_campaign, characters=[bens, hero], amount=2, by=gm, session=session
        )
    assert db_snapshot() == before
    # Another session, or an award without one, is another award.
    later = GameSession.objects.create(campaign=pool_campaign, number=2)
    sparetime_award(campaign=pool_campaign, characters=[hero], amount=1, by=gm, session=later)
    sparetime_award(campaign=pool_campaign, characters=[hero], amount=1, by=gm)
    sparetime_award(campaign=pool_campaign, characters=[hero], amount=1, by=gm)
    assert free_sparetime(hero) == 5


def test_the_database_holds_one_award_per_session_and_character(pool_campaign, hero, gm):
    session = GameSession.objects.create(campaign=pool_campaign, number=1)
    row = {"campaign": pool_campaign, "amount": 1, "character": hero, "created_by": gm}
    SparetimeEntry.objects.create(kind=SparetimeEntry.AWARD, session=session, **row)
    SparetimeEntry.objects.create(kind=SparetimeEntry.GRANT, session=session, **row)
    with pytest.raises(IntegrityError), transaction.atomic():
        SparetimeEntry.objects.create(kind=SparetimeEntry.AWARD, session=session, **row)


def test_player_characters_leave_out_the_gms_npcs(pool_campaign, hero, bens, npc):
    assert set(player_characters(pool_campaign)) == {hero, bens}


def test_award_refuses_nobody_and_strangers(pool_campaign, hero, gm, outsider):
    other = make_campaign(gm, name="Elsewhere", players=[outsider])
    stranger = character_with_ratings(other, outsider, "Stranger")
    other_session = GameSession.objects.create(campaign=other, number=1)
    before = db_snapshot()
    with raises_refused(match="no character"):
        sparetime_award(campaign=pool_campaign, characters=[], amount=1, by=gm)
    with raises_refused(match="not in this campaign"):
        sparetime_award(campaign=pool_campaign, characters=[hero, stranger], amount=1, by=gm)
    with raises_refused(match="session"):
        sparetime_award(
            campaign=pool_campaign, characters=[hero], amount=1, by=gm, session=other_session
        )
    assert db_snapshot() == before


def test_delegate_to_a_player(pool_campaign, gm, player):
    entry = sparetime_delegate(campaign=pool_campaign, player=player, amount=3, by=gm)
    assert (entry.kind, entry.player, entry.character) == ("delegate", player, None)
    assert delegation_left(pool_campaign, player) == 3


def test_delegate_only_to_players(pool_campaign, gm, outsider):
    before = db_snapshot()
    for user in (gm, outsider):
        with raises_refused(match="not a player"):
            sparetime_delegate(campaign=pool_campaign, player=user, amount=3, by=gm)
    assert db_snapshot() == before


@pytest.mark.parametrize("amount", [0, -1, 10_001, 10**12, 2.5, "3", True, None])
def test_bad_amounts_are_refused(pool_campaign, hero, gm, player, amount):
    before = db_snapshot()
    with raises_refused(match="amount"):
        sparetime_grant(character=hero, amount=amount, by=gm)
    with raises_refused(match="amount"):
        sparetime_award(campaign=pool_campaign, characters=[hero], amount=amount, by=gm)
    with raises_refused(match="amount"):
        sparetime_delegate(campaign=pool_campaign, player=player, amount=amount, by=gm)
    assert db_snapshot() == before


def test_largest_amount_is_accepted(hero, gm):
    sparetime_grant(character=hero, amount=10_000, by=gm)
    assert free_sparetime(hero) == 10_000


def test_overlong_note_is_refused(hero, gm):
    with raises_refused(match="note"):
        sparetime_grant(character=hero, amount=1, by=gm, note="x" * 201)
    assert not SparetimeEntry.objects.exists()


def test_mana_campaign_has_no_sparetime(mana_campaign, gm, player):
    character = Character.objects.create(campaign=mana_campaign, owner=player, name="Mira")
    with raises_refused(match="Pool"):
        sparetime_grant(character=character, amount=1, by=gm)
    with raises_refused(match="Pool"):
        sparetime_delegate(campaign=mana_campaign, player=player, amount=1, by=gm)
    assert not SparetimeEntry.objects.exists()


# Spending free sparetime -------------------------------------------------------------------------
def test_spend_raises_the_rating_and_writes_the_row(hero, player, gm):
    sparetime_grant(character=hero, amount=3, by=gm)
    climb = rating(hero, "Climb")
    entry = sparetime_spend(character=hero, rating=climb, by=player)
    climb.refresh_from_db()
    assert climb.value == 3
    assert (entry.kind, entry.amount, entry.rating, entry.from_value, entry.to_value) == (
        "spend",
        -1,
        climb,
        2,
        3,
    )
    assert (entry.character, entry.source, entry.created_by) == (hero, None, player)
    assert free_sparetime(hero) == 2
    assert_ledger_matches_balances(hero.campaign)


def test_spend_uses_the_campaigns_costs(pool_campaign, hero, gm):
    PoolSettings.objects.update_or_create(
        campaign_id=pool_campaign.pk, defaults=dict(attribute_cost=3, skill_cost=2)
    )
    hero.refresh_from_db()
    sparetime_grant(character=hero, amount=10, by=gm)
    strength = rating(hero, "Strength")
    assert sparetime_spend(character=hero, rating=strength, by=gm).amount == -3
    assert free_sparetime(hero) == 7
    assert sparetime_spend(character=hero, rating=rating(hero, "Climb"), by=gm).amount == -2
    assert free_sparetime(hero) == 5
    strength.refresh_from_db()
    assert strength.value == 3
    assert_ledger_matches_balances(pool_campaign)


def test_spend_refused_when_short_changes_nothing(hero, player):
    before = db_snapshot()
    with raises_refused() as caught:
        sparetime_spend(character=hero, rating=rating(hero, "Climb"), by=player)
    assert str(caught.value) == "Not enough sparetime: raising Climb 2 → 3 costs 1, you have 0."
    assert db_snapshot() == before


def test_spend_refused_when_cost_exceeds_balance(pool_campaign, hero, gm):
    PoolSettings.objects.update_or_create(
        campaign_id=pool_campaign.pk, defaults=dict(attribute_cost=3)
    )
    hero.refresh_from_db()
    sparetime_grant(character=hero, amount=2, by=gm)
    before = db_snapshot()
    with raises_refused(match="Strength 2 → 3 costs 3, you have 2"):
        sparetime_spend(character=hero, rating=rating(hero, "Strength"), by=gm)
    assert db_snapshot() == before


@pytest.mark.parametrize(
    ("status", "message"),
    [(Rating.PENDING, "waiting for the GM"), (Rating.DECLINED, "not approved")],
)
def test_unapproved_custom_skill_cannot_be_raised(hero, gm, status, message):
    sparetime_grant(character=hero, amount=3, by=gm)
    custom = Rating.objects.create(
        character=hero, attribute="Strength", skill="Wrestling", custom=True, status=status
    )
    before = db_snapshot()
    with raises_refused(match=message):
        sparetime_spend(character=hero, rating=custom, by=gm)
    assert db_snapshot() == before


def test_spend_refuses_another_characters_rating(hero, bens, gm):
    sparetime_grant(character=hero, amount=3, by=gm)
    before = db_snapshot()
    with raises_refused(match="not on Aria's sheet"):
        sparetime_spend(character=hero, rating=rating(bens, "Climb"), by=gm)
    assert db_snapshot() == before


def test_spend_reads_the_current_value_not_a_stale_one(hero, gm):
    sparetime_grant(character=hero, amount=2, by=gm)
    climb = rating(hero, "Climb")
    sparetime_spend(character=hero, rating=climb, by=gm)
    entry = sparetime_spend(character=hero, rating=climb, by=gm)  # climb still says 2
    assert (entry.from_value, entry.to_value) == (3, 4)


# Delegation and earmarked hand-outs --------------------------------------------------------------
def handout(campaign, giver, character, amount, *skills):
    targets = [rating(character, skill) for skill in skills or ("Climb",)]
    return sparetime_handout(
        campaign=campaign, giver=giver, character=character, amount=amount, targets=targets
    )


def test_handout_earmarks_a_portion(pool_campaign, delegated, player, bens):
    entry = handout(pool_campaign, player, bens, 3, "Climb", "Strength")
    assert (entry.kind, entry.player, entry.character, entry.created_by) == (
        "handout",
        player,
        bens,
        player,
    )
    assert {t.label for t in entry.targets.all()} == {"Climb", "Strength"}
    assert delegation_left(pool_campaign, player) == 2
    assert free_sparetime(bens) == 0
    assert earmarked_sparetime(bens) == [(entry, 3)]
    assert_ledger_matches_balances(pool_campaign)


def test_earmarked_sparetime_is_spent_on_its_targets(pool_campaign, delegated, player, bens):
    portion = handout(pool_campaign, player, bens, 2, "Climb")
    climb = rating(bens, "Climb")
    entry = sparetime_spend(character=bens, rating=climb, by=bens.owner, source=portion)
    assert (entry.source, entry.amount, entry.to_value) == (portion, -1, 3)
    assert earmarked_sparetime(bens) == [(portion, 1)]
    assert free_sparetime(bens) == 0
    assert_ledger_matches_balances(pool_campaign)


def test_earmarked_sparetime_is_not_spent_elsewhere(pool_campaign, delegated, player, bens):
    portion = handout(pool_campaign, player, bens, 5, "Climb")
    before = db_snapshot()
    with raises_refused(match="not earmarked for Dodge"):
        sparetime_spend(
            character=bens,
            rating=rating(bens, "Dodge"),
            by=bens.owner,
            source=portion,
        )
    with raises_refused(match="you have 0"):
        sparetime_spend(character=bens, rating=rating(bens, "Dodge"), by=bens.owner)
    with raises_refused(match="you have 0"):  # not even on the target
        sparetime_spend(character=bens, rating=rating(bens, "Climb"), by=bens.owner)
    assert db_snapshot() == before


def test_earmarked_portion_runs_out(pool_campaign, delegated, player, bens, gm):
    sparetime_grant(character=bens, amount=5, by=gm)
    portion = handout(pool_campaign, player, bens, 1, "Climb")
    climb = rating(bens, "Climb")
    sparetime_spend(character=bens, rating=climb, by=gm, source=portion)
    before = db_snapshot()
    with raises_refused(match="in that portion: raising Climb 3 → 4 costs 1"):
        sparetime_spend(character=bens, rating=climb, by=gm, source=portion)
    assert db_snapshot() == before
    assert free_sparetime(bens) == 5  # free sparetime untouched by earmarked spends
    assert_ledger_matches_balances(pool_campaign)


def test_portion_of_another_character_is_refused(pool_campaign, delegated, player, bens, hero, gm):
    sparetime_delegate(campaign=pool_campaign, player=bens.owner, amount=2, by=gm)
    portion_for_ana = handout(pool_campaign, bens.owner, hero, 2, "Climb")
    with raises_refused(match="not handed out to Bram"):
        sparetime_spend(character=bens, rating=rating(bens, "Climb"), by=gm, source=portion_for_ana)
    grant = sparetime_grant(character=bens, amount=2, by=gm)
    with raises_refused(match="not a handed-out portion"):
        sparetime_spend(character=bens, rating=rating(bens, "Climb"), by=gm, source=grant)


def test_handout_to_own_character_refused(pool_campaign, delegated, player, hero):
    before = db_snapshot()
    with raises_refused(match="your own character"):
        handout(pool_campaign, player, hero, 1)
    assert db_snapshot() == before


def test_handout_to_gm_npc_refused(pool_campaign, delegated, player, npc):
    before = db_snapshot()
    with raises_refused(match="not a player's character"):
        handout(pool_campaign, player, npc, 1)
    assert db_snapshot() == before


def test_handout_beyond_delegation_refused(pool_campaign, delegated, player, bens):
    before = db_snapshot()
    with raises_refused(match="You have 5 sparetime left to hand out; 6 is too"):
        handout(pool_campaign, player, bens, 6)
    assert db_snapshot() == before


def test_same_points_cannot_be_handed_out_twice(pool_campaign, delegated, player, bens):
    handout(pool_campaign, player, bens, 4)
    before = db_snapshot()
    with raises_refused(match="You have 1 sparetime left"):
        handout(pool_campaign, player, bens, 4)
    assert db_snapshot() == before
    handout(pool_campaign, player, bens, 1)
    with raises_refused(match="You have 0 sparetime left"):
        handout(pool_campaign, player, bens, 1)
    assert delegation_left(pool_campaign, player) == 0
    assert_ledger_matches_balances(pool_campaign)


def test_handout_without_delegation_refused(pool_campaign, other_player, hero, gm):
    with raises_refused(match="You have 0 sparetime left"):
        handout(pool_campaign, other_player, hero, 1)
    with raises_refused(match="You have 0 sparetime left"):
        handout(pool_campaign, gm, hero, 1)
    assert not SparetimeEntry.objects.exists()


def test_handout_target_checks(pool_campaign, delegated, player, bens, hero):
    pending = Rating.objects.create(
        character=bens, attribute="Strength", skill="Wrestling", custom=True, status="pending"
    )
    before = db_snapshot()
    cases = [
        ([], "at least one rating"),
        ([rating(hero, "Climb")], "not on Bram's sheet"),
        ([rating(bens, "Climb"), pending], "Wrestling is not an approved rating"),
    ]
    for targets, message in cases:
        with raises_refused(match=message):
            sparetime_handout(
                campaign=pool_campaign, giver=player, character=bens, amount=1, targets=targets
            )
    for amount in (0, -2, 10_001, "1"):
        with raises_refused(match="amount"):
            handout(pool_campaign, player, bens, amount)
    assert db_snapshot() == before


def test_handout_to_another_campaigns_character_refused(
    pool_campaign, delegated, player, gm, outsider
):
    other = make_campaign(gm, name="Elsewhere", players=[outsider])
    stranger = character_with_ratings(other, outsider, "Stranger")
    before = db_snapshot()
    with raises_refused(match="not in this campaign"):
        handout(pool_campaign, player, stranger, 1)
    assert db_snapshot() == before


def test_ledger_and_balances_agree_throughout(pool_campaign, gm, player, other_player):
    hero = character_with_ratings(pool_campaign, player, "Aria")
    bens = character_with_ratings(pool_campaign, other_player, "Bram")
    cara = make_user("cara")
    pool_campaign.memberships.create(user=cara, role="player")
    steps = [
        lambda: sparetime_grant(character=hero, amount=3, by=gm),
        lambda: sparetime_grant(character=bens, amount=1, by=gm),
        lambda: sparetime_award(
            campaign=pool_campaign, characters=player_characters(pool_campaign), amount=2, by=gm
        ),
        lambda: sparetime_delegate(campaign=pool_campaign, player=cara, amount=4, by=gm),
        lambda: sparetime_delegate(campaign=pool_campaign, player=player, amount=2, by=gm),
        lambda: handout(pool_campaign, cara, bens, 3, "Climb", "Strength"),
        lambda: handout(pool_campaign, player, bens, 1, "Dodge"),
        lambda: handout(pool_campaign, cara, hero, 1, "Dodge"),
        lambda: sparetime_spend(character=hero, rating=rating(hero, "Climb"), by=player),
        lambda: sparetime_spend(
            character=bens,
            rating=rating(bens, "Strength"),
            by=other_player,
            source=earmarked_sparetime(bens)[0][0],
        ),
        lambda: sparetime_spend(character=bens, rating=rating(bens, "Strength"), by=gm),
    ]
    for step in steps:
        step()
        assert_ledger_matches_balances(pool_campaign)
    assert free_sparetime(hero) == 4
    assert free_sparetime(bens) == 2
    assert [left for _, left in earmarked_sparetime(bens)] == [2, 1]
    assert delegation_left(pool_campaign, cara) == 0
    assert delegation_left(pool_campaign, player) == 1


# Concurrency -------------------------------------------------------------------------------------
def exactly_one_succeeded(outcomes):
    refused = [o for o in outcomes if isinstance(o, Refused)]
    done = [o for o in outcomes if isinstance(o, SparetimeEntry)]
    assert len(done) == 1, outcomes
    assert len(refused) == 1, outcomes
    return done[0]


@pytest.mark.django_db(transaction=True)
def test_concurrent_handouts_never_overspend_the_delegation(
    pool_campaign, gm, player, other_player
):
    bens = character_with_ratings(pool_campaign, other_player, "Bram")
    sparetime_delegate(campaign=pool_campaign, player=player, amount=5, by=gm)
    outcomes = race(
        lambda: handout(pool_campaign, player, bens, 3, "Climb"),
        lambda: handout(pool_campaign, player, bens, 4, "Strength"),
    )
    done = exactly_one_succeeded(outcomes)
    assert delegation_left(pool_campaign, player) == 5 - done.amount >= 0
    assert SparetimeEntry.objects.filter(kind=SparetimeEntry.HANDOUT).count() == 1
    assert_ledger_matches_balances(pool_campaign)


@pytest.mark.django_db(transaction=True)
def test_concurrent_spends_never_overspend_free_sparetime(pool_campaign, gm, player):
    hero = character_with_ratings(pool_campaign, player, "Aria")
    sparetime_grant(character=hero, amount=1, by=gm)
    outcomes = race(
        lambda: sparetime_spend(character=hero, rating=rating(hero, "Climb"), by=player),
        lambda: sparetime_spend(character=hero, rating=rating(hero, "Strength"), by=gm),
    )
    done = exactly_one_succeeded(outcomes)
    assert free_sparetime(hero) == 0
    raised = Rating.objects.get(pk=done.rating_id)
    assert raised.value == done.to_value == 3
    untouched = "Strength" if raised.skill else "Climb"
    assert rating(hero, untouched).value == 2
    assert_ledger_matches_balances(pool_campaign)


@pytest.mark.django_db(transaction=True)
def test_concurrent_spends_of_one_portion_never_overspend_it(
    pool_campaign, gm, player, other_player
):
    bens = character_with_ratings(pool_campaign, other_player, "Bram")
    sparetime_delegate(campaign=pool_campaign, player=player, amount=1, by=gm)
    portion = handout(pool_campaign, player, bens, 1, "Climb")
    climb = rating(bens, "Climb")
    outcomes = race(
        *[lambda: sparetime_spend(character=bens, rating=climb, by=gm, source=portion)] * 2
    )
    exactly_one_succeeded(outcomes)
    climb.refresh_from_db()
    assert climb.value == 3
    assert earmarked_sparetime(bens) == [(portion, 0)]
    assert_ledger_matches_balances(pool_campaign)


@pytest.mark.django_db(transaction=True)
def test_concurrent_awards_for_one_session_award_once(pool_campaign, gm, player):
    hero = character_with_ratings(pool_campaign, player, "Aria")
    session = GameSession.objects.create(campaign=pool_campaign, number=1)
    award = lambda: sparetime_award(  # noqa: E731
        campaign=pool_campaign, characters=[hero], amount=3, by=gm, session=session
    )
    outcomes = race(award, award, award)
    assert sum(isinstance(o, list) for o in outcomes) == 1, outcomes
    assert sum(isinstance(o, Refused) for o in outcomes) == 2, outcomes
    assert free_sparetime(hero) == 3


# Undo and reversal: counter-entries ---------------------------------------------------------------
def grant_and_raise(hero, gm, player, *labels, amount=5):
    sparetime_grant(character=hero, amount=amount, by=gm)
    return [
        sparetime_spend(character=hero, rating=rating(hero, label), by=player) for label in labels
    ]


def test_undo_takes_back_the_last_raise(hero, gm, player):
    (spend,) = grant_and_raise(hero, gm, player, "Climb")
    undo = sparetime_undo(entry=spend, by=player)
    assert (undo.kind, undo.amount, undo.reverses, undo.created_by) == ("undo", 1, spend, player)
    assert (undo.rating, undo.from_value, undo.to_value, undo.source) == (spend.rating, 3, 2, None)
    assert rating(hero, "Climb").value == 2
    assert free_sparetime(hero) == 5
    assert SparetimeEntry.objects.filter(pk=spend.pk, amount=-1, to_value=3).exists()
    assert_ledger_matches_balances(hero.campaign)


def test_undos_go_back_one_raise_at_a_time(hero, gm, player):
    first, second = grant_and_raise(hero, gm, player, "Climb", "Climb")
    with unchanged():
        with raises_refused(match="Only Aria's last raise can be undone; Climb 3 → 4"):
            sparetime_undo(entry=first, by=player)
    sparetime_undo(entry=second, by=player)
    sparetime_undo(entry=first, by=player)
    assert rating(hero, "Climb").value == 2
    assert free_sparetime(hero) == 5
    assert last_raise(hero) is None
    assert_ledger_matches_balances(hero.campaign)


def test_a_later_raise_of_another_rating_blocks_the_undo(hero, gm, player):
    climb, _ = grant_and_raise(hero, gm, player, "Climb", "Dodge")
    with unchanged(), raises_refused(match="Dodge 0 → 1 came after this one"):
        sparetime_undo(entry=climb, by=player)


def test_undo_refusals_change_nothing(hero, bens, gm, player):
    (spend,) = grant_and_raise(hero, gm, player, "Climb")
    grant = SparetimeEntry.objects.get(kind="grant")
    with unchanged(), raises_refused(match="Only a raise can be undone"):
        sparetime_undo(entry=grant, by=player)
    # The GM set the rating by hand since: the undo would not set it back to what it was.
    Rating.objects.filter(pk=spend.rating_id).update(value=7)
    with unchanged(), raises_refused(match="Climb is at 7 now, not 3"):
        sparetime_undo(entry=spend, by=player)
    Rating.objects.filter(pk=spend.rating_id).update(value=3)
    undo = sparetime_undo(entry=spend, by=player)
    with unchanged(), raises_refused(match="was undone already"):
        sparetime_undo(entry=spend, by=player)
    with unchanged(), raises_refused(match="Only a raise can be undone"):
        sparetime_undo(entry=undo, by=player)


def test_undo_of_an_earmarked_raise_refunds_the_portion(pool_campaign, delegated, player, bens):
    portion = handout(pool_campaign, player, bens, 2, "Climb")
    spend = sparetime_spend(
        character=bens, rating=rating(bens, "Climb"), by=bens.owner, source=portion
    )
    assert earmarked_sparetime(bens) == [(portion, 1)]
    undo = sparetime_undo(entry=spend, by=bens.owner)
    assert undo.source == portion
    assert earmarked_sparetime(bens) == [(portion, 2)]
    assert free_sparetime(bens) == 0
    assert_ledger_matches_balances(pool_campaign)


def test_undoing_an_endurance_raise_keeps_hp_within_the_maximum(pool_campaign, gm, player):
    ilse = character_create(campaign=pool_campaign, owner=player, name="Ilse")
    sparetime_grant(character=ilse, amount=1, by=gm)
    endurance = Rating.objects.get(character=ilse, skill="Endurance")
    spend = sparetime_spend(character=ilse, rating=endurance, by=player)
    ilse.refresh_from_db()
    hp_set(character=ilse, value=hp_max_of(ilse))
    assert sheet_of(ilse).hp_current == 12
    sparetime_undo(entry=spend, by=player)
    ilse.refresh_from_db()
    assert (sheet_of(ilse).hp_current, hp_max_of(ilse)) == (10, 10)


def hp(character):
    character.refresh_from_db()
    return sheet_of(character).hp_current, hp_max_of(character)


def test_a_new_character_built_with_endurance_starts_at_full_hp(pool_campaign, gm, player):
    ilse = character_create(campaign=pool_campaign, owner=player, name="Ilse")
    sparetime_grant(character=ilse, amount=3, by=gm)
    points = {
        Rating.objects.get(character=ilse, skill="Endurance"): 2,
        Rating.objects.get(character=ilse, attribute="Strength", skill=""): 1,
    }
    build = sparetime_build(character=ilse, by=player, points=points)
    assert hp(ilse) == (14, 14)
    sparetime_undo(entry=build, by=player)
    assert hp(ilse) == (10, 10)


def test_an_endurance_raise_adds_its_hp_and_keeps_the_wounds(pool_campaign, gm, player):
    ilse = character_create(campaign=pool_campaign, owner=player, name="Ilse")
    sparetime_grant(character=ilse, amount=3, by=gm)
    hp_set(character=ilse, value=6)
    endurance = Rating.objects.get(character=ilse, skill="Endurance")
    spend = sparetime_spend(character=ilse, rating=endurance, by=player)
    assert hp(ilse) == (8, 12)
    # Taking it back heals nobody: the 2 HP it added go again.
    sparetime_reverse(entry=spend, by=gm)
    assert hp(ilse) == (6, 10)
    hp_set(character=ilse, value=1)
    build = sparetime_build(character=ilse, by=player, points={endurance: 2})
    assert hp(ilse) == (5, 14)
    hp_set(character=ilse, value=3)
    sparetime_undo(entry=build, by=player)
    assert hp(ilse) == (0, 10)


def test_gm_reverses_a_grant(hero, gm):
    grant = sparetime_grant(character=hero, amount=4, by=gm)
    reversal = sparetime_reverse(entry=grant, by=gm, note="Granted twice")
    assert (reversal.kind, reversal.amount, reversal.reverses, reversal.character) == (
        "reversal",
        -4,
        grant,
        hero,
    )
    assert (reversal.note, reversal.created_by) == ("Granted twice", gm)
    assert free_sparetime(hero) == 0
    assert_ledger_matches_balances(hero.campaign)


def test_gm_reverses_an_award_row(pool_campaign, hero, bens, gm):
    rows = sparetime_award(campaign=pool_campaign, characters=[hero, bens], amount=2, by=gm)
    sparetime_reverse(entry=rows[0], by=gm)
    assert (free_sparetime(hero), free_sparetime(bens)) == (0, 2)
    assert_ledger_matches_balances(pool_campaign)


def test_gm_reverses_a_raise_even_an_earlier_one(hero, gm, player):
    climb, dodge = grant_and_raise(hero, gm, player, "Climb", "Dodge")
    reversal = sparetime_reverse(entry=climb, by=gm)
    assert (reversal.amount, reversal.from_value, reversal.to_value) == (1, 3, 2)
    assert rating(hero, "Climb").value == 2
    assert rating(hero, "Dodge").value == 1
    assert free_sparetime(hero) == 4
    assert last_raise(hero) == dodge
    assert_ledger_matches_balances(hero.campaign)


def test_gm_reverses_a_delegation_and_a_handout(pool_campaign, delegated, player, bens, gm):
    portion = handout(pool_campaign, player, bens, 3, "Climb")
    assert delegation_left(pool_campaign, player) == 2
    with unchanged(), raises_refused(match="ana has 2 left to hand out; reversing"):
        sparetime_reverse(entry=delegated, by=gm)
    reversal = sparetime_reverse(entry=portion, by=gm)
    assert (reversal.source, reversal.player, reversal.character) == (portion, player, bens)
    assert earmarked_sparetime(bens) == [(portion, 0)]
    assert delegation_left(pool_campaign, player) == 5
    assert free_sparetime(bens) == 0
    sparetime_reverse(entry=delegated, by=gm)
    assert delegation_left(pool_campaign, player) == 0
    assert_ledger_matches_balances(pool_campaign)


def test_reversal_refusals_change_nothing(pool_campaign, delegated, player, bens, hero, gm):
    grant = sparetime_grant(character=hero, amount=2, by=gm)
    spend = sparetime_spend(character=hero, rating=rating(hero, "Climb"), by=player)
    with unchanged(), raises_refused(match="Aria has 1 free sparetime; reversing this"):
        sparetime_reverse(entry=grant, by=gm)
    portion = handout(pool_campaign, player, bens, 2, "Climb")
    sparetime_spend(character=bens, rating=rating(bens, "Climb"), by=gm, source=portion)
    with unchanged(), raises_refused(match="Bram has 1 left of this hand-out of 2"):
        sparetime_reverse(entry=portion, by=gm)
    with unchanged(), raises_refused(match="Keep the note to 200"):
        sparetime_reverse(entry=spend, by=gm, note="x" * 201)
    reversal = sparetime_reverse(entry=spend, by=gm)
    with unchanged(), raises_refused(match="was reversed already"):
        sparetime_reverse(entry=spend, by=gm)
    with unchanged(), raises_refused(match="a counter-entry is not reversed"):
        sparetime_reverse(entry=reversal, by=gm)
    with unchanged(), raises_refused(match="was reversed already"):
        sparetime_undo(entry=spend, by=player)
    undo = sparetime_undo(
        entry=sparetime_spend(character=hero, rating=rating(hero, "Dodge"), by=player), by=player
    )
    with unchanged(), raises_refused(match="itself the undo of an earlier one"):
        sparetime_reverse(entry=undo, by=gm)
    with unchanged(), raises_refused(match="does not exist"):
        sparetime_reverse(entry=SparetimeEntry(pk=999_999), by=gm)
    assert_ledger_matches_balances(pool_campaign)


def test_a_raise_set_by_hand_since_is_not_reversed(hero, gm, player):
    (spend,) = grant_and_raise(hero, gm, player, "Climb")
    Rating.objects.filter(pk=spend.rating_id).update(value=9)
    with unchanged(), raises_refused(match="Climb is at 9 now, not 3"):
        sparetime_reverse(entry=spend, by=gm)


@pytest.mark.django_db(transaction=True)
def test_concurrent_undos_of_one_raise_undo_it_once(pool_campaign, gm, player):
    hero = character_with_ratings(pool_campaign, player, "Aria")
    first, second = grant_and_raise(hero, gm, player, "Climb", "Climb")
    outcomes = race(*[lambda: sparetime_undo(entry=second, by=player)] * 2)
    exactly_one_succeeded(outcomes)
    assert rating(hero, "Climb").value == 3
    assert last_raise(hero) == first
    assert_ledger_matches_balances(pool_campaign)


@pytest.mark.django_db(transaction=True)
def test_concurrent_reversals_never_overdraw_or_repeat(pool_campaign, gm, player):
    hero = character_with_ratings(pool_campaign, player, "Aria")
    grant = sparetime_grant(character=hero, amount=3, by=gm)
    (spend,) = grant_and_raise(hero, gm, player, "Climb", amount=1)  # free: 4 - 1 = 3
    outcomes = race(
        lambda: sparetime_reverse(entry=spend, by=gm),
        lambda: sparetime_undo(entry=spend, by=player),
    )
    exactly_one_succeeded(outcomes)
    assert rating(hero, "Climb").value == 2
    outcomes = race(*[lambda: sparetime_reverse(entry=grant, by=gm)] * 2)
    exactly_one_succeeded(outcomes)
    assert free_sparetime(hero) == 1
    assert_ledger_matches_balances(pool_campaign)


@pytest.mark.django_db(transaction=True)
def test_concurrent_reversals_of_two_grants_never_overdraw(pool_campaign, gm, player):
    hero = character_with_ratings(pool_campaign, player, "Aria")
    grants = [sparetime_grant(character=hero, amount=2, by=gm) for _ in range(2)]
    sparetime_spend(character=hero, rating=rating(hero, "Climb"), by=player)  # free: 3
    outcomes = race(*[lambda g=g: sparetime_reverse(entry=g, by=gm) for g in grants])
    exactly_one_succeeded(outcomes)
    assert free_sparetime(hero) == 1
    assert_ledger_matches_balances(pool_campaign)


# A build ------------------------------------------------------------------------------------------


def changes(entry):
    """(label, from, to) of what a ledger row raised or set back."""
    return [(r.label, a, b) for r, a, b in entry.changes]


def test_a_build_of_several_ratings_is_one_row_with_its_points(pool_campaign, hero, gm, player):
    PoolSettings.objects.update_or_create(
        campaign=pool_campaign, defaults={"attribute_cost": 2, "skill_cost": 1}
    )
    sparetime_grant(character=hero, amount=7, by=gm)
    strength, dodge = rating(hero, "Strength"), rating(hero, "Dodge")
    entry = sparetime_build(character=hero, by=player, points={strength: 2, dodge: 3})
    assert (entry.kind, entry.amount, entry.points, entry.rating) == (
        SparetimeEntry.SPEND,
        -7,
        5,
        None,
    )
    assert changes(entry) == [("Dodge", 0, 3), ("Strength", 2, 4)]
    assert SparetimeEntry.objects.filter(kind=SparetimeEntry.SPEND).get() == entry
    assert (rating(hero, "Strength").value, rating(hero, "Dodge").value) == (4, 3)
    assert free_sparetime(hero) == 0 and last_raise(hero) == entry
    assert_ledger_matches_balances(pool_campaign)


def test_a_build_of_one_rating_is_one_row_naming_it(pool_campaign, hero, gm, player):
    sparetime_grant(character=hero, amount=3, by=gm)
    entry = sparetime_build(character=hero, by=player, points={rating(hero, "Climb"): 3})
    assert (entry.rating, entry.from_value, entry.to_value) == (rating(hero, "Climb"), 2, 5)
    assert (entry.amount, entry.points, entry.lines.count()) == (-3, 3, 0)
    assert_ledger_matches_balances(pool_campaign)


@pytest.mark.parametrize("labels", [["Climb"], ["Climb", "Strength", "Dodge"]])
def test_an_undo_takes_a_whole_build_back(pool_campaign, hero, gm, player, labels):
    sparetime_grant(character=hero, amount=9, by=gm)
    before = {label: rating(hero, label).value for label in labels}
    spend = sparetime_spend(character=hero, rating=rating(hero, "Agility"), by=player)
    build = sparetime_build(
        character=hero, by=player, points={rating(hero, label): 2 for label in labels}
    )
    undo = sparetime_undo(entry=build, by=player)
    assert (undo.amount, undo.points) == (2 * len(labels), 2 * len(labels))
    assert changes(undo) == [(label, b, a) for label, a, b in changes(build)]
    assert {label: rating(hero, label).value for label in labels} == before
    assert free_sparetime(hero) == 8 and last_raise(hero) == spend
    assert SparetimeEntry.objects.filter(kind=SparetimeEntry.UNDO).count() == 1
    assert_ledger_matches_balances(pool_campaign)


def test_a_build_one_of_whose_ratings_moved_since_is_not_taken_back(hero, gm, player):
    sparetime_grant(character=hero, amount=4, by=gm)
    points = {rating(hero, "Climb"): 2, rating(hero, "Dodge"): 2}
    build = sparetime_build(character=hero, by=player, points=points)
    Rating.objects.filter(pk=rating(hero, "Dodge").pk).update(value=7)
    with unchanged(), raises_refused(match="Dodge is at 7 now, not 2"):
        sparetime_undo(entry=build, by=player)
    with unchanged(), raises_refused(match="Dodge is at 7 now, not 2"):
        sparetime_reverse(entry=build, by=gm)


def test_the_gm_reverses_a_whole_build(pool_campaign, hero, gm, player):
    sparetime_grant(character=hero, amount=4, by=gm)
    points = {rating(hero, "Climb"): 1, rating(hero, "Dodge"): 3}
    build = sparetime_build(character=hero, by=player, points=points)
    reversal = sparetime_reverse(entry=build, by=gm, note="Not how we build")
    assert changes(reversal) == [("Dodge", 3, 0), ("Climb", 3, 2)]
    assert (rating(hero, "Climb").value, rating(hero, "Dodge").value, free_sparetime(hero)) == (
        2,
        0,
        4,
    )
    assert last_raise(hero) is None
    assert_ledger_matches_balances(pool_campaign)


@pytest.mark.django_db(transaction=True)
def test_concurrent_undos_of_one_build_undo_it_once(pool_campaign, gm, player):
    hero = character_with_ratings(pool_campaign, player, "Aria")
    sparetime_grant(character=hero, amount=4, by=gm)
    points = {rating(hero, "Climb"): 2, rating(hero, "Dodge"): 2}
    build = sparetime_build(character=hero, by=player, points=points)
    outcomes = race(
        lambda: sparetime_undo(entry=build, by=player),
        lambda: sparetime_reverse(entry=build, by=gm),
    )
    exactly_one_succeeded(outcomes)
    assert (rating(hero, "Climb").value, rating(hero, "Dodge").value) == (2, 0)
    assert free_sparetime(hero) == 4
    assert_ledger_matches_balances(pool_campaign)


def test_a_build_it_cannot_afford_changes_nothing(hero, gm, player):
    sparetime_grant(character=hero, amount=2, by=gm)
    points = {rating(hero, "Strength"): 2, rating(hero, "Climb"): 1}
    with unchanged(), raises_refused(match="This build costs 3 sparetime; Aria has 2 free."):
        sparetime_build(character=hero, by=player, points=points)


@pytest.mark.parametrize(
    ("points", "message"),
    [
        ({}, "Add at least one point."),
        ({"Strength": 0}, "Add at least one point."),
        ({"Strength": -1}, "Points are whole numbers from 0."),
        ({"Strength": 101}, "A build adds at most 100 points."),
    ],
)
def test_a_build_refuses_bad_points(hero, gm, player, points, message):
    sparetime_grant(character=hero, amount=200, by=gm)
    points = {rating(hero, label): n for label, n in points.items()}
    with unchanged(), raises_refused(match=message):
        sparetime_build(character=hero, by=player, points=points)


def test_a_build_with_another_characters_rating_changes_nothing(hero, bens, gm, player):
    sparetime_grant(character=hero, amount=5, by=gm)
    points = {rating(hero, "Strength"): 1, rating(bens, "Climb"): 1}
    with unchanged(), raises_refused(match="That rating is not on Aria's sheet."):
        sparetime_build(character=hero, by=player, points=points)
