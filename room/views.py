"""The live table over HTTP: the room page and its roll log, checks and rolls, sessions.

Every write runs in one transaction (``core.writes.attempt``) and registers its pushes with
``transaction.on_commit``, so a socket only ever hears of what was committed: a new log entry
goes to the whole room (``room.push`` hides what a viewer may not see); a check's card goes to
the GM and to the character's player (``room.push`` too). A page's log and cards change through
its socket only: an htmx write that succeeded answers 204 (or with the form it came from, reset),
one that was refused answers 422 with the refusal in place (nothing changed, nothing pushed); a
plain form post is redirected to the room, or gets the room with the refusal in place.

So the highest entry a page shows is always where its socket may resume (``static/js/room.js``).
"""

import hashlib
from functools import partial

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from campaigns.access import campaign_for
from core.ids import parse_id
from core.push import push_facts
from core.writes import Piece, Refused, answer, attempt
from rolls import dice, services, talk
from rolls.access import check_for
from rolls.forms import (
    CONTRIBUTION,
    NOTE_MAX,
    AskForm,
    HpChangeForm,
    NpcRollForm,
    RequestForm,
    SavedRollForm,
    TalkForm,
    TargetForm,
    chosen,
    first_error,
)
from rolls.models import (
    PUBLIC,
    VISIBILITIES,
    Check,
    DiceSeed,
    LogEntry,
    known_to,
    with_recipients,
)
from rolls.systems import system_of
from rules import notation
from sheets.access import character_for
from sheets.models import SavedRoll
from sheets.party import party_context

from . import push
from .consumers import online
from .push import Viewer, asks, check_context, push_check

#: Log entries per page: the room shows the latest, "load older" the ones before.
LOG_PAGE = 50


def _room_with(request, context, replace):
    """The room with ``replace``'s HTML in place of the pieces it names: its pieces' page."""
    return _room_page(request, context["campaign"], replace=replace)


def _room_piece(name, template, context, **options):
    """A piece of the room (the GM's session, ask and NPC roll forms, a player's request forms,
    a check's card, a reveal in the log); a plain post goes back to the room."""
    return Piece(
        name=name,
        template=template,
        context=context,
        page=_room_with,
        url="room",
        url_ids=1,
        **options,
    )


def _check_context(request, campaign, check, **options):
    """A check's card for the viewer: ``room.push.check_context`` (``options``: a refused form
    and the refusal)."""
    return check_context(check, Viewer.of(campaign), **options)


#: A check's card; every page learns of its changes through its socket (a write on the check
#: answers htmx with nothing, or with the card showing the refusal: ``_check_write``).
CHECK = _room_piece("check-{}", "rolls/_check.html", _check_context)


# The room ---------------------------------------------------------------------------------------


def _log_rows(campaign, *, user_id, gm_id, before=None):
    """The LOG_PAGE entries before the number ``before`` (default: the latest), oldest first
    (but the whispers the viewer is not part of: not even a stub), each with whether it is
    hidden from the viewer; whether older entries exist; and the numbers of the secret rolls
    among them the viewer may reveal. A page starts at a number: the viewer's whispers after the
    first number it shows come with it, so that the next page ends at that number."""
    entries = LogEntry.objects.filter(campaign=campaign).shown_to(user_id)
    if before is not None:
        entries = entries.filter(seq__lt=before)
    newest = entries.order_by("-seq", "-sub")
    page = list(newest[: LOG_PAGE + 1])
    has_older = len(page) > LOG_PAGE
    if has_older:
        first, page = page[LOG_PAGE - 1], page[:LOG_PAGE]
        if first.sub:  # whispers after a number the page does not reach yet: all of it
            page += newest.filter(seq=first.seq, sub__lt=first.sub)
            has_older = entries.filter(seq__lt=first.seq).exists()
    shown = with_recipients(page)[::-1]
    rows = [(e, not e.visible_to(user_id, gm_id)) for e in shown]
    revealable = push.revealable_among(shown, viewer_id=user_id, gm_id=gm_id)
    return rows, has_older, revealable


def _live_checks(request, campaign):
    """The viewer's live checks (the GM: all of them; a player: their characters'), newest
    first, those asked of the viewer (open, to roll) before the rest, as cards:
    {check id: HTML}; and how many are asked of the viewer."""
    checks = Check.objects.of(campaign).live()
    if not campaign.viewer.is_gm:
        checks = checks.filter(character__owner=request.user)
    viewer = Viewer.of(campaign)
    checks = sorted(checks, key=lambda check: not asks(check, viewer))
    cards = {}
    for check in checks:
        check.campaign = campaign
        cards[check.pk] = CHECK.html(request, campaign, check)
    return cards, sum(asks(check, viewer) for check in checks)


