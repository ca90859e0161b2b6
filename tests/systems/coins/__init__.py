"""A toy rule system defined only in the tests, "coin": flip N coins, succeed with at least
``target`` heads. It proves what a third system needs outside its package (issue 25, item 2);
tests/systems/test_coins.py registers it (``SYSTEM``) and plays what already goes through the
system's interface. Its key has four letters: ``Campaign.system`` holds at most four. Its
templates are in ``templates/`` here (``rolls/systems/coin/``), which the fixture adds to the
template directories, as an installed app's would be found."""

import secrets
from collections import Counter
from fractions import Fraction
from math import comb

from django.db import transaction

from core.writes import Refused
from rolls import services as shared
from rolls.models import Check, LogEntry

#: The most coins one flip may use.
MAX_COINS = 20


def chance(coins, target):
    """The exact chance of at least ``target`` heads in ``coins`` flips."""
    return Fraction(sum(comb(coins, k) for k in range(target, coins + 1)), 2**coins)


@transaction.atomic(savepoint=False)
def check_flip(*, check, by, coins, intent=""):
    """Flip ``coins`` coins for ``check`` (its target: the heads needed) and log the flip."""
    if check.character.owner_id != by.pk:
        raise Refused("Only the character's player flips for this check.")
    if isinstance(coins, bool) or not isinstance(coins, int) or not 1 <= coins <= MAX_COINS:
        raise Refused(f"Flip from 1 to {MAX_COINS} coins.")
    shared.check_claim(check, Check.DONE, intent=intent)
    faces = [secrets.randbelow(2) for _ in range(coins)]
    heads = sum(faces)
    return shared.log_append(
        campaign=check.campaign,
        kind=LogEntry.ROLL,
        actor=by,
        character=check.character,
        check=check,
        visibility=check.visibility,
        data={
            "system": "coin",
            "coins": coins,
            "faces": faces,
            "heads": heads,
            "target": check.target,
            "success": heads >= check.target,
            "chance": str(chance(coins, check.target)),
            "intent": intent,
            "note": check.note,
        },
    )


class Sheet:
    """A coin character has nothing but its name: no rows, no party columns."""

    @staticmethod
    def character_fields(campaign):
        return {"hp_current": 0}

    @staticmethod
    def character_fill(character):
        pass

    @staticmethod
    def party_characters(campaign, characters):
        return characters

    @staticmethod
    def party_row(campaign, character, private):
        return {}

    @staticmethod
    def section_context(campaign, character, section, *, private):
        return {}


class Coins:
    key = "coin"
    name = "Coins"
    number = "heads needed"
    any_choice = "any number of coins"
    about_field = "suggestion"
    card_related = ()
    sparetime = False
    sheet = Sheet
    #: No URLs of its own.
    urls = None
    #: No odds calculator on the rules page.
    calculator = None
    distribution_caption = "Heads per number of coins"

    def rolled_groups(self, rolls):
        groups = {}
        for coins, heads in rolls.values_list("data__coins", "data__heads"):
            groups.setdefault(coins, Counter())[heads] += 1
        return groups

    def exact_distribution(self, coins, counts, *, max_bins, tail):
        last = min(coins, max_bins)
        chances = [(k, Fraction(comb(coins, k), 2**coins)) for k in range(last)]
        return f"{coins} coins", "heads", chances, last, chance(coins, last)

    def export_about(self, data):
        return ""

    def export_rolled(self, data):
        faces = " ".join(map(str, data["faces"]))
        return f"{data['coins']} coins", faces, f"{data['heads']} heads"

    def suggestions(self):
        return ()

    def check_fields(self, character, *, suggestion, mana_skill=None):
        return {"suggestion": suggestion}

    def npc_asked(self, data):
        return {}

    def roll(self, check, *, by, data):
        return check_flip(check=check, by=by, coins=data["coins"], intent=data.get("intent", ""))

    roll_npc = roll

    def asked(self, check):
        return check.suggestion

    def proposal(self, check):
        return None

    def closed_by_gm(self, check, last_roll):
        return last_roll is None

    # Nothing of its own in the party or on the campaign page.
    party_head = party_cells = ""
    campaign_sections = ()

    # Nothing of its own on the sheet or the GM panel.
    sheet_sections = ()
    sheet_pieces = ()
    panel_cards = ()
    panel_sections = ()

    def panel_context(self, request, campaign, overrides):
        return {}

    # No settings of its own: the campaign forms have only the name for it.
    settings_keys = ()

    def campaign_fill(self, campaign):
        pass

    def create_fields(self):
        return {}

    def clean_create(self, form, cleaned):
        pass

    def settings_fields(self, campaign):
        return {}

    def clean_settings(self, form, cleaned):
        pass


SYSTEM = Coins()
