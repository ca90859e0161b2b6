"""The sheet's own forms: a character's name, concept and history, a new character, the GM's
hand-over. A system's are in its package (``rolls/systems/<key>/forms.py``)."""

from django import forms
from django.contrib.auth import get_user_model

from campaigns.models import Membership
from core.names import plain_name
from rules import MAX_TARGET

from .models import Character


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


class SavedRollForm(forms.Form):
    """A saved roll's name and what it rolls: dice notation or a check of the campaign's system
    (its choices are read from the same post by ``sheets.services.saved_roll_add``, each system
    checking its own), with an NPC check's number. Lengths and ranges are the service's too: a
    post without this form's limits is refused the same way."""

    NOTATION, CHECK = "notation", "check"

    name = forms.CharField(label="Name", required=False, max_length=200)
    kind = forms.ChoiceField(
        label="Rolls",
        choices=[(NOTATION, "Dice notation"), (CHECK, "A check")],
        initial=NOTATION,
        error_messages={"invalid_choice": "Choose dice notation or a check."},
    )
    notation = forms.CharField(label="Dice", required=False, max_length=200)
    target = forms.IntegerField(label="Number", required=False, min_value=1, max_value=MAX_TARGET)