def _dice_commitment(campaign, *, make):
    seed = dice.seed_open(campaign) if make else DiceSeed.objects.open_of(campaign)
    return seed.commitment if seed else ""


#: What the apps above the room add to its page, which it may not import (the floors):
#: functions ``(request, campaign) -> HTML`` ("" for nothing), appended at their apps' ready().
#: "wide": across the room, above the log and the side (the scene's map); "side": at the end of
#: the side column (the initiative order, the handouts). Without it the room could show none of
#: the scene app's cards.
ROOM_CARDS = {"wide": [], "side": []}


def _room_page(request, campaign, *, replace=None):
    """The room. ``replace`` maps a piece ("session", "ask", "npc", "request-<character id>",
    "check-<id>", "party", "log": above the log) to the HTML to show instead: a refused form
    with its refusal."""
    replace = replace or {}
    user_id, is_gm = request.user.pk, campaign.viewer.is_gm
    rows, has_older, revealable = _log_rows(campaign, user_id=user_id, gm_id=campaign.gm_id())
    checks, asked = _live_checks(request, campaign)
    # A refused action on a check shows it with the reason (in place, or last if it is closed).
    checks.update({int(k[6:]): v for k, v in replace.items() if k.startswith("check-")})
    context = {
        "campaign": campaign,
        "is_gm": is_gm,
        "rows": rows,
        "has_older": has_older,
        "revealable": revealable,
        "last_seq": rows[-1][0].seq if rows else 0,
        "head": rows[-1][0] if rows else None,
        # The seed of the next rolls' dice, committed before they are rolled (``rolls.dice``):
        # made now if the campaign has none yet, but not by a refused write's page (nothing
        # changes then).
        "dice_commitment": _dice_commitment(campaign, make=not replace),
        "log_notice": replace.get("log", ""),
        "online": online(campaign.id),
        "suggestions": system_of(campaign).suggestions(),
        "checks": list(checks.values()),
        "asked": asked,
        "talk_html": replace.get("talk") or TALK.html(request, campaign),
        **party_context(campaign),
        "party_html": replace.get("party", ""),
        "wide_cards": [card(request, campaign) for card in ROOM_CARDS["wide"]],
        "side_cards": [card(request, campaign) for card in ROOM_CARDS["side"]],
    }
    if is_gm:
        context["session_html"] = replace.get("session") or SESSION.html(request, campaign)
        context["ask_html"] = replace.get("ask") or ASK.html(request, campaign)
        context["npc_html"] = replace.get("npc") or NPC.html(request, campaign)
    else:
        context["requests_html"] = _requests_html(request, campaign, replace=replace)
    return render(request, "rolls/room.html", context)


@login_required
@require_GET
def room(request, campaign_id):
    return _room_page(request, campaign_for(request, campaign_id))


@login_required
@require_GET
def room_requests(request, campaign_id):
    """A player's "Your characters" panel again, after a facts push: 204 (nothing to swap) when
    their characters are still those the page shows (``have``), so typing is kept."""
    campaign = campaign_for(request, campaign_id)
    if campaign.viewer.is_gm:
        raise PermissionDenied("The GM has no characters of their own at the table.")
    characters = _own_characters(request, campaign)
    if request.GET.get("have") == _characters_fingerprint(characters):
        return HttpResponse(status=204)
    return HttpResponse(_requests_html(request, campaign, characters=characters))


@login_required
@require_GET
def room_log(request, campaign_id):
    """The LOG_PAGE entries before ``?before=<number>``, with a button for the ones before
    them."""
    campaign = campaign_for(request, campaign_id)
    before = parse_id(request.GET.get("before", ""))
    if before is None:
        return HttpResponseBadRequest("“before” must be the number of a log entry.")
    rows, has_older, revealable = _log_rows(
        campaign, user_id=request.user.pk, gm_id=campaign.gm_id(), before=before
    )
    context = {
        "campaign": campaign,
        "rows": rows,
        "has_older": has_older,
        "revealable": revealable,
    }
    return render(request, "rolls/_log_page.html", context)


@login_required
@require_GET
def room_checks(request, campaign_id):
    """The viewer's live checks, to resynchronise a page whose socket was away."""
    campaign = campaign_for(request, campaign_id)
    checks = list(_live_checks(request, campaign)[0].values())
    return render(request, "rolls/_checks.html", {"checks": checks})


# Sessions ---------------------------------------------------------------------------------------


