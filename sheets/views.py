"""Character sheets: creation, the sheet page and its htmx sections, and the GM's fragments for
custom-skill approvals and mana pools.

The sheet page is made of sections (``_sheet_header.html``, ``_sheet_pool.html``,
``_sheet_mana.html``); every action answers htmx with its section re-rendered (422 and an error
when refused, nothing changed) and a plain form post with a redirect to the sheet (or the sheet
with the error, 200). The GM fragments always answer with themselves.
"""

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from campaigns.access import campaign_for
from campaigns.models import Campaign
from campaigns.writes import Refused
from rolls.rules import sheet as pool_sheet

from . import services
from .forms import (
    CharacterForm,
    HpForm,
    ManaMaximaForm,
    RatingForm,
    SkillProposalForm,
    TemplateSkillForm,
    TraitsForm,
)
from .models import Character, ManaPool, Rating

SECTIONS = {
    "header": "sheets/_sheet_header.html",
    "pool": "sheets/_sheet_pool.html",
    "mana": "sheets/_sheet_mana.html",
}


# Access ---------------------------------------------------------------------------------------


def _require_system(campaign, system):
    if campaign.system != system:
        raise Http404(f"This campaign does not play {dict(Campaign.SYSTEMS)[system]}.")


def _sheet_for(request, campaign_id, character_id, *, gm=False, edit=False, system=None):
    """(campaign, character): 404 outside the campaign, for the wrong system or for a player
    asking for the GM's NPC; 403 for a player doing a GM action or (``edit``) changing another
    player's character."""
    campaign = campaign_for(request, campaign_id, gm=gm)
    if system is not None:
        _require_system(campaign, system)
    character = get_object_or_404(
        Character.objects.visible_to(campaign).select_related("owner"), pk=character_id
    )
    character.campaign = campaign
    if edit and not _can_edit(campaign, character, request.user):
        raise PermissionDenied("Only the character's owner and the GM can change this sheet.")
    return campaign, character


def _can_edit(campaign, character, user):
    return campaign.viewer.is_gm or character.owner_id == user.pk


# The sheet's sections -------------------------------------------------------------------------


def _skill_order(seed_skills):
    """Sort key: the seed's skills in the seed's order, then taken and custom ones by name."""
    position = {skill: i for i, skill in enumerate(seed_skills)}
    return lambda r: (position.get(r.skill, len(position)), r.skill.casefold())


def _pool_attributes(ratings):
    """[{"name", "rating", "skills", "templates"}] per attribute, in the seed's order."""
    rows, skills = {}, {attribute: [] for attribute in pool_sheet.ATTRIBUTES}
    for rating in ratings:
        if rating.is_attribute:
            rows[rating.attribute] = rating
        else:
            skills[rating.attribute].append(rating)
    return [
        {
            "name": attribute,
            "rating": rows.get(attribute),
            "skills": sorted(skills[attribute], key=_skill_order(seed)),
            "templates": [
                {"template": t, "blank": pool_sheet.template_blank(t)}
                for t in pool_sheet.templates(attribute)
            ],
        }
        for attribute, seed in pool_sheet.ATTRIBUTES.items()
    ]


def _mana_pools(campaign, pools):
    """One pool per color of the campaign, in palette order; a color without a row shows 0/0."""
    by_color = {pool.color: pool for pool in pools}
    return [by_color.get(c) or ManaPool(color=c) for c in services.mana_colors(campaign)]


def _sheet_context(request, campaign, character, *, section=None, **overrides):
    """The context of one section, or of the whole page when ``section`` is None."""
    context = {
        "campaign": campaign,
        "character": character,
        "is_gm": campaign.viewer.is_gm,
        "can_edit": _can_edit(campaign, character, request.user),
    }
    if section in (None, "header"):
        context["header_form"] = CharacterForm(instance=character)
    if section in (None, "pool") and campaign.is_pool:
        context["attributes"] = _pool_attributes(character.ratings.all())
        context["hp_max"] = character.hp_max
    if section in (None, "mana") and campaign.is_mana:
        context["mana_skills"] = [
            (skill, character.has_trait(skill.trait)) for skill in campaign.mana_skills.all()
        ]
        context["mana_pools"] = _mana_pools(campaign, character.mana.all())
        context["traits_form"] = TraitsForm(initial={"traits": ", ".join(character.traits)})
    context.update(overrides)
    return context


