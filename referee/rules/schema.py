"""JSON Schemas of actions, as data the modes hand to the API's document (the web never copies them)."""

from __future__ import annotations

from typing import Any

SQUARE = {"type": "string", "pattern": "^[A-Za-z][0-9]{1,2}$", "example": "C4"}
HANDS = {
    "type": "array",
    "items": {"type": "string", "enum": ["rock", "paper", "scissors"]},
    "minItems": 2,
    "maxItems": 2,
}
SHIP = {
    "type": "object",
    "properties": {"id": {"type": "string"}, "kind": {"type": "string"}, "squares": {"type": "array", "items": SQUARE}},
    "required": ["kind", "squares"],
}


def action(
    kind: str, props: dict[str, Any], required: list[str], about: str, examples: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Return the schema of one kind of action: its fields, which are required, what it does."""
    schema: dict[str, Any] = {
        "type": "object",
        "description": about,
        "properties": {"type": {"type": "string", "const": kind}, **props},
        "required": ["type", *required],
        "additionalProperties": False,
    }
    if examples:
        schema["examples"] = examples
    return schema
