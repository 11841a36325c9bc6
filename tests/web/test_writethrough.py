"""A push goes straight to an idle websocket (referee.web.writethrough), whole and in order.

Real parts: Engine.IO's gevent server and socket, gevent-websocket's WebSocket over one end of a
socket pair, the kernel's buffer in between; the test reads the other end and decodes frames.
"""

from __future__ import annotations

import logging
import socket
import struct
import threading
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import engineio  # type: ignore[import-untyped]
import gevent  # type: ignore[import-untyped]
import gevent.socket  # type: ignore[import-untyped]
import pytest
import socketio  # type: ignore[import-untyped]
from engineio import packet as eio_packet
from engineio.socket import Socket  # type: ignore[import-untyped]
from geventwebsocket.websocket import Stream, WebSocket  # type: ignore[import-untyped]

from referee.web import writethrough


class _Handler:
    """What gevent-websocket reads from a pywsgi handler: its socket, rfile and server."""

    def __init__(self, sock: Any) -> None:
        self.socket = sock
        self.rfile = sock.makefile("rb")
        self.server = SimpleNamespace(application=None)
        self.logger = logging.getLogger(__name__)


def _decode(stream: bytes) -> list[str]:
    """Split server-to-client websocket frames (unmasked text) into their payloads."""
    out, at = [], 0
    while at < len(stream):
        first, second = stream[at], stream[at + 1]
        assert first == 0x81, f"not a final text frame at {at}: {first:#x}"
        length, at = second & 0x7F, at + 2
        if length == 126:
            (length,) = struct.unpack("!H", stream[at : at + 2])
            at += 2
        elif length == 127:
            (length,) = struct.unpack("!Q", stream[at : at + 8])
            at += 8
        assert at + length <= len(stream), "a frame cut short"
        out.append(stream[at : at + length].decode())
        at += length
    return out


class Wire:
    """An Engine.IO server in gevent mode with one websocket session, as after a websocket upgrade."""

    def __init__(self, send_buffer: int | None = None, server: Any = None, sid: str = "s1") -> None:
        """A websocket session `sid` of `server` (default: a new server of its own, writing through)."""
        if server is None:
            server = engineio.Server(async_mode="gevent")
            assert writethrough.install(server)
        self.server = server
        ours, theirs = socket.socketpair()
        if send_buffer:
            ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)
            theirs.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, send_buffer)
        self.client = theirs
        self.connection = gevent.socket.socket(fileno=ours.detach())
        self.sid = sid
        self.socket = Socket(self.server, self.sid)
        self.socket.connected = self.socket.upgraded = True
        self.socket.last_ping = None  # its ping answered
        self.server.sockets[self.sid] = self.socket
        handler = _Handler(self.connection)
        ws = WebSocket({}, Stream(handler), handler)
        self.ws = writethrough.WebSocketWSGI(self.socket._websocket_handler, self.server)
        # What its __call__ sets up before Engine.IO's handler runs (that handler loops on reads).
        self.ws._sock, self.ws.writing, self.ws.connection = ws, False, self.connection
        setattr(self.socket, writethrough.WebSocketWSGI.ATTRIBUTE, self.ws)

    def send(self, text: str) -> None:
        self.server.send_packet(self.sid, eio_packet.Packet(eio_packet.MESSAGE, data=text))

    def queued(self) -> int:
        return int(self.socket.queue.qsize())

    def write_queued(self) -> None:
        """Do what Engine.IO's writer greenlet does: write every queued packet through the wrapper."""
        while self.socket.queue.qsize():
            pkt = self.socket.queue.get(block=False)
            self.socket.queue.task_done()
            self.ws.send(pkt.encode())

    def read(self, timeout: float = 0.2) -> bytes:
        self.client.settimeout(timeout)
        got = b""
        try:
            while chunk := self.client.recv(65536):
                got += chunk
        except TimeoutError:
            pass
        return got

    def close(self) -> None:
        self.connection.close()
        self.client.close()


@pytest.fixture
def wire() -> Iterator[Wire]:
    w = Wire()
    yield w
    w.close()


