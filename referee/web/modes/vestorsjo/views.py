"""Who a browser is in a Vestorsjø game and what it is shown: its role, its translated view, and a game gone.

The game hides nothing, so every view may be seen by anyone; a role only says who may move.
"""

from __future__ import annotations

import time
from typing import Any

from flask import abort, current_app
from flask_babel import gettext as _  # type: ignore[import-untyped]

from referee.rules import vestorsjo as vs
from referee.rules.events import PUBLIC, REFEREE, Role
from referee.store import ABANDONED
from referee.web.access import Access, current_roles, current_team
from referee.web.api.acting import load_any_state
from referee.web.extensions import db
from referee.web.i18n import current_lang, say_all

HOST = "scania"  # the creator's side: Scania moves first
GUEST = "zealand"  # the invited friend's side, or the computer's
BOTH = "both"  # the device subject of a pass-and-play tablet: it acts as the side to move


def role_in(game_id: str, slip: str | None, state: vs.State) -> Role:
    """Return this browser's role in a Vestorsjø game: a side's player, the referee, or the public.

    A side's own device comes first; a pass-and-play device is the player of the side to move.
    """
    if slip:
        abort(403, description=_("This slip is not genuine, or belongs to another game."))
    side = current_team(game_id)
    if side in vs.SIDES:
        return Role("player", side)
    if side == BOTH:
        return Role("player", state.turn)
    if Access.REFEREE in current_roles(game_id):
        return REFEREE
    return PUBLIC


def view_of(state: vs.State, role: Role, game_id: str) -> dict[str, Any]:
    """Return a role's view, translated, with side, class and ruleset names in the page's language."""
    view: dict[str, Any] = say_all(vs.view_for(state, role, time.time()))
    lang = current_lang()
    rules = view["ruleset"]
    rules["title"] = rules["names"].get(lang, rules["name"])
    for cls in rules["classes"].values():
        cls["title"] = cls["names"].get(lang, cls["name"])
    for side in view["sides"].values():
        side["title"] = side["names"].get(lang, side["name"])
    for piece in view["pieces"]:
        piece["title"] = piece["names"].get(lang, piece["name"])
    view["game"] = game_id
    return view


def load_game(game_id: str) -> vs.State:
    """Return a Vestorsjø game's state, or 404 (also for a game of another mode); 410 if it expired."""
    state = load_any_state(game_id)
    if not isinstance(state, vs.State):
        abort(404, description=_("There is no such game."))
    if db.store.status_of(game_id) == ABANDONED:  # the store's mark: the log still says "playing"
        abort(410, description=expired_message())
    return state


def expired_message() -> str:
    """Say that a game expired, and why."""
    hours = current_app.config["VESTORSJO_IDLE_HOURS"]
    return str(_("This game has expired: nobody played it for %(hours)s hours. Start a new one.", hours=hours))
