"""The OpenAPI document of the JSON API, built with apispec and served at /api/openapi.json."""

from __future__ import annotations

from typing import Any

from apispec import APISpec
from flask import Blueprint, Flask, jsonify
from werkzeug.wrappers import Response

from referee import __version__
from referee.rules import MODES
from referee.rules.airraid.schema import ORDER, TEAM
from referee.rules.battleship.schema import PLAYER
from referee.rules.schema import SHIP
from referee.web import modes

bp = Blueprint("openapi", __name__)

# The air raid's action names came first in this document: its schemas keep their plain names,
# every other mode's are named `<mode>_<kind>`.
PLAIN_MODE = "airraid"


def actions() -> dict[str, dict[str, Any]]:
    """Return every registered mode's action schemas (the modes supply them), by component name."""
    return {
        (kind if mode.name == PLAIN_MODE else f"{mode.name}_{kind}"): dict(schema)
        for mode in MODES.values()
        for kind, schema in mode.action_schemas.items()
    }


ACTIONS = actions()

ERROR = {
    "type": "object",
    "properties": {"error": {"type": "string"}, "message": {"type": "string"}},
    "required": ["error", "message"],
}

OBJECT = {"type": "object", "additionalProperties": True}
LIST = {"type": "array"}
TEXT = {"type": "string"}
MAYBE_TEXT = {"type": ["string", "null"]}
MAYBE_OBJECT = {"type": ["object", "null"], "additionalProperties": True}
EVENT: dict[str, Any] = {
    "type": "object",
    "description": "One stored event: the action as sent (less `type` and `version`) plus what the rules bound to it "
    "(an add_order's `id` and `position`, the bomber an announcement by square was matched to).",
    "properties": {
        "seq": {"type": "integer", "minimum": 1},
        "kind": TEXT,
        "data": OBJECT,
        "at": {"type": "number"},
        "by": {"type": "string", "examples": ["team:A"]},
    },
    "required": ["seq", "kind", "data", "at", "by"],
    "additionalProperties": False,
}
REFEREE_LOG_ROW = {
    "type": "object",
    "description": "A log row of the referee's view: the event, what it did, and whether a void undid or skipped it.",
    "properties": {
        **EVENT["properties"],
        "notes": LIST,
        "voided": {**MAYBE_TEXT, "description": "Why a void undid this event, or null"},
        "skipped": {
            **MAYBE_TEXT,
            "description": "Why this event no longer applies after a void (it stays in the log, without effect), "
            "or null",
        },
        "device": {**MAYBE_TEXT, "description": "The name of the phone that sent it"},
    },
    "required": ["seq", "kind", "data", "at", "by", "notes", "voided", "skipped"],
    "additionalProperties": True,
}


def _view(mode: str, role: dict[str, Any], about: str, props: dict[str, Any]) -> dict[str, Any]:
    """The top level of one role's view of one mode: every key it always has; views may grow."""
    if mode == "airraid":
        common = {
            "version": {"type": "integer"},
            "phase": {"type": "string", "enum": ["setup", "playing", "over"]},
            "ruleset": OBJECT,
            "round": OBJECT,
            "teams": {"type": "object", "properties": {"A": OBJECT, "B": OBJECT}, "required": ["A", "B"]},
            "outcome": MAYBE_OBJECT,
        }
    else:
        common = {
            "version": {"type": "integer"},
            "phase": {"type": "string", "enum": ["placing", "playing", "over"]},
            "me": {"type": ["string", "null"], "enum": ["A", "B", None]},
            "ruleset": OBJECT,
            "hotseat": {"type": "boolean"},
            "first": PLAYER,
            "turn": {"type": ["string", "null"], "enum": ["A", "B", None]},
            "shots_due": {"type": "integer", "minimum": 0},
            "turns": {"type": "integer", "minimum": 0},
            "players": {"type": "object", "properties": {"A": OBJECT, "B": OBJECT}, "required": ["A", "B"]},
            "boards": {"type": "object", "properties": {"A": OBJECT, "B": OBJECT}, "required": ["A", "B"]},
            "volleys": {"type": "object", "properties": {"A": LIST, "B": LIST}, "required": ["A", "B"]},
            "last": MAYBE_OBJECT,
            "outcome": MAYBE_OBJECT,
            "actions": {
                **LIST,
                "description": "What the role may do now (the web layer drops a fire action's squares)",
            },
        }
    properties = {"mode": {"type": "string", "const": mode}, "role": role, **common, **props}
    # A key that is only sometimes there (a Battleship view's `game`, added by the web layer) is not required.
    optional = {"game"}
    return {
        "type": "object",
        "description": about,
        "properties": properties,
        "required": [k for k in properties if k not in optional],
        "additionalProperties": True,
    }


