"""The score sheet over HTTP: who may see it and when, the page's pictures, and the two CSV files."""

from __future__ import annotations

import csv
import io
import re
import threading
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask

from ..airraid_helpers import SEA_7, ships_json
from ..rules.test_score_sheet import ORDERS
from .test_games_web import act, create, join, referee_client

Post = Callable[[str, dict[str, Any]], dict[str, Any]]
"""Send one action as "referee", "A" or "B" and return the answer's JSON."""


def scripted_round(post: Post) -> None:
    """Play the round of tests/rules/test_score_sheet.py: 3 dogfights, 3 bombings, 1 ship sunk, 1 bomber down."""
    for team in "AB":
        post(team, {"type": "lock_sea", "team": team, "ships": ships_json(SEA_7)})
    post("referee", {"type": "start_game"})
    post("A", {"type": "set_defender", "team": "A", "pilot": "Amy"})
    post("B", {"type": "set_defender", "team": "B", "pilot": "Bo"})
    ids = {order["pilot"]: post(str(order["team"]), {"type": "add_order", **order})["order"] for order in ORDERS}
    post("referee", {"type": "start_round"})
    for a, b, extra in (
        ("Ann", "Bob", {"throws": [{"winner": "A"}]}),
        ("Abe", "Ben", {"choice": "pass"}),
        ("Ada", "Bea", {"throws": [{"winner": "A"}]}),
    ):
        post("referee", {"type": "report_dogfight", "a": ids[a], "b": ids[b], **extra})
    for pilot, base, throws in (
        ("Ada", "B", [{"winner": "bomber"}]),
        ("Abe", "B", [{"winner": "bomber"}]),
        ("Ben", "A", [{"winner": "ship"}, {"winner": "ship"}]),
    ):
        post(base, {"type": "announce_bombing", "order": ids[pilot]})
        choice = {"choice": "continue"} if len(throws) > 1 else {}
        post(base, {"type": "report_bombing", "order": ids[pilot], "throws": throws, **choice})
    post("referee", {"type": "end_round"})


@pytest.fixture
def game(app: Flask) -> dict[str, Any]:
    referee = referee_client(app)
    created = create(app, referee)
    gid = created["game"]
    clients = {
        "referee": referee,
        "A": join(app, created["links"]["join"]["A"]),
        "B": join(app, created["links"]["join"]["B"]),
        "public": app.test_client(),
    }

    def post(who: str, action: dict[str, Any]) -> dict[str, Any]:
        answer = act(clients[who], gid, action)
        assert answer.status_code == 200, (action, answer.get_json())
        return answer.get_json()  # type: ignore[no-any-return]

    return {"id": gid, "post": post, **clients}


def end(game: dict[str, Any]) -> None:
    game["post"]("referee", {"type": "end_game", "reason": "closing time"})


ROUTES = (
    "/g/{gid}/sheet",
    "/g/{gid}/sheet?view=timeline",
    "/api/games/{gid}/pilots.csv",
    "/api/games/{gid}/events.csv",
)


def rows_of(response: Any) -> list[list[str]]:
    body = response.get_data()
    assert body.startswith(b"\xef\xbb\xbf"), "a byte-order mark, so Excel reads the letters as UTF-8"
    text = body.decode("utf-8-sig")
    delimiter = ";" if response.request.headers.get("Accept-Language") == "cs" else ","
    return list(csv.reader(io.StringIO(text), delimiter=delimiter))


# --- Who may see it ----------------------------------------------------------------------------


@pytest.mark.parametrize("route", ROUTES)
def test_only_the_referee_sees_the_sheet_until_the_game_is_over(game: dict[str, Any], route: str) -> None:
    scripted_round(game["post"])
    path = route.format(gid=game["id"])
    assert game["referee"].get(path).status_code == 200
    for who in ("A", "B", "public"):
        refused = game[who].get(path)
        assert refused.status_code == 403, (who, path)
        # The refusal says nothing of the other side: no pilot, no square of a fleet.
        # (The game's id is random letters and digits: "A4" may be part of it, in the page's links.)
        body = refused.get_data().replace(game["id"].encode(), b"")
        assert not re.search(rb"Ann|Bob|Ben|B6|A4", body), who
    end(game)
    for who in ("referee", "A", "B", "public"):
        assert game[who].get(path).status_code == 200, (who, path)


@pytest.mark.parametrize("route", ROUTES)
def test_a_bad_game_is_404(game: dict[str, Any], route: str) -> None:
    assert game["referee"].get(route.format(gid="nosuchgame")).status_code == 404


def test_a_bad_view_is_400(game: dict[str, Any]) -> None:
    assert game["referee"].get(f"/g/{game['id']}/sheet?view=wall").status_code == 400


