"""The GM's scene forms. An image is a plain file field: what it holds is decided from its
bytes by ``core.images`` (``services.picture_add``), never from its name or type."""

from django import forms
from django.core.validators import RegexValidator

from core.names import plain_name
from core.writes import OnceField

from .models import Scene, Token

GRID_MAX = 500
OFFSET_MAX = 500

#: The colours offered for a token (any other #rrggbb may be picked too).
PALETTE = ("#b03a2e", "#1f618d", "#1e8449", "#b7950b", "#6c3483", "#2e4053")

COLOUR = RegexValidator(r"^#[0-9a-fA-F]{6}\Z", "Pick a colour as #rrggbb.")


class SceneForm(forms.Form):
    #: A double submit uploads the map once.
    once = OnceField()
    name = forms.CharField(
        label="Name", max_length=Scene._meta.get_field("name").max_length, validators=[plain_name]
    )
    image = forms.FileField(
        label="Map (PNG, JPEG or WebP)",
        widget=forms.ClearableFileInput(attrs={"accept": "image/png,image/jpeg,image/webp"}),
    )


class GridForm(forms.Form):
    grid = forms.IntegerField(
        label="Square (pixels of the map; 0: no grid)", min_value=0, max_value=GRID_MAX
    )
    grid_x = forms.IntegerField(label="Offset x", min_value=-OFFSET_MAX, max_value=OFFSET_MAX)
    grid_y = forms.IntegerField(label="Offset y", min_value=-OFFSET_MAX, max_value=OFFSET_MAX)
    snap = forms.BooleanField(label="Snap tokens to the squares", required=False)


class TokenForm(forms.Form):
    #: A double submit adds the token once.
    once = OnceField()
    character = forms.ModelChoiceField(
        label="Character", queryset=None, required=False, empty_label="(none: a name below)"
    )
    name = forms.CharField(
        label="Or a name (an NPC, a marker)",
        max_length=Token._meta.get_field("name").max_length,
        required=False,
        validators=[plain_name],
    )
    colour = forms.CharField(
        label="Colour",
        max_length=7,
        initial=PALETTE[0],
        validators=[COLOUR],
        widget=forms.TextInput(attrs={"type": "color", "list": "token-palette"}),
    )
    image = forms.FileField(
        label="Picture (optional)",
        required=False,
        widget=forms.ClearableFileInput(attrs={"accept": "image/png,image/jpeg,image/webp"}),
    )
    gm_only = forms.BooleanField(label="GM only (players never see it)", required=False)

    def __init__(self, campaign, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["character"].queryset = campaign.characters.order_by("name")

    def clean(self):
        data = super().clean()
        if not self.errors and not data.get("character") and not data.get("name"):
            raise forms.ValidationError("Pick a character or type a name.")
        return data

    def token_name(self):
        data = self.cleaned_data
        if data["character"] is not None:  # a character's token bears its name
            return data["character"].name[: Token._meta.get_field("name").max_length]
        return data["name"]
