"""Campaigns: signing up and logging out, the home page, creating and joining a campaign, its
page, the GM panel (its own sections, and those the campaign's system names: ``panel_page``).

Every write runs through ``core.writes.attempt`` and is answered by
``core.writes.answer``: a GM panel section (a ``core.writes.Piece``: ``MEMBERS``, ``INVITE``,
``SETTINGS``; a system's, declared with ``panel_section``) answers htmx with itself (422 with
the refused form); a plain form post goes back to the page it came from, or gets that page
again with the refused form in place.
"""

import math

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth import logout as auth_logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LogoutView, PasswordResetView, redirect_to_login
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core import push
from core.backups import last_backup
from core.text import isolated
from core.writes import Piece, answer, attempt
from rules import notation

from . import links, services
from .access import campaign_for
from .accounts import LINK_DAYS
from .forms import (
    AccountDeleteForm,
    CampaignCreateForm,
    CampaignDeleteForm,
    CampaignSettingsForm,
    HandOverForm,
    MemberAddForm,
    SignupForm,
)
from .models import Campaign, Membership
from .systems import system_of


def _safe_next(request):
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(target, {request.get_host()}):
        return target
    return ""


def _own_page(request, template, context, url):
    """``answer``'s pieces for a form on a page of its own: ``url`` once the write is done, the
    page again (``context()`` builds its context) when it is refused."""
    return {
        "fragment": lambda: render_to_string(template, context(), request=request),
        "page": lambda: render(request, template, context()),
        "url": url,
    }


def login_locked_out(request, original_response=None, credentials=None):
    """The answer to a login while its username and address are locked out (django-axes calls
    it; config/settings.py, login throttling): 429 and a page that says why and for how long."""
    minutes = math.ceil(settings.LOGIN_LOCKOUT.total_seconds() / 60)
    context = {
        "username": (credentials or {}).get("username") or request.POST.get("username", ""),
        "failures": settings.LOGIN_FAILURES,
        "minutes": minutes,
    }
    return render(request, "registration/locked_out.html", context, status=429)


@require_http_methods(["GET", "POST"])
def signup(request):
    form = SignupForm(request.POST or None)
    next_url = _safe_next(request)
    context = {"form": form, "next": next_url}
    if request.method == "GET":
        return render(request, "registration/signup.html", context)
    ok, user = attempt(form.save, form=form)
    if ok:
        # The account was just made: no password check to run (the first backend, axes,
        # only guards logins).
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
    url = next_url or reverse("home")
    pieces = _own_page(request, "registration/signup.html", lambda: context, url)
    return answer(request, ok=ok, **pieces)


class MailedPasswordReset(PasswordResetView):
    """Django's "Forgot your password?": the address, then a one-time link mailed to each active
    account that has it (campaigns/accounts.py). Every address gets the same answer, whether an
    account has it or not, and whether its mail could be sent or not (Django logs a failure,
    django.contrib.auth): a different one would tell a stranger which addresses have accounts."""

    extra_context = {"sends_mail": True, "link_days": LINK_DAYS}

    @property
    def extra_email_context(self):
        """The mail's context beyond Django's: with ROLLROOM_PUBLIC_URL, the link's scheme and
        address are its (Django's are the request's: the address the visitor came by)."""
        context = {"link_days": LINK_DAYS}
        if settings.ROLLROOM_PUBLIC_URL:
            protocol, domain = settings.ROLLROOM_PUBLIC_URL.split("://", 1)
            context.update(protocol=protocol, domain=domain)
        return context


@require_http_methods(["GET", "POST"])
def password_reset(request):
    """Forgot your password? With mail (settings.SENDS_MAIL), ``MailedPasswordReset``. Without,
    the page says that this server sends no mail and to ask the host for a link (``manage.py
    reset_link``, the admin); a post is answered the same, and nothing is sent."""
    if settings.SENDS_MAIL:
        return MailedPasswordReset.as_view()(request)
    return render(request, "registration/password_reset_form.html", {"sends_mail": False})


@login_required
@require_POST
def logout(request):
    """Django's logout; then every room socket of the user closes, in every campaign and every
    process (a socket keeps the user it was opened with)."""
    user_id = request.user.pk
    response = LogoutView.as_view()(request)
    push.leave_on_commit(user_id)  # no transaction is open: at once
    return response


@login_required
@require_GET
def home(request):
    memberships = request.user.memberships.select_related("campaign").order_by("-joined_at")
    return render(request, "campaigns/home.html", {"memberships": memberships})


@login_required
@require_http_methods(["GET", "POST"])
def campaign_create(request):
    form = CampaignCreateForm(request.POST or None)
    if request.method == "GET":
        return render(request, "campaigns/create.html", {"form": form})
    ok, result = attempt(
        lambda: services.campaign_create(user=request.user, **form.cleaned_data), form=form
    )
    if not ok and result:
        form.add_error(None, result)
    url = reverse("campaign_detail", args=[result.id]) if ok else None
    pieces = _own_page(request, "campaigns/create.html", lambda: {"form": form}, url)
    return answer(request, ok=ok, **pieces)


