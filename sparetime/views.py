"""Sparetime views: a character's balances and raises, the GM's grants, awards and delegations,
and a player's hand-outs. Sparetime is the Pool system's progression: its URLs (``urls.py``)
give every view ``system``, Pool's key, passed to the access check: 404 in a campaign of another
system.

A GET answers htmx with its fragment and a browser without htmx with the page around it
(``sparetime/page.html``). A write is answered by ``core.writes.answer``: htmx gets its
fragment again, with a notice or (422) with the refused form; a plain form post is redirected to
the fragment's page with the notice as a message, or gets that page with the refused form.

A Raise button spends nothing: it opens the raise's confirmation (``sparetime_raise``, a GET: in
place with htmx, as a page without it), whose [Confirm raise] posts the spend with a one-time
token. The character's last raise can be undone (``sparetime_undo``); the GM reverses any ledger
row from the GM's card the same way, confirmation first (``sparetime_reversal``, then
``sparetime_reverse``). Both take a row back with a counter-entry (``sparetime.services``).

Each fragment is a page piece (``core.writes.Piece``: ``CHARACTER``, ``GM``, ``DELEGATION``, and
the confirmations ``RAISE`` and ``REVERSAL``), which gives its GET and a write's answer.

A raise, an undo and a reversal change the sheet's ratings (and its HP, through Endurance): their
facts push makes every page showing them, the raising player's own sheet included, fetch its
pieces again (the sheet's Pool section listens for ``facts-<id>``).
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.db.models import prefetch_related_objects
from django.http import HttpResponseBadRequest
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_POST

from campaigns.access import campaign_for, can_edit
from campaigns.models import Membership
from core.push import with_facts
from core.text import isolated, member_name
from core.writes import Piece, attempt
from rolls.services import session_participants
from rolls.systems.pool.models import Rating
from room.views import session_answer
from sheets.access import character_for

from . import services
from .forms import (
    AwardForm,
    BuildForm,
    DelegateForm,
    GrantForm,
    HandoutForm,
    ReverseForm,
    SpendForm,
    UndoForm,
    sparetime_characters,
)
from .models import SparetimeEntry

#: The ledger tables show at most this many rows (latest first), with the total count.
LEDGER_CAP = 200
PAGE = "sparetime/page.html"
CHARACTER_PARTIAL = "sparetime/_character.html"
GM_PARTIAL = "sparetime/_gm.html"
DELEGATION_PARTIAL = "sparetime/_delegation.html"
RAISE_PARTIAL = "sparetime/_raise.html"
REVERSAL_PARTIAL = "sparetime/_reversal.html"
#: What the room's session panel (Pool's part of it: ``_session_award.html``) posts as ``from``
#: with its award, to be answered with that panel (``room.views.session_answer``).
FROM_ROOM = "room"


def session_award_context(campaign, last, *, award_form=None, awarded=None):
    """Pool's part of the room's session panel (``Pool.session_context``): once the last session
    ``last`` ended and nothing was awarded for it yet, the award form, with that session and the
    characters that rolled in it ticked; or what was just awarded (``awarded``), or the refused
    form (``award_form``)."""
    offer = (
        award_form is None
        and awarded is None
        and last is not None
        and not last.is_open
        and not SparetimeEntry.objects.filter(session=last, kind=SparetimeEntry.AWARD).exists()
    )
    if offer:
        participants = session_participants(last).values_list("pk", flat=True)
        award_form = AwardForm(
            campaign=campaign, initial={"session": last.pk, "characters": list(participants)}
        )
    return {"award_form": award_form, "awarded": awarded}


def summary_awards_context(campaign, session):
    """Pool's part of a session's summary (``Pool.summary_context``): the sparetime awarded for
    it, per character the viewer may see (``campaign.viewer``), less what was reversed."""
    return {"awards": services.session_awards(campaign, session)}


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
    ).prefetch_related("targets", "lines__rating")
    return {
        "rows": list(rows[:LEDGER_CAP]),
        "total": rows.count(),
        "cap": LEDGER_CAP,
        "reversible": reversible,
    }


def _raises(campaign, ratings):
    return [(rating, services.raise_cost(campaign, rating)) for rating in ratings]


def _page(request, context, replace):
    """The page around a fragment, for a browser without htmx."""
    return render(request, PAGE, {**context, "html": replace[context["section_id"]]})


def _refused(form, refusal):
    """``form`` with the service's refusal (if any) among its errors."""
    if refusal:
        form.add_error(None, refusal)
    return form


