"""How daphne serves the websockets, whichever way it is started (``daphne``, ``manage.py host``,
``manage.py runserver``, the tests' live servers): ``install()``, called by ``config/routing.py``,
which every ASGI application of the project imports, has daphne build its websocket protocols
with ``SocketFactory`` instead of its own factory.

- A frame or message over ``MAX_FRAME`` bytes is refused by autobahn as soon as its header
  announces its length, before it is read into memory: the socket closes with 1009 (message too
  big) and autobahn's reason. Daphne's own limit is 1 MiB and autobahn, by default, drops the
  TCP connection without a close frame (the client sees 1006, as for a network failure). Smaller
  frames reach the consumer, which refuses what it does not expect with a code of its own
  (``room.consumers``).
- A consumer's close reason (the ``reason`` of ASGI's ``websocket.close``) reaches the client:
  daphne passes on only the code.
- A text frame is framed once for every socket it goes to: a push reaches each socket of its
  audience with the same string (``core.push``), and the factory keeps the frames of the last
  ``PREPARED_KEPT`` texts, made by autobahn's ``prepareMessage`` and written by
  ``sendPreparedMessage`` (its API for broadcasting), instead of each socket encoding and
  framing it again.
- A frame goes to the socket at once (``write_now``), as asyncio's own transports write: twisted
  puts every write in its buffer and asks the event loop to wake it when the socket can take
  it, two ``epoll_ctl`` calls and a turn of the loop per frame, most of what a push to a
  room of 100 sockets cost per socket. What the socket does not take waits in twisted's buffer,
  and while anything waits there the next frames go through it, in order.

``SocketProtocol`` overrides daphne's ``WebSocketProtocol.handle_reply`` and ``serverClose``,
and autobahn's ``sendData``; ``write_now`` reads twisted's ``tcp.Server`` buffer (its
``FileDescriptor`` fields and its ``_aborting``);
``install()`` replaces the ``WebSocketFactory`` that ``daphne.server.Server.run`` builds, in
``daphne.server`` and in ``daphne.ws_protocol``, where it comes from.
``CHECKED_WITH`` names the daphne, autobahn and twisted versions this was read against;
``tests/config/test_websocket_server.py`` fails when an upgrade changes one.
"""

from daphne import server, ws_protocol
from daphne.ws_protocol import WebSocketFactory, WebSocketProtocol
from twisted.internet import tcp

#: The (major, minor) versions of daphne's ws_protocol and server, of autobahn's protocol
#: options and ``sendData``, and of twisted's ``FileDescriptor`` buffer, this module was checked
#: against.
CHECKED_WITH = {"daphne": (4, 2), "autobahn": (26, 11), "twisted": (26, 10)}

#: The largest frame or message, in bytes, the protocol reads before the consumer sees it.
MAX_FRAME = 64 * 1024

#: How many texts' frames the factory keeps: a roll's push has at most three audiences, and the
#: cards that travel with it a few more.
PREPARED_KEPT = 16


def write_now(transport, data):
    """Write ``data`` to ``transport``'s socket at once, as asyncio's own transports do, when
    it is a plain TCP connection, open, with nothing waiting in twisted's buffer (whatever the
    socket does not take goes there, after which twisted writes it); False, having written
    nothing, otherwise (TLS, a connection closing, data waiting, a socket error, which
    twisted's own write then meets and handles)."""
    if (
        type(transport) is not tcp.Server
        or transport.TLS
        or not transport.connected
        or transport.disconnecting
        or transport._aborting
        or transport._writeDisconnected
        or transport._tempDataBuffer
        or transport.offset != len(transport.dataBuffer)
    ):
        return False
    try:
        sent = transport.socket.send(data)
    except (BlockingIOError, InterruptedError):
        sent = 0
    except OSError:
        return False  # twisted's own write meets it again, and closes the connection
    if sent < len(data):
        transport.write(data[sent:])
    return True


class SocketProtocol(WebSocketProtocol):
    """Daphne's websocket protocol, passing a consumer's close reason on."""

    def handle_reply(self, message):
        kind = message.get("type")
        if kind == "websocket.close" and self.state != self.STATE_CONNECTING:
            self.serverClose(code=message.get("code"), reason=message.get("reason"))
            return
        if kind == "websocket.send" and self.state == self.STATE_OPEN:
            text = message.get("text")
            prepared = None if message.get("bytes") or not text else self.factory.prepared(text)
            if prepared is not None:
                self.sendPreparedMessage(prepared)
                return
        super().handle_reply(message)

    def sendData(self, data, sync=False, chopsize=None):
        """Autobahn's, but that a frame with nothing queued before it is written at once
        (``write_now``). Autobahn's own counts only its traffic statistics, which are not
        read, and logs at debug level."""
        if sync or chopsize or self.send_queue or not write_now(self.transport, data):
            super().sendData(data, sync=sync, chopsize=chopsize)

    def serverClose(self, code=None, reason=None):
        self.sendClose(code=1000 if code is None else code, reason=reason or None)


class SocketFactory(WebSocketFactory):
    """Daphne's websocket factory, with ``SocketProtocol`` and the options of this module."""

    protocol = SocketProtocol

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.frames = {}

    def prepared(self, text):
        """The frame of ``text`` (autobahn's ``PreparedMessage``), made on its first send and
        kept for the next sockets; None for a text over ``MAX_FRAME`` bytes, which daphne's own
        send refuses as before."""
        frame = self.frames.get(text)
        if frame is None:
            payload = text.encode("utf8")
            if len(payload) > MAX_FRAME:
                return None
            if len(self.frames) >= PREPARED_KEPT:
                del self.frames[next(iter(self.frames))]
            frame = self.frames[text] = self.prepareMessage(payload)
        return frame

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
