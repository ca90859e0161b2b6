"""Sparetime views: a character's balances and raises, the GM's grants, awards and delegations,
and a player's hand-outs.

A GET answers htmx with its fragment and a browser without htmx with the page around it
(``sparetime/page.html``). A write is answered by ``core.writes.answer``: htmx gets its
fragment again, with a notice or (422) with the refused form; a plain form post is redirected to
the fragment's page with the notice as a message, or gets that page with the refused form.

A Raise button spends nothing: it opens the raise's confirmation (``sparetime_raise``, a GET: in
place with htmx, as a page without it), whose [Confirm raise] posts the spend with a one-time
token. The character's last raise can be undone (``sparetime_undo``); the GM reverses any ledger
row from the GM's card the same way, confirmation first (``sparetime_reversal``, then
``sparetime_reverse``). Both take a row back with a counter-entry (``sparetime.services``).

A raise, an undo and a reversal change the sheet's ratings (and its HP, through Endurance): their
htmx answers send the event ``SHEET_CHANGED``, on which the sheet page's Pool section
(``sheets/_sheet_pool.html``) reloads itself.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.db.models import prefetch_related_objects
from django.http import HttpResponseBadRequest
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from campaigns.access import campaign_for, can_edit
from campaigns.models import Campaign, Membership
from core.push import with_facts
from core.writes import answer, attempt
from sheets.access import character_for
from sheets.models import Rating

from . import services
from .forms import (
    AwardForm,
    DelegateForm,
    GrantForm,
    HandoutForm,
    ReverseForm,
    SpendForm,
    UndoForm,
)
from .models import SparetimeEntry

#: The htmx event a raise, an undo or a reversal sends: the sheet's ratings or HP changed.
SHEET_CHANGED = "sheet-changed"
#: Sparetime is the Pool system's: its pages are 404 in a Mana campaign.
POOL = Campaign.POOL
#: The ledger tables show at most this many rows (latest first), with the total count.
LEDGER_CAP = 200
PAGE = "sparetime/page.html"
CHARACTER_PARTIAL = "sparetime/_character.html"
GM_PARTIAL = "sparetime/_gm.html"
DELEGATION_PARTIAL = "sparetime/_delegation.html"
RAISE_PARTIAL = "sparetime/_raise.html"
REVERSAL_PARTIAL = "sparetime/_reversal.html"
#: What the room's session panel (``templates/rolls/_session.html``) posts as ``from`` with its
#: award, to be answered with that panel.
FROM_ROOM = "room"

#: The answers to an award posted from another page (its ``from``), by the app that shows that
#: page, which sparetime does not import: rolls gives the room's (``rolls.views.
#: session_award_answer``) at its ready().
ANSWERS_FROM = {}


def _ledger(rows, *, reversible=False):
    """A ledger table's context; ``reversible``: with the GM's Reverse buttons."""
    rows = rows.select_related(
        "created_by",
        "character",
        "player",
        "rating",
        "session",
        "source__player",
        "reverses",
        "reversal",
    ).prefetch_related("targets")
    return {
        "rows": list(rows[:LEDGER_CAP]),
        "total": rows.count(),
        "cap": LEDGER_CAP,
        "reversible": reversible,
    }


def _raises(campaign, ratings):
    return [(rating, services.raise_cost(campaign, rating)) for rating in ratings]


def _page(request, partial, context):
    """The page around a fragment, for a browser without htmx."""
    return render(request, PAGE, {**context, "partial": partial})


def _fragment_or_page(request, partial, context):
    if request.htmx:
        return render(request, partial, context)
    return _page(request, partial, context)


def _pieces(request, partial, context, url, *, notice="", refusal="", refused=()):
    """What ``answer`` takes for a write shown in ``partial``: the fragment, the page around it,
    ``url`` and ``notice``. ``context()`` builds the fragment's context; ``refusal`` shows on the
    ``refused`` forms."""
    if refusal:
        for form in refused:
            form.add_error(None, refusal)
    return {
        "fragment": lambda: render_to_string(partial, context(), request=request),
        "page": lambda: _page(request, partial, context()),
        "url": url,
        "notice": notice,
    }


# A character's sparetime -------------------------------------------------------------------------
def _character_context(request, campaign, character, *, spend_form=None, notice=""):
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
        "can_spend": can_edit(campaign, character),
        "free": services.free_sparetime(character),
        "portions": portions,
        "raises": _raises(campaign, character.ratings.filter(status=Rating.APPROVED)),
        "spend_form": spend_form,
        "notice": notice,
        "last_raise": services.last_raise(character),
        "undo_form": UndoForm(character),
        "ledger": _ledger(character.sparetime.all()),
    }


def _character_pieces(request, campaign, character, *, notice="", refusal="", form=None):
    """``answer``'s pieces for a character's sparetime: fresh with ``notice`` after a raise, or
    with the refused ``form``."""
    return _pieces(
        request,
        CHARACTER_PARTIAL,
        lambda: _character_context(request, campaign, character, spend_form=form, notice=notice),
        reverse("character_sparetime", args=[campaign.id, character.id]),
        notice=notice,
        refusal=refusal,
        refused=[form] if form else [],
    )


@login_required
@require_GET
def character_sparetime(request, campaign_id, character_id):
    campaign, character = character_for(
        request, campaign_id, character_id, private=True, system=POOL
    )
    context = _character_context(request, campaign, character)
    return _fragment_or_page(request, CHARACTER_PARTIAL, context)


@login_required
@require_POST
def sparetime_spend(request, campaign_id, character_id):
    """The character's player or the GM raises one of its ratings by a point."""
    campaign, character = character_for(request, campaign_id, character_id, edit=True, system=POOL)
    form = SpendForm(character, request.POST)
    ok, entry = attempt(
        with_facts(
            lambda: services.sparetime_spend(
                character=character,
                by=request.user,
                rating=form.cleaned_data["rating"],
                source=form.cleaned_data["source"],
            ),
            campaign,
            [character],  # a rating (and HP, through Endurance) with the balance: public
        ),
        form=form,
        once_by=request.user,
    )
    if ok:
        if entry is None:  # a double submit: answered as the first
            rating = Rating.objects.get(pk=form.cleaned_data["rating"].pk)
            notice = f"{rating.label} raised to {rating.value}."
        else:
            notice = f"{entry.rating.label} raised to {entry.to_value}."
        pieces = _character_pieces(request, campaign, character, notice=notice)
    else:
        pieces = _character_pieces(request, campaign, character, refusal=entry, form=form)
    return _sheet_changed(answer(request, ok=ok, **pieces), ok)


