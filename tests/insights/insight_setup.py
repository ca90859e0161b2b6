"""A known Mana log for the insight tests: who rolled what, with which exact chance, seen by
whom. Every roll spends nothing and rolls the free die alone: 3/10 against difficulty 1 (an 8, 9
or 0), 1/10 against difficulty 2 (a 0)."""

from django.db import transaction

from rolls import services
from rolls.models import PRIVATE, SECRET, LogEntry
from tests.rolls.room_setup import ask, roll_mana


def free_die(table, character, by, target, face, **kwargs):
    check = ask(table, character, target=target, **kwargs)
    return roll_mana(check, by, table.gather, (face,), spend_a=0, spend_b=0)


def build_known_log(table):
    """Session 1: Mira (ana) succeeds at 3/10 and fails at 1/10, Bo (ben) succeeds privately at
    3/10, the GM's Warden fails in secret at 3/10. Between sessions Mira fails at 3/10. Session 2
    (still running): Mira succeeds privately at 1/10."""
    t = table
    services.session_start(campaign=t.campaign, by=t.gm)
    free_die(t, t.mira, t.player, 1, 8)
    free_die(t, t.mira, t.player, 2, 9)
    free_die(t, t.bo, t.other_player, 1, 10, visibility=PRIVATE)
    free_die(t, t.npc, t.gm, 1, 1, visibility=SECRET)
    services.session_end(campaign=t.campaign, by=t.gm)
    free_die(t, t.mira, t.player, 1, 3)
    services.session_start(campaign=t.campaign, by=t.gm)
    free_die(t, t.mira, t.player, 2, 10, visibility=PRIVATE)


def add_rolls(table, count):
    """``count`` more public rolls of Mira's, straight into the log (half succeed, at 1/2)."""
    for n in range(count):
        with transaction.atomic():
            services.log_append(
                campaign=table.campaign,
                kind=LogEntry.ROLL,
                actor=table.player,
                character=table.mira,
                data={
                    "system": "mana",
                    "success": n % 2 == 0,
                    "successes": 1 if n % 2 == 0 else 0,
                    "chance": "1/2",
                    "dice": 1,
                    "target": 1,
                },
            )
