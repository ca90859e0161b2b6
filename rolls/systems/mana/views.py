"""The Mana system's own views (its URLs: ``urls.py``): the GM's campaign skills, a section of
the GM panel (``campaigns.views.MANA_SKILLS``). ``system`` is the key ``config/urls.py`` gives
every view of a system's URLs: ``campaign_for`` answers 404 in a campaign of another system."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_POST

from campaigns.access import campaign_for
from campaigns.forms import ManaSkillForm
from campaigns.models import ManaSkill
from campaigns.views import MANA_SKILLS
from core.writes import attempt


@login_required
@require_POST
def mana_skill_add(request, campaign_id, system):
    campaign = campaign_for(request, campaign_id, gm=True, system=system)
    form = ManaSkillForm(
        request.POST,
        palette=campaign.palette,
        taken=campaign.mana_skills.values_list("name", flat=True),
        prefix="new-skill",
    )
    ok, _skill = attempt(
        lambda: ManaSkill.objects.create(campaign=campaign, **form.cleaned_data), form=form
    )
    refused = {} if ok else {"skill_form": form}
    return MANA_SKILLS.answer(request, campaign, ok=ok, **refused)


@login_required
@require_POST
def mana_skill_edit(request, campaign_id, skill_id, system):
    campaign = campaign_for(request, campaign_id, gm=True, system=system)
    skill = get_object_or_404(ManaSkill, pk=skill_id, campaign=campaign)
    form = ManaSkillForm(
        request.POST,
        palette=campaign.palette,
        taken=campaign.mana_skills.exclude(pk=skill.pk).values_list("name", flat=True),
        prefix=f"skill-{skill.id}",
    )

    def edit():
        for field, value in form.cleaned_data.items():
            setattr(skill, field, value)
        skill.save()

    ok, _ = attempt(edit, form=form)
    refused = {} if ok else {"edit_form": form}
    return MANA_SKILLS.answer(request, campaign, ok=ok, **refused)


@login_required
@require_POST
def mana_skill_delete(request, campaign_id, skill_id, system):
    campaign = campaign_for(request, campaign_id, gm=True, system=system)
    skill = get_object_or_404(ManaSkill, pk=skill_id, campaign=campaign)
    ok, _ = attempt(skill.delete)
    return MANA_SKILLS.answer(request, campaign, ok=ok)