def _join_context(campaign, **extra):
    gm_name = (
        get_user_model()
        .objects.filter(pk=campaign.gm_id())
        .values_list("username", flat=True)
        .first()
    )
    return {"campaign": campaign, "gm_name": gm_name, **extra}


@require_http_methods(["GET", "POST"])
def campaign_join(request, token):
    """The invite link. A logged-out invitee sees which campaign and whose, with a way to log in
    or sign up that comes back here (``next``); joining takes a login."""
    campaign = get_object_or_404(Campaign, invite_token=token)
    if not request.user.is_authenticated:
        if request.method == "POST":
            return redirect_to_login(request.get_full_path())
        return render(request, "campaigns/join.html", _join_context(campaign, next=request.path))
    if request.method == "POST":
        ok, _membership = attempt(
            lambda: services.membership_join(campaign=campaign, user=request.user)
        )
        url = reverse("campaign_detail", args=[campaign.id])
        pieces = _own_page(request, "campaigns/join.html", lambda: _join_context(campaign), url)
        return answer(request, ok=ok, **pieces)
    if campaign.member(request.user) is None:
        return render(request, "campaigns/join.html", _join_context(campaign))
    return redirect("campaign_detail", campaign.id)


# The GM panel ----------------------------------------------------------------------------------


def members_of(campaign):
    """The campaign's memberships with their users, the GM first (the campaign page, the panel)."""
    return campaign.memberships.select_related("user").order_by("role", "user__username")


def _panel_context(request, campaign, **overrides):
    """The panel's context: the shared sections' and what the campaign's system adds for its
    own (``panel_context``; ``overrides`` are what a write's answer shows, e.g. a refused form)."""
    invite = reverse("campaign_join", args=[campaign.invite_token])
    system = system_of(campaign)
    context = {
        "campaign": campaign,
        "system": system,
        "members": members_of(campaign),
        "invite_url": links.absolute(request, invite),
        "invite_elsewhere": links.elsewhere(request, invite),
        "settings_form": CampaignSettingsForm(campaign=campaign),
        "member_add_form": MemberAddForm(),
        "hand_over_form": HandOverForm(campaign=campaign),
        # The host's staff see when the server last backed the table up (core/backups.py).
        "backups_shown": request.user.is_staff,
        "last_backup": last_backup() if request.user.is_staff else None,
        **system.panel_context(request, campaign, overrides),
    }
    context.update(overrides)
    return context


def placed(declared, sections):
    """[(name, template, html)] of the sections a system declares (here and ``sheets.sections``),
    ``html`` what replaces one (or "")."""
    return [(name, template, sections.get(name, "")) for name, template in declared]


def panel_page(request, campaign, *, sections=None):
    """The GM panel: its own sections ("members", "invite", "settings") and the campaign's
    system's (``panel_cards`` beside them, ``panel_sections`` below, e.g. "skills", "approvals",
    "mana": the system's ``views.py``). ``sections`` maps a section's name to the HTML to show
    in its place, a refused form with its refusal."""
    sections = sections or {}
    context = _panel_context(request, campaign)
    context["sections"] = sections
    context["system_cards"] = placed(context["system"].panel_cards, sections)
    context["system_sections"] = placed(context["system"].panel_sections, sections)
    return render(request, "campaigns/gm_panel.html", context)


def panel_with(request, context, replace):
    """The GM panel with ``replace``'s HTML in place of the sections it names: the ``page`` of
    its pieces (here and a system's ``views.py``)."""
    return panel_page(request, context["campaign"], sections=replace)


def panel_section(name, template):
    """A section of the GM panel, its context the panel's (a system's part included: its
    ``panel_context``); a plain post goes back to the panel. The panel's own are below, a
    system's in its ``views.py`` (e.g. Mana's skills)."""
    return Piece(
        name=name,
        template=template,
        context=_panel_context,
        page=panel_with,
        url="gm_panel",
    )


MEMBERS = panel_section("members", "campaigns/_members.html")
INVITE = panel_section("invite", "campaigns/_invite.html")
SETTINGS = panel_section("settings", "campaigns/_settings.html")
#: Handing the campaign over, and the way to its deletion.
LEAVE = panel_section("leave", "campaigns/_leave.html")


@login_required
@require_GET
def gm_panel(request, campaign_id):
    campaign = campaign_for(request, campaign_id, gm=True)
    return panel_page(request, campaign)


@login_required
@require_POST
def campaign_settings(request, campaign_id):
    campaign = campaign_for(request, campaign_id, gm=True)
    form = CampaignSettingsForm(request.POST, campaign=campaign)
    ok, refusal = attempt(
        lambda: services.campaign_settings_update(campaign=campaign, **form.changes()), form=form
    )
    if ok:
        return SETTINGS.answer(request, campaign, ok=ok, notice="Settings saved.")
    if refusal:
        form.add_error(None, refusal)
    return SETTINGS.answer(request, campaign, ok=ok, settings_form=form)


