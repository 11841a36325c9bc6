"""The air-raid game through HTTP and Socket.IO, with several clients: referee, both teams, pilots, projector."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from referee.push.clock import end_rounds_on_time
from referee.web.access import issue_server_referee_token
from referee.web.extensions import engine_of, socketio

from ..airraid_helpers import PLAYERS, RULESET_PATH, SEA_7, ships_json
from .screens import Pushes, Screen


def referee_client(app: Flask) -> FlaskClient:
    client = app.test_client()
    with app.app_context():
        token = issue_server_referee_token(engine_of(app))
    assert client.get(f"/?token={token}").status_code == 303
    return client


def create(app: Flask, referee: FlaskClient, **extra: Any) -> dict[str, Any]:
    response = referee.post(
        "/api/games",
        json={
            "teams": [{"name": "Eagles", "players": PLAYERS["A"]}, {"name": "Sharks", "players": PLAYERS["B"]}],
            **extra,
        },
    )
    assert response.status_code == 201, response.get_json()
    return response.get_json()  # type: ignore[no-any-return]


def join(app: Flask, url: str) -> FlaskClient:
    phone = app.test_client()
    path = url.split("localhost", 1)[1]
    first = phone.get(path)
    assert first.status_code == 303 and "t=" not in first.headers["Location"]
    return phone


def act(client: FlaskClient, game: str, action: dict[str, Any], **extra: Any) -> Any:
    return client.post(f"/api/games/{game}/actions", json={"action": action, **extra})


@pytest.fixture
def game(app: Flask) -> dict[str, Any]:
    referee = referee_client(app)
    created = create(app, referee)
    gid = created["game"]
    a = join(app, created["links"]["join"]["A"])
    b = join(app, created["links"]["join"]["B"])
    return {"id": gid, "referee": referee, "A": a, "B": b, "links": created["links"]}


def test_referee_creates_a_game_and_teams_join_by_link(app: Flask, game: dict[str, Any]) -> None:
    view = game["A"].get(f"/api/games/{game['id']}/view").get_json()
    assert view["role"] == "team:A" and view["sea"]["size"] == 7
    assert "ships" not in view["enemy_sea"]
    stranger = app.test_client()
    assert stranger.get(f"/api/games/{game['id']}/view").get_json()["role"] == "public"
    assert stranger.get(f"/g/{game['id']}/referee").status_code == 403
    assert stranger.get(f"/g/{game['id']}/team").status_code == 403
    assert stranger.post("/api/games", json={}).status_code == 403


def test_a_team_cannot_act_for_the_other_team(game: dict[str, Any]) -> None:
    response = act(game["A"], game["id"], {"type": "lock_sea", "team": "B", "ships": ships_json()})
    assert response.status_code == 403 and response.get_json()["error"] == "not_your_turn"


def test_sea_check_and_random_give_live_feedback(game: dict[str, Any]) -> None:
    touching = ships_json()
    touching[1]["squares"] = ["A3", "B3", "C3", "D3"]
    checked = game["A"].post(f"/api/games/{game['id']}/sea/check", json={"team": "A", "ships": touching}).get_json()
    assert not checked["ok"] and any(len(p["ships"]) == 2 and p["squares"] for p in checked["problems"])
    ships = game["A"].post(f"/api/games/{game['id']}/sea/random", json={"team": "A"}).get_json()["ships"]
    assert game["A"].post(f"/api/games/{game['id']}/sea/check", json={"team": "A", "ships": ships}).get_json()["ok"]
    assert game["A"].post(f"/api/games/{game['id']}/sea/random", json={"team": "B"}).status_code == 403


def test_bad_input_is_a_json_error_never_a_500(game: dict[str, Any]) -> None:
    gid = game["id"]
    for body in (
        {},
        {"action": None},
        {"action": {"type": "nope"}},
        {"action": {"type": "lock_sea", "team": "A", "ships": "x"}},
        {"action": {"type": "add_order"}},
        {"action": {"type": "void", "seq": "x"}},
    ):
        response = game["referee"].post(f"/api/games/{gid}/actions", json=body)
        assert response.status_code in (400, 403, 409), (body, response.status_code)
        assert set(response.get_json()) >= {"error", "message"}
    assert (
        game["referee"].post(f"/api/games/{gid}/actions", data="not json", content_type="application/json").status_code
        == 400
    )
    assert game["referee"].get("/api/games/nosuchgame/view").status_code == 404


def play_to_airborne(game: dict[str, Any]) -> None:
    gid = game["id"]
    for team in "AB":
        assert act(game[team], gid, {"type": "lock_sea", "team": team, "ships": ships_json(SEA_7)}).status_code == 200
    assert act(game["referee"], gid, {"type": "start_game"}).status_code == 200
    act(game["A"], gid, {"type": "set_defender", "team": "A", "pilot": "Amy"})
    act(game["B"], gid, {"type": "set_defender", "team": "B", "pilot": "Bo"})
    ok = act(
        game["A"],
        gid,
        {"type": "add_order", "team": "A", "pilot": "Ann", "kind": "fighter", "ship": "A", "corridor": "upper"},
    )
    assert ok.status_code == 200, ok.get_json()
    act(
        game["B"],
        gid,
        {
            "type": "add_order",
            "team": "B",
            "pilot": "Bob",
            "kind": "bomber",
            "ship": "A",
            "corridor": "upper",
            "target": "C4",
        },
    )
    assert act(game["referee"], gid, {"type": "start_round"}).status_code == 200


def test_client_ids_apply_an_entry_once(game: dict[str, Any]) -> None:
    gid = game["id"]
    first = act(game["A"], gid, {"type": "lock_sea", "team": "A", "ships": ships_json()}, client_id="c-1").get_json()
    again = act(game["A"], gid, {"type": "lock_sea", "team": "A", "ships": ships_json()}, client_id="c-1").get_json()
    assert first["seq"] == again["seq"] and again["duplicate"]


def test_slips_open_the_pilot_view_and_tampered_ones_are_refused(app: Flask, game: dict[str, Any]) -> None:
    play_to_airborne(game)
    gid = game["id"]
    slips = game["A"].get(f"/api/games/{gid}/slips").get_json()["slips"]
    assert [s["pilot"] for s in slips] == ["Ann"]
    slip = slips[0]["url"].rsplit("/s/", 1)[1]
    phone = app.test_client()
    page = phone.get(f"/s/{slip}")
    assert page.status_code == 200
    view = phone.get(f"/api/games/{gid}/view?slip={slip}").get_json()
    assert view["role"].startswith("pilot:") and view["next"]["opponent"]["kind"] == "bomber"
    assert "C4" not in json.dumps(view), "the enemy bomber's target stays secret"
    assert phone.get(f"/s/{slip[:-2]}xx").status_code == 404
    assert phone.get(f"/api/games/{gid}/view?slip={slip[:-2]}xx").status_code == 403
    # Team B's phone cannot print team A's slips.
    assert game["B"].get(f"/api/games/{gid}/slips").get_json()["slips"][0]["pilot"] == "Bob"


def test_slips_page_prints_with_qr_codes(game: dict[str, Any]) -> None:
    play_to_airborne(game)
    html = game["A"].get(f"/g/{game['id']}/slips").get_data(as_text=True)
    assert "<svg" in html and "Ann" in html and "Bob" not in html


def test_socket_clients_each_get_their_own_view(app: Flask, game: dict[str, Any]) -> None:
    gid = game["id"]
    sockets = {name: socketio.test_client(app, flask_test_client=game[name]) for name in ("referee", "A", "B")}
    sockets["public"] = socketio.test_client(app, flask_test_client=app.test_client())
    for name, sock in sockets.items():
        ack = sock.emit("resync", {"game": gid, "seq": 0}, callback=True)
        assert ack["ok"], ack
        assert ack["view"]["role"] == {"referee": "referee", "A": "team:A", "B": "team:B", "public": "public"}[name]
    ack = sockets["A"].emit(
        "action",
        {"game": gid, "client_id": "x1", "action": {"type": "lock_sea", "team": "A", "ships": ships_json()}},
        callback=True,
    )
    assert ack["ok"]
    for name, sock in sockets.items():
        pushed = [m for m in sock.get_received() if m["name"] == "view"]
        assert pushed, name
        view = pushed[-1]["args"][0]["view"]
        text = json.dumps(view)
        if name in ("B", "public"):
            assert '"ships"' not in json.dumps(view.get("enemy_sea", {})) and "C1" not in text
    refused = sockets["public"].emit("action", {"game": gid, "action": {"type": "start_game"}}, callback=True)
    assert refused["error"] == "forbidden"
    bad = sockets["B"].emit("action", "nonsense", callback=True)
    assert bad["ok"] is False and bad["error"] == "malformed"


def test_a_pilot_report_is_confirmed_by_the_other_pilot_over_sockets(
    app: Flask, game: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    play_to_airborne(game)
    pushes = Pushes(monkeypatch)
    gid = game["id"]
    slips = {
        s["pilot"]: s["url"].rsplit("/s/", 1)[1]
        for team in "AB"
        for s in game[team].get(f"/api/games/{gid}/slips").get_json()["slips"]
    }
    ann = socketio.test_client(app, flask_test_client=app.test_client())
    bob = socketio.test_client(app, flask_test_client=app.test_client())
    view_ann = ann.emit("resync", {"game": gid, "seq": 0, "slip": slips["Ann"]}, callback=True)["view"]
    bob_screen = Screen(bob, gid, pushes, slip=slips["Bob"])
    nxt = view_ann["next"]
    ack = ann.emit(
        "action",
        {
            "game": gid,
            "client_id": "r1",
            "slip": slips["Ann"],
            "action": {"type": "report_dogfight", "a": nxt["a"], "b": nxt["b"], "throws": [{"winner": "A"}]},
        },
        callback=True,
    )
    assert ack["ok"], ack
    # Bob's screen follows the push (its room holds the view its resync gave: a change set).
    assert [m["name"] for m in bob_screen.take()] == ["changes"]
    assert bob_screen.view["next"]["reported_by"] == [f"pilot:{nxt['a']}"]
    ack = bob.emit(
        "action",
        {
            "game": gid,
            "client_id": "r2",
            "slip": slips["Bob"],
            "action": {"type": "confirm_dogfight", "a": nxt["a"], "b": nxt["b"]},
        },
        callback=True,
    )
    assert ack["ok"], ack
    referee = game["referee"].get(f"/api/games/{gid}/view").get_json()
    assert referee["duels"][0]["shot_down"] == nxt["b"]


def ruleset_text(**rounds: str) -> str:
    """Return the shipped air-raid ruleset's text with some [rounds] keys set (`at_zero="end"`)."""
    text = RULESET_PATH.read_text(encoding="utf-8")
    for key, value in rounds.items():
        text, n = re.subn(rf"(?m)^{key} = .*$", f'{key} = "{value}"', text)
        assert n == 1, key
    return text


