"""The referee's pages: new game, dashboard, projector, slips.

Each page renders for the role it is made for, with the data its script needs (valid JSON,
CSP-clean markup), and is refused to the others.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

import pytest
from flask import Flask
from flask.testing import FlaskClient

from referee.web.access import issue_server_referee_token
from referee.web.extensions import engine_of
from tests.web.test_static import scan_template

PLAYERS_A = ["Anna", "Adam", "Alena", "Arnošt"]
PLAYERS_B = ["Bára", "Boris", "Beáta", "Bohdan"]


def referee_client(app: Flask) -> FlaskClient:
    """A client holding the server referee's cookie (as after opening the terminal link)."""
    client = app.test_client()
    client.set_cookie("lang", "en")  # the words asserted below are the English ones
    token = issue_server_referee_token(engine_of(app))
    assert client.get(f"/?token={token}").status_code == 303
    return client


def json_block(html: str, block_id: str) -> Any:
    match = re.search(rf'<script type="application/json" id="{block_id}">(.*?)</script>', html, re.S)
    assert match, f"no JSON block {block_id}"
    return json.loads(match.group(1))


def i18n_blocks(html: str) -> list[dict[str, Any]]:
    return [json.loads(m) for m in re.findall(r'<script type="application/json" data-i18n>(.*?)</script>', html, re.S)]


def csrf_of(html: str) -> str:
    match = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert match, "no CSRF field in the form"
    return match.group(1)


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


@pytest.fixture
def referee(app: Flask) -> FlaskClient:
    return referee_client(app)


@pytest.fixture
def game(referee: FlaskClient) -> dict[str, Any]:
    """A game created by the referee: its id and links."""
    res = referee.post(
        "/api/games",
        json={"teams": [{"name": "Orli", "players": PLAYERS_A}, {"name": "Žraloci", "players": PLAYERS_B}]},
    )
    assert res.status_code == 201, res.get_json()
    return dict(res.get_json())


def act(client: FlaskClient, gid: str, action: dict[str, Any]) -> dict[str, Any]:
    res = client.post(f"/api/games/{gid}/actions", json={"action": action})
    assert res.status_code == 200, res.get_json()
    return dict(res.get_json())


def planned_round(referee: FlaskClient, gid: str) -> None:
    """Lock both seas (random fleets), start the game, set defenders and write three orders."""
    for team in "AB":
        ships = referee.post(f"/api/games/{gid}/sea/random", json={"team": team}).get_json()["ships"]
        act(referee, gid, {"type": "lock_sea", "team": team, "ships": ships})
    act(referee, gid, {"type": "start_game"})
    act(referee, gid, {"type": "set_defender", "team": "A", "pilot": "Anna"})
    act(referee, gid, {"type": "set_defender", "team": "B", "pilot": "Bára"})
    view = referee.get(f"/api/games/{gid}/view").get_json()
    ship_a = view["seas"]["A"]["ships"][0]["id"]
    ship_b = view["seas"]["B"]["ships"][0]["id"]
    act(
        referee,
        gid,
        {
            "type": "add_order",
            "team": "A",
            "pilot": "Adam",
            "kind": "bomber",
            "ship": ship_a,
            "corridor": "upper",
            "target": "C4",
        },
    )
    act(
        referee,
        gid,
        {"type": "add_order", "team": "A", "pilot": "Alena", "kind": "fighter", "ship": ship_a, "corridor": "lower"},
    )
    act(
        referee,
        gid,
        {
            "type": "add_order",
            "team": "B",
            "pilot": "Boris",
            "kind": "bomber",
            "ship": ship_b,
            "corridor": "middle",
            "target": "B2",
        },
    )


# ------------------------------------------------------------------------------ new game


