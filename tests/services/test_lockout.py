"""One client on the Wi-Fi must not lock everyone out (security review, issue 9, finding 3).

Against a real `referee serve` on its defaults: one address (127.0.0.1) holds 300 idle Engine.IO
websockets and 150 requests whose headers trickle in a byte at a time, while a second client
(127.0.0.2) loads a page, calls the API and makes a Socket.IO round trip, each within 2 s. Under
the old threaded server each of those sockets held one of its 100 threads, and the second client
waited for as long as they were held. Past the caps the first address is refused at once, and a
request whose headers do not arrive is closed after the header timeout.
"""

from __future__ import annotations

import http.client
import json
import resource
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import websocket  # websocket-client

from ..live_server import Server

ATTACKER = "127.0.0.1"
OTHER = "127.0.0.2"
SOCKETS = 300
SLOW = 150
HEADER_TIMEOUT = 6.0
CONNECTIONS = 200  # CONNECTIONS_PER_ADDRESS, the default


@pytest.fixture(autouse=True)
def _enough_files() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 4096:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(4096, hard), hard))


def _loopback_alias_works() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 9), timeout=0.2, source_address=(OTHER, 0)):
            pass
    except ConnectionRefusedError:
        return True
    except OSError:
        return False
    return True


pytestmark = pytest.mark.skipif(not _loopback_alias_works(), reason="no 127.0.0.2 on this loopback")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    # 300 sockets from one address: the cap is raised to exactly that, so the 301st is refused.
    srv = Server(
        tmp_path / "instance",
        env={
            "REFEREE_WEBSOCKETS_PER_ADDRESS": str(SOCKETS),
            "REFEREE_HEADER_TIMEOUT": str(HEADER_TIMEOUT),
        },
    )
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


def _tcp(port: int, source: str) -> socket.socket:
    sock = socket.socket()
    sock.bind((source, 0))
    sock.settimeout(5)
    sock.connect(("127.0.0.1", port))
    return sock


def _engineio(port: int, source: str) -> websocket.WebSocket:
    """A real Engine.IO websocket (no polling first), joined to Socket.IO's default namespace."""
    ws = websocket.create_connection(
        f"ws://127.0.0.1:{port}/socket.io/?EIO=4&transport=websocket", timeout=5, socket=_tcp(port, source)
    )
    opened = ws.recv()
    assert isinstance(opened, str) and opened.startswith("0{"), opened
    return ws


def _time_ping(port: int) -> float:
    """Connect from the other address, join Socket.IO, send time_ping and wait for its ack; return seconds."""
    t0 = time.perf_counter()
    ws = _engineio(port, OTHER)
    try:
        ws.send("40")
        assert str(ws.recv()).startswith("40"), "no Socket.IO connect"
        ws.send('421["time_ping",{}]')
        while True:
            message = str(ws.recv())
            if message.startswith("431"):
                assert "server_time" in json.loads(message[3:])[0]
                return time.perf_counter() - t0
    finally:
        ws.close()


def _get(port: int, path: str) -> tuple[int, float]:
    t0 = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5, source_address=(OTHER, 0))
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status, time.perf_counter() - t0
    finally:
        conn.close()