@pytest.fixture
def game_ending_at_zero(app: Flask) -> dict[str, Any]:
    referee = referee_client(app)
    created = create(app, referee, ruleset_toml=ruleset_text(at_zero="end"))
    a, b = join(app, created["links"]["join"]["A"]), join(app, created["links"]["join"]["B"])
    return {"id": created["game"], "referee": referee, "A": a, "B": b, "links": created["links"]}


def test_the_round_clock_ends_a_round_once(app: Flask, game_ending_at_zero: dict[str, Any]) -> None:
    game = game_ending_at_zero
    play_to_airborne(game)
    gid = game["id"]
    round_view = game["referee"].get(f"/api/games/{gid}/view").get_json()["round"]
    assert round_view["at_zero"] == "end"
    deadline = round_view["deadline"]
    assert end_rounds_on_time(app, now=deadline - 1) == []
    assert end_rounds_on_time(app, now=deadline + 0.1) == [gid]
    assert end_rounds_on_time(app, now=deadline + 0.2) == []
    view = game["referee"].get(f"/api/games/{gid}/view").get_json()
    assert view["round"]["round"] == 2 and view["round"]["phase"] == "planning"


def test_at_zero_the_round_waits_for_the_duels_that_were_due(app: Flask, game: dict[str, Any]) -> None:
    play_to_airborne(game)  # Ann's fighter and Bob's bomber meet in the upper corridor
    gid = game["id"]
    view = game["referee"].get(f"/api/games/{gid}/view").get_json()
    assert view["round"]["at_zero"] == "wait" and view["open"] == {"dogfights": 1, "bombings": 0, "disputes": 0}
    deadline = view["round"]["deadline"]
    assert end_rounds_on_time(app, now=deadline + 5) == []  # "Time!", and the dogfight is still fought
    meeting = next(m for c in view["corridors"] for m in c["meetings"])
    fought = act(
        game["referee"],
        gid,
        {"type": "report_dogfight", "a": meeting["a"], "b": meeting["b"], "throws": [{"winner": "A"}]},
    )
    assert fought.status_code == 200, fought.get_json()
    view = game["referee"].get(f"/api/games/{gid}/view").get_json()
    # Ann's fighter shot Bob's bomber down: nothing is open, and the clock ends the round on its next tick, once.
    assert view["round"]["phase"] == "airborne" and not any(view["open"].values())
    assert end_rounds_on_time(app, now=deadline + 6) == [gid]
    assert end_rounds_on_time(app, now=deadline + 7) == []
    view = game["referee"].get(f"/api/games/{gid}/view").get_json()
    assert view["round"]["round"] == 2 and view["round"]["phase"] == "planning"
    assert view["open"] == {"dogfights": 0, "bombings": 0, "disputes": 0}


