"""The web side of each game mode: whose role a browser has, what each role sees, who hears a push.

The Socket.IO handlers (`live.py`) and the shared JSON routes (`api.py`) serve every mode; they
look the mode up here by the type of the game's state. The air-raid mode registers itself in
`airraid.py`, Battleship in `battleship.py`; a mode with none gets a generic one.
"""

from __future__ import annotations

import importlib
import pkgutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from flask import Flask

from referee.rules import mode_of
from referee.rules.events import PUBLIC, REFEREE, Role
from referee.web.access import Access, current_roles
from referee.web.i18n import say_all


@dataclass(frozen=True)
class WebMode:
    """What the shared web layer needs of one mode.

    `role_in(game_id, slip, state)` reads the browser's role from its cookies (or slip);
    `view_of(state, role, game_id)` is that role's view, translated for the request;
    `seen_by(state, role, game_id)`, if given, is that view before translation, the same in every
    language, whose translation is `say_all` alone: a push then compares a role's
    view with its last once and translates only the change, per language, instead of making and
    comparing a whole view per language;
    `push_roles(state)` lists the roles whose sockets get a fresh view after a change.
    What happens by itself after an action (the computer's turn) is the rules' own (`automatic`),
    played by `referee.play`.
    """

    name: str
    state_type: type
    role_in: Callable[[str, str | None, Any], Role]
    view_of: Callable[[Any, Role, str], dict[str, Any]]
    push_roles: Callable[[Any], list[Role]]
    sweep: Callable[[Flask, float], list[str]] | None = None
    """Every minute, on the round clock: tidy forgotten games at a moment; return the games it changed."""
    gone: Callable[[str], str | None] | None = None
    """Why a game that is still stored may no longer be played (answered 410), or None."""
    listing: Callable[[str, Any], dict[str, str]] | None = None
    """A line of the referee's list of games: {title, state, url}, translated (the modes a referee runs)."""
    seen_by: Callable[[Any, Role, str], dict[str, Any]] | None = None


_MODES: dict[str, WebMode] = {}


def web_sides() -> list[ModuleType]:
    """Return the modules of this folder, each a mode's web side (or a piece modes share, such as `seats`).

    `create_app` calls each one's `init_app(app)`, the OpenAPI document each one's
    `openapi_paths(spec)`, where they have them: a new mode with pages touches no shared file.
    """
    return [importlib.import_module(f"{__name__}.{found.name}") for found in pkgutil.iter_modules(__path__)]


def register(mode: WebMode) -> None:
    """Add (or replace) a mode's web side."""
    _MODES[mode.name] = mode


def registered() -> list[WebMode]:
    """Return the web sides of the modes that registered one."""
    return list(_MODES.values())


def of(state: Any) -> WebMode:
    """Return the web side of the mode whose state this is: its own, else the generic one."""
    for mode in _MODES.values():
        if isinstance(state, mode.state_type):
            return mode
    rules = mode_of(state)
    return WebMode(
        name=rules.MODE,
        state_type=rules.State,
        role_in=_generic_role,
        view_of=_generic_view,
        push_roles=_generic_audiences,
        seen_by=_generic_unsaid,
    )


# The web side of a mode that brings no pages of its own: the referee acts, everyone else watches.


def _generic_role(game_id: str, slip: str | None, state: Any) -> Role:
    del slip, state
    return REFEREE if Access.REFEREE in current_roles(game_id) else PUBLIC


def _generic_unsaid(state: Any, role: Role, game_id: str) -> dict[str, Any]:
    del game_id
    view: dict[str, Any] = mode_of(state).view_for(state, Role.from_str(role), time.time())
    return view


def _generic_view(state: Any, role: Role, game_id: str) -> dict[str, Any]:
    view: dict[str, Any] = say_all(_generic_unsaid(state, role, game_id))
    return view


def _generic_audiences(state: Any) -> list[Role]:
    return list(mode_of(state).audiences(state))
