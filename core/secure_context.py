"""Cross-Origin-Opener-Policy only where a browser honours it (config/settings.py's
MIDDLEWARE, outside Django's SecurityMiddleware, which adds the header to every response).

A browser honours the header only on a potentially trustworthy origin: HTTPS, or plain HTTP to
localhost or a loopback address. On any other (players on the GM's plain-HTTP address on the
home network, http://192.168.x.y:8000) it ignores it, and Chromium logs a console error on
every page saying so. There the header is left off: it protected nothing."""

import ipaddress

HEADER = "Cross-Origin-Opener-Policy"


def trustworthy(request):
    """Whether the browser takes the origin ``request`` reached as potentially trustworthy
    (https://w3c.github.io/webappsec-secure-contexts/): HTTPS (``is_secure``: behind a proxy,
    as settings.SECURE_PROXY_SSL_HEADER says), localhost and its subdomains, a loopback IP."""
    if request.is_secure():
        return True
    # The raw Host (the Host header, else SERVER_NAME): the answer's header only, and
    # request.get_host() would raise again for a host settings.ALLOWED_HOSTS refuses.
    host = (request.META.get("HTTP_HOST") or request.META.get("SERVER_NAME") or "").lower()
    if host.startswith("["):
        name = host[1 : host.find("]")]
    else:
        name = host.rsplit(":", 1)[0]
    name = name.rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


class OpenerPolicyWhereHonoured:
    """Removes Cross-Origin-Opener-Policy from an answer to an origin that is not potentially
    trustworthy (``trustworthy``)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if HEADER in response.headers and not trustworthy(request):
            del response.headers[HEADER]
        return response
