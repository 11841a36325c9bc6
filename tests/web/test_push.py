"""A push makes each role's view once per language in use: every screen still gets its own, nothing leaks."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from flask import Flask
from flask_babel import force_locale  # type: ignore[import-untyped]

from referee.push import changes
from referee.push import clock as push_clock
from referee.push import sockets as push_sockets
from referee.push import views as push_view
from referee.rules import airraid
from referee.rules.events import PUBLIC, Role
from referee.web import live
from referee.web.api import acting as games_module
from referee.web.extensions import socketio, store_of

from ..airraid_helpers import PLAYERS, ships_json
from ..rules.test_airraid_properties import play
from .screens import Pushes, Screen
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


def counting(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Count the views made, by (role, language)."""
    from referee.web.i18n import current_lang

    made: list[tuple[str, str]] = []
    real_view_of = games_module.view_of
    real_translate = push_view.Made.__getitem__

    def counting_view_of(state: Any, role: str, game_id: str) -> dict[str, Any]:
        made.append((role, current_lang()))
        return real_view_of(state, role, game_id)

    def counting_translate(self: push_view.Made, room: tuple[Role, str]) -> Any:
        # A push makes a role's view once, before translation, and translates it for a room
        # only when that room is sent the whole view.
        if room not in self.rooms:
            made.append(room)
        return real_translate(self, room)

    monkeypatch.setattr(games_module, "view_of", counting_view_of)
    monkeypatch.setattr(push_view.Made, "__getitem__", counting_translate)
    return made


