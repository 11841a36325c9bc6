"""An answer is true: stored means acknowledged, whatever the push does; a store that cannot write says `busy`.

A full disk once answered a phone's entry `server` ("nothing was changed"), and the page dropped
it; a push that raised after the entry was stored answered the same, for an entry that counted.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import event
from sqlalchemy.exc import OperationalError

from referee.push import views as push_view
from referee.web.extensions import socketio, store_of
from tests.airraid_helpers import ships_json
from tests.web.test_games_web import act, game  # noqa: F401  (the fixture)

LOCK_A = {"type": "lock_sea", "team": "A", "ships": ships_json()}


@pytest.fixture
def full_disk(app: Flask, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, bool]]:
    """Every write transaction fails at its commit as SQLite's does on a full disk, while `full` is set."""
    engine = store_of(app).engine
    disk = {"full": True}

    def commit(conn: Any) -> None:
        if disk["full"] and not conn.get_execution_options().get("referee_readonly"):  # a write's commit
            raise OperationalError("COMMIT", (), Exception("database or disk is full"))

    event.listen(engine, "commit", commit)
    yield disk
    event.remove(engine, "commit", commit)


def _version(game: dict[str, Any]) -> int:  # noqa: F811
    return int(game["referee"].get(f"/api/games/{game['id']}/view").get_json()["version"])


def test_an_entry_a_full_disk_refuses_is_busy_then_stored_once(
    app: Flask,
    game: dict[str, Any],  # noqa: F811
    full_disk: dict[str, bool],
) -> None:
    before = _version(game)
    refused = act(game["A"], game["id"], LOCK_A, client_id="lock-1")
    assert refused.status_code == 503
    body = refused.get_json()
    assert body["error"] == "busy" and body["retry_after"] > 0 and int(refused.headers["Retry-After"]) >= 1
    assert _version(game) == before  # nothing stored
    assert store_of(app).health.failing_since is not None
    full_disk["full"] = False
    sent_again = act(game["A"], game["id"], LOCK_A, client_id="lock-1")
    assert sent_again.status_code == 200 and sent_again.get_json()["duplicate"] is False
    assert _version(game) == before + 1
    assert store_of(app).health.failing_since is None


def test_a_socket_entry_is_busy_and_the_referee_is_told_until_writes_succeed(
    app: Flask,
    game: dict[str, Any],  # noqa: F811
    full_disk: dict[str, bool],
) -> None:
    referee = socketio.test_client(app, flask_test_client=game["referee"])
    phone = socketio.test_client(app, flask_test_client=game["A"])
    try:
        assert referee.emit("resync", {"game": game["id"]}, callback=True)["ok"]
        assert phone.emit("resync", {"game": game["id"]}, callback=True)["ok"]
        referee.get_received()
        answer = phone.emit("action", {"game": game["id"], "client_id": "s-1", "action": LOCK_A}, callback=True)
        assert answer["ok"] is False and answer["error"] == "busy" and answer["retry_after"] > 0
        told = [m["args"][0] for m in referee.get_received() if m["name"] == "store"]
        assert told and told[-1]["ok"] is False and told[-1]["since"] > 0
        # A dashboard opened meanwhile hears it with its view.
        late = socketio.test_client(app, flask_test_client=game["referee"])
        assert late.emit("resync", {"game": game["id"]}, callback=True)["store"]["ok"] is False
        late.disconnect()
        full_disk["full"] = False
        again = phone.emit("action", {"game": game["id"], "client_id": "s-1", "action": LOCK_A}, callback=True)
        assert again["ok"] is True
        told = [m["args"][0] for m in referee.get_received() if m["name"] == "store"]
        assert told == [{"ok": True, "since": None}]
        assert "store" not in referee.emit("resync", {"game": game["id"]}, callback=True)
    finally:
        referee.disconnect()
        phone.disconnect()


def test_an_entry_whose_push_fails_is_still_acknowledged_as_stored(
    app: Flask,
    game: dict[str, Any],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*_args: Any, **_kwargs: Any) -> Any:
        raise RuntimeError("the push broke")

    monkeypatch.setattr(push_view, "_push_views_now", broken)
    before = _version(game)
    phone = socketio.test_client(app, flask_test_client=game["A"])
    try:
        assert phone.emit("resync", {"game": game["id"]}, callback=True)["ok"]
        answer = phone.emit("action", {"game": game["id"], "client_id": "p-1", "action": LOCK_A}, callback=True)
        assert answer["ok"] is True and answer["seq"] == before + 1
        http = act(game["B"], game["id"], {**LOCK_A, "team": "B"}, client_id="p-2")
        assert http.status_code == 200 and http.get_json()["seq"] == before + 2
    finally:
        phone.disconnect()
    monkeypatch.undo()
    assert _version(game) == before + 2