def test_after_zero_the_referee_ends_a_round_with_duels_still_open(app: Flask, game: dict[str, Any]) -> None:
    play_to_airborne(game)
    gid = game["id"]
    deadline = game["referee"].get(f"/api/games/{gid}/view").get_json()["round"]["deadline"]
    assert end_rounds_on_time(app, now=deadline + 60) == []
    assert act(game["referee"], gid, {"type": "end_round"}).status_code == 200
    view = game["referee"].get(f"/api/games/{gid}/view").get_json()
    assert view["round"]["round"] == 2 and view["round"]["phase"] == "planning"


def test_log_downloads_are_for_the_referee_until_the_end(game: dict[str, Any]) -> None:
    gid = game["id"]
    act(game["A"], gid, {"type": "lock_sea", "team": "A", "ships": ships_json()})
    assert game["B"].get(f"/api/games/{gid}/log.json").status_code == 403
    log = game["referee"].get(f"/api/games/{gid}/log.json").get_json()
    assert [e["kind"] for e in log["events"]] == ["create_game", "lock_sea"]
    csv_text = game["referee"].get(f"/api/games/{gid}/log.csv").get_data(as_text=True)
    assert csv_text.splitlines()[0].startswith("seq,time,by,kind")
    act(game["referee"], gid, {"type": "lock_sea", "team": "B", "ships": ships_json()})
    act(game["referee"], gid, {"type": "start_game"})
    act(game["referee"], gid, {"type": "forfeit", "team": "B", "reason": "went home"})
    assert game["B"].get(f"/api/games/{gid}/log.json").status_code == 200


