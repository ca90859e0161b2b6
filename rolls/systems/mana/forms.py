"""Mana's forms: a campaign's palette (the create form's, the settings' renames and additions)
and skills (the GM panel's, and the create form's textarea of them), a character's traits, the
GM's mana maxima."""

from django import forms
from django.core.exceptions import ValidationError

from core.names import plain_name
from core.text import isolated

from .models import COLORLESS, DEFAULT_PALETTE, ManaSkill
from .services import MANA_MAX, TRAIT_MAX

MAX_COLORS = 12
COLOR_MAX_LENGTH = 30


def split_colors(text):
    """``"white, blue"`` -> ``["white", "blue"]``; blank text -> ``[]``. Entries are stripped."""
    if not text.strip():
        return []
    return [name.strip() for name in text.split(",")]


def check_colors(colors, *, taken=()):
    """Raise ValidationError unless ``colors`` are usable new color names.

    Each name is non-empty, at most 30 characters, not "colorless", not in ``taken`` and appears
    once (names compare case-insensitively)."""
    seen = {name.casefold() for name in taken}
    for name in colors:
        if not name:
            raise ValidationError("A color name is blank (check for doubled or trailing commas).")
        plain_name(name)
        if len(name) > COLOR_MAX_LENGTH:
            raise ValidationError(
                f"“{isolated(name)}” is too long (at most {COLOR_MAX_LENGTH} characters)."
            )
        if name.casefold() == COLORLESS:
            raise ValidationError("“colorless” is always there; it can't be a palette color.")
        if name.casefold() in seen:
            raise ValidationError(f"The color “{isolated(name)}” appears twice.")
        seen.add(name.casefold())


def check_palette_size(colors):
    if not 1 <= len(colors) <= MAX_COLORS:
        raise ValidationError(f"A palette has 1 to {MAX_COLORS} colors.")


class PaletteField(forms.CharField):
    """Comma-separated new color names -> the list of them (1 to ``MAX_COLORS``)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("initial", ", ".join(DEFAULT_PALETTE))
        kwargs.setdefault(
            "help_text",
            f"Comma-separated, 1 to {MAX_COLORS} colors (colorless is always there).",
        )
        super().__init__(**kwargs)

    def clean(self, value):
        colors = split_colors(super().clean(value))
        check_palette_size(colors)
        check_colors(colors)
        return colors


def color_field(index, color):
    """The settings' rename field of palette color ``index``, now ``color``."""
    return forms.CharField(
        label=f"Color {index + 1}",
        initial=color,
        max_length=COLOR_MAX_LENGTH,
        validators=[plain_name],
    )


def add_colors_field():
    return forms.CharField(
        required=False, label="Add colors", help_text="Comma-separated, optional."
    )


def renamed_palette(old, renamed, added):
    """The palette after renaming ``old``'s colors to ``renamed`` (position for position) and
    adding ``added``, or ValidationError. Colors are never removed, so every skill and mana pool
    keeps a color; a new name may not be another current color: no swaps, no chains, no
    re-adds."""
    palette = renamed + added
    check_palette_size(palette)
    for index, (before, after) in enumerate(zip(old, renamed, strict=True)):
        others = old[:index] + old[index + 1 :]
        if after != before:
            check_colors([after], taken=others)
    check_colors(added, taken=old)
    check_colors(palette)
    return palette


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
        if len(palette) > 1:  # a new skill offers two different colors, as it must have
            self.fields["color_a"].initial, self.fields["color_b"].initial = palette[:2]
        self.taken = {name.casefold() for name in taken}

    def clean_name(self):
        name = self.cleaned_data["name"]
        if name.casefold() in self.taken:
            raise ValidationError(f"There is already a skill named “{isolated(name)}”.")
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
        too_long = [t for t in traits if len(t) > TRAIT_MAX]
        if too_long:
            raise forms.ValidationError(
                f"A trait has at most {TRAIT_MAX} characters: {too_long[0][:20]}..."
            )
        return [t for t in traits if t]


class ManaMaximaForm(forms.Form):
    """One number field per color, named after the color."""

    def __init__(self, *args, colors, **kwargs):
        super().__init__(*args, **kwargs)
        for color in colors:
            self.fields[color] = forms.IntegerField(min_value=0, max_value=MANA_MAX, label=color)