# A character's sparetime -------------------------------------------------------------------------
def _character_context(request, campaign, character, *, spend_form=None, notice=""):
    """A character's sparetime; ``spend_form``: a refused raise or undo."""
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
        "title": f"{isolated(character)} · sparetime",
        "can_spend": can_edit(campaign, character),
        "free": services.free_sparetime(character),
        "portions": portions,
        "raises": _raises(campaign, character.ratings.filter(status=Rating.APPROVED)),
        "spend_form": spend_form,
        "notice": notice,
        "last_raise": services.last_raise(character),
        "undo_form": UndoForm(character),
        "build_form": BuildForm(character),
        "ledger": _ledger(character.sparetime.all()),
    }


CHARACTER = Piece(
    name="sparetime",
    template=CHARACTER_PARTIAL,
    context=_character_context,
    page=_page,
    url="character_sparetime",
    access=lambda request, campaign_id, character_id, system: character_for(
        request, campaign_id, character_id, private=True, system=system
    ),
)
character_sparetime = CHARACTER.view()


def _character_write(request, campaign, character, form, write, notice):
    """A raise or an undo of ``character``'s, by its player or the GM: ``write()`` when ``form``
    is valid, once per form; answered with the character's sparetime and ``notice(result)``,
    or with the refused form."""
    ok, result = attempt(
        # A rating (and HP, through Endurance) with the balance: public.
        with_facts(write, campaign, [character]),
        form=form,
        once_by=request.user,
    )
    if not ok:
        refused = _refused(form, result)
        return CHARACTER.answer(request, campaign, character, ok=ok, spend_form=refused)
    return CHARACTER.answer(request, campaign, character, ok=ok, notice=notice(result))


@login_required
@require_POST
def sparetime_spend(request, campaign_id, character_id, system):
    """The character's player or the GM raises one of its ratings by a point."""
    campaign, character = character_for(
        request, campaign_id, character_id, edit=True, system=system
    )
    form = SpendForm(character, request.POST)

    def notice(entry):
        if entry is None:  # a double submit: answered as the first
            rating = Rating.objects.get(pk=form.cleaned_data["rating"].pk)
            return f"{isolated(rating.label)} raised to {rating.value}."
        return f"{isolated(entry.rating.label)} raised to {entry.to_value}."

    def spend():
        data = form.cleaned_data
        return services.sparetime_spend(
            character=character, by=request.user, rating=data["rating"], source=data["source"]
        )

    return _character_write(request, campaign, character, form, spend, notice)


@login_required
@require_POST
def sparetime_build(request, campaign_id, character_id, system):
    """The character's player or the GM adds points to several ratings at once (a build), paid
    from free sparetime, confirmed once: one row of the ledger, undone as one."""
    campaign, character = character_for(
        request, campaign_id, character_id, edit=True, system=system
    )
    form = BuildForm(character, request.POST)

    def notice(entry):
        if entry is None:  # a double submit: answered as the first
            return "Built."
        points = entry.points
        return f"Built: {points} point{'s' if points != 1 else ''} for {-entry.amount} sparetime."

    def build():
        return services.sparetime_build(character=character, by=request.user, points=form.points())

    return _character_write(request, campaign, character, form, build, notice)


def _raise_context(request, campaign, character, *, rating, source, confirming):
    """One raise control (``sparetime/_raise.html``): its button, or with ``confirming`` what the
    raise costs and leaves, with the spend form to confirm it."""
    cost = services.raise_cost(campaign, rating)
    have = services.portion_left(source) if source else services.free_sparetime(character)
    return {
        "campaign": campaign,
        "character": character,
        "section_id": "sparetime",
        "title": f"{isolated(character)} · raise {isolated(rating.label)}",
        "rating": rating,
        "source": source,
        "cost": cost,
        "confirming": confirming,
        "kept": not confirming,
        "have": have,
        "after": have - cost,
        "confirm_form": SpendForm(character),
    }


RAISE = Piece(
    name="sparetime",
    template=RAISE_PARTIAL,
    context=_raise_context,
    page=_page,
    url="character_sparetime",
)


