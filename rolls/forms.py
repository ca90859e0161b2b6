"""Forms of the live table: asking for checks and setting their number; the roll forms are their
system's (``rolls.systems``), as is what a system adds to the session panel (Pool's award).

Ids posted by a browser are only accepted from the campaign's (or the check character's) own
rows, so another campaign's character, skill or rating is refused with a clear message.
"""

from django import forms
from django.core.validators import RegexValidator

from core.ids import IdsChoiceField
from core.names import plain_name
from core.text import isolated, member_name
from core.writes import OnceField
from rules import MAX_TARGET, RulesError, notation
from sheets.models import Character, SavedRoll

from . import talk
from .models import PRIVATE, PUBLIC, VISIBILITIES, WHISPER, Check

NOTE_MAX = Check._meta.get_field("note").max_length
INTENT_MAX = Check._meta.get_field("intent").max_length
SUGGESTION_MAX = Check._meta.get_field("suggestion").max_length


#: The ids of a roll form's fields, given its check's id: ``roll-<check id>-<field>``; in the GM's
#: NPC roll, whose check is not saved yet, ``roll-npc-<field>`` (``room.views.NPC_PROBE``):
#: ``ROLL_AUTO_ID.format(check.pk or "npc")``.
ROLL_AUTO_ID = "roll-{}-%s"


#: What the browser's contribution to a roll's dice may be (``rules.fair.check_contribution``).
CONTRIBUTION = RegexValidator(
    r"\A[0-9a-fA-F]{16,64}\Z",
    "Your browser's random part for the dice was not readable: send it again.",
)


def contribution_field():
    """The roller's browser's contribution to a roll's dice (``rolls.dice``): fresh random hex
    that static/js/site.js adds to every htmx post; none from a plain form (the server makes
    one, which the roll's entry says)."""
    return forms.CharField(required=False, validators=[CONTRIBUTION])


def target_field():
    return forms.IntegerField(
        label="Difficulty / TN",
        min_value=1,
        max_value=MAX_TARGET,
        error_messages={"required": "Set the difficulty or TN (a whole number from 1)."},
    )


def chosen(rows, pk):
    """The row of ``rows`` whose pk is ``pk`` (as sent by a browser), or None."""
    return next((row for row in rows if str(row.pk) == str(pk)), None)


def first_error(form):
    """The form's first error as one sentence, named after its field."""
    field, errors = next(iter(form.errors.items()))
    label = form[field].label if field in form.fields else None
    return f"{label}: {errors[0]}" if label else errors[0]


def choice(queryset, message, **kwargs):
    return forms.ModelChoiceField(
        queryset=queryset, error_messages={"invalid_choice": message}, **kwargs
    )


def suggestion_field(label="Attribute / skill"):
    """What a check is about as free text, offered the system's ``suggestions`` while typing:
    the ``about_form_field`` of a system whose ``about_field`` is ``suggestion``."""
    field = forms.CharField(
        label=label, max_length=SUGGESTION_MAX, required=False, validators=[plain_name]
    )
    field.widget.attrs["list"] = "suggestions"
    return field


class _CheckAboutForm(forms.Form):
    """What a check is about (the system's field: ``about_form_field``, e.g. a Mana skill, or
    for Pool a free text, an attribute or skill) and a note."""

    #: Where the system's field goes: replaced by it, under its name (``about_field``).
    about_here = forms.Field(required=False)
    note = forms.CharField(label="Note", max_length=NOTE_MAX, required=False)

    def __init__(self, data=None, *, campaign, **kwargs):
        from .systems import system_of

        super().__init__(data, **kwargs)
        system = system_of(campaign)
        self.about_name = system.about_field
        fields = self.fields.items()
        self.fields = {self.about_name if n == "about_here" else n: f for n, f in fields}
        self.fields[self.about_name] = system.about_form_field(campaign)

    @property
    def about_field(self):
        """The bound field that says what the check is about."""
        return self[self.about_name]

    def about(self):
        """The keyword arguments of ``check_ask`` / ``check_request`` this form fixes."""
        data = self.cleaned_data
        return {
            self.about_name: data.get(self.about_name),
            "note": data["note"],
            "visibility": data["visibility"],
        }


