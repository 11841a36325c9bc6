"""The air raid's actions as JSON Schemas, for the API's document."""

from __future__ import annotations

from typing import Any

from ..schema import HANDS, SHIP, SQUARE, action

TEAM = {"type": "string", "enum": ["A", "B"]}
ORDER = {"type": "string", "maxLength": 20, "examples": ["1A2"]}
# A dogfight's two orders may be named in either order; the examples name one of each team.
ORDER_A = {**ORDER, "description": "One of the two orders (either team's)", "examples": ["1A2"]}
ORDER_B = {**ORDER, "description": "The other order (of the other team)", "examples": ["1B1"]}


def _throws(sides: tuple[str, str], hands_first: str) -> dict[str, Any]:
    """The throws of one kind of duel: a winner among its own two sides (or a tie), or both hands."""
    winner = {
        "type": "object",
        "properties": {"winner": {"type": "string", "enum": [*sides, "tie"]}},
        "required": ["winner"],
        "additionalProperties": False,
    }
    hands = {
        "type": "object",
        "properties": {"hands": {**HANDS, "description": f"The two hands thrown: {hands_first}."}},
        "required": ["hands"],
        "additionalProperties": False,
    }
    about = (
        f"Every throw in order, ties included: its winner ({sides[0]}, {sides[1]} or tie), "
        f"or the hands ({hands_first})."
    )
    return {"type": "array", "items": {"oneOf": [winner, hands]}, "maxItems": 50, "description": about}


# The rules read a dogfight's hands as team A's first, whichever order `a` and `b` name: stored
# logs depend on that meaning, so it is documented rather than changed.
DOGFIGHT_THROWS = _throws(("A", "B"), "team A's hand first, then team B's, whatever the order of a and b")
BOMBING_THROWS = _throws(("bomber", "ship"), "the bomber's hand first, then the ship's")

ACTION_SCHEMAS: dict[str, dict[str, Any]] = {
    "lock_sea": action(
        "lock_sea",
        {"team": TEAM, "ships": {"type": "array", "items": SHIP}},
        ["team", "ships"],
        "Lock a team's sea (its whole fleet).",
    ),
    "unlock_sea": action("unlock_sea", {"team": TEAM}, ["team"], "Unlock a team's sea before the game starts."),
    "set_players": action(
        "set_players",
        {"team": TEAM, "players": {"type": "array", "items": {"type": "string"}}},
        ["team", "players"],
        "Set a team's roster.",
    ),
    "start_game": action("start_game", {}, [], "Start the game (referee; both seas locked)."),
    "set_defender": action(
        "set_defender", {"team": TEAM, "pilot": {"type": "string"}}, ["team", "pilot"], "Pick this round's defender."
    ),
    "add_order": action(
        "add_order",
        {
            "team": TEAM,
            "pilot": {"type": "string"},
            "kind": {"type": "string", "enum": ["fighter", "bomber"]},
            "ship": {"type": "string"},
            "corridor": {"type": "string"},
            "position": {"type": "integer", "minimum": 1},
            "target": SQUARE,
        },
        ["team", "pilot", "kind", "ship", "corridor"],
        "Write a pilot's order: plane, corridor, take-off position, and a target for a bomber. "
        "The answer's `order` is the new order's id.",
    ),
    "remove_order": action("remove_order", {"order": ORDER}, ["order"], "Remove an order while planning."),
    "start_round": action(
        "start_round", {}, [], "Start the round: orders lock, planes take off, the clock runs (referee)."
    ),
    "report_dogfight": action(
        "report_dogfight",
        {
            "a": ORDER_A,
            "b": ORDER_B,
            "throws": DOGFIGHT_THROWS,
            "choice": {"type": "string", "enum": ["pass", "continue"]},
        },
        ["a", "b"],
        "Report a dogfight (a pilot of it, or the referee).",
        [
            {
                "type": "report_dogfight",
                "a": "1A2",
                "b": "1B1",
                "throws": [{"hands": ["rock", "rock"]}, {"hands": ["paper", "rock"]}],
            },
            {
                "type": "report_dogfight",
                "a": "1A1",
                "b": "1B2",
                "throws": [{"winner": "B"}, {"winner": "B"}],
                "choice": "continue",
            },
            {"type": "report_dogfight", "a": "1A3", "b": "1B3", "choice": "pass"},
        ],
    ),
    "confirm_dogfight": action(
        "confirm_dogfight", {"a": ORDER, "b": ORDER}, ["a", "b"], "Confirm the other pilot's report."
    ),
    "announce_bombing": action(
        "announce_bombing",
        {"order": ORDER, "target": SQUARE, "team": TEAM},
        [],
        "A bomber names its target: water, fight or already hit. By its slip (`order`) or by its target square "
        "(`target`; the referee also names the bombed `team`); the answer's `order` is the bomber it matched.",
    ),
    "report_bombing": action(
        "report_bombing",
        {"order": ORDER, "throws": BOMBING_THROWS, "choice": {"type": "string", "enum": ["leave", "continue"]}},
        ["order"],
        "Enter the fight of ship and bomber.",
        [
            {"type": "report_bombing", "order": "1B2", "throws": [{"winner": "bomber"}]},
            {"type": "report_bombing", "order": "1B2", "throws": [{"hands": ["rock", "paper"]}], "choice": "leave"},
        ],
    ),
    "pause_timer": action("pause_timer", {}, [], "Pause the round clock (referee)."),
    "resume_timer": action("resume_timer", {}, [], "Resume the round clock (referee)."),
    "adjust_timer": action(
        "adjust_timer",
        {"seconds": {"type": "number", "minimum": -3600, "maximum": 3600}},
        ["seconds"],
        "Add or take away time (referee).",
    ),
    "set_round_length": action(
        "set_round_length",
        {"seconds": {"type": "integer", "minimum": 10, "maximum": 3600}},
        ["seconds"],
        "Set the length of the rounds to come, the one being planned too (referee).",
    ),
    "end_round": action("end_round", {}, [], "End the round (referee)."),
    "surrender": action("surrender", {"team": TEAM}, ["team"], "Surrender."),
    "forfeit": action(
        "forfeit", {"team": TEAM, "reason": {"type": "string"}}, ["team", "reason"], "Declare a forfeit (referee)."
    ),
    "end_game": action(
        "end_game", {"reason": {"type": "string"}}, [], "End the game, decided by the tie-breaks (referee)."
    ),
    "void": action(
        "void",
        {"seq": {"type": "integer", "minimum": 2}, "reason": {"type": "string"}},
        ["seq", "reason"],
        "Void an earlier event; the state is recomputed (referee).",
    ),
}
