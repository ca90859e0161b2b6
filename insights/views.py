"""Insights from the exact odds: the public odds calculator of the rules page, each campaign's
luck against the stored chances and its charts, the GM's difficulty tuning, a session's summary
and the log to take home.

Reading views only (GET); a campaign's pages are for its members (``campaigns.access``)."""

import csv

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from campaigns.access import campaign_for
from campaigns.models import GameSession
from rolls.systems import system_of

from . import charts
from . import reports as insights
from .forms import calculate


@require_GET
def odds_calculator(request):
    """The exact chance for the numbers typed in the calculator: the result alone for htmx, the
    rules page with it for a plain GET. Open to everyone, logged in or not."""
    system = request.GET.get("system", "")
    result = calculate(system, request.GET)
    if request.htmx:
        return render(request, "insights/_calc_result.html", {"result": result})
    context = {"calc": {"system": system, "result": result, "values": request.GET}}
    return render(request, "campaigns/rules.html", context)


@login_required
@require_GET
def campaign_luck(request, campaign_id):
    """Each player's, character's and session's successes against the exact expectation, and
    what the dice showed against the exact distributions, over the rolls the viewer may see."""
    campaign = campaign_for(request, campaign_id)
    luck = insights.luck(campaign, request.user.pk)
    shown = [
        (dist, charts.rolled_against_exact(dist))
        for dist in insights.distributions(campaign, request.user.pk)
    ]
    context = {
        "campaign": campaign,
        "system": system_of(campaign),
        "luck": luck,
        "chart": charts.luck_by_session(luck.sessions),
        "distributions": shown,
    }
    return render(request, "insights/luck.html", context)


#: A spreadsheet reads a cell starting with one of these as a formula.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(value):
    """A CSV cell: text a spreadsheet would run as a formula is quoted with a leading '."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def _download(campaign, extension):
    return f'attachment; filename="rollroom-log-{campaign.id}.{extension}"'


@login_required
@require_GET
def campaign_log_csv(request, campaign_id):
    """The campaign's log as CSV: every entry, hidden ones as stubs (``insights.log_export``)."""
    campaign = campaign_for(request, campaign_id)
    rows, _fingerprint = insights.log_export(campaign, request.user.pk)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = _download(campaign, "csv")
    writer = csv.writer(response)
    writer.writerow(insights.COLUMNS)
    for row in rows:
        writer.writerow([_cell(row[column]) for column in insights.COLUMNS])
    return response


@login_required
@require_GET
def campaign_log_json(request, campaign_id):
    """The campaign's log as JSON, with the log's fingerprint."""
    campaign = campaign_for(request, campaign_id)
    rows, fingerprint = insights.log_export(campaign, request.user.pk)
    document = {
        "campaign": campaign.name,
        "system": campaign.system,
        "fingerprint": fingerprint,
        "entries": rows,
    }
    response = JsonResponse(document, json_dumps_params={"indent": 1})
    response["Content-Disposition"] = _download(campaign, "json")
    return response


@login_required
@require_GET
def campaign_tuning(request, campaign_id):
    """For the GM: per difficulty or TN used, how often checks succeeded against how often they
    were expected to, and the asks that were near-certain or near-hopeless."""
    campaign = campaign_for(request, campaign_id, gm=True)
    rows, asks = insights.tuning(campaign)
    context = {
        "campaign": campaign,
        "number": system_of(campaign).number,
        "rows": rows,
        "asks": asks,
        "shown": insights.ASKS_SHOWN,
    }
    return render(request, "insights/tuning.html", context)


@login_required
@require_GET
def session_summary(request, campaign_id, number):
    """A session to share after the game: who rolled what, its luck, its luckiest and unluckiest
    moments, and what the campaign's system adds (its ``summary_template``, given its
    ``summary_context``: Pool's, the sparetime awarded for it)."""
    campaign = campaign_for(request, campaign_id)
    session = get_object_or_404(GameSession, campaign=campaign, number=number)
    summary = insights.session_summary(campaign, session, request.user.pk)
    system = system_of(campaign)
    context = {
        "campaign": campaign,
        "system": system,
        "summary": summary,
        "is_gm": campaign.viewer.is_gm,
    }
    if system.summary_template:
        context.update(system.summary_context(campaign, session))
    return render(request, "insights/session.html", context)
