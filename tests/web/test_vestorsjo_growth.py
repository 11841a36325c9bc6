"""Vestorsjø games that cannot grow without end: idle games expire (their pages say so, in every
language), a turn takes back only so many moves, and a game against a friend starts from the
map's start places, which the friend knows (custom ones stay for one device and the computer)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import cast

import pytest
from babel.messages.pofile import read_po
from flask import Flask
from flask.testing import FlaskClient
from markupsafe import escape
from sqlalchemy import Table

from referee.push import clock as push_clock
from referee.rules.vestorsjo import moves
from referee.store.models import Game
from referee.web.extensions import db

from .test_games_web import join
from .test_vestorsjo_web import NEAR, act, create, view

games_t = cast(Table, Game.__table__)
TRANSLATIONS = Path(__file__).resolve().parents[2] / "referee" / "translations"
EXPIRED = "This game has expired: nobody played it for %(hours)s hours. Start a new one."
UNDO_BOUND = (
    "no more undo this turn: {count} moves were taken back already, the most one turn allows;"
    " play on from here, or end the turn"
)
FRIEND_START = (
    "a game against a friend starts from the map's start places, which both players know:"
    " set start places only in a game on one device or against the computer"
)
# Every language the Vestorsjø pages speak, English being the catalogues' source.
LANGS = ("cs", "en", "nl", "nb", "sv")


def said(lang: str, msgid: str) -> str:
    """A message in a language, from its catalogue (English: the message itself)."""
    with (TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        message = read_po(f).get(msgid)
    assert message is not None, (lang, msgid)
    return str(message.string) or msgid


def games(app: Flask) -> list[str]:
    with app.app_context():
        return db.store.game_ids()


# --- Idle games expire ----------------------------------------------------------------------


def test_a_vestorsjo_game_nobody_plays_expires_and_its_pages_say_so(app: Flask) -> None:
    app.config["VESTORSJO_IDLE_HOURS"] = 2  # its own key: Battleship's 6 hours do not apply
    hours = 2.0
    player = app.test_client()
    idle = create(player, opponent="hotseat")["game"]
    host = app.test_client()
    duel = create(host, opponent="friend")
    friend = join(app, duel["links"]["join"]["zealand"])
    fresh = create(app.test_client(), opponent="hotseat")["game"]
    ended_by = app.test_client()
    ended = create(ended_by, opponent="computer", level="easy")["game"]
    assert act(ended_by, ended, {"type": "surrender", "side": "scania"}).status_code == 200
    assert act(player, idle, {"type": "move", "piece": "scania.corvette-1", "to": "O19"}).status_code == 200
    now = time.time()
    assert push_clock.expire_idle_games(app, now=now + hours * 3600 - 60) == []
    # `fresh` was touched just now (as seen from the future), the others long ago.
    with app.app_context(), db.engine.begin() as conn:
        conn.execute(games_t.update().where(games_t.c.id == fresh).values(updated_at=now + hours * 3600))
    expired = push_clock.expire_idle_games(app, now=now + hours * 3600 + 60)
    assert sorted(expired) == sorted([idle, duel["game"]])
    with app.app_context():
        assert db.store.status_of(idle) == "abandoned" and db.store.status_of(duel["game"]) == "abandoned"
        # A finished game is not swept: its page still shows how it ended.
        assert db.store.status_of(ended) == "over" and db.store.status_of(fresh) == "playing"
        events = db.store.count_events(idle)
    for lang in LANGS:
        page = player.get(f"/v/{idle}", headers={"Accept-Language": lang})
        assert page.status_code == 410, lang
        assert str(escape(said(lang, EXPIRED) % {"hours": 2})) in page.get_data(as_text=True), lang
    assert player.get(f"/v/{idle}/watch").status_code == 410
    assert friend.get(f"/v/{duel['game']}", headers={"Accept-Language": "sv"}).status_code == 410
    refused = act(player, idle, {"type": "end_turn"})
    assert refused.status_code == 409 and refused.get_json()["error"] == "game_over"
    assert refused.get_json()["message"] == said("cs", "this game has expired: nobody played it for a long time")
    with app.app_context():
        assert db.store.count_events(idle) == events
    assert ended_by.get(f"/v/{ended}").status_code == 200
    assert app.test_client().get(f"/v/{fresh}/watch").status_code == 200


def test_the_idle_hours_are_a_documented_key_of_the_config() -> None:
    text = (Path(__file__).resolve().parents[2] / "config" / "referee.toml").read_text(encoding="utf-8")
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("VESTORSJO_IDLE_HOURS = "))
    assert lines[at] == "VESTORSJO_IDLE_HOURS = 6" and lines[at - 1].startswith("#")


# --- A turn takes back only so many moves ---------------------------------------------------


def test_a_turn_takes_back_only_so_many_moves_and_says_so(client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(moves, "UNDOS_PER_TURN", 2)  # the rule's own number is 100 (tests/rules)
    gid = create(client, opponent="hotseat")["game"]
    piece = {"type": "move", "piece": "scania.corvette-1", "to": "O19"}
    for _ in range(2):
        assert act(client, gid, piece).status_code == 200
        assert act(client, gid, {"type": "undo"}).status_code == 200
    assert act(client, gid, piece).status_code == 200
    seen = view(client, gid)
    assert len(seen["undone"]) == 2 and not any(a["type"] == "undo" for a in seen["actions"])
    for lang in LANGS:
        refused = client.post(
            f"/api/games/{gid}/actions", json={"action": {"type": "undo"}}, headers={"Accept-Language": lang}
        )
        assert refused.status_code == 409 and refused.get_json()["error"] == "illegal", lang
        assert refused.get_json()["message"] == said(lang, UNDO_BOUND).format(count=2), lang
    # Ending the turn is what the message says to do: the next turn's undos start from none.
    assert act(client, gid, {"type": "end_turn"}).status_code == 200
    assert view(client, gid)["undone"] == []
    assert act(client, gid, {"type": "move", "piece": "zealand.corvette-1", "to": "D28"}).status_code == 200
    assert act(client, gid, {"type": "undo"}).status_code == 200


# --- Start places: never set by one player for a game against a friend ----------------------


def test_a_game_against_a_friend_refuses_start_places(app: Flask) -> None:
    host = app.test_client()
    for lang in LANGS:
        refused = host.post(
            "/api/vestorsjo/games",
            json={"opponent": "friend", "start": {"zealand.frigate-1": "L21"}},
            headers={"Accept-Language": lang},
        )
        assert refused.status_code == 409 and refused.get_json()["error"] == "illegal", lang
        assert refused.get_json()["message"] == said(lang, FRIEND_START), lang
    assert games(app) == []
    # None given, or none at all: the map's places, as the friend knows them.
    gid = create(host, opponent="friend", start={})["game"]
    places = {p["id"]: p["place"] for p in view(host, gid)["pieces"]}
    assert places["zealand.frigate-1"] == "F29" and places["scania.destroyer"] == "N17"


@pytest.mark.parametrize("opponent", ["hotseat", "computer"])
def test_start_places_stay_for_one_device_and_against_the_computer(client: FlaskClient, opponent: str) -> None:
    gid = create(client, opponent=opponent, level="easy", start=NEAR)["game"]
    places = {p["id"]: p["place"] for p in view(client, gid)["pieces"]}
    assert {k: places[k] for k in NEAR} == NEAR
    fire = next(a for a in view(client, gid)["actions"] if a["type"] == "fire" and a["piece"] == "scania.destroyer")
    assert "zealand.frigate-1" in {o["target"] for o in fire["targets"]}


def test_the_new_game_form_refuses_start_places_against_a_friend(client: FlaskClient) -> None:
    client.get("/vestorsjo")
    with client.session_transaction() as session:
        token = session["_csrf"]
    made = client.post(
        "/vestorsjo",
        data={"opponent": "friend", "start": "F12", "csrf_token": token},
        headers={"Accept-Language": "sv"},
    )
    assert made.status_code == 400 and "<form" in made.get_data(as_text=True)
    assert str(escape(said("sv", FRIEND_START))) in made.get_data(as_text=True)