def test_a_packet_to_an_idle_websocket_is_on_the_wire_at_once(wire: Wire) -> None:
    wire.send('2["changes",{"seq":1}]')
    # Nothing queued for the writer greenlet: the frame is already in the kernel's buffer.
    assert wire.queued() == 0
    assert _decode(wire.read()) == ['42["changes",{"seq":1}]']


def test_a_push_is_framed_once_for_every_socket_of_a_room() -> None:
    pkt = eio_packet.Packet(eio_packet.MESSAGE, data="2" + '["view",' + "x" * 300 + "]")
    frame = writethrough.frame_of(pkt)
    first, second = Wire(), Wire()
    try:
        for w in (first, second):  # two sockets of one server, as in a room
            first.server.sockets[w.sid + str(id(w))] = w.socket
            first.server.send_packet(w.sid + str(id(w)), pkt)
        assert first.read() == second.read() == frame
        assert _decode(frame) == ["4" + pkt.data]
    finally:
        first.close()
        second.close()


@pytest.mark.parametrize(
    "busy",
    ["writing", "ping unanswered", "upgrading", "closing", "packets queued", "long-polling", "websocket closed"],
)
def test_a_websocket_that_is_not_idle_keeps_engine_ios_queue(wire: Wire, busy: str) -> None:
    if busy == "writing":
        wire.ws.writing = True
    elif busy == "ping unanswered":
        wire.socket.last_ping = 1e18  # a ping sent and not yet answered (not timed out)
    elif busy == "upgrading":
        wire.socket.upgrading = True
    elif busy == "closing":
        wire.socket.closing = True
    elif busy == "packets queued":
        wire.socket.queue.put(eio_packet.Packet(eio_packet.PING))
    elif busy == "long-polling":
        setattr(wire.socket, writethrough.WebSocketWSGI.ATTRIBUTE, None)
    elif busy == "websocket closed":
        wire.ws.close()
        assert wire.read().startswith(b"\x88")  # its close frame
    before = wire.queued()
    wire.send('2["changes",{"seq":1}]')
    assert wire.queued() == before + 1
    assert wire.read() == b""


def test_what_the_kernel_does_not_take_is_written_later_whole_and_in_order() -> None:
    wire = Wire(send_buffer=4096)
    try:
        sent = [f'2["changes",{{"seq":{n},"pad":"{"x" * (n % 7) * 100}"}}]' for n in range(200)]
        for text in sent:
            wire.send(text)  # never waits, however full the buffer: the caller is the event loop
        # The buffer filled: the rest of a frame and the packets after it wait for the writer.
        assert wire.queued() > 1
        assert isinstance(wire.socket.queue.peek(block=False), writethrough.Rest)
        got: list[bytes] = []
        reader = threading.Thread(target=lambda: got.append(wire.read(timeout=2.0)))
        reader.start()
        wire.write_queued()
        reader.join()
        assert _decode(got[0]) == ["4" + text for text in sent]
        # Idle again: the next packet goes straight out.
        wire.send('2["changes",{"seq":200}]')
        assert wire.queued() == 0
        assert _decode(wire.read()) == ['42["changes",{"seq":200}]']
    finally:
        wire.close()


