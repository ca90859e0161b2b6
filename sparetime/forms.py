"""The sparetime forms: the GM's grant, award, delegation and reversal, a player's hand-out, a
raise and its undo.

Every choice is limited to the campaign's (or the character's) own rows, so another campaign's
character, session, player or rating is refused with a sentence saying so.
"""

from django import forms
from django.contrib.auth import get_user_model

from campaigns.models import GameSession, Membership
from core.ids import IdsChoiceField
from core.text import isolated, member_name
from core.writes import OnceField
from rolls.systems.pool.models import Rating
from sheets.models import Character

from . import services
from .models import SparetimeEntry
from .services import BUILD_MAX, MAX_AMOUNT, MAX_NOTE


def _not_here(what):
    return {"invalid_choice": f"That {what} is not in this campaign."}


def sparetime_characters(campaign, *, npcs=False):
    """The characters a grant or an award offers: the players'; the GM's own (the NPCs) too
    only when the GM asks (``npcs``): sparetime is the players' progression."""
    characters = Character.objects.filter(campaign=campaign)
    if not npcs:
        characters = characters.exclude(owner_id=campaign.gm_id())
    return characters


class AmountForm(forms.Form):
    amount = forms.IntegerField(min_value=1, max_value=MAX_AMOUNT)
    note = forms.CharField(max_length=MAX_NOTE, required=False)


class GrantForm(AmountForm):
    """The GM grants a character its starting sparetime."""

    character = forms.ModelChoiceField(queryset=None, error_messages=_not_here("character"))
    once = OnceField()  # a double submit grants once
    field_order = ["character", "amount", "note"]

    def __init__(self, campaign, *args, npcs=False, **kwargs):
        super().__init__(*args, prefix="grant", **kwargs)
        self.fields["character"].queryset = sparetime_characters(campaign, npcs=npcs)


class AwardForm(forms.Form):
    """The GM awards sparetime to each character ticked, for an ended session or none. The GM's
    sparetime card shows it; so does the room's session panel once a session ended, with that
    session (hidden) and the characters who rolled in it ticked."""

    characters = IdsChoiceField(
        queryset=Character.objects.none(),
        widget=forms.CheckboxSelectMultiple,
        error_messages={
            "required": "Tick at least one character.",
            "invalid_choice": "Choose characters of this campaign.",
            "invalid_pk_value": "Choose characters of this campaign.",
        },
    )
    amount = forms.IntegerField(label="Sparetime each", min_value=1, max_value=MAX_AMOUNT)
    session = forms.ModelChoiceField(
        queryset=GameSession.objects.none(),
        required=False,
        empty_label="—",
        error_messages={"invalid_choice": "Choose an ended session."},
    )
    note = forms.CharField(label="Note", max_length=MAX_NOTE, required=False)

    def __init__(self, campaign, *args, npcs=False, **kwargs):
        super().__init__(*args, **kwargs)
        characters = sparetime_characters(campaign, npcs=npcs)
        self.fields["characters"].queryset = characters.select_related("owner")
        self.fields["session"].queryset = campaign.game_sessions.filter(ended_at__isnull=False)


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

    targets = IdsChoiceField(
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
                (rating.pk, f"{isolated(rating.character)} — {isolated(rating.label)}")
            )
        field.choices = [
            (f"{isolated(character)} ({member_name(character.owner)})", options)
            for character, options in groups.items()
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
    portion handed out to it. The raise's confirmation (``sparetime/_raise.html``) posts it with a
    one-time token: a double submit raises once. Read from a query, it names the raise to
    confirm."""

    rating = forms.ModelChoiceField(
        queryset=None,
        error_messages={"invalid_choice": "That rating is not on this character's sheet."},
    )
    source = forms.ModelChoiceField(
        queryset=None,
        required=False,
        error_messages={"invalid_choice": "That portion was not handed out to this character."},
    )
    once = OnceField()

    def __init__(self, character, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["rating"].queryset = character.ratings.all()
        self.fields["source"].queryset = character.sparetime.filter(kind=SparetimeEntry.HANDOUT)


class BuildForm(forms.Form):
    """A build: how many points to add to each of the character's greenlit ratings
    (``points-<rating id>``), each 0 or more; sent once (a double submit builds once)."""

    once = OnceField()

    def __init__(self, character, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.ratings = list(character.ratings.filter(status=Rating.APPROVED))
        for rating in self.ratings:
            self.fields[f"points-{rating.pk}"] = forms.IntegerField(
                min_value=0, max_value=BUILD_MAX, required=False, label=rating.label
            )

    def points(self):
        """{rating: points} of the cleaned form."""
        return {r: self.cleaned_data.get(f"points-{r.pk}") or 0 for r in self.ratings}


class UndoForm(forms.Form):
    """Undo one of the character's raises (the service refuses all but its last one standing)."""

    entry = forms.ModelChoiceField(
        queryset=None,
        error_messages={"invalid_choice": "That is not a raise of this character."},
    )
    once = OnceField()  # a double submit undoes once, not the raise before too

    def __init__(self, character, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["entry"].queryset = character.sparetime.filter(kind=SparetimeEntry.SPEND)


class ReverseForm(forms.Form):
    """The GM reverses one of the campaign's ledger rows, with a note saying why. Read from a
    query, it names the row to confirm the reversal of."""

    entry = forms.ModelChoiceField(
        queryset=None,
        error_messages={"invalid_choice": "That ledger entry is not in this campaign."},
    )
    note = forms.CharField(label="Why", max_length=MAX_NOTE, required=False)
    once = OnceField()

    def __init__(self, campaign, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["entry"].queryset = campaign.sparetime.select_related(
            "character", "player", "rating", "source__player"
        ).prefetch_related("lines__rating")
