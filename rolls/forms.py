"""Forms of the live table: asking for checks, setting their number, rolling, session awards.

Ids posted by a browser are only accepted from the campaign's (or the check character's) own
rows, so another campaign's character, skill or rating is refused with a clear message.
"""

from django import forms
from django.core.exceptions import ValidationError

from campaigns.models import GameSession, ManaSkill
from sheets.models import Character, Rating
from sheets.services import MAX_AMOUNT, MAX_NOTE

from .models import PRIVATE, PUBLIC, VISIBILITIES, Check
from .rules import MAX_TARGET
from .services import MAX_SPEND

NOTE_MAX = Check._meta.get_field("note").max_length
INTENT_MAX = Check._meta.get_field("intent").max_length
BONUS_MAX = Check._meta.get_field("bonus_effect").max_length
SUGGESTION_MAX = Check._meta.get_field("suggestion").max_length
#: The highest id a database integer holds.
MAX_ID = 2**63 - 1


class CountField(forms.IntegerField):
    """A number of mana or dice: a whole number from 0 to MAX_SPEND; left blank it is 0."""

    def __init__(self, label, **kwargs):
        super().__init__(label=label, min_value=0, max_value=MAX_SPEND, required=False, **kwargs)

    def clean(self, value):
        return super().clean(value) or 0


def target_field():
    return forms.IntegerField(
        label="Difficulty / TN",
        min_value=1,
        max_value=MAX_TARGET,
        error_messages={"required": "Set the difficulty or TN (a whole number from 1)."},
    )


def choice(queryset, message, **kwargs):
    return forms.ModelChoiceField(
        queryset=queryset, error_messages={"invalid_choice": message}, **kwargs
    )


class _CheckAboutForm(forms.Form):
    """What a check is about: a Mana skill, or for Pool a free text (an attribute or skill)."""

    mana_skill = choice(
        ManaSkill.objects.none(),
        "Choose one of this campaign's skills.",
        required=False,
        empty_label="— any skill —",
        label="Skill",
    )
    suggestion = forms.CharField(
        label="Attribute / skill", max_length=SUGGESTION_MAX, required=False
    )
    note = forms.CharField(label="Note", max_length=NOTE_MAX, required=False)

    def __init__(self, data=None, *, campaign, **kwargs):
        super().__init__(data, **kwargs)
        if campaign.is_mana:
            del self.fields["suggestion"]
            self.fields["mana_skill"].queryset = campaign.mana_skills.all()
        else:
            del self.fields["mana_skill"]
            self.fields["suggestion"].widget.attrs["list"] = "pool-names"

    def about(self):
        """The keyword arguments of ``check_ask`` / ``check_request`` this form fixes."""
        data = self.cleaned_data
        return {
            "mana_skill": data.get("mana_skill"),
            "suggestion": data.get("suggestion", ""),
            "note": data["note"],
            "visibility": data["visibility"],
        }


class AskForm(_CheckAboutForm):
    """The GM asks a character of the campaign for a check."""

    character = choice(
        Character.objects.none(),
        "Choose a character of this campaign.",
        empty_label=None,
        label="Character",
    )
    target = target_field()
    visibility = forms.ChoiceField(label="Visibility", choices=VISIBILITIES, initial=PUBLIC)

    field_order = ["character", "mana_skill", "suggestion", "target", "note", "visibility"]

    def __init__(self, data=None, *, campaign, **kwargs):
        super().__init__(data, campaign=campaign, **kwargs)
        field = self.fields["character"]
        field.queryset = Character.objects.filter(campaign=campaign).select_related("owner")
        field.label_from_instance = lambda c: f"{c.name} ({c.owner.username})"

    def about(self):
        return {**super().about(), "character": self.cleaned_data["character"]}


class RequestForm(_CheckAboutForm):
    """A player asks to make a check (the character is in the URL)."""

    visibility = forms.ChoiceField(
        label="Visibility",
        choices=[c for c in VISIBILITIES if c[0] in (PUBLIC, PRIVATE)],
        initial=PUBLIC,
    )


class TargetForm(forms.Form):
    target = target_field()


