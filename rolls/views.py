"""The live table over HTTP: the room page and its roll log, checks and rolls, sessions.

Every write runs in one transaction and registers its pushes with ``transaction.on_commit``, so a
socket only ever hears of what was committed: a new log entry goes to the whole room
(``push.push_entry`` hides what a viewer may not see); a check's fragment goes to the GM and to
the character's owner only, each rendered for their role. An htmx request gets the changed
fragment back (422 with the error when refused: then nothing changed and nothing is pushed); a
plain form post is redirected to the room, or gets the room with the error in place (200).

The log on a page only grows through the socket (never from an HTTP answer), so the highest
entry a page shows is always where its socket may resume (``static/js/room.js``).
"""

from functools import partial

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET, require_POST

from campaigns.access import campaign_for
from campaigns.writes import Refused
from sheets.models import COLORLESS, Character, ManaPool, Rating, SparetimeEntry
from sheets.services import sparetime_award

from . import push, services
from .consumers import online
from .forms import MAX_ID, AskForm, AwardForm, ManaRollForm, PoolRollForm, RequestForm, TargetForm
from .models import Check, LogEntry
from .rules import mana, pool
from .rules import sheet as pool_sheet

#: Log entries per page: the room shows the latest, "load older" the ones before.
LOG_PAGE = 50


# Access -----------------------------------------------------------------------------------------


def _checks(campaign):
    """The campaign's checks, with what their fragments show (a Mana check names a skill, a
    Pool check an attribute and skill)."""
    related = ["mana_skill"] if campaign.is_mana else ["attribute", "skill"]
    return Check.objects.filter(campaign=campaign).select_related("character__owner", *related)


def _check_for(request, campaign_id, check_id, *, gm=False, owner=False):
    """(campaign, check): 404 for a non-member or another campaign's check, 403 for a player
    doing a GM action or (``owner``) acting on another player's character."""
    campaign = campaign_for(request, campaign_id, gm=gm)
    check = get_object_or_404(_checks(campaign), pk=check_id)
    check.campaign = campaign
    if owner and check.character.owner_id != request.user.pk:
        raise PermissionDenied("Only the character's player rolls this check.")
    return campaign, check


def _viewer(request, campaign):
    return {"user_id": request.user.pk, "is_gm": campaign.viewer.is_gm}


# Writes and answers -----------------------------------------------------------------------------


def _attempt(form, write):
    """Run ``write()`` in one transaction when ``form`` (if any) is valid: (True, its result),
    or (False, the refusal's message; "" when the form holds the errors). A refusal rolls the
    transaction back, and the pushes registered in it with it."""
    if form is not None and not form.is_valid():
        return False, ""
    try:
        with transaction.atomic():
            return True, write()
    except Refused as error:
        return False, str(error)


def _answer(request, campaign, *, ok, html, piece):
    """htmx gets ``html`` (422 when refused). A plain form post is redirected to the room, or
    gets the room with ``html`` in place of ``piece`` when refused."""
    if request.htmx:
        return HttpResponse(html, status=200 if ok else 422)
    if ok:
        return redirect("room", campaign.id)
    return _room_page(request, campaign, replace={piece: html})


def _push_check(check, campaign, *, swap="update", last_roll=None, entry=None):
    """Once the write has committed, send the check's fragment to the GM and to its character's
    owner (nobody else hears of a check), and ``entry`` (a new log entry) to the room.
    Rendering waits for the commit, so that no lock is held meanwhile. Call inside the write's
    transaction."""

    def send():
        gm_id = campaign.gm_id()
        fragment = partial(_check_html, check, campaign, swap=swap, last_roll=last_roll)
        message = {"gm": fragment(user_id=gm_id, is_gm=True)}
        owner_id = check.character.owner_id
        if owner_id != gm_id:
            message["users"] = {str(owner_id): fragment(user_id=owner_id, is_gm=False)}
        messages = [push.entry_message(entry)] if entry else []
        push.send(campaign.id, *messages, message)

    transaction.on_commit(send)


