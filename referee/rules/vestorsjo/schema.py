"""Vestorsjø's actions as JSON Schemas, for the API's document."""

from __future__ import annotations

from typing import Any

from ..schema import action

PIECE = {
    "type": "string",
    "maxLength": 40,
    "examples": ["scania.frigate-1"],
    "description": "A piece id: side.class[-n]",
}
PLACE = {
    "type": "string",
    "maxLength": 40,
    "examples": ["F12", "F12/G12/F13"],
    "description": "A hex for a warship (F12), a corner for a submarine (its three hexes, F12/G12/F13)",
}
PIPS = {"type": "integer", "minimum": 1, "maximum": 6, "description": "The die's pips, with physical dice only"}
SIDE = {"type": "string", "enum": ["scania", "zealand"]}
VERSION = {"type": "integer"}

ACTION_SCHEMAS: dict[str, dict[str, Any]] = {
    "move": action(
        "move",
        {"piece": PIECE, "to": PLACE, "version": VERSION},
        ["piece", "to"],
        "Vestorsjø: move a piece 1 or 2 hexes (a submarine up to 2 corners) by some legal way.",
        [{"type": "move", "piece": "scania.frigate-1", "to": "E6"}],
    ),
    "fire": action(
        "fire",
        {"piece": PIECE, "target": PIECE, "pips": PIPS, "version": VERSION},
        ["piece", "target"],
        "Vestorsjø: fire at an enemy ship (a warship by the gunnery table, a submarine from a corner of its hex).",
        [{"type": "fire", "piece": "scania.destroyer", "target": "zealand.frigate-2"}],
    ),
    "attack_submarine": action(
        "attack_submarine",
        {"piece": PIECE, "target": PIECE, "pips": PIPS, "version": VERSION},
        ["piece", "target"],
        "Vestorsjø: attack an enemy submarine (from a ship whose hex it touches, or a submarine beside it).",
        [{"type": "attack_submarine", "piece": "zealand.corvette-1", "target": "scania.submarine-2"}],
    ),
    "end_turn": action("end_turn", {"version": VERSION}, [], "Vestorsjø: end the side's turn."),
    "undo": action(
        "undo",
        {"version": VERSION},
        [],
        "Vestorsjø: undo the turn's latest action if it was a move (no undo past a roll).",
    ),
    "computer_move": action(
        "computer_move",
        {"side": SIDE, "version": VERSION},
        [],
        "Vestorsjø: the computer makes one action of the turn of a side it plays (a move, a shot, or ending the turn).",
        [{"type": "computer_move", "side": "zealand"}],
    ),
    "confirm_roll": action(
        "confirm_roll",
        {"version": VERSION},
        [],
        "Vestorsjø on two devices with our own dice: the shooter's enemy confirms the pips it entered; the shot hits.",
        [{"type": "confirm_roll"}],
    ),
    "dispute_roll": action(
        "dispute_roll",
        {"version": VERSION},
        [],
        "Vestorsjø on two devices with our own dice: the enemy says the die showed something else; the shot is undone.",
        [{"type": "dispute_roll"}],
    ),
    "surrender": action(
        "surrender",
        {"side": SIDE, "version": VERSION},
        [],
        "Vestorsjø: a side gives up (a player for its own side, at any time; the referee for either).",
    ),
}
