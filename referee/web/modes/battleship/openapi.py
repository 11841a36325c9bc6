"""Battleship's part of the OpenAPI document: its three views, and its own routes."""

from __future__ import annotations

from typing import Any

from apispec import APISpec

from referee.rules.battleship.schema import PLAYER
from referee.web.api.openapi import GAME_ID, LIST, MAYBE_OBJECT, OBJECT, TEXT, json_body, refusals, view_schema

# Every Battleship view has these keys.
OPENAPI_COMMON: dict[str, Any] = {
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


def openapi_views() -> dict[str, dict[str, Any]]:
    """Battleship's view of each role, by component name (`View_<name>`)."""
    return {
        "battleship_player": view_schema(
            "battleship",
            {"type": "string", "pattern": "^player:[AB]$"},
            "Battleship, a player: its own fleet and the shots at it, its volleys as told "
            "(referee.rules.battleship.view_for).",
            {**OPENAPI_COMMON, "game": TEXT},
        ),
        "battleship_referee": view_schema(
            "battleship",
            {"type": "string", "const": "referee"},
            "Battleship, the referee: both fleets.",
            {**OPENAPI_COMMON, "game": TEXT},
        ),
        "battleship_public": view_schema(
            "battleship",
            {"type": "string", "const": "public"},
            "Battleship, a watcher: both seas' shots as told, no ship until the end.",
            {**OPENAPI_COMMON, "game": TEXT},
        ),
    }


def openapi_paths(spec: APISpec) -> None:
    """The Battleship routes (referee/web/modes/battleship/); play goes through /api/games/{game_id}/actions."""
    created = {"type": "object", "properties": {"game": {"type": "string"}, "links": {"type": "object"}}}
    new_game = {
        "type": "object",
        "properties": {
            "ruleset": {"type": "string", "enum": ["zeeslag", "zeeslag-salvo", "sjoslag"]},
            "opponent": {"type": "string", "enum": ["friend", "computer", "hotseat"]},
            "name": {"type": "string", "maxLength": 40},
            "opponent_name": {"type": "string", "maxLength": 40},
            "level": {"type": "string", "enum": ["easy", "strong"]},
            "first": {"type": "string", "enum": ["A", "B", "coin"]},
            "per_shot": {"type": "boolean"},
        },
    }
    spec.path(
        path="/api/battleship/games",
        operations={
            "post": {
                "summary": "Battleship: start a game; the caller's browser becomes player A "
                "(both sides for pass-and-play)",
                "requestBody": {"required": True, **json_body(new_game)},
                "responses": {"201": {"description": "Created", **json_body(created)}, **refusals(400, 409)},
            }
        },
    )
    spec.path(
        path="/api/battleship/games/{game_id}/rematch",
        operations={
            "post": {
                "summary": "Battleship: start or join the rematch of a finished game (a player)",
                "parameters": [GAME_ID],
                "responses": {"200": {"description": "The rematch", **json_body(created)}, **refusals(403, 404, 409)},
            }
        },
    )
    spec.path(
        path="/api/battleship/scores",
        operations={
            "get": {
                "summary": "Battleship: the scoreboard of the evening (wins, games, shots per game per player name)",
                "responses": {"200": {"description": "Scores", **json_body(_BATTLESHIP_SCORES)}},
            }
        },
    )


_BATTLESHIP_SCORES = {
    "type": "object",
    "properties": {
        "hours": {"type": "integer", "description": "games finished in the last this many hours"},
        "scores": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "wins": {"type": "integer"},
                    "games": {"type": "integer", "description": "finished games played"},
                    "shots_per_game": {"type": "number", "description": "mean shots fired per finished game"},
                    "computer": {"type": "boolean"},
                },
            },
        },
    },
}