def characters_field(message, **kwargs):
    """Characters of the campaign, by the ids a browser sent (the queryset is set per form)."""
    return IdsChoiceField(
        queryset=Character.objects.none(),
        error_messages={
            "invalid_choice": message,
            "invalid_pk_value": message,
            "required": "Choose at least one character.",
        },
        **kwargs,
    )


class AskForm(_CheckAboutForm):
    """The GM asks one character of the campaign for a check, or several at once (a group
    check: one check each)."""

    character = characters_field(
        "Choose a character of this campaign.",
        label="Character",
        help_text="Ctrl- or ⌘-click to ask several at once.",
    )
    target = target_field()
    visibility = forms.ChoiceField(label="Visibility", choices=VISIBILITIES, initial=PUBLIC)
    once = OnceField()  # a double submit asks once

    field_order = ["character", "about_here", "target", "note", "visibility"]

    #: What the form shows again after an ask (the GM often asks the same again).
    REMEMBERED = ("character", "target", "visibility")

    def __init__(self, data=None, *, campaign, **kwargs):
        super().__init__(data, campaign=campaign, **kwargs)
        field = self.fields["character"]
        field.queryset = Character.objects.filter(campaign=campaign).select_related("owner")
        field.label_from_instance = lambda c: f"{isolated(c.name)} ({member_name(c.owner)})"
        field.widget.attrs["size"] = 4
        if not self.is_bound and not self.initial.get("character"):
            # A fresh form has the first character chosen, as a single choice would.
            first = field.queryset.values_list("pk", flat=True).first()
            self.initial["character"] = [first] if first else []

    def about(self):
        return {**super().about(), "characters": self.cleaned_data["character"]}

    def remembered(self):
        """The initial values of the next ask form: this (valid) one's choices, the note and
        the one-time token left out."""
        data = self.cleaned_data
        return {
            name: [c.pk for c in data[name]] if name == "character" else data[name]
            for name in (*self.REMEMBERED, self.about_name)
            if name in data
        }


class NpcRollForm(forms.Form):
    """The GM's roll for an NPC in one step: the check's side (which NPC, the number, the
    visibility, a note); the roll's side is the system's roll form (``rolls.systems``), bound to
    the same data."""

    character = choice(
        Character.objects.none(), "Choose one of your NPCs.", empty_label=None, label="NPC"
    )
    target = target_field()
    visibility = forms.ChoiceField(label="Visibility", choices=VISIBILITIES, initial=PUBLIC)
    note = forms.CharField(label="Note", max_length=NOTE_MAX, required=False)
    once = OnceField()  # a double submit rolls once

    def __init__(self, data=None, *, campaign, **kwargs):
        super().__init__(data, **kwargs)
        from .systems import system_of

        npcs = campaign.characters.filter(owner_id=campaign.gm_id())
        related = system_of(campaign).character_related
        self.fields["character"].queryset = npcs.select_related(*related) if related else npcs


class RequestForm(_CheckAboutForm):
    """A player asks to make a check (the character is in the URL)."""

    visibility = forms.ChoiceField(
        label="Visibility",
        choices=[c for c in VISIBILITIES if c[0] in (PUBLIC, PRIVATE)],
        initial=PUBLIC,
    )


class TargetForm(forms.Form):
    target = target_field()


class SavedRollForm(forms.Form):
    """A saved roll's Roll button (``room.views.saved_roll``): the roller's browser's part of
    the dice, and the number an NPC's check without one of its own is rolled against."""

    target = forms.IntegerField(
        label="Difficulty / TN", min_value=1, max_value=MAX_TARGET, required=False
    )
    contribution = contribution_field()


