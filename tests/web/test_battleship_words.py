"""Battleship's words on the pages: the game's own ship names, each ship told apart, the computer's
name in the page's language, and the shots per game on the scores of the evening."""

from __future__ import annotations

import json
import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from .test_battleship_web import FLEET_A, FLEET_B, act, create, ok, ships
from .test_games_web import join, referee_client


def lang(code: str) -> dict[str, str]:
    return {"Accept-Language": code}


def view(client: FlaskClient, gid: str, code: str) -> dict[str, Any]:
    return ok(client.get(f"/api/games/{gid}/view", headers=lang(code)))  # type: ignore[no-any-return]


def page_view(html: str) -> dict[str, Any]:
    """The view a page hands its script (the page-data block)."""
    found = re.search(r'<script type="application/json" id="page-data">(.*?)</script>', html, re.S)
    assert found, "the page carries its view"
    return json.loads(found.group(1))["view"]  # type: ignore[no-any-return]


# --- The game's own words --------------------------------------------------------------------


def test_sjoslag_ships_carry_the_norwegian_word_beside_the_page_language(app: Flask) -> None:
    eva = app.test_client()
    gid = create(eva, opponent="computer", level="easy", name="Eva")["game"]
    titles = {code: [k["title"] for k in view(eva, gid, code)["ruleset"]["fleet"]][:4] for code in ("en", "nb", "cs")}
    assert titles["en"] == ["slagskip · battleship", "krysser · cruiser", "krysser · cruiser", "jager · destroyer"]
    assert titles["nb"] == ["slagskip", "krysser", "krysser", "jager"]
    assert titles["cs"] == ["slagskip · bitevní loď", "krysser · křižník", "krysser · křižník", "jager · torpédoborec"]
    ok(act(eva, gid, {"type": "place_fleet", "player": "A", "ships": ships(FLEET_A)}))
    own = [s["name"] for s in view(eva, gid, "en")["boards"]["A"]["ships"]]
    assert own[:3] == ["slagskip · battleship", "krysser · cruiser 1", "krysser · cruiser 2"]
    assert [s["name"] for s in view(eva, gid, "nb")["boards"]["A"]["ships"]][:3] == [
        "slagskip",
        "krysser 1",
        "krysser 2",
    ]
    # The page's header keeps the mode's own name.
    assert 'lang="nb">Sjøslag<' in eva.get(f"/b/{gid}", headers=lang("en")).get_data(as_text=True)


def test_zeeslag_ships_carry_the_dutch_word(app: Flask) -> None:
    eva = app.test_client()
    gid = create(eva, ruleset="zeeslag", opponent="computer", name="Eva")["game"]
    assert [k["title"] for k in view(eva, gid, "en")["ruleset"]["fleet"]] == [
        "vliegdekschip · aircraft carrier",
        "slagschip · battleship",
        "kruiser · cruiser",
        "duikboot · submarine",
        "torpedobootjager · destroyer",
    ]
    assert view(eva, gid, "nl")["ruleset"]["fleet"][2]["title"] == "kruiser"


def test_the_sea_check_says_which_cruiser_in_the_games_words(app: Flask) -> None:
    eva = app.test_client()
    gid = create(eva, opponent="computer", name="Eva")["game"]
    # As the editor sends a half-placed sea: ids by tray slot, only the second cruiser (C) out.
    half = [
        {"id": "A", "kind": "battleship", "squares": ["A1", "B1", "C1", "D1"]},
        {"id": "C", "kind": "cruiser", "squares": ["E2", "F2", "G2"]},
    ]
    for code, battleship, cruiser in (
        ("en", "slagskip · battleship", "krysser · cruiser 2"),
        ("nb", "slagskip", "krysser 2"),
        ("cs", "slagskip · bitevní loď", "krysser · křižník 2"),
    ):
        answer = ok(eva.post(f"/api/games/{gid}/sea/check", json={"player": "A", "ships": half}, headers=lang(code)))
        touching = [p for p in answer["problems"] if p["ships"] == ["A", "C"]]
        assert len(touching) == 1, answer
        assert battleship in touching[0]["message"] and cruiser in touching[0]["message"], touching
        assert touching[0]["squares"] == ["D1", "E2"]


# --- The computer's name, in the page's language ---------------------------------------------


def test_the_computers_name_is_shown_in_each_pages_language(app: Flask) -> None:
    eva = app.test_client()
    gid = create(eva, opponent="computer", level="easy", name="Eva")["game"]
    assert {code: view(eva, gid, code)["players"]["B"]["name"] for code in ("en", "cs", "nb", "sv")} == {
        "en": "Computer",
        "cs": "Počítač",
        "nb": "Datamaskin",
        "sv": "Datorn",
    }
    ok(act(eva, gid, {"type": "place_fleet", "player": "A", "ships": ships(FLEET_A)}))
    ok(act(eva, gid, {"type": "forfeit", "player": "A"}))
    # The Czech projector: the winner's name and the end line, both in Czech.
    watch = app.test_client().get(f"/b/{gid}/watch", headers=lang("cs")).get_data(as_text=True)
    shown = page_view(watch)
    assert shown["players"]["B"]["name"] == "Počítač" and shown["outcome"]["winner"] == "B"
    assert "Computer" not in json.dumps(shown["players"], ensure_ascii=False)
    assert "Počítač" in watch.split('id="page-data"')[0]  # the boards' headings, drawn by the server
    play = page_view(eva.get(f"/b/{gid}", headers=lang("cs")).get_data(as_text=True))
    assert play["players"]["B"]["name"] == "Počítač"


