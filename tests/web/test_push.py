"""A push makes each role's view once per language in use: every screen still gets its own, nothing leaks."""

from __future__ import annotations

import random
from typing import Any

import pytest
from flask import Flask
from flask_babel import force_locale  # type: ignore[import-untyped]

from referee.rules import airraid
from referee.rules.events import Role
from referee.web import playing as games_module
from referee.web.extensions import socketio, store_of

from ..airraid_helpers import ships_json
from ..rules.test_airraid_properties import play
from .test_games_web import create, join, referee_client


def screens(app: Flask) -> tuple[str, dict[str, Any]]:
    """A game in its set-up with six screens: (role, language) as named."""
    referee = referee_client(app)
    created = create(app, referee)
    gid = created["game"]
    a = join(app, created["links"]["join"]["A"])
    b = join(app, created["links"]["join"]["B"])
    browsers = {
        "referee:cs": referee,
        "team:A:en": a,
        "team:A:cs": a,
        "team:B:cs": b,
        "public:en": app.test_client(),
        "public:cs": app.test_client(),
    }
    socks = {}
    for name, browser in browsers.items():
        browser.set_cookie("lang", name.rsplit(":", 1)[1])
        socks[name] = socketio.test_client(app, flask_test_client=browser)
        assert socks[name].emit("resync", {"game": gid, "seq": 0}, callback=True)["ok"]
    return gid, socks


def expected_view(app: Flask, gid: str, role: str, lang: str) -> dict[str, Any]:
    state, _ = store_of(app).load(gid)
    with app.test_request_context(), force_locale(lang):
        return games_module.view_of(state, role, gid)


def pushed(sock: Any) -> list[dict[str, Any]]:
    return [m["args"][0] for m in sock.get_received() if m["name"] == "view"]