def _session_context(request, campaign, *, error="", closed=None, **overrides):
    """The GM's session controls; once a session ended, how many checks are still live, with
    the offer to close them (``closed``: those just closed); and what the campaign's system adds
    below them (its ``session_template``, given its ``session_context``; Pool's sparetime award,
    ``overrides`` a write's answer's: what was awarded, or the refused form)."""
    last = campaign.game_sessions.first()
    system = system_of(campaign)
    context = {"campaign": campaign, "last": last, "error": error, "closed": closed}
    if last is not None and not last.is_open:
        context["live_checks"] = Check.objects.filter(campaign=campaign).live().count()
    context["system_template"] = system.session_template
    if system.session_template:
        context.update(system.session_context(campaign, last, **overrides))
    return context


SESSION = _room_piece("session", "rolls/_session.html", _session_context)


def _session_change(request, campaign_id, service):
    campaign = campaign_for(request, campaign_id, gm=True)

    def write():
        _session, entry = service(campaign=campaign, by=request.user)
        push.push_entry_on_commit(entry)

    ok, error = attempt(write)
    return SESSION.answer(request, campaign, ok=ok, error=error if not ok else "")


@login_required
@require_POST
def session_start(request, campaign_id):
    return _session_change(request, campaign_id, services.session_start)


@login_required
@require_POST
def session_end(request, campaign_id):
    return _session_change(request, campaign_id, services.session_end)


@login_required
@require_GET
def dice_page(request, campaign_id):
    """Fair dice: the open seed's commitment, the revealed seeds, and the rolls of one that the
    viewer may see, which the page's own script recomputes from the seed (static/js/dice.js)."""
    campaign = campaign_for(request, campaign_id)
    shown = dice.shown_to(campaign, request.user.pk, campaign.gm_id(), request.GET.get("seed", ""))
    context = {"campaign": campaign, "shown": shown, "is_gm": campaign.viewer.is_gm}
    return render(request, "rolls/dice.html", context)


@login_required
@require_POST
def dice_reveal(request, campaign_id):
    """The GM reveals the dice seed now (``services.dice_seed_reveal``); the fair-dice page
    shows it, with its rolls checked."""
    campaign = campaign_for(request, campaign_id, gm=True)

    def write():
        push.push_entry_on_commit(services.dice_seed_reveal(campaign=campaign, by=request.user))

    attempt(write)  # nothing refuses it
    return redirect("dice", campaign.id)


@login_required
@require_POST
def checks_close(request, campaign_id):
    """The GM closes every check still live (offered once a session ended with some open);
    their cards leave the room."""
    campaign = campaign_for(request, campaign_id, gm=True)

    def write():
        closed = services.checks_close(campaign=campaign)
        for check in closed:
            push.push_check(check)
        return closed

    ok, result = attempt(write)
    if ok:
        return SESSION.answer(request, campaign, ok=ok, closed=result)
    return SESSION.answer(request, campaign, ok=ok, error=result)


def session_answer(request, campaign, *, ok, error="", **overrides):
    """The session panel as a write's answer: a system's write posted from it (Pool's award,
    ``sparetime.views.sparetime_award``) is answered with it, given what its
    ``session_context`` takes (``overrides``)."""
    return SESSION.answer(request, campaign, ok=ok, error=error, **overrides)


# Asking for checks ------------------------------------------------------------------------------


def _ask_context(
    request, campaign, *, form=None, remembered=None, error="", created=0, left_out=()
):
    """The GM's ask form: ``form`` a refused one, or a new one holding ``remembered`` (the last
    ask's choices); ``created``: how many checks the last ask created; ``left_out``: why it
    left out the characters it could not ask."""
    return {
        "campaign": campaign,
        "system": system_of(campaign),
        "form": form or AskForm(campaign=campaign, auto_id="ask-%s", initial=remembered),
        "error": error,
        "created": created,
        "left_out": left_out,
    }


ASK = _room_piece("ask", "rolls/_ask.html", _ask_context)


def _own_characters(request, campaign):
    """The viewer's characters, with their saved rolls (one query for all)."""
    return list(campaign.characters.filter(owner=request.user).prefetch_related("saved_rolls"))


def _characters_fingerprint(characters):
    """What a player's panel shows of their characters (their saved rolls' buttons too), in
    short: it changes with them."""
    shown = "\n".join(
        f"{c.pk} {c.name} {c.concept} {[(s.pk, s.name) for s in c.saved_rolls.all()]}"
        for c in characters
    )
    return hashlib.blake2s(shown.encode(), digest_size=8).hexdigest()


