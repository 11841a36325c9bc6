"""A real `referee serve` closes a websocket whose frame claims more than it takes, without waiting for it.

gevent-websocket alone reads whatever length a frame claims before Engine.IO weighs the
message: a client could make the server wait for, and then hold, a gigabyte (referee.realtime.frames).
"""

from __future__ import annotations

import os
import struct
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import websocket  # websocket-client

from ..live_server import Server


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(tmp_path / "instance")
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


def _opened(port: int) -> websocket.WebSocket:
    ws = websocket.create_connection(f"ws://127.0.0.1:{port}/socket.io/?EIO=4&transport=websocket", timeout=5)
    assert str(ws.recv()).startswith("0{")
    return ws


def test_a_frame_claiming_a_gigabyte_closes_the_socket_at_once(server: Server) -> None:
    ws = _opened(server.port)
    ws.send("40")
    assert str(ws.recv()).startswith("40")
    # A text frame's header claiming 2**30 bytes, its mask, and ten bytes of it.
    ws.sock.sendall(bytes([0x81, 0x80 | 127]) + struct.pack("!Q", 1 << 30) + os.urandom(4) + b"x" * 10)
    t0 = time.perf_counter()
    ws.sock.settimeout(10)
    got = b""
    try:
        while chunk := ws.sock.recv(4096):
            got += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    assert time.perf_counter() - t0 < 5, "the server waited for the claimed gigabyte"
    assert b"\x88" in got[:1] or got == b"", got  # a close frame, then the connection closed
    # The server is still there for everyone else.
    other = _opened(server.port)
    other.send("40")
    assert str(other.recv()).startswith("40")
    other.close()


def test_a_message_the_server_takes_still_arrives(server: Server) -> None:
    ws = _opened(server.port)
    ws.send("40")
    assert str(ws.recv()).startswith("40")
    ws.send('421["time_ping",{"pad":"' + "é" * 1000 + '"}]')
    deadline = time.perf_counter() + 5
    while time.perf_counter() < deadline:
        message = str(ws.recv())
        if message.startswith("431"):
            assert "server_time" in message
            break
    else:
        pytest.fail("no answer to time_ping")
    ws.close()
