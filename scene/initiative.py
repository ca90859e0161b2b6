"""The initiative order's card in the room (issue #47): everyone sees the order, whose turn it
is and the round; the GM adds characters of the campaign or typed names (with a score, or dice
to roll for it: a logged free roll), removes, sorts, moves, starts, advances and ends it.

Each write is one service (``scene.services``, ``combatant_*``/``initiative_*``) run by
``core.writes.attempt``; once it commits, the card goes to every member's room socket, rendered
for each (:func:`card_message`: the GM's with the controls, the player whose character's turn
it is with "Your turn", which ``static/js/room.js`` puts in the tab title), and a start, a turn
or an end arrives in the log (``turns`` entries). The writer's htmx request is answered with the
card too (422 with the refusal, nothing changed, nothing pushed). A page whose socket was away
fetches the card again (``facts-resync``)."""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.views.decorators.http import require_POST

from campaigns.access import campaign_for
from core import push as core_push
from core.writes import Piece, attempt
from rolls.forms import first_error
from room.push import push_entry_on_commit
from rules import notation

from . import services
from .services import NAME_MAX, SCORE_MAX, SCORE_MIN, initiative_state

TEMPLATE = "scene/_initiative.html"


class CombatantForm(forms.Form):
    """The GM's "add to the order" form: a character of the campaign or a typed name; a score or
    dice to roll (the service says which of them are missing)."""

    character = forms.ModelChoiceField(
        queryset=None,
        required=False,
        error_messages={"invalid_choice": "Choose a character of this campaign."},
    )
    name = forms.CharField(max_length=NAME_MAX, required=False)
    score = forms.IntegerField(min_value=SCORE_MIN, max_value=SCORE_MAX, required=False)
    dice = forms.CharField(max_length=notation.MAX_TEXT, required=False, label="Dice")

    def __init__(self, *args, campaign, **kwargs):
        kwargs.setdefault("auto_id", "initiative-%s")
        super().__init__(*args, **kwargs)
        self.fields["character"].queryset = campaign.characters.order_by("name", "pk")


def card_context(campaign, *, viewer_id, is_gm, error="", form=None, oob=False, state=None):
    """The card's context for one viewer; ``state``: ``initiative_state``'s, read already."""
    initiative, order, current = state or initiative_state(campaign)
    owner = current.character.owner_id if current and current.character else None
    context = {
        "campaign": campaign,
        "initiative": initiative,
        "order": order,
        "current": current,
        "is_gm": is_gm,
        "my_turn": not is_gm and owner is not None and owner == viewer_id,
        "error": error,
        "oob": oob,
        "score_min": SCORE_MIN,
        "score_max": SCORE_MAX,
    }
    if is_gm:
        context["form"] = form or CombatantForm(campaign=campaign)
    return context


def _context(request, campaign, **overrides):
    viewer = campaign.viewer
    return card_context(campaign, viewer_id=viewer.user_id, is_gm=viewer.is_gm, **overrides)


def _refused_page(request, context, replace):
    """A refused plain post (no JavaScript): the room, with the refusal above it."""
    messages.error(request, context.get("error") or "That was refused.")
    return redirect("room", context["campaign"].pk)


INITIATIVE = Piece(
    name="initiative",
    template=TEMPLATE,
    context=_context,
    page=_refused_page,
    url="room",
    url_ids=1,
    access=lambda request, campaign_id: (campaign_for(request, campaign_id),),
    fragment_only=True,
)

#: The card alone, for a page whose socket came back (``facts-resync``).
initiative_card = INITIATIVE.view()


def room_card(request, campaign):
    """The card on the room page (``room.views.ROOM_CARDS["side"]``)."""
    return render_to_string(TEMPLATE, _context(request, campaign), request=request)


def card_message(campaign):
    """The card's push, rendered for each viewer: the GM's (controls), the player's whose
    character's turn it is ("Your turn"), everyone else's."""
    gm_id = campaign.gm_id()
    state = initiative_state(campaign)

    def html(viewer_id, is_gm):
        context = card_context(campaign, viewer_id=viewer_id, is_gm=is_gm, oob=True, state=state)
        return render_to_string(TEMPLATE, context)

    current = state[2]
    message = {"all": html(None, False), "gm": html(gm_id, True), "users": {}}
    owner = current.character.owner_id if current and current.character else None
    if owner is not None and owner != gm_id:
        message["users"][str(owner)] = html(owner, False)
    return message


def push_card(campaign):
    """Once the write in progress commits, push the card to every member's room socket."""
    core_push.send_on_commit(campaign.pk, lambda: [card_message(campaign)])


def _change(request, campaign_id, change, *, form=None):
    """Run ``change(campaign)`` (a service; it returns the log entry it made, or None) as the
    GM: the entry and the card are pushed on commit; the GM's request gets the card."""
    campaign = campaign_for(request, campaign_id, gm=True)

    def write():
        entry = change(campaign)
        if entry is not None:
            push_entry_on_commit(entry)
        push_card(campaign)

    if form is not None:
        form = form(campaign)
    ok, error = attempt(write, form=form)
    if not ok:
        error = error or first_error(form)
        return INITIATIVE.answer(request, campaign, ok=False, error=error, form=form)
    return INITIATIVE.answer(request, campaign, ok=True)


@login_required
@require_POST
def combatant_add(request, campaign_id):
    form = None

    def make_form(campaign):
        nonlocal form
        form = CombatantForm(request.POST, campaign=campaign)
        return form

    def change(campaign):
        data = form.cleaned_data
        _combatant, entry = services.combatant_add(
            campaign=campaign,
            by=request.user,
            name=data["name"],
            character=data["character"],
            score=data["score"],
            dice=data["dice"],
        )
        return entry

    return _change(request, campaign_id, change, form=make_form)


@login_required
@require_POST
def combatant_remove(request, campaign_id, combatant_id):
    def change(campaign):
        services.combatant_remove(campaign=campaign, combatant_id=combatant_id)

    return _change(request, campaign_id, change)


@login_required
@require_POST
def combatant_move(request, campaign_id, combatant_id):
    direction = request.POST.get("direction", "")

    def change(campaign):
        services.combatant_move(campaign=campaign, combatant_id=combatant_id, direction=direction)

    return _change(request, campaign_id, change)


@login_required
@require_POST
def initiative_sort(request, campaign_id):
    return _change(
        request, campaign_id, lambda campaign: services.initiative_sort(campaign=campaign)
    )


@login_required
@require_POST
def initiative_start(request, campaign_id):
    return _change(
        request,
        campaign_id,
        lambda campaign: services.initiative_start(campaign=campaign, by=request.user),
    )


@login_required
@require_POST
def initiative_next(request, campaign_id):
    return _change(
        request,
        campaign_id,
        lambda campaign: services.initiative_next(campaign=campaign, by=request.user),
    )


@login_required
@require_POST
def initiative_end(request, campaign_id):
    return _change(
        request,
        campaign_id,
        lambda campaign: services.initiative_end(campaign=campaign, by=request.user),
    )
