"""The web side of each game mode: whose role a browser has, what each role sees, who hears a push.

The Socket.IO handlers (`live.py`) and the shared JSON routes (`games.py`) serve every mode; they
look the mode up here by the type of the game's state. The air-raid mode registers itself in
`games.py`, Battleship in `battleship.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class WebMode:
    """What the shared web layer needs of one mode.

    `role_in(game_id, slip, state)` reads the browser's role from its cookies (or slip);
    `view_of(state, role, game_id)` is that role's view, translated for the request;
    `push_roles(state)` lists the roles whose sockets get a fresh view after a change.
    What happens by itself after an action (the computer's turn) is the rules' own (`automatic`),
    played by `referee.play`.
    """

    name: str
    state_type: type
    role_in: Callable[[str, str | None, Any], str]
    view_of: Callable[[Any, str, str], dict[str, Any]]
    push_roles: Callable[[Any], list[str]]


_MODES: dict[str, WebMode] = {}


def register(mode: WebMode) -> None:
    """Add (or replace) a mode's web side."""
    _MODES[mode.name] = mode


def of(state: Any) -> WebMode:
    """Return the web side of the mode whose state this is."""
    for mode in _MODES.values():
        if isinstance(state, mode.state_type):
            return mode
    raise LookupError(f"no web mode for {type(state).__name__}")