def test_a_battleship_game_has_no_score_sheet(app: Flask) -> None:
    player = app.test_client()
    made = player.post("/api/battleship/games", json={"ruleset": "zeeslag", "opponent": "computer", "name": "Zed"})
    assert made.status_code == 201
    gid = made.get_json()["game"]
    assert player.get(f"/g/{gid}/sheet").status_code == 404
    assert player.get(f"/api/games/{gid}/pilots.csv").status_code == 404


# --- The page ----------------------------------------------------------------------------------


def test_the_sheet_page_has_its_tables_and_both_pictures(game: dict[str, Any]) -> None:
    scripted_round(game["post"])
    end(game)
    html = game["A"].get(f"/g/{game['id']}/sheet", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "css/sheet.css" in html and "Eagles won" in html
    assert "Eagles had more squares still afloat (18 to 16)." in html
    for table in ("sheet-teams", "sheet-pilots", "sheet-rounds", "sheet-moments"):
        assert f"sheet-table {table}" in html, table
    # Two seas, each drawn twice: as it ended, and where the bombs fell.
    assert html.count('<svg class="sheet-sea"') == 2 and html.count('<svg class="sheet-sea sheet-heat"') == 2
    # The Sharks' ship-two sank on A6 and B6; the Eagles' cruiser was bombed at A4, and its ship won.
    assert html.count("sv-cell sv-sunk") == 2 and html.count("sv-cell sv-hit") == 0
    assert html.count("sv-cell sv-ship") == 18 + 16  # the Eagles' 18 squares, the Sharks' 18 less the 2 sunk
    assert len(re.findall(r'class="sv-cell heat-1"', html)) == 3
    assert "Ship sunk" in html and "FIGHT → hit" in html and "FIGHT → bomber shot down" in html
    # The team's own phone links to the sheet now that the game is over.
    team = game["A"].get(f"/g/{game['id']}/team").get_data(as_text=True)
    assert f"/g/{game['id']}/sheet" in team and f"/api/games/{game['id']}/pilots.csv" in team


def test_the_sheet_page_is_rendered_in_a_thread_in_the_callers_language(
    game: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Under `referee serve` the page is made in a thread with its own copy of the request's
    # context: its words, links and role must still be the caller's.
    from concurrent.futures import ThreadPoolExecutor

    from referee import offload
    from referee.web.api import exports

    scripted_round(game["post"])
    end(game)
    threads: list[str] = []

    class Pool:
        def apply(self, func: Callable[..., Any], args: tuple[Any, ...] = (), kwds: Any = None) -> Any:
            def run() -> Any:
                threads.append(threading.current_thread().name)
                return func(*args, **(kwds or {}))

            with ThreadPoolExecutor(1, thread_name_prefix="offload") as pool:
                return pool.submit(run).result()

    exports.forget()
    monkeypatch.setattr(offload, "_pool", Pool())
    czech = game["A"].get(f"/g/{game['id']}/sheet", headers={"Accept-Language": "cs"}).get_data(as_text=True)
    english = game["A"].get(f"/g/{game['id']}/sheet", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert threads and all(name.startswith("offload") for name in threads)
    assert '<html lang="cs">' in czech and "Eagles won" not in czech and f"/g/{game['id']}/sheet" in czech
    assert '<html lang="en">' in english and "Eagles won" in english
    # The ruleset's name is in the page's language too (the sheet's line under the title).
    assert "Letecký útok ·" in czech and "Air raid ·" not in czech and "Air raid ·" in english


def test_the_projector_timeline_is_the_moments_in_big_type(game: dict[str, Any]) -> None:
    scripted_round(game["post"])
    end(game)
    html = game["public"].get(f"/g/{game['id']}/sheet?view=timeline").get_data(as_text=True)
    assert "sheet-projector" in html and "<table" not in html
    assert html.count('class="proj-moment"') == 7  # 3 dogfights, 3 bombings with their fights, 1 sinking
    watch = game["public"].get(f"/g/{game['id']}/watch").get_data(as_text=True)
    assert f"/g/{game['id']}/sheet?view=timeline" in watch


def test_the_referee_dashboard_offers_the_new_files(game: dict[str, Any]) -> None:
    html = game["referee"].get(f"/g/{game['id']}/referee").get_data(as_text=True)
    for path in ("sheet", "pilots.csv", "events.csv", "log.csv"):
        assert path in html, path


# --- The CSV files -----------------------------------------------------------------------------


def test_pilots_csv_has_one_row_per_pilot_with_the_counts(game: dict[str, Any]) -> None:
    scripted_round(game["post"])
    end(game)
    response = game["B"].get(f"/api/games/{game['id']}/pilots.csv", headers={"Accept-Language": "en"})
    assert response.mimetype == "text/csv" and "attachment" in response.headers["Content-Disposition"]
    header, *rows = rows_of(response)
    assert header == [
        "Team",
        "Pilot",
        "Sorties",
        "Dogfights won",
        "Dogfights lost",
        "Bombs dropped",
        "Hits",
        "Ships sunk",
        "Trophies",
        "Shot down",
    ]
    by_pilot = {r[1]: r for r in rows}
    assert len(rows) == 8
    assert by_pilot["Abe"] == ["Eagles", "Abe", "1", "0", "0", "1", "1", "1", "0", "0"]
    assert by_pilot["Ann"] == ["Eagles", "Ann", "1", "1", "0", "0", "0", "0", "1", "0"]
    assert by_pilot["Ben"] == ["Sharks", "Ben", "1", "0", "0", "1", "0", "0", "0", "1"]
    assert by_pilot["Bo"][2:] == ["0"] * 8


def test_events_csv_is_one_readable_row_per_moment(game: dict[str, Any]) -> None:
    scripted_round(game["post"])
    end(game)
    response = game["A"].get(f"/api/games/{game['id']}/events.csv", headers={"Accept-Language": "en"})
    header, *rows = rows_of(response)
    assert header == ["Round", "Time", "In the round", "Corridor", "Who", "What", "Result"]
    assert len(rows) == 13  # start, 3 dogfights, 3 answers, 2 fights, 1 sinking, the end of the round, of the game
    assert all(len(r) == len(header) for r in rows)
    for cell in (c for r in rows for c in r):
        assert not cell.startswith(("{", "[")) and '":' not in cell, f"JSON in a cell: {cell!r}"
    # Plane labels are the rules' own (the team letter and a number): matched, not spelled out here.
    assert rows[1][3] == "upper" and rows[1][5] == "Dogfight"
    assert re.fullmatch(r"Ann \(A\d\) – Bob \(B\d\)", rows[1][4])
    assert re.fullmatch(r"Bob \(B\d\) shot down", rows[1][6])
    sunk = next(r for r in rows if r[5] == "Ship sunk")
    assert re.fullmatch(r"Abe \(A\d\)", sunk[4]) and sunk[6] == "the ship-two of Sharks, 4 planes lost with it"
    assert [r[6] for r in rows if r[5].startswith("Bombing")] == [
        "FIGHT",
        "hit",
        "FIGHT",
        "hit",
        "FIGHT",
        "bomber shot down",
    ]
    assert rows[-1][5:] == ["Game over", "Eagles won"]
    assert re.fullmatch(r"\d\d:\d\d:\d\d", rows[1][1]) and re.fullmatch(r"\d+:\d\d", rows[1][2])


def test_czech_csv_speaks_czech_and_splits_on_semicolons(game: dict[str, Any]) -> None:
    scripted_round(game["post"])
    end(game)
    response = game["A"].get(f"/api/games/{game['id']}/pilots.csv", headers={"Accept-Language": "cs"})
    text = response.get_data().decode("utf-8-sig")
    assert text.splitlines()[0].count(";") == 9 and "," not in text.splitlines()[0]
    header = rows_of(response)[0]
    assert header[:2] == ["Tým", "Pilot"] and "Trofeje" in header
    events = rows_of(game["A"].get(f"/api/games/{game['id']}/events.csv", headers={"Accept-Language": "cs"}))
    assert events[0][0] == "Kolo" and events[0][3] == "Koridor"
    assert any(r[3] == "horní" for r in events[1:]), "the corridor's Czech name"


def test_a_name_like_a_formula_stays_a_name(app: Flask) -> None:
    referee = referee_client(app)
    response = referee.post(
        "/api/games",
        json={
            "teams": [
                {"name": "=Eagles", "players": ["=1+1", "@Ada", "Abe", "Amy"]},
                {"name": "Sharks", "players": ["Bob", "Bea", "Ben", "Bo"]},
            ]
        },
    )
    gid = response.get_json()["game"]
    rows = rows_of(referee.get(f"/api/games/{gid}/pilots.csv", headers={"Accept-Language": "en"}))
    assert rows[1][:2] == ["'=Eagles", "'=1+1"] and rows[2][1] == "'@Ada"


def test_the_openapi_document_describes_the_new_files(app: Flask, game: dict[str, Any]) -> None:
    paths = app.test_client().get("/api/openapi.json").get_json()["paths"]
    for name in ("pilots", "events"):
        described = paths[f"/api/games/{{game_id}}/{name}.csv"]["get"]
        assert "text/csv" in described["responses"]["200"]["content"]
        assert {"403", "404"} <= set(described["responses"])
