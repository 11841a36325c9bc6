"""What happens in a Battleship game by itself: the computer's turn; there is no clock."""

from __future__ import annotations

from ..events import JSON, Role
from .moves import computer_due
from .ruleset import other
from .state import State


def automatic(state: State) -> tuple[str, JSON] | None:
    """Return the action the computer must take now (as whom), if it is to act: its move, by its own chance."""
    player = computer_due(state)
    if player is None:
        return None
    return Role("player", player), {"type": "computer_move", "player": player}


def screen_player(state: State) -> str:
    """Return whose screen one pass-and-play device shows now: the one to place, else the one to move."""
    for p in (state.first, other(state.first)):
        if state.phase == "placing" and not state.players[p].placed:
            return p
    return state.turn or state.first
