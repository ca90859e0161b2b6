"""The ``rollroomtls:`` endpoint that ``manage.py host --cert --key`` gives daphne (``-e``):
twisted's own ``ssl:`` endpoint, with the same fields, that answers a plain HTTP request (a
player who typed ``http://``) with a 400 saying to use ``https://``, where ``ssl:`` alone closes
the connection without a word (twisted/twisted#7338).

Twisted finds it by its plugin system (a string parser, ``IStreamServerEndpointStringParser``,
in ``twisted/plugins/rollroom_endpoints.py`` of the project's folder, which daphne has on its
path as it runs from there). The ``ssl:`` description is parsed by twisted as before
(``serverFromString``), with a reactor whose ``listenSSL`` does what twisted's own does (a
``TLSMemoryBIOFactory`` over ``listenTCP``) with one step before the TLS protocol: the first
byte of a connection. A TLS client starts with a handshake record (0x16) and is handed to TLS
untouched; anything else gets the 400 and the connection is closed, without reaching daphne.
"""

import re

from twisted.internet.endpoints import serverFromString
from twisted.internet.interfaces import IReactorSSL, IStreamServerEndpointStringParser
from twisted.plugin import IPlugin
from twisted.protocols.policies import ProtocolWrapper, WrappingFactory
from twisted.protocols.tls import TLSMemoryBIOFactory
from zope.interface import implementer

PREFIX = "rollroomtls"
HANDSHAKE = 0x16  # the content type of a TLS handshake record, a ClientHello's first byte
# A Host header: only a host name, an IPv4 address or a bracketed IPv6 one, with a port or not,
# is repeated in the answer, and only when it is the request's one Host; anything else could make
# the text say what its sender wants.
HOST = re.compile(rb"^host:(.*?)\r?$", re.I | re.M)
NAME = re.compile(rb"([A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(:[0-9]{1,5})?")


def refusal(request):
    """The answer to ``request`` (the first bytes of a connection that did not start TLS): a
    400 in plain text telling to open the address with https://, the request's Host in it when
    it is a host name or address."""
    hosts = HOST.findall(request)
    name = NAME.fullmatch(hosts[0].strip(b" \t")) if len(hosts) == 1 else None
    if name:
        url = f"https://{name.group().decode()}/"
        body = f"This address is served over HTTPS: open {url} instead.\n"
    else:
        body = "This address is served over HTTPS: open it with https:// instead of http://.\n"
    body = body.encode()
    head = (
        "HTTP/1.1 400 Bad Request\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
        "X-Content-Type-Options: nosniff\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode() + body


class PlainHTTPRefusal(ProtocolWrapper):
    """In front of the TLS protocol: a connection that starts with a TLS handshake record
    goes to it byte for byte; any other is answered with ``refusal`` and closed."""

    tls = None  # whether the connection started TLS, once its first byte came

    def dataReceived(self, data):
        if self.tls is None:
            self.tls = data[0] == HANDSHAKE
            if not self.tls:
                self.transport.write(refusal(data))
                self.transport.loseConnection()
        if self.tls:
            super().dataReceived(data)


class PlainHTTPRefusingFactory(WrappingFactory):
    protocol = PlainHTTPRefusal


@implementer(IReactorSSL)
class RefusingPlainHTTP:
    """A reactor for twisted's ``ssl:`` endpoint: its ``listenSSL`` is twisted's own (the TLS
    protocol over a TCP port) with ``PlainHTTPRefusal`` in front of the TLS protocol."""

    def __init__(self, reactor):
        self.reactor = reactor

    def listenSSL(self, port, factory, contextFactory, backlog=50, interface=""):
        tls = TLSMemoryBIOFactory(contextFactory, False, factory)
        return self.reactor.listenTCP(port, PlainHTTPRefusingFactory(tls), backlog, interface)

    def connectSSL(self, *args, **kwargs):
        raise NotImplementedError("rollroomtls: is a server endpoint only")


def field(value):
    """``value`` quoted again for a twisted endpoint description (``\\`` escapes the field
    separator ``:``, the ``=`` between a name and its value, and itself)."""
    return re.sub(r"([\\:=])", r"\\\1", value)


@implementer(IPlugin, IStreamServerEndpointStringParser)
class RollroomTLSParser:
    """``rollroomtls:FIELDS``: the endpoint ``ssl:FIELDS`` (port, interface, privateKey,
    certKey, extraCertChain...) that answers plain HTTP with ``refusal``."""

    prefix = PREFIX

    def parseStreamServer(self, reactor, *args, **kwargs):
        fields = [*map(field, args), *(f"{k}={field(v)}" for k, v in kwargs.items())]
        return serverFromString(RefusingPlainHTTP(reactor), ":".join(["ssl", *fields]))
