"""Mana's sheet forms: a character's traits, the GM's mana maxima."""

from django import forms

from core.names import plain_name
from sheets.services import MANA_MAX, SKILL_NAME_MAX


class TraitsForm(forms.Form):
    traits = forms.CharField(
        required=False, max_length=1000, help_text="Separate traits with commas."
    )

    def clean_traits(self):
        traits = [" ".join(t.split()) for t in self.cleaned_data["traits"].split(",")]
        for trait in traits:
            plain_name(trait)
        too_long = [t for t in traits if len(t) > SKILL_NAME_MAX]
        if too_long:
            raise forms.ValidationError(
                f"A trait has at most {SKILL_NAME_MAX} characters: {too_long[0][:20]}..."
            )
        return [t for t in traits if t]


class ManaMaximaForm(forms.Form):
    """One number field per color, named after the color."""

    def __init__(self, *args, colors, **kwargs):
        super().__init__(*args, **kwargs)
        for color in colors:
            self.fields[color] = forms.IntegerField(min_value=0, max_value=MANA_MAX, label=color)