def test_new_game_form_renders_for_the_referee(referee: FlaskClient) -> None:
    res = referee.get("/games/new")
    assert res.status_code == 200
    html = res.get_data(as_text=True)
    for field in (
        "team1_name",
        "team1_colour",
        "team1_players",
        "team2_name",
        "team2_colour",
        "team2_players",
        "sea_size",
        "round_seconds",
        "ruleset_file",
        "csrf_token",
    ):
        assert f'name="{field}"' in html, field
    assert 'enctype="multipart/form-data"' in html and 'action="/games/new"' in html
    assert 'value="300" selected' in html  # 5:00 by default
    # Colour-blind-safe defaults: Okabe–Ito blue for A, orange for B.
    assert re.search(r'name="team1_colour" value="#0072B2" checked', html)
    assert re.search(r'name="team2_colour" value="#E69F00" checked', html)
    sizes = json_block(html, "sea-sizes")
    assert [row[2] for row in sizes] == [7, 8, 9, 10]
    assert sizes[0][:2] == [4, 5] and sizes[-1][:2] == [10, 10]
    assert "js/airraid/new-game.js" in html
    assert not scan_template(html)
    assert all(isinstance(b, dict) and b for b in i18n_blocks(html))


def test_new_game_form_is_refused_to_others(client: FlaskClient) -> None:
    assert client.get("/games/new").status_code == 403


def test_new_game_post_creates_and_redirects_to_the_dashboard(referee: FlaskClient) -> None:
    csrf = csrf_of(referee.get("/games/new").get_data(as_text=True))
    res = referee.post(
        "/games/new",
        data={
            "csrf_token": csrf,
            "team1_name": "Orli",
            "team1_colour": "#0072B2",
            "team1_players": "\n".join(PLAYERS_A),
            "team2_name": "Žraloci",
            "team2_colour": "#D55E00",
            "team2_players": "\r\n".join(PLAYERS_B) + "\n\n",
            "sea_size": "",
            "round_seconds": "240",
        },
    )
    assert res.status_code == 303
    target = res.headers["Location"]
    assert re.search(r"/g/[^/]+/referee$", target)
    page = referee.get(path_of(target))
    assert page.status_code == 200
    view = json_block(page.get_data(as_text=True), "page-data")["view"]
    assert view["teams"]["B"]["colour"].upper() == "#D55E00"
    assert view["round"] == {"running": False, "left": None, "deadline": None, "next_seconds": 240}
    assert view["rosters"]["B"] == PLAYERS_B


def test_new_game_refusal_keeps_what_was_typed(referee: FlaskClient) -> None:
    csrf = csrf_of(referee.get("/games/new").get_data(as_text=True))
    res = referee.post(
        "/games/new",
        data={
            "csrf_token": csrf,
            "team1_name": "Orli",
            "team1_players": "Anna\nAdam\nAlena",
            "team2_name": "Žraloci",
            "team2_players": "\n".join(PLAYERS_B),
            "team2_colour": "#CC79A7",
            "round_seconds": "300",
        },
    )
    assert res.status_code == 400
    html = res.get_data(as_text=True)
    assert 'id="form-error"' in html and 'data-kind="refused"' in html
    assert "Anna\nAdam\nAlena</textarea>" in html
    assert 'value="Žraloci"' in html
    assert re.search(r'name="team2_colour" value="#CC79A7" checked', html)
    assert not scan_template(html)


# ------------------------------------------------------------------------------ dashboard


def test_dashboard_renders_for_the_referee(referee: FlaskClient, game: dict[str, Any]) -> None:
    gid = game["game"]
    res = referee.get(f"/g/{gid}/referee")
    assert res.status_code == 200
    html = res.get_data(as_text=True)
    data = json_block(html, "page-data")
    assert data["game"] == gid and data["role"] == "referee" and data["api"] == f"/api/games/{gid}"
    assert data["view"]["role"] == "referee" and "seas" in data["view"] and "legal" in data["view"]
    assert data["seq"] == data["view"]["version"]
    # Join QR codes for both teams, inline SVG, and the projector link.
    assert html.count("<svg") >= 2
    assert 'id="join-qr-A"' in html and 'id="join-qr-B"' in html
    assert f"/g/{gid}/watch" in html
    assert f"/api/games/{gid}/log.json" in html and f"/api/games/{gid}/log.csv" in html
    for piece in (
        'id="main-action"',
        'id="timer"',
        'id="corridors"',
        'id="log"',
        'id="devices"',
        'id="reason-dialog"',
        "page-referee",
    ):
        assert piece in html, piece
    assert "vendor/socket.io/socket.io.min.js" in html and "js/airraid/referee.js" in html
    strings = {k: v for block in i18n_blocks(html) for k, v in block.items()}
    assert strings["ref.start_round"] == "Start round {n}"
    assert strings["team.A"] == "Orli"
    assert not scan_template(html)


