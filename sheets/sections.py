"""The sheet page's sections, for the sheet's own views (``views.py``) and for a rule system's
(``rolls/systems/<key>/views.py``), which the system's URLs route: how a section is declared
(:func:`section`, a ``core.writes.Piece``), the context every section gets
(:func:`sheet_context`), the page around them (:func:`sheet_page`, :func:`render_sheet`) and a
write answered with a section (:func:`section_write`, :func:`refusal`).

The page is the header (``HEADER``, ``_sheet_header.html``) and then the sections the campaign's
system names (its ``sheet_sections``; their context its ``sheet.section_context``). Those of its
sections that load on their own are its ``sheet_pieces``, declared with :func:`section`: they
answer ``character_detail``'s ``?section=<name>``. A write answers htmx with its section again
(422 and the refusal in ``<name>_error`` when refused, nothing changed), a plain form post a
redirect to the sheet (or the sheet with the refusal, 200); once committed it sends a facts push
(``core.push.with_facts``): every other page showing the character renders its pieces again (the
sections listen for ``facts-<id>``), and so does the party (``party``, ``sheets/party.py``).
"""

from functools import partial

from django.shortcuts import render

from campaigns.access import can_edit, sees_private
from campaigns.systems import system_of
from campaigns.views import placed
from core.push import with_facts
from core.writes import Piece, attempt

from .forms import CharacterForm, HandOverForm, SavedRollForm


def sheet_context(request, campaign, character, *, section=None, **overrides):
    """The context of one section, or of the whole page when ``section`` is None."""
    context = {
        "campaign": campaign,
        "system": system_of(campaign),
        "character": character,
        "is_gm": campaign.viewer.is_gm,
        "can_edit": can_edit(campaign, character),
        # Its private side (e.g. mana pools, sparetime): its player's and the GM's alone.
        "sees_private": sees_private(campaign, character),
    }
    if section in (None, "header"):
        context["header_form"] = CharacterForm(instance=character)
        # The GM's own (an NPC), or a former member's (its player deleted their account).
        if context["is_gm"] and character.owner_id in (None, campaign.viewer.user_id):
            context["hand_over_form"] = HandOverForm(
                campaign=campaign, auto_id=f"hand-over-{character.pk}-%s"
            )
    if section in (None, "saved_rolls") and context["can_edit"]:
        context.update(saved_context(campaign, character, context["system"]))
    # The campaign's system's sections (its ``sheet_sections``; their context its sheet's).
    context.update(
        context["system"].sheet.section_context(
            campaign, character, section, private=context["sees_private"]
        )
    )
    context.update(overrides)
    return context


def saved_context(campaign, character, system):
    """The saved rolls section's: the rolls, the form of a new one with the system's choices
    of a check (``saved_check_fields``), whether a check keeps its number (an NPC's: the GM
    rolls it at once) and whether the viewer rolls them (the character's own)."""
    owner = character.owner_id
    return {
        "saved_rolls": list(character.saved_rolls.all()),
        "saved_form": SavedRollForm(auto_id=f"saved-{character.pk}-%s"),
        "saved_fields": system.saved_check_fields(character),
        "saved_target": owner == campaign.gm_id(),
        "rolls_saved": owner is not None and owner == campaign.viewer.user_id,
    }


def sheet_page(request, context, replace):
    """The sheet page, with ``replace``'s HTML in place of the sections it names."""
    page = sheet_context(request, context["campaign"], context["character"])
    return render_sheet(request, page, replace)


def render_sheet(request, context, replace=None):
    """The sheet page of ``context`` (the whole sheet's), ``replace`` as in ``sheet_page``."""
    replace = replace or {}
    sections = placed(context["system"].sheet_sections, replace)
    context = {**context, "replace": replace, "system_sections": sections}
    return render(request, "sheets/detail.html", context)


def section(name, template):
    """A section of the sheet that loads on its own: its GET is ``character_detail`` with
    ``?section=<name>``, its context ``sheet_context``'s for it, a plain post goes back to the
    sheet."""
    return Piece(
        name=name,
        template=template,
        context=partial(sheet_context, section=name),
        page=sheet_page,
        url="character_detail",
    )


#: The sheet's own section: the character's name, concept and history, the GM's hand-over.
HEADER = section("header", "sheets/_sheet_header.html")
#: The character's saved rolls (its player's and the GM's alone), after the system's sections.
SAVED = section("saved_rolls", "sheets/_saved_rolls.html")


def pieces(campaign):
    """The sections of the sheet of ``campaign``'s characters that answer ``?section=<name>``,
    by name: the header and its system's ``sheet_pieces``."""
    own = {HEADER.name: HEADER, SAVED.name: SAVED}
    return {**own, **{p.name: p for p in system_of(campaign).sheet_pieces}}


def _error_text(form):
    parts = []
    for name, errors in form.errors.items():
        field = form.fields.get(name)
        text = " ".join(errors)
        parts.append(f"{field.label or name.capitalize()}: {text}" if field else text)
    return " ".join(parts)


def refusal(ok, refused, form):
    """What a section shows after a write: nothing when it went through, else the service's
    sentence (``refused``) or the form's errors as one."""
    if ok:
        return None
    return refused or _error_text(form)


def section_write(request, campaign, character, piece, form, write):
    """Run ``write`` (a change of ``character``'s facts) when ``form`` is valid, and answer with
    the sheet's section ``piece``, the refusal in its ``<name>_error``."""
    ok, refused = attempt(with_facts(write, campaign, [character]), form=form)
    error = {f"{piece.name}_error": refusal(ok, refused, form)}
    return piece.answer(request, campaign, character, ok=ok, **error)