@login_required
@require_GET
def sparetime_raise(request, campaign_id, character_id, system):
    """A Raise button's confirmation: the raise, its cost and the balance it leaves, with
    [Confirm raise] (the spend's form) and [Keep]. htmx's Keep asks again with ``keep`` and gets
    the button back."""
    campaign, character = character_for(
        request, campaign_id, character_id, edit=True, system=system
    )
    form = SpendForm(character, request.GET)
    if not form.is_valid():
        return HttpResponseBadRequest("Name a rating of this character to raise.")
    return RAISE.get(
        request,
        campaign,
        character,
        rating=form.cleaned_data["rating"],
        source=form.cleaned_data["source"],
        confirming="keep" not in request.GET,
    )


@login_required
@require_POST
def sparetime_undo(request, campaign_id, character_id, system):
    """The character's player or the GM undoes its last raise (``services.sparetime_undo``)."""
    campaign, character = character_for(
        request, campaign_id, character_id, edit=True, system=system
    )
    form = UndoForm(character, request.POST)

    def notice(_undo):
        entry = form.cleaned_data["entry"]
        return f"Undid the raise of {services.raise_text(entry)}; {-entry.amount} sparetime back."

    def undo():
        return services.sparetime_undo(entry=form.cleaned_data["entry"], by=request.user)

    return _character_write(request, campaign, character, form, undo, notice)


# The GM's card -----------------------------------------------------------------------------------
def with_npcs(request):
    """Whether the GM asked for the NPCs in the sparetime card's grant, award and balances
    (``npcs=1``, in the card's query or posted with its forms)."""
    return (request.POST if request.method == "POST" else request.GET).get("npcs") == "1"


