"""The scene's pages: the pictures, served to the campaign's members only."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, HttpResponseNotModified
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET

from campaigns.access import campaign_for

from .models import Picture
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
