"""With every hook into another library switched off, `referee serve` still does its job on the stock paths.

referee/realtime/ hooks into python-socketio's Redis manager (`queue.py`), gevent's handling of a
request it could not read (`server.py`) and gevent-websocket's frame reader (`frames.py`). Each
checks at start-up that what it relies on exists (`fits()`), else warns once and uses the
library's own path; `REFEREE_LIBRARY_HOOKS=0` switches them all off. Here: each `fits()` says no,
with its warning, when what it needs is gone; and two real servers with the hooks off, on one
PostgreSQL and Redis, play an entry from one process to a screen on the other, refuse a far too
large body and an oversized websocket message, and stay healthy.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
import socketio

from ..live_server import Server
from .test_scale_out import Screen, _schema, new_game, referee_session, start_all, stop_all


def test_each_hook_says_whether_it_fits_and_warns_once_when_it_does_not(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from gevent.pywsgi import WSGIHandler
    from geventwebsocket.websocket import WebSocket

    from referee.realtime import frames, queue, server

    assert queue.fits() and server.fits() and frames.fits(), "the pinned versions have what the hooks use"
    caplog.set_level(logging.WARNING)
    monkeypatch.setattr(socketio.RedisManager, "_redis_listen_with_retries", None)
    monkeypatch.setattr(WSGIHandler, "_handle_client_error", None)
    monkeypatch.delattr(WebSocket, "raw_read")
    assert not queue.fits() and not server.fits() and not frames.fits()
    warned = [r.getMessage() for r in caplog.records]
    assert len(warned) == 3, warned
    assert any("_redis_listen_with_retries" in w and "stock queue" in w for w in warned)
    assert any("_handle_client_error" in w for w in warned) and any("raw_read" in w for w in warned)
    assert server.handler_class() is server.Handler, "without the hook, gevent's own handling"


def test_a_handler_without_hooks_when_they_are_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.realtime import server

    assert server.handler_class() is server.HandlerAnswering413
    monkeypatch.setenv("REFEREE_LIBRARY_HOOKS", "0")
    assert server.handler_class() is server.Handler


@pytest.fixture
def stock_pair(postgres_url: str, redis_url: str, tmp_path: Path) -> Iterator[list[Server]]:
    schema = _schema(postgres_url)
    db_url = next(schema)
    instance = tmp_path / "instance"
    servers = [
        Server(instance, database_url=db_url, redis_url=redis_url, env={"REFEREE_LIBRARY_HOOKS": "0"}) for _ in range(2)
    ]
    start_all(servers)
    try:
        yield servers
    finally:
        stop_all(servers)
        next(schema, None)


def test_two_servers_on_the_stock_paths_play_refuse_and_stay_healthy(stock_pair: list[Server]) -> None:
    bases = [s.base for s in stock_pair]
    referee = referee_session(bases[0], stock_pair)
    game = new_game(bases, referee)
    # An entry on one process reaches a screen on the other, through python-socketio's own Redis manager.
    watcher = Screen(game.id)
    watcher.client.connect(bases[1], transports=["websocket"], wait_timeout=10)
    try:
        watcher.resync()
        ack = game.act(bases[0], {"type": "pause_timer"})
        assert ack["ok"] and watcher.wait_for(ack["seq"]) is not None, ack
    finally:
        watcher.close()
    # A far too large body is refused unread by gevent itself (400; 413 with the hook).
    host, port = bases[0].removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(
            b"POST /api/games HTTP/1.1\r\nHost: " + host.encode() + b"\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100000000\r\n\r\n"
        )
        status = conn.recv(200).split(b" ", 2)[1]
    assert status in (b"400", b"413"), status
    # A websocket message over the server's limit closes that socket; the server goes on.
    big = socketio.Client(reconnection=False)
    big.connect(bases[1], transports=["websocket"], wait_timeout=10)
    try:
        big.emit("resync", {"game": game.id, "pad": "x" * 2_000_000})
        for _ in range(50):
            if not big.connected:
                break
            big.sleep(0.1)
        assert not big.connected, "an oversized message closes its socket"
    finally:
        big.disconnect()
    for base in bases:
        assert requests.get(f"{base}/api/health", timeout=10).status_code == 200
    for server in stock_pair:
        log = "".join(server.output)
        assert "Traceback" not in log, server.tail()
        assert "has no" not in log, "no hook was even tried"