def _push_entry(entry):
    transaction.on_commit(lambda: push.push_entry(entry))


# The room ---------------------------------------------------------------------------------------


def _log_rows(campaign, *, user_id, gm_id, before=None):
    """The LOG_PAGE entries before ``before`` (default: the latest), oldest first, each with
    whether it is hidden from the viewer; and whether older entries exist."""
    entries = LogEntry.objects.filter(campaign=campaign).select_related("actor", "character")
    if before is not None:
        entries = entries.filter(seq__lt=before)
    page = list(entries.order_by("-seq")[: LOG_PAGE + 1])
    rows = [(e, not e.visible_to(user_id, gm_id)) for e in reversed(page[:LOG_PAGE])]
    return rows, len(page) > LOG_PAGE


def _live_checks_html(request, campaign):
    """The viewer's live checks (the GM: all of them; a player: their characters'), newest
    first, rendered."""
    checks = _checks(campaign).exclude(status=Check.DONE)
    if not campaign.viewer.is_gm:
        checks = checks.filter(character__owner=request.user)
    return {
        check.pk: _check_html(check, campaign, request=request, **_viewer(request, campaign))
        for check in checks
    }


def _room_page(request, campaign, *, replace=None):
    """The room. ``replace`` maps a piece ("session", "ask", "request-<character id>",
    "check-<id>") to the HTML to show instead: a refused form with its error."""
    replace = replace or {}
    user_id, is_gm = request.user.pk, campaign.viewer.is_gm
    rows, has_older = _log_rows(
        campaign, user_id=user_id, gm_id=user_id if is_gm else campaign.gm_id()
    )
    checks = _live_checks_html(request, campaign)
    # A refused action on a check shows it with the reason (in place, or last if it is closed).
    checks.update({int(k[6:]): v for k, v in replace.items() if k.startswith("check-")})
    context = {
        "campaign": campaign,
        "is_gm": is_gm,
        "rows": rows,
        "has_older": has_older,
        "last_seq": rows[-1][0].seq if rows else 0,
        "online": online(campaign.id),
        "pool_names": _pool_names() if campaign.is_pool else (),
        "checks": list(checks.values()),
    }
    if is_gm:
        context["session_html"] = replace.get("session") or _session_html(request, campaign)
        context["ask_html"] = replace.get("ask") or _ask_html(request, campaign)
    else:
        context["requests"] = [
            replace.get(f"request-{c.pk}") or _request_html(request, campaign, c)
            for c in campaign.characters.filter(owner=request.user)
        ]
    return render(request, "rolls/room.html", context)


@login_required
@require_GET
def room(request, campaign_id):
    return _room_page(request, campaign_for(request, campaign_id))


@login_required
@require_GET
def room_log(request, campaign_id):
    """The LOG_PAGE entries before ``?before=<seq>``, with a button for the ones before them."""
    campaign = campaign_for(request, campaign_id)
    try:
        before = int(request.GET.get("before", ""))
    except ValueError:
        before = 0
    if not 1 <= before <= MAX_ID:
        return HttpResponseBadRequest("“before” must be the number of a log entry.")
    user_id = request.user.pk
    gm_id = user_id if campaign.viewer.is_gm else campaign.gm_id()
    rows, has_older = _log_rows(campaign, user_id=user_id, gm_id=gm_id, before=before)
    context = {"campaign": campaign, "rows": rows, "has_older": has_older}
    return render(request, "rolls/_log_page.html", context)


@login_required
@require_GET
def room_checks(request, campaign_id):
    """The viewer's live checks, to resynchronise a page whose socket was away."""
    campaign = campaign_for(request, campaign_id)
    checks = list(_live_checks_html(request, campaign).values())
    return render(request, "rolls/_checks.html", {"checks": checks})