def _requests_html(request, campaign, *, replace=None, characters=None):
    """A player's "Your characters" panel: a request form per character (``replace``: as in
    ``_room_page``)."""
    replace = replace or {}
    characters = _own_characters(request, campaign) if characters is None else characters
    context = {
        "campaign": campaign,
        "have": _characters_fingerprint(characters),
        "requests": [
            replace.get(REQUEST.key(campaign, c)) or REQUEST.html(request, campaign, c)
            for c in characters
        ],
    }
    return render_to_string("rolls/_requests.html", context, request=request)


def _request_context(request, campaign, character, *, form=None, error="", created=False):
    """A player's request form for ``character``: ``form`` a refused one; ``created``: the
    check just requested."""
    return {
        "campaign": campaign,
        "system": system_of(campaign),
        "character": character,
        "form": form or RequestForm(campaign=campaign, auto_id=f"request-{character.pk}-%s"),
        "error": error,
        "created": created,
        # Each rolled with one click (``saved_roll``).
        "saved_rolls": list(character.saved_rolls.all()),
    }


#: A player's request form, one per character in their "Your characters" panel.
REQUEST = _room_piece("request-{}", "rolls/_request.html", _request_context)


def _new_check(campaign, form, create, *, once_by=None):
    """Validate ``form`` and create the check with ``create(**form.about())``; its card goes to
    the GM and the player through their sockets. Returns ``attempt``'s (ok, message); with
    ``once_by``, a double submit of the form creates one check (``attempt``)."""

    def write():
        check = Check.objects.of(campaign).get(pk=create(**form.about()).pk)
        check.campaign = campaign
        push_check(check, swap="new")

    return attempt(write, form=form, once_by=once_by)


@login_required
@require_POST
def check_ask(request, campaign_id):
    """The GM asks one character for a check, or several at once (one check each); each card
    goes to the GM and to its player. The form comes back holding the choices just made."""
    campaign = campaign_for(request, campaign_id, gm=True)
    form = AskForm(request.POST, campaign=campaign, auto_id="ask-%s")

    def write():
        target = form.cleaned_data["target"]
        asked, left_out = services.check_ask_group(
            campaign=campaign, by=request.user, target=target, **form.about()
        )
        for check in Check.objects.of(campaign).filter(pk__in=[c.pk for c in asked]):
            check.campaign = campaign
            push_check(check, swap="new")
        return len(asked), [why for _, why in left_out]

    ok, result = attempt(write, form=form, once_by=request.user)
    if ok:
        # A double submit (``result`` None) is answered as an ask of one.
        created, left_out = result or (1, [])
        remembered = form.remembered()
        return ASK.answer(
            request, campaign, ok=ok, remembered=remembered, created=created, left_out=left_out
        )
    return ASK.answer(request, campaign, ok=ok, form=form, error=result)


# Rolling for an NPC in one step ------------------------------------------------------------------

#: The NPC roll form's check, as its roll fields' template knows it (``check.id``: the odds' id).
NPC_PROBE = {"id": "npc"}


def _npcs(form):
    """The characters the GM may roll for in one step (their own), from a blank ``form``."""
    return list(form.fields["character"].queryset)


def _npc_target(values):
    """The difficulty or TN typed in the NPC roll form, or None."""
    try:
        return NpcRollForm.base_fields["target"].clean(values.get("target"))
    except ValidationError:
        return None


def _npc_probe(campaign, npcs, values):
    """A check not asked yet, for the NPC chosen in ``values`` (else the first), with the number
    typed (else None): the roll form's choices and odds are worked out on it."""
    npc = chosen(npcs, values.get("character")) or npcs[0]
    npc.campaign = campaign
    return Check(campaign=campaign, character=npc, target=_npc_target(values))


def _no_number(system, values):
    """The odds without a number: before one is typed, what to do, quietly (a red refusal for a
    form nobody has filled in yet reads as a mistake); for a number the form refuses, why."""
    if not (values.get("target") or "").strip():
        return {"prompt": f"Set the {system.number} to see the chance."}
    return {"error": f"Set the {system.number} (a whole number from 1)."}


def _npc_context(request, campaign, *, values=None, error="", rolled=False):
    """The GM's NPC roll form, filled with ``values`` (what was typed or posted: the choices
    that still apply to the chosen NPC are kept), with a refusal or the news of a roll."""
    values = values or {}
    system = system_of(campaign)
    blank = NpcRollForm(campaign=campaign)
    npcs = _npcs(blank)
    context = {
        "campaign": campaign,
        "system": system,
        "npcs": npcs,
        "error": error,
        "rolled": rolled,
        "visibilities": VISIBILITIES,
        "note_max": NOTE_MAX,
        "values": values,
        "check": NPC_PROBE,
        "once": blank["once"].initial,
    }
    saved = SavedRoll.objects.filter(character__in=npcs) if npcs else []
    context["npc_saved"] = [
        (npc, rolls) for npc in npcs if (rolls := [s for s in saved if s.character_id == npc.pk])
    ]
    if npcs:
        probe = _npc_probe(campaign, npcs, values)
        context["npc"] = probe.character
        context["target"] = probe.target
        typed = probe.target
        # The choices do not depend on the number: without one, the odds say it is missing.
        probe.target = typed or 1
        context["roll"] = system.roll_context(probe, changed=values)
        if typed is None and "odds" in context["roll"]:
            context["roll"]["odds"] = _no_number(system, values)
    return context


