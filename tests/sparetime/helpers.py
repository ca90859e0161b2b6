"""Helpers for the sparetime tests (fixtures are in conftest.py)."""

from rolls.systems.pool.models import Rating
from sheets.models import Character
from sparetime.models import SparetimeEntry
from sparetime.services import (
    delegation_left,
    earmarked_sparetime,
    free_sparetime,
)

#: The ratings of a sparetime test character (character_with_ratings): (attribute, skill, value).
SHEET = [("Strength", "", 2), ("Strength", "Climb", 2), ("Agility", "", 1), ("Agility", "Dodge", 0)]


def character_with_ratings(campaign, owner, name):
    """A character with just the SHEET ratings (no default sheet, no mana)."""
    character = Character.objects.create(campaign=campaign, owner=owner, name=name)
    for attribute, skill, value in SHEET:
        Rating.objects.create(character=character, attribute=attribute, skill=skill, value=value)
    return character


def rating(character, label):
    """The character's rating called ``label`` (an attribute or a skill)."""
    if label in {attribute for attribute, _, _ in SHEET}:
        return Rating.objects.get(character=character, attribute=label, skill="")
    return Rating.objects.get(character=character, skill=label)


def assert_ledger_matches_balances(campaign):
    """Recompute every balance from the raw rows and compare with the services' derived ones."""
    rows = list(
        SparetimeEntry.objects.filter(campaign=campaign)
        .select_related("reverses", "rating")
        .prefetch_related("targets", "lines__rating", "reverses__lines__rating")
    )
    free, portions, delegations = {}, {}, {}
    for row in rows:
        if row.reverses is not None:  # a counter-entry cancels its row in every balance
            original = row.reverses
            assert row.amount == -original.amount
            assert (row.character_id, row.player_id) == (original.character_id, original.player_id)
            if original.kind == SparetimeEntry.SPEND:
                back = [(r, b, a) for r, a, b in original.changes]
                assert row.changes == back and row.points == original.points
            row = original
            sign = -1
        else:
            assert row.kind not in SparetimeEntry.COUNTERS
            sign = 1
        if row.kind in (SparetimeEntry.GRANT, SparetimeEntry.AWARD):
            free[row.character_id] = free.get(row.character_id, 0) + sign * row.amount
        elif row.kind == SparetimeEntry.DELEGATE:
            delegations[row.player_id] = delegations.get(row.player_id, 0) + sign * row.amount
        elif row.kind == SparetimeEntry.HANDOUT:
            delegations[row.player_id] = delegations.get(row.player_id, 0) - sign * row.amount
            portions[row.id] = portions.get(row.id, 0) + sign * row.amount
        else:
            raised = row.changes
            assert raised and row.amount <= 0
            assert (
                all(b > a for _, a, b in raised) and sum(b - a for _, a, b in raised) == row.points
            )
            if row.source_id is None:
                free[row.character_id] = free.get(row.character_id, 0) + sign * row.amount
            else:
                assert row.rating in row.source.targets.all() and row.points == 1
                portions[row.source_id] = portions.get(row.source_id, 0) + sign * row.amount
    for character in campaign.characters.all():
        assert free_sparetime(character) == free.get(character.id, 0) >= 0
        for handout, left in earmarked_sparetime(character):
            assert left == portions[handout.id] >= 0
    for membership in campaign.memberships.all():
        left = delegation_left(campaign, membership.user)
        assert left == delegations.get(membership.user_id, 0) >= 0
