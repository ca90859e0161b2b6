"""Character sheets: creation, the sheet page and its htmx sections, and the GM's fragments for
custom-skill approvals and mana pools.

The sheet page is made of sections (``_sheet_header.html``, ``_sheet_pool.html``,
``_sheet_mana.html``). Every write runs through ``core.writes.attempt`` and is answered by
``core.writes.answer``: htmx gets the section re-rendered (422 and the refusal when refused,
nothing changed), a plain form post a redirect to the sheet (or the sheet with the refusal,
200). The GM's fragments answer htmx with themselves, and a plain post with the GM panel.

A write that changes a character's facts (HP, ratings, traits, its name; its mana pools) also
sends a facts push once committed (``core.push.with_facts``): every other page showing them
renders its pieces again (the sections here listen for ``facts-<id>``), and so does the party
(``party``, ``sheets/party.py``).
"""

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from campaigns.access import campaign_for, can_edit, sees_private
from campaigns.models import Campaign
from campaigns.views import members_of, panel_page
from core.push import with_facts
from core.writes import answer, attempt
from rules import sheet as pool_sheet

from . import services
from .access import character_for
from .forms import (
    CharacterCreateForm,
    CharacterForm,
    HandOverForm,
    HpForm,
    ManaMaximaForm,
    RatingForm,
    SkillProposalForm,
    TemplateSkillForm,
    TraitsForm,
)
from .models import ManaPool, Rating
from .party import party_context

POOL, MANA = Campaign.POOL, Campaign.MANA
SECTIONS = {
    "header": "sheets/_sheet_header.html",
    "pool": "sheets/_sheet_pool.html",
    "mana": "sheets/_sheet_mana.html",
}


# The sheet's sections -------------------------------------------------------------------------


def _skill_order(seed_skills):
    """Sort key: the rules' skills in the rules' order, then taken and custom ones by name."""
    position = {skill: i for i, skill in enumerate(seed_skills)}
    return lambda r: (position.get(r.skill, len(position)), r.skill.casefold())


def _pool_attributes(ratings):
    """[{"name", "rating", "skills", "templates"}] per attribute, in the rules' order."""
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
                {
                    "template": t,
                    "blank": pool_sheet.template_blank(t),
                    "label": pool_sheet.template_label(t),
                    "example": pool_sheet.template_example(t),
                }
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
        "can_edit": can_edit(campaign, character),
        # Mana pools and sparetime: its player's and the GM's alone (``sees_private``).
        "sees_private": sees_private(campaign, character),
    }
    if section in (None, "header"):
        context["header_form"] = CharacterForm(instance=character)
        if context["is_gm"] and character.owner_id == campaign.viewer.user_id:
            context["hand_over_form"] = HandOverForm(
                campaign=campaign, auto_id=f"hand-over-{character.pk}-%s"
            )
    if section in (None, "pool") and campaign.is_pool:
        context["attributes"] = _pool_attributes(character.ratings.all())
        context["hp_max"] = character.hp_max
    if section in (None, "mana") and campaign.is_mana:
        context["mana_skills"] = [
            (skill, character.has_trait(skill.trait)) for skill in campaign.mana_skills.all()
        ]
        if context["sees_private"]:
            context["mana_pools"] = _mana_pools(campaign, character.mana.all())
        context["traits_form"] = TraitsForm(initial={"traits": ", ".join(character.traits)})
    context.update(overrides)
    return context


def _section_pieces(request, campaign, character, section, **overrides):
    """``answer``'s pieces for a write on the sheet: ``section`` re-rendered for htmx, the sheet
    for a plain post; ``overrides`` (``<section>_error``, a refused form) go into both."""
    return {
        "fragment": lambda: render_to_string(
            SECTIONS[section],
            _sheet_context(request, campaign, character, section=section, **overrides),
            request=request,
        ),
        "page": lambda: render(
            request, "sheets/detail.html", _sheet_context(request, campaign, character, **overrides)
        ),
        "url": reverse("character_detail", args=[campaign.id, character.id]),
    }


def _error_text(form):
    parts = []
    for name, errors in form.errors.items():
        field = form.fields.get(name)
        text = " ".join(errors)
        parts.append(f"{field.label or name.capitalize()}: {text}" if field else text)
    return " ".join(parts)


def _refusal(ok, refusal, form):
    """What a section shows after a write: nothing when it went through, else the service's
    sentence or the form's errors as one."""
    if ok:
        return None
    return refusal or _error_text(form)


# Sheet views ----------------------------------------------------------------------------------