#: The NPC roll card; its form alone (``rolls/_npc_form.html``) is what ``npc_form`` answers.
NPC = _room_piece("npc", "rolls/_npc_roll.html", _npc_context)


@login_required
@require_GET
def npc_form(request, campaign_id):
    """The NPC roll form again after the GM picked another NPC, skill or attribute."""
    campaign = campaign_for(request, campaign_id, gm=True)
    return render(
        request, "rolls/_npc_form.html", _npc_context(request, campaign, values=request.GET)
    )


@login_required
@require_GET
def npc_odds(request, campaign_id):
    """The live odds of the NPC roll form's current values (or why they would be refused)."""
    campaign = campaign_for(request, campaign_id, gm=True)
    system = system_of(campaign)
    npcs = _npcs(NpcRollForm(campaign=campaign))
    probe = chosen(npcs, request.GET.get("character")) and _npc_probe(campaign, npcs, request.GET)
    if not probe:
        odds = {"error": "Choose one of your NPCs."}
    elif probe.target is None:
        odds = _no_number(system, request.GET)
    else:
        odds = system.odds(probe, system.roll_form(probe, request.GET))
    return render(request, "rolls/_npc_odds.html", {"odds": odds, "system": system})


@login_required
@require_POST
def npc_roll(request, campaign_id):
    """The GM rolls for an NPC in one step: the check is asked and rolled in one write
    (``services.check_roll_npc``); its log entry goes to the room like every roll (and its card,
    should it stay live: a failed Mana roll may be attempted again). The form comes back holding
    what was posted."""
    campaign = campaign_for(request, campaign_id, gm=True)
    form = NpcRollForm(request.POST, campaign=campaign)
    system = system_of(campaign)

    def write():
        data = form.cleaned_data
        probe = Check(campaign=campaign, character=data["character"], target=data["target"])
        roll_form = system.roll_form(probe, request.POST)
        if not roll_form.is_valid():
            raise Refused(first_error(roll_form))
        check, entry = services.check_roll_npc(
            campaign=campaign,
            character=data["character"],
            by=request.user,
            target=data["target"],
            data=roll_form.cleaned_data,
            note=data["note"],
            visibility=data["visibility"],
        )
        if check.status == Check.DONE:
            push.push_entry_on_commit(entry)
        else:
            push_check(check, entry=entry, swap="new")
        if system.roll_facts:  # Mana's pools: their pages show the new amounts
            push_facts(campaign, [check.character], private=system.roll_facts == "private")
        return entry

    ok, refusal = attempt(write, form=form, once_by=request.user)
    error = "" if ok else refusal or first_error(form)
    return NPC.answer(request, campaign, ok=ok, values=request.POST, error=error, rolled=ok)


@login_required
@require_POST
def check_request(request, campaign_id, character_id):
    campaign, character = character_for(request, campaign_id, character_id, owner=True)
    form = RequestForm(request.POST, campaign=campaign, auto_id=f"request-{character.pk}-%s")

    def create(**about):
        return services.check_request(
            campaign=campaign, character=character, by=request.user, **about
        )

    ok, error = _new_check(campaign, form, create)
    if ok:
        return REQUEST.answer(request, campaign, character, ok=ok, created=True)
    return REQUEST.answer(request, campaign, character, ok=ok, form=form, error=error)


# Writes on one check ----------------------------------------------------------------------------


def _check_write(request, check, write, *, form=None, refused_form=None, facts=None):
    """Run ``write()`` (which returns the new log entry, if any) on ``check`` and, once it has
    committed, push the card to the GM and the character's player, with the new entry to the
    room (``room.push.push_check``): every page learns of the change through its socket, the
    writer's too, so htmx gets 204. Refused: 422 with the card showing the refusal
    (``refused_form``: "roll_form" or "target_form", the form to show again). ``facts``:
    ``(campaign, characters, private)``, the characters' facts the write changes
    (``core.push.push_facts``), pushed before the card."""

    def write_and_push():
        result = write()
        if facts is not None:
            campaign, characters, private = facts
            push_facts(campaign, characters, private=private)
        # ``check`` holds its new state: the write read it again under its lock and changed it.
        push_check(check, entry=result if isinstance(result, LogEntry) else None)
        return result

    ok, result = attempt(write_and_push, form=form)
    if ok and request.htmx:
        return HttpResponse(status=204)
    refused = {} if ok else {"error": result, **({refused_form: form} if refused_form else {})}
    return CHECK.answer(request, check.campaign, check, ok=ok, **refused)


