"""Forms of the insight pages: the public odds calculator and the chance a player wants from the
mana advisor. Each only reads numbers; the rules engine refuses what the rules refuse."""

from django import forms

from rolls.forms import first_error
from rolls.services import MAX_SPEND
from rules import MAX_DICE, MAX_TARGET, RulesError, mana, pool


def _count(label, maximum=MAX_SPEND, **kwargs):
    return forms.IntegerField(label=label, min_value=0, max_value=maximum, required=False, **kwargs)


class ManaCalculatorForm(forms.Form):
    """Mana odds: a number of dice, or the spend that buys them, against a difficulty."""

    dice = forms.IntegerField(label="Dice", min_value=1, max_value=MAX_DICE, required=False)
    spend_a = _count("First color")
    spend_b = _count("Second color")
    colorless = _count("Colorless")
    trait = forms.BooleanField(label="Has the trait", required=False)
    previous = _count("Units spent on earlier attempts", maximum=3 * MAX_SPEND)
    difficulty = forms.IntegerField(label="Difficulty", min_value=1, max_value=MAX_TARGET)

    def odds(self):
        """{"dice": what is rolled, "chance": the exact chance} or {"error": why not}."""
        data = self.cleaned_data
        if data["dice"]:
            dice, described = data["dice"], f"{data['dice']}d10"
        else:
            rolled = mana.dice_for(
                data["spend_a"] or 0,
                data["spend_b"] or 0,
                data["colorless"] or 0,
                has_trait=data["trait"],
                previous_units=data["previous"] or 0,
            )
            dice, described = rolled.dice, rolled.describe()
        return {"dice": described, "chance": mana.success_probability(dice, data["difficulty"])}


class PoolCalculatorForm(forms.Form):
    """Pool odds: d6 and d10 against a TN."""

    d6 = _count("d6", maximum=MAX_DICE)
    d10 = _count("d10", maximum=MAX_DICE)
    tn = forms.IntegerField(label="TN", min_value=1, max_value=MAX_TARGET)

    def odds(self):
        d6, d10 = self.cleaned_data["d6"] or 0, self.cleaned_data["d10"] or 0
        dice = " + ".join(f"{n}{die}" for n, die in ((d6, "d6"), (d10, "d10")) if n)
        chance = pool.success_probability(d6, d10, self.cleaned_data["tn"])
        return {"dice": dice, "chance": chance}


CALCULATORS = {"mana": ManaCalculatorForm, "pool": PoolCalculatorForm}


def calculate(system, data):
    """The odds the calculator of ``system`` ("mana" or "pool") shows for ``data`` (a GET)."""
    if system not in CALCULATORS:
        return {"error": "Choose the Mana or the Pool calculator."}
    form = CALCULATORS[system](data)
    if not form.is_valid():
        return {"error": first_error(form)}
    try:
        return form.odds()
    except RulesError as error:
        return {"error": str(error)}
