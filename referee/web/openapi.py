"""The OpenAPI document of the JSON API, built with apispec and served at /api/openapi.json."""

from __future__ import annotations

from typing import Any

from apispec import APISpec
from flask import Blueprint, Flask, jsonify
from werkzeug.wrappers import Response

from referee import __version__

bp = Blueprint("openapi", __name__)

SQUARE = {"type": "string", "pattern": "^[A-Za-z][0-9]{1,2}$", "example": "C4"}
TEAM = {"type": "string", "enum": ["A", "B"]}
ORDER = {"type": "string", "maxLength": 20, "example": "1A2"}
THROW = {
    "oneOf": [
        {"type": "object", "properties": {"winner": {"type": "string", "enum": ["A", "B", "bomber", "ship", "tie"]}}, "required": ["winner"], "additionalProperties": False},
        {"type": "object", "properties": {"hands": {"type": "array", "items": {"type": "string", "enum": ["rock", "paper", "scissors"]}, "minItems": 2, "maxItems": 2}}, "required": ["hands"], "additionalProperties": False},
    ]
}
PLAYER = {"type": "string", "enum": ["A", "B"]}
SHIP = {"type": "object", "properties": {"id": {"type": "string"}, "kind": {"type": "string"}, "squares": {"type": "array", "items": SQUARE}}, "required": ["kind", "squares"]}


def _action(kind: str, props: dict[str, Any], required: list[str], about: str) -> dict[str, Any]:
    return {
        "type": "object",
        "description": about,
        "properties": {"type": {"type": "string", "const": kind}, **props},
        "required": ["type", *required],
        "additionalProperties": False,
    }


ACTIONS: dict[str, dict[str, Any]] = {
    "lock_sea": _action("lock_sea", {"team": TEAM, "ships": {"type": "array", "items": SHIP}}, ["team", "ships"], "Lock a team's sea (its whole fleet)."),
    "unlock_sea": _action("unlock_sea", {"team": TEAM}, ["team"], "Unlock a team's sea before the game starts."),
    "set_players": _action("set_players", {"team": TEAM, "players": {"type": "array", "items": {"type": "string"}}}, ["team", "players"], "Set a team's roster."),
    "start_game": _action("start_game", {}, [], "Start the game (referee; both seas locked)."),
    "set_defender": _action("set_defender", {"team": TEAM, "pilot": {"type": "string"}}, ["team", "pilot"], "Pick this round's defender."),
    "add_order": _action(
        "add_order",
        {"team": TEAM, "pilot": {"type": "string"}, "kind": {"type": "string", "enum": ["fighter", "bomber"]}, "ship": {"type": "string"}, "corridor": {"type": "string"}, "position": {"type": "integer", "minimum": 1}, "target": SQUARE},
        ["team", "pilot", "kind", "ship", "corridor"],
        "Write a pilot's order: plane, corridor, take-off position, and a target for a bomber.",
    ),
    "remove_order": _action("remove_order", {"order": ORDER}, ["order"], "Remove an order while planning."),
    "start_round": _action("start_round", {}, [], "Start the round: orders lock, planes take off, the clock runs (referee)."),
    "report_dogfight": _action(
        "report_dogfight",
        {"a": ORDER, "b": ORDER, "throws": {"type": "array", "items": THROW, "maxItems": 50}, "choice": {"type": "string", "enum": ["pass", "continue"]}},
        ["a", "b"],
        "Report a dogfight (a pilot of it, or the referee).",
    ),
    "confirm_dogfight": _action("confirm_dogfight", {"a": ORDER, "b": ORDER}, ["a", "b"], "Confirm the other pilot's report."),
    "announce_bombing": _action("announce_bombing", {"order": ORDER, "target": SQUARE, "team": TEAM}, [], "A bomber names its target: water, fight or already hit."),
    "report_bombing": _action(
        "report_bombing",
        {"order": ORDER, "throws": {"type": "array", "items": THROW, "maxItems": 50}, "choice": {"type": "string", "enum": ["leave", "continue"]}},
        ["order"],
        "Enter the fight of ship and bomber.",
    ),
    "pause_timer": _action("pause_timer", {}, [], "Pause the round clock (referee)."),
    "resume_timer": _action("resume_timer", {}, [], "Resume the round clock (referee)."),
    "adjust_timer": _action("adjust_timer", {"seconds": {"type": "number", "minimum": -3600, "maximum": 3600}}, ["seconds"], "Add or take away time (referee)."),
    "end_round": _action("end_round", {}, [], "End the round (referee)."),
    "surrender": _action("surrender", {"team": TEAM}, ["team"], "Surrender."),
    "forfeit": _action("forfeit", {"team": TEAM, "reason": {"type": "string"}}, ["team", "reason"], "Declare a forfeit (referee)."),
    "end_game": _action("end_game", {"reason": {"type": "string"}}, [], "End the game, decided by the tie-breaks (referee)."),
    "void": _action("void", {"seq": {"type": "integer", "minimum": 2}, "reason": {"type": "string"}}, ["seq", "reason"], "Void an earlier event; the state is recomputed (referee)."),
    # Battleship (Zeeslag, Sjøslag): the same actions route, a game of mode "battleship".
    "battleship_place_fleet": _action("place_fleet", {"player": PLAYER, "ships": {"type": "array", "items": SHIP}, "sea": {"type": "string", "maxLength": 2000}}, ["player"], "Battleship: place a player's whole fleet (ships, or a sea text)."),
    "battleship_fire": _action("fire", {"player": PLAYER, "squares": {"type": "array", "items": SQUARE, "minItems": 1, "maxItems": 100}, "version": {"type": "integer"}}, ["player", "squares"], "Battleship: fire one turn's shots (a salvo sends all its squares)."),
    "battleship_forfeit": _action("forfeit", {"player": PLAYER, "reason": {"type": "string", "maxLength": 300}}, ["player"], "Battleship: a player resigns, or the referee records a forfeit."),
}