def _sheet_answer(request, campaign, character, section, *, ok=True, **overrides):
    if request.htmx:
        context = _sheet_context(request, campaign, character, section=section, **overrides)
        return render(request, SECTIONS[section], context, status=200 if ok else 422)
    if ok:
        return redirect("character_detail", campaign.id, character.id)
    context = _sheet_context(request, campaign, character, **overrides)
    return render(request, "sheets/detail.html", context)


def _error_text(form):
    parts = []
    for name, errors in form.errors.items():
        field = form.fields.get(name)
        text = " ".join(errors)
        parts.append(f"{field.label or name.capitalize()}: {text}" if field else text)
    return " ".join(parts)


def _run(form, action):
    """``action(cleaned_data)`` if ``form`` is valid; the error text if anything refused."""
    if not form.is_valid():
        return _error_text(form)
    try:
        action(form.cleaned_data)
    except Refused as refused:
        return str(refused)
    return None


def _submit(request, campaign, character, section, form, action):
    """Run a sheet action and answer with ``section`` (its error as ``<section>_error``)."""
    error = _run(form, action)
    return _sheet_answer(
        request, campaign, character, section, ok=error is None, **{f"{section}_error": error}
    )


# Sheet views ----------------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def character_create(request, campaign_id):
    campaign = campaign_for(request, campaign_id)
    form = CharacterForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        character = services.character_create(
            campaign=campaign, owner=request.user, **form.cleaned_data
        )
        return redirect("character_detail", campaign.id, character.id)
    return render(request, "sheets/character_create.html", {"campaign": campaign, "form": form})


@login_required
@require_GET
def character_detail(request, campaign_id, character_id):
    """The sheet page; htmx may ask for one section with ``?section=header|pool|mana``."""
    campaign, character = _sheet_for(request, campaign_id, character_id)
    section = request.GET.get("section")
    if request.htmx and section in ("header", "pool" if campaign.is_pool else "mana"):
        context = _sheet_context(request, campaign, character, section=section)
        return render(request, SECTIONS[section], context)
    return render(request, "sheets/detail.html", _sheet_context(request, campaign, character))


@login_required
@require_POST
def character_edit(request, campaign_id, character_id):
    campaign, character = _sheet_for(request, campaign_id, character_id, edit=True)
    form = CharacterForm(request.POST, instance=character)
    if not form.is_valid():
        character.refresh_from_db(fields=CharacterForm.Meta.fields)  # undo the form's copy
        return _sheet_answer(request, campaign, character, "header", ok=False, header_form=form)
    form.save(commit=False)
    character.save(update_fields=CharacterForm.Meta.fields)
    return _sheet_answer(request, campaign, character, "header")


@login_required
@require_POST
def character_hp(request, campaign_id, character_id):
    campaign, character = _sheet_for(
        request, campaign_id, character_id, edit=True, system=Campaign.POOL
    )
    form = HpForm(request.POST, hp_max=character.hp_max)
    return _submit(
        request,
        campaign,
        character,
        "pool",
        form,
        lambda data: character.set_hp_current(data["hp_current"]),
    )


@login_required
@require_POST
def character_traits(request, campaign_id, character_id):
    campaign, character = _sheet_for(
        request, campaign_id, character_id, gm=True, system=Campaign.MANA
    )
    form = TraitsForm(request.POST)
    return _submit(
        request,
        campaign,
        character,
        "mana",
        form,
        lambda data: character.set_traits(data["traits"]),
    )


@login_required
@require_POST
def rating_set(request, campaign_id, character_id, rating_id):
    campaign, character = _sheet_for(
        request, campaign_id, character_id, gm=True, system=Campaign.POOL
    )
    rating = get_object_or_404(Rating, pk=rating_id, character=character)
    rating.character = character
    form = RatingForm(request.POST)
    return _submit(
        request,
        campaign,
        character,
        "pool",
        form,
        lambda data: services.rating_set(rating=rating, value=data["value"]),
    )


@login_required
@require_POST
def skill_take(request, campaign_id, character_id):
    campaign, character = _sheet_for(
        request, campaign_id, character_id, edit=True, system=Campaign.POOL
    )
    form = TemplateSkillForm(request.POST)
    return _submit(
        request,
        campaign,
        character,
        "pool",
        form,
        lambda data: services.skill_take(character=character, **data),
    )


