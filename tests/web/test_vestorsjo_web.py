"""Vestorsjø in the web app: each kind of new game, the pages with the board, who may act, and an
action through the JSON API and through Socket.IO reaching every screen's view."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from referee.push import changes
from referee.web.extensions import socketio

from .test_games_web import join

# Scania's destroyer and a frigate within range of Zealand's frigate (a gunnery table applies).
NEAR = {"zealand.frigate-1": "L21", "zealand.corvette-1": "K21"}
FRIGATE = "zealand.frigate-1"
# A game against a friend starts from the map's places: Zealand's frigate sails up from F29 to J21,
# two hexes a turn, within range (6) of Scania's destroyer in Lanskròna (N17).
APPROACH = ("G27", "H25", "I23", "J21")


def create(client: FlaskClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/vestorsjo/games", json=body)
    assert response.status_code == 201, response.get_json()
    return response.get_json()  # type: ignore[no-any-return]


def act(client: FlaskClient, gid: str, action: dict[str, Any]) -> Any:
    return client.post(f"/api/games/{gid}/actions", json={"action": action})


def view(client: FlaskClient, gid: str) -> dict[str, Any]:
    response = client.get(f"/api/games/{gid}/view")
    assert response.status_code == 200, response.get_json()
    return response.get_json()  # type: ignore[no-any-return]


def test_the_new_game_page_offers_every_kind_of_game(client: FlaskClient) -> None:
    page = client.get("/vestorsjo")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    for value in ("hotseat", "friend", "computer", "server", "physical", "easy", "normal", "strong"):
        assert f'value="{value}"' in html, value
    assert "Vestorsjø" in client.get("/").get_data(as_text=True)


@pytest.mark.parametrize(
    ("form", "device"),
    [
        ({"opponent": "hotseat", "dice": "server"}, "both"),
        ({"opponent": "friend", "dice": "physical"}, "scania"),
        ({"opponent": "computer", "dice": "server", "level": "easy"}, "scania"),
    ],
)
def test_the_form_starts_each_kind_of_game_and_the_page_shows_the_board(
    app: Flask, form: dict[str, str], device: str
) -> None:
    client = app.test_client()
    client.get("/vestorsjo")
    with client.session_transaction() as session:
        token = session["_csrf"]
    made = client.post("/vestorsjo", data={**form, "csrf_token": token})
    if made.status_code == 400:  # the computer player not yet in the rules: the refusal is shown
        assert form["opponent"] == "computer"
        assert 'data-kind="refused"' in made.get_data(as_text=True)
        return
    assert made.status_code == 303, made.get_data(as_text=True)
    path = made.headers["Location"]
    gid = path.rstrip("/").rsplit("/", 1)[1]
    page = client.get(path)
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    # The static board: the coast as land, the hex grid, piers, port names (strategic marked).
    assert 'id="vs-board"' in html and 'class="vs-land"' in html and 'class="vs-grid"' in html
    assert 'class="vs-pier"' in html and "Helsingør" in html and "Hælsengbór" in html
    assert re.search(r'class="vs-port-name is-strategic side-zealand"[^>]*>København Nord<', html)
    assert "js/vestorsjo/play.js" in html and "css/vestorsjo.css" in html
    seen = view(client, gid)
    assert seen["role"] == "player:scania" and seen["dice"] == form["dice"]
    assert (form["opponent"] == "friend") == ("vs-invite" in html)
    assert client.get(f"/v/{gid}/watch").status_code == 200
    assert device in ("both", "scania")


def test_pass_and_play_acts_as_the_side_to_move(client: FlaskClient) -> None:
    gid = create(client, opponent="hotseat")["game"]
    assert view(client, gid)["role"] == "player:scania"
    assert act(client, gid, {"type": "end_turn"}).status_code == 200
    seen = view(client, gid)
    assert seen["role"] == "player:zealand" and seen["turn"] == "zealand"
    assert any(a["type"] == "end_turn" for a in seen["actions"])


def test_the_invite_is_single_use_and_the_public_cannot_act(app: Flask) -> None:
    host = app.test_client()
    made = create(host, opponent="friend")
    gid, link = made["game"], made["links"]["join"]["zealand"]
    friend = join(app, link)
    assert view(friend, gid)["role"] == "player:zealand"
    # A second phone with the same link gets no seat.
    second = app.test_client()
    path = link.split("localhost", 1)[1]
    first = second.get(path)
    assert first.status_code == 303
    assert second.get(first.headers["Location"]).status_code == 403
    assert view(second, gid)["role"] == "public"
    assert act(second, gid, {"type": "end_turn"}).status_code == 403
    # The host's page no longer shows the invite; the friend waits for Scania's turn.
    assert "vs-invite" not in host.get(f"/v/{gid}").get_data(as_text=True)
    refused = act(friend, gid, {"type": "end_turn"})
    assert refused.status_code == 403 and refused.get_json()["error"] == "not_your_turn"
    # The public is sent to the projector.
    public = app.test_client()
    assert public.get(f"/v/{gid}").headers["Location"].endswith(f"/v/{gid}/watch")
    socket = socketio.test_client(app, flask_test_client=public)
    assert socket.emit("resync", {"game": gid, "seq": 0}, callback=True)["view"]["role"] == "public"
    answer = socket.emit("action", {"game": gid, "client_id": "c-1", "action": {"type": "end_turn"}}, callback=True)
    assert answer["ok"] is False and answer["error"] == "forbidden"


def test_an_action_through_the_api_and_socketio_updates_every_view(app: Flask) -> None:
    host = app.test_client()
    made = create(host, opponent="friend")
    gid = made["game"]
    friend = join(app, made["links"]["join"]["zealand"])
    for to in APPROACH:
        assert act(host, gid, {"type": "end_turn"}).status_code == 200
        assert act(friend, gid, {"type": "move", "piece": FRIGATE, "to": to}).status_code == 200
        assert act(friend, gid, {"type": "end_turn"}).status_code == 200
    projector = app.test_client()
    watchers = {"friend": friend, "public": projector}
    sockets = {who: socketio.test_client(app, flask_test_client=c) for who, c in watchers.items()}
    held: dict[str, Any] = {}
    for who, sock in sockets.items():
        synced = sock.emit("resync", {"game": gid, "seq": 0}, callback=True)
        assert synced["ok"]
        held[who] = synced["view"]
        sock.get_received()
    # The legal actions carry each target's chance from the hit table.
    mine = view(host, gid)
    fire = next(a for a in mine["actions"] if a["type"] == "fire" and a["piece"] == "scania.destroyer")
    offer = next(o for o in fire["targets"] if o["target"] == "zealand.frigate-1")
    assert 0 < offer["chance"] <= 1 and offer["distance"] >= 1
    # A move over HTTP: both other screens hear it.
    moved = act(host, gid, {"type": "move", "piece": "scania.corvette-1", "to": "O19"})
    assert moved.status_code == 200, moved.get_json()
    for who, sock in sockets.items():
        # The rooms were pushed to before (the approach): each hears what changed since.
        pushed = [m for m in sock.get_received() if m["name"] in ("view", "changes")]
        assert pushed, who
        for m in pushed:
            body = m["args"][0]
            held[who] = body["view"] if m["name"] == "view" else changes.apply(held[who], body["changes"])
        piece = next(p for p in held[who]["pieces"] if p["id"] == "scania.corvette-1")
        assert piece["place"] == "O19", who
    # A shot over Socket.IO (the host's own socket): the roll is in everyone's log.
    host_socket = socketio.test_client(app, flask_test_client=host)
    assert host_socket.emit("resync", {"game": gid, "seq": 0}, callback=True)["view"]["role"] == "player:scania"
    answer = host_socket.emit(
        "action",
        {"game": gid, "client_id": "s1", "action": {"type": "fire", "piece": "scania.destroyer", "target": FRIGATE}},
        callback=True,
    )
    assert answer["ok"], answer
    # A socket's answer carries no view (its push did): the view a resync gives now.
    mine = host_socket.emit("resync", {"game": gid, "seq": 0}, callback=True)["view"]
    rolls = mine["rolls"]
    assert len(rolls) == 1 and rolls[0]["piece"] == "scania.destroyer" and 1 <= rolls[0]["pips"] <= 6
    assert rolls[0]["physical"] is False
    assert view(projector, gid)["rolls"] == rolls
    # Undo is offered only while the latest action is a move: not after the roll.
    assert not any(a["type"] == "undo" for a in mine["actions"])


def test_physical_dice_take_the_players_pips(client: FlaskClient) -> None:
    gid = create(client, opponent="hotseat", dice="physical", start=NEAR)["game"]
    done = act(client, gid, {"type": "fire", "piece": "scania.destroyer", "target": "zealand.frigate-1", "pips": 6})
    assert done.status_code == 200, done.get_json()
    roll = done.get_json()["view"]["rolls"][-1]
    assert roll["pips"] == 6 and roll["physical"] is True


def test_surrender_ends_the_game(client: FlaskClient) -> None:
    gid = create(client, opponent="hotseat")["game"]
    done = act(client, gid, {"type": "surrender", "side": "scania"})
    assert done.status_code == 200, done.get_json()
    outcome = done.get_json()["view"]["outcome"]
    assert outcome["winner"] == "zealand" and outcome["reason"] == "surrender"


def test_the_hosts_page_hears_when_the_friend_takes_the_seat(app: Flask) -> None:
    """The invite's QR code goes from the host's page as the friend's phone opens it, without a reload."""
    host = app.test_client()
    made = create(host, opponent="friend")
    gid, link = made["game"], made["links"]["join"]["zealand"]
    assert 'id="vs-invite"' in host.get(f"/v/{gid}").get_data(as_text=True)
    host_socket = socketio.test_client(app, flask_test_client=host)
    assert host_socket.emit("resync", {"game": gid, "seq": 0}, callback=True)["view"]["role"] == "player:scania"
    host_socket.get_received()
    join(app, link)
    heard = [m["args"][0] for m in host_socket.get_received() if m["name"] == "seats"]
    assert heard == [{"taken": "zealand"}]
    assert 'id="vs-invite"' not in host.get(f"/v/{gid}").get_data(as_text=True)
    # A second tap on the spent link takes no seat, and says so without naming a referee.
    stranger = app.test_client()
    first = stranger.get(link.split("localhost", 1)[1])
    refused = stranger.get(first.headers["Location"], headers={"Accept-Language": "en"})
    assert refused.status_code == 403 and "Ask whoever gave it to you" in refused.get_data(as_text=True)
    assert "ask the referee" not in refused.get_data(as_text=True).lower()
    assert not [m for m in host_socket.get_received() if m["name"] == "seats"]
