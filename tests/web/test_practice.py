"""A practice game: the server plays both teams and their pilots; the referee steps in as on the night."""

from __future__ import annotations

import random
from typing import Any

from flask import Flask

from referee.web.extensions import store_of
from referee.web.modes.airraid import practice

from .test_games_web import act, create, referee_client
from .test_referee_pages import csrf_of


def play(app: Flask, gid: str, rng: random.Random, moves: int = 80) -> list[str]:
    """Let the simulated players move until they wait for the referee (or `moves` is reached)."""
    said = []
    for _ in range(moves):
        with app.test_request_context("/"):
            said.append(practice.step(gid, rng))
        if said[-1] != "moved":
            break
    return said


def kinds(app: Flask, gid: str) -> list[str]:
    state, _version = store_of(app).load(gid)
    return [e.kind for e in state.log]


def test_the_simulated_players_play_while_the_referee_runs_the_game(app: Flask) -> None:
    referee = referee_client(app)
    page = referee.get("/games/practice", headers={"Accept-Language": "en"})
    assert page.status_code == 200 and "Start a practice game" in page.get_data(as_text=True)
    started = referee.post("/games/practice", data={"csrf_token": csrf_of(page.get_data(as_text=True))})
    assert started.status_code == 303 and started.headers["Location"].endswith("/referee")
    gid = started.headers["Location"].split("/g/", 1)[1].split("/", 1)[0]
    view = referee.get(f"/api/games/{gid}/view").get_json()
    assert view["practice"] is True
    dashboard = referee.get(f"/g/{gid}/referee", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Pace of the simulated players" in dashboard
    assert "Practice game: " in referee.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)

    rng = random.Random(5)
    # The teams place and lock their seas, then wait: the referee starts the game.
    assert play(app, gid, rng)[-1] == "waiting"
    assert kinds(app, gid).count("lock_sea") == 2
    act(referee, gid, {"type": "start_game"})
    # Each team chooses its defender and writes an order for every other pilot.
    assert play(app, gid, rng)[-1] == "waiting"
    assert kinds(app, gid).count("set_defender") == 2 and kinds(app, gid).count("add_order") == 8
    for _round in range(3):
        assert act(referee, gid, {"type": "start_round"}).status_code == 200
        play(app, gid, rng)
        # A dispute waits for the referee, as on the night: settle it by ending the round.
        act(referee, gid, {"type": "end_round"})
        state, _version = store_of(app).load(gid)
        if state.phase == "over":
            break
        play(app, gid, rng)
    log = kinds(app, gid)
    assert log.count("report_dogfight") >= 2 and "announce_bombing" in log, log


def test_the_pace_is_the_referees_and_only_a_practice_games(app: Flask) -> None:
    referee = referee_client(app)
    csrf = csrf_of(referee.get("/games/practice").get_data(as_text=True))
    gid = (
        referee.post("/games/practice", data={"csrf_token": csrf})
        .headers["Location"]
        .split("/g/", 1)[1]
        .split("/", 1)[0]
    )
    assert referee.post(f"/api/games/{gid}/practice", json={"seconds": 1}).get_json() == {"ok": True, "seconds": 1}
    with app.app_context():
        assert app.extensions["referee.practice"].paces[gid] == 1
    for bad in (2, "3", None, True, -1):
        assert referee.post(f"/api/games/{gid}/practice", json={"seconds": bad}).status_code == 400, bad
    assert app.test_client().post(f"/api/games/{gid}/practice", json={"seconds": 0}).status_code == 403
    assert app.test_client().post("/games/practice").status_code == 403
    assert app.test_client().get("/games/practice").status_code == 403
    people = create(app, referee)["game"]
    answer: Any = referee.post(f"/api/games/{people}/practice", json={"seconds": 3})
    assert answer.status_code == 409
    # A practice game's score sheet says it counts for nothing.
    sheet = referee.get(f"/g/{gid}/sheet", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "It counts for nothing" in sheet


def test_at_most_four_practice_games_play_at_once(app: Flask) -> None:
    referee = referee_client(app)
    games = []
    for _ in range(practice.MAX_PLAYING + 1):
        csrf = csrf_of(referee.get("/games/practice").get_data(as_text=True))
        location = referee.post("/games/practice", data={"csrf_token": csrf}).headers["Location"]
        games.append(location.split("/g/", 1)[1].split("/", 1)[0])
    # The fifth was made, but its players wait: it says why when asked to play.
    answer = referee.post(f"/api/games/{games[-1]}/practice", json={"seconds": 3}, headers={"Accept-Language": "en"})
    assert answer.status_code == 409 and "4 practice games are playing already" in answer.get_json()["message"]
    assert referee.post(f"/api/games/{games[0]}/practice", json={"seconds": 0}).status_code == 200
    assert referee.post(f"/api/games/{games[-1]}/practice", json={"seconds": 3}).status_code == 200