def test_engine_ios_own_writer_finishes_a_frame_the_kernel_took_part_of() -> None:
    # The whole path: Engine.IO's websocket handler and its writer greenlet, under gevent's hub.
    wire = Wire(send_buffer=4096)
    setattr(wire.socket, writethrough.WebSocketWSGI.ATTRIBUTE, None)
    wire.socket.connected = wire.socket.upgraded = False  # its handler makes it a websocket
    ws = wire.ws._sock
    handler = gevent.spawn(wire.ws, {"wsgi.websocket": ws}, None)
    got: list[bytes] = []
    try:
        gevent.sleep(0.01)  # the handler runs, waiting for the client's first packet
        assert getattr(wire.socket, writethrough.WebSocketWSGI.ATTRIBUTE) is wire.ws
        sent = [f'2["changes",{{"seq":{n},"pad":"{"y" * (n % 5) * 150}"}}]' for n in range(150)]
        for text in sent:
            wire.send(text)
        assert wire.queued() > 0, "the buffer never filled: the test proves nothing"
        reader = threading.Thread(target=lambda: got.append(wire.read(timeout=1.0)))
        reader.start()
        while reader.is_alive():
            gevent.sleep(0.01)  # the writer greenlet runs
        assert _decode(got[0]) == ["4" + text for text in sent]
        assert wire.queued() == 0
    finally:
        wire.client.close()  # the handler reads the end of the stream and closes the socket
        handler.join(timeout=5)
        wire.connection.close()
    assert handler.dead and getattr(wire.socket, writethrough.WebSocketWSGI.ATTRIBUTE) is None


def test_a_dead_connection_leaves_the_packet_to_engine_ios_writer(wire: Wire) -> None:
    wire.client.close()
    wire.connection.shutdown(socket.SHUT_RDWR)
    wire.send('2["changes",{"seq":1}]')
    assert wire.queued() == 1  # the writer meets the error and closes the socket, as before


def test_only_a_gevent_server_with_gevent_websocket_writes_through() -> None:
    threaded = engineio.Server(async_mode="threading")
    assert not writethrough.install(threaded)
    assert not isinstance(threaded.send_packet, writethrough.WriteThrough)


def test_an_event_to_rooms_reaches_each_of_their_sockets_once() -> None:
    sio = socketio.Server(async_mode="gevent", client_manager=writethrough.Manager())
    assert writethrough.install(sio.eio)
    wires = {name: Wire(server=sio.eio, sid=name) for name in ("a", "b", "c", "d")}
    try:
        sids = {name: sio.manager.connect(name, "/") for name in wires}
        for name, rooms in {"a": ["r1"], "b": ["r1", "r2"], "c": ["r2"], "d": ["r3"]}.items():
            for room in rooms:
                sio.manager.enter_room(sids[name], "/", room)
        sio.emit("changes", {"seq": 2}, to=["r1", "r2"])
        for name in "abc":  # b listens in both rooms: one packet
            assert _decode(wires[name].read()) == ['42["changes",{"seq":2}]'], name
        assert wires["d"].read() == b""
        # A socket that cannot take it now still gets it, queued for its writer, in order.
        wires["a"].socket.last_ping = 1e18
        sio.emit("changes", {"seq": 3}, to="r1")
        assert wires["a"].queued() == 1 and wires["a"].read() == b""
        assert _decode(wires["b"].read()) == ['42["changes",{"seq":3}]']
        # Skipping a socket is Socket.IO's own emit, each packet still written through.
        sio.emit("changes", {"seq": 4}, to="r2", skip_sid=sids["b"])
        assert wires["b"].read() == b""
        assert _decode(wires["c"].read()) == ['42["changes",{"seq":4}]']
        # No room: every socket of the namespace.
        sio.emit("changes", {"seq": 5})
        for name in "bcd":
            assert _decode(wires[name].read()) == ['42["changes",{"seq":5}]'], name
        sio.emit("changes", {"seq": 6}, to="nobody's room")
        assert all(w.read(timeout=0.05) == b"" for name, w in wires.items() if name != "a")
    finally:
        for w in wires.values():
            w.close()


def test_an_emit_is_socket_ios_own_where_the_server_does_not_write_through(monkeypatch: pytest.MonkeyPatch) -> None:
    threaded = socketio.Server(async_mode="threading", client_manager=writethrough.Manager())
    sid = threaded.manager.connect("e1", "/")
    threaded.manager.enter_room(sid, "/", "r1")
    sent: list[tuple[str, str]] = []
    monkeypatch.setattr(threaded, "_send_eio_packet", lambda eio_sid, pkt: sent.append((eio_sid, pkt.data)))
    threaded.emit("changes", {"seq": 1}, to="r1")
    assert sent == [("e1", '2["changes",{"seq":1}]')]
