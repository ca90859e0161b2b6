"""Character sheets: creation, the sheet page and its own section (the header, with the GM's
hand-over), the campaign page and the party.

The sheet page is made of sections (``sections.py``: how they are declared, their context, the
page, a write answered with one): the header and those the campaign's system names (its
``sheet_sections``; the views of its own are in its package, ``rolls/systems/<key>/views.py``).
``character_detail`` answers htmx's ``?section=<name>`` with the header or one of the system's
``sheet_pieces``. Every write runs through ``core.writes.attempt`` and is answered by
``core.writes.answer``: htmx gets the section re-rendered (422 and the refusal when refused,
nothing changed), a plain form post a redirect to the sheet (or the sheet with the refusal,
200).

A write that changes a character's facts (its name, and a system's: HP, ratings, traits, mana
pools) also sends a facts push once committed (``core.push.with_facts``): every other page
showing them renders its pieces again (the sections listen for ``facts-<id>``), and so does the
party (``party``, ``sheets/party.py``).
"""

from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from campaigns.access import campaign_for
from campaigns.systems import system_of
from campaigns.views import members_of
from core.push import with_facts
from core.writes import answer, attempt

from . import sections, services
from .access import character_for
from .forms import CharacterCreateForm, CharacterForm, HandOverForm, SavedRollForm
from .models import SavedRoll
from .party import party_context
from .sections import HEADER, SAVED

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
    """The sheet page; htmx may ask for one section with ``?section=<name>`` (the header, or a
    section of the campaign's system that loads on its own: ``sections.pieces``)."""
    campaign, character = character_for(request, campaign_id, character_id)
    piece = sections.pieces(campaign).get(request.GET.get("section"))
    if request.htmx and piece is not None:
        return piece.get(request, campaign, character)
    return sections.render_sheet(request, sections.sheet_context(request, campaign, character))


@login_required
@require_GET
def party(request, campaign_id):
    """The party (``sheets/_party.html``): what the campaign page and the room show of it, for
    htmx to fetch again when a character's facts changed."""
    campaign = campaign_for(request, campaign_id)
    return render(request, "sheets/_party.html", party_context(campaign))


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
    return HEADER.answer(request, campaign, character, ok=ok, **refused)


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
    error = sections.refusal(ok, refusal, form)
    return HEADER.answer(request, campaign, character, ok=ok, hand_over_error=error)


# Saved rolls ----------------------------------------------------------------------------------
# The character's player and the GM keep them; the room rolls them (``room.views.saved_roll``).
# A save or a delete sends a facts push: the player's room panel shows its Roll buttons again.


@login_required
@require_POST
def saved_roll_add(request, campaign_id, character_id):
    campaign, character = character_for(request, campaign_id, character_id, edit=True)
    form = SavedRollForm(request.POST, auto_id=f"saved-{character.pk}-%s")

    def write():
        data = form.cleaned_data
        check = None
        if data["kind"] == SavedRollForm.CHECK:
            fields = system_of(campaign).saved_check_fields(character)
            check = {f["name"]: request.POST.get(f["name"], "") for f in fields}
        services.saved_roll_add(
            campaign=campaign,
            character=character,
            name=data["name"],
            notation=data["notation"] if check is None else "",
            check=check,
            target=data["target"] if check is not None else None,
        )

    return sections.section_write(request, campaign, character, SAVED, form, write)


@login_required
@require_POST
def saved_roll_delete(request, campaign_id, character_id, saved_id):
    campaign, character = character_for(request, campaign_id, character_id, edit=True)
    saved = get_object_or_404(SavedRoll, pk=saved_id, character=character)
    form = SavedRollForm({"kind": SavedRollForm.NOTATION})

    def write():
        services.saved_roll_delete(character=character, saved=saved)

    return sections.section_write(request, campaign, character, SAVED, form, write)