@login_required
@require_POST
def invite_renew(request, campaign_id):
    campaign = campaign_for(request, campaign_id, gm=True)
    ok, _ = attempt(campaign.renew_invite)
    return INVITE.answer(request, campaign, ok=ok, invite_renewed=True)


@login_required
@require_POST
def member_add(request, campaign_id):
    """The GM adds an existing user, by username, as a player."""
    campaign = campaign_for(request, campaign_id, gm=True)
    form = MemberAddForm(request.POST)
    ok, result = attempt(
        lambda: services.membership_add(campaign=campaign, **form.cleaned_data), form=form
    )
    if ok:
        notice = f"{isolated(result.user.username)} joined {isolated(campaign.name)} as a player."
        return MEMBERS.answer(request, campaign, ok=ok, notice=notice, added=notice)
    if result:
        form.add_error("username", result)
    return MEMBERS.answer(request, campaign, ok=ok, member_add_form=form)


@login_required
@require_POST
def member_remove(request, campaign_id, user_id):
    campaign = campaign_for(request, campaign_id, gm=True)
    membership = get_object_or_404(Membership, campaign=campaign, user_id=user_id)
    ok, refusal = attempt(lambda: services.membership_remove(membership=membership))
    error = "" if ok else refusal
    return MEMBERS.answer(request, campaign, ok=ok, member_error=error)


@login_required
@require_POST
def campaign_hand_over(request, campaign_id):
    """The GM hands the campaign to one of its players and stays as a player: done, they go to
    the campaign's page (the panel is no longer theirs)."""
    campaign = campaign_for(request, campaign_id, gm=True)
    form = HandOverForm(request.POST, campaign=campaign)
    ok, result = attempt(
        lambda: services.campaign_hand_over(campaign=campaign, **form.cleaned_data), form=form
    )
    if ok:
        notice = f"{isolated(result.user.username)} is now the GM of {isolated(campaign.name)}."
        url = reverse("campaign_detail", args=[campaign.id])
        return answer(
            request,
            ok=ok,
            fragment=lambda: render_to_string(
                "campaigns/_handed_over.html", {"notice": notice, "url": url}, request=request
            ),
            page=None,
            url=url,
            notice=notice,
        )
    if result:
        form.add_error("to", result)
    return LEAVE.answer(request, campaign, ok=ok, hand_over_form=form)


@login_required
@require_http_methods(["GET", "POST"])
def campaign_delete(request, campaign_id):
    """The GM deletes the campaign, once they said yes on a page that offers its export
    first (the log as JSON or CSV, with its fingerprint)."""
    campaign = campaign_for(request, campaign_id, gm=True)
    form = CampaignDeleteForm(request.POST if request.method == "POST" else None)
    context = {"campaign": campaign, "form": form}
    if request.method == "GET":
        return render(request, "campaigns/delete.html", context)
    name = campaign.name
    ok, _ = attempt(lambda: services.campaign_delete(campaign=campaign), form=form)
    pieces = _own_page(request, "campaigns/delete.html", lambda: context, reverse("home"))
    return answer(request, ok=ok, notice=f"{isolated(name)} was deleted.", **pieces)


def _account_context(request, form):
    """The account deletion page's: what stays, what goes, and what to do first."""
    user = request.user
    blocking = services.campaigns_to_hand_over(user)
    blocked = {campaign.pk for campaign in blocking}
    alone = [
        m.campaign
        for m in user.memberships.select_related("campaign")
        if m.is_gm and m.campaign_id not in blocked
    ]
    return {"form": form, "blocking": blocking, "alone": alone}


@login_required
@require_http_methods(["GET", "POST"])
def account_delete(request):
    """A user deletes their own account, with their password. The page says what stays (their
    log entries, characters and ledger rows, as a former member's), what goes with it (the
    campaigns they GM alone), what to do first (hand over a campaign they GM with others) and
    offers their own data to take (``insights``' ``my_data``). Done: logged out, on the login
    page; a wrong password changes nothing."""
    form = AccountDeleteForm(request.POST if request.method == "POST" else None)
    if request.method == "GET":
        return render(request, "registration/account_delete.html", _account_context(request, form))
    ok, refusal = attempt(
        lambda: services.account_delete(user=request.user, **form.cleaned_data), form=form
    )
    if ok:
        auth_logout(request)
        messages.success(request, "Your account was deleted.")
        return redirect("login")
    if refusal:
        form.add_error("password", refusal)
    pieces = _own_page(
        request,
        "registration/account_delete.html",
        lambda: _account_context(request, form),
        reverse("login"),
    )
    return answer(request, ok=ok, **pieces)


@require_GET
def rules(request):
    """The rules as implemented, with every decision the source texts leave open (and the free
    rolls' limits, ``rules.notation``'s)."""
    return render(request, "campaigns/rules.html", {"notation": notation})
