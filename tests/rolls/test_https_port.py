"""rolls/https_port.py: the answer to plain HTTP on the HTTPS port, and the connection's first
byte deciding between it and TLS (the real server: tests/rolls/test_host.py)."""

import pytest
from twisted.internet.endpoints import serverFromString
from twisted.internet.interfaces import IStreamServerEndpointStringParser
from twisted.internet.protocol import Factory, Protocol
from twisted.internet.testing import MemoryReactor, StringTransport
from twisted.plugin import getPlugins

from rolls.https_port import PREFIX, PlainHTTPRefusingFactory, refusal
from tests.helpers import make_certificate


def body(answer):
    head, _, text = answer.decode().partition("\r\n\r\n")
    assert head.startswith("HTTP/1.1 400 Bad Request\r\n")
    assert f"Content-Length: {len(text.encode())}" in head
    return text


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("table.example.net:8443", "https://table.example.net:8443/"),
        ("192.168.1.23:8443", "https://192.168.1.23:8443/"),
        ("[::1]:8443", "https://[::1]:8443/"),
        ("table.example.net", "https://table.example.net/"),
    ],
)
def test_the_refusal_names_the_https_address(host, url):
    request = f"GET / HTTP/1.1\r\nUser-Agent: x\r\nHost: {host}\r\nAccept: */*\r\n\r\n"
    assert body(refusal(request.encode())) == (
        f"This address is served over HTTPS: open {url} instead.\n"
    )


@pytest.mark.parametrize(
    "request_",
    [
        b"GET / HTTP/1.1\r\nHost: <script>alert(1)</script>\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: evil.example/phish?\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\r\n",
        b"GET / HTTP/1.0\r\n\r\n",
        b"\xff\xfe\x00garbage",
        b"G",
    ],
)
def test_a_host_that_is_not_a_name_or_an_address_is_not_repeated(request_):
    assert body(refusal(request_)) == (
        "This address is served over HTTPS: open it with https:// instead of http://.\n"
    )


class Recorder(Protocol):
    def connectionMade(self):
        self.received = b""

    def dataReceived(self, data):
        self.received += data


def connected():
    """A connection through ``PlainHTTPRefusingFactory`` in front of a recorder, as (the
    recorder, the connection's transport)."""
    recorders = []

    class Recorders(Factory):
        def buildProtocol(self, addr):
            recorders.append(Recorder())
            return recorders[-1]

    protocol = PlainHTTPRefusingFactory(Recorders()).buildProtocol(None)
    transport = StringTransport()
    protocol.makeConnection(transport)
    return protocol, recorders[0], transport


def test_a_tls_handshake_goes_through_untouched():
    protocol, inner, transport = connected()
    protocol.dataReceived(b"\x16\x03\x01\x02\x00")
    protocol.dataReceived(b"GET / HTTP/1.1\r\n")  # after the first byte, anything goes on
    assert inner.received == b"\x16\x03\x01\x02\x00GET / HTTP/1.1\r\n"
    assert transport.value() == b"" and not transport.disconnecting


def test_plain_http_is_answered_and_closed_before_the_tls_protocol():
    protocol, inner, transport = connected()
    protocol.dataReceived(b"GET / HTTP/1.1\r\nHost: 127.0.0.1:8443\r\n\r\n")
    assert inner.received == b""
    assert body(transport.value()).startswith("This address is served over HTTPS")
    assert transport.disconnecting


def test_twisted_finds_the_endpoint_and_listens_on_tcp_with_the_ssl_fields(tmp_path):
    """The plugin (twisted/plugins/rollroom_endpoints.py) is found by its prefix; the
    ``ssl:`` fields, escaped ones too, reach twisted's own parser."""
    assert PREFIX in [p.prefix for p in getPlugins(IStreamServerEndpointStringParser)]
    folder = tmp_path / "certs: mine"
    folder.mkdir()
    cert, key = make_certificate(folder)
    quoted = str(folder).replace(":", "\\:")
    reactor = MemoryReactor()
    endpoint = serverFromString(
        reactor,
        f"{PREFIX}:port=8443:interface=127.0.0.1:privateKey={quoted}/cert.key"
        f":certKey={quoted}/cert.pem",
    )
    endpoint.listen(Factory.forProtocol(Recorder))
    [(port, factory, backlog, interface)] = reactor.tcpServers
    assert (port, interface) == (8443, "127.0.0.1")
    assert isinstance(factory, PlainHTTPRefusingFactory)