def _still_open(sock: socket.socket) -> bool:
    sock.setblocking(False)
    try:
        return sock.recv(1, socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        sock.setblocking(True)


def test_one_address_cannot_lock_out_the_others(server: Server) -> None:
    sockets: list[websocket.WebSocket] = []
    slow: list[tuple[socket.socket, float]] = []
    extra: list[socket.socket] = []
    stop = threading.Event()
    try:
        for _ in range(SOCKETS):
            ws = _engineio(server.port, ATTACKER)
            ws.send("40")
            sockets.append(ws)

        # The 301st from the same address: refused at the handshake, with a body saying why.
        with pytest.raises(websocket.WebSocketBadStatusException) as refused:
            _engineio(server.port, ATTACKER)
        assert refused.value.status_code == 429
        assert b"too_many_sockets" in (refused.value.resp_body or b"")

        for _ in range(SLOW):
            sock = _tcp(server.port, ATTACKER)
            sock.sendall(b"GET /?slow=")
            slow.append((sock, time.monotonic()))

        def trickle() -> None:  # slowloris: a byte every half second keeps a plain read alive
            while not stop.wait(0.5):
                for sock, _t in slow:
                    try:
                        sock.send(b"x")
                    except OSError:
                        pass

        threading.Thread(target=trickle, daemon=True).start()

        # The other client, while all of that is held.
        status, page = _get(server.port, "/")
        assert status == 200 and page < 2.0, f"page load {status} in {page:.2f} s"
        status, api = _get(server.port, "/api/battleship/scores")
        assert status == 200 and api < 2.0, f"API call {status} in {api:.2f} s"
        ping = _time_ping(server.port)
        assert ping < 2.0, f"Socket.IO round trip in {ping:.2f} s"
        print(
            f"under the flood: page {page * 1000:.0f} ms, API {api * 1000:.0f} ms, "
            f"Socket.IO round trip {ping * 1000:.0f} ms"
        )
        assert all(_still_open(sock) for sock, _t in slow), "the slow requests were closed too early"
        assert all(ws.connected for ws in sockets)

        # Connections that are not websockets: up to 200 per address, the next one refused at once.
        while len(slow) + len(extra) < CONNECTIONS:
            extra.append(_tcp(server.port, ATTACKER))
        time.sleep(0.2)  # let the server accept them all
        over = _tcp(server.port, ATTACKER)
        t0 = time.perf_counter()
        answer = over.recv(4096)
        over.close()
        assert answer.startswith(b"HTTP/1.1 503") and b"too_many_connections" in answer, answer[:200]
        assert time.perf_counter() - t0 < 2.0

        # A request whose headers never complete is closed after the header timeout, trickle or not.
        closed_after = []
        for sock, started in slow:
            sock.settimeout(HEADER_TIMEOUT + 5)
            try:
                while sock.recv(4096):
                    pass
            except OSError:
                pass
            closed_after.append(time.monotonic() - started)
        assert min(closed_after) >= HEADER_TIMEOUT - 0.5 and max(closed_after) <= HEADER_TIMEOUT + 4, (
            min(closed_after),
            max(closed_after),
        )
    finally:
        stop.set()
        for ws in sockets:
            ws.close()
        for sock in [s for s, _t in slow] + extra:
            sock.close()


def test_a_write_waiting_for_sqlite_does_not_stall_the_other_sockets(server: Server) -> None:
    # Another writer holds SQLite's write lock; the server's next write (the referee link's
    # exchange stamps the token) waits for it. That wait must not stop everything else.
    holder = sqlite3.connect(server.instance / "referee.sqlite3", isolation_level=None, timeout=10)
    holder.execute("BEGIN IMMEDIATE")
    answered: list[int] = []

    def exchange() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
        conn.request("GET", server.link.removeprefix(server.base))
        answered.append(conn.getresponse().status)
        conn.close()

    writer = threading.Thread(target=exchange)
    try:
        writer.start()
        time.sleep(0.5)  # the exchange is now inside BEGIN IMMEDIATE, waiting
        assert not answered, "the write did not wait for the lock: the test proves nothing"
        took = _time_ping(server.port)
        assert took < 1.0, f"a Socket.IO round trip took {took:.2f} s while a write waited for SQLite"
        status, took = _get(server.port, "/api/health")
        assert status == 200 and took < 1.0, f"/api/health took {took:.2f} s"
        assert not answered
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        writer.join(15)
    assert answered == [303]  # the write went through once the lock was free


@pytest.mark.parametrize("server_args", [[], ["--server", "gunicorn"]], ids=["gevent", "gunicorn"])
def test_no_forwarded_header_is_trusted_without_proxy_fix(tmp_path: Path, server_args: list[str]) -> None:
    # gunicorn trusted X-Forwarded-Proto from 127.0.0.1 by default: any local client could claim
    # https (Secure cookies, the Socket.IO origin check). With PROXY_FIX = 0 no server may.
    if server_args and not _gunicorn():
        pytest.skip("gunicorn is POSIX only")
    srv = Server(tmp_path / "instance", args=server_args)
    srv.start()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
        conn.request(
            "GET",
            srv.link.removeprefix(srv.base),
            headers={
                "X-Forwarded-Proto": "https",
                "X-Forwarded-Ssl": "on",
                "X-Forwarded-Protocol": "ssl",
                "X-Forwarded-For": "10.9.9.9",
                "X-Forwarded-Host": "evil.example",
                "Connection": "close",
            },
        )
        response = conn.getresponse()
        response.read()
        assert response.status == 303
        # The server closes the connection, and says so: a pooling client must not reuse it.
        assert (response.getheader("Connection") or "").lower() == "close"
        cookie = response.getheader("Set-Cookie") or ""
        assert "referee=" in cookie and "secure" not in cookie.lower(), cookie
        location = response.getheader("Location") or ""
        assert "evil.example" not in location and not location.startswith("https:"), location
        conn.close()
        # The Socket.IO origin check goes by the request's own scheme and Host: refused, either
        # at the handshake (simple-websocket) or, past gevent-websocket's 101, before Engine.IO's
        # open packet.
        opened = ""
        try:
            ws = websocket.create_connection(
                f"ws://127.0.0.1:{srv.port}/socket.io/?EIO=4&transport=websocket",
                timeout=5,
                origin="https://evil.example",
                header=["X-Forwarded-Proto: https", "X-Forwarded-Host: evil.example"],
            )
            try:
                opened = str(ws.recv())
            except websocket.WebSocketException:
                pass
            ws.close()
        except websocket.WebSocketBadStatusException:
            pass
        assert not opened.startswith("0{"), opened
    finally:
        srv.stop()


def _gunicorn() -> bool:
    try:
        import gunicorn  # noqa: F401
    except ImportError:
        return False
    return True


def test_a_flood_of_posts_from_one_address_is_refused_before_the_app_and_others_go_on(tmp_path: Path) -> None:
    # Cheap requests each, but hundreds a second kept the one event loop busy for everyone.
    srv = Server(tmp_path / "instance", env={"REFEREE_POSTS_PER_SECOND": "5", "REFEREE_POSTS_BURST": "10"})
    srv.start()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10, source_address=(ATTACKER, 0))
        statuses = []
        for _ in range(30):
            conn.request("POST", "/api/games", body=b"{}", headers={"Content-Type": "application/json"})
            answer = conn.getresponse()
            body = answer.read()
            statuses.append(answer.status)
            if answer.status == 429:
                assert int(answer.getheader("Retry-After") or 0) >= 1
                assert json.loads(body)["error"] == "rate_limited"
        assert statuses[:10] == [403] * 10, statuses  # (not the referee: the app refuses them)
        assert statuses.count(429) >= 15, statuses
        # Another phone behind the same address (its own cookies) is not held back; nor is another
        # address; and reading is never limited.
        phone = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10, source_address=(ATTACKER, 0))
        phone.request("POST", "/api/games", body=b"{}", headers={"Content-Type": "application/json", "Cookie": "s=1"})
        assert phone.getresponse().status == 403
        other = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10, source_address=(OTHER, 0))
        other.request("POST", "/api/games", body=b"{}", headers={"Content-Type": "application/json"})
        assert other.getresponse().status == 403
        conn.request("GET", "/api/health")
        assert conn.getresponse().status == 200
    finally:
        srv.stop()
