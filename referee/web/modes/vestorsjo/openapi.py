"""Vestorsjø's part of the OpenAPI document: its one route of its own, starting a game."""

from __future__ import annotations

from apispec import APISpec

from referee.web.api.openapi import json_body, refusals


def openapi_paths(spec: APISpec) -> None:
    """The Vestorsjø route (referee/web/modes/vestorsjo/pages.py); play goes through /api/games/{game_id}/actions."""
    created = {"type": "object", "properties": {"game": {"type": "string"}, "links": {"type": "object"}}}
    new_game = {
        "type": "object",
        "properties": {
            "opponent": {"type": "string", "enum": ["hotseat", "friend", "computer"]},
            "dice": {"type": "string", "enum": ["server", "physical"]},
            "level": {"type": "string", "enum": ["easy", "normal", "strong"]},
            "start": {
                "type": "object",
                "description": "piece id -> place, off the map's start places",
                "additionalProperties": {"type": "string", "maxLength": 20},
                "maxProperties": 18,
            },
        },
    }
    spec.path(
        path="/api/vestorsjo/games",
        operations={
            "post": {
                "summary": "Vestorsjø: start a game; the caller's browser plays Scania (both sides for pass-and-play)",
                "requestBody": {"required": True, **json_body(new_game)},
                "responses": {
                    "201": {"description": "Created", **json_body(created)},
                    **refusals(400, 409),
                    "429": {"description": "Too many new games from this address"},
                },
            }
        },
    )
