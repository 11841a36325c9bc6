"""What the round clock does by itself: end a round whose time is up."""

from __future__ import annotations

from typing import Any

from ..events import JSON
from .state import State


def due_action(state: State, now: float) -> tuple[str, JSON] | None:
    """Return the action the clock must take now (as whom), if any: the end of a round at 0:00."""
    rnd = state.round
    if state.phase != "playing" or rnd is None or rnd.phase != "airborne" or rnd.timer.deadline is None:
        return None
    if rnd.timer.deadline > now:
        return None
    return "clock", {"type": "end_round"}


def automatic(state: State) -> tuple[str, dict[str, Any]] | None:
    """Return the action a player the computer plays must take now: none, the air raid has no computer."""
    del state
    return None
