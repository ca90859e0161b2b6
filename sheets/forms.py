from django import forms
from django.contrib.auth import get_user_model

from campaigns.models import Membership
from core.names import plain_name

from .models import Character, Rating
from .services import MANA_MAX, RATING_MAX, SKILL_NAME_MAX


class CharacterForm(forms.ModelForm):
    """Name, concept and history: the free text the owner (or the GM) writes."""

    class Meta:
        model = Character
        fields = ["name", "concept", "history"]
        widgets = {"history": forms.Textarea(attrs={"rows": 5})}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("name", "concept"):
            self.fields[name].validators.append(plain_name)


def _players(campaign):
    """The campaign's players (the GM is none), by name."""
    return (
        get_user_model()
        .objects.filter(memberships__campaign=campaign, memberships__role=Membership.PLAYER)
        .order_by("username")
    )


def _player_field(**kwargs):
    field = forms.ModelChoiceField(
        queryset=None,
        error_messages={"invalid_choice": "Choose a player of this campaign."},
        **kwargs,
    )
    field.label_from_instance = lambda user: user.username
    return field


class CharacterCreateForm(CharacterForm):
    """A new character. The GM also says whose it is: their own (an NPC), or a player's (a sheet
    made for them)."""

    def __init__(self, *args, campaign, **kwargs):
        super().__init__(*args, **kwargs)
        if campaign.viewer.is_gm:
            self.fields["owner"] = _player_field(
                required=False, empty_label="Me (an NPC)", label="Whose"
            )
            self.fields["owner"].queryset = _players(campaign)


class HandOverForm(forms.Form):
    """The GM hands an NPC to a player."""

    to = _player_field(label="Hand over to", empty_label=None)

    def __init__(self, *args, campaign, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["to"].queryset = _players(campaign)


class RatingForm(forms.Form):
    value = forms.IntegerField(min_value=0, max_value=RATING_MAX, label="Rating")


class HpForm(forms.Form):
    def __init__(self, *args, hp_max, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["hp_current"] = forms.IntegerField(
            min_value=0, max_value=hp_max, label="Current HP"
        )


class TemplateSkillForm(forms.Form):
    attribute = forms.ChoiceField(choices=Rating.ATTRIBUTE_CHOICES)
    template = forms.CharField(max_length=80)
    # Left optional so that an empty blank gets the rules' own message ("Name the Region.").
    fill = forms.CharField(
        max_length=SKILL_NAME_MAX, required=False, label="Name", validators=[plain_name]
    )


class SkillProposalForm(forms.Form):
    attribute = forms.ChoiceField(choices=Rating.ATTRIBUTE_CHOICES)
    name = forms.CharField(max_length=SKILL_NAME_MAX, label="New skill", validators=[plain_name])


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
