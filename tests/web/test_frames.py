"""A websocket reads its frames with C calls, and refuses one longer than the server takes (referee.realtime.frames).

Real parts: gevent-websocket's stream over one end of a socket pair; the test writes masked
client frames into the other end, as a browser would.
"""

from __future__ import annotations

import logging
import os
import socket
import struct
import threading
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from geventwebsocket.websocket import Stream  # type: ignore[import-untyped]
from hypothesis import given
from hypothesis import strategies as st

from referee.realtime import frames
from referee.realtime.server import Limits

TEXT, BINARY, CONTINUATION, PING, PONG = 0x1, 0x2, 0x0, 0x9, 0xA


def frame(
    opcode: int, payload: bytes, *, fin: bool = True, mask: bytes | None = None, claim: int | None = None
) -> bytes:
    """Return a client's frame: masked (a random mask unless given), its length as `claim` says if given."""
    mask = os.urandom(4) if mask is None else mask
    length = len(payload) if claim is None else claim
    head = bytes([(0x80 if fin else 0) | opcode])
    if length < 126:
        head += bytes([0x80 | length])
    elif length < 1 << 16:
        head += bytes([0x80 | 126]) + struct.pack("!H", length)
    else:
        head += bytes([0x80 | 127]) + struct.pack("!Q", length)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


class _Handler:
    """What gevent-websocket reads from a pywsgi handler: its socket, rfile and server (with its limits)."""

    def __init__(self, sock: Any, limits: Limits | None) -> None:
        self.socket = sock
        self.rfile = sock.makefile("rb")
        self.server = (
            SimpleNamespace(application=None) if limits is None else SimpleNamespace(application=None, limits=limits)
        )
        self.logger = logging.getLogger(__name__)


@pytest.fixture
def pair() -> Iterator[tuple[frames.WebSocket, socket.socket]]:
    """Our websocket on one end of a socket pair (the server takes 1,000 bytes a message), the client's end."""
    ours, theirs = socket.socketpair()
    handler = _Handler(ours, Limits(max_message=1000))
    try:
        yield frames.WebSocket({}, Stream(handler), handler), theirs
    finally:
        ours.close()
        theirs.close()


def _closed_frames(sock: socket.socket) -> bytes:
    sock.settimeout(2)
    try:
        return sock.recv(100)
    except TimeoutError:
        return b"(nothing)"


@given(payload=st.binary(max_size=300), mask=st.binary(min_size=4, max_size=4))
def test_unmasking_is_the_xor_of_each_byte_with_the_mask(payload: bytes, mask: bytes) -> None:
    assert frames.unmask(payload, mask) == bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


@pytest.mark.parametrize("text", ["", "2", '42["action",{"game":"g"}]', "Přistání ✈ " * 30, "x" * 1000])
def test_a_text_message_reads_as_its_text(pair: tuple[frames.WebSocket, socket.socket], text: str) -> None:
    ws, client = pair
    client.sendall(frame(TEXT, text.encode()))
    assert ws.receive() == text


def test_a_message_in_fragments_reads_whole_and_a_ping_between_them_is_answered(
    pair: tuple[frames.WebSocket, socket.socket],
) -> None:
    ws, client = pair
    body = "Letka ✈ nad čtvercem C4".encode()
    client.sendall(
        frame(TEXT, body[:7], fin=False)  # cut inside a character: only the whole message must be UTF-8
        + frame(PING, b"hi")
        + frame(CONTINUATION, body[7:12], fin=False)
        + frame(CONTINUATION, body[12:])
        + frame(BINARY, b"\x00\xff")
    )
    assert ws.receive() == body.decode()
    assert client.recv(100) == b"\x8a\x02hi"  # the pong, unmasked from the server
    assert ws.receive() == bytearray(b"\x00\xff")


def test_invalid_utf8_closes_the_socket(pair: tuple[frames.WebSocket, socket.socket]) -> None:
    ws, client = pair
    client.sendall(frame(TEXT, b"ok \xc3\x28"))
    assert ws.receive() is None
    assert ws.closed


def test_a_frame_longer_than_the_server_takes_is_refused_before_its_payload_is_read(
    pair: tuple[frames.WebSocket, socket.socket],
) -> None:
    ws, client = pair
    # The header claims a gigabyte; not a byte of it follows. gevent-websocket's own reader
    # would wait for all of it, then hold it in memory.
    client.sendall(frame(TEXT, b"", claim=1 << 30))
    got: list[Any] = []
    reader = threading.Thread(target=lambda: got.append(ws.receive()), daemon=True)
    reader.start()
    reader.join(5)
    assert not reader.is_alive(), "the server waited for the claimed gigabyte"
    assert got == [None] and ws.closed
    assert _closed_frames(client)[:1] == b"\x88"  # a close frame


def test_a_message_growing_past_the_limit_in_fragments_is_refused(pair: tuple[frames.WebSocket, socket.socket]) -> None:
    ws, client = pair
    client.sendall(frame(TEXT, b"a" * 600, fin=False) + frame(CONTINUATION, b"", fin=False, claim=600))
    got: list[Any] = []
    reader = threading.Thread(target=lambda: got.append(ws.receive()), daemon=True)
    reader.start()
    reader.join(5)
    assert not reader.is_alive(), "the server waited for a fragment past the limit"
    assert got == [None] and ws.closed


def test_a_message_of_exactly_the_limit_is_taken(pair: tuple[frames.WebSocket, socket.socket]) -> None:
    ws, client = pair
    client.sendall(frame(TEXT, b"a" * 400, fin=False) + frame(CONTINUATION, b"b" * 600))
    assert ws.receive() == "a" * 400 + "b" * 600


def test_a_ping_inside_a_message_near_the_limit_is_answered_not_counted(
    pair: tuple[frames.WebSocket, socket.socket],
) -> None:
    ws, client = pair
    client.sendall(frame(TEXT, b"a" * 990, fin=False) + frame(PING, b"p" * 100) + frame(CONTINUATION, b"b" * 10))
    assert ws.receive() == "a" * 990 + "b" * 10
    assert client.recv(200) == b"\x8a\x64" + b"p" * 100


def test_without_limits_of_its_own_a_websocket_takes_the_default() -> None:
    ours, theirs = socket.socketpair()
    try:
        handler = _Handler(ours, None)
        ws = frames.WebSocket({}, Stream(handler), handler)
        assert ws.max_message() == frames.MAX_MESSAGE == Limits().max_message
    finally:
        ours.close()
        theirs.close()


def test_the_limit_is_the_socket_io_buffer_size_from_config() -> None:
    assert Limits.from_config({"SOCKETIO_MAX_HTTP_BUFFER_SIZE": 4096}).max_message == 4096
    with pytest.raises(ValueError, match="SOCKETIO_MAX_HTTP_BUFFER_SIZE"):
        Limits.from_config({"SOCKETIO_MAX_HTTP_BUFFER_SIZE": 0})
