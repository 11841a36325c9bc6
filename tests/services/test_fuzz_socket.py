"""Fuzz the Socket.IO events `resync` and `action` (hypothesis), against a game in the air.

Payloads: wrong types, huge strings, any unicode, missing fields, squares and orders that do
not exist, nested junk, real and forged slips, wrong and stale versions, replayed client ids;
sent by five sockets (referee, team A's phone, a pilot's slip, nobody, a wrong game's phone).

Every ack must be a dict; a refusal is `{ok: False, error: <code>, message: <text>}` and leaves
the game (state, version, events, every role's view) exactly as it was; nothing is logged at
ERROR. Replays and stale versions are then checked against a model: a client id already used
is answered as a duplicate and applied once; a version other than the game's is refused as stale.
"""

from __future__ import annotations

import json
import logging
import os
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from referee.push import sockets as push_sockets
from referee.rules import airraid
from referee.rules.events import Role
from referee.web.api.openapi import ACTIONS
from referee.web.extensions import socketio, store_of

from ..fuzz_helpers import Arena, airborne_arena

SCALE = int(os.environ.get("REFEREE_FUZZ_SCALE", "1"))
"""REFEREE_FUZZ_SCALE=10 sends ten times as many payloads (a deeper run than CI's)."""
EXAMPLES = 150 * SCALE

# Every refusal code an ack may carry; "server" (an unexpected exception) is not among them.
REFUSALS = {"malformed", "illegal", "not_your_turn", "game_over", "stale", "forbidden", "not_found", "busy"}

SOCKETS = ["referee", "team_a", "pilot", "nobody", "stranger"]


# --- Strategies --------------------------------------------------------------------------------

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
)
junk = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
# Long text of one character (a phone's stuck key, a pasted novel): 1 kB to 60 kB.
huge = st.builds(lambda ch, n: ch * n, st.characters(), st.integers(1_000, 60_000))
LOOKALIKES = ["Ａ１", "Ｃ4"]  # noqa: RUF001 - full-width look-alikes of A1 and C4, on purpose
squares = st.sampled_from(
    ["A1", "G7", "C4", "E2", "A0", "H1", "A8", "Z99", "AA1", "a1", "", "11", "A-1", "A1.5", "A 1", *LOOKALIKES]
) | st.text(max_size=4)
orders = st.sampled_from(["1A1", "1A2", "1B1", "1B2", "2A1", "1C1", "1a1", "", "1A1 "]) | st.text(max_size=5)
teams = st.sampled_from(["A", "B", "a", "C", "", "AB"])
throws = (
    st.lists(
        st.fixed_dictionaries(
            {},
            optional={
                "winner": st.sampled_from(["A", "B", "tie", "bomber", "ship", "C"]) | junk,
                "hands": st.lists(st.sampled_from(["rock", "paper", "scissors", "lizard"]), max_size=3) | junk,
            },
        ),
        max_size=6,
    )
    | junk
)
FIELDS = {
    "team": teams,
    "a": orders,
    "b": orders,
    "order": orders,
    "target": squares,
    "throws": throws,
    "choice": st.sampled_from(["pass", "continue", "leave", "", "PASS"]),
    "pilot": st.sampled_from(["Ann", "Bob", "Amy", "Nobody", ""]),
    "kind": st.sampled_from(["fighter", "bomber", "zeppelin"]),
    "ship": st.sampled_from(["A", "B", "Z", ""]),
    "corridor": st.sampled_from(["upper", "lower", "middle", "tunnel"]),
    "position": st.integers(-3, 100),
    "seconds": st.integers(-5000, 5000) | st.floats(allow_nan=False),
    "seq": st.integers(-5, 50),
    "reason": st.text(max_size=40),
    "players": st.lists(st.text(max_size=10), max_size=12),
    "ships": junk,
    "version": st.integers(-2, 40),
}


