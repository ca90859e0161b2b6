"""Mana's models moved to its own app (rolls/systems/mana/models.py) from campaigns (ManaSkill)
and sheets (ManaPool), keeping their tables: a database migrated from before the move keeps
every row, read through the new models, and a check's skill with them."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from rolls.models import Check
from rolls.systems.mana import models as mana_models
from rolls.systems.mana.models import ManaPool, ManaSkill

#: Before the move: the apps the models left, and rolls (the check's foreign key), as they were.
BEFORE = [
    ("campaigns", "0004_alter_campaign_system"),
    ("sheets", "0002_sparetimeentry_moves_to_sparetime"),
    ("rolls", "0005_check_asked_and_declined"),
]
#: After it: every installed app at its latest (the tests' Fate-style system too, whose
#: migration going back to BEFORE undid).
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
def test_rows_written_before_the_move_are_manas_after_it():
    old = migrate(BEFORE)
    try:
        User = old.get_model("auth", "User")
        Campaign = old.get_model("campaigns", "Campaign")
        Skill = old.get_model("campaigns", "ManaSkill")
        Character = old.get_model("sheets", "Character")
        Pool = old.get_model("sheets", "ManaPool")
        OldCheck = old.get_model("rolls", "Check")
        gm = User.objects.create(username="gm")
        ana = User.objects.create(username="ana")
        campaign = Campaign.objects.create(name="Blue Harbor", system="mana")
        mend = Skill.objects.create(
            campaign=campaign, name="Mend", color_a="white", color_b="green"
        )
        mira = Character.objects.create(campaign=campaign, owner=ana, name="Mira")
        Pool.objects.create(character=mira, color="white", current=2, maximum=3)
        OldCheck.objects.create(campaign=campaign, character=mira, created_by=gm, mana_skill=mend)
    finally:
        migrate(AFTER)

    [skill] = ManaSkill.objects.all()
    assert (skill.name, skill.color_a, skill.color_b, skill.campaign.name) == (
        "Mend",
        "white",
        "green",
        "Blue Harbor",
    )
    [pool] = ManaPool.objects.all()
    assert (pool.character.name, pool.color, pool.current, pool.maximum) == ("Mira", "white", 2, 3)
    assert list(pool.character.mana.all()) == [pool]
    assert mana_models.check_of(Check.objects.get()).skill == skill
