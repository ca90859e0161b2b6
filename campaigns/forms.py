"""Forms for signing up, creating a campaign and for the GM panel's settings.

The campaign forms hold the name and ask the systems (``SYSTEMS``) for the rest; the fields
and checks below (palette, colors, costs, hit points) are what the systems' packages build
theirs from (``rolls/systems/<key>/system.py``; Mana's skills: ``rolls/systems/mana/forms.py``)."""

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.core.exceptions import ValidationError

from core.names import check_username, plain_name

from .models import DEFAULT_PALETTE, Campaign
from .systems import SYSTEMS, system_choices, system_of

COLORLESS = "colorless"
MAX_COLORS = 12
COLOR_MAX_LENGTH = 30
MAX_COST = 100
MAX_HP = 1000


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
            raise ValidationError(f"“{name}” is too long (at most {COLOR_MAX_LENGTH} characters).")
        if name.casefold() == COLORLESS:
            raise ValidationError("“colorless” is always there; it can't be a palette color.")
        if name.casefold() in seen:
            raise ValidationError(f"The color “{name}” appears twice.")
        seen.add(name.casefold())


def check_palette_size(colors):
    if not 1 <= len(colors) <= MAX_COLORS:
        raise ValidationError(f"A palette has 1 to {MAX_COLORS} colors.")


def cost_field(label, **kwargs):
    return forms.IntegerField(label=label, min_value=1, max_value=MAX_COST, **kwargs)


def hp_field(label, **kwargs):
    return forms.IntegerField(label=label, min_value=0, max_value=MAX_HP, **kwargs)


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


class CampaignFieldsForm(forms.Form):
    """What both campaign forms have: the name. The rest is the systems' (``SYSTEMS``)."""

    name = forms.CharField(
        max_length=Campaign._meta.get_field("name").max_length, validators=[plain_name]
    )


class CampaignCreateForm(CampaignFieldsForm):
    """Name, system, and every system's settings (``create_fields()``); the chosen system cleans
    its own (``clean_create``), the other systems' fields are ignored."""

    system = forms.ChoiceField(choices=system_choices, widget=forms.RadioSelect)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.system_fields = {}
        for key, system in SYSTEMS.items():
            fields = system.create_fields()
            self.fields.update(fields)
            self.system_fields[key] = list(fields)

    def system_sections(self):
        """``[(system, its bound fields)]`` for each system with settings: the page's fieldsets."""
        return [
            (SYSTEMS[key], [self[name] for name in names])
            for key, names in self.system_fields.items()
            if names
        ]

    def clean(self):
        cleaned = super().clean()
        chosen = cleaned.get("system")
        if chosen not in self.system_fields:
            return cleaned
        for key, names in self.system_fields.items():
            if key != chosen:
                for name in names:
                    self.errors.pop(name, None)
                    cleaned.pop(name, None)
        SYSTEMS[chosen].clean_create(self, cleaned)
        return cleaned


class CampaignSettingsForm(CampaignFieldsForm):
    """The GM panel's settings: the name, and the campaign system's settings
    (``settings_fields(campaign)``, cleaned by its ``clean_settings``; ``changes()`` holds its
    ``settings_keys``)."""

    def __init__(self, *args, campaign, **kwargs):
        kwargs.setdefault("initial", {"name": campaign.name})
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        self.system = system_of(campaign)
        fields = self.system.settings_fields(campaign)
        self.fields.update(fields)
        self.system_names = list(fields)

    def system_fields(self):
        """The system's fields, bound, in order: what its settings template shows."""
        return [self[name] for name in self.system_names]

    def changes(self):
        """The keyword arguments for ``services.campaign_settings_update``."""
        keys = ("name", *self.system.settings_keys)
        return {key: self.cleaned_data[key] for key in keys}

    def clean(self):
        cleaned = super().clean()
        self.system.clean_settings(self, cleaned)
        return cleaned


class MemberAddForm(forms.Form):
    """The GM panel's "add a player": an existing user's username."""

    username = forms.CharField(
        max_length=150,
        label="Username",
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "none"}),
    )


class SignupForm(UserCreationForm):
    """Django's sign-up form; the username also passes ``names.check_username``."""

    def clean_username(self):
        username = super().clean_username()
        if not self.has_error("username"):
            check_username(username)
        return username
