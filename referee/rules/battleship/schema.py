"""Battleship's actions as JSON Schemas, for the API's document."""

from __future__ import annotations

from typing import Any

from ..schema import SHIP, SQUARE, action

PLAYER = {"type": "string", "enum": ["A", "B"]}

ACTION_SCHEMAS: dict[str, dict[str, Any]] = {
    "place_fleet": action(
        "place_fleet",
        {"player": PLAYER, "ships": {"type": "array", "items": SHIP}, "sea": {"type": "string", "maxLength": 2000}},
        ["player"],
        "Battleship: place a player's whole fleet (ships, or a sea text).",
    ),
    "fire": action(
        "fire",
        {
            "player": PLAYER,
            "squares": {"type": "array", "items": SQUARE, "minItems": 1, "maxItems": 100},
            "version": {"type": "integer"},
        },
        ["player", "squares"],
        "Battleship: fire one turn's shots (a salvo sends all its squares).",
    ),
    "forfeit": action(
        "forfeit",
        {"player": PLAYER, "reason": {"type": "string", "maxLength": 300}},
        ["player"],
        "Battleship: a player resigns, or the referee records a forfeit.",
    ),
    "computer_move": action(
        "computer_move",
        {"player": PLAYER},
        ["player"],
        "Battleship: the computer's move for the player it plays (the server sends it; the rules choose by chance).",
    ),
}