def test_a_computer_named_in_another_language_or_by_hand(app: Flask) -> None:
    eva = app.test_client()
    # A game started before the name was stored untranslated: its Czech default still translates.
    old = create(eva, opponent="computer", name="Eva", opponent_name="Počítač")["game"]
    assert view(eva, old, "en")["players"]["B"]["name"] == "Computer"
    named = create(eva, opponent="computer", name="Eva", opponent_name="HAL")["game"]
    assert view(eva, named, "cs")["players"]["B"]["name"] == "HAL"
    # A person called "Počítač" keeps the name: only the computer's default is translated.
    friend = create(eva, opponent="friend", name="Eva", opponent_name="Počítač")["game"]
    assert view(eva, friend, "en")["players"]["B"]["name"] == "Počítač"


# --- Shots per game on the scores of the evening ---------------------------------------------


def duel(app: Flask) -> tuple[str, FlaskClient, FlaskClient]:
    eva = app.test_client()
    made = create(eva, opponent="friend", name="Eva", opponent_name="Bo")
    bo = join(app, made["links"]["join"]["B"])
    gid = made["game"]
    ok(act(eva, gid, {"type": "place_fleet", "player": "A", "ships": ships(FLEET_A)}))
    ok(act(bo, gid, {"type": "place_fleet", "player": "B", "ships": ships(FLEET_B)}))
    return gid, eva, bo


def fire(client: FlaskClient, gid: str, player: str, square: str) -> None:
    ok(act(client, gid, {"type": "fire", "player": player, "squares": [square]}))


def test_the_scores_count_the_shots_per_game(app: Flask) -> None:
    # Game 1: Eva hits A6 (Sjøslag: again), misses E7; Bo misses E2; Eva misses J1; Eva resigns.
    gid, eva, bo = duel(app)
    fire(eva, gid, "A", "A6")
    fire(eva, gid, "A", "E7")
    fire(bo, gid, "B", "E2")
    fire(eva, gid, "A", "J1")
    ok(act(eva, gid, {"type": "forfeit", "player": "A"}))
    # Game 2: Eva misses E7; Bo hits A1, misses E2; the referee records Eva's forfeit.
    gid, eva, bo = duel(app)
    fire(eva, gid, "A", "E7")
    fire(bo, gid, "B", "A1")
    fire(bo, gid, "B", "E2")
    ok(act(referee_client(app), gid, {"type": "forfeit", "player": "A", "reason": "went home"}))
    # A game still going counts for nothing.
    going, eva3, _bo3 = duel(app)
    fire(eva3, going, "A", "E7")

    public = app.test_client()
    scores = ok(public.get("/api/battleship/scores", headers=lang("en")))["scores"]
    rows = {r["name"]: r for r in scores}
    assert {name: (r["wins"], r["games"], r["shots_per_game"]) for name, r in rows.items()} == {
        "Bo": (2, 2, 1.5),  # (1 + 2) / 2
        "Eva": (0, 2, 2.0),  # (3 + 1) / 2
    }
    assert set(rows["Bo"]) == {"name", "wins", "games", "shots_per_game", "computer"}
    page = public.get("/battleship/scores", headers=lang("en")).get_data(as_text=True)
    assert "Shots per game" in page
    bo_row = re.search(r"<tr[^>]*><td>1</td><td>Bo</td>(.*?)</tr>", page)
    assert bo_row and re.findall(r"<td[^>]*>([^<]*)</td>", bo_row.group(1)) == ["2", "2", "1.5"]
    czech = public.get("/battleship/scores", headers=lang("cs")).get_data(as_text=True)
    assert re.search(r"<td>Bo</td>.*?1,5</td>", czech), "the Czech page writes a decimal comma"


def test_the_scores_name_the_computer_in_the_pages_language_one_row_per_level(app: Flask) -> None:
    eva = app.test_client()
    games = [
        create(eva, opponent="computer", level="easy", name="Eva")["game"],
        create(eva, opponent="computer", level="easy", name="Eva", opponent_name="Počítač")["game"],
    ]
    referee = referee_client(app)
    for gid in games:
        ok(act(eva, gid, {"type": "place_fleet", "player": "A", "ships": ships(FLEET_A)}))
        hidden = {sq for s in ok(referee.get(f"/api/games/{gid}/view"))["boards"]["B"]["ships"] for sq in s["squares"]}
        water = next(f"{c}{r}" for c in "ABCDEFGHIJ" for r in range(1, 11) if f"{c}{r}" not in hidden)
        fire(eva, gid, "A", water)  # a miss: the computer answers with its own shots
        ok(act(eva, gid, {"type": "forfeit", "player": "A"}))
    fired = [len(ok(referee.get(f"/api/games/{gid}/view"))["boards"]["A"]["shots"]) for gid in games]
    assert all(fired), "the computer fired in each game"
    rows = {r["name"]: r for r in ok(app.test_client().get("/api/battleship/scores", headers=lang("en")))["scores"]}
    assert set(rows) == {"Eva", "Computer (easy)"}
    computer = rows["Computer (easy)"]
    assert (computer["wins"], computer["games"], computer["computer"]) == (2, 2, True)
    assert computer["shots_per_game"] == round(sum(fired) / 2, 1)
    assert rows["Eva"]["shots_per_game"] == 1.0
    czech = app.test_client().get("/battleship/scores", headers=lang("cs")).get_data(as_text=True)
    assert "Počítač" in czech and "Computer" not in czech