class ManaRollForm(forms.Form):
    """A Mana roll: the skill, mana of its two colors and colorless, and the intent.

    ``color_a``/``color_b`` name the colors the amounts were typed for; they must be the chosen
    skill's colors, so an amount is never spent on a color the player did not see."""

    skill = choice(
        ManaSkill.objects.none(), "Choose one of this campaign's skills.", empty_label=None
    )
    color_a = forms.CharField(widget=forms.HiddenInput)
    color_b = forms.CharField(widget=forms.HiddenInput)
    spend_a = CountField("First color")
    spend_b = CountField("Second color")
    colorless = CountField("Colorless")
    intent = forms.CharField(label="What you try", max_length=INTENT_MAX, required=False)

    def __init__(self, data, *, skills, **kwargs):
        super().__init__(data, **kwargs)
        self.fields["skill"].queryset = skills

    def clean(self):
        cleaned = super().clean()
        skill = cleaned.get("skill")
        colors = (cleaned.get("color_a"), cleaned.get("color_b"))
        if skill and colors != (skill.color_a, skill.color_b):
            raise ValidationError(
                f"{skill.name} is rolled with {skill.color_a} and {skill.color_b} mana, not "
                f"{' and '.join(c for c in colors if c) or 'the colors you entered'}. "
                "Enter the amounts again."
            )
        return cleaned


class RowField(forms.Field):
    """One of ``rows`` (model instances read beforehand), by the id a browser sent."""

    def __init__(self, message, **kwargs):
        super().__init__(error_messages={"invalid_choice": message}, **kwargs)
        self.rows = []

    def to_python(self, value):
        if value in self.empty_values:
            return None
        row = next((row for row in self.rows if str(row.pk) == str(value).strip()), None)
        if row is None:
            raise ValidationError(self.error_messages["invalid_choice"], code="invalid_choice")
        return row


class PoolRollForm(forms.Form):
    """A Pool roll: an attribute of the character, optionally one of its skills, the shift.
    Only the ratings sent are read (``ratings``: all of the character's, when known)."""

    attribute = RowField("Choose one of your character's attributes.")
    skill = RowField("Choose one of your character's skills.", required=False)
    shift_d6 = CountField("Shift d6")
    shift_d10 = CountField("Shift d10")
    bonus_effect = forms.CharField(label="Bonus effect", max_length=BONUS_MAX, required=False)
    intent = forms.CharField(label="What you try", max_length=INTENT_MAX, required=False)

    def __init__(self, data, *, character, ratings=None, **kwargs):
        super().__init__(data, **kwargs)
        if ratings is None:
            sent = [self[name].value() for name in ("attribute", "skill")]
            ids = [int(v) for v in sent if isinstance(v, str) and v.strip().isdecimal()]
            ids = [i for i in ids if i <= MAX_ID]
            ratings = list(Rating.objects.filter(character=character, pk__in=ids)) if ids else []
        self.fields["attribute"].rows = [r for r in ratings if r.is_attribute]
        self.fields["skill"].rows = [r for r in ratings if not r.is_attribute]


class CharactersField(forms.ModelMultipleChoiceField):
    """Characters by id; an id beyond the database's integers is refused like any unknown id
    (an ``IN`` lookup would not refuse it but fail)."""

    def clean(self, value):
        for pk in value or ():
            if str(pk).isdigit() and int(pk) > MAX_ID:
                raise ValidationError(self.error_messages["invalid_choice"], code="invalid_choice")
        return super().clean(value)


class AwardForm(forms.Form):
    """The GM awards sparetime after a session to the characters ticked."""

    session = choice(
        GameSession.objects.none(), "Choose an ended session.", widget=forms.HiddenInput
    )
    characters = CharactersField(
        queryset=Character.objects.none(),
        widget=forms.CheckboxSelectMultiple,
        error_messages={
            "required": "Tick at least one character.",
            "invalid_choice": "Choose characters of this campaign.",
            "invalid_pk_value": "Choose characters of this campaign.",
        },
    )
    amount = forms.IntegerField(label="Sparetime each", min_value=1, max_value=MAX_AMOUNT)
    note = forms.CharField(label="Note", max_length=MAX_NOTE, required=False)

    def __init__(self, data=None, *, campaign, **kwargs):
        super().__init__(data, **kwargs)
        self.fields["session"].queryset = campaign.game_sessions.filter(ended_at__isnull=False)
        self.fields["characters"].queryset = Character.objects.filter(
            campaign=campaign
        ).select_related("owner")
