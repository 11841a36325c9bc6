"""The air raid's part of the OpenAPI document: its four views, and its own routes."""

from __future__ import annotations

from typing import Any

from apispec import APISpec

from referee.rules.airraid.schema import ORDER, TEAM
from referee.web.api.openapi import (
    EVENT,
    GAME_ID,
    LIST,
    MAYBE_OBJECT,
    MAYBE_TEXT,
    OBJECT,
    TEXT,
    json_body,
    refusals,
    view_schema,
)

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

# Every air-raid view has these keys.
COMMON: dict[str, Any] = {
    "version": {"type": "integer"},
    "phase": {"type": "string", "enum": ["setup", "playing", "over"]},
    "ruleset": OBJECT,
    "round": OBJECT,
    "teams": {"type": "object", "properties": {"A": OBJECT, "B": OBJECT}, "required": ["A", "B"]},
    "outcome": MAYBE_OBJECT,
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


def openapi_views() -> dict[str, dict[str, Any]]:
    """The air raid's view of each role, by component name (`View_<name>`)."""
    return {
        "airraid_referee": view_schema(
            "airraid",
            {"type": "string", "const": "referee"},
            "Air raid, the referee: everything (referee.rules.airraid.view_for).",
            {
                **COMMON,
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
        "airraid_team": view_schema(
            "airraid",
            {"type": "string", "pattern": "^team:[AB]$"},
            "Air raid, a team base: its own sea and orders, the enemy sea as shot at.",
            {
                **COMMON,
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
        "airraid_pilot": view_schema(
            "airraid",
            {"type": "string", "pattern": "^pilot:"},
            "Air raid, a pilot (by slip): the order, the plane it meets next, its bombing.",
            {
                **COMMON,
                "team": TEAM,
                "order": OBJECT,
                "current": {"type": "boolean"},
                "next": MAYBE_OBJECT,
                "bombing": MAYBE_OBJECT,
                "legal": LIST,
            },
        ),
        "airraid_public": view_schema(
            "airraid",
            {"type": "string", "const": "public"},
            "Air raid, the projector: scores, the clock, the latest public events.",
            {**COMMON, "log": LIST},
        ),
    }


def openapi_paths(spec: APISpec) -> None:
    """The air raid's own routes (referee/web/modes/airraid/): its form, slips, join links, spreadsheets."""
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
                                "practice": {"type": "boolean"},
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
    spec.path(
        path="/api/games/{game_id}/practice",
        operations={
            "post": {
                "summary": "Set the pace of a practice game's simulated players (referee): 0 stops them",
                "parameters": [GAME_ID],
                "requestBody": {
                    "required": True,
                    **json_body(
                        {
                            "type": "object",
                            "properties": {"seconds": {"type": "integer", "enum": [0, 1, 3, 6]}},
                            "required": ["seconds"],
                        }
                    ),
                },
                "responses": {
                    "200": {
                        "description": "Set",
                        **json_body(
                            {
                                "type": "object",
                                "properties": {"ok": {"type": "boolean"}, "seconds": {"type": "integer"}},
                            }
                        ),
                    },
                    **refusals(400, 403, 404, 409),
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
