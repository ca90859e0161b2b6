"""The error pages: Django's handlers, with the 400 page saying how to let the server answer to a
host name it refuses."""

from django.core.exceptions import DisallowedHost
from django.http import HttpResponseBadRequest
from django.http.request import split_domain_port
from django.shortcuts import render
from django.views.decorators.csrf import requires_csrf_token


@requires_csrf_token
def bad_request(request, exception):
    """400. For a host name not in DJANGO_ALLOWED_HOSTS (a friend opening the GM's computer by
    its network address, say) the page names it and says how to add it; it never shows the
    names that are allowed."""
    host = ""
    if isinstance(exception, DisallowedHost):
        raw = request.META.get("HTTP_HOST") or request.META.get("SERVER_NAME", "")
        host, _port = split_domain_port(raw)  # "" when not a valid host name
    response = render(request, "400.html", {"host": host})
    return HttpResponseBadRequest(response.content)