# Sessions ---------------------------------------------------------------------------------------


def _session_html(request, campaign, *, error="", award_form=None, awarded=None):
    """The GM's session controls; once a Pool session ended and nothing was awarded for it yet,
    the award form, pre-filled with the characters that rolled in it."""
    last = campaign.game_sessions.first()
    offer = (
        award_form is None
        and awarded is None
        and campaign.is_pool
        and last is not None
        and not last.is_open
        and not SparetimeEntry.objects.filter(session=last, kind=SparetimeEntry.AWARD).exists()
    )
    if offer:
        participants = services.session_participants(last).values_list("pk", flat=True)
        award_form = AwardForm(
            campaign=campaign, initial={"session": last.pk, "characters": list(participants)}
        )
    context = {"campaign": campaign, "last": last, "error": error, "awarded": awarded}
    context["award_form"] = award_form
    return render_to_string("rolls/_session.html", context, request=request)


def _session_change(request, campaign_id, service):
    campaign = campaign_for(request, campaign_id, gm=True)

    def write():
        _session, entry = service(campaign=campaign, by=request.user)
        _push_entry(entry)

    ok, error = _attempt(None, write)
    html = _session_html(request, campaign, error="" if ok else error)
    return _answer(request, campaign, ok=ok, html=html, piece="session")


@login_required
@require_POST
def session_start(request, campaign_id):
    return _session_change(request, campaign_id, services.session_start)


@login_required
@require_POST
def session_end(request, campaign_id):
    return _session_change(request, campaign_id, services.session_end)


@login_required
@require_POST
def session_award(request, campaign_id):
    campaign = campaign_for(request, campaign_id, gm=True)
    form = AwardForm(request.POST, campaign=campaign)

    def write():
        data = form.cleaned_data
        return sparetime_award(
            campaign=campaign,
            characters=data["characters"],
            amount=data["amount"],
            by=request.user,
            note=data["note"],
            session=data["session"],
        )

    ok, result = _attempt(form, write)
    if ok:
        html = _session_html(request, campaign, awarded=result)
    else:
        html = _session_html(request, campaign, error=result, award_form=form)
    return _answer(request, campaign, ok=ok, html=html, piece="session")


# Asking for checks ------------------------------------------------------------------------------


def _pool_names():
    """Every attribute and listed skill of the Pool sheet, for the suggestion's completion."""
    return [n for a in pool_sheet.ATTRIBUTES for n in (a, *pool_sheet.fixed_skills(a))]


def _ask_html(request, campaign, *, form=None, error="", created=""):
    context = {
        "campaign": campaign,
        "form": form or AskForm(campaign=campaign, auto_id="ask-%s"),
        "error": error,
        "created": created,
    }
    return render_to_string("rolls/_ask.html", context, request=request)


def _request_html(request, campaign, character, *, form=None, error="", created=""):
    context = {
        "campaign": campaign,
        "character": character,
        "form": form or RequestForm(campaign=campaign, auto_id=f"request-{character.pk}-%s"),
        "error": error,
        "created": created,
    }
    return render_to_string("rolls/_request.html", context, request=request)


def _new_check(request, campaign, form, create):
    """Validate ``form``, create the check with ``create(**form.about())``, push it to the GM
    and the owner. Returns (ok, the refusal's message or the new check's HTML for the viewer,
    inserted at the top of the checks)."""

    def write():
        check = _checks(campaign).get(pk=create(**form.about()).pk)
        _push_check(check, campaign, swap="new")
        return check

    ok, result = _attempt(form, write)
    if not ok:
        return False, result
    html = _check_html(result, campaign, request=request, swap="new", **_viewer(request, campaign))
    return True, html