VIEWS: dict[str, dict[str, Any]] = {
    "airraid_referee": _view(
        "airraid",
        {"type": "string", "const": "referee"},
        "Air raid, the referee: everything (referee.rules.airraid.view_for).",
        {
            "seas": {"type": "object", "properties": {"A": OBJECT, "B": OBJECT}, "required": ["A", "B"]},
            "rosters": OBJECT,
            "defenders": OBJECT,
            "orders": LIST,
            "corridors": LIST,
            "duels": LIST,
            "reports": OBJECT,
            "conflicts": LIST,
            "bombings": LIST,
            "ledger": OBJECT,
            "trophies": LIST,
            "log": {"type": "array", "items": REFEREE_LOG_ROW},
            "legal": LIST,
        },
    ),
    "airraid_team": _view(
        "airraid",
        {"type": "string", "pattern": "^team:[AB]$"},
        "Air raid, a team base: its own sea and orders, the enemy sea as shot at.",
        {
            "team": TEAM,
            "players": LIST,
            "fleet_kinds": OBJECT,
            "sea": OBJECT,
            "enemy_sea": OBJECT,
            "defender": MAYBE_TEXT,
            "orders": LIST,
            "past_orders": LIST,
            "options": OBJECT,
            "bombers_at_base": LIST,
            "ledger": OBJECT,
            "trophies": LIST,
            "log": LIST,
            "legal": LIST,
        },
    ),
    "airraid_pilot": _view(
        "airraid",
        {"type": "string", "pattern": "^pilot:"},
        "Air raid, a pilot (by slip): the order, the plane it meets next, its bombing.",
        {
            "team": TEAM,
            "order": OBJECT,
            "current": {"type": "boolean"},
            "next": MAYBE_OBJECT,
            "bombing": MAYBE_OBJECT,
            "legal": LIST,
        },
    ),
    "airraid_public": _view(
        "airraid",
        {"type": "string", "const": "public"},
        "Air raid, the projector: scores, the clock, the latest public events.",
        {"log": LIST},
    ),
    "battleship_player": _view(
        "battleship",
        {"type": "string", "pattern": "^player:[AB]$"},
        "Battleship, a player: its own fleet and the shots at it, its volleys as told "
        "(referee.rules.battleship.view_for).",
        {"game": TEXT},
    ),
    "battleship_referee": _view(
        "battleship", {"type": "string", "const": "referee"}, "Battleship, the referee: both fleets.", {"game": TEXT}
    ),
    "battleship_public": _view(
        "battleship",
        {"type": "string", "const": "public"},
        "Battleship, a watcher: both seas' shots as told, no ship until the end.",
        {"game": TEXT},
    ),
}
VIEW = {"oneOf": [{"$ref": f"#/components/schemas/View_{name}"} for name in VIEWS]}
ACTION_ANSWER = {
    "type": "object",
    "properties": {
        "ok": {"type": "boolean", "const": True},
        "duplicate": {
            "type": "boolean",
            "description": "A retry of a client_id already applied: the original's events",
        },
        "seq": {"type": "integer", "description": "The game's version after the action"},
        "events": {
            "type": "array",
            "items": {"$ref": "#/components/schemas/Event"},
            "description": "The events the action wrote",
        },
        "order": {
            **ORDER,
            "description": "The order the action made (add_order: the new order's id) "
            "or matched (announce_bombing by square)",
        },
        "view": {
            **VIEW,
            "description": "The caller's view after the action (and after the computer's turn, in Battleship)",
        },
    },
    "required": ["ok", "duplicate", "seq", "events", "view"],
    "additionalProperties": False,
}
SLIP = {
    "type": "object",
    "properties": {
        "order": ORDER,
        "code": {
            "type": "string",
            "description": "The slip's code, as pilots pass it in `slip`; the end of `url`",
            "examples": ["BUTWgfiS7XLh.1A1.hilt0Ae-fa9MXmfl"],
        },
        "url": {"type": "string", "description": "The pilot's page, /s/<code>"},
        "pilot": TEXT,
        "team": TEAM,
        "team_name": TEXT,
        "kind": {"type": "string", "enum": ["fighter", "bomber"]},
        "ship": TEXT,
        "ship_kind": TEXT,
        "corridor": TEXT,
        "position": {"type": "integer"},
        "label": TEXT,
        "round": {"type": "integer"},
        "target": MAYBE_TEXT,
    },
    "required": [
        "order",
        "code",
        "url",
        "pilot",
        "team",
        "kind",
        "ship",
        "corridor",
        "position",
        "label",
        "round",
        "target",
    ],
    "additionalProperties": True,
}
REASONS = {"type": "object", "additionalProperties": {"type": "string"}, "propertyNames": {"pattern": "^[0-9]+$"}}
LOG_JSON = {
    "type": "object",
    "properties": {
        "game": TEXT,
        "events": {
            "type": "array",
            "items": {"$ref": "#/components/schemas/Event"},
            "description": "The stored log, every event as stored: it replays as it is",
        },
        "voided": {**REASONS, "description": "seq → why a void undid that event"},
        "skipped": {
            **REASONS,
            "description": "seq → why that event no longer applies after a void (it stays in the log, without effect)",
        },
        "outcome": MAYBE_OBJECT,
    },
    "required": ["game", "events", "voided", "skipped", "outcome"],
}
GAME_ID = {"name": "game_id", "in": "path", "required": True, "schema": {"type": "string", "maxLength": 32}}


