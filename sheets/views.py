"""Character sheets: creation, the sheet page and its htmx sections, and the GM's fragments for
custom-skill approvals and mana pools.

The sheet page is made of sections: the header (``_sheet_header.html``) and those the campaign's
system names (its ``sheet_sections``: ``_sheet_pool.html``, ``_sheet_mana.html``; their context
its ``sheet.section_context``). Every write runs through ``core.writes.attempt`` and is answered by
``core.writes.answer``: htmx gets the section re-rendered (422 and the refusal when refused,
nothing changed), a plain form post a redirect to the sheet (or the sheet with the refusal,
200). The GM's fragments answer htmx with themselves, and a plain post with the GM panel.

A write that changes a character's facts (HP, ratings, traits, its name; its mana pools) also
sends a facts push once committed (``core.push.with_facts``): every other page showing them
renders its pieces again (the sections here listen for ``facts-<id>``), and so does the party
(``party``, ``sheets/party.py``).
"""

from functools import partial

from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from campaigns.access import campaign_for, can_edit, sees_private
from campaigns.systems import system_of
from campaigns.views import members_of, panel_with, placed
from core.pieces import Piece
from core.push import with_facts
from core.writes import answer, attempt

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

# The sheet's sections -------------------------------------------------------------------------


def _mana_pools(campaign, pools):
    """One pool per color of the campaign, in palette order; a color without a row shows 0/0."""
    by_color = {pool.color: pool for pool in pools}
    return [by_color.get(c) or ManaPool(color=c) for c in services.mana_colors(campaign)]


