from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from . import services
from .access import campaign_for
from .forms import CampaignCreateForm, CampaignSettingsForm, ManaSkillForm
from .models import Campaign, ManaSkill, Membership


def _safe_next(request):
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(target, {request.get_host()}):
        return target
    return ""


@require_http_methods(["GET", "POST"])
def signup(request):
    form = UserCreationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user)
        return redirect(_safe_next(request) or "home")
    return render(request, "registration/signup.html", {"form": form, "next": _safe_next(request)})


@login_required
@require_GET
def home(request):
    memberships = request.user.memberships.select_related("campaign").order_by("-joined_at")
    return render(request, "campaigns/home.html", {"memberships": memberships})


@login_required
@require_http_methods(["GET", "POST"])
def campaign_create(request):
    form = CampaignCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        campaign = services.campaign_create(user=request.user, **form.cleaned_data)
        return redirect("campaign_detail", campaign.id)
    return render(request, "campaigns/create.html", {"form": form})


@login_required
@require_GET
def campaign_detail(request, campaign_id):
    campaign = campaign_for(request, campaign_id)
    characters = campaign.characters.select_related("owner")
    if not campaign.viewer.is_gm:
        characters = characters.filter(owner=request.user)
    context = {"campaign": campaign, "members": _members(campaign), "characters": characters}
    return render(request, "campaigns/detail.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def campaign_join(request, token):
    campaign = get_object_or_404(Campaign, invite_token=token)
    if request.method == "POST":
        services.membership_join(campaign=campaign, user=request.user)
    elif campaign.member(request.user) is None:
        gm_name = (
            get_user_model()
            .objects.filter(pk=campaign.gm_id())
            .values_list("username", flat=True)
            .first()
        )
        return render(request, "campaigns/join.html", {"campaign": campaign, "gm_name": gm_name})
    return redirect("campaign_detail", campaign.id)


# The GM panel ----------------------------------------------------------------------------------


def _members(campaign):
    return campaign.memberships.select_related("user").order_by("role", "user__username")


def _skill_rows(campaign, bound=None):
    """[(skill, its edit form)]; ``bound`` replaces the form of the skill being edited."""
    rows = []
    for skill in campaign.mana_skills.all():
        form = ManaSkillForm(
            initial={f: getattr(skill, f) for f in ("name", "color_a", "color_b", "trait")},
            palette=campaign.palette,
            prefix=f"skill-{skill.id}",
        )
        rows.append((skill, bound if bound and bound.prefix == form.prefix else form))
    return rows


def _panel_context(request, campaign, *, edit_form=None, **overrides):
    invite = reverse("campaign_join", args=[campaign.invite_token])
    context = {
        "campaign": campaign,
        "members": _members(campaign),
        "invite_url": request.build_absolute_uri(invite),
        "settings_form": CampaignSettingsForm(campaign=campaign),
    }
    if campaign.is_mana:
        context["skill_rows"] = _skill_rows(campaign, edit_form)
        context["skill_form"] = ManaSkillForm(palette=campaign.palette, prefix="new-skill")
    context.update(overrides)
    return context


def _panel_answer(request, campaign, fragment, *, ok=True, **overrides):
    """Answer a GM panel POST. htmx gets ``fragment`` (422 when not ``ok``); a plain form post
    goes back to the panel, or gets the panel again with the errors (200)."""
    if request.htmx:
        context = _panel_context(request, campaign, **overrides)
        return render(request, f"campaigns/{fragment}", context, status=200 if ok else 422)
    if ok:
        return redirect("gm_panel", campaign.id)
    context = _panel_context(request, campaign, **overrides)
    return render(request, "campaigns/gm_panel.html", context)


def _mana_campaign_for(request, campaign_id):
    campaign = campaign_for(request, campaign_id, gm=True)
    if not campaign.is_mana:
        raise Http404("Only Mana campaigns have mana skills.")
    return campaign


@login_required
@require_GET
def gm_panel(request, campaign_id):
    campaign = campaign_for(request, campaign_id, gm=True)
    return render(request, "campaigns/gm_panel.html", _panel_context(request, campaign))


@login_required
@require_POST
def campaign_settings(request, campaign_id):
    campaign = campaign_for(request, campaign_id, gm=True)
    form = CampaignSettingsForm(request.POST, campaign=campaign)
    if not form.is_valid():
        return _panel_answer(request, campaign, "_settings.html", ok=False, settings_form=form)
    services.campaign_settings_update(campaign=campaign, **form.changes())
    messages.success(request, "Settings saved.")
    return _panel_answer(request, campaign, "_settings.html")


@login_required
@require_POST
def invite_renew(request, campaign_id):
    campaign = campaign_for(request, campaign_id, gm=True)
    campaign.renew_invite()
    return _panel_answer(request, campaign, "_invite.html", invite_renewed=True)


@login_required
@require_POST
def member_remove(request, campaign_id, user_id):
    campaign = campaign_for(request, campaign_id, gm=True)
    membership = get_object_or_404(Membership, campaign=campaign, user_id=user_id)
    if membership.is_gm:
        error = "The GM can't be removed from the campaign."
        return _panel_answer(request, campaign, "_members.html", ok=False, member_error=error)
    services.membership_remove(membership=membership)
    return _panel_answer(request, campaign, "_members.html")


@login_required
@require_POST
def mana_skill_add(request, campaign_id):
    campaign = _mana_campaign_for(request, campaign_id)
    form = ManaSkillForm(
        request.POST,
        palette=campaign.palette,
        taken=campaign.mana_skills.values_list("name", flat=True),
        prefix="new-skill",
    )
    if not form.is_valid():
        return _panel_answer(request, campaign, "_mana_skills.html", ok=False, skill_form=form)
    ManaSkill.objects.create(campaign=campaign, **form.cleaned_data)
    return _panel_answer(request, campaign, "_mana_skills.html")


@login_required
@require_POST
def mana_skill_edit(request, campaign_id, skill_id):
    campaign = _mana_campaign_for(request, campaign_id)
    skill = get_object_or_404(ManaSkill, pk=skill_id, campaign=campaign)
    form = ManaSkillForm(
        request.POST,
        palette=campaign.palette,
        taken=campaign.mana_skills.exclude(pk=skill.pk).values_list("name", flat=True),
        prefix=f"skill-{skill.id}",
    )
    if not form.is_valid():
        return _panel_answer(request, campaign, "_mana_skills.html", ok=False, edit_form=form)
    for field, value in form.cleaned_data.items():
        setattr(skill, field, value)
    skill.save()
    return _panel_answer(request, campaign, "_mana_skills.html")


@login_required
@require_POST
def mana_skill_delete(request, campaign_id, skill_id):
    campaign = _mana_campaign_for(request, campaign_id)
    get_object_or_404(ManaSkill, pk=skill_id, campaign=campaign).delete()
    return _panel_answer(request, campaign, "_mana_skills.html")


@require_GET
def rules(request):
    """The rules as implemented, with every decision the source texts leave open."""
    return render(request, "campaigns/rules.html")
