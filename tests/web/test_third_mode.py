"""A third mode is one package plus one registry line: a coin-flip game played through the generic API.

The coin-flip mode (tests/coinflip) edits no module of the app. Registered, it is created,
watched and played by the referee over HTTP and Socket.IO, its chance (the coin) drawn by the
server, kept in the log, and replayed exactly.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

from referee.rules import MODES, find_mode, register
from referee.rules.engine import SEED
from referee.web.extensions import db, socketio

from .. import coinflip
from .screens import Pushes, Screen
from .test_games_web import referee_client


@pytest.fixture
def registered() -> Iterator[None]:
    register(coinflip.GAME)  # the one line a new mode needs
    yield
    MODES.pop(coinflip.MODE)


def test_a_registered_mode_is_found_like_the_others(registered: None) -> None:
    assert find_mode("coinflip") is coinflip.GAME


def test_the_coin_flip_game_is_played_through_the_generic_api_and_socket(
    app: Flask, registered: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    referee = referee_client(app)
    made = referee.post("/api/modes/coinflip/games", json={"action": {"flips": 3}})
    assert made.status_code == 201, made.get_json()
    gid = made.get_json()["game"]
    watcher = app.test_client()
    assert watcher.post("/api/modes/coinflip/games", json={"action": {"flips": 3}}).status_code == 403

    # Over HTTP: the referee calls, the server's coin falls, the seed is in the event.
    first = referee.post(f"/api/games/{gid}/actions", json={"action": {"type": "flip", "call": "heads"}})
    assert first.status_code == 200, first.get_json()
    event = first.get_json()["events"][0]
    assert isinstance(event["data"][SEED], int)
    assert first.get_json()["view"]["falls"] == [random.Random(event["data"][SEED]).choice(coinflip.SIDES)]
    # Nobody may bring their own coin, and a watcher may not flip at all.
    forged = referee.post(f"/api/games/{gid}/actions", json={"action": {"type": "flip", "call": "heads", SEED: 1}})
    assert forged.status_code == 400, forged.get_json()
    assert (
        watcher.post(f"/api/games/{gid}/actions", json={"action": {"type": "flip", "call": "tails"}}).status_code == 403
    )
    assert watcher.get(f"/api/games/{gid}/view").get_json()["role"] == "public"

    # Over Socket.IO: a watcher's screen hears the referee's flip.
    ref_sock = socketio.test_client(app, flask_test_client=referee)
    pub_sock = socketio.test_client(app, flask_test_client=watcher)
    try:
        assert ref_sock.emit("resync", {"game": gid, "seq": 0}, callback=True)["view"]["role"] == "referee"
        watching = Screen(pub_sock, gid, Pushes(monkeypatch))
        assert watching.view["role"] == "public"
        ack: dict[str, Any] = ref_sock.emit(
            "action", {"game": gid, "client_id": "f2", "action": {"type": "flip", "call": "tails"}}, callback=True
        )
        assert ack["ok"] is True, ack
        # A socket's answer carries no view (its push did): the view a resync gives now.
        mine = ref_sock.emit("resync", {"game": gid, "seq": 0}, callback=True)["view"]
        assert len(mine["falls"]) == 2, mine
        # The watcher's screen follows the push: its room holds what its resync gave, so a change set.
        assert [m["name"] for m in watching.take()] == ["changes"]
        assert watching.view["falls"] == mine["falls"]
        refused = pub_sock.emit(
            "action", {"game": gid, "client_id": "p1", "action": {"type": "flip", "call": "tails"}}, callback=True
        )
        assert refused["ok"] is False
    finally:
        ref_sock.disconnect()
        pub_sock.disconnect()

    last = referee.post(f"/api/games/{gid}/actions", json={"action": {"type": "flip", "call": "heads"}}).get_json()
    assert last["view"]["phase"] == "over" and last["view"]["outcome"]["reason"] == "flips"

    # The log opens once the game is over; replaying it rolls the same coins.
    log = watcher.get(f"/api/games/{gid}/log.json")
    assert log.status_code == 200 and log.get_json()["outcome"]["reason"] == "flips"
    with app.app_context():
        events = db.store.all_events(gid)
        db.store.forget(gid)
        stored, _version = db.store.load(gid)
    replayed = coinflip.replay(events)
    assert coinflip.state_to_dict(replayed) == coinflip.state_to_dict(stored)
    assert replayed.falls == [random.Random(e.data[SEED]).choice(coinflip.SIDES) for e in events if e.kind == "flip"]
    assert replayed.falls == last["view"]["falls"]