def _sheet_changed(response, ok):
    if ok:
        response["HX-Trigger"] = SHEET_CHANGED
    return response


def _raise_context(campaign, character, rating, source, *, confirming):
    """One raise control (``sparetime/_raise.html``): its button, or with ``confirming`` what the
    raise costs and leaves, with the spend form to confirm it."""
    cost = services.raise_cost(campaign, rating)
    have = services.portion_left(source) if source else services.free_sparetime(character)
    return {
        "campaign": campaign,
        "character": character,
        "section_id": "sparetime",
        "title": f"{character} · raise {rating.label}",
        "rating": rating,
        "source": source,
        "cost": cost,
        "confirming": confirming,
        "kept": not confirming,
        "have": have,
        "after": have - cost,
        "confirm_form": SpendForm(character),
    }


@login_required
@require_GET
def sparetime_raise(request, campaign_id, character_id):
    """A Raise button's confirmation: the raise, its cost and the balance it leaves, with
    [Confirm raise] (the spend's form) and [Keep]. htmx's Keep asks again with ``keep`` and gets
    the button back."""
    campaign, character = character_for(request, campaign_id, character_id, edit=True, system=POOL)
    form = SpendForm(character, request.GET)
    if not form.is_valid():
        return HttpResponseBadRequest("Name a rating of this character to raise.")
    context = _raise_context(
        campaign,
        character,
        form.cleaned_data["rating"],
        form.cleaned_data["source"],
        confirming="keep" not in request.GET,
    )
    return _fragment_or_page(request, RAISE_PARTIAL, context)


@login_required
@require_POST
def sparetime_undo(request, campaign_id, character_id):
    """The character's player or the GM undoes its last raise (``services.sparetime_undo``)."""
    campaign, character = character_for(request, campaign_id, character_id, edit=True, system=POOL)
    form = UndoForm(character, request.POST)
    ok, undo = attempt(
        with_facts(
            lambda: services.sparetime_undo(entry=form.cleaned_data["entry"], by=request.user),
            campaign,
            [character],  # the rating goes back (public), with the balance
        ),
        form=form,
        once_by=request.user,
    )
    if ok:
        entry = form.cleaned_data["entry"]
        notice = (
            f"Undid the raise of {entry.rating.label} {entry.from_value} → {entry.to_value}; "
            f"{-entry.amount} sparetime back."
        )
        pieces = _character_pieces(request, campaign, character, notice=notice)
    else:
        pieces = _character_pieces(request, campaign, character, refusal=undo, form=form)
    return _sheet_changed(answer(request, ok=ok, **pieces), ok)


# The GM's card -----------------------------------------------------------------------------------
def _gm_context(campaign, *, notice="", **bound_forms):
    forms = {
        "grant_form": GrantForm(campaign),
        "award_form": AwardForm(campaign),
        "delegate_form": DelegateForm(campaign),
        **bound_forms,
    }
    characters = campaign.characters.select_related("owner")
    players = get_user_model().objects.filter(
        memberships__campaign=campaign, memberships__role=Membership.PLAYER
    )
    return {
        "campaign": campaign,
        "section_id": "gm-sparetime",
        "title": "Sparetime",
        "notice": notice,
        **forms,
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
        "ledger": _ledger(campaign.sparetime.all(), reversible=True),
    }


