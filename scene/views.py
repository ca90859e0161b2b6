"""The scene's pages: the pictures, served to the campaign's members only; the GM's scenes
page (maps, their grids, their tokens; which one the table sees); the room's scene card.

Every write runs in one transaction (``core.writes.attempt``) and answers with the scenes
section (``SCENES``: htmx gets it, 422 when refused; a plain post a redirect, or the page with
the refusal); its pushes reach the members' open rooms once it commits (``scene.push``)."""

from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch
from django.http import Http404, HttpResponse, HttpResponseNotModified
from django.shortcuts import get_object_or_404, render
from django.templatetags.static import static
from django.utils.html import format_html
from django.views.decorators.http import require_GET, require_POST

from campaigns.access import campaign_for
from core.text import isolated
from core.writes import Piece, attempt

from . import services
from .forms import PALETTE, GridForm, SceneForm, TokenForm
from .models import Picture, Scene, Token
from .push import render_scene
from .services import picture_visible

#: A picture's address names its digest, so its bytes never change: a browser keeps it for good
#: (a year, the most HTTP allows to say), but only for this user ("private": not a shared cache).
PICTURE_CACHE = "private, max-age=31536000, immutable"


def _picture_headers(response, picture):
    response["ETag"] = f'"{picture.digest}"'
    response["Cache-Control"] = PICTURE_CACHE
    return response


@login_required
@require_GET
def picture(request, campaign_id, picture_id, digest):
    """A picture's bytes, to the campaign's members only (404 for anyone else, and for an
    address whose digest is not the picture's), with its type as read from its bytes; a
    browser that has it already (``If-None-Match``) gets 304."""
    campaign = campaign_for(request, campaign_id)
    found = get_object_or_404(Picture.objects.defer("data"), campaign=campaign, pk=picture_id)
    # A handout's picture is for those the handout is shared with: the address alone must not
    # show it to the other members.
    if found.digest != digest or not picture_visible(found, campaign, request.user):
        raise Http404("No such picture.")
    asked = request.headers.get("If-None-Match", "")
    tags = [tag.strip().removeprefix("W/") for tag in asked.split(",")]
    if f'"{found.digest}"' in tags or "*" in tags:
        return _picture_headers(HttpResponseNotModified(), found)
    data = Picture.objects.values_list("data", flat=True).get(pk=found.pk)
    response = HttpResponse(bytes(data), content_type=found.content_type)
    # Served as the type its bytes were read as, never guessed again by the browser; shown, not
    # downloaded.
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Disposition"] = "inline"
    return _picture_headers(response, found)


# The GM's scenes -------------------------------------------------------------------------------


def _scenes_context(
    request, campaign, *, add_form=None, grid_forms=None, token_forms=None, error="", notice=""
):
    """The GM's scenes, each with its grid form, its tokens and a form to add one; a refused
    form in its place (``add_form``; ``grid_forms``/``token_forms``: {scene id: form}) and
    ``error``, the refusal of a write that has no form."""
    grid_forms, token_forms = grid_forms or {}, token_forms or {}
    scenes = list(
        Scene.objects.filter(campaign=campaign)
        .select_related("picture")
        .prefetch_related(Prefetch("tokens", Token.objects.select_related("character")))
    )
    rows = []
    for scene in scenes:
        initial = {f: getattr(scene, f) for f in ("grid", "grid_x", "grid_y", "snap")}
        rows.append(
            {
                "scene": scene,
                "grid_form": grid_forms.get(scene.pk)
                or GridForm(initial=initial, auto_id=f"grid-{scene.pk}-%s"),
                "token_form": token_forms.get(scene.pk)
                or TokenForm(campaign, auto_id=f"token-{scene.pk}-%s"),
            }
        )
    return {
        "campaign": campaign,
        "rows": rows,
        "add_form": add_form or SceneForm(auto_id="scene-add-%s"),
        "palette": PALETTE,
        "error": error,
        "notice": notice,
    }


def _scenes_page(request, context, replace):
    return render(request, "scene/scenes.html", {**context, "html": replace["scenes"]})


SCENES = Piece(
    name="scenes",
    template="scene/_scenes.html",
    context=_scenes_context,
    page=_scenes_page,
    url="scenes",
    url_ids=1,
    access=lambda request, campaign_id: (campaign_for(request, campaign_id, gm=True),),
)
#: The GM's scenes page (403 for a player, 404 for anyone else).
scenes = SCENES.view()


def _gm_scene(request, campaign_id, scene_id):
    campaign = campaign_for(request, campaign_id, gm=True)
    scene = get_object_or_404(
        Scene.objects.select_related("picture"), campaign=campaign, pk=scene_id
    )
    scene.campaign = campaign
    return campaign, scene


def _with_refusal(form, refusal, field=None):
    if refusal:
        form.add_error(field, refusal)
    return form


