"""Sparetime views: a character's balances and raises, the GM's grants/awards/delegations, and a
player's hand-outs. Each GET returns an htmx fragment (or, without htmx, a page around it); each
POST re-renders its fragment (422 with the errors when refused) or, without htmx, redirects."""

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import prefetch_related_objects
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from campaigns.access import campaign_for
from campaigns.models import Membership
from campaigns.writes import Refused
from sheets.models import Character, Rating

from . import services
from .models import SparetimeEntry
from .services import MAX_AMOUNT, MAX_NOTE

#: The ledger tables show at most this many rows (latest first), with the total count.
LEDGER_CAP = 200
PAGE = "sparetime/page.html"
CHARACTER_PARTIAL = "sparetime/_character.html"
GM_PARTIAL = "sparetime/_gm.html"
DELEGATION_PARTIAL = "sparetime/_delegation.html"


# Forms -------------------------------------------------------------------------------------------
def _not_here(what):
    return {"invalid_choice": f"That {what} is not in this campaign."}


class AmountForm(forms.Form):
    amount = forms.IntegerField(min_value=1, max_value=MAX_AMOUNT)
    note = forms.CharField(max_length=MAX_NOTE, required=False)

    def __init__(self, campaign, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.campaign = campaign


class GrantForm(AmountForm):
    character = forms.ModelChoiceField(queryset=None, error_messages=_not_here("character"))
    field_order = ["character", "amount", "note"]

    def __init__(self, campaign, *args, **kwargs):
        super().__init__(campaign, *args, prefix="grant", **kwargs)
        self.fields["character"].queryset = campaign.characters.all()


class AwardForm(AmountForm):
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
        super().__init__(campaign, *args, prefix="award", **kwargs)
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
    player = forms.ModelChoiceField(queryset=None, error_messages=_not_here("player"))
    field_order = ["player", "amount", "note"]

    def __init__(self, campaign, *args, **kwargs):
        super().__init__(campaign, *args, prefix="delegate", **kwargs)
        self.fields["player"].queryset = (
            get_user_model()
            .objects.filter(memberships__campaign=campaign, memberships__role=Membership.PLAYER)
            .order_by("username")
        )


class HandoutForm(AmountForm):
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
        super().__init__(campaign, *args, **kwargs)
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


# Helpers -----------------------------------------------------------------------------------------
def _pool_campaign(request, campaign_id, *, gm=False):
    """``campaign_for`` for the Pool system only: sparetime does not exist in Mana campaigns."""
    campaign = campaign_for(request, campaign_id, gm=gm)
    if not campaign.is_pool:
        raise Http404("Sparetime belongs to the Pool system.")
    return campaign


def _can_spend(campaign, character, user):
    return campaign.viewer.is_gm or character.owner_id == user.pk


def _ledger(rows):
    rows = rows.select_related(
        "created_by", "character", "player", "rating", "session", "source__player"
    ).prefetch_related("targets")
    return {"rows": list(rows[:LEDGER_CAP]), "total": rows.count(), "cap": LEDGER_CAP}


def _attempt(form, action):
    """Run ``action(cleaned_data)`` if the form is valid; a refusal becomes a form error.
    Returns the action's notice (a sentence for the user), or None when nothing was done."""
    if not form.is_valid():
        return None
    try:
        return action(form.cleaned_data)
    except Refused as error:
        form.add_error(None, str(error))
        return None


def _render(request, partial, context, status=200):
    """The fragment for htmx, else a page around it."""
    if request.htmx:
        return render(request, partial, context, status=status)
    return render(request, PAGE, {**context, "partial": partial}, status=status)


def _respond(request, notice, partial, context_for, url):
    """After a POST: on success, redirect (plain form) or re-render the fresh fragment (htmx);
    on refusal, re-render the fragment with the bound form's errors (422 for htmx)."""
    if notice is None:
        return _render(request, partial, context_for(False), status=422 if request.htmx else 200)
    if not request.htmx:
        messages.success(request, notice)
        return redirect(url)
    response = _render(request, partial, {**context_for(True), "notice": notice})
    response["HX-Trigger"] = "sparetimeChanged"
    return response


def _raises(campaign, ratings):
    return [(rating, services.raise_cost(campaign, rating)) for rating in ratings]


# A character's sparetime -------------------------------------------------------------------------
def _character_context(request, campaign, character, spend_form=None):
    earmarked = services.earmarked_sparetime(character)
    prefetch_related_objects([handout for handout, _ in earmarked], "player")
    portions = [
        {"entry": handout, "left": left, "raises": _raises(campaign, handout.targets.all())}
        for handout, left in earmarked
    ]
    return {
        "campaign": campaign,
        "character": character,
        "section_id": "sparetime",
        "title": f"{character} · sparetime",
        "can_spend": _can_spend(campaign, character, request.user),
        "free": services.free_sparetime(character),
        "portions": portions,
        "raises": _raises(campaign, character.ratings.filter(status=Rating.APPROVED)),
        "spend_form": spend_form,
        "ledger": _ledger(character.sparetime.all()),
    }


def _campaign_character(request, campaign_id, character_id):
    campaign = _pool_campaign(request, campaign_id)
    character = get_object_or_404(
        Character.objects.visible_to(campaign).select_related("owner"), pk=character_id
    )
    return campaign, character


@login_required
@require_GET
def character_sparetime(request, campaign_id, character_id):
    campaign, character = _campaign_character(request, campaign_id, character_id)
    return _render(request, CHARACTER_PARTIAL, _character_context(request, campaign, character))


@login_required
@require_POST
def sparetime_spend(request, campaign_id, character_id):
    campaign, character = _campaign_character(request, campaign_id, character_id)
    if not _can_spend(campaign, character, request.user):
        raise PermissionDenied("Only the character's owner or the GM may spend its sparetime.")
    form = SpendForm(character, request.POST)

    def spend(data):
        entry = services.sparetime_spend(
            character=character, rating=data["rating"], by=request.user, source=data["source"]
        )
        return f"{entry.rating.label} raised to {entry.to_value}."

    return _respond(
        request,
        _attempt(form, spend),
        CHARACTER_PARTIAL,
        lambda ok: _character_context(request, campaign, character, None if ok else form),
        reverse("character_sparetime", args=[campaign.id, character.id]),
    )


# The GM's panel ----------------------------------------------------------------------------------
def _gm_context(campaign, **bound_forms):
    forms_ = {
        "grant_form": GrantForm(campaign),
        "award_form": AwardForm(campaign),
        "delegate_form": DelegateForm(campaign),
    }
    forms_.update(bound_forms)
    characters = campaign.characters.select_related("owner")
    players = get_user_model().objects.filter(
        memberships__campaign=campaign, memberships__role=Membership.PLAYER
    )
    return {
        "campaign": campaign,
        "section_id": "gm-sparetime",
        "title": "Sparetime",
        **forms_,
        "character_balances": [
            (
                c,
                services.free_sparetime(c),
                sum(left for _, left in services.earmarked_sparetime(c)),
            )
            for c in characters
        ],
        "player_balances": [
            (p, services.delegation_left(campaign, p)) for p in players.order_by("username")
        ],
        "ledger": _ledger(campaign.sparetime.all()),
    }


def _gm_respond(request, campaign, notice, form_name, form):
    return _respond(
        request,
        notice,
        GM_PARTIAL,
        lambda ok: _gm_context(campaign, **({} if ok else {form_name: form})),
        reverse("gm_sparetime", args=[campaign.id]),
    )


@login_required
@require_GET
def gm_sparetime(request, campaign_id):
    campaign = _pool_campaign(request, campaign_id, gm=True)
    return _render(request, GM_PARTIAL, _gm_context(campaign))


@login_required
@require_POST
def sparetime_grant(request, campaign_id):
    campaign = _pool_campaign(request, campaign_id, gm=True)
    form = GrantForm(campaign, request.POST)

    def grant(data):
        entry = services.sparetime_grant(
            character=data["character"], amount=data["amount"], by=request.user, note=data["note"]
        )
        return f"Granted {entry.amount} sparetime to {entry.character}."

    return _gm_respond(request, campaign, _attempt(form, grant), "grant_form", form)


@login_required
@require_POST
def sparetime_award(request, campaign_id):
    campaign = _pool_campaign(request, campaign_id, gm=True)
    form = AwardForm(campaign, request.POST)

    def award(data):
        entries = services.sparetime_award(
            campaign=campaign,
            characters=data["characters"],
            amount=data["amount"],
            by=request.user,
            note=data["note"],
            session=data["session"],
        )
        names = ", ".join(str(entry.character) for entry in entries)
        return f"Awarded {data['amount']} sparetime to {names}."

    return _gm_respond(request, campaign, _attempt(form, award), "award_form", form)


@login_required
@require_POST
def sparetime_delegate(request, campaign_id):
    campaign = _pool_campaign(request, campaign_id, gm=True)
    form = DelegateForm(campaign, request.POST)

    def delegate(data):
        entry = services.sparetime_delegate(
            campaign=campaign,
            player=data["player"],
            amount=data["amount"],
            by=request.user,
            note=data["note"],
        )
        return f"{entry.player} may now hand out {entry.amount} more sparetime."

    return _gm_respond(request, campaign, _attempt(form, delegate), "delegate_form", form)


# A player's delegation ---------------------------------------------------------------------------
def _delegation_context(request, campaign, form=None):
    return {
        "campaign": campaign,
        "section_id": "sparetime-delegation",
        "title": "Hand out sparetime",
        "left": services.delegation_left(campaign, request.user),
        "form": form or HandoutForm(campaign, request.user),
        "ledger": _ledger(campaign.sparetime.filter(player=request.user)),
    }


@login_required
@require_GET
def sparetime_delegation(request, campaign_id):
    campaign = _pool_campaign(request, campaign_id)
    return _render(request, DELEGATION_PARTIAL, _delegation_context(request, campaign))


@login_required
@require_POST
def sparetime_handout(request, campaign_id):
    campaign = _pool_campaign(request, campaign_id)
    form = HandoutForm(campaign, request.user, request.POST)

    def handout(data):
        entry = services.sparetime_handout(
            campaign=campaign,
            giver=request.user,
            character=data["character"],
            amount=data["amount"],
            targets=data["targets"],
            note=data["note"],
        )
        return f"Handed {entry.amount} sparetime to {entry.character}."

    return _respond(
        request,
        _attempt(form, handout),
        DELEGATION_PARTIAL,
        lambda ok: _delegation_context(request, campaign, None if ok else form),
        reverse("sparetime_delegation", args=[campaign.id]),
    )
