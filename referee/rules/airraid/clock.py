"""What the round clock does by itself: end a round whose time is up."""

from __future__ import annotations

from typing import Any

from ..events import JSON, Role
from .conditions import end_round_problem
from .state import State

CLOCK = Role("clock")


def due_action(state: State, now: float) -> tuple[str, JSON] | None:
    """Return the action the clock must take now (as whom), if any: the end of a round at 0:00.

    The same predicate as the `end_round` handler's: the clock acts exactly when it would be taken.
    """
    if end_round_problem(state, CLOCK, now) is not None:
        return None
    return CLOCK.to_str(), {"type": "end_round"}


def automatic(state: State) -> tuple[str, dict[str, Any]] | None:
    """Return the action a player the computer plays must take now: none, the air raid has no computer."""
    del state
    return None