@login_required
@require_POST
def check_ask(request, campaign_id):
    campaign = campaign_for(request, campaign_id, gm=True)
    form = AskForm(request.POST, campaign=campaign, auto_id="ask-%s")

    def create(**about):
        target = form.cleaned_data["target"]
        return services.check_ask(campaign=campaign, by=request.user, target=target, **about)

    ok, result = _new_check(request, campaign, form, create)
    if ok:
        html = _ask_html(request, campaign, created=result)
    else:
        html = _ask_html(request, campaign, form=form, error=result)
    return _answer(request, campaign, ok=ok, html=html, piece="ask")


@login_required
@require_POST
def check_request(request, campaign_id, character_id):
    campaign = campaign_for(request, campaign_id)
    character = get_object_or_404(Character, pk=character_id, campaign=campaign)
    if character.owner_id != request.user.pk:
        raise PermissionDenied("You can only ask for checks for your own characters.")
    form = RequestForm(request.POST, campaign=campaign, auto_id=f"request-{character.pk}-%s")

    def create(**about):
        return services.check_request(
            campaign=campaign, character=character, by=request.user, **about
        )

    ok, result = _new_check(request, campaign, form, create)
    if ok:
        html = _request_html(request, campaign, character, created=result)
    else:
        html = _request_html(request, campaign, character, form=form, error=result)
    return _answer(request, campaign, ok=ok, html=html, piece=f"request-{character.pk}")


# A check's fragment -----------------------------------------------------------------------------


def _check_html(
    check,
    campaign,
    *,
    user_id,
    is_gm,
    request=None,
    swap=None,
    roll_form=None,
    target_form=None,
    error="",
    last_roll=None,
):
    """The check as ``user_id`` sees it: who, what, the number, the note and the status; its
    owner's roll form while it is open; the GM's controls. ``swap`` ("new" or "update") marks
    it for an out-of-band swap when pushed. ``last_roll``: its latest roll, when known."""
    is_owner = check.character.owner_id == user_id
    context = {
        "check": check,
        "campaign": campaign,
        "is_gm": is_gm,
        "is_owner": is_owner,
        "swap": swap,
        "error": error,
        "number": "difficulty" if campaign.is_mana else "TN",
    }
    if is_owner and check.status == Check.OPEN:
        context["roll"] = _roll_context(check, campaign, form=roll_form)
    if is_gm and check.status == Check.REQUESTED:
        context["target_form"] = target_form or TargetForm(auto_id=f"target-{check.pk}-%s")
    if check.status == Check.SHIFT:
        context["proposal"] = _pool_preview(
            check,
            attribute=check.attribute,
            skill=check.skill,
            shift_d6=check.shift_d6,
            shift_d10=check.shift_d10,
        )
    if check.status in (Check.FAILED, Check.DONE):
        last = last_roll or check.rolls.order_by("-seq").first()
        context["last_roll"] = last
        context["closed"] = check.status == Check.DONE and (
            last is None or (campaign.is_mana and not last.data["success"])
        )
    return render_to_string("rolls/_check.html", context, request=request)


def _check_answer(request, campaign, check, write, *, form=None, show_form=None):
    """Run ``write()`` (which may return a new log entry) on ``check`` and push what changed:
    answer with the check's fragment for the viewer, or with the refusal (``show_form``:
    "roll_form" or "target_form", the form to show again with its errors)."""

    def run():
        result = write()
        entry = result if isinstance(result, LogEntry) else None
        # ``check`` holds its new state: the write read it again under its lock and changed it.
        _push_check(check, campaign, last_roll=entry, entry=entry)
        return check, entry

    ok, result = _attempt(form, run)
    viewer = _viewer(request, campaign)
    if ok:
        fresh, entry = result
        html = _check_html(fresh, campaign, request=request, last_roll=entry, **viewer)
    else:
        shown = {show_form: form} if show_form else {}
        html = _check_html(check, campaign, request=request, error=result, **shown, **viewer)
    return _answer(request, campaign, ok=ok, html=html, piece=f"check-{check.pk}")