@login_required
@require_POST
def skill_propose(request, campaign_id, character_id):
    campaign, character = _sheet_for(
        request, campaign_id, character_id, edit=True, system=Campaign.POOL
    )
    form = SkillProposalForm(request.POST)
    return _submit(
        request,
        campaign,
        character,
        "pool",
        form,
        lambda data: services.skill_propose(character=character, **data),
    )


# GM: custom-skill approvals -------------------------------------------------------------------


def _gm_campaign(request, campaign_id, system):
    campaign = campaign_for(request, campaign_id, gm=True)
    _require_system(campaign, system)
    return campaign


def _approvals_answer(request, campaign, error=None):
    pending = (
        Rating.objects.filter(character__campaign=campaign, custom=True, status=Rating.PENDING)
        .select_related("character__owner")
        .order_by("character__name", "character_id", "attribute", "skill")
    )
    context = {"campaign": campaign, "pending": pending, "approvals_error": error}
    status = 200 if error is None else 422
    return render(request, "sheets/_gm_approvals.html", context, status=status)


@login_required
@require_GET
def gm_approvals(request, campaign_id):
    return _approvals_answer(request, _gm_campaign(request, campaign_id, Campaign.POOL))


def _decide(request, campaign_id, rating_id, *, approve):
    campaign = _gm_campaign(request, campaign_id, Campaign.POOL)
    rating = get_object_or_404(Rating, pk=rating_id, character__campaign=campaign, custom=True)
    try:
        services.skill_decide(rating=rating, approve=approve)
    except Refused as refused:
        return _approvals_answer(request, campaign, str(refused))
    return _approvals_answer(request, campaign)


@login_required
@require_POST
def skill_approve(request, campaign_id, rating_id):
    return _decide(request, campaign_id, rating_id, approve=True)


@login_required
@require_POST
def skill_decline(request, campaign_id, rating_id):
    return _decide(request, campaign_id, rating_id, approve=False)


# GM: mana pools -------------------------------------------------------------------------------


def _maxima_form(character, pools, data=None):
    """The GM's form for ``character``'s maxima, one field per pool color."""
    return ManaMaximaForm(
        data,
        colors=[pool.color for pool in pools],
        initial={pool.color: pool.maximum for pool in pools},
        prefix=f"c{character.id}",
    )


def _mana_answer(request, campaign, *, error=None, bound=None):
    """The mana fragment; ``bound`` is the refused maxima form, shown with ``error``."""
    rows = []
    for character in campaign.characters.select_related("owner").prefetch_related("mana"):
        pools = _mana_pools(campaign, character.mana.all())
        form = _maxima_form(character, pools)
        if bound is not None and bound.prefix == form.prefix:
            form = bound
        rows.append({"character": character, "pools": [(p, form[p.color]) for p in pools]})
    context = {"campaign": campaign, "rows": rows, "mana_error": error}
    status = 200 if error is None else 422
    return render(request, "sheets/_gm_mana.html", context, status=status)


@login_required
@require_GET
def gm_mana(request, campaign_id):
    return _mana_answer(request, _gm_campaign(request, campaign_id, Campaign.MANA))


@login_required
@require_POST
def mana_maxima(request, campaign_id, character_id):
    campaign, character = _sheet_for(
        request, campaign_id, character_id, gm=True, system=Campaign.MANA
    )
    pools = _mana_pools(campaign, character.mana.all())
    form = _maxima_form(character, pools, request.POST)
    error = _run(form, lambda data: services.mana_set_maxima(character=character, maxima=data))
    if error is None:
        return _mana_answer(request, campaign)
    return _mana_answer(request, campaign, error=f"{character.name}: {error}", bound=form)


@login_required
@require_POST
def mana_refill_one(request, campaign_id, character_id):
    campaign, character = _sheet_for(
        request, campaign_id, character_id, gm=True, system=Campaign.MANA
    )
    services.mana_refill(campaign=campaign, character=character)
    return _mana_answer(request, campaign)


@login_required
@require_POST
def mana_refill_all(request, campaign_id):
    campaign = _gm_campaign(request, campaign_id, Campaign.MANA)
    services.mana_refill(campaign=campaign)
    return _mana_answer(request, campaign)
