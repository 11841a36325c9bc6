"""The JSON API driven from a script (issue 10): what a script needs is in the answers and the schema.

A script drives a whole game through `POST /api/games/<gid>/actions` and the OpenAPI document:
it learns a new order's id from the answer (not by diffing views), a slip's code as a field, the
exact throws each action takes, which hand comes first, the shape of every view, and the events
a void left skipped from log.json.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

from referee.web.access import read_slip
from referee.web.extensions import socketio

from ..airraid_helpers import PLAYERS, ships_json
from .test_games_web import act, join, referee_client

TEAMS = [{"name": "Eagles", "players": PLAYERS["A"]}, {"name": "Sharks", "players": PLAYERS["B"]}]


@pytest.fixture
def game(app: Flask) -> dict[str, Any]:
    """A game with both seas locked and round 1 in planning, defenders Amy and Bo."""
    referee = referee_client(app)
    created = referee.post("/api/games", json={"teams": TEAMS}).get_json()
    gid = created["game"]
    phones = {t: join(app, created["links"]["join"][t]) for t in "AB"}
    for t in "AB":
        ok(act(phones[t], gid, {"type": "lock_sea", "team": t, "ships": ships_json()}))
    ok(act(referee, gid, {"type": "start_game"}))
    ok(act(phones["A"], gid, {"type": "set_defender", "team": "A", "pilot": "Amy"}))
    ok(act(phones["B"], gid, {"type": "set_defender", "team": "B", "pilot": "Bo"}))
    return {"app": app, "id": gid, "referee": referee, **phones}


def ok(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.get_data(as_text=True)
    body: dict[str, Any] = response.get_json()
    return body


def order(team: str, pilot: str, kind: str, corridor: str, **more: Any) -> dict[str, Any]:
    return {"type": "add_order", "team": team, "pilot": pilot, "kind": kind, "ship": "A", "corridor": corridor, **more}


def openapi(client: FlaskClient) -> dict[str, Any]:
    doc: dict[str, Any] = client.get("/api/openapi.json").get_json()
    return doc


def validator(doc: dict[str, Any], name: str) -> Draft202012Validator:
    """A validator of one component schema of the document (its $refs resolved in the document)."""
    return Draft202012Validator({"$ref": f"#/components/schemas/{name}", "components": doc["components"]})


def ids_in(value: Any) -> set[str]:
    """Every string shaped like an order id (1A2) anywhere in a JSON value."""
    text = json.dumps(value)
    return set(re.findall(r'"([1-9][0-9]*[AB][1-9][0-9]*)"', text))


# --- The answer to an action names what it made ------------------------------------------------


def test_the_answer_to_add_order_names_the_new_order(game: dict[str, Any]) -> None:
    first = ok(act(game["A"], game["id"], order("A", "Ann", "fighter", "upper")))
    second = ok(act(game["A"], game["id"], order("A", "Ada", "bomber", "lower", target="C4")))
    assert (first["order"], second["order"]) == ("1A1", "1A2")
    mine = {o["id"]: o["pilot"] for o in second["view"]["orders"]}
    assert mine == {"1A1": "Ann", "1A2": "Ada"}
    # The stored event's data is in the answer too: the id and take-off position the rules bound.
    assert second["events"][0]["data"]["id"] == "1A2" and second["events"][0]["data"]["position"] == 1


def test_the_socket_ack_of_add_order_names_the_new_order(game: dict[str, Any]) -> None:
    sock = socketio.test_client(game["app"], flask_test_client=game["B"])
    ack = sock.emit(
        "action",
        {"game": game["id"], "client_id": "c-1", "action": order("B", "Bob", "fighter", "middle")},
        callback=True,
    )
    assert ack["ok"] and ack["order"] == "1B1", ack
    again = sock.emit(
        "action",
        {"game": game["id"], "client_id": "c-1", "action": order("B", "Bob", "fighter", "middle")},
        callback=True,
    )
    assert again["duplicate"] and again["order"] == "1B1", again


def test_an_announcement_by_square_names_the_bomber_it_matched(game: dict[str, Any]) -> None:
    gid = game["id"]
    ok(act(game["A"], gid, order("A", "Ann", "bomber", "upper", target="E3")))
    ok(act(game["referee"], gid, {"type": "start_round"}))
    answer = ok(act(game["B"], gid, {"type": "announce_bombing", "target": "E3"}))
    assert answer["order"] == "1A1"
    # Team B is shown that bomber (it waits at B's base): the answer tells B nothing new.
    assert "1A1" in ids_in(answer["view"])


def test_answers_name_no_order_the_callers_view_does_not_show(game: dict[str, Any]) -> None:
    gid = game["id"]
    answers = [
        ("A", ok(act(game["A"], gid, order("A", "Ann", "fighter", "upper")))),
        ("B", ok(act(game["B"], gid, order("B", "Bob", "bomber", "lower", target="A1")))),
        ("B", ok(act(game["B"], gid, order("B", "Bea", "fighter", "middle")))),
        ("A", ok(act(game["A"], gid, order("A", "Ada", "bomber", "middle", target="D4")))),
    ]
    ok(act(game["referee"], gid, {"type": "start_round"}))
    answers.append(("A", ok(act(game["A"], gid, {"type": "announce_bombing", "target": "A1"}))))
    for team, answer in answers:
        told = ids_in({k: v for k, v in answer.items() if k != "view"})
        assert told and told <= ids_in(answer["view"]), (team, told)
        assert all(
            o.startswith(f"1{team}") for o in ids_in(answer["events"]) if answer["events"][0]["kind"] == "add_order"
        )


# --- Slips ------------------------------------------------------------------------------------


def test_a_slip_row_gives_its_code_beside_its_url(game: dict[str, Any]) -> None:
    gid = game["id"]
    ok(act(game["A"], gid, order("A", "Ann", "fighter", "upper")))
    (row,) = game["A"].get(f"/api/games/{gid}/slips").get_json()["slips"]
    assert row["url"].endswith(f"/s/{row['code']}")
    with game["app"].app_context():
        assert read_slip(row["code"]) == (gid, "1A1")
    pilot = game["app"].test_client().get(f"/api/games/{gid}/view", query_string={"slip": row["code"]}).get_json()
    assert pilot["role"] == "pilot:1A1"


# --- The OpenAPI document ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "winner", "valid"),
    [
        ("report_dogfight", "A", True),
        ("report_dogfight", "tie", True),
        ("report_dogfight", "bomber", False),
        ("report_dogfight", "ship", False),
        ("report_bombing", "bomber", True),
        ("report_bombing", "tie", True),
        ("report_bombing", "A", False),
        ("report_bombing", "B", False),
    ],
)
def test_each_duel_takes_exactly_its_own_throw_winners(app: Flask, action: str, winner: str, valid: bool) -> None:
    doc = openapi(app.test_client())
    names: dict[str, Any] = {"a": "1A1", "b": "1B1"} if action == "report_dogfight" else {"order": "1A1"}
    sent = {"type": action, **names, "throws": [{"winner": winner}]}
    assert validator(doc, f"Action_{action}").is_valid(sent) is valid


def test_the_schema_says_whose_hand_comes_first(app: Flask) -> None:
    schemas = openapi(app.test_client())["components"]["schemas"]
    dogfight = json.dumps(schemas["Action_report_dogfight"]["properties"]["throws"])
    bombing = json.dumps(schemas["Action_report_bombing"]["properties"]["throws"])
    assert "team A's hand first" in dogfight and "whatever the order of a and b" in dogfight
    assert "the bomber's hand first" in bombing


def test_hands_are_team_as_first_whatever_the_order_of_a_and_b(game: dict[str, Any]) -> None:
    gid = game["id"]
    ok(act(game["A"], gid, order("A", "Ann", "fighter", "upper")))
    ok(act(game["B"], gid, order("B", "Bob", "fighter", "upper")))
    ok(act(game["referee"], gid, {"type": "start_round"}))
    # b is team A's plane here; hands still give team A's hand first: A's rock beats B's scissors.
    answer = ok(
        act(
            game["referee"],
            gid,
            {"type": "report_dogfight", "a": "1B1", "b": "1A1", "throws": [{"hands": ["rock", "scissors"]}]},
        )
    )
    (duel,) = answer["view"]["duels"]
    assert duel["shot_down"] == "1B1"


def test_the_report_dogfight_example_pairs_a_team_a_and_a_team_b_order(app: Flask) -> None:
    doc = openapi(app.test_client())
    schema = doc["components"]["schemas"]["Action_report_dogfight"]
    props = schema["properties"]
    assert props["a"]["examples"][0][1] != props["b"]["examples"][0][1]
    for example in schema["examples"]:
        assert validator(doc, "Action_report_dogfight").is_valid(example)
        assert {example["a"][1], example["b"][1]} == {"A", "B"}


def test_every_example_in_the_document_fits_its_schema(app: Flask) -> None:
    doc = openapi(app.test_client())
    examples = [(n, e) for n, schema in doc["components"]["schemas"].items() for e in schema.get("examples", [])]
    assert {n for n, _e in examples} >= {"Action_report_dogfight", "Action_report_bombing"}
    for name, example in examples:
        validator(doc, name).validate(example)


def test_the_answer_to_an_action_has_a_schema_that_names_the_order(app: Flask, game: dict[str, Any]) -> None:
    doc = openapi(app.test_client())
    answer = ok(act(game["A"], game["id"], order("A", "Ann", "fighter", "upper")))
    validator(doc, "ActionAnswer").validate(answer)
    assert "order" in doc["components"]["schemas"]["ActionAnswer"]["properties"]


def battleship_views(app: Flask) -> dict[str, dict[str, Any]]:
    player = app.test_client()
    created = player.post("/api/battleship/games", json={"ruleset": "zeeslag", "opponent": "computer", "first": "A"})
    assert created.status_code == 201, created.get_data(as_text=True)
    gid = created.get_json()["game"]
    return {
        "player": player.get(f"/api/games/{gid}/view").get_json(),
        "referee": referee_client(app).get(f"/api/games/{gid}/view").get_json(),
        "public": app.test_client().get(f"/api/games/{gid}/view").get_json(),
    }


def test_every_roles_view_matches_its_schema_in_both_modes(game: dict[str, Any]) -> None:
    app, gid = game["app"], game["id"]
    doc = openapi(app.test_client())
    ok(act(game["A"], gid, order("A", "Ann", "fighter", "upper")))
    (slip,) = game["A"].get(f"/api/games/{gid}/slips").get_json()["slips"]
    views = {
        "View_airraid_referee": game["referee"].get(f"/api/games/{gid}/view").get_json(),
        "View_airraid_team": game["A"].get(f"/api/games/{gid}/view").get_json(),
        "View_airraid_pilot": app.test_client()
        .get(f"/api/games/{gid}/view", query_string={"slip": slip["code"]})
        .get_json(),
        "View_airraid_public": app.test_client().get(f"/api/games/{gid}/view").get_json(),
        **{f"View_battleship_{role}": view for role, view in battleship_views(app).items()},
    }
    schemas = doc["components"]["schemas"]
    view_ref = doc["paths"]["/api/games/{game_id}/view"]["get"]["responses"]["200"]["content"]["application/json"][
        "schema"
    ]
    whole = Draft202012Validator({**view_ref, "components": doc["components"]})
    for name, view in views.items():
        validator(doc, name).validate(view)
        whole.validate(view)
        # Each schema states the view's top level, not only "an object".
        assert set(schemas[name]["required"]) >= {"mode", "role", "version", "phase"}
        # A view of one role is not taken for another's.
        others = [n for n in views if n != name and validator(doc, n).is_valid(view)]
        assert not others, (name, others)


# --- log.json ---------------------------------------------------------------------------------


def test_log_json_tells_the_referee_which_events_a_void_left_skipped(game: dict[str, Any]) -> None:
    gid = game["id"]
    ok(act(game["referee"], gid, {"type": "start_round"}))  # seq 8
    defender = next(
        e["seq"]
        for e in game["referee"].get(f"/api/games/{gid}/events").get_json()["events"]
        if e["kind"] == "set_defender"
    )
    ok(act(game["referee"], gid, {"type": "void", "seq": defender, "reason": "Amy was not there"}))
    response = game["referee"].get(f"/api/games/{gid}/log.json", headers={"Accept-Language": "en"})
    log = json.loads(response.get_data(as_text=True))
    start = next(e["seq"] for e in log["events"] if e["kind"] == "start_round")
    assert log["voided"] == {str(defender): "Amy was not there"}
    assert log["skipped"] == {str(start): "every team needs this round's defender; missing for Eagles"}
    # The rows stay the stored events, so the file replays as it is.
    assert all(set(e) == {"seq", "kind", "data", "at", "by"} for e in log["events"])
