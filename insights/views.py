"""Insights from the exact odds: the public odds calculator of the rules page, each campaign's
luck against the stored chances and its charts, the GM's difficulty tuning, a session's summary
and the log to take home.

Reading views only (GET); a campaign's pages are for its members (``campaigns.access``)."""

import orjson
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from campaigns.access import campaign_for
from campaigns.models import GameSession
from core.streams import streaming_response
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


def _download(campaign, extension):
    return f'attachment; filename="rollroom-log-{campaign.id}.{extension}"'


def _csv_chunks(batches):
    """The CSV export's text, a chunk per batch of entries (the header first)."""
    yield insights.csv_header()
    for entries in batches:
        yield "".join([insights.csv_line(*entry) for entry in entries])


def _json_chunks(campaign, batches):
    """The JSON export's text, compact, a chunk per batch of entries: the campaign, its system,
    the entries and, last, the log's fingerprint (that of the last entry)."""
    head = {"campaign": campaign.name, "system": campaign.system}
    yield orjson.dumps(head)[:-1] + b',"entries":['
    yield from _json_entries(batches)


def _json_entries(batches):
    """The entries of a JSON export, a chunk per batch, and its end: the log's fingerprint.

    Each row is written as soon as it is made, and its objects freed: a batch's rows kept for
    one ``orjson.dumps`` of them all outlived the garbage collector's young generations, and
    the collector then walked every object of the process again at nearly every batch."""
    dumps, row = orjson.dumps, insights.json_row
    last = None
    for entries in batches:
        text = b",".join([dumps(row(*entry)) for entry in entries])
        yield (b"," if last is not None else b"") + text
        last = entries[-1]
    fingerprint = insights.fingerprint_of(row(*last)) if last is not None else None
    yield b'],"fingerprint":' + dumps(fingerprint) + b"}"


def _export(request, campaign, extension, content_type, chunks):
    response = streaming_response(request, chunks, content_type)
    response["Content-Disposition"] = _download(campaign, extension)
    return response


@login_required
@require_GET
def campaign_log_csv(request, campaign_id):
    """The campaign's log as CSV: every entry, hidden ones as stubs (``insights.export_batches``),
    streamed a batch at a time."""
    campaign = campaign_for(request, campaign_id)
    batches = insights.export_batches(campaign, request.user.pk)
    return _export(request, campaign, "csv", "text/csv; charset=utf-8", _csv_chunks(batches))


@login_required
@require_GET
def campaign_log_json(request, campaign_id):
    """The campaign's log as compact JSON, with the log's fingerprint, streamed a batch at a
    time."""
    campaign = campaign_for(request, campaign_id)
    batches = insights.export_batches(campaign, request.user.pk, data=True)
    chunks = _json_chunks(campaign, batches)
    return _export(request, campaign, "json", "application/json", chunks)


def _sheet(character, system):
    """A character as its player takes it home: what they wrote and its system's sheet
    (``Sheet.export``)."""
    return {
        "name": character.name,
        "concept": character.concept,
        "history": character.history,
        "sheet": system.sheet.export(character),
        # Its saved rolls (#47 item 6): a notation, or a check's choices as its system kept them.
        "saved_rolls": [
            {"name": r.name, "notation": r.notation, "check": r.choices, "target": r.target}
            for r in character.saved_rolls.all()
        ],
    }


def _my_data_chunks(user):
    """The JSON of ``my_data``, compact, a chunk per campaign's batch of log entries."""
    yield orjson.dumps({"user": user.username})[:-1] + b',"campaigns":['
    memberships = user.memberships.select_related("campaign").order_by("joined_at", "id")
    for number, membership in enumerate(memberships):
        campaign = membership.campaign
        system = system_of(campaign)
        characters = campaign.characters.filter(owner=user).order_by("name", "id")
        characters = characters.prefetch_related("saved_rolls")
        head = {
            "campaign": campaign.name,
            "system": campaign.system,
            "role": membership.role,
            "characters": [_sheet(character, system) for character in characters],
        }
        yield (b"," if number else b"") + orjson.dumps(head)[:-1] + b',"entries":['
        yield from _json_entries(insights.export_batches(campaign, user.pk, data=True))
    yield b"]}"


@login_required
@require_GET
def my_data(request):
    """A user's own data in one JSON file: for each campaign they are in, their characters
    (their sheets and sparetime) and the campaign's log as its JSON export shows it to them
    (``insights.export_batches``: what they may not see is a stub, others' whispers are not
    in it), with its fingerprint. Streamed a batch of entries at a time."""
    chunks = _my_data_chunks(request.user)
    response = streaming_response(request, chunks, "application/json")
    response["Content-Disposition"] = 'attachment; filename="rollroom-my-data.json"'
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
    """A session to share after the game: who rolled what (a page of rolls at a time,
    ``?page=``), its luck, its luckiest and unluckiest moments, and what the campaign's system
    adds (its ``summary_template``, given its
    ``summary_context``: Pool's, the sparetime awarded for it)."""
    campaign = campaign_for(request, campaign_id)
    session = get_object_or_404(GameSession, campaign=campaign, number=number)
    page = request.GET.get("page", "1")
    # A page number in ASCII digits; anything else: the first.
    page = int(page) if page.isascii() and page.isdigit() and len(page) < 10 else 1
    summary = insights.session_summary(campaign, session, request.user.pk, page=page)
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
