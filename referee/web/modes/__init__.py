"""The web side of each game mode: whose role a browser has, what each role sees, who hears a push.

The Socket.IO handlers (`live.py`) and the shared JSON routes (`api.py`) serve every mode; they
look the mode's web side up here by the type of the game's state. Each module of this folder is
the web side of one mode (`airraid/`, `battleship/`, `vestorsjo/`) and keeps its `WebMode` with
the rules mode itself (`register`); a mode with none gets the generic one.
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

from referee.rules import MODES, find_mode, mode_of
from referee.rules.events import PUBLIC, REFEREE, Role
from referee.web.access import Access, current_roles
from referee.web.i18n import say_all


@dataclass(frozen=True)
class HomeLink:
    """A button of the home page that leads to a mode's own pages."""

    url: str
    label: str
    """In the page's language."""
    style: str = "big"
    """"primary" (the way most visitors take), "big", or "ghost" (a lesser page, listed last)."""


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


@dataclass(frozen=True, kw_only=True)
class WebMode:
    """What the shared web layer needs of one mode, each with the default of a mode with no pages.

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
    """The rules mode's name: the web side is kept in that mode's `sides`."""
    role_in: Callable[[str, str | None, Any], Role] = _generic_role
    view_of: Callable[[Any, Role, str], dict[str, Any]] = _generic_view
    push_roles: Callable[[Any], list[Role]] = _generic_audiences
    seen_by: Callable[[Any, Role, str], dict[str, Any]] | None = None
    sweep: Callable[[Flask, float], list[str]] | None = None
    """Every minute, on the round clock: tidy forgotten games at a moment; return the games it changed."""
    gone: Callable[[str], str | None] | None = None
    """Why a game that is still stored may no longer be played (answered 410), or None."""
    listing: Callable[[str, Any], dict[str, str]] | None = None
    """A line of the referee's list of games: {title, state, url}, translated (the modes a referee runs)."""
    home: Callable[[bool], list[HomeLink]] | None = None
    """The home page's buttons to this mode's pages, for a referee (True) or anyone else."""
    may_delete: Callable[[Any], bool] | None = None
    """Whether the referee may delete this game from the list (it counts for nothing: a practice game)."""


SIDE = "web"
"""The key of a mode's web side in its `GameMode.sides`."""


def web_sides() -> list[ModuleType]:
    """Return the modules of this folder, each a mode's web side (or a piece modes share, such as `seats`).

    `create_app` calls each one's `init_app(app)`, the OpenAPI document each one's
    `openapi_paths(spec)`, where they have them: a new mode with pages touches no shared file.
    """
    return [importlib.import_module(f"{__name__}.{found.name}") for found in pkgutil.iter_modules(__path__)]


def register(web: WebMode) -> None:
    """Keep (or replace) a mode's web side with the mode itself, in the rules registry."""
    find_mode(web.name).sides[SIDE] = web


def registered() -> list[WebMode]:
    """Return the web sides of the registered modes that have one, in the registry's order."""
    return [mode.sides[SIDE] for mode in MODES.values() if SIDE in mode.sides]


def of(state: Any) -> WebMode:
    """Return the web side of the mode whose state this is: its own, else the generic one."""
    rules = mode_of(state)
    own: WebMode | None = rules.sides.get(SIDE)
    return own if own is not None else WebMode(name=rules.name, seen_by=_generic_unsaid)


def home_links(referee: bool) -> list[HomeLink]:
    """Return every mode's home-page buttons, in the registry's order (the page groups them by style)."""
    return [link for web in registered() if web.home is not None for link in web.home(referee)]