class TalkForm(forms.Form):
    """The room's one box (``rolls.talk``): a message, a whisper or a free roll. Cleaned, it
    holds ``said`` (``rolls.talk.Said``), and for a roll its ``notation``
    (``rules.notation.parse``'s), for a whisper its ``recipient`` (a member), for a message the
    ``mentions`` (the ids of the members it calls)."""

    contribution = contribution_field()
    text = forms.CharField(
        label="Say or roll",
        max_length=talk.MESSAGE_MAX,
        strip=True,
        error_messages={"required": "Type a message, or /r and dice to roll."},
        widget=forms.TextInput(
            attrs={
                "autocomplete": "off",
                "enterkeyhint": "send",
                "placeholder": "Say something, /r 2d6+3, /w gm …",
            }
        ),
    )

    def __init__(self, *args, campaign, user, **kwargs):
        super().__init__(*args, auto_id="talk-%s", **kwargs)
        self.campaign, self.user = campaign, user
        self.members = None

    def member_names(self):
        """{lower-case username: user} of the campaign's members (read once)."""
        if self.members is None:
            memberships = self.campaign.memberships.select_related("user")
            self.members = {m.user.username.lower(): m.user for m in memberships}
        return self.members

    def saved_named(self, text):
        """The saved roll of the speaker's own characters (the GM's: the NPCs) that ``text``
        names, whatever its case: ``name``, or ``Character:name`` when several of them have
        one of that name (refused then without it, naming them); None when none has it."""
        who, _, name = text.rpartition(":")
        name, who = (" ".join(part.split()).casefold() for part in (name, who))
        if not name:
            return None
        kept = SavedRoll.objects.filter(
            character__campaign=self.campaign, character__owner=self.user
        ).select_related("character")
        found = [
            saved
            for saved in kept
            if saved.name.casefold() == name and (not who or saved.character.name.casefold() == who)
        ]
        if len(found) > 1:
            whose = ", ".join(isolated(saved.character.name) for saved in found)
            first = found[0]
            raise forms.ValidationError(
                f"Several of your characters have “{isolated(first.name)}” ({whose}): say "
                f"whose, e.g. /r {isolated(first.character.name)}:{isolated(first.name)}."
            )
        return found[0] if found else None

    def clean(self):
        cleaned = super().clean()
        if "text" not in cleaned:
            return cleaned
        is_gm = self.user.pk == self.campaign.gm_id()
        try:
            said = talk.read(cleaned["text"], is_gm=is_gm)
            if said.kind == "roll":
                try:
                    cleaned["notation"] = notation.parse(said.text)
                except RulesError:
                    # Not dice: a saved roll's name (a name is never dice notation).
                    cleaned["saved"] = self.saved_named(said.text)
                    if cleaned["saved"] is None:
                        raise
        except (talk.TalkError, RulesError) as error:
            raise forms.ValidationError(str(error)) from None
        cleaned["said"] = said
        if said.visibility == WHISPER:
            members = self.member_names()
            if said.to.lower() == "gm":
                gm = self.campaign.gm_id()
                recipient = next((u for u in members.values() if u.pk == gm), None)
            else:
                recipient = members.get(said.to.lower())
            if recipient is None:
                raise forms.ValidationError(
                    f"Nobody called “{isolated(said.to)}” plays here: /w gm, or a player's name."
                )
            if recipient.pk == self.user.pk:
                raise forms.ValidationError("Whisper to someone else: you already know it.")
            cleaned["recipient"] = recipient
        elif said.kind == "message":
            names = talk.mentioned(said.text)
            if names:
                members = self.member_names()
                gm = self.campaign.gm_id()
                # "@gm" calls the GM, as "/w gm" whispers to them.
                ids = [gm if n == "gm" else getattr(members.get(n), "pk", None) for n in names]
                cleaned["mentions"] = [uid for uid in ids if uid is not None]
        return cleaned


#: The most HP the room's party form reads (a character's maximum is checked by its system):
#: a larger number is refused as the form's error, before anything is read.
HP_SENT_MAX = 1_000_000


class HpChangeForm(forms.Form):
    """A character's HP from the room's party (``room.views.party_hp``): one HP less or more
    (``step``), or a number to set (``value``), not both."""

    step = forms.TypedChoiceField(
        label="Step",
        choices=[("-1", "−1"), ("1", "+1")],
        coerce=int,
        required=False,
        empty_value=None,
    )
    value = forms.IntegerField(label="HP", min_value=0, max_value=HP_SENT_MAX, required=False)

    def clean(self):
        cleaned = super().clean()
        step, value = cleaned.get("step"), cleaned.get("value")
        if not self.errors and (step is None) == (value is None):
            raise forms.ValidationError("Set a number of HP, or press − or +.")
        return cleaned
