"""Forms for signing up (and deleting one's account), creating a campaign and for the GM
panel's settings (and handing the campaign over, or deleting it).

The campaign forms hold the name and ask the systems (``SYSTEMS``) for the rest; the fields
below (costs, hit points) are what the systems' packages build theirs from
(``rolls/systems/<key>/system.py``; Mana's palette and skills: ``rolls/systems/mana/forms.py``)."""

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from core.names import check_username, plain_name
from core.text import isolated

from .models import Campaign, Membership
from .systems import SYSTEMS, system_choices, system_of

MAX_COST = 100
MAX_HP = 1000


def cost_field(label, **kwargs):
    return forms.IntegerField(label=label, min_value=1, max_value=MAX_COST, **kwargs)


def hp_field(label, **kwargs):
    return forms.IntegerField(label=label, min_value=0, max_value=MAX_HP, **kwargs)


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
        # What each system plays like, under the choice: its name alone says nothing to a GM
        # who has not played it (forms/field.html shows the hint as it is: escaped here).
        self.fields["system"].help_text = format_html(
            '{} <a href="{}">The rules</a> say more.',
            format_html_join(
                " ",
                "<b>{}</b>: {}.",
                ((s.name, s.summary) for s in SYSTEMS.values()),
            ),
            reverse("rules"),
        )
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
    """Django's sign-up form; the username also passes ``names.check_username``. The password
    passes the validators (settings.AUTH_PASSWORD_VALIDATORS), whose rule is its field's hint: a
    refusal is shown in that field, beside the rule (Django puts it under the confirmation).
    The email address is optional: where "Forgot your password?" mails a link, and nothing else."""

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        email = self.fields["email"]
        email.label = "Email (optional)"
        email.help_text = "Only for a link to choose a new password if you forget it."
        if not settings.SENDS_MAIL:
            email.help_text += " This server sends no mail for now: the host can make you one."

    def validate_password_for_user(self, user, password_field_name="password1"):
        super().validate_password_for_user(user, password_field_name=password_field_name)

    def clean_username(self):
        username = super().clean_username()
        if not self.has_error("username"):
            check_username(username)
        return username


class AccountDeleteForm(forms.Form):
    """Deleting one's own account: the password, again."""

    password = forms.CharField(
        label="Your password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


class HandOverForm(forms.Form):
    """The GM panel's "hand the campaign over": one of its players."""

    to = forms.ModelChoiceField(queryset=None, label="New GM", empty_label="Choose a player")

    def __init__(self, *args, campaign, **kwargs):
        super().__init__(*args, **kwargs)
        players = campaign.memberships.filter(role=Membership.PLAYER)
        users = get_user_model().objects.filter(pk__in=players.values("user_id"))
        self.fields["to"].queryset = users.order_by("username")
        self.fields["to"].label_from_instance = lambda user: isolated(user.username)


class CampaignDeleteForm(forms.Form):
    """Deleting a campaign: its GM says yes, having been offered its export."""

    confirm = forms.BooleanField(
        label="Delete this campaign, its characters and its roll log, for every member"
    )
