"""The browser tests' shared fixture: a real `referee serve` on a fresh instance folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ..live_server import Server


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """Start a server of its own for one test, stopped after it."""
    live = Server(tmp_path / "instance")
    live.start()
    try:
        yield live
    finally:
        live.stop()