def test_referee_manages_devices_and_reissues_join_links(app: Flask, game: dict[str, Any]) -> None:
    gid = game["id"]
    devices = game["referee"].get(f"/api/games/{gid}/devices").get_json()["devices"]
    assert sorted(d["team"] for d in devices) == ["A", "B"]
    a_dev = next(d for d in devices if d["team"] == "A")
    assert (
        game["referee"]
        .post(f"/api/games/{gid}/devices/{a_dev['id']}", json={"name": "Eagles phone"})
        .get_json()["name"]
        == "Eagles phone"
    )
    assert game["A"].get(f"/api/games/{gid}/devices").status_code == 403
    assert game["referee"].delete(f"/api/games/{gid}/devices/{a_dev['id']}").status_code == 200
    assert game["A"].get(f"/api/games/{gid}/view").get_json()["role"] == "public"
    old = game["links"]["join"]["B"].split("localhost", 1)[1]
    new = game["referee"].post(f"/api/games/{gid}/teams/B/join-link", json={}).get_json()["url"]
    assert app.test_client().get(old, follow_redirects=True).status_code == 403
    assert re.search(r"t=", new)


def test_the_openapi_document_is_valid_and_names_every_api_route(app: Flask) -> None:
    from openapi_spec_validator import validate

    doc = app.test_client().get("/api/openapi.json").get_json()
    validate(doc)
    documented = set(doc["paths"])
    routes = {
        re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", r.rule)
        for r in app.url_map.iter_rules()
        if r.rule.startswith("/api/") and not r.rule.startswith("/api/_")
    }
    routes.discard("/api/openapi.json")
    assert routes <= documented, routes - documented


