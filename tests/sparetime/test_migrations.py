"""The ledger moved from the sheets app to its own: a database migrated from before the move keeps
every row, read through the new model."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from sparetime.models import SparetimeEntry
from sparetime.services import earmarked_sparetime, free_sparetime

#: Before the move: the sheets app as it was, every other app of ours as it is (their
#: migrations do not depend on the move, and their tables are as the current models expect).
BEFORE = [("sheets", "0001_initial"), "campaigns"]
#: After it: every app's latest migration (the rows are read through today's models), those
#: that depend on the sheets app's included (Mana's, Pool's, the rolls' own and any other
#: installed app's, such as the tests' Fate-style system), as today's models expect.
AFTER = None


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    graph = executor.loader.graph
    if targets is None:
        targets = graph.leaf_nodes()
    else:
        targets = [t if isinstance(t, tuple) else graph.leaf_nodes(t)[0] for t in targets]
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_rows_written_before_the_move_are_the_ledgers_after_it():
    old = migrate(BEFORE)
    try:
        User = old.get_model("auth", "User")
        Campaign = old.get_model("campaigns", "Campaign")
        Character = old.get_model("sheets", "Character")
        Rating = old.get_model("sheets", "Rating")
        Entry = old.get_model("sheets", "SparetimeEntry")
        gm = User.objects.create(username="gm")
        ana = User.objects.create(username="ana")
        campaign = Campaign.objects.create(name="The Marches", system="pool")
        aria = Character.objects.create(campaign=campaign, owner=ana, name="Aria")
        climb = Rating.objects.create(character=aria, attribute="Strength", skill="Climb")
        Entry.objects.create(
            campaign=campaign, kind="grant", amount=3, character=aria, created_by=gm
        )
        handout = Entry.objects.create(
            campaign=campaign, kind="handout", amount=2, character=aria, player=gm, created_by=gm
        )
        handout.targets.set([climb])
        Entry.objects.create(
            campaign=campaign,
            kind="spend",
            amount=-1,
            character=aria,
            source=handout,
            rating=climb,
            from_value=0,
            to_value=1,
            created_by=ana,
        )
    finally:
        migrate(AFTER)

    entries = SparetimeEntry.objects.order_by("id")
    assert [(e.kind, e.amount) for e in entries] == [("grant", 3), ("handout", 2), ("spend", -1)]
    aria = entries[0].character
    assert free_sparetime(aria) == 3
    [(portion, left)] = earmarked_sparetime(aria)
    assert left == 1 and [t.label for t in portion.targets.all()] == ["Climb"]


@pytest.mark.django_db(transaction=True)
def test_rows_written_before_builds_had_points_are_raises_of_one_point():
    """0005 gave a row its ``points`` (a build is one row): every row before it raised one."""
    old = migrate([("sparetime", "0004_rating_moves_to_pool"), "campaigns"])
    try:
        User = old.get_model("auth", "User")
        Campaign = old.get_model("campaigns", "Campaign")
        Character = old.get_model("sheets", "Character")
        Rating = old.get_model("pool", "Rating")
        Entry = old.get_model("sparetime", "SparetimeEntry")
        ana = User.objects.create(username="ana")
        campaign = Campaign.objects.create(name="The Marches", system="pool")
        aria = Character.objects.create(campaign=campaign, owner=ana, name="Aria")
        climb = Rating.objects.create(character=aria, attribute="Strength", skill="Climb", value=1)
        Entry.objects.create(
            campaign=campaign, kind="grant", amount=3, character=aria, created_by=ana
        )
        Entry.objects.create(
            campaign=campaign,
            kind="spend",
            amount=-1,
            character=aria,
            rating=climb,
            from_value=0,
            to_value=1,
            created_by=ana,
        )
    finally:
        migrate(AFTER)

    spend = SparetimeEntry.objects.get(kind="spend")
    assert (spend.points, spend.changes[0][1:]) == (1, (0, 1))
    assert free_sparetime(spend.character) == 3 - 1