@login_required
@require_POST
def scene_add(request, campaign_id):
    campaign = campaign_for(request, campaign_id, gm=True)
    form = SceneForm(request.POST, request.FILES, auto_id="scene-add-%s")
    ok, result = attempt(
        lambda: services.scene_add(
            campaign=campaign, name=form.cleaned_data["name"], upload=form.cleaned_data["image"]
        ),
        form=form,
        once_by=request.user,
    )
    if not ok:
        refused = _with_refusal(form, result, "image")
        return SCENES.answer(request, campaign, ok=ok, add_form=refused)
    # A double submit (``result`` None) is answered as the first.
    notice = f"Added the scene {isolated(form.cleaned_data['name'])}."
    return SCENES.answer(request, campaign, ok=ok, notice=notice)


@login_required
@require_POST
def scene_grid(request, campaign_id, scene_id):
    campaign, scene = _gm_scene(request, campaign_id, scene_id)
    form = GridForm(request.POST, auto_id=f"grid-{scene.pk}-%s")
    ok, result = attempt(lambda: services.scene_grid(scene=scene, **form.cleaned_data), form=form)
    if not ok:
        refused = {scene.pk: _with_refusal(form, result)}
        return SCENES.answer(request, campaign, ok=ok, grid_forms=refused)
    return SCENES.answer(
        request, campaign, ok=ok, notice=f"The grid of {isolated(scene.name)} is set."
    )


@login_required
@require_POST
def scene_show(request, campaign_id, scene_id):
    campaign, scene = _gm_scene(request, campaign_id, scene_id)
    ok, result = attempt(lambda: services.scene_show(scene=scene, by=request.user))
    notice = f"The table sees {isolated(scene.name)}." if ok else ""
    return SCENES.answer(request, campaign, ok=ok, notice=notice, error="" if ok else result)


@login_required
@require_POST
def scene_hide(request, campaign_id):
    campaign = campaign_for(request, campaign_id, gm=True)
    ok, result = attempt(lambda: services.scene_hide(campaign=campaign))
    notice = "No scene is shown." if ok else ""
    return SCENES.answer(request, campaign, ok=ok, notice=notice, error="" if ok else result)


@login_required
@require_POST
def scene_delete(request, campaign_id, scene_id):
    campaign, scene = _gm_scene(request, campaign_id, scene_id)
    ok, result = attempt(lambda: services.scene_delete(scene=scene))
    notice = f"Deleted the scene {isolated(scene.name)}." if ok else ""
    return SCENES.answer(request, campaign, ok=ok, notice=notice, error="" if ok else result)


@login_required
@require_POST
def token_add(request, campaign_id, scene_id):
    campaign, scene = _gm_scene(request, campaign_id, scene_id)
    form = TokenForm(campaign, request.POST, request.FILES, auto_id=f"token-{scene.pk}-%s")

    def write():
        data = form.cleaned_data
        return services.token_add(
            scene=scene,
            name=form.token_name(),
            colour=data["colour"],
            character=data["character"],
            upload=data["image"],
            gm_only=data["gm_only"],
        )

    ok, result = attempt(write, form=form, once_by=request.user)
    if not ok:
        refused = {scene.pk: _with_refusal(form, result, "image")}
        return SCENES.answer(request, campaign, ok=ok, token_forms=refused)
    # A double submit (``result`` None) is answered as the first.
    notice = f"Added the token {isolated(form.token_name())}."
    return SCENES.answer(request, campaign, ok=ok, notice=notice)


@login_required
@require_POST
def token_remove(request, campaign_id, scene_id, token_id):
    campaign, scene = _gm_scene(request, campaign_id, scene_id)
    token = get_object_or_404(Token, scene=scene, pk=token_id)
    token.scene = scene
    ok, result = attempt(lambda: services.token_remove(token=token))
    notice = f"Removed the token {isolated(token.name)}." if ok else ""
    return SCENES.answer(request, campaign, ok=ok, notice=notice, error="" if ok else result)


# The room's card -------------------------------------------------------------------------------


def room_card(request, campaign):
    """The shown scene's card on the room page (``room.views.ROOM_CARDS``), with its script."""
    card = render_scene(
        campaign, user_id=request.user.pk, is_gm=campaign.viewer.is_gm, request=request
    )
    script = format_html('<script src="{}" defer></script>', static("js/scene.js"))
    return card + script


@login_required
@require_GET
def scene_card(request, campaign_id):
    """The shown scene's card for the viewer, fetched again after a reconnect (a push may have
    been missed) or on a "scene" event."""
    campaign = campaign_for(request, campaign_id)
    html = render_scene(
        campaign, user_id=request.user.pk, is_gm=campaign.viewer.is_gm, request=request
    )
    return HttpResponse(html)
