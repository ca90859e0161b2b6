"""Mana's forms: a campaign's skills (the GM panel's, and the create form's textarea of them),
a character's traits, the GM's mana maxima."""

from django import forms
from django.core.exceptions import ValidationError

from core.names import plain_name
from sheets.services import SKILL_NAME_MAX

from .models import ManaSkill
from .services import MANA_MAX


def skills_field():
    """The create form's mana skills textarea (see ``parse_skills``)."""
    return forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=(
            "One skill per line: name | color | color | trait (optional), e.g. "
            "“Gather Information | blue | white” or “Jump | red | green | Athletic”. "
            "You can also add skills later in the GM panel."
        ),
    )


class ManaSkillForm(forms.Form):
    """One mana skill: a name unique in the campaign, two distinct palette colors, a trait."""

    name = forms.CharField(
        max_length=ManaSkill._meta.get_field("name").max_length,
        validators=[plain_name],
        widget=forms.TextInput(attrs={"placeholder": "Skill name", "aria-label": "Skill name"}),
    )
    color_a = forms.ChoiceField(
        label="First color", widget=forms.Select(attrs={"aria-label": "First color"})
    )
    color_b = forms.ChoiceField(
        label="Second color", widget=forms.Select(attrs={"aria-label": "Second color"})
    )
    trait = forms.CharField(
        max_length=ManaSkill._meta.get_field("trait").max_length,
        required=False,
        validators=[plain_name],
        widget=forms.TextInput(attrs={"placeholder": "Trait (optional)", "aria-label": "Trait"}),
    )

    def __init__(self, *args, palette, taken=(), **kwargs):
        super().__init__(*args, **kwargs)
        choices = [(color, color) for color in palette]
        self.fields["color_a"].choices = choices
        self.fields["color_b"].choices = choices
        self.taken = {name.casefold() for name in taken}

    def clean_name(self):
        name = self.cleaned_data["name"]
        if name.casefold() in self.taken:
            raise ValidationError(f"There is already a skill named “{name}”.")
        return name

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("color_a") and cleaned.get("color_a") == cleaned.get("color_b"):
            raise ValidationError("A skill has two different colors.")
        return cleaned


def parse_skills(text, palette):
    """The skills textarea -> a list of ManaSkillForm cleaned_data dicts, or ValidationError.

    One skill per line: ``name | color | color | trait`` (trait optional); colors match the
    palette case-insensitively."""
    by_fold = {color.casefold(): color for color in palette}
    skills, errors = [], []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        parts = [part.strip() for part in line.split("|")]
        if len(parts) not in (3, 4):
            errors.append(f"Line {number}: write “name | color | color” or add “| trait”.")
            continue
        name, color_a, color_b, trait = (parts + [""])[:4]
        data = {
            "name": name,
            "color_a": by_fold.get(color_a.casefold(), color_a),
            "color_b": by_fold.get(color_b.casefold(), color_b),
            "trait": trait,
        }
        form = ManaSkillForm(data, palette=palette, taken=[s["name"] for s in skills])
        if form.is_valid():
            skills.append(form.cleaned_data)
        else:
            messages = [m for field_errors in form.errors.values() for m in field_errors]
            errors.append(f"Line {number}: " + " ".join(messages))
    if errors:
        raise ValidationError(errors)
    return skills


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
