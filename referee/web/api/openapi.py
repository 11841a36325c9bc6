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


def view_schema(mode: str, role: dict[str, Any], about: str, props: dict[str, Any]) -> dict[str, Any]:
    """The top level of one role's view of one mode (`props`: every key it always has); views may grow."""
    properties = {"mode": {"type": "string", "const": mode}, "role": role, **props}
    # A key that is only sometimes there (a Battleship view's `game`, added by the web layer) is not required.
    optional = {"game"}
    return {
        "type": "object",
        "description": about,
        "properties": properties,
        "required": [k for k in properties if k not in optional],
        "additionalProperties": True,
    }


def action_answer(view: dict[str, Any]) -> dict[str, Any]:
    """The answer to an action, with the caller's view (one of every mode's views)."""
    return {
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
                **view,
                "description": "The caller's view after the action (and after the computer's turn, in Battleship)",
            },
        },
        "required": ["ok", "duplicate", "seq", "events", "view"],
        "additionalProperties": False,
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
    sides = modes.web_sides()
    views = {
        name: schema
        for side in sides
        if hasattr(side, "openapi_views")
        for name, schema in side.openapi_views().items()
    }
    for name, schema in views.items():
        spec.components.schema(f"View_{name}", schema)
    view = {"oneOf": [{"$ref": f"#/components/schemas/View_{name}"} for name in views]}
    spec.components.schema("ActionAnswer", action_answer(view))
    action_ref = {"oneOf": [{"$ref": f"#/components/schemas/Action_{n}"} for n in every_action]}
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
    for web_side in sides:  # each mode's own routes
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
    reach = {
        "type": "object",
        "properties": {
            "address": {"type": "string"},
            "from": {"type": "string"},
            "device": {"type": "string"},
            "seconds_ago": {"type": "integer"},
        },
    }
    spec.path(
        path="/api/reach",
        operations={
            "get": {
                "summary": "The phones that opened /help/reach in the last ten minutes, newest first",
                "responses": {
                    "200": {
                        "description": "OK",
                        **json_body({"type": "object", "properties": {"reaches": {"type": "array", "items": reach}}}),
                    }
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
