"""The Mana odds calculator of the rules page (``insights``): a number of dice, or the spend
that buys them, against a difficulty."""

from django import forms

from rules import MAX_DICE, MAX_TARGET, mana

from ...services import MAX_SPEND


def _count(label, maximum=MAX_SPEND):
    return forms.IntegerField(label=label, min_value=0, max_value=maximum, required=False)


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
