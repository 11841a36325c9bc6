"""A push is written to an idle websocket at once, not handed to the socket's writer greenlet.

Engine.IO (gevent mode) queues every packet for a writer greenlet of its socket, which wakes,
builds the websocket frame, asks the kernel for the socket's buffer size (gevent's `sendall`),
writes, and sets a new timer to wait again. For a push to forty screens that is forty wake-ups,
each doing what the others did. Here, when a socket's queue is empty and its writer is not in
the middle of a write, the frame (made once per push, shared by every socket of the room) goes
to the kernel straight away, without waiting. Whatever the kernel does not take at once (a
screen that stopped reading, a full buffer) is queued as raw bytes for the writer, ahead of
anything sent after it: every socket still gets its packets whole and in order, and one slow
screen still holds up nobody but itself.

A push to a room (`Manager`, the app's Socket.IO manager when there is no message queue) goes to
all its sockets in one loop (`WriteThrough.many`). Everything else keeps Engine.IO's path:
long-polling sockets, an upgrade under way, a socket closing or waiting for its ping's answer, a
socket with packets already queued. Installed on
one Engine.IO server (`install`), only in gevent mode with gevent-websocket, where a websocket
write is a non-blocking call on the one event loop's thread.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import socketio  # type: ignore[import-untyped]
from engineio import packet as eio_packet  # type: ignore[import-untyped]
from engineio.async_drivers import gevent as engineio_gevent  # type: ignore[import-untyped]
from geventwebsocket.websocket import Header  # type: ignore[import-untyped]
from socketio import packet as sio_packet

TEXT, BINARY = 0x1, 0x2


class RawBytes(bytes):
    """The rest of a frame the kernel did not take: written as it is, not framed again."""


class Rest:
    """A queued packet that is the rest of a frame already begun on the wire."""

    def __init__(self, data: bytes) -> None:
        """Hold the bytes still to write."""
        self.data = RawBytes(data)

    def encode(self) -> RawBytes:
        """Return the bytes as they go out (Engine.IO's writer encodes each packet it sends)."""
        return self.data


def frame_of(pkt: Any) -> bytes:
    """Return the websocket frame of an Engine.IO packet, as gevent-websocket would send it."""
    data = pkt.encode()
    if isinstance(data, str):
        payload, opcode = data.encode("utf-8"), TEXT
    else:
        payload, opcode = bytes(data), BINARY
    return bytes(Header.encode_header(True, opcode, b"", len(payload), 0)) + payload


class WebSocketWSGI(engineio_gevent.WebSocketWSGI):  # type: ignore[misc]
    """Engine.IO's gevent-websocket wrapper, which tells its Engine.IO socket how to write through."""

    # The Engine.IO socket's attribute that holds its wrapper while the websocket is open.
    ATTRIBUTE = "_referee_websocket"

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        """Run Engine.IO's websocket handler with this wrapper known to its socket."""
        self.writing = False
        self.connection = None
        owner = getattr(self.app, "__self__", None)  # the Engine.IO socket whose handler this is
        ws = environ.get("wsgi.websocket")
        handler = getattr(getattr(ws, "stream", None), "handler", None)
        if owner is not None and handler is not None:
            self.connection = handler.socket
            setattr(owner, self.ATTRIBUTE, self)
        try:
            return super().__call__(environ, start_response)
        finally:
            self.connection = None
            if owner is not None:
                setattr(owner, self.ATTRIBUTE, None)

    def send(self, message: Any) -> Any:
        """Write a packet for Engine.IO's writer: a frame, or the rest of one begun here."""
        self.writing = True
        try:
            if type(message) is RawBytes:
                return self._sock.raw_write(bytes(message))
            return super().send(message)
        finally:
            self.writing = False

    def close(self) -> Any:
        """Close the websocket; nothing is written through it any more."""
        self.connection = None
        return super().close()


class WriteThrough:
    """An Engine.IO server's `send_packet`, writing through to idle websockets."""

    def __init__(self, server: Any) -> None:
        """Wrap `server`'s own send_packet."""
        self.server = server
        self.queued = server.send_packet
        self.last: tuple[Any, bytes] | None = None  # a push's packet is the same for every socket

    def __call__(self, sid: str, pkt: Any) -> None:
        """Send one packet to one client: written at once if its websocket is idle, else queued."""
        self.many((sid,), pkt)

    def many(self, sids: Iterable[str], pkt: Any) -> None:
        """Send one packet to each of these clients: written at once to each idle websocket, else queued.

        One loop for a room's sockets: a push to forty screens costs forty writes, not forty
        trips through Socket.IO's and gevent's layers around them.
        """
        sockets = self.server.sockets
        frame = b""
        for sid in sids:
            socket = sockets.get(sid)
            ws = None if socket is None else socket.__dict__.get(WebSocketWSGI.ATTRIBUTE)
            if (
                ws is None
                or ws.connection is None
                or ws.writing
                or not socket.upgraded
                or socket.upgrading
                or socket.closing
                or socket.closed
                or socket.last_ping  # waiting for a pong: Engine.IO's send checks the ping's time
                or socket.queue.qsize()
                or ws.__dict__.get("_sock") is None
                or ws._sock.closed
            ):
                self.queued(sid, pkt)
                continue
            if not frame:
                last = self.last
                if last is not None and last[0] is pkt:
                    frame = last[1]
                else:
                    frame = frame_of(pkt)
                    self.last = (pkt, frame)
            try:
                # gevent's socket is non-blocking underneath: its own socket never waits.
                sent = ws.connection._sock.send(frame)
            except BlockingIOError:
                sent = 0
            except OSError:
                self.queued(sid, pkt)  # the writer meets the dead connection and closes the socket
                continue
            if sent < len(frame):
                socket.queue.put(Rest(frame[sent:]))


def install(server: Any) -> bool:
    """Write through on an Engine.IO server in gevent mode with gevent-websocket; tell whether it did."""
    if server.async_mode != "gevent" or server._async.get("websocket") is not engineio_gevent.WebSocketWSGI:
        return False
    if getattr(engineio_gevent, "SimpleWebSocketWSGI", None) is not None:
        return False  # simple-websocket's wrapper: its own writer thread, nothing to write through
    # The server's own copy of its driver's table: another server in this process keeps its own.
    server._async = {**server._async, "websocket": WebSocketWSGI}
    server.send_packet = WriteThrough(server)
    return True


class Manager(socketio.Manager):  # type: ignore[misc]
    """Socket.IO's in-memory manager (every socket is this process's), whose emits to rooms are written through.

    One loop over the rooms' sockets (`WriteThrough.many`) instead of Socket.IO's send per
    socket: a push to forty screens costs forty writes, not forty trips through its layers.
    An emit with an acknowledgement, one that skips sockets, or one on a server that does not
    write through (threading mode) is Socket.IO's own.
    """

    def emit(
        self,
        event: str,
        data: Any,
        namespace: str,
        room: Any = None,
        skip_sid: Any = None,
        callback: Any = None,
        to: Any = None,
        **kwargs: Any,
    ) -> None:
        """Send an event to a room, to several, or to every socket of a namespace."""
        through = self.server.eio.send_packet
        encoded = None
        if callback is None and skip_sid is None and isinstance(through, WriteThrough):
            args = list(data) if isinstance(data, tuple) else [] if data is None else [data]
            encoded = self.server.packet_class(sio_packet.EVENT, namespace=namespace, data=[event, *args]).encode()
        if not isinstance(encoded, str):  # not written through, or binary attachments (several packets)
            super().emit(event, data, namespace, room=room, skip_sid=skip_sid, callback=callback, to=to, **kwargs)
            return
        target = to or room  # a room, a list of rooms, or None: the whole namespace
        rooms = self.rooms.get(namespace, {})
        members: dict[str, str] = {}
        # As Socket.IO's own emit: a socket in several of the rooms gets the event once.
        for name in [target] if target is None or isinstance(target, str) else target:
            found = rooms.get(name)
            if found is not None:
                members.update(found.items())
        if members:
            through.many(members.values(), eio_packet.Packet(eio_packet.MESSAGE, encoded))
