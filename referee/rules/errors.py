"""Precise error classes of the rules core."""

from __future__ import annotations


class RulesError(Exception):
    """Base class of every refusal the rules core gives."""

    code = "refused"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_dict(self) -> dict[str, str]:
        """Return the refusal as a JSON-able dict."""
        return {"error": self.code, "message": self.message}


class MalformedAction(RulesError):
    """An action or value that cannot be parsed: wrong type, unknown field, bad square."""

    code = "malformed"


class IllegalAction(RulesError):
    """A well-formed action that the rules forbid now."""

    code = "illegal"


class NotYourTurn(IllegalAction):
    """An action by a role that may not take it."""

    code = "not_your_turn"


class GameOver(IllegalAction):
    """An action after the game has ended."""

    code = "game_over"


class StaleVersion(IllegalAction):
    """An action based on an older state version than the current one."""

    code = "stale"


class RulesetError(Exception):
    """A ruleset file that is broken or inconsistent; carries every problem found."""

    def __init__(self, problems: list[tuple[str, str, str]]) -> None:
        self.problems = problems
        super().__init__("\n".join(f"{f}: {k}: {r}" for f, k, r in problems))

    def lines(self) -> list[str]:
        """Return one `FILE: key: reason` line per problem."""
        return [f"{f}: {k}: {r}" for f, k, r in self.problems]