def test_a_socket_flooding_actions_is_slowed_down(app: Flask, game: dict[str, Any]) -> None:
    sock = socketio.test_client(app, flask_test_client=game["B"])
    answers = [
        sock.emit("action", {"game": game["id"], "action": {"type": "start_game"}}, callback=True) for _ in range(60)
    ]
    assert answers[0]["error"] == "not_your_turn"
    assert answers[-1]["error"] == "rate_limited"


def test_a_settled_socket_flooding_junk_is_slowed_down_too(app: Flask, game: dict[str, Any]) -> None:
    sock = socketio.test_client(app, flask_test_client=game["B"])
    assert sock.emit("resync", {"game": game["id"], "seq": 0}, callback=True)["ok"]  # its role is settled
    answers = [sock.emit("action", ["junk", n], callback=True) for n in range(60)]
    assert answers[0]["error"] == "malformed"
    assert answers[-1]["error"] == "rate_limited" and answers[-1]["retry_after"] > 0
    settled = [sock.emit("action", {"game": game["id"], "action": {"type": "start_game"}}, callback=True)]
    assert settled[0]["error"] == "rate_limited"


def test_the_dashboard_shows_the_same_join_link_until_it_is_reissued(app: Flask, game: dict[str, Any]) -> None:
    gid = game["id"]
    first = game["referee"].get(f"/g/{gid}/referee").get_data(as_text=True)
    again = game["referee"].get(f"/g/{gid}/referee").get_data(as_text=True)
    links = re.findall(rf"/g/{gid}/team\?t=[\w-]+", first)
    assert links and links == re.findall(rf"/g/{gid}/team\?t=[\w-]+", again)
    phone = app.test_client()
    assert phone.get(links[0]).status_code == 303


def test_a_page_ahead_of_the_log_is_told_to_take_the_servers_view(app: Flask, game: dict[str, Any]) -> None:
    # A push goes out before the disk has its change: after a power cut the log can be behind
    # what a page was shown, and the page must then drop its newer view (static/js/lib/conn.js).
    sock = socketio.test_client(app, flask_test_client=game["A"])
    now = sock.emit("resync", {"game": game["id"], "seq": 0}, callback=True)
    assert now["ok"] and "reset" not in now
    same = sock.emit("resync", {"game": game["id"], "seq": now["seq"]}, callback=True)
    assert same["seq"] == now["seq"] and "reset" not in same
    ahead = sock.emit("resync", {"game": game["id"], "seq": now["seq"] + 3}, callback=True)
    assert ahead["reset"] is True and ahead["seq"] == now["seq"] and ahead["view"] == now["view"]
    for junk in (True, "99", 2.5e9, None):
        assert "reset" not in sock.emit("resync", {"game": game["id"], "seq": junk}, callback=True)


def test_a_projector_in_the_referees_browser_gets_only_the_public_view(app: Flask, game: dict[str, Any]) -> None:
    sock = socketio.test_client(app, flask_test_client=game["referee"])
    ack = sock.emit("resync", {"game": game["id"], "seq": 0, "as": "public"}, callback=True)
    assert ack["view"]["role"] == "public" and "seas" not in ack["view"]


def test_revoking_a_phone_closes_its_open_socket(app: Flask, game: dict[str, Any]) -> None:
    gid = game["id"]
    sock = socketio.test_client(app, flask_test_client=game["A"])
    assert sock.emit("resync", {"game": gid, "seq": 0}, callback=True)["view"]["role"] == "team:A"
    device = next(d for d in game["referee"].get(f"/api/games/{gid}/devices").get_json()["devices"] if d["team"] == "A")
    assert game["referee"].delete(f"/api/games/{gid}/devices/{device['id']}").status_code == 200
    assert not sock.is_connected()


def test_a_phone_with_a_live_socket_is_listed_as_connected(app: Flask, game: dict[str, Any]) -> None:
    gid = game["id"]

    def connected() -> dict[str, bool]:
        listed = game["referee"].get(f"/api/games/{gid}/devices").get_json()["devices"]
        return {d["team"]: d["connected"] for d in listed}

    assert connected() == {"A": False, "B": False}
    sock = socketio.test_client(app, flask_test_client=game["A"])
    assert sock.emit("resync", {"game": gid, "seq": 0}, callback=True)["ok"]
    assert connected() == {"A": True, "B": False}
    sock.disconnect()
    assert connected() == {"A": False, "B": False}
