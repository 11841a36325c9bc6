"""The referee's list of games: archive a game and put it back; delete a practice game, and only that."""

from __future__ import annotations

import re

import pytest
from flask import Flask
from flask.testing import FlaskClient

from referee.store import GameNotFound
from referee.web.extensions import store_of

from .test_games_web import create, join, referee_client
from .test_referee_pages import csrf_of

EN = {"Accept-Language": "en"}


def home(referee: FlaskClient) -> str:
    return referee.get("/", headers=EN).get_data(as_text=True)


def listed(page: str) -> list[str]:
    """The games on the list itself (not under "Archived games"), by id."""
    main = page.split('class="archived-games"', 1)[0]
    return re.findall(r'/g/([A-Za-z0-9_-]+)/referee"', main)


def archived(page: str) -> list[str]:
    if 'class="archived-games"' not in page:
        return []
    return re.findall(r'/g/([A-Za-z0-9_-]+)/referee"', page.split('class="archived-games"', 1)[1])


def practice_game(referee: FlaskClient) -> str:
    csrf = csrf_of(referee.get("/games/practice").get_data(as_text=True))
    location = referee.post("/games/practice", data={"csrf_token": csrf}).headers["Location"]
    return location.split("/g/", 1)[1].split("/", 1)[0]


def test_an_archived_game_leaves_the_list_and_comes_back(app: Flask) -> None:
    referee = referee_client(app)
    first = create(app, referee)["game"]
    second = create(app, referee)["game"]
    page = home(referee)
    assert set(listed(page)) == {first, second} and archived(page) == []
    gone = referee.post(f"/games/{first}/archive", data={"csrf_token": csrf_of(page)})
    assert gone.status_code == 303 and gone.headers["Location"].endswith("/")
    page = home(referee)
    assert listed(page) == [second] and archived(page) == [first]
    assert "Archived games (1)" in page
    # The game itself goes on: its dashboard and its view are as before.
    assert referee.get(f"/g/{first}/referee").status_code == 200
    assert referee.get(f"/api/games/{first}/view").get_json()["phase"] == "setup"
    back = referee.post(f"/games/{first}/restore", data={"csrf_token": csrf_of(page)})
    assert back.status_code == 303
    page = home(referee)
    assert set(listed(page)) == {first, second} and archived(page) == []
    with app.app_context():
        assert store_of(app).archived_at(first) is None


def test_only_a_practice_game_can_be_deleted(app: Flask) -> None:
    referee = referee_client(app)
    people = create(app, referee)["game"]
    rehearsal = practice_game(referee)
    page = home(referee)
    assert f"/games/{rehearsal}/delete" in page and f"/games/{people}/delete" not in page
    csrf = csrf_of(page)
    # A game people play is archived, never deleted: nothing changes.
    refused = referee.post(f"/games/{people}/delete", data={"csrf_token": csrf}, headers=EN)
    assert refused.status_code == 409 and "Only a practice game can be deleted" in refused.get_data(as_text=True)
    assert referee.get(f"/games/{people}/delete").status_code == 409
    asked = referee.get(f"/games/{rehearsal}/delete", headers=EN)
    assert asked.status_code == 200 and "deleted for good" in asked.get_data(as_text=True)
    done = referee.post(f"/games/{rehearsal}/delete", data={"csrf_token": csrf_of(asked.get_data(as_text=True))})
    assert done.status_code == 303
    with app.app_context(), pytest.raises(GameNotFound):
        store_of(app).load(rehearsal)
    assert listed(home(referee)) == [people]
    assert referee.get(f"/api/games/{rehearsal}/view").status_code == 404
    assert referee.post(f"/games/{rehearsal}/delete", data={"csrf_token": csrf}).status_code == 404
    assert referee.get(f"/api/games/{people}/view").status_code == 200


def test_a_deleted_practice_game_takes_its_phones_and_links_with_it(app: Flask) -> None:
    referee = referee_client(app)
    created = create(app, referee, practice=True)
    rehearsal = created["game"]
    phone = join(app, created["links"]["join"]["A"])
    assert phone.get(f"/api/games/{rehearsal}/view").status_code == 200
    csrf = csrf_of(home(referee))
    assert referee.post(f"/games/{rehearsal}/delete", data={"csrf_token": csrf}).status_code == 303
    with app.app_context():
        engine = store_of(app).engine
        with engine.connect() as conn:
            for table in ("events", "snapshots", "tokens", "devices"):
                left = conn.exec_driver_sql(f"SELECT COUNT(*) FROM {table} WHERE game_id = ?", (rehearsal,)).scalar()
                assert left == 0, table
    assert phone.get(f"/api/games/{rehearsal}/view").status_code == 404


def test_the_list_is_the_server_referees_to_change(app: Flask) -> None:
    referee = referee_client(app)
    gid = create(app, referee)["game"]
    stranger = app.test_client()
    stranger.get("/")
    for path in (f"/games/{gid}/archive", f"/games/{gid}/restore", f"/games/{gid}/delete"):
        assert stranger.post(path).status_code in (400, 403), path
    assert stranger.get(f"/games/{gid}/delete").status_code == 403
    # Without the form's CSRF token even the referee's browser is refused, and nothing moves.
    assert referee.post(f"/games/{gid}/archive").status_code == 403
    assert listed(home(referee)) == [gid]
    assert referee.post("/games/nosuchgame/archive", data={"csrf_token": csrf_of(home(referee))}).status_code == 404