def _gm_context(request, campaign, *, notice="", **bound_forms):
    """The GM's card; ``bound_forms``: a refused form in its place (``grant_form=...``). The
    players' characters only, unless the GM asked for the NPCs too (``with_npcs``)."""
    npcs = with_npcs(request)
    forms = {
        "grant_form": GrantForm(campaign, npcs=npcs),
        "award_form": AwardForm(campaign, npcs=npcs),
        "delegate_form": DelegateForm(campaign),
        **bound_forms,
    }
    characters = sparetime_characters(campaign, npcs=npcs).select_related("owner")
    players = get_user_model().objects.filter(
        memberships__campaign=campaign, memberships__role=Membership.PLAYER
    )
    return {
        "campaign": campaign,
        "npcs": npcs,
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


GM = Piece(
    name="gm-sparetime",
    template=GM_PARTIAL,
    context=_gm_context,
    page=_page,
    url="gm_sparetime",
    access=lambda request, campaign_id, system: (
        campaign_for(request, campaign_id, gm=True, system=system),
    ),
)
gm_sparetime = GM.view()


def _gm_answer(request, campaign, *, ok, result, refused, notice):
    """A GM's write on the card: the card with ``notice()``, or with the refused form in its
    place (``refused``: ``{"grant_form": form}`` and the like)."""
    if ok:
        return GM.answer(request, campaign, ok=ok, notice=notice())
    bound = {name: _refused(form, result) for name, form in refused.items()}
    return GM.answer(request, campaign, ok=ok, **bound)


@login_required
@require_POST
def sparetime_grant(request, campaign_id, system):
    campaign = campaign_for(request, campaign_id, gm=True, system=system)
    form = GrantForm(campaign, request.POST, npcs=with_npcs(request))
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
    data = form.cleaned_data  # a double submit (``entry`` None) is answered as the first
    return _gm_answer(
        request,
        campaign,
        ok=ok,
        result=entry,
        refused={"grant_form": form},
        notice=lambda: f"Granted {data['amount']} sparetime to {isolated(data['character'])}.",
    )


@login_required
@require_POST
def sparetime_award(request, campaign_id, system):
    """The GM awards sparetime to the characters ticked. The room's session panel posts its
    award here too, with ``from=room``, and is answered with that panel."""
    campaign = campaign_for(request, campaign_id, gm=True, system=system)
    form = AwardForm(campaign, request.POST, npcs=with_npcs(request))
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
    if request.POST.get("from") == FROM_ROOM:
        if ok:
            return session_answer(request, campaign, ok=ok, awarded=entries)
        return session_answer(request, campaign, ok=ok, error=entries, award_form=form)

    def notice():
        names = ", ".join(isolated(entry.character) for entry in entries)
        return f"Awarded {form.cleaned_data['amount']} sparetime to {names}."

    return _gm_answer(
        request, campaign, ok=ok, result=entries, refused={"award_form": form}, notice=notice
    )


@login_required
@require_POST
def sparetime_delegate(request, campaign_id, system):
    campaign = campaign_for(request, campaign_id, gm=True, system=system)
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
    return _gm_answer(
        request,
        campaign,
        ok=ok,
        result=entry,
        refused={"delegate_form": form},
        notice=lambda: (
            f"{member_name(entry.player)} may now hand out {entry.amount} more sparetime."
        ),
    )


def _reversal_effect(campaign, entry):
    """What reversing ``entry`` does, in a sentence (the balances as they are now)."""
    amount = entry.amount
    if entry.kind in (SparetimeEntry.GRANT, SparetimeEntry.AWARD):
        have = services.free_sparetime(entry.character)
        return f"{isolated(entry.character)}'s free sparetime {have} → {have - amount}"
    if entry.kind == SparetimeEntry.DELEGATE:
        left = services.delegation_left(campaign, entry.player)
        return f"{member_name(entry.player)} left to hand out {left} → {left - amount}"
    if entry.kind == SparetimeEntry.HANDOUT:
        left = services.portion_left(entry)
        giver = services.delegation_left(campaign, entry.player)
        return (
            f"{isolated(entry.character)}'s portion from {member_name(entry.player)} "
            f"{left} → {left - amount}; "
            f"{member_name(entry.player)} left to hand out {giver} → {giver + amount}"
        )
    if entry.kind == SparetimeEntry.SPEND:
        if entry.source:
            have, where = services.portion_left(entry.source), "portion"
        else:
            have, where = services.free_sparetime(entry.character), "free sparetime"
        back = ", ".join(f"{isolated(rating.label)} {b} → {a}" for rating, a, b in entry.changes)
        return f"{back}; {isolated(entry.character)}'s {where} {have} → {have - amount}"
    return ""


def _reversal_context(request, campaign, *, entry, confirming):
    """The GM's Reverse button on ``entry``'s ledger row, or with ``confirming`` what reversing
    it does (or why it cannot be), with the reverse form to confirm it."""
    return {
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


REVERSAL = Piece(
    name="gm-sparetime",
    template=REVERSAL_PARTIAL,
    context=_reversal_context,
    page=_page,
    url="gm_sparetime",
)


@login_required
@require_GET
def sparetime_reversal(request, campaign_id, system):
    """The GM's Reverse button on a ledger row: what reversing it does, a note, [Confirm
    reversal] and [Keep]. htmx's Keep asks again with ``keep`` and gets the button back."""
    campaign = campaign_for(request, campaign_id, gm=True, system=system)
    form = ReverseForm(campaign, request.GET)
    if not form.is_valid():
        return HttpResponseBadRequest("Name a ledger entry of this campaign.")
    return REVERSAL.get(
        request, campaign, entry=form.cleaned_data["entry"], confirming="keep" not in request.GET
    )


@login_required
@require_POST
def sparetime_reverse(request, campaign_id, system):
    """The GM reverses a ledger row with a counter-entry (``services.sparetime_reverse``)."""
    campaign = campaign_for(request, campaign_id, gm=True, system=system)
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

    def notice():
        entry = form.cleaned_data["entry"]
        return f"Reversed the {entry.get_kind_display().lower()} of {entry.amount:+d}."

    return _gm_answer(
        request, campaign, ok=ok, result=reversal, refused={"reverse_form": form}, notice=notice
    )


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


DELEGATION = Piece(
    name="sparetime-delegation",
    template=DELEGATION_PARTIAL,
    context=_delegation_context,
    page=_page,
    url="sparetime_delegation",
    access=lambda request, campaign_id, system: (
        campaign_for(request, campaign_id, system=system),
    ),
)
sparetime_delegation = DELEGATION.view()


@login_required
@require_POST
def sparetime_handout(request, campaign_id, system):
    """A player hands some of their delegation out to another player's character."""
    campaign = campaign_for(request, campaign_id, system=system)
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
    if not ok:
        return DELEGATION.answer(request, campaign, ok=ok, form=_refused(form, entry))
    notice = f"Handed {entry.amount} sparetime to {isolated(entry.character)}."
    return DELEGATION.answer(request, campaign, ok=ok, notice=notice)
