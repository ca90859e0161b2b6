"""The sparetime forms: the GM's grant, award and delegation, a player's hand-out and a raise.

Every choice is limited to the campaign's (or the character's) own rows, so another campaign's
character, session, player or rating is refused with a sentence saying so.
"""

from django import forms
from django.contrib.auth import get_user_model

from campaigns.models import Membership
from sheets.models import Rating

from . import services
from .models import SparetimeEntry
from .services import MAX_AMOUNT, MAX_NOTE


def _not_here(what):
    return {"invalid_choice": f"That {what} is not in this campaign."}


class AmountForm(forms.Form):
    amount = forms.IntegerField(min_value=1, max_value=MAX_AMOUNT)
    note = forms.CharField(max_length=MAX_NOTE, required=False)


class GrantForm(AmountForm):
    """The GM grants a character its starting sparetime."""

    character = forms.ModelChoiceField(queryset=None, error_messages=_not_here("character"))
    field_order = ["character", "amount", "note"]

    def __init__(self, campaign, *args, **kwargs):
        super().__init__(*args, prefix="grant", **kwargs)
        self.fields["character"].queryset = campaign.characters.all()


class AwardForm(AmountForm):
    """The GM awards sparetime to one character, or to every player's character."""

    ONE = "one"
    EVERYONE = "everyone"

    to = forms.ChoiceField(
        choices=[(ONE, "One character"), (EVERYONE, "Everyone (every player's character)")],
        widget=forms.RadioSelect,
        initial=ONE,
    )
    character = forms.ModelChoiceField(
        queryset=None, required=False, error_messages=_not_here("character")
    )
    session = forms.ModelChoiceField(
        queryset=None, required=False, empty_label="—", error_messages=_not_here("session")
    )
    field_order = ["to", "character", "amount", "session", "note"]

    def __init__(self, campaign, *args, **kwargs):
        super().__init__(*args, prefix="award", **kwargs)
        self.campaign = campaign
        self.fields["character"].queryset = campaign.characters.all()
        self.fields["session"].queryset = campaign.game_sessions.all()

    def clean(self):
        data = super().clean()
        if data.get("to") == self.EVERYONE:
            data["characters"] = list(services.player_characters(self.campaign))
        elif data.get("character") is not None:
            data["characters"] = [data["character"]]
        elif "character" not in self.errors:
            self.add_error("character", "Pick the character to award, or award everyone.")
        return data


class DelegateForm(AmountForm):
    """The GM gives a player sparetime to hand out to other players' characters."""

    player = forms.ModelChoiceField(queryset=None, error_messages=_not_here("player"))
    field_order = ["player", "amount", "note"]

    def __init__(self, campaign, *args, **kwargs):
        super().__init__(*args, prefix="delegate", **kwargs)
        self.fields["player"].queryset = (
            get_user_model()
            .objects.filter(memberships__campaign=campaign, memberships__role=Membership.PLAYER)
            .order_by("username")
        )


class HandoutForm(AmountForm):
    """A player hands some of their delegation to another player's character, earmarked for
    ratings of that character."""

    targets = forms.ModelMultipleChoiceField(
        queryset=None,
        label="For",
        help_text="One or more ratings of one other player's character.",
        error_messages={
            "invalid_choice": "Pick ratings of another player's character in this campaign.",
            "invalid_pk_value": "Pick ratings of another player's character in this campaign.",
        },
    )
    field_order = ["targets", "amount", "note"]

    def __init__(self, campaign, giver, *args, **kwargs):
        super().__init__(*args, **kwargs)
        ratings = (
            Rating.objects.filter(
                status=Rating.APPROVED,
                character__in=services.player_characters(campaign).exclude(owner=giver),
            )
            .select_related("character__owner")
            .order_by("character__name", "character_id", "attribute", "skill")
        )
        field = self.fields["targets"]
        field.queryset = ratings
        groups = {}
        for rating in ratings:
            groups.setdefault(rating.character, []).append(
                (rating.pk, f"{rating.character} — {rating.label}")
            )
        field.choices = [
            (f"{character} ({character.owner})", options) for character, options in groups.items()
        ]
        field.widget.attrs["size"] = 12

    def clean(self):
        data = super().clean()
        characters = {rating.character for rating in data.get("targets", [])}
        if len(characters) > 1:
            self.add_error("targets", "Pick ratings of one character only.")
        elif characters:
            data["character"] = characters.pop()
        return data


class SpendForm(forms.Form):
    """Raise one of the character's ratings by a point, from free sparetime or (``source``) from a
    portion handed out to it."""

    rating = forms.ModelChoiceField(
        queryset=None,
        error_messages={"invalid_choice": "That rating is not on this character's sheet."},
    )
    source = forms.ModelChoiceField(
        queryset=None,
        required=False,
        error_messages={"invalid_choice": "That portion was not handed out to this character."},
    )

    def __init__(self, character, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["rating"].queryset = character.ratings.all()
        self.fields["source"].queryset = character.sparetime.filter(kind=SparetimeEntry.HANDOUT)
