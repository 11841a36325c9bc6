"""A websocket's incoming frames read at C speed, and no bigger than the server takes.

gevent-websocket reads a frame in pure Python twice over: it unmasks the payload a byte at a
time, then checks that a text message is UTF-8 with a byte-at-a-time state machine, once per
frame and again for the whole message, before decoding it, which checks the same again in C.
For a report's hundred bytes that was a seventh of all the bytecode the server ran for it.
Here a payload is unmasked as two big integers XORed, and a text message is checked once, by
its decoding: invalid UTF-8 still closes the socket (1007).

gevent-websocket also reads whatever length a frame's header claims, and keeps adding
continuation frames to a message, before Engine.IO looks at the message's size: one client
could make the server hold gigabytes. Here a frame, or a message so far, longer than the
server takes (SOCKETIO_MAX_HTTP_BUFFER_SIZE) closes the socket before its payload is read.
(The close frame carries no code: gevent-websocket's close never writes one, 1002 and 1007 alike.)
"""

from __future__ import annotations

import logging
from typing import Any

from geventwebsocket.exceptions import ProtocolError, WebSocketError  # type: ignore[import-untyped]
from geventwebsocket.websocket import Header  # type: ignore[import-untyped]
from geventwebsocket.websocket import WebSocket as _WebSocket

from referee.realtime import hooks_on

log = logging.getLogger(__name__)

# What WebSocket reads and overrides of gevent-websocket's (public names, but its inner workings).
INNER = ("read_frame", "raw_read", "read_message", "handler", "stream")


def fits() -> bool:
    """Tell whether this gevent-websocket's WebSocket has what ours overrides and reads; warn once if not.

    Without ours a frame is read as gevent-websocket reads it: slower, and with no size cap
    before its payload is read (Engine.IO still refuses the message after).
    """
    missing = [name for name in INNER if not hasattr(_WebSocket, name)]
    if missing:
        log.warning("gevent-websocket's WebSocket has no %s: frames are read its own way", ", ".join(missing))
    return not missing


MESSAGE_TOO_BIG = 1009  # RFC 6455: "a message that is too big for it to process"
MAX_MESSAGE = 65536  # bytes, on a server without limits of its own (config: SOCKETIO_MAX_HTTP_BUFFER_SIZE)


class MessageTooBig(WebSocketError):  # type: ignore[misc]
    """A frame, or a message so far, is longer than the server takes."""


def unmask(payload: bytes, mask: bytes) -> bytes:
    """Return a client's payload XORed with its 4-byte mask, repeated (RFC 6455, 5.3)."""
    n = len(payload)
    if not n:
        return b""
    key = (mask * (n // 4 + 1))[:n]
    return (int.from_bytes(payload, "little") ^ int.from_bytes(key, "little")).to_bytes(n, "little")


class WebSocket(_WebSocket):  # type: ignore[misc]
    """gevent-websocket's WebSocket, reading frames with C calls and refusing oversized ones."""

    __slots__ = ()  # gevent-websocket's own: its handler makes the socket, then gives it this class

    def max_message(self) -> int:
        """Return the longest message (in bytes, its frames together) the server takes."""
        limits = getattr(self.handler.server, "limits", None)
        return MAX_MESSAGE if limits is None else int(limits.max_message)

    def read_frame(self, held: int = 0) -> tuple[Any, bytes]:
        """Read one frame: its header, then its payload (unmasked); refuse a data frame that with `held` is too long."""
        header = Header.decode_header(self.stream)
        if header.flags:
            raise ProtocolError("a reserved bit is set, and no extension was agreed")
        if not header.length:
            return header, b""
        most = self.max_message()
        if header.opcode < 0x8 and header.length + held > most:  # (a control frame is at most 125 bytes)
            raise MessageTooBig(f"{header.length} bytes after {held}: over {most}")
        try:
            payload = self.raw_read(header.length)
        except Exception:  # noqa: BLE001 - as gevent-websocket: a failed read is a short one, below
            payload = b""
        if len(payload) != header.length:
            raise WebSocketError("Unexpected EOF reading frame payload")
        if header.mask:
            payload = unmask(payload, header.mask)
        return header, payload

    def read_message(self) -> Any:
        """Return the next text (str) or binary (bytearray) message, its frames together; None once closed."""
        opcode = None
        message = bytearray()
        while True:
            header, payload = self.read_frame(len(message))
            kind = header.opcode
            if kind in (self.OPCODE_TEXT, self.OPCODE_BINARY):
                if opcode:
                    raise ProtocolError(f"a new message ({kind}) inside one not finished")
                opcode = kind
            elif kind == self.OPCODE_CONTINUATION:
                if not opcode:
                    raise ProtocolError("a continuation frame with no message begun")
            elif kind == self.OPCODE_PING:
                self.handle_ping(header, payload)
                continue
            elif kind == self.OPCODE_PONG:
                self.handle_pong(header, payload)
                continue
            elif kind == self.OPCODE_CLOSE:
                self.handle_close(header, payload)
                return None
            else:
                raise ProtocolError(f"unknown opcode {kind}")
            message += payload
            if header.fin:
                break
        if opcode == self.OPCODE_TEXT:
            # Decoding checks the UTF-8 (gevent-websocket closes with 1007 if it is not).
            return self._decode_bytes(bytes(message))
        return message

    def receive(self) -> Any:
        """Return the next message, or None once the socket is closed (with 1009 if it was too long)."""
        try:
            return super().receive()
        except MessageTooBig:
            self.close(MESSAGE_TOO_BIG)
            return None


USED = hooks_on() and fits()
"""Whether websockets read their frames here (checked once, when `referee serve` imports this)."""