def _gm_pieces(request, campaign, *, notice="", refusal="", **refused):
    """``answer``'s pieces for the GM's card: fresh forms and ``notice`` after a write, or the
    refused form (``grant_form=...`` and the like) in its place."""
    return _pieces(
        request,
        GM_PARTIAL,
        lambda: _gm_context(campaign, notice=notice, **refused),
        reverse("gm_sparetime", args=[campaign.id]),
        notice=notice,
        refusal=refusal,
        refused=refused.values(),
    )


@login_required
@require_GET
def gm_sparetime(request, campaign_id):
    campaign = campaign_for(request, campaign_id, gm=True, system=POOL)
    return _fragment_or_page(request, GM_PARTIAL, _gm_context(campaign))


@login_required
@require_POST
def sparetime_grant(request, campaign_id):
    campaign = campaign_for(request, campaign_id, gm=True, system=POOL)
    form = GrantForm(campaign, request.POST)
    ok, entry = attempt(
        with_facts(
            lambda: services.sparetime_grant(
                by=request.user,
                **{f: form.cleaned_data[f] for f in ("character", "amount", "note")},
            ),
            campaign,
            lambda entry: [entry.character],
            private=True,
        ),
        form=form,
        once_by=request.user,
    )
    if ok:  # a double submit (``entry`` None) is answered as the first
        data = form.cleaned_data
        notice = f"Granted {data['amount']} sparetime to {data['character']}."
        pieces = _gm_pieces(request, campaign, notice=notice)
    else:
        pieces = _gm_pieces(request, campaign, refusal=entry, grant_form=form)
    return answer(request, ok=ok, **pieces)


@login_required
@require_POST
def sparetime_award(request, campaign_id):
    """The GM awards sparetime to the characters ticked. The room's session panel posts its
    award here too, with ``from=room``, and is answered with that panel."""
    campaign = campaign_for(request, campaign_id, gm=True, system=POOL)
    form = AwardForm(campaign, request.POST)
    ok, entries = attempt(
        with_facts(
            lambda: services.sparetime_award(
                campaign=campaign, by=request.user, **form.cleaned_data
            ),
            campaign,
            lambda entries: [entry.character for entry in entries],
            private=True,
        ),
        form=form,
    )
    answer_from = ANSWERS_FROM.get(request.POST.get("from"))
    if answer_from is not None:
        return answer_from(request, campaign, ok=ok, result=entries, form=form)
    if ok:
        names = ", ".join(str(entry.character) for entry in entries)
        notice = f"Awarded {form.cleaned_data['amount']} sparetime to {names}."
        pieces = _gm_pieces(request, campaign, notice=notice)
    else:
        pieces = _gm_pieces(request, campaign, refusal=entries, award_form=form)
    return answer(request, ok=ok, **pieces)


@login_required
@require_POST
def sparetime_delegate(request, campaign_id):
    campaign = campaign_for(request, campaign_id, gm=True, system=POOL)
    form = DelegateForm(campaign, request.POST)
    ok, entry = attempt(
        with_facts(
            lambda: services.sparetime_delegate(
                campaign=campaign, by=request.user, **form.cleaned_data
            ),
            campaign,
            delegations=lambda entry: [entry.player_id],
        ),
        form=form,
    )
    if ok:
        notice = f"{entry.player} may now hand out {entry.amount} more sparetime."
        pieces = _gm_pieces(request, campaign, notice=notice)
    else:
        pieces = _gm_pieces(request, campaign, refusal=entry, delegate_form=form)
    return answer(request, ok=ok, **pieces)


def _reversal_effect(campaign, entry):
    """What reversing ``entry`` does, in a sentence (the balances as they are now)."""
    amount = entry.amount
    if entry.kind in (SparetimeEntry.GRANT, SparetimeEntry.AWARD):
        have = services.free_sparetime(entry.character)
        return f"{entry.character}'s free sparetime {have} → {have - amount}"
    if entry.kind == SparetimeEntry.DELEGATE:
        left = services.delegation_left(campaign, entry.player)
        return f"{entry.player} left to hand out {left} → {left - amount}"
    if entry.kind == SparetimeEntry.HANDOUT:
        left = services.portion_left(entry)
        giver = services.delegation_left(campaign, entry.player)
        return (
            f"{entry.character}'s portion from {entry.player} {left} → {left - amount}; "
            f"{entry.player} left to hand out {giver} → {giver + amount}"
        )
    if entry.kind == SparetimeEntry.SPEND:
        if entry.source:
            have, where = services.portion_left(entry.source), "portion"
        else:
            have, where = services.free_sparetime(entry.character), "free sparetime"
        return (
            f"{entry.rating.label} {entry.to_value} → {entry.from_value}; {entry.character}'s "
            f"{where} {have} → {have - amount}"
        )
    return ""