ERROR = {"type": "object", "properties": {"error": {"type": "string"}, "message": {"type": "string"}}, "required": ["error", "message"]}
GAME_ID = {"name": "game_id", "in": "path", "required": True, "schema": {"type": "string", "maxLength": 32}}


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


def _refusals(*codes: int) -> dict[str, Any]:
    words = {400: "Malformed input", 403: "Not allowed for this role", 404: "No such game", 409: "Refused by the rules"}
    return {str(c): {"description": words[c], **_json({"$ref": "#/components/schemas/Error"})} for c in codes}


def build_spec() -> dict[str, Any]:
    """Build the OpenAPI document of every JSON endpoint."""
    spec = APISpec(
        title="referee",
        version=__version__,
        openapi_version="3.1.0",
        info={
            "description": "Referee a live air-raid game. Authenticate with the cookie a token link gives "
            "(referee: the link `referee serve` prints; teams: their join link; pilots pass `slip`)."
        },
    )
    spec.components.schema("Error", ERROR)
    for name, schema in ACTIONS.items():
        spec.components.schema(f"Action_{name}", schema)
    action_ref = {"oneOf": [{"$ref": f"#/components/schemas/Action_{n}"} for n in ACTIONS]}
    view = {"type": "object", "description": "The caller's view (see referee.rules.airraid.view_for)", "additionalProperties": True}
    team_spec = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 40}, "colour": {"type": "string", "pattern": "^#[0-9A-Fa-f]{6}$"}, "players": {"type": "array", "items": {"type": "string", "maxLength": 40}, "minItems": 1, "maxItems": 30}}, "required": ["name", "players"]}
    spec.path(
        path="/api/games",
        operations={
            "post": {
                "summary": "Create a game (referee)",
                "requestBody": {"required": True, **_json({"type": "object", "properties": {"teams": {"type": "array", "items": team_spec, "minItems": 2, "maxItems": 2}, "sea_size": {"type": "integer", "minimum": 2, "maximum": 26}, "round_seconds": {"type": "integer", "minimum": 10, "maximum": 3600}, "ruleset_toml": {"type": "string"}}, "required": ["teams"]})},
                "responses": {"201": {"description": "Created", **_json({"type": "object", "properties": {"game": {"type": "string"}, "links": {"type": "object"}}})}, **_refusals(400, 403, 409)},
            }
        },
    )
    spec.path(path="/api/games/{game_id}/view", operations={"get": {"summary": "The caller's view", "parameters": [GAME_ID, {"name": "slip", "in": "query", "schema": {"type": "string"}}], "responses": {"200": {"description": "View", **_json(view)}, **_refusals(403, 404)}}})
    spec.path(
        path="/api/games/{game_id}/actions",
        operations={
            "post": {
                "summary": "Apply one action as the caller's role",
                "parameters": [GAME_ID],
                "requestBody": {"required": True, **_json({"type": "object", "properties": {"action": action_ref, "client_id": {"type": "string", "minLength": 1, "maxLength": 64}, "version": {"type": "integer"}, "slip": {"type": "string"}}, "required": ["action"]})},
                "responses": {"200": {"description": "Applied", **_json({"type": "object", "properties": {"ok": {"type": "boolean"}, "seq": {"type": "integer"}, "events": {"type": "array", "items": {"type": "object"}}, "view": view}})}, **_refusals(400, 403, 404, 409)},
            }
        },
    )
    spec.path(path="/api/games/{game_id}/events", operations={"get": {"summary": "Events after a seq (referee; anyone after the game)", "parameters": [GAME_ID, {"name": "since", "in": "query", "schema": {"type": "integer", "minimum": 0}}], "responses": {"200": {"description": "Events", **_json({"type": "object"})}, **_refusals(400, 403, 404)}}})
    for name, about in (("check", "Check a draft sea; nothing is stored"), ("random", "A random legal fleet; nothing is stored")):
        props: dict[str, Any] = {"team": TEAM}
        if name == "check":
            props["ships"] = {"type": "array", "items": SHIP}
        spec.path(path=f"/api/games/{{game_id}}/sea/{name}", operations={"post": {"summary": about, "parameters": [GAME_ID], "requestBody": {"required": True, **_json({"type": "object", "properties": props, "required": list(props)})}, "responses": {"200": {"description": "Answer", **_json({"type": "object"})}, **_refusals(400, 403, 404)}}})
    spec.path(path="/api/games/{game_id}/devices", operations={"get": {"summary": "Joined phones (referee)", "parameters": [GAME_ID], "responses": {"200": {"description": "Devices", **_json({"type": "object"})}, **_refusals(403, 404)}}})
    device_id = {"name": "device_id", "in": "path", "required": True, "schema": {"type": "string", "maxLength": 32}}
    spec.path(
        path="/api/games/{game_id}/devices/{device_id}",
        operations={
            "post": {"summary": "Rename a phone (referee)", "parameters": [GAME_ID, device_id], "requestBody": {"required": True, **_json({"type": "object", "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 40}}, "required": ["name"]})}, "responses": {"200": {"description": "Renamed", **_json({"type": "object"})}, **_refusals(400, 403, 404)}},
            "delete": {"summary": "Revoke a phone (referee)", "parameters": [GAME_ID, device_id], "responses": {"200": {"description": "Revoked", **_json({"type": "object"})}, **_refusals(403, 404)}},
        },
    )
    spec.path(path="/api/games/{game_id}/teams/{team}/join-link", operations={"post": {"summary": "Re-issue a team's join link (referee)", "parameters": [GAME_ID, {"name": "team", "in": "path", "required": True, "schema": TEAM}], "responses": {"200": {"description": "New link", **_json({"type": "object"})}, **_refusals(403, 404)}}})
    spec.path(path="/api/games/{game_id}/slips", operations={"get": {"summary": "A round's order slips", "parameters": [GAME_ID, {"name": "round", "in": "query", "schema": {"type": "integer", "minimum": 1}}], "responses": {"200": {"description": "Slips", **_json({"type": "object"})}, **_refusals(400, 403, 404)}}})
    for ext, mime in (("json", "application/json"), ("csv", "text/csv")):
        spec.path(path=f"/api/games/{{game_id}}/log.{ext}", operations={"get": {"summary": f"Download the log as {ext.upper()}", "parameters": [GAME_ID], "responses": {"200": {"description": "Log", "content": {mime: {"schema": {"type": "string"} if ext == "csv" else {"type": "object"}}}}, **_refusals(403, 404)}}})
    _battleship_paths(spec, view)
    spec.path(path="/api/health", operations={"get": {"summary": "Health", "responses": {"200": {"description": "OK", **_json({"type": "object"})}, "503": {"description": "Database down"}}}})
    return spec.to_dict()


def _battleship_paths(spec: APISpec, view: dict[str, Any]) -> None:
    """The Battleship routes (referee/web/battleship.py); play goes through /api/games/{game_id}/actions."""
    created = {"type": "object", "properties": {"game": {"type": "string"}, "links": {"type": "object"}}}
    new_game = {
        "type": "object",
        "properties": {
            "ruleset": {"type": "string", "enum": ["zeeslag", "zeeslag-salvo", "sjoslag"]},
            "opponent": {"type": "string", "enum": ["friend", "computer", "hotseat"]},
            "name": {"type": "string", "maxLength": 40}, "opponent_name": {"type": "string", "maxLength": 40},
            "level": {"type": "string", "enum": ["easy", "strong"]}, "first": {"type": "string", "enum": ["A", "B", "coin"]},
            "per_shot": {"type": "boolean"},
        },
    }
    spec.path(path="/api/battleship/games", operations={"post": {"summary": "Battleship: start a game; the caller's browser becomes player A (both sides for pass-and-play)", "requestBody": {"required": True, **_json(new_game)}, "responses": {"201": {"description": "Created", **_json(created)}, **_refusals(400, 409)}}})
    for name, about in (("check", "Battleship: check a draft fleet; nothing is stored"), ("random", "Battleship: a random legal fleet; nothing is stored")):
        props: dict[str, Any] = {"player": PLAYER}
        if name == "check":
            props["ships"] = {"type": "array", "items": SHIP, "maxItems": 26}
        spec.path(path=f"/api/battleship/games/{{game_id}}/sea/{name}", operations={"post": {"summary": about, "parameters": [GAME_ID], "requestBody": {"required": True, **_json({"type": "object", "properties": props, "required": list(props)})}, "responses": {"200": {"description": "Answer", **_json({"type": "object"})}, **_refusals(400, 403, 404)}}})
    spec.path(path="/api/battleship/games/{game_id}/rematch", operations={"post": {"summary": "Battleship: start or join the rematch of a finished game (a player)", "parameters": [GAME_ID], "responses": {"200": {"description": "The rematch", **_json(created)}, **_refusals(403, 404, 409)}}})
    spec.path(path="/api/battleship/scores", operations={"get": {"summary": "Battleship: the scoreboard of the evening (wins per player name)", "responses": {"200": {"description": "Scores", **_json({"type": "object"})}}}})


@bp.get("/api/openapi.json")
def openapi_json() -> Response:
    """Serve the OpenAPI document."""
    return jsonify(build_spec())


def init_app(app: Flask) -> None:
    """Register the OpenAPI endpoint."""
    app.register_blueprint(bp)
