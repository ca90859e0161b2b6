from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods

from .access import campaign_for


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
@require_GET
def campaign_detail(request, campaign_id):
    campaign = campaign_for(request, campaign_id)
    return render(request, "campaigns/detail.html", {"campaign": campaign})