def _sheet_context(request, campaign, character, *, section=None, **overrides):
    """The context of one section, or of the whole page when ``section`` is None."""
    context = {
        "campaign": campaign,
        "system": system_of(campaign),
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
    # The campaign's system's sections (its ``sheet_sections``; their context its sheet's).
    context.update(
        context["system"].sheet.section_context(
            campaign, character, section, private=context["sees_private"]
        )
    )
    context.update(overrides)
    return context


def _sheet_page(request, context, replace):
    """The sheet page, with ``replace``'s HTML in place of the sections it names."""
    page = _sheet_context(request, context["campaign"], context["character"])
    return _render_sheet(request, page, replace)


def _render_sheet(request, context, replace=None):
    """The sheet page of ``context`` (the whole sheet's), ``replace`` as in ``_sheet_page``."""
    replace = replace or {}
    sections = placed(context["system"].sheet_sections, replace)
    context = {**context, "replace": replace, "system_sections": sections}
    return render(request, "sheets/detail.html", context)


#: The sheet's sections: their GET is ``character_detail`` with ``?section=<name>``.
SECTIONS = {
    name: Piece(
        name=name,
        template=f"sheets/_sheet_{name}.html",
        context=partial(_sheet_context, section=name),
        page=_sheet_page,
        url="character_detail",
    )
    for name in ("header", "pool", "mana")
}


def _sheet_names(campaign):
    """The sections the sheet of ``campaign``'s characters has: the header, its system's."""
    return {"header", *(name for name, _template in system_of(campaign).sheet_sections)}


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
    if request.htmx and section in SECTIONS and section in _sheet_names(campaign):
        return SECTIONS[section].get(request, campaign, character)
    return _render_sheet(request, _sheet_context(request, campaign, character))


@login_required
@require_GET
def party(request, campaign_id):
    """The party (``sheets/_party.html``): what the campaign page and the room show of it, for
    htmx to fetch again when a character's facts changed."""
    campaign = campaign_for(request, campaign_id)
    return render(request, "sheets/_party.html", party_context(campaign))


def _section_write(request, campaign, character, section, form, write):
    """Run ``write`` (a change of ``character``'s facts) when ``form`` is valid, and answer with
    the sheet's ``section``, the refusal in its ``<section>_error``."""
    ok, refusal = attempt(with_facts(write, campaign, [character]), form=form)
    error = {f"{section}_error": _refusal(ok, refusal, form)}
    return SECTIONS[section].answer(request, campaign, character, ok=ok, **error)


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
    return SECTIONS["header"].answer(request, campaign, character, ok=ok, **refused)


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
    return SECTIONS["header"].answer(request, campaign, character, ok=ok, hand_over_error=error)


@login_required
@require_POST
def character_hp(request, campaign_id, character_id, system):
    campaign, character = character_for(
        request, campaign_id, character_id, edit=True, system=system
    )
    form = HpForm(request.POST, hp_max=character.hp_max)
    return _section_write(
        request,
        campaign,
        character,
        "pool",
        form,
        lambda: character.set_hp_current(form.cleaned_data["hp_current"]),
    )


@login_required
@require_POST
def character_traits(request, campaign_id, character_id, system):
    campaign, character = character_for(request, campaign_id, character_id, gm=True, system=system)
    form = TraitsForm(request.POST)
    return _section_write(
        request,
        campaign,
        character,
        "mana",
        form,
        lambda: character.set_traits(form.cleaned_data["traits"]),
    )


@login_required
@require_POST
def rating_set(request, campaign_id, character_id, rating_id, system):
    campaign, character = character_for(request, campaign_id, character_id, gm=True, system=system)
    rating = get_object_or_404(Rating, pk=rating_id, character=character)
    rating.character = character
    form = RatingForm(request.POST)
    return _section_write(
        request,
        campaign,
        character,
        "pool",
        form,
        lambda: services.rating_set(rating=rating, value=form.cleaned_data["value"]),
    )


@login_required
@require_POST
def skill_take(request, campaign_id, character_id, system):
    campaign, character = character_for(
        request, campaign_id, character_id, edit=True, system=system
    )
    form = TemplateSkillForm(request.POST)
    return _section_write(
        request,
        campaign,
        character,
        "pool",
        form,
        lambda: services.skill_take(character=character, **form.cleaned_data),
    )


@login_required
@require_POST
def skill_propose(request, campaign_id, character_id, system):
    campaign, character = character_for(
        request, campaign_id, character_id, edit=True, system=system
    )
    form = SkillProposalForm(request.POST)
    return _section_write(
        request,
        campaign,
        character,
        "pool",
        form,
        lambda: services.skill_propose(character=character, **form.cleaned_data),
    )


# The GM's fragments ---------------------------------------------------------------------------


def _gm_access(request, campaign_id, system):
    """A GM fragment's ``found``: its system's URLs give ``system`` (``config/urls.py``)."""
    return (campaign_for(request, campaign_id, gm=True, system=system),)


# GM: custom-skill approvals -------------------------------------------------------------------


def _approvals_context(request, campaign, error=None):
    pending = (
        Rating.objects.filter(character__campaign=campaign, custom=True, status=Rating.PENDING)
        .select_related("character__owner")
        .order_by("character__name", "character_id", "attribute", "skill")
    )
    return {"campaign": campaign, "pending": pending, "approvals_error": error}


APPROVALS = Piece(
    name="approvals",
    template="sheets/_gm_approvals.html",
    context=_approvals_context,
    page=panel_with,
    url="gm_panel",
    access=_gm_access,
    fragment_only=True,
)
gm_approvals = APPROVALS.view()


def _decide(request, campaign_id, rating_id, *, approve, system):
    campaign = campaign_for(request, campaign_id, gm=True, system=system)
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
    return APPROVALS.answer(request, campaign, ok=ok, error=None if ok else refusal)


@login_required
@require_POST
def skill_approve(request, campaign_id, rating_id, system):
    return _decide(request, campaign_id, rating_id, approve=True, system=system)


@login_required
@require_POST
def skill_decline(request, campaign_id, rating_id, system):
    return _decide(request, campaign_id, rating_id, approve=False, system=system)


# GM: mana pools -------------------------------------------------------------------------------


def _maxima_form(character, pools, data=None):
    """The GM's form for ``character``'s maxima, one field per pool color."""
    return ManaMaximaForm(
        data,
        colors=[pool.color for pool in pools],
        initial={pool.color: pool.maximum for pool in pools},
        prefix=f"c{character.id}",
    )


def _mana_context(request, campaign, *, error=None, bound=None):
    """The mana card's; ``bound`` is the refused maxima form, shown with ``error``."""
    rows = []
    for character in campaign.characters.select_related("owner").prefetch_related("mana"):
        pools = _mana_pools(campaign, character.mana.all())
        form = _maxima_form(character, pools)
        if bound is not None and bound.prefix == form.prefix:
            form = bound
        rows.append({"character": character, "pools": [(p, form[p.color]) for p in pools]})
    return {"campaign": campaign, "rows": rows, "mana_error": error}


GM_MANA = Piece(
    name="mana",
    template="sheets/_gm_mana.html",
    context=_mana_context,
    page=panel_with,
    url="gm_panel",
    access=_gm_access,
    fragment_only=True,
)
gm_mana = GM_MANA.view()


@login_required
@require_POST
def mana_maxima(request, campaign_id, character_id, system):
    campaign, character = character_for(request, campaign_id, character_id, gm=True, system=system)
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
        return GM_MANA.answer(request, campaign, ok=ok)
    error = f"{character.name}: {_refusal(ok, refusal, form)}"
    return GM_MANA.answer(request, campaign, ok=ok, error=error, bound=form)


@login_required
@require_POST
def mana_refill_one(request, campaign_id, character_id, system):
    campaign, character = character_for(request, campaign_id, character_id, gm=True, system=system)
    ok, _ = attempt(
        with_facts(
            lambda: services.mana_refill(campaign=campaign, character=character),
            campaign,
            [character],
            private=True,
        )
    )
    return GM_MANA.answer(request, campaign, ok=ok)


@login_required
@require_POST
def mana_refill_all(request, campaign_id, system):
    campaign = campaign_for(request, campaign_id, gm=True, system=system)
    ok, _ = attempt(
        with_facts(
            lambda: services.mana_refill(campaign=campaign),
            campaign,
            campaign.characters.all(),  # read once committed
            private=True,
        )
    )
    return GM_MANA.answer(request, campaign, ok=ok)