@login_required
@require_POST
def check_set_target(request, campaign_id, check_id):
    _campaign, check = check_for(request, campaign_id, check_id, gm=True)
    form = TargetForm(request.POST, auto_id=f"target-{check.pk}-%s")

    def write():
        return services.check_set_target(check=check, target=form.cleaned_data["target"])

    return _check_write(request, check, write, form=form, refused_form="target_form")


@login_required
@require_POST
def check_answer_shift(request, campaign_id, check_id):
    campaign, check = check_for(request, campaign_id, check_id, gm=True)
    answer_shift = system_of(campaign).answer_shift
    decision = request.POST.get("answer")
    reason = request.POST.get("reason", "")
    # An approved shift is rolled at once: the GM's browser's contribution to its dice.
    contribution = request.POST.get("contribution", "")

    def write():
        if decision not in ("approve", "decline"):
            raise Refused("Approve or decline the shift.")
        if answer_shift is None:  # a system without shifts
            raise Refused("No shift awaits an answer on this check.")
        approve = decision == "approve"
        try:
            CONTRIBUTION(contribution) if approve and contribution else None
        except ValidationError as error:
            raise Refused(error.messages[0]) from None
        return answer_shift(check=check, approve=approve, reason=reason, contribution=contribution)

    return _check_write(request, check, write)


@login_required
@require_POST
def check_allow_reattempt(request, campaign_id, check_id):
    _campaign, check = check_for(request, campaign_id, check_id, gm=True)
    return _check_write(request, check, lambda: services.check_allow_reattempt(check=check))


@login_required
@require_POST
def check_cancel(request, campaign_id, check_id):
    _campaign, check = check_for(request, campaign_id, check_id, gm=True)
    return _check_write(request, check, lambda: services.check_cancel(check=check))


# Rolling ----------------------------------------------------------------------------------------


@login_required
@require_POST
def check_roll(request, campaign_id, check_id):
    # The card shows only when refused (a rolled check's card is pushed with what the roll set).
    campaign, check = check_for(request, campaign_id, check_id, owner=True, card=False)
    system = system_of(campaign)
    form = system.roll_form(check, request.POST)
    data = form.cleaned_data if form.is_valid() else {}  # refused before the write if invalid
    write = partial(system.roll, check, by=request.user, data=data)
    facts = _roll_facts(system, campaign, check.character)
    return _check_write(request, check, write, form=form, refused_form="roll_form", facts=facts)


def _roll_facts(system, campaign, character):
    """What a roll of ``character`` changes of its facts (``system.roll_facts``), as
    ``_check_write``'s ``facts``: None when nothing."""
    if system.roll_facts is None:
        return None
    return campaign, [character], system.roll_facts == "private"


@login_required
@require_GET
def check_form(request, campaign_id, check_id):
    """The roll form again after the player picked another skill (Mana: its two colors) or
    attribute (Pool: its skills); what they typed is kept where it still applies."""
    campaign, check = check_for(request, campaign_id, check_id, owner=True)
    system = system_of(campaign)
    if check.status != Check.OPEN:
        return HttpResponse('<p class="error">This check cannot be rolled now.</p>')
    context = {
        "campaign": campaign,
        "system": system,
        "check": check,
        "roll": system.roll_context(check, changed=request.GET),
    }
    return render(request, "rolls/_roll_form.html", context)


@login_required
@require_GET
def check_odds(request, campaign_id, check_id):
    """The live odds of the roll form's current values (or why they would be refused)."""
    campaign, check = check_for(request, campaign_id, check_id, owner=True)
    system = system_of(campaign)
    if check.status != Check.OPEN:
        odds = {"error": "This check cannot be rolled now."}
    else:
        odds = system.odds(check, system.roll_form(check, request.GET))
    return render(request, "rolls/_odds.html", {"odds": odds, "system": system})


# Saved rolls ------------------------------------------------------------------------------------


