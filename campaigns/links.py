"""Links people can open: every absolute link the site makes for someone to open elsewhere (the
GM panel's invite link, a password reset link) begins with ROLLROOM_PUBLIC_URL when it is set,
else with the address the visitor reached the site by (config/settings.py).

A GM who opened the site on this computer (127.0.0.1, localhost) gets a link that names this
computer, which reaches no one else: when the server listens on the network (ROLLROOM_LISTEN,
which ``manage.py host`` sets for the daphne it starts), ``elsewhere`` gives the address their
players use instead, for the panel to show beside the link."""

import ipaddress
import socket
from dataclasses import dataclass

from django.conf import settings
from django.http.request import split_domain_port, validate_host


def absolute(request, path):
    """The link to ``path`` (``/join/...``) as someone else opens it: under
    ROLLROOM_PUBLIC_URL when set, else under the address ``request`` came by."""
    if settings.ROLLROOM_PUBLIC_URL:
        return settings.ROLLROOM_PUBLIC_URL + path
    return request.build_absolute_uri(path)


def network_address():
    """This computer's address on its network, as friends reach it (nothing is sent: a UDP
    socket only picks the interface of its route); None without a network."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never answered
            return probe.getsockname()[0]
        except OSError:
            return None


def is_loopback(host):
    """Whether ``host`` (a name or an address, IPv6 with or without brackets) names this
    computer alone: localhost, 127.0.0.0/8, ::1."""
    host = host.strip("[]").rstrip(".").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def network_origin(scheme):
    """``scheme://ADDRESS:PORT`` by which the network reaches this server, as it listens
    (settings.ROLLROOM_LISTEN; every interface: this computer's network address); None when it
    is not told, listens on this computer alone, or has no network."""
    if not settings.ROLLROOM_LISTEN:
        return None
    address, port = settings.ROLLROOM_LISTEN
    if is_loopback(address):
        return None
    try:
        everywhere = ipaddress.ip_address(address).is_unspecified
    except ValueError:  # a name
        everywhere = False
    if everywhere:
        address = network_address()
        if address is None:
            return None
    host = f"[{address}]" if ":" in address else address
    return f"{scheme}://{host}:{port}"


@dataclass(frozen=True)
class Elsewhere:
    """What the panel says beside a link that names this computer alone: the name the visitor
    used (``visited``), the server's address on the network (``origin``), the link there
    (``link``), and whether the server answers to that address (settings.ALLOWED_HOSTS)."""

    visited: str
    origin: str
    link: str
    answered: bool


def elsewhere(request, path):
    """The ``Elsewhere`` of the link to ``path`` when ``request`` came by a loopback address
    while the server listens on the network; None when ROLLROOM_PUBLIC_URL is set (links use
    it), the visitor came by another address, or the server is not reachable from the network."""
    if settings.ROLLROOM_PUBLIC_URL:
        return None
    visited, _port = split_domain_port(request.get_host())
    if not is_loopback(visited):
        return None
    origin = network_origin(request.scheme)
    if origin is None:
        return None
    domain, _port = split_domain_port(origin.split("://", 1)[1])
    return Elsewhere(
        visited=visited,
        origin=origin,
        link=origin + path,
        answered=validate_host(domain, settings.ALLOWED_HOSTS),
    )