@login_required
@require_POST
def check_set_target(request, campaign_id, check_id):
    campaign, check = _check_for(request, campaign_id, check_id, gm=True)
    form = TargetForm(request.POST, auto_id=f"target-{check.pk}-%s")

    def write():
        return services.check_set_target(check=check, target=form.cleaned_data["target"])

    return _check_answer(request, campaign, check, write, form=form, show_form="target_form")


@login_required
@require_POST
def check_answer_shift(request, campaign_id, check_id):
    campaign, check = _check_for(request, campaign_id, check_id, gm=True)
    answer = request.POST.get("answer")

    def write():
        if answer not in ("approve", "decline"):
            raise Refused("Approve or decline the shift.")
        return services.check_answer_shift(check=check, approve=answer == "approve")

    return _check_answer(request, campaign, check, write)


@login_required
@require_POST
def check_allow_reattempt(request, campaign_id, check_id):
    campaign, check = _check_for(request, campaign_id, check_id, gm=True)
    return _check_answer(
        request, campaign, check, lambda: services.check_allow_reattempt(check=check)
    )


@login_required
@require_POST
def check_cancel(request, campaign_id, check_id):
    campaign, check = _check_for(request, campaign_id, check_id, gm=True)
    return _check_answer(request, campaign, check, lambda: services.check_cancel(check=check))


# Rolling ----------------------------------------------------------------------------------------


def _mana_skills(check, campaign):
    """The skills the check may be rolled with: a re-attempt keeps the skill of the first."""
    skills = campaign.mana_skills.all()
    if check.mana_skill_id and check.rolls.exists():
        skills = skills.filter(pk=check.mana_skill_id)
    return skills


def _roll_form(check, campaign, data, *, skills=None, ratings=None):
    auto_id = f"roll-{check.pk}-%s"
    if campaign.is_mana:
        skills = _mana_skills(check, campaign) if skills is None else skills
        return ManaRollForm(data, skills=skills, auto_id=auto_id)
    return PoolRollForm(data, character=check.character, ratings=ratings, auto_id=auto_id)


@login_required
@require_POST
def check_roll(request, campaign_id, check_id):
    campaign, check = _check_for(request, campaign_id, check_id, owner=True)
    form = _roll_form(check, campaign, request.POST)

    def write():
        data = form.cleaned_data
        if campaign.is_mana:
            return services.check_roll_mana(
                check=check,
                by=request.user,
                skill=data["skill"],
                spend_a=data["spend_a"],
                spend_b=data["spend_b"],
                colorless=data["colorless"],
                intent=data["intent"],
            )
        return services.check_roll_pool(
            check=check,
            by=request.user,
            attribute=data["attribute"],
            skill=data["skill"],
            shift_d6=data["shift_d6"],
            shift_d10=data["shift_d10"],
            bonus_effect=data["bonus_effect"],
            intent=data["intent"],
        )

    return _check_answer(request, campaign, check, write, form=form, show_form="roll_form")


@login_required
@require_GET
def check_form(request, campaign_id, check_id):
    """The roll form again after the player picked another skill (Mana: its two colors) or
    attribute (Pool: its skills); what they typed is kept where it still applies."""
    campaign, check = _check_for(request, campaign_id, check_id, owner=True)
    if check.status != Check.OPEN:
        return HttpResponse('<p class="error">This check cannot be rolled now.</p>')
    context = {
        "campaign": campaign,
        "check": check,
        "roll": _roll_context(check, campaign, changed=request.GET),
    }
    return render(request, "rolls/_roll_form.html", context)


@login_required
@require_GET
def check_odds(request, campaign_id, check_id):
    """The live odds of the roll form's current values (or why they would be refused)."""
    campaign, check = _check_for(request, campaign_id, check_id, owner=True)
    if check.status != Check.OPEN:
        odds = {"error": "This check cannot be rolled now."}
    else:
        form = _roll_form(check, campaign, request.GET)
        if campaign.is_pool:
            odds = _pool_odds(check, form)  # what the form sent is all the odds need
        else:
            odds = _roll_context(check, campaign, form=form)["odds"]
    return render(request, "rolls/_odds.html", {"odds": odds})