def _saved_roll_write(request, campaign, saved, *, visibility, target=None, contribution=""):
    """Roll ``saved`` (``services.saved_roll_roll``) and register its pushes, as the write it
    stands for does: a free roll's entry to the room; a player's request's card to the GM and
    the player; an NPC's roll as ``npc_roll`` pushes it. Returns what it did."""
    system = system_of(campaign)
    rolled = services.saved_roll_roll(
        campaign=campaign,
        saved=saved,
        by=request.user,
        visibility=visibility,
        target=target,
        contribution=contribution,
    )
    check = rolled.check
    if check is None:
        push.push_entry_on_commit(rolled.entry)
        return rolled
    check = Check.objects.of(campaign).get(pk=check.pk)
    check.campaign = campaign
    if rolled.entry is None:  # a player's request: its card
        push_check(check, swap="new")
        return rolled
    if check.status == Check.DONE:
        push.push_entry_on_commit(rolled.entry)
    else:
        push_check(check, entry=rolled.entry, swap="new")
    if system.roll_facts:  # Mana's pools: their pages show the new amounts
        push_facts(campaign, [check.character], private=system.roll_facts == "private")
    return rolled


def _saved_said(campaign, rolled):
    """What a saved roll's Roll button says once it was done."""
    if rolled.entry is None:
        return f"Requested: the GM sets the {system_of(campaign).number}."
    return "Rolled: the log shows it."


@login_required
@require_POST
def saved_roll(request, campaign_id, character_id, saved_id):
    """A saved roll of the viewer's own character, rolled with one click (from its sheet or the
    room): what it rolls reaches the log and the cards through the sockets, as the write it
    stands for (``_saved_roll_write``). An NPC's check without a number of its own takes the
    one posted (``target``). htmx gets a sentence: what was done, or why not (422)."""
    campaign, character = character_for(request, campaign_id, character_id, owner=True)
    saved = get_object_or_404(SavedRoll, pk=saved_id, character=character)
    saved.character = character
    form = SavedRollForm(request.POST)

    def write():
        return _saved_roll_write(
            request,
            campaign,
            saved,
            visibility=PUBLIC,
            target=form.cleaned_data["target"],
            contribution=form.cleaned_data["contribution"],
        )

    ok, result = attempt(write, form=form)
    said = _saved_said(campaign, result) if ok else result or first_error(form)
    html = render_to_string("rolls/_saved_said.html", {"ok": ok, "said": said})
    return answer(
        request,
        ok=ok,
        fragment=lambda: html,
        page=lambda: _room_page(request, campaign, replace={"log": html}),
        url=reverse("room", args=[campaign.id]),
    )


# Table talk -------------------------------------------------------------------------------------


def _talk_context(request, campaign, *, form=None, error="", notice=""):
    """The room's one box (``rolls.talk``): a message, a whisper or a free roll; a refused one
    is shown again with its reason."""
    form = form or TalkForm(campaign=campaign, user=request.user)
    return {"campaign": campaign, "form": form, "error": error, "notice": notice, "help": talk.HELP}


#: The box below the log; what it said arrives in the log through the socket, so a write that
#: succeeded answers htmx with the box emptied.
TALK = _room_piece("talk", "rolls/_talk.html", _talk_context)


@login_required
@require_POST
def talk_say(request, campaign_id):
    """A member says something, whispers or rolls dice from the room's box: its entry arrives
    on the sockets of those it is for (``room.push``). Refused (nothing logged, nothing
    pushed): an empty or too long text, unreadable or too many dice, an unknown name."""
    campaign = campaign_for(request, campaign_id)
    form = TalkForm(request.POST, campaign=campaign, user=request.user)

    def write():
        said, cleaned = form.cleaned_data["said"], form.cleaned_data
        if cleaned.get("saved") is not None:  # "/r name": a saved roll, pushed as its kind is
            return _saved_roll_write(
                request,
                campaign,
                cleaned["saved"],
                visibility=said.visibility,
                contribution=cleaned["contribution"],
            )
        if said.kind == "roll":
            entry = services.free_roll_make(
                campaign=campaign,
                by=request.user,
                notation=cleaned["notation"],
                visibility=said.visibility,
                contribution=cleaned["contribution"],
            )
        else:
            entry = services.message_send(
                campaign=campaign,
                by=request.user,
                text=said.text,
                to=cleaned.get("recipient"),
                mentions=cleaned.get("mentions", ()),
            )
        push.push_entry_on_commit(entry)
        return entry

    ok, result = attempt(write, form=form)
    if ok:
        return TALK.answer(request, campaign, ok=True)
    error = result or first_error(form)
    return TALK.answer(request, campaign, ok=False, form=form, error=error)


