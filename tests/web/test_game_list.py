"""The way back to a game: the referee's home page and `referee games` list every game, running first."""

from __future__ import annotations

from typing import Any

from click.testing import CliRunner
from flask import Flask

from referee.cli import main

from .test_games_web import act, create, join, play_to_airborne, referee_client

TEAMS = {"A": ["Xia", "Xu", "Xo", "Xe"], "B": ["Yan", "Yo", "Ya", "Ye"]}


def new_game(app: Flask, referee: Any, names: tuple[str, str]) -> dict[str, Any]:
    teams = [{"name": names[0], "players": TEAMS["A"]}, {"name": names[1], "players": TEAMS["B"]}]
    response = referee.post("/api/games", json={"teams": teams})
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    return {
        "id": created["game"],
        "referee": referee,
        "A": join(app, created["links"]["join"]["A"]),
        "B": join(app, created["links"]["join"]["B"]),
    }


def test_the_referees_home_lists_the_games_running_first_with_where_they_stand(app: Flask) -> None:
    referee = referee_client(app)
    over = new_game(app, referee, ("Owls", "Rays"))
    assert act(referee, over["id"], {"type": "forfeit", "team": "B", "reason": "went home"}).status_code == 200
    setup = new_game(app, referee, ("Foxes", "Hares"))
    flying = create(app, referee)
    game = {"id": flying["game"], "referee": referee}
    game["A"] = join(app, flying["links"]["join"]["A"])
    game["B"] = join(app, flying["links"]["join"]["B"])
    play_to_airborne(game)

    page = referee.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)
    listed = [page.index(f"/g/{gid}/referee") for gid in (game["id"], setup["id"], over["id"])]
    assert listed == sorted(listed), "running games come first, the finished one last"
    assert "Eagles – Sharks" in page and "Round 1 · In the air" in page
    assert "Foxes – Hares" in page and "Setting up: teams place their ships" in page
    assert "Owls – Rays" in page and "Game over · Owls won" in page
    czech = referee.get("/", headers={"Accept-Language": "cs"}).get_data(as_text=True)
    assert "Kolo 1 · Ve vzduchu" in czech


def test_no_one_but_the_referee_sees_the_list(app: Flask) -> None:
    referee = referee_client(app)
    game = new_game(app, referee, ("Owls", "Rays"))
    for client in (app.test_client(), game["A"]):
        page = client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)
        assert "Owls – Rays" not in page and f"/g/{game['id']}/referee" not in page


def test_referee_games_prints_the_same_list_with_each_dashboards_link(app: Flask) -> None:
    referee = referee_client(app)
    game = new_game(app, referee, ("Owls", "Rays"))
    args = ["games", "--host", "10.1.2.3", "--port", "5050"]
    result = CliRunner().invoke(
        main, [*args, "--instance-path", app.instance_path, "--database-url", app.config["DATABASE_URL"]]
    )
    assert result.exit_code == 0, result.output
    assert "Owls – Rays" in result.output
    assert f"http://10.1.2.3:5050/g/{game['id']}/referee" in result.output
    # The command line's frame is English, so are its rows, whatever the pages' home language.
    assert app.config["BABEL_DEFAULT_LOCALE"] == "cs"
    assert "Owls – Rays  ·  Setting up: teams place their ships" in result.output


def test_referee_games_says_when_there_is_none(app: Flask) -> None:
    result = CliRunner().invoke(
        main, ["games", "--instance-path", app.instance_path, "--database-url", app.config["DATABASE_URL"]]
    )
    assert result.exit_code == 0 and "No games yet" in result.output
