"""The lines of a play file, read: what each line does (act, let time pass, check the outcome) and expects.

Each line is one JSON object (docs/actions.md); a line that is not of its form is a `BadLine`,
reported as its own record with the error `bad_line`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.rules.errors import MalformedAction
from referee.rules.events import REFEREE, Role

LINE_FIELDS = ("by", "action", "at", "expect", "client_id", "version", "seed", "create", "expect_outcome")
BAD_LINE = "bad_line"
"""The `error` of a line the play file itself gets wrong (not JSON, an unknown field, ...)."""


class BadLine(Exception):
    """A line of the play file that is not of its form."""

    def __init__(self, message: str, expect: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.expect = expect


@dataclass(frozen=True)
class Expect:
    """What a line expects: accepted (with effects, if named), or refused (with a part of its text, or its code)."""

    refused: bool = False
    text: str | None = None
    error: str | None = None
    effects: Any = None
    """The part of the accepted action's effects (the mode's `effects`) that must be as given."""

    @classmethod
    def parse(cls, value: Any) -> Expect:
        """Read an `expect` field: "ok", "refused", {"refused": "text part", "error": "code"} or {"effects": {...}}."""
        if value is None or value == "ok":
            return cls()
        if value == "refused":
            return cls(refused=True)
        if isinstance(value, Mapping) and set(value) == {"effects"} and isinstance(value["effects"], Mapping):
            return cls(effects=value["effects"])
        if isinstance(value, Mapping) and value and set(value) <= {"refused", "error"}:
            text, error = value.get("refused"), value.get("error")
            if (text is None or isinstance(text, str)) and (error is None or isinstance(error, str)):
                return cls(True, text, error)
        raise BadLine(
            'expect is "ok", "refused", {"refused": "a part of the refusal", "error": "its code"}'
            ' or {"effects": {what the action did}}'
        )

    def met_by(self, refusal: str | None, error: str | None, effects: Any = None) -> bool:
        """Tell whether an answer (None: accepted, with these effects) is what was expected."""
        if refusal is None:
            return not self.refused and (self.effects is None or outcome_matches(self.effects, effects))
        return (
            self.refused and (self.text is None or self.text in refusal) and (self.error is None or self.error == error)
        )


@dataclass
class Line:
    """One line of a play file, read."""

    number: int
    by: Role = REFEREE
    action: Any = None
    at: float | None = None
    expect: Expect = field(default_factory=Expect)
    client_id: Any = None
    version: Any = None
    seed: int | None = None
    create: Mapping[str, Any] | None = None
    outcome: Any = None
    checks_outcome: bool = False


def parse_line(number: int, text: str) -> Line:
    """Read one line of a play file; raise BadLine naming what is wrong."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadLine(f"not JSON: {exc.msg} (column {exc.colno})") from None
    if not isinstance(data, dict):
        raise BadLine('a line is a JSON object, like {"by": "team:A", "action": {...}}')
    expect = Expect.parse(data.get("expect"))  # a broken expect cannot be what the line expects
    try:
        return _line_from(number, data, expect)
    except BadLine as exc:
        raise BadLine(exc.message, expect) from None


def _line_from(number: int, data: dict[str, Any], expect: Expect) -> Line:
    unknown = sorted(set(data) - set(LINE_FIELDS))
    if unknown:
        raise BadLine(f"unknown field {', '.join(unknown)}: a line has {', '.join(LINE_FIELDS)}")
    line = Line(number, expect=expect, client_id=data.get("client_id"), version=data.get("version"))
    by = data.get("by", "referee")
    try:
        line.by = Role.from_str(by)
    except MalformedAction:
        raise BadLine("by must be a role, like referee, team:A, player:B or pilot:1A1") from None
    at = data.get("at")
    if at is not None:
        if isinstance(at, bool) or not isinstance(at, (int, float)) or not math.isfinite(at) or at < 0:
            raise BadLine("at must be a number of seconds from 0")
        line.at = float(at)
    seed = data.get("seed")
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
            raise BadLine("seed must be a whole number from 0 to 2**63 - 1")
        line.seed = seed
    if "create" in data:
        if not isinstance(data["create"], dict):
            raise BadLine("create must be the create_game action's options, a JSON object")
        if "action" in data or "expect_outcome" in data:
            raise BadLine("a create line has no action and no expect_outcome")
        line.create = data["create"]
        return line
    if "expect_outcome" in data:
        if set(data) - {"expect_outcome"}:
            raise BadLine("an expect_outcome line has nothing else")
        line.outcome, line.checks_outcome = data["expect_outcome"], True
        return line
    if "action" not in data:
        if at is None:
            raise BadLine("a line needs an action (or only an at, to let time pass)")
        if set(data) - {"at"}:
            raise BadLine("a line without an action only lets time pass: it has nothing but at")
        return line
    line.action = data["action"]
    return line


def outcome_matches(expected: Any, outcome: Any) -> bool:
    """Tell whether an outcome or effects (as JSON) have every field the expected ones name, with its value.

    A list matches a list as long, item by item (so a roll names only the fields it checks).
    """
    if isinstance(expected, Mapping):
        return isinstance(outcome, Mapping) and all(
            k in outcome and outcome_matches(v, outcome[k]) for k, v in expected.items()
        )
    if isinstance(expected, list):
        return (
            isinstance(outcome, list) and len(expected) == len(outcome) and all(map(outcome_matches, expected, outcome))
        )
    if isinstance(expected, bool) or isinstance(outcome, bool):
        return expected is outcome  # true is not 1
    return bool(expected == outcome)


def numbered_lines(text: str) -> list[tuple[int, str]]:
    """Return the lines of a play file that hold something, with their numbers (blank and # lines skipped)."""
    return [
        (number, line)
        for number, line in enumerate(text.splitlines(), start=1)
        if line.strip() and not line.lstrip().startswith("#")
    ]