@login_required
@require_GET
def talk_odds(request, campaign_id):
    """What a roll typed in the box would do, said before it is sent: its dice and, with a
    target, its exact chance (unless that costs more than a preview may,
    ``notation.MAX_PREVIEW_COST``: the roll's entry gives it), or why it would be refused. Only
    rolls: the page never sends a message or a whisper before it is said (static/js/room.js),
    and this answers nothing of one."""
    campaign = campaign_for(request, campaign_id)
    form = TalkForm(request.GET, campaign=campaign, user=request.user)
    preview = {}
    if talk.is_roll(request.GET.get("text", "")):
        if not form.is_valid():
            preview["error"] = first_error(form)
        elif form.cleaned_data.get("saved") is not None:
            preview["said"] = form.cleaned_data["said"]
            preview["saved"] = form.cleaned_data["saved"]
        else:
            typed = form.cleaned_data["notation"]
            preview["said"] = form.cleaned_data["said"]
            preview["notation"] = typed
            if notation.chance_cost(typed) > notation.MAX_PREVIEW_COST:
                preview["costly"] = True
            else:
                preview["chance"] = notation.chance(typed)
    return render(request, "rolls/_talk_odds.html", {"preview": preview})


# Hit points from the party -------------------------------------------------------------------


def _party_context(request, campaign, *, hp_error="", hp_for=None):
    """The party (``sheets.party``), with a refused HP change's reason by its character."""
    return {**party_context(campaign), "hp_error": hp_error, "hp_for": hp_for}


#: The party card; a write from it answers htmx with it, and every page showing the character
#: fetches its party (and the sheet) again on the facts push.
PARTY = _room_piece("party", "sheets/_party.html", _party_context)


@login_required
@require_POST
def party_hp(request, campaign_id, character_id):
    """The GM, or a player for their own character if the campaign allows it (the system's
    ``hp_may_change``), changes a character's HP from the party: one less or more, or a number
    set. Its log entry and a facts push reach the room once committed (a GM's own character's:
    the GM alone). 404 in a campaign whose system has no HP; 403 for a member who may not;
    refused (422, nothing changed, nothing pushed): a number out of 0..max, or none."""
    campaign, character = character_for(request, campaign_id, character_id)
    system = system_of(campaign)
    if system.hp_change is None:
        raise Http404("This campaign's rule system has no hit points.")
    if not system.hp_may_change(campaign, character):
        raise PermissionDenied("Only the GM, or its player if the campaign allows it, sets its HP.")
    form = HpChangeForm(request.POST)

    def write():
        entry = system.hp_change(character=character, by=request.user, **form.cleaned_data)
        push.push_entry_on_commit(entry)
        push_facts(campaign, [character], private=entry.visibility != PUBLIC)
        return entry

    ok, result = attempt(write, form=form)
    error = "" if ok else (result or first_error(form))
    return PARTY.answer(request, campaign, ok=ok, hp_error=error, hp_for=character.pk)


# The log's proofs -------------------------------------------------------------------------------


@login_required
@require_POST
def roll_reveal(request, campaign_id, seq):
    """The GM reveals a GM-secret roll: the reveal arrives on every socket as a log entry. htmx
    gets the button's place back (the note that it is done, or the button with the refusal)."""
    campaign = campaign_for(request, campaign_id, gm=True)

    def write():
        entry = services.roll_reveal(campaign=campaign, seq=seq, by=request.user)
        push.push_entry_on_commit(entry)
        return entry

    ok, result = attempt(write)
    if ok:
        return REVEAL.answer(request, campaign, ok=ok, seq=seq, revealed=result)
    return REVEAL.answer(request, campaign, ok=ok, seq=seq, error=result)


def _reveal_context(request, campaign, *, seq, error="", revealed=None):
    """The GM's reveal button of the secret roll ``seq`` (with a refusal), or, ``revealed``,
    the reveal's entry."""
    entry = {"campaign_id": campaign.id, "seq": seq}
    return {"campaign": campaign, "entry": entry, "error": error, "revealed": revealed}


#: A secret roll's reveal button, in its log entry; a refused plain post shows it above the log.
REVEAL = _room_piece("log", "rolls/_reveal_form.html", _reveal_context)


@login_required
@require_GET
def verify_log(request, campaign_id):
    """The GM checks the campaign's roll log and the dice of its revealed seeds' rolls with the
    check ``manage.py verify_rolls`` runs (``services.log_check``)."""
    campaign = campaign_for(request, campaign_id, gm=True)
    found = services.log_check(campaign)
    # The fingerprint of the last entry the GM knows of: a whisper between players after it
    # changes nothing the GM sees.
    known = LogEntry.objects.filter(known_to(request.user.pk), campaign=campaign)
    head = known.order_by("-seq", "-sub").only("seq", "sub", "hash").first()
    context = {"campaign": campaign, "problem": found.broken, "found": found, "head": head}
    return render(request, "rolls/verify.html", context)