def test_each_screen_gets_its_role_and_language_and_no_unread_view_is_made(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    gid, socks = screens(app)
    made: list[tuple[str, str]] = []
    real_view_of = games_module.view_of

    def counting_view_of(state: Any, role: str, game_id: str) -> dict[str, Any]:
        from referee.web.i18n import current_lang

        made.append((role, current_lang()))
        return real_view_of(state, role, game_id)

    monkeypatch.setattr(games_module, "view_of", counting_view_of)
    for sock in socks.values():
        sock.get_received()
    ack = socks["team:A:en"].emit(
        "action",
        {"game": gid, "client_id": "p1", "action": {"type": "lock_sea", "team": "A", "ships": ships_json()}},
        callback=True,
    )
    assert ack["ok"], ack
    monkeypatch.setattr(games_module, "view_of", real_view_of)
    for name, sock in socks.items():
        role, lang = name.rsplit(":", 1)
        got = pushed(sock)
        assert [m["seq"] for m in got] == [ack["seq"]], name
        assert got[0]["view"] == expected_view(app, gid, role, lang), name
        assert got[0]["view"]["role"] == role
    # The test can tell the languages apart, and team A's secrets reach team A only.
    assert expected_view(app, gid, "team:A", "cs") != expected_view(app, gid, "team:A", "en")
    assert "ships" not in expected_view(app, gid, "team:B", "cs")["enemy_sea"]
    # The push made the six rooms' views, not every role × language; the sender's answer reuses
    # its room's view instead of making it a second time.
    assert sorted(made) == sorted({tuple(n.rsplit(":", 1)) for n in socks})  # type: ignore[misc]
    assert ack["view"] == expected_view(app, gid, "team:A", "en")


def test_with_a_message_queue_every_role_and_language_is_pushed(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    # Other processes' sockets are unknown here: each room gets its view through the queue.
    gid, socks = screens(app)
    app.config["REDIS_URL"] = "redis://queue.invalid:6379/0"  # only read by push_views here
    made: list[tuple[str, str]] = []
    real_view_of = games_module.view_of

    def counting_view_of(state: Any, role: str, game_id: str) -> dict[str, Any]:
        from referee.web.i18n import current_lang

        made.append((role, current_lang()))
        return real_view_of(state, role, game_id)

    monkeypatch.setattr(games_module, "view_of", counting_view_of)
    ack = socks["referee:cs"].emit(
        "action",
        {"game": gid, "client_id": "p2", "action": {"type": "lock_sea", "team": "B", "ships": ships_json()}},
        callback=True,
    )
    assert ack["ok"], ack
    assert {("team:B", "en"), ("referee", "en"), ("public", "cs")} <= set(made)


def old_log_view(state: airraid.State, role: Role, limit: int | None) -> list[dict[str, Any]]:
    """The log view as it was made before it stopped at the limit: all rows, then the tail."""
    rows: list[dict[str, Any]] = []
    for event in state.log:
        notes = [n for n in (airraid._note_view(state, n, role) for n in state.notes.get(event.seq, [])) if n]
        if role.kind == "referee":
            rows.append(
                {
                    **event.to_dict(),
                    "notes": notes,
                    "voided": state.voided.get(event.seq),
                    "skipped": state.skipped.get(event.seq),
                }
            )
        elif notes:
            rows.append({"seq": event.seq, "kind": event.kind, "at": event.at, "notes": notes})
    return rows[-limit:] if limit else rows


@pytest.mark.parametrize("seed", [3, 17, 2024])
def test_the_log_view_stops_at_its_limit_with_the_same_rows(seed: int) -> None:
    game = play(seed, steps=250, check_views=False)
    state = game.state
    assert len(state.log) > 60  # longer than every limit, so the early stop is exercised
    orders = [o for r in state.rounds for o in r.orders.values()]
    roles = ["referee", "public", "team:A", "team:B"] + [
        f"pilot:{o.id}" for o in random.Random(seed).sample(orders, min(4, len(orders)))
    ]
    for name in roles:
        role = Role.from_str(name)
        for limit in (None, 0, 1, 12, 50, 10_000):
            assert airraid._log_view(state, role, limit) == old_log_view(state, role, limit), (name, limit)


def old_say_all(value: Any) -> Any:
    """say_all as it was before its fast paths for plain values."""
    from referee.rules.errors import Msg, Name
    from referee.web.i18n import current_lang, say

    if isinstance(value, Msg):
        return say(value)
    if isinstance(value, Name):
        return value.in_language(current_lang())
    if isinstance(value, dict):
        return {k: old_say_all(v) for k, v in value.items()}
    if isinstance(value, list):
        return [old_say_all(v) for v in value]
    return value


@pytest.mark.parametrize("lang", ["cs", "en"])
def test_say_all_translates_as_before(app: Flask, lang: str) -> None:
    from collections import OrderedDict

    from referee.rules.errors import Msg, Name
    from referee.web.i18n import say_all

    carrier = Name("carrier", {"cs": "letadlová loď"})
    view = {
        "plain": ["text", 3, 2.5, True, None, ("a", carrier)],
        "msg": Msg("{ship} is sunk", ship=carrier),
        "name": carrier,
        "nested": OrderedDict(kinds=[carrier, {"deep": [Msg("no team {team!r}", team="C")]}]),
    }
    game = play(5, steps=120, check_views=False)
    real = airraid.view_for(game.state, Role.from_str("referee"), now=2000.0)
    with app.test_request_context(), force_locale(lang):
        assert say_all(view) == old_say_all(view)
        assert say_all(real) == old_say_all(real)
        translated = say_all(view)
    assert type(translated["name"]) is str and type(translated["msg"]) is str
    if lang == "cs":
        assert translated["name"] == "letadlová loď" and translated["nested"]["kinds"][0] == "letadlová loď"


def test_outgoing_packets_skip_the_binary_search(app: Flask) -> None:
    """The server's packets do not walk views for bytes (a fifth of a report's CPU); JSON still flows."""
    from referee.web.extensions import socketio as sio
    from referee.web.realtime import TextPacket

    assert sio.server.packet_class is TextPacket
    big_view = {"rows": [{"n": i, "cells": list(range(20))} for i in range(50)]}
    assert TextPacket.data_is_binary(["view", big_view]) is False
    encoded = TextPacket(2, data=["view", big_view]).encode()
    assert encoded.startswith('2["view",') and '"cells"' in encoded