def weighted(*choices: tuple[int, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
    """Draw from one of several strategies, in proportion to their weights (st.one_of treats repeats as one)."""
    slots = [i for i, (weight, _s) in enumerate(choices) for _ in range(weight)]
    return st.sampled_from(slots).flatmap(lambda i: choices[i][1])


def mostly(plausible: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Eight draws in ten from the plausible values, the rest junk or huge text."""
    return weighted((8, plausible), (1, junk), (1, huge))


def action_of(kind: str) -> st.SearchStrategy[dict[str, Any]]:
    """An action of one type with any of its own fields (mostly plausible values), sometimes a stray one."""
    fields = [f for f in ACTIONS[kind]["properties"] if f != "type"]
    return st.fixed_dictionaries(
        {"type": st.just(kind)},
        optional={**{f: mostly(FIELDS.get(f, junk)) for f in fields}, "stray": junk},
    )


# Entries well formed in every field, which only the rules can refuse (or take) in the arena's round
# in the air: the fuzz must reach the rules core, not only the form checks, whatever its draw.
WELL_FORMED = st.sampled_from(
    [
        {"type": "add_order", "team": "A", "pilot": "Abe", "kind": "fighter", "ship": "A", "corridor": "middle"},
        {"type": "unlock_sea", "team": "A"},
        {"type": "start_round"},
        {"type": "set_defender", "team": "B", "pilot": "Bea"},
        {"type": "report_dogfight", "a": "1A2", "b": "1B2", "throws": [{"winner": "A"}]},
        {"type": "announce_bombing", "target": "C4"},
        {"type": "confirm_dogfight", "a": "1A1", "b": "1B1"},
    ]
)

actions = weighted(
    (1, WELL_FORMED),
    (
        4,
        st.one_of(
            # The arena is an air-raid game: its own actions (the document names the others' by their mode).
            *[action_of(kind) for kind in sorted(ACTIONS) if kind in airraid.HANDLERS],
            st.fixed_dictionaries(
                {"type": st.sampled_from(["create_game", "", "VOID", "__init__"]) | junk},
                optional=dict.fromkeys(FIELDS, junk),
            ),
        ),
    ),
)


def payloads(arena: Arena, who: str) -> st.SearchStrategy[Any]:
    """A resync or action payload: a well-formed one with none, one or two fields broken, or anything at all."""
    forged = arena.slips["1A1"][:-1] + ("A" if arena.slips["1A1"][-1] != "A" else "B")
    variants: dict[str, st.SearchStrategy[Any]] = {
        "game": st.sampled_from([arena.other_gid, arena.gid.upper(), "", "x" * 33, arena.gid + "\x00"]),
        "action": actions,
        "client_id": st.text(min_size=1, max_size=64) | st.sampled_from(["", "x" * 65]),
        "version": st.integers(-2, 40),
        "slip": st.sampled_from([*arena.slips.values(), forged, f"{arena.other_gid}.1A1.AAAAAAAAAAAAAAAA", "1A1", ""]),
        "as": st.sampled_from(["public", "referee", "team:A"]),
        "seq": junk,
    }
    base = st.fixed_dictionaries(
        {"game": st.just(arena.gid), "action": actions, "client_id": st.uuids().map(str)},
        optional={"slip": st.just(arena.slips["1A1"])} if who == "pilot" else {},
    )
    breaks = st.lists(
        st.tuples(
            st.sampled_from(sorted(variants)),
            weighted((3, st.just("variant")), (1, st.just("drop")), (1, st.just("junk")), (1, st.just("huge"))),
        ),
        max_size=2,
    )

    def broken(payload: dict[str, Any], how: list[tuple[str, str]], extra: st.DataObject) -> Any:
        for key, kind in how:
            if kind == "drop":
                payload.pop(key, None)
            else:
                payload[key] = extra.draw(
                    {"variant": variants[key], "junk": junk, "huge": huge}[kind], label=f"{key} {kind}"
                )
        return payload

    mended = st.tuples(base, breaks, st.data()).map(lambda t: broken(dict(t[0]), t[1], t[2]))
    return weighted((9, mended), (1, junk), (1, huge))


# --- The arena and its sockets -------------------------------------------------------------------


@pytest.fixture
def arena(app: Flask, monkeypatch: pytest.MonkeyPatch) -> Arena:
    # The fuzzer sends hundreds of events a second from one socket: the rate limit would answer them all.
    monkeypatch.setattr(push_sockets, "RATE_BURST", 1e9)
    return airborne_arena(app)


@pytest.fixture
def sockets(arena: Arena) -> Iterator[dict[str, Any]]:
    stranger = arena.app.test_client()
    for name, value in arena.cookies("stranger").items():  # the other game's phone token, under this game's name
        stranger.set_cookie(name, value)
    clients = {
        "referee": arena.referee,
        "team_a": arena.team_a,
        "pilot": arena.app.test_client(),
        "nobody": arena.app.test_client(),
        "stranger": stranger,
    }
    socks = {name: socketio.test_client(arena.app, flask_test_client=client) for name, client in clients.items()}
    yield socks
    for sock in socks.values():
        if sock.is_connected():
            sock.disconnect()


def fingerprint(arena: Arena) -> Any:
    """The stored game and phones (Arena.fingerprint) plus every role's view at a fixed time."""
    with arena.app.app_context():
        state, _version = store_of(arena.app).load(arena.gid)
        views = [
            airraid.view_for(state, Role.from_str(r), now=0.0)
            for r in ("referee", "team:A", "team:B", "public", "pilot:1A1")
        ]
    return arena.fingerprint(), json.dumps(views, sort_keys=True, default=str)


def check_ack(ack: Any, where: str) -> None:
    assert isinstance(ack, dict), f"{where}: ack {ack!r}"
    assert isinstance(ack.get("ok"), bool), f"{where}: ack {ack!r}"
    if not ack["ok"]:
        assert ack.get("error") in REFUSALS, f"{where}: error {ack.get('error')!r}: {ack.get('message')!r}"
        assert isinstance(ack.get("message"), str) and ack["message"].strip(), f"{where}: no message in {ack!r}"
    else:
        # A resync answers the view; an action's answer its events (its push brought the view).
        answered = isinstance(ack.get("view"), dict) or isinstance(ack.get("events"), list)
        assert isinstance(ack.get("seq"), int) and answered, f"{where}: {str(ack)[:300]}"


def no_errors_logged(caplog: pytest.LogCaptureFixture, where: str) -> None:
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, f"{where}: logged {errors[0].getMessage()}"


# --- Fuzzing ---------------------------------------------------------------------------------------


def test_socket_fuzz(arena: Arena, sockets: dict[str, Any], caplog: pytest.LogCaptureFixture) -> None:
    acks: dict[str, int] = {}

    # Derandomized: the closing checks count refusal kinds, and a lucky draw must not fail CI.
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(who=st.sampled_from(SOCKETS), event=st.sampled_from(["action", "action", "resync"]), data=st.data())
    def one_event(who: str, event: str, data: st.DataObject) -> None:
        payload = data.draw(payloads(arena, who), label="payload")
        before = fingerprint(arena)
        ack = sockets[who].emit(event, payload, callback=True)
        where = f"{event} from {who}: {str(payload)[:300]!r}"
        check_ack(ack, where)
        key = "ok" if ack["ok"] else ack["error"]
        acks[key] = acks.get(key, 0) + 1
        if not ack["ok"] or event == "resync":
            assert fingerprint(arena) == before, f"{where}: answered {ack.get('error', 'ok')}, but the game changed"
        no_errors_logged(caplog, where)
        sockets[who].get_received()  # drop the pushed views

    with caplog.at_level(logging.ERROR):
        one_event()
    # The fuzzer got past the first checks: the rules core refused some entries, and the form checks others.
    assert acks.get("malformed") and acks.get("ok") and acks.get("forbidden"), acks
    assert acks.get("illegal", 0) + acks.get("not_your_turn", 0) + acks.get("stale", 0) > 0, acks
    assert all(s.is_connected() for s in sockets.values()), "a payload dropped a socket"


REPLAY_STEPS = st.lists(
    st.tuples(
        st.integers(0, 3), st.sampled_from(["current", "none", "old", "future"]), st.sampled_from(["action", "http"])
    ),
    min_size=1,
    max_size=6,
)


def test_replayed_and_stale_entries(arena: Arena, sockets: dict[str, Any], caplog: pytest.LogCaptureFixture) -> None:
    """Against a model: a used client id is a duplicate (applied once); a version not the game's is stale."""
    referee = sockets["referee"]

    @settings(
        max_examples=12 * SCALE,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(steps=REPLAY_STEPS)
    def sequence(steps: list[tuple[int, str, str]]) -> None:
        prefix = uuid.uuid4().hex[:8]  # each example starts with client ids never seen
        applied: dict[str, int] = {}  # client id -> the version its entry made
        for n, version_kind, via in steps:
            cid = f"{prefix}-{n}"
            before = fingerprint(arena)
            version = before[0][0]
            sent = {"current": version, "none": None, "old": version - 1 - n, "future": version + 1 + n}[version_kind]
            message: dict[str, Any] = {
                "game": arena.gid,
                "client_id": cid,
                "action": {"type": "adjust_timer", "seconds": 1 + n},
            }
            if sent is not None:
                message["version"] = sent
            if via == "action":
                ack = referee.emit("action", message, callback=True)
            else:
                body = {k: v for k, v in message.items() if k != "game"}
                response = arena.referee.post(f"/api/games/{arena.gid}/actions", json=body)
                ack = {"ok": False, **response.get_json()} if response.status_code >= 400 else response.get_json()
            where = f"{via} {message}"
            if via == "action":
                check_ack(ack, where)
            if cid in applied:
                # A replay: the original events again with the current view, nothing new stored,
                # whatever version it carries.
                assert ack["ok"] and ack["duplicate"] and ack["seq"] == version, f"{where}: {str(ack)[:300]}"
                assert [e["seq"] for e in ack["events"]] == [applied[cid]], f"{where}: {ack['events']}"
                assert fingerprint(arena)[0][:2] == before[0][:2], f"{where}: a replay was applied again"
            elif version_kind in ("old", "future"):
                assert not ack["ok"] and ack["error"] == "stale", f"{where}: {str(ack)[:300]}"
                assert fingerprint(arena) == before, f"{where}: a stale entry changed the game"
            else:
                assert ack["ok"] and not ack["duplicate"] and ack["seq"] == version + 1, f"{where}: {str(ack)[:300]}"
                applied[cid] = ack["seq"]
            referee.get_received()
        no_errors_logged(caplog, str(steps))

    with caplog.at_level(logging.ERROR):
        sequence()


def test_the_same_report_twice_counts_once(arena: Arena, sockets: dict[str, Any]) -> None:
    """A pilot's phone resends its report after a lost ack: one report, one log row."""
    pilot = sockets["pilot"]
    report = {
        "game": arena.gid,
        "slip": arena.slips["1A1"],
        "client_id": "ann-report-1",
        "action": {"type": "report_dogfight", "a": "1A1", "b": "1B1", "throws": [{"winner": "A"}]},
    }
    first = pilot.emit("action", report, callback=True)
    assert first["ok"] and not first["duplicate"], first
    with arena.app.app_context():
        count = store_of(arena.app).count_events(arena.gid)
    again = pilot.emit("action", report, callback=True)
    assert again["ok"] and again["duplicate"] and again["events"] == first["events"], again
    with arena.app.app_context():
        assert store_of(arena.app).count_events(arena.gid) == count
    # Without the client id it is a second report by the same pilot: refused, not counted.
    second = pilot.emit("action", {k: v for k, v in report.items() if k != "client_id"}, callback=True)
    assert not second["ok"] and second["error"] == "illegal", second


def test_an_unknown_game_is_not_found(arena: Arena, sockets: dict[str, Any]) -> None:
    """Found by the fuzzer: a game id of the right form that does not exist was answered `refused`, not `not_found`."""
    for event in ("resync", "action"):
        ack = sockets["referee"].emit(
            event, {"game": arena.gid.upper(), "seq": 0, "action": {"type": "pause_timer"}}, callback=True
        )
        assert ack["ok"] is False and ack["error"] == "not_found" and ack["message"], ack


# --- The message size limit, on the real server ------------------------------------------------------


def _http(base: str, method: str, path: str, cookie: str = "", body: Any = None) -> tuple[int, dict[str, str], Any]:
    """One request to the live server, redirects not followed; JSON bodies both ways."""
    import http.client
    from urllib.parse import urlsplit

    conn = http.client.HTTPConnection(urlsplit(base).netloc, timeout=30)
    headers = {"Cookie": cookie, "Accept-Encoding": "identity"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    conn.request(method, path, body=data, headers=headers)
    response = conn.getresponse()
    raw = response.read()
    conn.close()
    is_json = response.getheader("Content-Type", "").startswith("application/json")
    return response.status, dict(response.getheaders()), json.loads(raw) if is_json else raw


class _Socket:
    """A bare Engine.IO v4 websocket speaking Socket.IO packets, as the browser's client does.

    websocket-client, not simple-websocket's client: the latter sometimes misses a frame that
    arrives with the handshake answer and sees the open packet only at the next ping (25 s).
    """

    def __init__(self, base: str, cookie: str) -> None:
        import websocket  # type: ignore[import-untyped]

        self.ws = websocket.create_connection(
            base.replace("http://", "ws://") + "/socket.io/?EIO=4&transport=websocket",
            header=[f"Cookie: {cookie}"],
            timeout=20,
        )
        opened = json.loads(self.ws.recv()[1:])
        self.max_payload = int(opened["maxPayload"])
        self.ws.send("40")
        assert self.receive().startswith("40")
        self.ack_id = 0

    def receive(self) -> str:
        while True:
            packet = self.ws.recv()
            if packet == "2":  # ping
                self.ws.send("3")
                continue
            return str(packet)

    def emit(self, event: str, data: Any) -> Any:
        """Send an event and return its ack (pushed views before it are skipped)."""
        self.ack_id += 1
        self.ws.send(f"42{self.ack_id}" + json.dumps([event, data]))
        while True:
            packet = self.receive()
            if packet.startswith(f"43{self.ack_id}["):
                return json.loads(packet[len(f"43{self.ack_id}") :])[0]

    def closed_by_server(self) -> bool:
        """Read until the server closes the socket; False if it is still open after the timeout."""
        import websocket

        try:
            while True:
                packet = self.ws.recv()
                if packet == "2":
                    self.ws.send("3")
                elif not packet:
                    return True
        except (websocket.WebSocketConnectionClosedException, ConnectionError):
            # A reset is a close too: a server that closes with bytes of ours still unread resets.
            return True
        except websocket.WebSocketTimeoutException:
            return False


@pytest.fixture
def server(tmp_path: Any) -> Iterator[Any]:
    from ..live_server import Server

    running = Server(tmp_path / "instance")
    running.start()
    yield running
    running.stop()


def test_an_oversized_message_is_cut_off_and_changes_nothing(server: Any) -> None:
    base, token = server.base, server.link.split("token=", 1)[1]
    status, headers, _ = _http(base, "GET", f"/?token={token}")
    assert status == 303
    cookie = headers["Set-Cookie"].split(";", 1)[0]
    teams = {
        "teams": [
            {"name": "Eagles", "players": ["Ann", "Ada", "Abe", "Amy"]},
            {"name": "Sharks", "players": ["Bob", "Bea", "Ben", "Bo"]},
        ]
    }
    status, _, created = _http(base, "POST", "/api/games", cookie, teams)
    assert status == 201, created
    gid = created["game"]

    sock = _Socket(base, cookie)
    assert sock.max_payload == 64 * 1024  # not Engine.IO's default of 1 MB
    assert sock.emit("resync", {"game": gid, "seq": 0})["ok"]
    # Just under the limit: read, and refused by the rules (a reason is at most 300 characters).
    under = sock.emit(
        "action", {"game": gid, "client_id": "under", "action": {"type": "end_game", "reason": "x" * 60_000}}
    )
    assert under["ok"] is False and under["error"] == "malformed", under
    _, _, events_before = _http(base, "GET", f"/api/games/{gid}/events", cookie)

    # Over the limit: the server drops the socket without reading the entry (it may do so while
    # the frame is still being sent, which the sender sees as a reset).
    oversized = ["action", {"game": gid, "client_id": "over", "action": {"type": "end_game", "reason": "x" * 100_000}}]
    try:
        sock.ws.send("42" + json.dumps(oversized))
    except ConnectionError:
        pass
    assert sock.closed_by_server()

    status, _, events_after = _http(base, "GET", f"/api/games/{gid}/events", cookie)
    assert status == 200 and events_after == events_before
    assert _http(base, "GET", "/api/health")[0] == 200
    again = _Socket(base, cookie)  # the server serves the next socket as before
    ack = again.emit("resync", {"game": gid, "seq": 0})
    assert ack["ok"] and ack["view"]["phase"] == "setup", ack
    assert "Traceback" not in "".join(server.output), server.tail()
    again.ws.close()
    sock.ws.close()


# --- Packets python-socketio cannot take as events, on the real server -------------------------------

JUNK_PACKETS = {
    "no payload": '["action"]',
    "no payload (resync)": '["resync"]',
    "5,000-digit number": '["action",{"game":' + "7" * 5000 + "}]",
    "event name not text": "[5,{}]",
    "an object, not a list": '{"a":1}',
    "truncated": '["action",{"game":"abc","action":{"type":',
    "nothing at all": "",
    "an empty list": "[]",
    "unknown event": '["launch",{"game":"abc"}]',
    "two payloads": '["resync",{"game":"abc"},{"seq":1}]',
    "nested 30,000 deep": '["action",' + "[" * 30_000 + "]" * 30_000 + "]",  # under the 64 KiB message limit
    "not JSON": "[action]",
}


def test_junk_packets_get_a_malformed_ack_and_no_traceback(server: Any) -> None:
    """Every packet with an ack id gets an ack: `malformed` for junk; nothing is logged at ERROR."""
    base = server.base
    sock = _Socket(base, "")
    for ack_id, (what, body) in enumerate(JUNK_PACKETS.items(), start=1):
        sock.ws.send(f"42{ack_id}{body}")
        while True:
            packet = sock.receive()
            if packet.startswith(f"43{ack_id}["):
                break
        ack = json.loads(packet[len(f"43{ack_id}") :])[0]
        assert ack["ok"] is False and ack["error"] == "malformed" and ack["message"], (what, ack)
    # A binary event (nothing here sends bytes) is refused too, without waiting for its attachment.
    sock.ws.send('451-99["action",{"_placeholder":true,"num":0}]')
    assert sock.receive().startswith('4399[{"ok":false,"error":"malformed"')
    # The socket is still served as before.
    ack = sock.emit("time_ping", {"t0": 1})
    assert ack["server_time"] > 1e12
    ack = sock.emit("resync", {"game": "nosuchgame", "seq": 0})
    assert ack["ok"] is False and ack["error"] == "not_found", ack
    sock.ws.close()
    output = "".join(server.output)
    assert "Traceback" not in output and "ERROR" not in output, server.tail(80)