def json_body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


def refusals(*codes: int) -> dict[str, Any]:
    words = {
        400: "Malformed input",
        403: "Not allowed for this role",
        404: "No such game",
        409: "Refused by the rules",
        410: "The game has expired",
    }
    return {str(c): {"description": words[c], **json_body({"$ref": "#/components/schemas/Error"})} for c in codes}


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
    spec.components.schema("Event", EVENT)
    every_action = actions()
    for name, schema in every_action.items():
        spec.components.schema(f"Action_{name}", schema)
    for name, schema in VIEWS.items():
        spec.components.schema(f"View_{name}", schema)
    spec.components.schema("ActionAnswer", ACTION_ANSWER)
    action_ref = {"oneOf": [{"$ref": f"#/components/schemas/Action_{n}"} for n in every_action]}
    view = VIEW
    team_spec = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "maxLength": 40},
            "colour": {"type": "string", "pattern": "^#[0-9A-Fa-f]{6}$"},
            "players": {"type": "array", "items": {"type": "string", "maxLength": 40}, "minItems": 1, "maxItems": 30},
        },
        "required": ["name", "players"],
    }
    spec.path(
        path="/api/games",
        operations={
            "post": {
                "summary": "Create a game (referee)",
                "requestBody": {
                    "required": True,
                    **json_body(
                        {
                            "type": "object",
                            "properties": {
                                "teams": {"type": "array", "items": team_spec, "minItems": 2, "maxItems": 2},
                                "sea_size": {"type": "integer", "minimum": 2, "maximum": 26},
                                "round_seconds": {"type": "integer", "minimum": 10, "maximum": 3600},
                                "ruleset_toml": {"type": "string"},
                            },
                            "required": ["teams"],
                        }
                    ),
                },
                "responses": {
                    "201": {
                        "description": "Created",
                        **json_body(
                            {"type": "object", "properties": {"game": {"type": "string"}, "links": {"type": "object"}}}
                        ),
                    },
                    **refusals(400, 403, 409),
                },
            }
        },
    )
    spec.path(
        path="/api/modes/{mode}/games",
        operations={
            "post": {
                "summary": "Create a game of any registered mode (the referee)",
                "description": "The generic way to start a game: the body carries the mode's create_game action. "
                "The air raid (POST /api/games) and Battleship (POST /api/battleship/games) also have their own forms.",
                "parameters": [
                    {"name": "mode", "in": "path", "required": True, "schema": {"type": "string", "maxLength": 40}}
                ],
                "requestBody": {
                    "required": True,
                    **json_body(
                        {
                            "type": "object",
                            "properties": {"action": {"type": "object", "additionalProperties": True}},
                            "required": ["action"],
                        }
                    ),
                },
                "responses": {
                    "201": {
                        "description": "The game was made",
                        **json_body(
                            {
                                "type": "object",
                                "properties": {
                                    "game": {"type": "string"},
                                    "mode": {"type": "string"},
                                    "seq": {"type": "integer"},
                                },
                                "required": ["game", "mode", "seq"],
                            }
                        ),
                    },
                    **refusals(400, 403, 409),
                },
            }
        },
    )
    spec.path(
        path="/api/games/{game_id}/view",
        operations={
            "get": {
                "summary": "The caller's view",
                "parameters": [GAME_ID, {"name": "slip", "in": "query", "schema": {"type": "string"}}],
                "responses": {"200": {"description": "View", **json_body(view)}, **refusals(403, 404)},
            }
        },
    )
    spec.path(
        path="/api/games/{game_id}/actions",
        operations={
            "post": {
                "summary": "Apply one action as the caller's role",
                "parameters": [GAME_ID],
                "requestBody": {
                    "required": True,
                    **json_body(
                        {
                            "type": "object",
                            "properties": {
                                "action": action_ref,
                                "client_id": {"type": "string", "minLength": 1, "maxLength": 64},
                                "version": {"type": "integer"},
                                "slip": {"type": "string"},
                            },
                            "required": ["action"],
                        }
                    ),
                },
                "responses": {
                    "200": {"description": "Applied", **json_body({"$ref": "#/components/schemas/ActionAnswer"})},
                    **refusals(400, 403, 404, 409),
                },
            }
        },
    )
    spec.path(
        path="/api/games/{game_id}/events",
        operations={
            "get": {
                "summary": "Events after a seq (referee; anyone after the game)",
                "parameters": [GAME_ID, {"name": "since", "in": "query", "schema": {"type": "integer", "minimum": 0}}],
                "responses": {
                    "200": {
                        "description": "Events",
                        **json_body(
                            {
                                "type": "object",
                                "properties": {
                                    "events": {"type": "array", "items": {"$ref": "#/components/schemas/Event"}}
                                },
                                "required": ["events"],
                            }
                        ),
                    },
                    **refusals(400, 403, 404),
                },
            }
        },
    )
    for name, about in (
        ("check", "Check a draft sea, of an air-raid team or a Battleship player; nothing is stored"),
        ("random", "A random legal fleet, of an air-raid team or a Battleship player; nothing is stored"),
    ):
        # The side as its mode names it: an air-raid team or a Battleship player (a mode with no
        # fleets to place answers 404).
        props: dict[str, Any] = {"team": TEAM, "player": PLAYER}
        if name == "check":
            props["ships"] = {"type": "array", "items": SHIP, "maxItems": 26}
        spec.path(
            path=f"/api/games/{{game_id}}/sea/{name}",
            operations={
                "post": {
                    "summary": about,
                    "parameters": [GAME_ID],
                    "requestBody": {
                        "required": True,
                        **json_body(
                            {
                                "type": "object",
                                "properties": props,
                                "required": ["ships"] if name == "check" else [],
                                "oneOf": [{"required": ["team"]}, {"required": ["player"]}],
                            }
                        ),
                    },
                    "responses": {
                        "200": {"description": "Answer", **json_body({"type": "object"})},
                        **refusals(400, 403, 404, 409, 410),
                    },
                }
            },
        )
    spec.path(
        path="/api/games/{game_id}/devices",
        operations={
            "get": {
                "summary": "Joined phones (referee)",
                "parameters": [GAME_ID],
                "responses": {"200": {"description": "Devices", **json_body({"type": "object"})}, **refusals(403, 404)},
            }
        },
    )
    device_id = {"name": "device_id", "in": "path", "required": True, "schema": {"type": "string", "maxLength": 32}}
    spec.path(
        path="/api/games/{game_id}/devices/{device_id}",
        operations={
            "post": {
                "summary": "Rename a phone (referee)",
                "parameters": [GAME_ID, device_id],
                "requestBody": {
                    "required": True,
                    **json_body(
                        {
                            "type": "object",
                            "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 40}},
                            "required": ["name"],
                        }
                    ),
                },
                "responses": {
                    "200": {"description": "Renamed", **json_body({"type": "object"})},
                    **refusals(400, 403, 404),
                },
            },
            "delete": {
                "summary": "Revoke a phone (referee)",
                "parameters": [GAME_ID, device_id],
                "responses": {"200": {"description": "Revoked", **json_body({"type": "object"})}, **refusals(403, 404)},
            },
        },
    )
    spec.path(
        path="/api/games/{game_id}/teams/{team}/join-link",
        operations={
            "post": {
                "summary": "Re-issue a team's join link (referee)",
                "parameters": [GAME_ID, {"name": "team", "in": "path", "required": True, "schema": TEAM}],
                "responses": {
                    "200": {"description": "New link", **json_body({"type": "object"})},
                    **refusals(403, 404),
                },
            }
        },
    )
    spec.path(
        path="/api/games/{game_id}/slips",
        operations={
            "get": {
                "summary": "A round's order slips",
                "parameters": [GAME_ID, {"name": "round", "in": "query", "schema": {"type": "integer", "minimum": 1}}],
                "responses": {
                    "200": {
                        "description": "Slips",
                        **json_body(
                            {
                                "type": "object",
                                "properties": {"slips": {"type": "array", "items": SLIP}},
                                "required": ["slips"],
                            }
                        ),
                    },
                    **refusals(400, 403, 404),
                },
            }
        },
    )
    for ext, mime in (("json", "application/json"), ("csv", "text/csv")):
        spec.path(
            path=f"/api/games/{{game_id}}/log.{ext}",
            operations={
                "get": {
                    "summary": f"Download the log as {ext.upper()}",
                    "parameters": [GAME_ID],
                    "responses": {
                        "200": {
                            "description": "Log",
                            "content": {mime: {"schema": {"type": "string"} if ext == "csv" else LOG_JSON}},
                        },
                        **refusals(403, 404),
                    },
                }
            },
        )
    text = {"type": "string"}
    for name, summary in (
        ("pilots", "The air raid's pilots as a spreadsheet: one row per pilot (sorties, dogfights, bombs, hits…)"),
        ("events", "The air raid's moments as a spreadsheet: round, time, corridor, who, what, result (no JSON)"),
    ):
        spec.path(
            path=f"/api/games/{{game_id}}/{name}.csv",
            operations={
                "get": {
                    "summary": summary,
                    "description": "In the page's language, UTF-8 with a byte-order mark; separated by ';' where the "
                    "language writes decimals with a comma (cs, sv, nl, nb), else ','. The referee at any time, "
                    "everyone once the game is over.",
                    "parameters": [GAME_ID],
                    "responses": {
                        "200": {"description": name.capitalize(), "content": {"text/csv": {"schema": text}}},
                        **refusals(403, 404),
                    },
                }
            },
        )
    for web_side in modes.web_sides():  # each mode's own routes
        if hasattr(web_side, "openapi_paths"):
            web_side.openapi_paths(spec)
    spec.path(
        path="/api/health",
        operations={
            "get": {
                "summary": "Health",
                "responses": {
                    "200": {"description": "OK", **json_body({"type": "object"})},
                    "503": {"description": "Database down"},
                },
            }
        },
    )
    return spec.to_dict()


@bp.get("/api/openapi.json")
def openapi_json() -> Response:
    """Serve the OpenAPI document."""
    return jsonify(build_spec())


def init_app(app: Flask) -> None:
    """Register the OpenAPI endpoint."""
    app.register_blueprint(bp)