def _chosen(rows, pk):
    """The row of ``rows`` whose pk is ``pk`` (as sent by a browser), or None."""
    return next((row for row in rows if str(row.pk) == str(pk)), None)


def _first_error(form):
    field, errors = next(iter(form.errors.items()))
    label = form[field].label if field in form.fields else None
    return f"{label}: {errors[0]}" if label else errors[0]


def _roll_context(check, campaign, *, form=None, changed=None):
    """What the roll form of an open check shows: its choices, values and live odds. ``form``
    is bound to what the player sent; without it the form starts from the check's suggestion,
    or from ``changed`` (the values sent when the player picked another skill or attribute)."""
    if campaign.is_mana:
        return _mana_roll(check, campaign, form, changed)
    return _pool_roll(check, campaign, form, changed)


def _mana_roll(check, campaign, form, changed):
    queryset = _mana_skills(check, campaign) if form is None else form.fields["skill"].queryset
    skills = list(queryset)
    if not skills:
        return {"skills": []}
    if form is None:
        data = _mana_data(check, skills, changed or {})
        form = _roll_form(check, campaign, data, skills=queryset)
    skill = _chosen(skills, form["skill"].value()) or skills[0]
    form.fields["spend_a"].label = skill.color_a.capitalize()
    form.fields["spend_b"].label = skill.color_b.capitalize()
    pools = {p.color: p for p in ManaPool.objects.filter(character=check.character)}
    shown = [
        (name, color, pools.get(color) or ManaPool(color=color))
        for name, color in (
            ("spend_a", skill.color_a),
            ("spend_b", skill.color_b),
            ("colorless", COLORLESS),
        )
    ]
    odds = {"pools": [p for _name, _color, p in shown]}
    if not form.is_valid():
        odds["error"] = _first_error(form)
    else:
        data = form.cleaned_data
        spend = {color: data[name] for name, color, _pool in shown}
        try:
            dice = services.mana_dice(
                check=check,
                skill=data["skill"],
                spend_a=data["spend_a"],
                spend_b=data["spend_b"],
                colorless=data["colorless"],
            )
            services.mana_require(spend, {color: p.current for color, p in pools.items()})
        except Refused as error:
            odds["error"] = str(error)
        else:
            odds["dice"] = dice.describe()
            odds["chance"] = mana.success_probability(dice.dice, check.target)
    return {
        "form": form,
        "skills": skills,
        "skill": skill,
        "inputs": [(form[name], p) for name, _color, p in shown],
        "odds": odds,
    }


def _mana_data(check, skills, changed):
    """The roll form's first values: the chosen skill (else the check's), the amounts typed for
    its colors (else 0), the colorless and the intent."""
    skill = _chosen(skills, changed.get("skill")) or _suggested_skill(check, skills)
    typed = {changed.get(f"color_{x}"): changed.get(f"spend_{x}") for x in "ab"}
    return {
        "skill": skill.pk,
        "color_a": skill.color_a,
        "color_b": skill.color_b,
        "spend_a": typed.get(skill.color_a) or 0,
        "spend_b": typed.get(skill.color_b) or 0,
        "colorless": changed.get("colorless", 0),
        "intent": changed.get("intent", check.intent),
    }


def _suggested_skill(check, skills):
    by_id = _chosen(skills, check.mana_skill_id)
    if by_id:
        return by_id
    text = check.suggestion.casefold()
    named = [s for s in skills if text and s.name.casefold() in text]
    return max(named, key=lambda s: len(s.name)) if named else skills[0]


