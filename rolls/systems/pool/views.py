"""The Pool system's own views (its URLs: ``urls.py``): a character's HP, ratings and skills,
written in its sheet section (``POOL``, answering the sheet's ``?section=pool``:
``sheets.sections``), and the GM's custom-skill approvals, a section of the GM panel loading on
its own (``APPROVALS``). ``system`` is the key ``config/urls.py`` gives every view of a
system's URLs: ``campaign_for``/``character_for`` answer 404 in a campaign of another system.

A write on the sheet answers with the section (``sheets.sections.section_write``); an approval
answers htmx with the approvals, and a plain post with the GM panel. Each changes the
character's facts: once committed, a facts push makes every page showing them fetch them again.
"""

from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_POST

from campaigns.access import campaign_for
from core.push import with_facts
from core.writes import attempt
from sheets.access import character_for
from sheets.sections import section, section_write

from ..scaffold import gm_piece
from . import services
from .forms import HpForm, RatingForm, SkillProposalForm, TemplateSkillForm
from .models import Rating, hp_max_of

#: The sheet's Pool section: HP, the attributes and their skills (its context:
#: ``sheet.section_context``).
POOL = section("pool", "rolls/systems/pool/_sheet_pool.html")


@login_required
@require_POST
def character_hp(request, campaign_id, character_id, system):
    campaign, character = character_for(
        request, campaign_id, character_id, edit=True, system=system
    )
    form = HpForm(request.POST, hp_max=hp_max_of(character))
    return section_write(
        request,
        campaign,
        character,
        POOL,
        form,
        lambda: services.hp_set(character=character, value=form.cleaned_data["hp_current"]),
    )


@login_required
@require_POST
def rating_set(request, campaign_id, character_id, rating_id, system):
    campaign, character = character_for(request, campaign_id, character_id, gm=True, system=system)
    rating = get_object_or_404(Rating, pk=rating_id, character=character)
    rating.character = character
    form = RatingForm(request.POST)
    return section_write(
        request,
        campaign,
        character,
        POOL,
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
    return section_write(
        request,
        campaign,
        character,
        POOL,
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
    return section_write(
        request,
        campaign,
        character,
        POOL,
        form,
        lambda: services.skill_propose(character=character, **form.cleaned_data),
    )


# GM: custom-skill approvals -------------------------------------------------------------------


def _approvals_context(request, campaign, error=None):
    pending = (
        Rating.objects.filter(character__campaign=campaign, custom=True, status=Rating.PENDING)
        .select_related("character__owner")
        .order_by("character__name", "character_id", "attribute", "skill")
    )
    return {"campaign": campaign, "pending": pending, "approvals_error": error}


#: The GM panel's custom-skill approvals, loading on their own (``Pool.gm_pieces``).
APPROVALS = gm_piece("approvals", "rolls/systems/pool/_gm_approvals.html", _approvals_context)
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
