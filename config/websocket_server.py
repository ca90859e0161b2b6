"""How daphne serves the websockets, whichever way it is started (``daphne``, ``manage.py host``,
``manage.py runserver``, the tests' live servers): ``install()``, called by ``config/routing.py``,
which every ASGI application of the project imports, has daphne build its websocket protocols
with ``SocketFactory`` instead of its own factory.

- A frame or message over ``MAX_FRAME`` bytes is refused by autobahn as soon as its header
  announces its length, before it is read into memory: the socket closes with 1009 (message too
  big) and autobahn's reason. Daphne's own limit is 1 MiB and autobahn, by default, drops the
  TCP connection without a close frame (the client sees 1006, as for a network failure). Smaller
  frames reach the consumer, which refuses what it does not expect with a code of its own
  (``rolls.consumers``).
- A consumer's close reason (the ``reason`` of ASGI's ``websocket.close``) reaches the client:
  daphne passes on only the code.

``SocketProtocol`` overrides daphne's ``WebSocketProtocol.handle_reply`` and ``serverClose``;
``install()`` replaces the ``WebSocketFactory`` that ``daphne.server.Server.run`` builds, in
``daphne.server`` and in ``daphne.ws_protocol``, where it comes from.
``CHECKED_WITH`` names the daphne and autobahn versions this was read against;
``tests/config/test_websocket_server.py`` fails when an upgrade changes either.
"""

from daphne import server, ws_protocol
from daphne.ws_protocol import WebSocketFactory, WebSocketProtocol

#: The (major, minor) versions of daphne's ws_protocol and server, and of autobahn's protocol
#: options, this module was checked against.
CHECKED_WITH = {"daphne": (4, 2), "autobahn": (26, 11)}

#: The largest frame or message, in bytes, the protocol reads before the consumer sees it.
MAX_FRAME = 64 * 1024


class SocketProtocol(WebSocketProtocol):
    """Daphne's websocket protocol, passing a consumer's close reason on."""

    def handle_reply(self, message):
        if message.get("type") == "websocket.close" and self.state != self.STATE_CONNECTING:
            self.serverClose(code=message.get("code"), reason=message.get("reason"))
        else:
            super().handle_reply(message)

    def serverClose(self, code=None, reason=None):
        self.sendClose(code=1000 if code is None else code, reason=reason or None)


class SocketFactory(WebSocketFactory):
    """Daphne's websocket factory, with ``SocketProtocol`` and the options of this module."""

    protocol = SocketProtocol

    def setProtocolOptions(self, **options):
        options.update(
            maxFramePayloadSize=MAX_FRAME,
            maxMessagePayloadSize=MAX_FRAME,
            failByDrop=False,  # fail with a close frame, its code and reason
        )
        super().setProtocolOptions(**options)


def install():
    """Have daphne's server build ``SocketFactory`` (idempotent): the name its module imported,
    and the one it imports should it be imported again (daphne's test server does that, in
    the process it forks)."""
    server.WebSocketFactory = ws_protocol.WebSocketFactory = SocketFactory