@login_required
@require_GET
def campaign_detail(request, campaign_id):
    """The campaign page: its members, and its party as its viewer may see it."""
    campaign = campaign_for(request, campaign_id)
    context = {"campaign": campaign, "members": members_of(campaign), **party_context(campaign)}
    return render(request, "campaigns/detail.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def character_create(request, campaign_id):
    campaign = campaign_for(request, campaign_id)
    form = CharacterCreateForm(request.POST or None, campaign=campaign)
    context = {"campaign": campaign, "form": form}
    template = "sheets/character_create.html"
    if request.method == "GET":
        return render(request, template, context)

    def create():
        fields = dict(form.cleaned_data)
        owner = fields.pop("owner", None) or request.user
        return services.character_create(campaign=campaign, owner=owner, **fields)

    # The party gains a row: its pages fetch it again.
    ok, character = attempt(with_facts(create, campaign, lambda new: [new]), form=form)
    return answer(
        request,
        ok=ok,
        fragment=lambda: render_to_string(template, context, request=request),
        page=lambda: render(request, template, context),
        url=reverse("character_detail", args=[campaign.id, character.id]) if ok else None,
    )


@login_required
@require_GET
def character_detail(request, campaign_id, character_id):
    """The sheet page; htmx may ask for one section with ``?section=header|pool|mana``."""
    campaign, character = character_for(request, campaign_id, character_id)
    section = request.GET.get("section")
    if request.htmx and section in ("header", "pool" if campaign.is_pool else "mana"):
        context = _sheet_context(request, campaign, character, section=section)
        return render(request, SECTIONS[section], context)
    return render(request, "sheets/detail.html", _sheet_context(request, campaign, character))


@login_required
@require_GET
def party(request, campaign_id):
    """The party (``sheets/_party.html``): what the campaign page and the room show of it, for
    htmx to fetch again when a character's facts changed."""
    campaign = campaign_for(request, campaign_id)
    return render(request, "sheets/_party.html", party_context(campaign))


@login_required
@require_POST
def character_edit(request, campaign_id, character_id):
    campaign, character = character_for(request, campaign_id, character_id, edit=True)
    form = CharacterForm(request.POST, instance=character)

    def save():
        form.save(commit=False)
        character.save(update_fields=CharacterForm.Meta.fields)

    ok, _ = attempt(with_facts(save, campaign, [character]), form=form)
    if not ok:
        character.refresh_from_db(fields=CharacterForm.Meta.fields)  # undo the form's copy
    refused = {} if ok else {"header_form": form}
    return answer(
        request, ok=ok, **_section_pieces(request, campaign, character, "header", **refused)
    )


@login_required
@require_POST
def character_hand_over(request, campaign_id, character_id):
    """The GM hands one of their characters (an NPC) to a player."""
    campaign, character = character_for(request, campaign_id, character_id, gm=True)
    form = HandOverForm(request.POST, campaign=campaign)
    ok, refusal = attempt(
        lambda: services.character_hand_over(
            campaign=campaign, character=character, to=form.cleaned_data["to"]
        ),
        form=form,
    )
    error = _refusal(ok, refusal, form)
    return answer(
        request,
        ok=ok,
        **_section_pieces(request, campaign, character, "header", hand_over_error=error),
    )


@login_required
@require_POST
def character_hp(request, campaign_id, character_id):
    campaign, character = character_for(request, campaign_id, character_id, edit=True, system=POOL)
    form = HpForm(request.POST, hp_max=character.hp_max)
    ok, refusal = attempt(
        with_facts(
            lambda: character.set_hp_current(form.cleaned_data["hp_current"]),
            campaign,
            [character],
        ),
        form=form,
    )
    error = _refusal(ok, refusal, form)
    return answer(
        request, ok=ok, **_section_pieces(request, campaign, character, "pool", pool_error=error)
    )


@login_required
@require_POST
def character_traits(request, campaign_id, character_id):
    campaign, character = character_for(request, campaign_id, character_id, gm=True, system=MANA)
    form = TraitsForm(request.POST)
    ok, refusal = attempt(
        with_facts(
            lambda: character.set_traits(form.cleaned_data["traits"]), campaign, [character]
        ),
        form=form,
    )
    error = _refusal(ok, refusal, form)
    return answer(
        request, ok=ok, **_section_pieces(request, campaign, character, "mana", mana_error=error)
    )


@login_required
@require_POST
def rating_set(request, campaign_id, character_id, rating_id):
    campaign, character = character_for(request, campaign_id, character_id, gm=True, system=POOL)
    rating = get_object_or_404(Rating, pk=rating_id, character=character)
    rating.character = character
    form = RatingForm(request.POST)
    ok, refusal = attempt(
        with_facts(
            lambda: services.rating_set(rating=rating, value=form.cleaned_data["value"]),
            campaign,
            [character],
        ),
        form=form,
    )
    error = _refusal(ok, refusal, form)
    return answer(
        request, ok=ok, **_section_pieces(request, campaign, character, "pool", pool_error=error)
    )


@login_required
@require_POST
def skill_take(request, campaign_id, character_id):
    campaign, character = character_for(request, campaign_id, character_id, edit=True, system=POOL)
    form = TemplateSkillForm(request.POST)
    ok, refusal = attempt(
        with_facts(
            lambda: services.skill_take(character=character, **form.cleaned_data),
            campaign,
            [character],
        ),
        form=form,
    )
    error = _refusal(ok, refusal, form)
    return answer(
        request, ok=ok, **_section_pieces(request, campaign, character, "pool", pool_error=error)
    )


@login_required
@require_POST
def skill_propose(request, campaign_id, character_id):
    campaign, character = character_for(request, campaign_id, character_id, edit=True, system=POOL)
    form = SkillProposalForm(request.POST)
    ok, refusal = attempt(
        with_facts(
            lambda: services.skill_propose(character=character, **form.cleaned_data),
            campaign,
            [character],
        ),
        form=form,
    )
    error = _refusal(ok, refusal, form)
    return answer(
        request, ok=ok, **_section_pieces(request, campaign, character, "pool", pool_error=error)
    )


# The GM's fragments ---------------------------------------------------------------------------


def _gm_pieces(request, campaign, name, html):
    """``answer``'s pieces for a write on one of the GM's fragments: ``html()`` for htmx, the GM
    panel with it in place of its section ``name`` for a plain post."""
    return {
        "fragment": html,
        "page": lambda: panel_page(request, campaign, sections={name: html()}),
        "url": reverse("gm_panel", args=[campaign.id]),
    }


# GM: custom-skill approvals -------------------------------------------------------------------


def _approvals_html(request, campaign, error=None):
    pending = (
        Rating.objects.filter(character__campaign=campaign, custom=True, status=Rating.PENDING)
        .select_related("character__owner")
        .order_by("character__name", "character_id", "attribute", "skill")
    )
    context = {"campaign": campaign, "pending": pending, "approvals_error": error}
    return render_to_string("sheets/_gm_approvals.html", context, request=request)


@login_required
@require_GET
def gm_approvals(request, campaign_id):
    campaign = campaign_for(request, campaign_id, gm=True, system=POOL)
    return HttpResponse(_approvals_html(request, campaign))


def _decide(request, campaign_id, rating_id, *, approve):
    campaign = campaign_for(request, campaign_id, gm=True, system=POOL)
    rating = get_object_or_404(
        Rating.objects.select_related("character"),
        pk=rating_id,
        character__campaign=campaign,
        custom=True,
    )
    ok, refusal = attempt(
        with_facts(
            lambda: services.skill_decide(rating=rating, approve=approve),
            campaign,
            [rating.character],
        )
    )
    error = None if ok else refusal
    pieces = _gm_pieces(
        request, campaign, "approvals", lambda: _approvals_html(request, campaign, error)
    )
    return answer(request, ok=ok, **pieces)


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


def _mana_html(request, campaign, *, error=None, bound=None):
    """The mana fragment; ``bound`` is the refused maxima form, shown with ``error``."""
    rows = []
    for character in campaign.characters.select_related("owner").prefetch_related("mana"):
        pools = _mana_pools(campaign, character.mana.all())
        form = _maxima_form(character, pools)
        if bound is not None and bound.prefix == form.prefix:
            form = bound
        rows.append({"character": character, "pools": [(p, form[p.color]) for p in pools]})
    context = {"campaign": campaign, "rows": rows, "mana_error": error}
    return render_to_string("sheets/_gm_mana.html", context, request=request)


def _mana_pieces(request, campaign, **refused):
    return _gm_pieces(request, campaign, "mana", lambda: _mana_html(request, campaign, **refused))


@login_required
@require_GET
def gm_mana(request, campaign_id):
    campaign = campaign_for(request, campaign_id, gm=True, system=MANA)
    return HttpResponse(_mana_html(request, campaign))


@login_required
@require_POST
def mana_maxima(request, campaign_id, character_id):
    campaign, character = character_for(request, campaign_id, character_id, gm=True, system=MANA)
    pools = _mana_pools(campaign, character.mana.all())
    form = _maxima_form(character, pools, request.POST)
    ok, refusal = attempt(
        with_facts(
            lambda: services.mana_set_maxima(character=character, maxima=form.cleaned_data),
            campaign,
            [character],
            private=True,
        ),
        form=form,
    )
    if ok:
        pieces = _mana_pieces(request, campaign)
    else:
        error = f"{character.name}: {_refusal(ok, refusal, form)}"
        pieces = _mana_pieces(request, campaign, error=error, bound=form)
    return answer(request, ok=ok, **pieces)


@login_required
@require_POST
def mana_refill_one(request, campaign_id, character_id):
    campaign, character = character_for(request, campaign_id, character_id, gm=True, system=MANA)
    ok, _ = attempt(
        with_facts(
            lambda: services.mana_refill(campaign=campaign, character=character),
            campaign,
            [character],
            private=True,
        )
    )
    return answer(request, ok=ok, **_mana_pieces(request, campaign))


@login_required
@require_POST
def mana_refill_all(request, campaign_id):
    campaign = campaign_for(request, campaign_id, gm=True, system=MANA)
    ok, _ = attempt(
        with_facts(
            lambda: services.mana_refill(campaign=campaign),
            campaign,
            campaign.characters.all(),  # read once committed
            private=True,
        )
    )
    return answer(request, ok=ok, **_mana_pieces(request, campaign))
