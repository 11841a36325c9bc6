"""`referee serve`: gevent by default; `--server gunicorn` holds as many open websockets as it has threads.

The lockout itself (300 sockets and 150 slow requests from one address) is tests/services/test_lockout.py.
"""

from __future__ import annotations

import socket
from typing import Any

import pytest
from flask import Flask

from referee import cli
from referee.realtime.server import Buckets, Limits, Tally, client_address

gunicorn_base = pytest.importorskip("gunicorn.app.base", reason="gunicorn is POSIX only")


@pytest.mark.parametrize("threads", [100, 3000])
def test_gunicorn_accepts_a_connection_for_every_thread(
    app: Flask, monkeypatch: pytest.MonkeyPatch, threads: int
) -> None:
    # Each websocket holds a gthread thread for its whole life; gthread's worker_connections
    # (default 1000) would otherwise leave threads idle while phones wait to connect.
    seen: dict[str, Any] = {}

    def run(self: Any) -> None:
        seen.update(
            threads=self.cfg.threads,
            connections=self.cfg.worker_connections,
            worker=self.cfg.worker_class_str,
            forwarded=self.cfg.forwarded_allow_ips,
            schemes=self.cfg.secure_scheme_headers,
            bind=self.cfg.bind,
        )

    monkeypatch.setattr(gunicorn_base.BaseApplication, "run", run)
    with socket.create_server(("127.0.0.1", 0)) as listener:
        cli.run_gunicorn(app, listener, threads)
        assert seen["bind"] == [f"fd://{listener.fileno()}"]  # the socket `serve` bound before its link
    assert seen["worker"] == "gthread"
    assert seen["threads"] == threads
    assert seen["connections"] >= threads + 100  # room for the HTTP requests besides the sockets
    # No forwarded header trusted by gunicorn (its default trusts 127.0.0.1): ProxyFix decides.
    assert seen["forwarded"] == [] and seen["schemes"] == {}


def test_serve_defaults_to_gevent() -> None:
    server = next(p for p in cli.serve.params if p.name == "server")
    assert server.default == "gevent"


def test_the_websocket_cap_counts_the_forwarded_address_only_behind_a_proxy() -> None:
    environ = {"HTTP_X_FORWARDED_FOR": "10.0.0.7, 192.168.1.20"}
    assert client_address(environ, "127.0.0.1", 0) == "127.0.0.1"  # PROXY_FIX = 0: never the header
    assert client_address(environ, "127.0.0.1", 1) == "192.168.1.20"  # the one nginx appended
    assert client_address(environ, "127.0.0.1", 2) == "10.0.0.7"
    assert client_address(environ, "127.0.0.1", 3) == "127.0.0.1"  # fewer hops than trusted
    tally = Tally(2)
    assert tally.take("a") and tally.take("a") and not tally.take("a") and tally.take("b")
    tally.give("a")
    assert tally.take("a") and tally.counts == {"a": 2, "b": 1}
    assert Limits.from_config({"PROXY_FIX": 1, "HEADER_TIMEOUT": 3}).proxies == 1
    with pytest.raises(ValueError):
        Limits.from_config({"WEBSOCKETS_PER_ADDRESS": 0})
    with pytest.raises(ValueError):
        Limits.from_config({"POSTS_PER_SECOND": 0})


def test_a_bucket_lets_a_burst_through_then_a_rate() -> None:
    now = [100.0]
    buckets = Buckets(rate=2.0, burst=3, clock=lambda: now[0])
    assert [buckets.take("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert buckets.take("a") == pytest.approx(0.5)  # empty: half a second to the next token
    assert buckets.take("b") == 0.0  # each address its own
    now[0] += 0.5
    assert buckets.take("a") == 0.0
    assert buckets.take("a") > 0
    now[0] += 60
    assert [buckets.take("a") for _ in range(4)][:3] == [0.0, 0.0, 0.0]  # never more than the burst
    buckets.KEPT = 2
    buckets.take("c")
    assert len(buckets.held) <= 2
