"""A toy rule system defined only in the tests, "coin": flip N coins, succeed with at least
``target`` heads. It proves that a third system needs nothing outside its package (issue 25,
item 2). The fixture ``coin_system`` (tests/systems/conftest.py) names this package in the setting
``ROLL_SYSTEMS`` and registers it from there; tests/systems/test_coins.py and test_coins_room.py
play a campaign of it. It subclasses ``rolls.systems.RuleSystem`` and writes only what differs
from its defaults. Its templates are in ``templates/`` here (``rolls/systems/coin/``), as Pool's
and Mana's are in theirs; not being an installed app, the fixture adds it to the template
directories."""

from collections import Counter
from fractions import Fraction
from math import comb

from django import forms
from django.db import transaction

from core.writes import Refused
from rolls import services as shared
from rolls.forms import INTENT_MAX, contribution_field, first_error, suggestion_field
from rolls.models import Check, LogEntry
from rolls.systems import RuleSystem
from rules import odds

#: The most coins one flip may use.
MAX_COINS = 20


def chance(coins, target):
    """The exact chance of at least ``target`` heads in ``coins`` flips."""
    return Fraction(sum(comb(coins, k) for k in range(target, coins + 1)), 2**coins)


@transaction.atomic(savepoint=False)
def check_flip(*, check, by, coins, intent="", contribution="", rng=None):
    """Flip ``coins`` coins for ``check`` (its target: the heads needed) and log the flip; a
    face is 1 (heads) or 0 (tails), from ``rng`` or the dice source every system rolls with."""
    if check.character.owner_id != by.pk:
        raise Refused("Only the character's player flips for this check.")
    if isinstance(coins, bool) or not isinstance(coins, int) or not 1 <= coins <= MAX_COINS:
        raise Refused(f"Flip from 1 to {MAX_COINS} coins.")
    shared.check_claim(check, Check.DONE, intent=intent)
    head, rolled = shared.roll_dice(check.campaign, contribution=contribution, rng=rng)
    faces = [rolled.randint(0, 1) for _ in range(coins)]
    heads = sum(faces)
    return shared.log_append(
        head=head,
        dice=rolled,
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
            "chance": odds.as_text(chance(coins, check.target)),
            "intent": intent,
            "note": check.note,
        },
    )


class CoinRollForm(forms.Form):
    """A flip: how many coins, and what the character tries."""

    coins = forms.IntegerField(label="Coins", min_value=1, max_value=MAX_COINS)
    intent = forms.CharField(label="What you try", max_length=INTENT_MAX, required=False)
    contribution = contribution_field()


class Coins(RuleSystem):
    """Only what differs from ``RuleSystem``'s defaults: no rows of its own on a check, a
    campaign or a character, no settings, no shifts, no URLs, no calculator, nothing on the
    sheet, the party, the campaign page or the GM panel; no ``drawn``/``replay`` (its draws
    alone are checked), no ``rolled`` (nothing kept with the entry)."""

    key = "coin"
    name = "Coins"
    summary = "a coin per die, heads a success"
    number = "heads needed"
    any_choice = "any number of coins"
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

    def export_rolled(self, data):
        faces = " ".join(map(str, data["faces"]))
        return f"{data['coins']} coins", faces, f"{data['heads']} heads"

    def roll_form(self, check, data):
        return CoinRollForm(data, auto_id=f"roll-{check.pk}-%s")

    def roll_context(self, check, *, form=None, changed=None):
        """One coin to start with (or what was typed); any number of coins is offered."""
        if form is None:
            changed = changed or {}
            data = {"coins": changed.get("coins", 1), "intent": changed.get("intent", check.intent)}
            form = self.roll_form(check, data)
        return {"form": form, "odds": self.odds(check, form)}

    def odds(self, check, form):
        if not form.is_valid():
            return {"error": first_error(form)}
        coins = form.cleaned_data["coins"]
        dice = f"{coins} coin{'s' if coins > 1 else ''}"
        return {"dice": dice, "chance": chance(coins, check.target)}

    def about_form_field(self, campaign):
        return suggestion_field("What for")

    def roll(self, check, *, by, data):
        contribution = data.get("contribution", "")
        intent = data.get("intent", "")
        return check_flip(
            check=check, by=by, coins=data["coins"], intent=intent, contribution=contribution
        )

    def asked(self, check):
        return check.suggestion


SYSTEM = Coins()
