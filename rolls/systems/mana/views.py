"""The Mana system's own views (its URLs: ``urls.py``): the GM's campaign skills, a section of
the GM panel (``SKILLS``, a ``campaigns.views.panel_section``); a character's traits, written
in its sheet section (``MANA``, answering the sheet's ``?section=mana``: ``sheets.sections``);
and the GM's mana pools, a section of the GM panel loading on its own (``GM_MANA``).
``system`` is the key ``config/urls.py`` gives every view of a system's URLs:
``campaign_for``/``character_for`` answer 404 in a campaign of another system.

Traits and mana pools are a character's facts: once a write of them is committed, a facts push
makes every page showing them fetch them again (the pools only for those who see its private
side).
"""

from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_POST

from campaigns.access import campaign_for
from campaigns.views import panel_section
from core.push import with_facts
from core.text import isolated
from core.writes import attempt
from sheets.access import character_for
from sheets.sections import refusal, section, section_write

from ..scaffold import gm_piece
from . import services
from .forms import ManaMaximaForm, ManaSkillForm, TraitsForm
from .models import ManaSkill, palette_of
from .sheet import pools

#: The GM panel's card of the campaign's skills (its context: the system's ``panel_context``).
SKILLS = panel_section("skills", "rolls/systems/mana/_panel_skills.html")

#: The sheet's Mana section: the pools (its player's and the GM's alone), traits and the
#: campaign's skills (its context: ``sheet.section_context``).
MANA = section("mana", "rolls/systems/mana/_sheet_mana.html")


@login_required
@require_POST
def mana_skill_add(request, campaign_id, system):
    campaign = campaign_for(request, campaign_id, gm=True, system=system)
    form = ManaSkillForm(
        request.POST,
        palette=palette_of(campaign),
        taken=campaign.mana_skills.values_list("name", flat=True),
        prefix="new-skill",
    )
    ok, _skill = attempt(
        lambda: ManaSkill.objects.create(campaign=campaign, **form.cleaned_data), form=form
    )
    refused = {} if ok else {"skill_form": form}
    return SKILLS.answer(request, campaign, ok=ok, **refused)


@login_required
@require_POST
def mana_skill_edit(request, campaign_id, skill_id, system):
    campaign = campaign_for(request, campaign_id, gm=True, system=system)
    skill = get_object_or_404(ManaSkill, pk=skill_id, campaign=campaign)
    form = ManaSkillForm(
        request.POST,
        palette=palette_of(campaign),
        taken=campaign.mana_skills.exclude(pk=skill.pk).values_list("name", flat=True),
        prefix=f"skill-{skill.id}",
    )

    def edit():
        for field, value in form.cleaned_data.items():
            setattr(skill, field, value)
        skill.save()

    ok, _ = attempt(edit, form=form)
    refused = {} if ok else {"edit_form": form}
    return SKILLS.answer(request, campaign, ok=ok, **refused)


@login_required
@require_POST
def mana_skill_delete(request, campaign_id, skill_id, system):
    campaign = campaign_for(request, campaign_id, gm=True, system=system)
    skill = get_object_or_404(ManaSkill, pk=skill_id, campaign=campaign)
    ok, _ = attempt(skill.delete)
    return SKILLS.answer(request, campaign, ok=ok)


# A character's traits ---------------------------------------------------------------------------


@login_required
@require_POST
def character_traits(request, campaign_id, character_id, system):
    campaign, character = character_for(request, campaign_id, character_id, gm=True, system=system)
    form = TraitsForm(request.POST)
    return section_write(
        request,
        campaign,
        character,
        MANA,
        form,
        lambda: services.traits_set(character=character, traits=form.cleaned_data["traits"]),
    )


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
        shown = pools(campaign, character)
        form = _maxima_form(character, shown)
        if bound is not None and bound.prefix == form.prefix:
            form = bound
        rows.append({"character": character, "pools": [(p, form[p.color]) for p in shown]})
    return {"campaign": campaign, "rows": rows, "mana_error": error}


#: The GM panel's mana pools, loading on their own (``Mana.gm_pieces``).
GM_MANA = gm_piece("mana", "rolls/systems/mana/_gm_mana.html", _mana_context)
gm_mana = GM_MANA.view()


@login_required
@require_POST
def mana_maxima(request, campaign_id, character_id, system):
    campaign, character = character_for(request, campaign_id, character_id, gm=True, system=system)
    form = _maxima_form(character, pools(campaign, character), request.POST)
    ok, refused = attempt(
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
    error = f"{isolated(character.name)}: {refusal(ok, refused, form)}"
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
