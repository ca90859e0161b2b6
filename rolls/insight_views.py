"""Insights from the exact odds: the public odds calculator of the rules page, each campaign's
luck against the stored chances and its charts, and the log to take home.

Reading views only (GET); a campaign's pages are for its members (``campaigns.access``)."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.http import require_GET

from campaigns.access import campaign_for

from . import charts, insights
from .insight_forms import calculate


@require_GET
def odds_calculator(request):
    """The exact chance for the numbers typed in the calculator: the result alone for htmx, the
    rules page with it for a plain GET. Open to everyone, logged in or not."""
    system = request.GET.get("system", "")
    result = calculate(system, request.GET)
    if request.htmx:
        return render(request, "insights/_calc_result.html", {"result": result})
    context = {"calc": {"system": system, "result": result, system: request.GET}}
    return render(request, "campaigns/rules.html", context)


@login_required
@require_GET
def campaign_luck(request, campaign_id):
    """Each player's, character's and session's successes against the exact expectation, over
    the rolls the viewer may see."""
    campaign = campaign_for(request, campaign_id)
    luck = insights.luck(campaign, request.user.pk)
    context = {"campaign": campaign, "luck": luck, "chart": charts.luck_by_session(luck.sessions)}
    return render(request, "insights/luck.html", context)
