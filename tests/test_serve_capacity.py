"""`referee serve` on gunicorn holds as many open websockets as it has threads, past gunicorn's 1000."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask

from referee import cli

gunicorn_base = pytest.importorskip("gunicorn.app.base", reason="gunicorn is POSIX only")


@pytest.mark.parametrize("threads", [100, 3000])
def test_gunicorn_accepts_a_connection_for_every_thread(app: Flask, monkeypatch: pytest.MonkeyPatch, threads: int) -> None:
    # Each websocket holds a gthread thread for its whole life; gthread's worker_connections
    # (default 1000) would otherwise leave threads idle while phones wait to connect.
    seen: dict[str, Any] = {}

    def run(self: Any) -> None:
        seen.update(threads=self.cfg.threads, connections=self.cfg.worker_connections, worker=self.cfg.worker_class_str)

    monkeypatch.setattr(gunicorn_base.BaseApplication, "run", run)
    cli._run_gunicorn(app, "127.0.0.1", 5000, threads)
    assert seen["worker"] == "gthread"
    assert seen["threads"] == threads
    assert seen["connections"] >= threads + 100  # room for the HTTP requests besides the sockets
