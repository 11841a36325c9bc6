"""Battleship in the web app: two players and a spectator over HTTP and Socket.IO, the computer,
pass-and-play, the end (rematch, scores), and above all the secret: no device receives the
enemy fleet before the game is over, whatever it asks for."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from referee.web.extensions import socketio

from .test_games_web import join, referee_client

# Two Sjøslag fleets on squares the other fleet never uses (rows 1–5 and rows 6–10), so a square
# name found in a message can only mean one fleet.
FLEET_A = [
    ("battleship", "A1 B1 C1 D1"),
    ("cruiser", "F1 G1 H1"),
    ("cruiser", "A3 B3 C3"),
    ("destroyer", "E3 F3"),
    ("destroyer", "H3 I3"),
    ("destroyer", "A5 B5"),
    ("torpedo_boat", "D5"),
    ("torpedo_boat", "F5"),
    ("torpedo_boat", "H5"),
    ("torpedo_boat", "J5"),
]


def shifted(fleet: list[tuple[str, str]], rows: int) -> list[tuple[str, str]]:
    return [(kind, " ".join(f"{sq[0]}{int(sq[1:]) + rows}" for sq in squares.split())) for kind, squares in fleet]


FLEET_B = shifted(FLEET_A, 5)


def ships(fleet: list[tuple[str, str]]) -> list[dict[str, Any]]:
    return [{"kind": kind, "squares": squares.split()} for kind, squares in fleet]


def squares_of(fleet: list[tuple[str, str]]) -> set[str]:
    return {sq for _kind, squares in fleet for sq in squares.split()}


def appears(square: str, text: str) -> bool:
    """A square's name as a token of its own (C4 is not inside C40, "GC4" or a random id's "-C4x").

    Game ids, device tokens and invite links are base64url (letters, digits, "-" and "_"): any of
    them may spell a square inside it by chance, which is no leak.
    """
    return re.search(rf"(?<![A-Za-z0-9_-]){re.escape(square)}(?![A-Za-z0-9_-])", text) is not None


def leaked(hidden: set[str], text: str) -> set[str]:
    return {sq for sq in hidden if appears(sq, text)}


def create(client: FlaskClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/battleship/games", json={"ruleset": "sjoslag", "first": "A", **body})
    assert response.status_code == 201, response.get_json()
    return response.get_json()  # type: ignore[no-any-return]


def act(client: FlaskClient, gid: str, action: dict[str, Any]) -> Any:
    return client.post(f"/api/games/{gid}/actions", json={"action": action})


def ok(response: Any) -> Any:
    assert response.status_code == 200, response.get_json()
    return response.get_json()


@pytest.fixture
def duel(app: Flask) -> dict[str, Any]:
    """A Sjøslag game between two phones (Eva creates it, Bo joins by her link), and a spectator."""
    eva = app.test_client()
    made = create(eva, opponent="friend", name="Eva", opponent_name="Bo")
    bo = join(app, made["links"]["join"]["B"])
    return {"id": made["game"], "A": eva, "B": bo, "public": app.test_client(), "links": made["links"]}


def test_two_players_and_a_spectator_never_see_the_hidden_fleet(app: Flask, duel: dict[str, Any]) -> None:
    gid = duel["id"]
    referee = referee_client(app)
    other = create(app.test_client(), opponent="friend", name="Xu", opponent_name="Yo")
    stranger = join(app, other["links"]["join"]["B"])  # player B, of another game
    clients = {"A": duel["A"], "B": duel["B"], "public": duel["public"], "stranger": stranger}
    socks = {who: socketio.test_client(app, flask_test_client=c) for who, c in clients.items()}
    bodies: dict[str, list[str]] = {who: [] for who in clients}

    def note(who: str, response: Any) -> Any:
        bodies[who].append(response.get_data(as_text=True))
        return response

    for who, sock in socks.items():
        ack = sock.emit("resync", {"game": gid, "seq": 0}, callback=True)
        assert ack["ok"], (who, ack)
        bodies[who].append(json.dumps(ack))
    # Each side asks for the other's view every way it can: the projector alias, a stranger's cookie.
    assert (
        socks["A"].emit("resync", {"game": gid, "seq": 0, "as": "player:B"}, callback=True)["view"]["role"]
        == "player:A"
    )
    assert socks["stranger"].emit("resync", {"game": gid, "seq": 0}, callback=True)["view"]["role"] == "public"

    ok(note("A", act(duel["A"], gid, {"type": "place_fleet", "player": "A", "ships": ships(FLEET_A)})))
    # Eva tries to place, then fire, as Bo: refused, nothing learned.
    refused = note("A", act(duel["A"], gid, {"type": "place_fleet", "player": "B", "ships": ships(FLEET_A)}))
    assert refused.status_code == 403 and refused.get_json()["error"] == "not_your_turn"
    ok(note("B", act(duel["B"], gid, {"type": "place_fleet", "player": "B", "ships": ships(FLEET_B)})))
    # The invitation was spent by Bo's phone: it makes no other phone player B.
    late = app.test_client()
    assert late.get(duel["links"]["join"]["B"].split("localhost", 1)[1], follow_redirects=True).status_code == 403
    assert late.get(f"/api/games/{gid}/view").get_json()["role"] == "public"
    assert note("A", act(duel["A"], gid, {"type": "fire", "player": "B", "squares": ["A2"]})).status_code == 403
    ack = socks["A"].emit(
        "action",
        {"game": gid, "client_id": "x1", "action": {"type": "fire", "player": "B", "squares": ["A2"]}},
        callback=True,
    )
    assert ack["ok"] is False and ack["error"] == "not_your_turn"
    ack = socks["stranger"].emit(
        "action",
        {"game": gid, "client_id": "x2", "action": {"type": "fire", "player": "B", "squares": ["A2"]}},
        callback=True,
    )
    assert ack["ok"] is False and ack["error"] == "forbidden"
    assert (
        note("A", duel["A"].post(f"/api/games/{gid}/sea/check", json={"player": "B", "ships": []})).status_code == 403
    )
    assert note("public", duel["public"].post(f"/api/games/{gid}/sea/random", json={"player": "A"})).status_code == 403
    for who in ("A", "public"):
        # The log routes, every mode's, refuse a Battleship game's log (it holds both fleets) until it is over.
        for route in ("events", "log.json", "log.csv"):
            assert note(who, clients[who].get(f"/api/games/{gid}/{route}")).status_code == 403

    # Sjøslag: a hit shoots again, a miss passes the turn.
    ack = socks["A"].emit(
        "action",
        {"game": gid, "client_id": "a1", "action": {"type": "fire", "player": "A", "squares": ["A6"]}},
        callback=True,
    )
    assert ack["ok"], ack
    # A socket's answer carries no view (its push did): the view a resync gives now.
    mine = socks["A"].emit("resync", {"game": gid, "seq": 0}, callback=True)["view"]
    assert mine["turn"] == "A" and mine["boards"]["B"]["shots"] == [{"square": "A6", "result": "hit", "ship": None}]
    bodies["A"].append(json.dumps(ack))
    ok(note("A", act(duel["A"], gid, {"type": "fire", "player": "A", "squares": ["E7"]})))
    ok(note("B", act(duel["B"], gid, {"type": "fire", "player": "B", "squares": ["A1"]})))
    view_b = ok(note("B", act(duel["B"], gid, {"type": "fire", "player": "B", "squares": ["E2"]})))["view"]
    assert view_b["turn"] == "A" and "ships" not in view_b["boards"]["A"] and len(view_b["boards"]["B"]["ships"]) == 10

    for who, client in clients.items():
        note(who, client.get(f"/api/games/{gid}/view"))
        note(who, client.get(f"/b/{gid}/watch"))
        note(who, client.get(f"/b/{gid}", follow_redirects=True))
    for who, sock in socks.items():
        pushed = sock.get_received()
        assert any(m["name"] == "view" for m in pushed), f"{who} got no pushed view"
        bodies[who].append(json.dumps(pushed))

    unhit_a = squares_of(FLEET_A) - {"A1"}
    unhit_b = squares_of(FLEET_B) - {"A6"}
    hidden = {"A": unhit_b, "B": unhit_a, "public": unhit_a | unhit_b, "stranger": unhit_a | unhit_b}
    for who, texts in bodies.items():
        found = leaked(hidden[who], "\n".join(texts))
        assert not found, f"{who} received enemy ship squares {sorted(found)}"
    # The check can fail: each player does receive its own fleet.
    assert squares_of(FLEET_A) <= {sq for sq in squares_of(FLEET_A) if appears(sq, "\n".join(bodies["A"]))}

    # The referee sees both fleets; the end shows them to everyone.
    ref_view = ok(referee.get(f"/api/games/{gid}/view"))
    assert ref_view["role"] == "referee" and len(ref_view["boards"]["A"]["ships"]) == 10
    ok(act(referee, gid, {"type": "forfeit", "player": "A", "reason": "left the club"}))
    public = ok(duel["public"].get(f"/api/games/{gid}/view"))
    assert public["phase"] == "over" and public["outcome"]["winner"] == "B"
    assert {sq for s in public["boards"]["B"]["ships"] for sq in s["squares"]} == squares_of(FLEET_B)
    for sock in socks.values():
        sock.disconnect()


def test_the_computer_places_and_answers_and_its_fleet_stays_hidden(app: Flask) -> None:
    eva = app.test_client()
    made = create(eva, opponent="computer", level="easy", name="Eva")
    gid = made["game"]
    view = ok(eva.get(f"/api/games/{gid}/view"))
    # The default name is shown in the page's language (Czech here: the app's home language).
    assert view["players"]["B"] == {"name": "Počítač", "computer": "easy", "placed": True}
    assert "ships" not in view["boards"]["B"]
    placed = ok(act(eva, gid, {"type": "place_fleet", "player": "A", "ships": ships(FLEET_A)}))["view"]
    assert placed["phase"] == "playing" and placed["turn"] == "A"
    # Fire at water until the turn passes: the computer's answer is in the same reply.
    reply = ok(act(eva, gid, {"type": "fire", "player": "A", "squares": ["E10"]}))
    view = reply["view"]
    assert view["turn"] == "A" or view["phase"] == "over"
    if view["boards"]["B"]["shots"][0]["result"] not in ("hit", "sunk"):
        assert view["volleys"]["B"], "the computer answered a miss with its own turn"
        assert len(view["boards"]["A"]["shots"]) >= 1
    # Its fleet is in the referee's view, and in none of Eva's answers.
    truth = ok(referee_client(app).get(f"/api/games/{gid}/view"))["boards"]["B"]["ships"]
    computer_squares = {sq for s in truth for sq in s["squares"]} - {s["square"] for s in view["boards"]["B"]["shots"]}
    texts = (
        json.dumps(view)
        + eva.get(f"/b/{gid}").get_data(as_text=True)
        + json.dumps(ok(eva.get(f"/api/games/{gid}/view")))
    )
    # A square named on Eva's own sea (her ships, the computer's shots, rings) says nothing of its fleet.
    everywhere = {f"{c}{r}" for c in "ABCDEFGHIJ" for r in range(1, 11)}
    own = leaked(everywhere, json.dumps([view["boards"]["A"], view["volleys"]["B"]]))
    assert computer_squares - own, "the check would have nothing to look for"
    assert not leaked(computer_squares - own, texts)


def test_pass_and_play_sends_only_the_view_of_the_player_to_move(app: Flask) -> None:
    phone = app.test_client()
    gid = create(phone, opponent="hotseat", name="Eva", opponent_name="Bo")["game"]
    page = phone.get(f"/b/{gid}").get_data(as_text=True)
    assert '"hotseat": true' in page
    assert ok(phone.get(f"/api/games/{gid}/view"))["role"] == "player:A"
    ok(act(phone, gid, {"type": "place_fleet", "player": "A", "ships": ships(FLEET_A)}))
    view = ok(phone.get(f"/api/games/{gid}/view"))
    assert view["role"] == "player:B" and "ships" not in view["boards"]["A"]
    assert not leaked(squares_of(FLEET_A), json.dumps(view))
    ok(act(phone, gid, {"type": "place_fleet", "player": "B", "ships": ships(FLEET_B)}))
    assert ok(phone.get(f"/api/games/{gid}/view"))["role"] == "player:A"
    miss = ok(act(phone, gid, {"type": "fire", "player": "A", "squares": ["E7"]}))
    assert miss["view"]["turn"] == "B"
    assert ok(phone.get(f"/api/games/{gid}/view"))["role"] == "player:B"


def test_the_end_rematch_and_the_scores_of_the_evening(app: Flask, duel: dict[str, Any]) -> None:
    gid = duel["id"]
    assert duel["A"].post(f"/api/battleship/games/{gid}/rematch", json={}).status_code == 409  # not over yet
    ok(act(duel["A"], gid, {"type": "forfeit", "player": "A"}))
    scores = ok(duel["public"].get("/api/battleship/scores"))["scores"]
    assert {r["name"]: (r["wins"], r["games"]) for r in scores} == {"Bo": (1, 1), "Eva": (0, 1)}
    assert "Bo" in duel["public"].get("/battleship/scores").get_data(as_text=True)
    assert duel["public"].post(f"/api/battleship/games/{gid}/rematch", json={}).status_code == 403
    first = ok(duel["A"].post(f"/api/battleship/games/{gid}/rematch", json={}))
    second = ok(duel["B"].post(f"/api/battleship/games/{gid}/rematch", json={}))
    assert first["game"] == second["game"] != gid
    new = ok(duel["B"].get(f"/api/games/{first['game']}/view"))
    assert new["role"] == "player:B" and new["first"] == "B" and new["players"]["A"]["name"] == "Eva"
    assert ok(duel["A"].get(f"/api/games/{first['game']}/view"))["role"] == "player:A"


def test_the_lobby_starts_each_mode_in_its_own_language(app: Flask) -> None:
    client = app.test_client()
    lobby = client.get("/battleship", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert 'lang="nl">Zeeslag (klassiek)' in lobby and 'lang="nb">Sjøslag' in lobby
    assert "/battleship" in client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', lobby).group(1)  # type: ignore[union-attr]
    response = client.post(
        "/battleship",
        data={"csrf_token": token, "ruleset": "zeeslag-salvo", "opponent": "computer", "name": "Eva", "first": "A"},
    )
    assert response.status_code == 303
    gid = response.headers["Location"].rsplit("/", 1)[1]
    view = ok(client.get(f"/api/games/{gid}/view", headers={"Accept-Language": "nl"}))
    assert view["ruleset"]["title"] == "Zeeslag (salvo)" or view["ruleset"]["id"] == "zeeslag-salvo"
    assert view["ruleset"]["fleet"][0]["title"] == "vliegdekschip"
    assert client.get(f"/b/{gid}", headers={"Accept-Language": "nb"}).status_code == 200


NODE_CHECKS = r"""
import assert from 'node:assert/strict';
const B = await import(process.argv[1] + '/battleship/board.js');

