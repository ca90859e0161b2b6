"""The Pool odds calculator of the rules page (``insights``): d6 and d10 against a TN."""

from django import forms

from rules import MAX_DICE, MAX_TARGET, pool


def _count(label):
    return forms.IntegerField(label=label, min_value=0, max_value=MAX_DICE, required=False)


class PoolCalculatorForm(forms.Form):
    """Pool odds: d6 and d10 against a TN."""

    d6 = _count("d6")
    d10 = _count("d10")
    tn = forms.IntegerField(label="TN", min_value=1, max_value=MAX_TARGET)

    def odds(self):
        d6, d10 = self.cleaned_data["d6"] or 0, self.cleaned_data["d10"] or 0
        dice = " + ".join(f"{n}{die}" for n, die in ((d6, "d6"), (d10, "d10")) if n)
        chance = pool.success_probability(d6, d10, self.cleaned_data["tn"])
        return {"dice": dice, "chance": chance}
