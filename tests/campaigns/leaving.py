"""A table where a player did everything that leaves a trace, for the tests of leaving the
table (deleting an account, handing a campaign over, deleting it, one's own data)."""

from types import SimpleNamespace

from rolls import services as rolls_services
from rolls.models import PRIVATE, LogEntry
from rolls.systems.pool import services as pool_services
from rules import notation
from sparetime import services as sparetime_services
from tests.rules.scripted_rng import ScriptedRng


def played(table):
    """``table`` (``pool_table``) after an evening in which its player (ana, Ilse's) asked for a
    check and rolled it, rolled privately, whispered and was whispered to, said something to
    the table, and had sparetime granted, spent, delegated and handed out; the other player
    (ben, Tor's) whispered back. Returns what the tests look at: the check, the log's hashes."""
    campaign, gm, ana, ben = table.campaign, table.gm, table.player, table.other_player
    rolls_services.session_start(campaign=campaign, by=gm)
    check = rolls_services.check_request(campaign=campaign, character=table.ilse, by=ana)
    rolls_services.check_set_target(check=check, target=5)
    check.refresh_from_db()
    pool_services.check_roll_pool(
        check=check,
        by=ana,
        attribute=table.strength,
        skill=table.jump,
        rng=ScriptedRng(4, 2, 1, 7, 3),
    )
    rolls_services.free_roll_make(
        campaign=campaign, by=ana, notation=notation.parse("2d6"), visibility=PRIVATE
    )
    rolls_services.message_send(campaign=campaign, by=ana, text="psst, Tor", to=ben)
    rolls_services.message_send(campaign=campaign, by=ben, text="what, Ilse?", to=ana)
    rolls_services.message_send(campaign=campaign, by=ana, text="Hello table")
    sparetime_services.sparetime_grant(character=table.ilse, amount=3, by=gm)
    sparetime_services.sparetime_spend(character=table.ilse, rating=table.agility, by=ana)
    sparetime_services.sparetime_delegate(campaign=campaign, player=ana, amount=2, by=gm)
    sparetime_services.sparetime_handout(
        campaign=campaign, giver=ana, character=table.tor, amount=1, targets=[table.tor_strength]
    )
    rolls_services.session_end(campaign=campaign, by=gm)
    hashes = list(LogEntry.objects.filter(campaign=campaign).values_list("hash", flat=True))
    return SimpleNamespace(check=check, hashes=hashes)