@login_required
@require_GET
def sparetime_reversal(request, campaign_id):
    """The GM's Reverse button on a ledger row: what reversing it does, a note, [Confirm
    reversal] and [Keep]. htmx's Keep asks again with ``keep`` and gets the button back."""
    campaign = campaign_for(request, campaign_id, gm=True, system=POOL)
    form = ReverseForm(campaign, request.GET)
    if not form.is_valid():
        return HttpResponseBadRequest("Name a ledger entry of this campaign.")
    entry = form.cleaned_data["entry"]
    confirming = "keep" not in request.GET
    context = {
        "campaign": campaign,
        "section_id": "gm-sparetime",
        "title": "Sparetime · reverse an entry",
        "row": entry,
        "confirming": confirming,
        "kept": not confirming,
        "effect": _reversal_effect(campaign, entry) if confirming else "",
        "refusal": services.reversal_refusal(entry) if confirming else "",
        "confirm_form": ReverseForm(campaign),
    }
    return _fragment_or_page(request, REVERSAL_PARTIAL, context)


@login_required
@require_POST
def sparetime_reverse(request, campaign_id):
    """The GM reverses a ledger row with a counter-entry (``services.sparetime_reverse``)."""
    campaign = campaign_for(request, campaign_id, gm=True, system=POOL)
    form = ReverseForm(campaign, request.POST)
    ok, reversal = attempt(
        with_facts(
            lambda: services.sparetime_reverse(
                entry=form.cleaned_data["entry"], by=request.user, note=form.cleaned_data["note"]
            ),
            campaign,
            lambda reversal: [reversal.character] if reversal.character_id else [],
            # A raise's rating is public; a balance alone is private.
            private=lambda reversal: reversal.reverses.kind != SparetimeEntry.SPEND,
            # A delegation or a hand-out: the player's delegation changed.
            delegations=lambda reversal: [reversal.player_id] if reversal.player_id else [],
        ),
        form=form,
        once_by=request.user,
    )
    if ok:
        entry = form.cleaned_data["entry"]
        notice = f"Reversed the {entry.get_kind_display().lower()} of {entry.amount:+d}."
        pieces = _gm_pieces(request, campaign, notice=notice)
    else:
        pieces = _gm_pieces(request, campaign, refusal=reversal, reverse_form=form)
    return _sheet_changed(answer(request, ok=ok, **pieces), ok)


# A player's delegation ---------------------------------------------------------------------------
def _delegation_context(request, campaign, *, form=None, notice=""):
    return {
        "campaign": campaign,
        "section_id": "sparetime-delegation",
        "title": "Hand out sparetime",
        "notice": notice,
        "left": services.delegation_left(campaign, request.user),
        "form": form or HandoutForm(campaign, request.user),
        "ledger": _ledger(campaign.sparetime.filter(player=request.user)),
    }


def _delegation_pieces(request, campaign, *, notice="", refusal="", form=None):
    """``answer``'s pieces for a player's delegation: a fresh form and ``notice`` after a
    hand-out, or the refused ``form``."""
    return _pieces(
        request,
        DELEGATION_PARTIAL,
        lambda: _delegation_context(request, campaign, form=form, notice=notice),
        reverse("sparetime_delegation", args=[campaign.id]),
        notice=notice,
        refusal=refusal,
        refused=[form] if form else [],
    )


@login_required
@require_GET
def sparetime_delegation(request, campaign_id):
    campaign = campaign_for(request, campaign_id, system=POOL)
    context = _delegation_context(request, campaign)
    return _fragment_or_page(request, DELEGATION_PARTIAL, context)


@login_required
@require_POST
def sparetime_handout(request, campaign_id):
    """A player hands some of their delegation out to another player's character."""
    campaign = campaign_for(request, campaign_id, system=POOL)
    form = HandoutForm(campaign, request.user, request.POST)
    ok, entry = attempt(
        with_facts(
            lambda: services.sparetime_handout(
                campaign=campaign, giver=request.user, **form.cleaned_data
            ),
            campaign,
            lambda entry: [entry.character],
            private=True,
            delegations=[request.user.pk],  # the giver's other tabs
        ),
        form=form,
    )
    if ok:
        notice = f"Handed {entry.amount} sparetime to {entry.character}."
        pieces = _delegation_pieces(request, campaign, notice=notice)
    else:
        pieces = _delegation_pieces(request, campaign, refusal=entry, form=form)
    return answer(request, ok=ok, **pieces)
