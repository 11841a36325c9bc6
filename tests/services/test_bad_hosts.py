"""A real `referee serve` answers every malformed Host with a 400 at once, and keeps logging and answering.

A Host such as `a..b` (an empty label) or one with a label of 64 characters once failed while
the app rendered its 400 page (no URL adapter), and logging that error went round between the
app's logger and gevent's error log until Python's recursion limit: 1.6 s of the one event loop
a request, a plain-text 500, 245 kB of traceback, and from then on malformed Socket.IO packets
went unanswered.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest
import websocket  # websocket-client

from ..live_server import Server

# Each malformed form of a Host header: an empty label, an over-long label, bad characters, a port
# out of range, an empty value, and none at all (None).
BAD_HOSTS = ["a..b", "x" * 64 + ".example", "a b", "bad_host!", "localhost:99999", "localhost:0", "", None]
PATHS = ["/", "/battleship", "/static/css/app.css", "/api/health", "/socket.io/?EIO=4&transport=polling"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("bad-hosts") / "instance")
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


def _raw_get(port: int, path: str, host: str | None) -> tuple[int, bytes, float]:
    """Send one GET with exactly this Host line (none at all for None); return status, answer, seconds."""
    lines = [f"GET {path} HTTP/1.1"]
    if host is not None:
        lines.append(f"Host: {host}")
    lines += ["Connection: close", "", ""]
    started = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall("\r\n".join(lines).encode("latin-1"))
        got = b""
        while chunk := sock.recv(65536):
            got += chunk
    took = time.perf_counter() - started
    status = int(got.split(b" ", 2)[1]) if got.startswith(b"HTTP/") else 0
    return status, got, took


@pytest.mark.parametrize("host", BAD_HOSTS)
def test_every_kind_of_route_answers_a_malformed_host_with_400(server: Server, host: str | None) -> None:
    for path in PATHS:
        status, answer, took = _raw_get(server.port, path, host)
        assert status == 400, (path, host, answer[:300])
        assert took < 1.0, (path, host, took)
        body = answer.split(b"\r\n\r\n", 1)[1]
        if path.startswith("/api/"):
            assert b'"error": "unknown_host"' in body, body
        else:
            assert body.startswith(b"<!doctype html>"), body[:100]


def test_after_malformed_hosts_logging_works_and_every_malformed_packet_is_answered(server: Server) -> None:
    for host in BAD_HOSTS:
        assert _raw_get(server.port, "/", host)[0] == 400
    ws = websocket.create_connection(f"ws://127.0.0.1:{server.port}/socket.io/?EIO=4&transport=websocket", timeout=5)
    try:
        assert str(ws.recv()).startswith("0{")
        ws.send("40")
        assert str(ws.recv()).startswith("40")
        # Nine malformed packets, each with an ack id: each must be answered (an ack of that id).
        junk = ["[", '["resync"', "{}", "[1,2]", '["action",', '"just text"', "[null]", '[{"a":1}]', "[[]]"]
        for ack, payload in enumerate(junk, start=1):
            ws.send(f"42{ack}{payload}")
            deadline = time.perf_counter() + 5
            while True:
                assert time.perf_counter() < deadline, f"no answer to malformed packet {payload!r}"
                message = str(ws.recv())
                if message == "2":  # Engine.IO's ping
                    ws.send("3")
                    continue
                if message.startswith(f"43{ack}["):
                    assert '"malformed"' in message, message
                    break
    finally:
        ws.close()
    output = "\n".join(server.output)
    assert "Traceback" not in output and "RecursionError" not in output, output[-3000:]
    # The warning for the junk was logged as a line of its own: time, level, logger, message.
    warned = [line for line in server.output if "malformed Socket.IO packet" in line]
    assert warned and " WARNING referee.web.live: " in warned[0], server.output[-20:]


def test_a_body_far_larger_than_any_route_takes_is_refused_unread_and_the_server_goes_on(server: Server) -> None:
    # Announced a megabyte, sent a little of it: the answer comes at once (nothing waits for the
    # rest), a 413 in JSON, and the connection closes; a body a little too large for its route
    # is still refused by the app, on a connection that stays usable.
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(
            b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 1048576\r\n\r\n" + b"{" * 1000
        )
        answer = b""
        started = time.monotonic()
        while chunk := sock.recv(65536):
            answer += chunk
        assert time.monotonic() - started < 5
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413"), head
    assert b"Connection: close" in head
    assert b'"too_large"' in body
    status, text, _took = _raw_get(server.port, "/api/health", "127.0.0.1")
    assert status == 200, text
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(
            b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 300000\r\n\r\n" + b" " * 300000
        )
        answer = sock.recv(65536)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"application/json" in answer