def test_dashboard_is_refused_to_others(app: Flask, game: dict[str, Any]) -> None:
    gid = game["game"]
    stranger = app.test_client()
    assert stranger.get(f"/g/{gid}/referee").status_code == 403
    phone = app.test_client()
    assert phone.get(path_of(game["links"]["join"]["A"])).status_code in (302, 303)
    assert phone.get(f"/g/{gid}/referee").status_code == 403
    assert phone.get(f"/api/games/{gid}/devices").status_code == 403


def test_dashboard_of_an_unknown_game_is_404(referee: FlaskClient) -> None:
    assert referee.get("/g/nosuchgame/referee").status_code == 404


def test_dashboard_during_a_round_carries_the_corridor_board(referee: FlaskClient, game: dict[str, Any]) -> None:
    gid = game["game"]
    planned_round(referee, gid)
    act(referee, gid, {"type": "start_round"})
    data = json_block(referee.get(f"/g/{gid}/referee").get_data(as_text=True), "page-data")
    view = data["view"]
    assert view["round"]["phase"] == "airborne" and view["round"]["running"]
    # The deadline is in seconds since the epoch; referee.js multiplies by 1000.
    assert 1e9 < view["round"]["deadline"] < 1e11
    assert [c["corridor"] for c in view["corridors"]] == ["upper", "middle", "lower"]


# ------------------------------------------------------------------------------ projector


def test_projector_renders_the_public_view_for_anyone(app: Flask, referee: FlaskClient, game: dict[str, Any]) -> None:
    gid = game["game"]
    planned_round(referee, gid)
    for client in (app.test_client(), referee):
        res = client.get(f"/g/{gid}/watch")
        assert res.status_code == 200
        html = res.get_data(as_text=True)
        view = json_block(html, "page-data")["view"]
        assert view["role"] == "public"
        # No secrets: no ships, no orders, no rosters.
        assert not {"seas", "orders", "rosters", "corridors", "legal"} & set(view)
        assert "Adam" not in html and "C4" not in html
        assert 'class="projector page-watch"' in html
        assert 'class="timer-big"' in html and 'id="sound"' in html
        assert "js/airraid/watch.js" in html
        assert not scan_template(html)


def test_projector_of_an_unknown_game_is_404(client: FlaskClient) -> None:
    assert client.get("/g/nosuchgame/watch").status_code == 404


# ------------------------------------------------------------------------------ slips


def test_slips_print_page_for_the_referee(referee: FlaskClient, game: dict[str, Any]) -> None:
    gid = game["game"]
    planned_round(referee, gid)
    res = referee.get(f"/g/{gid}/slips?round=1")
    assert res.status_code == 200
    html = res.get_data(as_text=True)
    assert html.count('class="slip slip--order') == 3
    assert html.count("<svg") >= 3  # a QR code on every slip
    assert "/s/" in html  # the link in words, for a slip with no phone near
    assert re.search(r'<div class="slip-target" aria-label="[^"]+ C4">', html)
    assert "Adam" in html and "Alena" in html and "Boris" in html
    assert html.count('class="slip-sheet') == 2  # each team on its own sheets
    assert "data-print" in html and "js/airraid/slips.js" in html
    assert not scan_template(html)


def test_slips_show_a_team_only_its_own_orders(app: Flask, referee: FlaskClient, game: dict[str, Any]) -> None:
    gid = game["game"]
    planned_round(referee, gid)
    phone = app.test_client()
    phone.get(path_of(game["links"]["join"]["B"]))
    html = phone.get(f"/g/{gid}/slips").get_data(as_text=True)
    assert "Boris" in html and "Adam" not in html and "Alena" not in html
    assert html.count('class="slip slip--order') == 1


def test_slips_are_refused_to_the_public(app: Flask, referee: FlaskClient, game: dict[str, Any]) -> None:
    gid = game["game"]
    planned_round(referee, gid)
    assert app.test_client().get(f"/g/{gid}/slips?round=1").status_code == 403


def test_slips_of_a_round_without_orders_say_so(referee: FlaskClient, game: dict[str, Any]) -> None:
    gid = game["game"]
    res = referee.get(f"/g/{gid}/slips?round=1")
    assert res.status_code == 200
    assert 'class="slip slip--order' not in res.get_data(as_text=True)