// Pass-and-play shows the side to place (the first player first), then the side to move.
const players = (a, b) => ({ A: { placed: a }, B: { placed: b } });
assert.equal(B.expectedPlayer({ phase: 'placing', first: 'B', players: players(false, false) }), 'B');
assert.equal(B.expectedPlayer({ phase: 'placing', first: 'B', players: players(false, true) }), 'A');
assert.equal(B.expectedPlayer({ phase: 'playing', turn: 'A', first: 'B', players: players(true, true) }), 'A');

// A sunk ship reads as one outlined shape: the straight run of hits through the "sunk" square.
const board = { shots: [
  { square: 'C4', result: 'hit' }, { square: 'D4', result: 'hit' }, { square: 'E4', result: 'sunk' },
  { square: 'E5', result: 'hit' }, { square: 'A1', result: 'miss' },
], marked: ['B3'] };
const cells = Object.fromEntries(B.enemyCells(board, 'columns').map((c) => [`${c.col},${c.row}`, c]));
assert.equal(cells['2,3'].state, 'sunk'); assert.equal(cells['3,3'].state, 'sunk'); assert.equal(cells['4,3'].state, 'sunk');
assert.equal(cells['2,3'].ship, cells['4,3'].ship);
assert.equal(cells['4,4'].state, 'hit');               // a hit of another ship stays a hit
assert.equal(cells['0,0'].state, 'miss'); assert.ok(cells['0,0'].flags.includes('dimmed'));
assert.equal(cells['1,2'].state, 'miss');              // the marked ring square
// Zeeslag squares: "B6" is row B, column 6.
assert.deepEqual(B.at('B6', 'rows'), { col: 5, row: 1 });
// Salvo totals: an all-water volley marks its squares as misses; untold ones stay "called".
const salvo = { shots: [{ square: 'A1', result: null }, { square: 'A2', result: null }, { square: 'B1', result: null }] };
const told = B.enemyCells(salvo, 'rows', false, [
  { shots: [{ square: 'A1' }, { square: 'A2' }], hits: 0 }, { shots: [{ square: 'B1' }], hits: 1, ships_hit: ['cruiser'], sunk: [] },
].map((v) => ({ ...v, shots: v.shots.map((s) => ({ ...s, result: null })) })));
const byKey = Object.fromEntries(told.map((c) => [`${c.col},${c.row}`, c.state]));
assert.deepEqual(byKey, { '0,0': 'miss', '1,0': 'miss', '0,1': 'hit' });
assert.deepEqual(B.countKinds(['cruiser', 'cruiser'], [{ kind: 'battleship', size: 4, title: 'slagskip' }, { kind: 'cruiser', size: 3, title: 'krysser' }, { kind: 'cruiser', size: 3 }]).map((r) => r.n), [0, 2]);
console.log('battleship js ok');
"""  # noqa: E501 - JavaScript for node, one assertion a line


def test_page_script_pure_functions() -> None:
    import shutil
    import subprocess
    from pathlib import Path

    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js not installed: the Battleship page's JS checks are skipped")
    js = (Path(__file__).resolve().parents[2] / "static" / "js").as_uri()
    result = subprocess.run(
        [node, "--input-type=module", "-e", NODE_CHECKS, js], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr + result.stdout
    assert "battleship js ok" in result.stdout