def _pool_roll(check, campaign, form, changed):
    ratings = list(Rating.objects.filter(character=check.character))
    attributes = [r for r in ratings if r.is_attribute]
    if not attributes:
        return {"attributes": []}
    if form is None:
        data = _pool_data(check, ratings, changed)
        form = _roll_form(check, campaign, data, ratings=ratings)
    attribute = _chosen(attributes, form["attribute"].value()) or attributes[0]
    skills = [r for r in ratings if _skill_of(r, attribute)]
    inputs = [form["shift_d6"], form["shift_d10"]]
    return {
        "form": form,
        "attributes": attributes,
        "attribute": attribute,
        "skills": skills,
        "skill": _chosen(skills, form["skill"].value()),
        "inputs": inputs,
        "odds": _pool_odds(check, form),
    }


def _skill_of(rating, attribute):
    """Whether ``rating`` is a rollable skill of the attribute rating ``attribute``."""
    same = rating.attribute == attribute.attribute
    return same and rating.is_approved and not rating.is_attribute


def _pool_data(check, ratings, changed):
    """The roll form's first values: the picked attribute (else the one chosen before or named
    by the suggestion), its skill if still one of it, the shift and the texts."""
    attributes = [r for r in ratings if r.is_attribute]
    if changed:
        attribute = _chosen(attributes, changed.get("attribute")) or attributes[0]
        skill = _chosen([r for r in ratings if _skill_of(r, attribute)], changed.get("skill"))
    else:
        attribute, skill = _suggested_pool(check, ratings, attributes)
        changed = {}
    return {
        "attribute": attribute.pk,
        "skill": skill.pk if skill else "",
        "shift_d6": changed.get("shift_d6", 0),
        "shift_d10": changed.get("shift_d10", 0),
        "bonus_effect": changed.get("bonus_effect", ""),
        "intent": changed.get("intent", check.intent),
    }


def _suggested_pool(check, ratings, attributes):
    """(attribute, skill) chosen before on this check, else named by its suggestion (the
    longest name found in it), else the first attribute alone."""
    if check.attribute_id:
        attribute = _chosen(attributes, check.attribute_id)
        if attribute:
            skill = _chosen([r for r in ratings if _skill_of(r, attribute)], check.skill_id)
            return attribute, skill
    text = check.suggestion.casefold()
    named = [r for r in ratings if r.is_approved and text and r.label.casefold() in text]
    if not named:
        return attributes[0], None
    best = max(named, key=lambda r: len(r.label))
    attribute = next(a for a in attributes if a.attribute == best.attribute)
    return attribute, None if best.is_attribute else best


def _dice_text(d6, d10):
    return " + ".join(f"{n}{die}" for n, die in ((d6, "d6"), (d10, "d10")) if n)


def _pool_preview(check, *, attribute, skill, shift_d6, shift_d10):
    """The dice a Pool choice rolls ("3d6 + 2d10 (2d6 shifted)") and the chance, or why not."""
    try:
        d6, d10 = services.pool_dice(
            check=check, attribute=attribute, skill=skill, shift_d6=shift_d6, shift_d10=shift_d10
        )
    except Refused as error:
        return {"error": str(error)}
    dice = _dice_text(d6, d10)
    if shift_d6 or shift_d10:
        dice += f" ({_dice_text(shift_d6, shift_d10)} shifted)"
    return {"dice": dice, "chance": pool.success_probability(d6, d10, check.target)}


def _pool_odds(check, form):
    if not form.is_valid():
        return {"error": _first_error(form)}
    data = form.cleaned_data
    odds = _pool_preview(
        check,
        attribute=data["attribute"],
        skill=data["skill"],
        shift_d6=data["shift_d6"],
        shift_d10=data["shift_d10"],
    )
    if (data["shift_d6"] or data["shift_d10"]) and "error" not in odds:
        if data["bonus_effect"].strip():
            odds["hint"] = "The GM agrees to the shift (or not) before the dice are rolled."
        else:
            odds["hint"] = "Name the bonus effect the shifted dice are for."
    return odds
