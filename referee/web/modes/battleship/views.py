"""Who a browser is in a Battleship game and what it is shown: its role, its translated view, the players' names.

A pass-and-play phone (device subject "AB") is the player whose move it is; a game nobody played
for BATTLESHIP_IDLE_HOURS is gone (410).
"""

from __future__ import annotations

import functools
from typing import Any

from babel.support import Translations
from flask import abort, current_app
from flask_babel import gettext as _  # type: ignore[import-untyped]

from referee.rules import battleship as bs
from referee.rules.events import PUBLIC, REFEREE, Role
from referee.store import ABANDONED
from referee.web.access import Access, current_roles, current_team
from referee.web.api.acting import load_any_state
from referee.web.extensions import db
from referee.web.i18n import current_lang, say_all
from referee.web.words import N_

HOTSEAT = "AB"  # the device subject of a pass-and-play phone: both sides
COMPUTER = N_("Computer")  # the computer's name as stored: translated wherever it is shown


def role_in(game_id: str, slip: str | None, state: bs.State) -> Role:
    """Return this browser's role in a Battleship game: player:A/B, referee or public.

    A player's own device comes first: a referee who plays on the club laptop sees a player's
    screen, never both fleets.
    """
    if slip:
        abort(403, description=_("This slip is not genuine, or belongs to another game."))
    side = current_team(game_id)
    if side in bs.PLAYERS:
        return Role("player", side)
    if side == HOTSEAT:
        return Role("player", bs.screen_player(state))
    if Access.REFEREE in current_roles(game_id):
        return REFEREE
    return PUBLIC


def view_of(state: bs.State, role: Role, game_id: str) -> dict[str, Any]:
    """Return a role's view, translated, with the ruleset and ship names in the page's language.

    A ship kind's title is the game's own word beside the page's ("krysser · cruiser"), as the
    words of the game are kept (shared ux.md); in the game's own language the word stands once.
    """
    view: dict[str, Any] = say_all(bs.view_for(state, Role.from_str(role)))
    lang = current_lang()
    rules = view["ruleset"]
    rules["title"] = rules["names"].get(lang, rules["name"])
    # The mode's own name, in its own language (Zeeslag is Dutch, Sjøslag Norwegian).
    rules["own_lang"] = rules.get("language") or lang
    rules["own"] = rules["names"].get(rules["own_lang"], rules["title"])
    for kind in rules["fleet"]:
        kind["title"] = state.ruleset.ship_word(kind["kind"]).in_language(lang)
    for board in view["boards"].values():
        for ship in board.get("ships", []):
            ship["name"] = ship["names"].get(lang, ship["name"])
    for p, player in view["players"].items():
        player["name"] = shown_name(state.players[p])
    for action in view.get("actions", []):
        # The free squares are every square not yet shot: the page knows them from the shots,
        # and leaving them out keeps each push small (and every ship square out of the bytes).
        action.pop("squares", None)
    view["game"] = game_id
    return view


def computer_names() -> frozenset[str]:
    """Return the computer's default name in every page language (games made before it was stored untranslated)."""
    return _computer_names(
        str(current_app.config["BABEL_TRANSLATION_DIRECTORIES"]), tuple(current_app.config["LANGUAGES"])
    )


@functools.cache
def _computer_names(directories: str, langs: tuple[str, ...]) -> frozenset[str]:
    # The catalogues are read here, not through force_locale: this runs inside a push's own
    # forced locale, which a nested force_locale would undo.
    names = {COMPUTER}
    for folder in directories.split(";"):
        for lang in langs:
            names.add(Translations.load(folder, [lang]).gettext(COMPUTER))
    return frozenset(names)


def shown_name(side: bs.Player) -> str:
    """Return a player's name for the page: the computer's default name in the page's language."""
    if side.computer is not None and side.name in computer_names():
        return str(_(COMPUTER))
    return side.name


def load_game(game_id: str) -> bs.State:
    """Return a Battleship game's state, or 404 (also for a game of another mode); 410 if it expired."""
    state = load_any_state(game_id)
    if not isinstance(state, bs.State):
        abort(404, description=_("There is no such game."))
    if db.store.status_of(game_id) == ABANDONED:  # the store's mark: the log still says "playing"
        abort(410, description=expired_message())
    return state


def expired_message() -> str:
    """Say that a game expired, and why."""
    hours = current_app.config["BATTLESHIP_IDLE_HOURS"]
    return str(_("This game has expired: nobody played it for %(hours)s hours. Start a new one.", hours=hours))