def test_each_screen_gets_its_role_and_language_and_no_unread_view_is_made(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    gid, socks = screens(app)
    for sock in socks.values():
        sock.get_received()
    made = counting(monkeypatch)
    ack = socks["team:A:en"].emit(
        "action",
        {"game": gid, "client_id": "p1", "action": {"type": "lock_sea", "team": "A", "ships": ships_json()}},
        callback=True,
    )
    assert ack["ok"], ack
    monkeypatch.undo()
    for name, sock in socks.items():
        role, lang = name.rsplit(":", 1)
        got = pushed(sock)
        # The first push of this process knows no view any room holds: whole views.
        assert [m["seq"] for m in got] == [ack["seq"]], name
        assert got[0]["view"] == expected_view(app, gid, role, lang), name
        assert got[0]["view"]["role"] == role
    # The test can tell the languages apart, and team A's secrets reach team A only.
    assert expected_view(app, gid, "team:A", "cs") != expected_view(app, gid, "team:A", "en")
    assert "ships" not in expected_view(app, gid, "team:B", "cs")["enemy_sea"]
    # The push made the six rooms' views, not every role × language; the socket's answer carries
    # none (its push did), so the sender's view was not made a second time.
    assert sorted(made) == sorted({tuple(n.rsplit(":", 1)) for n in socks})  # type: ignore[misc]
    assert set(ack) == {"ok", "duplicate", "seq", "events"}


def test_with_a_message_queue_every_role_and_language_is_pushed(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    # Other processes' sockets are unknown here: each room gets its view through the queue.
    gid, socks = screens(app)
    app.config["REDIS_URL"] = "redis://queue.invalid:6379/0"  # only read by push_views here
    made = counting(monkeypatch)
    ack = socks["referee:cs"].emit(
        "action",
        {"game": gid, "client_id": "p2", "action": {"type": "lock_sea", "team": "B", "ships": ships_json()}},
        callback=True,
    )
    assert ack["ok"], ack
    assert {("team:B", "en"), ("referee", "en"), ("public", "cs")} <= set(made)


# --- Change sets: each room gets what changed in its view ------------------------------------------


def game_in_the_air(app: Flask, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Pushes, dict[str, Screen]]:
    """An airborne game with a screen per role and language, each resynced, and the pushes recorded."""
    from ..fuzz_helpers import airborne_arena

    arena = airborne_arena(app)
    pushes = Pushes(monkeypatch)
    browsers = {
        "referee:cs": arena.referee,
        "team:A:en": arena.team_a,
        "team:B:cs": arena.team_b,
        "public:en": app.test_client(),
        "pilot:1A1:cs": app.test_client(),
    }
    found = {}
    for name, browser in browsers.items():
        browser.set_cookie("lang", name.rsplit(":", 1)[1])
        sock = socketio.test_client(app, flask_test_client=browser)
        extra = {"slip": arena.slips["1A1"]} if name.startswith("pilot") else {}
        found[name] = Screen(sock, arena.gid, pushes, **extra)
        assert found[name].ack["ok"], found[name].ack
    return arena, pushes, found


def test_from_the_first_push_on_each_room_gets_its_changes_and_they_give_its_view(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each room holds the view its first socket's resync gave (the state this process pushed last).
    arena, _pushes, found = game_in_the_air(app, monkeypatch)
    referee = found["referee:cs"].sock
    sizes = {name: [len(json.dumps(screen.view, separators=(",", ":")))] for name, screen in found.items()}
    for n, kind in enumerate(["pause_timer", "resume_timer", "adjust_timer", "pause_timer"]):
        action = {"type": kind, **({"seconds": 30} if kind == "adjust_timer" else {})}
        ack = referee.emit("action", {"game": arena.gid, "client_id": f"t{n}", "action": action}, callback=True)
        assert ack["ok"] and "view" not in ack, ack
        for name, screen in found.items():
            got = screen.take()
            assert [m["name"] for m in got] == ["changes"], (name, n)
            sizes[name].append(len(json.dumps(got[0]["args"][0], separators=(",", ":"))))
    # A pilot's report, over the pilot's own socket: the other screens hear it as changes too.
    nxt = found["pilot:1A1:cs"].view["next"]
    report = {"type": "report_dogfight", "a": nxt["a"], "b": nxt["b"], "throws": [{"winner": "A"}]}
    ack = found["pilot:1A1:cs"].sock.emit(
        "action", {"game": arena.gid, "client_id": "r1", "action": report, "slip": arena.slips["1A1"]}, callback=True
    )
    assert ack["ok"], ack
    for name, screen in found.items():
        assert [m["name"] for m in screen.take()] == ["changes"], name
        slip = {"slip": arena.slips["1A1"]} if name.startswith("pilot") else {}
        again = screen.sock.emit("resync", {"game": arena.gid, "seq": screen.seq, **slip}, callback=True)
        assert again["seq"] == screen.seq and changes.same(again["view"], screen.view), name
    for name, got in sizes.items():
        # The resync gave the whole view; each change set after it is a small part of it.
        assert max(got[1:]) * 4 < got[0], (name, got)


def test_a_screen_that_missed_a_push_is_sent_changes_it_cannot_apply_and_resyncs(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    arena, _pushes, found = game_in_the_air(app, monkeypatch)
    referee, watcher = found["referee:cs"].sock, found["public:en"]
    for n, kind in enumerate(["pause_timer", "resume_timer"]):
        referee.emit("action", {"game": arena.gid, "client_id": f"m{n}", "action": {"type": kind}}, callback=True)
    first, second = watcher.sock.get_received()
    watcher.take([first])  # the second push never reached this page
    referee.emit("action", {"game": arena.gid, "client_id": "m2", "action": {"type": "pause_timer"}}, callback=True)
    (third,) = watcher.sock.get_received()
    assert third["name"] == "changes" and third["args"][0]["from"] == second["args"][0]["seq"] != watcher.seq


def test_a_room_nobody_listened_in_holds_what_its_first_socket_was_given(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    arena, pushes, found = game_in_the_air(app, monkeypatch)
    referee = found["referee:cs"].sock
    referee.emit("action", {"game": arena.gid, "client_id": "w0", "action": {"type": "pause_timer"}}, callback=True)
    found["public:en"].sock.disconnect()
    assert (PUBLIC, "en") not in push_sockets.rooms_here[arena.gid] and (PUBLIC, "cs") not in push_sockets.rooms_here[
        arena.gid
    ]
    referee.emit("action", {"game": arena.gid, "client_id": "w1", "action": {"type": "resume_timer"}}, callback=True)
    # The public room had no socket at that push, so its view then was not made: the late
    # screen's resync gives it, and the room holds it from then on.
    late = Screen(socketio.test_client(app, flask_test_client=app.test_client()), arena.gid, pushes)
    assert late.sock.get_received() == []
    referee.emit("action", {"game": arena.gid, "client_id": "w2", "action": {"type": "pause_timer"}}, callback=True)
    assert [m["name"] for m in late.take()] == ["changes"]
    assert [m["name"] for m in found["team:A:en"].take()] == ["changes", "changes", "changes"]


def test_a_room_whose_screen_was_answered_a_state_not_pushed_yet_gets_its_whole_view_next(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    arena, pushes, found = game_in_the_air(app, monkeypatch)
    referee = found["referee:cs"].sock
    found["public:en"].sock.disconnect()
    # A report stored whose push has not run yet (it follows its commit): a screen that joins now
    # is answered a state newer than the room's last push, which other screens of the room may
    # not hold. The room's view is then not taken for known: its next push is the whole view.
    with app.app_context():
        store_of(app).execute(arena.gid, {"type": "pause_timer"}, at=time.time(), by="referee")
    late = Screen(socketio.test_client(app, flask_test_client=app.test_client()), arena.gid, pushes)
    referee.emit("action", {"game": arena.gid, "client_id": "w3", "action": {"type": "resume_timer"}}, callback=True)
    got = late.take()
    assert [m["name"] for m in got] == ["view"] and got[0]["args"][0]["seq"] == late.seq
    # A room that held the last push's view gets the change from it, whatever the socket saw since.
    assert [m["name"] for m in found["team:A:en"].take()] == ["changes"]


def test_a_change_set_no_smaller_than_the_view_is_sent_as_the_view(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(push_view, "SMALL_CHANGE", 0)
    held = (4, {"a": 1, "b": None}, None)
    event, message, size = push_view._message(held, 5, {"c": [1, 2]}, since=4, queued=False)
    assert event == "view" and message == {"seq": 5, "view": {"c": [1, 2]}} and size == len('{"c":[1,2]}')
    event, message, _size = push_view._message(held, 5, {"a": 1, "b": None, "c": 2}, since=4, queued=False)
    assert event == "changes" and message == {"from": 4, "seq": 5, "changes": {"c": 2}}
    # A null value survives the change set: it is set, not taken for a removal.
    held = (4, {"a": 1, "b": None, "text": "long enough to be worth a change set"}, None)
    event, message, _size = push_view._message(held, 5, {**held[1], "a": None}, since=4, queued=False)
    assert event == "changes" and message["changes"] == {"a": {"$set": None}}
    # Under half the view's size last weighed, a change set goes without weighing the view again.
    event, message, size = push_view._message((4, {"a": 1}, 1000), 5, {"a": 2, "b": [3]}, since=4, queued=False)
    assert event == "changes" and size == 1000


@pytest.mark.parametrize(
    "held, since, queued, event",
    [
        (None, 4, False, "view"),  # no view known: the first push after a start
        ((4, None), 4, False, "view"),  # the room was told it has no view (a pilot whose order is gone)
        ((4, {"a": 1}), None, False, "view"),  # a change from an unknown version (a duplicate)
        ((5, {"a": 1}), 4, False, "view"),  # this version was sent already
        ((3, {"a": 1}), 4, False, "changes"),  # one push overtaken by another: the room holds 3
        ((3, {"a": 1}), 4, True, "view"),  # with a queue, another process may have sent 4
        ((4, {"a": 1}), 4, True, "changes"),
    ],
)
def test_the_whole_view_goes_when_no_view_the_room_holds_is_known(
    held: Any, since: int | None, queued: bool, event: str
) -> None:
    held = held and (*held, None)
    assert push_view._message(held, 5, {"a": 2}, since=since, queued=queued)[0] == event


def test_an_action_costs_one_write_transaction_and_no_token_or_name_read(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sqlalchemy import event

    from referee.web.extensions import engine_of

    arena, _pushes, found = game_in_the_air(app, monkeypatch)
    referee, team = found["referee:cs"].sock, found["team:A:en"].sock
    # Warm: the first push reads the names of the log's phones once.
    referee.emit("action", {"game": arena.gid, "client_id": "c0", "action": {"type": "pause_timer"}}, callback=True)
    statements: list[str] = []
    engine = engine_of(app)

    def on_checkout(dbapi_connection: Any, *rest: Any) -> None:
        # Every statement SQLite runs, through SQLAlchemy or on the driver's own cursor.
        dbapi_connection.set_trace_callback(statements.append)

    def on_checkin(dbapi_connection: Any, *rest: Any) -> None:
        dbapi_connection.set_trace_callback(None)

    event.listen(engine, "checkout", on_checkout)
    event.listen(engine, "checkin", on_checkin)
    try:
        for n, kind in enumerate(["resume_timer", "pause_timer"]):
            ack = referee.emit(
                "action", {"game": arena.gid, "client_id": f"c{n + 1}", "action": {"type": kind}}, callback=True
            )
            assert ack["ok"], ack
        ack = team.emit(
            "action",
            {
                "game": arena.gid,
                "client_id": "c9",
                "action": {"type": "set_players", "team": "A", "players": PLAYERS["A"]},
            },
            callback=True,
        )
        assert ack["ok"], ack
    finally:
        event.remove(engine, "checkout", on_checkout)
        event.remove(engine, "checkin", on_checkin)
    # Three actions, three transactions: each its write, nothing read before or after it.
    # The game's row, the client_id's earlier batch (none), the event, the game's new version.
    one = ["BEGIN IMMEDIATE", "SELECT games.", "SELECT events.batch_seq", "INSERT INTO events", "UPDATE games"]
    one += ["COMMIT"]
    assert [next((k for k in one if s.startswith(k)), s) for s in statements] == one * 3, statements


def test_the_referees_log_names_phones_from_memory_and_hears_of_a_rename(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    from referee.push import senders
    from referee.store.models import Device
    from referee.web.extensions import engine_of

    arena, _pushes, found = game_in_the_air(app, monkeypatch)
    referee = found["referee:cs"]

    def names_shown(client_id: str) -> set[str]:
        kind = "pause_timer" if int(client_id[1:]) % 2 == 0 else "resume_timer"
        ack = referee.sock.emit(
            "action", {"game": arena.gid, "client_id": client_id, "action": {"type": kind}}, callback=True
        )
        assert ack["ok"], ack
        referee.take()
        return {row["device"] for row in referee.view["log"] if row.get("by") == "team:A"}

    # An unnamed phone is "device" and its id's start, in the referee's language (the rows are
    # made once for every language and translated as they are sent).
    assert names_shown("n0") == {f"zařízení {arena.device_a[:4]}"}
    renamed = arena.referee.post(f"/api/games/{arena.gid}/devices/{arena.device_a}", json={"name": "Red phone"})
    assert renamed.status_code == 200
    assert names_shown("n1") == {"Red phone"}  # renamed here: seen at the next push
    with engine_of(app).begin() as conn:  # renamed by another process
        conn.execute(Device.__table__.update().where(Device.__table__.c.id == arena.device_a).values(name="Blue"))
    assert names_shown("n2") == {"Red phone"}  # from memory
    monkeypatch.setattr(senders, "NAMES_TTL", 0.0)
    # A process alone renamed every phone itself: it reads names only when told to.
    assert names_shown("n3") == {"Red phone"}
    # With other processes (a message queue) a name is read again NAMES_TTL seconds after the last.
    monkeypatch.setitem(app.config, "REDIS_URL", "redis://127.0.0.1:1/0")
    assert names_shown("n4") == {"Blue"}


def test_a_push_names_only_the_log_rows_new_since_the_last_and_keeps_the_others(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    from referee.web.modes.airraid import views as airraid_web

    arena, _pushes, found = game_in_the_air(app, monkeypatch)
    referee = found["referee:cs"]
    asked: list[list[int]] = []
    named_logs: list[list[Any]] = []
    real_names, real_log = airraid_web.device_names, airraid_web._named_log

    def device_names(game_id: str, seqs: list[int]) -> dict[int, str]:
        asked.append(list(seqs))
        return real_names(game_id, seqs)

    def named_log(game_id: str, log: list[Any]) -> list[dict[str, Any]]:
        named = real_log(game_id, log)
        named_logs.append(named)
        return named

    monkeypatch.setattr(airraid_web, "device_names", device_names)
    monkeypatch.setattr(airraid_web, "_named_log", named_log)

    def act(n: int) -> int:
        kind = "pause_timer" if n % 2 == 0 else "resume_timer"
        ack = referee.sock.emit(
            "action", {"game": arena.gid, "client_id": f"k{n}", "action": {"type": kind}}, callback=True
        )
        assert ack["ok"], ack
        return int(ack["seq"])

    act(0)
    asked.clear()
    seq = act(1)
    assert asked == [[seq]]  # the one new row, not the whole window
    before, after = named_logs[-2], named_logs[-1]
    assert after[:-1] == before[-len(after) + 1 :] and all(
        a is b for a, b in zip(after[:-1], before[-len(after) + 1 :], strict=True)
    )
    assert after[-1]["seq"] == seq
    # A rename makes every row be named again, with the new name.
    renamed = arena.referee.post(f"/api/games/{arena.gid}/devices/{arena.device_a}", json={"name": "Red phone"})
    assert renamed.status_code == 200
    asked.clear()
    act(2)
    assert len(asked[-1]) == len(named_logs[-1]) > 1
    assert {row["device"] for row in named_logs[-1] if row.get("by") == "team:A"} == {"Red phone"}
    referee.take()
    assert {row["device"] for row in referee.view["log"] if row.get("by") == "team:A"} == {"Red phone"}


def test_a_revoked_phone_cannot_act_before_its_socket_is_closed(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    arena, _pushes, found = game_in_the_air(app, monkeypatch)
    team = found["team:A:en"].sock
    closed: list[str] = []
    # The disconnect is on its way but has not landed: the socket is still open.
    monkeypatch.setattr(socketio.server, "disconnect", lambda sid, namespace=None: closed.append(sid))
    response = arena.referee.delete(f"/api/games/{arena.gid}/devices/{arena.device_a}")
    assert response.status_code == 200 and closed
    with app.app_context():
        before = store_of(app).load(arena.gid)[1]
    ack = team.emit(
        "action",
        {"game": arena.gid, "client_id": "x1", "action": {"type": "set_players", "team": "A", "players": PLAYERS["A"]}},
        callback=True,
    )
    assert ack["ok"] is False and ack["error"] == "forbidden", ack
    with app.app_context():
        assert store_of(app).load(arena.gid)[1] == before


def test_the_clock_closes_the_sockets_of_phones_revoked_by_another_process(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    from referee.store.models import Device
    from referee.web.extensions import engine_of

    arena, _pushes, found = game_in_the_air(app, monkeypatch)
    team = found["team:A:en"].sock
    assert push_sockets.disconnect_revoked(app) == 0 and team.is_connected()  # every phone in good standing
    with engine_of(app).begin() as conn:  # revoked elsewhere: this process was not told
        conn.execute(Device.__table__.update().where(Device.__table__.c.id == arena.device_a).values(revoked_at=1.0))
    assert push_sockets.disconnect_revoked(app) == 1
    assert not team.is_connected() and found["team:B:cs"].sock.is_connected()
    # A phone's token revoked elsewhere (`referee tokens revoke`): its socket is closed, and counted, once.
    from referee.web.access import TokenKind, list_tokens, revoke_token

    others = [t for t in list_tokens(engine_of(app), kinds=(TokenKind.DEVICE,)) if t.game_id == arena.gid]
    for token in others:
        revoke_token(engine_of(app), token.id)
    assert push_sockets.disconnect_revoked(app) == 1
    assert not found["team:B:cs"].sock.is_connected() and found["referee:cs"].sock.is_connected()
    assert push_sockets.disconnect_revoked(app) == 0


# The round clock's look: the soonest deadline and the revocations counted, in one statement.
LOOK = (
    "SELECT (SELECT min(games.deadline) AS min_1 FROM games) AS anon_1, "
    "(SELECT revocations.count FROM revocations WHERE revocations.id = 1) AS anon_2"
)


def test_while_nothing_is_revoked_the_clocks_look_reads_one_number(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    from sqlalchemy import event

    from referee.web.extensions import engine_of

    arena, _pushes, found = game_in_the_air(app, monkeypatch)
    store = store_of(app)
    counts: list[int] = []
    real_revocations = store.revocations
    monkeypatch.setattr(store, "revocations", lambda: counts.append(1) or real_revocations())
    read: list[str] = []

    def trace(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        read.append(" ".join(statement.split()))

    event.listen(engine_of(app), "before_cursor_execute", trace)
    try:
        # Sockets were noted since the last look (there was none): their tokens and phones are looked up.
        assert push_sockets.disconnect_revoked(app) == 0
        assert counts == [1] and any("JOIN tokens" in s for s in read), read
        counts.clear(), read.clear()
        # Nothing revoked, no socket noted since: the count alone, one statement.
        assert push_sockets.disconnect_revoked(app) == 0
        assert counts == [1] and [s for s in read if s != "BEGIN"] == [LOOK], read
        # A socket settles its role again (it may hold a token revoked before it was noted): looked up.
        team = found["team:A:en"].sock
        assert team.emit("resync", {"game": arena.gid, "seq": 0}, callback=True)["ok"]
        read.clear()
        assert push_sockets.disconnect_revoked(app) == 0
        assert any("JOIN tokens" in s for s in read), read
        read.clear()
        assert push_sockets.disconnect_revoked(app) == 0 and [s for s in read if s != "BEGIN"] == [LOOK]
        # A phone revoked by hand in a SQL shell moves the count (a trigger): found and cut off.
        with engine_of(app).begin() as conn:
            conn.exec_driver_sql("UPDATE devices SET revoked_at = 5.0 WHERE id = ?", (arena.device_a,))
        assert push_sockets.disconnect_revoked(app) == 1
    finally:
        event.remove(engine_of(app), "before_cursor_execute", trace)
    assert not team.is_connected() and found["team:B:cs"].sock.is_connected()


def test_the_running_clock_cuts_off_a_phone_revoked_by_hand_within_its_look(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from referee.web.extensions import engine_of

    arena, _pushes, found = game_in_the_air(app, monkeypatch)
    monkeypatch.setattr(push_clock, "REVOKED_EVERY", 0.2)
    stop = threading.Event()
    push_clock.start_round_clock(app, longest=0.2, stop=stop)
    try:
        time.sleep(0.5)  # a few looks, nothing revoked
        team = found["team:A:en"].sock
        assert team.is_connected()
        with engine_of(app).begin() as conn:
            conn.exec_driver_sql("UPDATE devices SET revoked_at = 5.0 WHERE id = ?", (arena.device_a,))
        deadline = time.time() + 5.0
        while team.is_connected() and time.time() < deadline:
            time.sleep(0.05)
        assert not team.is_connected(), "the clock did not cut off the phone revoked elsewhere"
        assert found["team:B:cs"].sock.is_connected()
    finally:
        stop.set()
        store_of(app).deadlines_moved.set()


def test_a_referee_link_revoked_elsewhere_is_cut_off_by_the_clock_and_no_entry_reads_its_role(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    from referee.web.access import TokenKind, list_tokens, revoke_token
    from referee.web.extensions import engine_of

    arena, _pushes, found = game_in_the_air(app, monkeypatch)
    referee, team = found["referee:cs"].sock, found["team:A:en"].sock
    reads: list[str] = []
    real_role_of = games_module.role_of
    monkeypatch.setattr(games_module, "role_of", lambda *a: reads.append("role") or real_role_of(*a))
    ack = referee.emit(
        "action", {"game": arena.gid, "client_id": "v0", "action": {"type": "pause_timer"}}, callback=True
    )
    assert ack["ok"] and reads == [], "the role settled at resync acts, not read again per action"
    assert push_sockets.disconnect_revoked(app) == 0 and referee.is_connected()  # every token in good standing
    for token in list_tokens(engine_of(app), kinds=(TokenKind.REFEREE,)):
        revoke_token(engine_of(app), token.id)  # as `referee tokens revoke` does, from another process
    assert push_sockets.disconnect_revoked(app) == 1
    assert not referee.is_connected() and team.is_connected()
    with app.app_context():
        before = store_of(app).load(arena.gid)[1]
    # A browser that comes back with the revoked link is a watcher: its entries change nothing.
    again = socketio.test_client(app, flask_test_client=arena.referee)
    view = again.emit("resync", {"game": arena.gid}, callback=True)
    assert view["ok"] and view["view"]["role"] == "public", view
    refused = again.emit(
        "action", {"game": arena.gid, "client_id": "v1", "action": {"type": "resume_timer"}}, callback=True
    )
    assert refused == live.WATCHERS_CANNOT_ACT
    with app.app_context():
        assert store_of(app).load(arena.gid)[1] == before


def test_the_clock_marks_the_tokens_of_sockets_that_acted_as_seen_once_a_minute(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An entry reads nothing, so the phone's "last seen" in the referee's list is written by the clock.
    from referee.web.access import TOUCH_EVERY, TokenKind, list_tokens
    from referee.web.extensions import engine_of

    arena, _pushes, found = game_in_the_air(app, monkeypatch)
    team = found["team:A:en"].sock

    def seen() -> dict[int, float | None]:
        return {t.id: t.last_seen_at for t in list_tokens(engine_of(app), kinds=(TokenKind.DEVICE,))}

    def act(n: int) -> None:
        ack = team.emit(
            "action", {"game": arena.gid, "client_id": f"s{n}", "action": {"type": "pause_timer"}}, callback=True
        )
        assert ack["ok"] is False and ack["error"] != "forbidden", ack  # the referee's to take, but a team's entry

    before = seen()
    later = time.time() + 10 * TOUCH_EVERY
    assert push_sockets.mark_seen(app, later) == 0, "no socket acted: nothing to mark"
    act(1)
    assert push_sockets.mark_seen(app, later) == 1
    after = seen()
    changed = [t for t in after if after[t] != before[t]]
    assert len(changed) == 1 and after[changed[0]] == pytest.approx(later)
    act(2)
    assert push_sockets.mark_seen(app, later + 1.0) == 0, "at most once a minute per token"
    assert push_sockets.mark_seen(app, later + TOUCH_EVERY) == 0, "nothing acted since"
    act(3)
    assert push_sockets.mark_seen(app, later + TOUCH_EVERY) == 1


def test_a_socket_gone_while_its_resync_reads_its_role_is_not_left_behind(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Under load a page can give up while its resync waits for the database: its phone must not
    # then show as connected forever, nor its room be served views nobody reads.
    arena, _pushes, found = game_in_the_air(app, monkeypatch)
    found["team:A:en"].sock.disconnect()
    assert arena.device_a not in push_sockets.connected_devices()
    late = socketio.test_client(app, flask_test_client=arena.team_a)
    real_role_of = games_module.role_of

    def role_then_gone(*args: Any) -> Any:
        role = real_role_of(*args)
        late.disconnect()  # the page closed meanwhile
        return role

    monkeypatch.setattr(games_module, "role_of", role_then_gone)
    late.emit("resync", {"game": arena.gid})
    assert not late.is_connected()
    assert arena.device_a not in push_sockets.connected_devices()
    assert all(room[0] != Role("team", "A") for room in push_sockets.rooms_here.get(arena.gid, {}))


@contextmanager
def statements_reading(app: Flask, table: str) -> Iterator[list[str]]:
    """Collect the statements run on the app's database that read FROM `table`, while in the block."""
    from sqlalchemy import event

    from referee.web.extensions import engine_of

    looked: list[str] = []

    def on_statement(_conn: object, _cursor: object, statement: str, *_rest: object) -> None:
        if f"FROM {table}" in statement:
            looked.append(statement)

    event.listen(engine_of(app), "before_cursor_execute", on_statement)
    try:
        yield looked
    finally:
        event.remove(engine_of(app), "before_cursor_execute", on_statement)


def test_a_resync_with_no_push_meanwhile_reads_the_game_once(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    # A storm of reconnects after a restart: each socket's resync reads its game's row once, not twice.
    arena, _pushes, _found = game_in_the_air(app, monkeypatch)
    with statements_reading(app, "games") as looked:
        watcher = socketio.test_client(app, flask_test_client=app.test_client())
        ack = watcher.emit("resync", {"game": arena.gid}, callback=True)
    assert ack["ok"] and ack["view"]["role"] == "public", ack
    assert len(looked) == 1, looked
    assert ack["seq"] == store_of(app).load(arena.gid)[1]


@pytest.mark.parametrize("queued", [False, True])
def test_a_push_between_a_resyncs_first_look_and_its_join_is_in_its_answer(
    app: Flask, monkeypatch: pytest.MonkeyPatch, queued: bool
) -> None:
    # The socket joins its room after its role is read: a change pushed meanwhile never reaches
    # it, so its answer must be the view after that change, not the one read first.
    arena, _pushes, found = game_in_the_air(app, monkeypatch)
    if queued:
        monkeypatch.setitem(app.config, "REDIS_URL", "redis://127.0.0.1:1/0")  # read again: others push too
        monkeypatch.setattr(socketio.server.manager, "emit", lambda *args, **kwargs: None)
    referee = found["referee:cs"].sock
    real_role_of = games_module.role_of
    acted: list[dict[str, Any]] = []

    def role_then_a_report(*args: Any) -> Any:
        role = real_role_of(*args)
        if not acted:
            body = {"game": arena.gid, "client_id": "meanwhile", "action": {"type": "pause_timer"}}
            acted.append(referee.emit("action", body, callback=True))
        return role

    monkeypatch.setattr(games_module, "role_of", role_then_a_report)
    first = store_of(app).load(arena.gid)[1]
    late = socketio.test_client(app, flask_test_client=app.test_client())
    ack = late.emit("resync", {"game": arena.gid}, callback=True)
    assert acted and acted[0]["ok"], acted
    assert ack["ok"] and ack["seq"] == acted[0]["seq"] > first, (ack.get("seq"), acted[0], first)
    assert ack["view"]["round"]["running"] is False


def test_a_phone_that_connects_again_finds_its_device_without_a_read(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A token's device never changes: a page's every reconnect (a restart's storm of them) reads it once.
    arena, _pushes, _found = game_in_the_air(app, monkeypatch)
    with statements_reading(app, "devices") as looked:
        again = socketio.test_client(app, flask_test_client=arena.team_a)
        ack = again.emit("resync", {"game": arena.gid}, callback=True)
        assert ack["ok"] and ack["view"]["role"] == "team:A", ack
        assert looked == []
        assert arena.device_a in push_sockets.connected_devices()
        # Revoked, the phone's token is no token: no device, kept or not, and no team.
        assert arena.referee.delete(f"/api/games/{arena.gid}/devices/{arena.device_a}").status_code == 200
        third = socketio.test_client(app, flask_test_client=arena.team_a)
        ack = third.emit("resync", {"game": arena.gid}, callback=True)
        assert ack["ok"] and ack["view"]["role"] == "public", ack
        assert arena.device_a not in push_sockets.connected_devices()


def test_an_entry_is_running_while_it_acts_and_pushes_and_not_after(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The cycle collector waits for no entry to be running (referee.realtime.collector.collect_when_quiet).
    arena, _pushes, found = game_in_the_air(app, monkeypatch)
    seen: list[bool] = []
    real_push = push_view.push_views
    monkeypatch.setattr(
        push_view, "push_views", lambda *a, **k: seen.append(live.entries_running()) or real_push(*a, **k)
    )
    assert not live.entries_running()
    ack = found["referee:cs"].sock.emit(
        "action", {"game": arena.gid, "client_id": "r0", "action": {"type": "pause_timer"}}, callback=True
    )
    assert ack["ok"] and seen == [True], ack
    refused = found["team:A:en"].sock.emit("action", ["junk"], callback=True)
    assert refused["ok"] is False
    assert not live.entries_running()


def test_a_socket_entry_hears_refusals_in_its_language_and_a_slip_it_did_not_resync_with_is_checked(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    arena, _pushes, found = game_in_the_air(app, monkeypatch)
    referee, team = found["referee:cs"].sock, found["team:A:en"].sock
    ack = referee.emit(
        "action", {"game": arena.gid, "client_id": "q0", "action": {"type": "pause_timer"}}, callback=True
    )
    assert ack["ok"], ack
    again = referee.emit(
        "action", {"game": arena.gid, "client_id": "q1", "action": {"type": "pause_timer"}}, callback=True
    )
    assert again["error"] == "illegal" and again["message"] == "čas už je zastavený", again
    junk = team.emit("action", ["not", "an", "object"], callback=True)
    assert junk["ok"] is False and junk["error"] == "malformed", junk
    watcher = found["public:en"].sock.emit(
        "action", {"game": arena.gid, "action": {"type": "pause_timer"}}, callback=True
    )
    assert watcher == live.WATCHERS_CANNOT_ACT
    # An entry with a slip this socket did not resync with is read as that slip's pilot
    # (the slip is checked, its language is the socket's).
    pilot = {"game": arena.gid, "slip": arena.slips["1A1"], "client_id": "q2", "action": {"type": "resume_timer"}}
    ack = referee.emit("action", pilot, callback=True)
    assert ack["error"] == "not_your_turn" and ack["message"] == "tohle smí jen rozhodčí", ack
    forged = referee.emit("action", {**pilot, "slip": arena.slips["1A1"][:-2] + "xx"}, callback=True)
    assert forged["ok"] is False and forged["error"] == "forbidden", forged
    ack = referee.emit(
        "action", {"game": arena.gid, "client_id": "q3", "action": {"type": "resume_timer"}}, callback=True
    )
    assert ack["ok"], "the socket's own game and role are still settled"


NODE_CHANGES = r"""
import assert from 'node:assert/strict';
const { Connection } = await import(process.argv[1] + '/lib/conn.js');
const handlers = {};
const sent = [];
let ackOf = {};
const socket = {
  connected: true, io: { on() {} }, on(name, fn) { handlers[name] = fn; },
  timeout() { return this; },
  emit(event, payload, cb) { sent.push([event, payload]); const a = ackOf[event] && ackOf[event](payload); if (cb && a) cb(null, a); },
  connect() {}, disconnect() {}, removeAllListeners() {},
};
const mem = new Map();
const storage = { getItem: (k) => mem.get(k) ?? null, setItem: (k, v) => mem.set(k, v), removeItem: (k) => mem.delete(k) };
ackOf = { resync: () => ({ ok: true, seq: 3, view: { version: 3, log: [1, 2], round: { left: 9, deadline: null } } }), time_ping: () => ({ server_time: Date.now() }) };
const conn = new Connection({ game: 'g', io: () => socket, storage, clockEveryMs: 1e9, ackTimeoutMs: 200 });
const shown = [];
conn.on('view', (m) => { shown.push([m.seq, JSON.parse(JSON.stringify(m.view))]); m.view.log.push('a page scribbles on its copy'); });
const tick = () => new Promise((r) => setTimeout(r, 0));
conn.start();
handlers.connect();
await tick();
assert.deepEqual(shown.at(-1), [3, { version: 3, log: [1, 2], round: { left: 9, deadline: null } }]);
// In order: applied, shown as a view.
handlers.changes({ from: 3, seq: 4, changes: { version: 4, log: { $list: [[2, 0, [3]]] }, round: { left: 8 } } });
assert.deepEqual(shown.at(-1), [4, { version: 4, log: [1, 2, 3], round: { left: 8, deadline: null } }]);
// Already here: ignored.
handlers.changes({ from: 3, seq: 4, changes: { version: 99 } });
assert.equal(shown.length, 2);
// A change set that does not fit is not shown (nothing half applied): a resync is asked.
sent.length = 0;
ackOf.resync = () => null;  // the answer is on its way, late
handlers.changes({ from: 4, seq: 5, changes: { log: { $list: [[7, 1]] } } });
assert.equal(shown.length, 2);
assert.deepEqual(sent.map((s) => s[0]), ['resync']);
// While the resync is on its way, changes from elsewhere wait, and follow the view it brings.
handlers.changes({ from: 6, seq: 7, changes: { version: 7 } });
handlers.changes({ from: 5, seq: 6, changes: { version: 6 } });
assert.equal(shown.length, 2);
handlers.view({ seq: 5, view: { version: 5, log: [], round: null } });
assert.deepEqual(shown.map((s) => s[0]), [3, 4, 5, 6, 7]);
assert.equal(conn.lastSeq, 7);
// A gap: another base asks for a resync.
sent.length = 0;
handlers.changes({ from: 9, seq: 10, changes: {} });
assert.deepEqual(sent.map((s) => s[0]), ['resync']);
// An answer without a view is answered with the view of its seq: the one held...
conn._resyncing = false;
ackOf.action = () => ({ ok: true, seq: 7, events: [{ seq: 7 }] });
const now = await conn.send({ type: 'x' });
assert.equal(now.view.version, 7);
// ...or, when the push is late (another process sent it), once it is here.
ackOf.action = () => ({ ok: true, seq: 8, events: [{ seq: 8 }] });
let answered = null;
const later = conn.send({ type: 'y' }).then((r) => { answered = r; });
await new Promise((r) => setTimeout(r, 20));
assert.equal(answered, null);
handlers.changes({ from: 7, seq: 8, changes: { version: 8 } });
await later;
assert.equal(answered.view.version, 8);
assert.deepEqual(shown.map((s) => s[0]).slice(-2), [7, 8]);
// No push at all: answered without a view after the wait, and a resync asked.
ackOf.action = () => ({ ok: true, seq: 9, events: [{ seq: 9 }] });
sent.length = 0;
const lost = await conn.send({ type: 'z' });
assert.equal(lost.view, null);
assert.ok(sent.some((s) => s[0] === 'resync'));
conn.stop();
console.log('changes ok');
"""  # noqa: E501 - JavaScript for node, one assertion a line


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
    # Made event by event, as pushes make it: each view starts from the rows of the one before.
    growing = airraid.replay(game.events[:1])
    for k, event in enumerate(game.events[1:], start=2):
        growing = airraid.fold(growing, event)
        if k % 3:
            continue
        for name in roles:
            role = Role.from_str(name)
            if role.kind == "pilot" and growing.order(role.subject) is None:
                continue
            for limit in (None, 1, 12, 50):
                assert airraid._log_view(growing, role, limit) == old_log_view(growing, role, limit), (k, name, limit)


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


def old_say_all_in(app: Flask, value: Any, lang: str) -> Any:
    with app.test_request_context(), force_locale(lang):
        return old_say_all(value)


@pytest.mark.parametrize("lang", ["cs", "en"])
def test_say_all_translates_as_before(app: Flask, lang: str) -> None:
    from collections import OrderedDict

    from referee.rules.errors import Msg, Name
    from referee.web.i18n import said, say_all

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
    with app.test_request_context():
        # A push translates into each room's language with no forced locale; what holds no
        # message comes back itself, so one message serves every language.
        assert said(view, lang) == translated and said(real, lang) == old_say_all_in(app, real, lang)
        plain = {"round": {"left": 12.5, "running": True}, "legal": [{"type": "pause_timer"}]}
        assert said(plain, lang) is plain
        assert said(view, lang)["plain"] is view["plain"] and said(view, lang)["nested"] is not view["nested"]
    assert type(translated["name"]) is str and type(translated["msg"]) is str
    if lang == "cs":
        assert translated["name"] == "letadlová loď" and translated["nested"]["kinds"][0] == "letadlová loď"


def test_outgoing_packets_skip_the_binary_search(app: Flask) -> None:
    """The server's packets do not walk views for bytes (a fifth of a report's CPU); JSON still flows."""
    from referee.web.extensions import socketio as sio
    from referee.web.socketio_app import TextPacket

    assert sio.server.packet_class is TextPacket
    big_view = {"rows": [{"n": i, "cells": list(range(20))} for i in range(50)]}
    assert TextPacket.data_is_binary(["view", big_view]) is False
    encoded = TextPacket(2, data=["view", big_view]).encode()
    assert encoded.startswith('2["view",') and '"cells"' in encoded


def test_a_change_set_goes_out_as_the_text_it_was_weighed_as(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    """A push's change set is encoded once: its packet holds that text, the same JSON a packet would make."""
    from socketio import packet as sio_packet  # type: ignore[import-untyped]

    from referee.web.socketio_app import TextPacket

    change = {"round": {"left": 61.5, "note": 'Přestávka \u2028 "quoted"'}, "log": {"$list": [[0, 1, []]]}}
    event, message, _size = push_view._weighed(change, 7, 8, None, dict)
    assert event == "changes" and isinstance(message, changes.Encoded)
    assert message == {"from": 7, "seq": 8, "changes": change}
    ours = TextPacket(sio_packet.EVENT, data=["changes", message]).encode()
    plain = sio_packet.Packet(sio_packet.EVENT, data=["changes", dict(message)]).encode()
    assert ours == plain
    assert TextPacket(encoded_packet=ours).data == ["changes", dict(message)]
    # The text is what goes out, not encoded again from the dict.
    marked = changes.Encoded({"a": 1}, '{"a":1,"made":"once"}')
    assert TextPacket(sio_packet.EVENT, data=["changes", marked]).encode() == '2["changes",{"a":1,"made":"once"}]'
    # And on the wire of a game: every screen's changes still give its view.
    arena, _pushes, found = game_in_the_air(app, monkeypatch)
    referee = found["referee:cs"].sock
    for n, kind in enumerate(["pause_timer", "resume_timer"]):
        body = {"game": arena.gid, "client_id": f"e{n}", "action": {"type": kind}}
        assert referee.emit("action", body, callback=True)["ok"]
        if n == 0:
            for name, screen in found.items():
                assert [m["name"] for m in screen.take()] == ["changes"], name
    for name, screen in found.items():
        got = screen.take()
        assert [m["name"] for m in got] == ["changes"], name
        assert type(got[0]["args"][0]) is dict, name  # decoded from the text, as a page reads it


def test_the_page_applies_changes_in_order_and_resyncs_on_a_gap() -> None:
    """conn.js: changes applied to the held view in order, a gap or misfit asks a resync, answers get the view."""
    import shutil
    import subprocess
    from pathlib import Path

    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js not installed: the conn.js check is skipped")
    js = Path(__file__).resolve().parents[2] / "static" / "js"
    result = subprocess.run(
        [node, "--input-type=module", "-e", NODE_CHANGES, js.as_uri()], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0 and "changes ok" in result.stdout, result.stderr + result.stdout
