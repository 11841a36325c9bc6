"""The home page, the referee's list of games (archive, put back, delete a practice game), the health endpoint."""

from __future__ import annotations

import time
from typing import Any

from flask import Blueprint, abort, jsonify, redirect, render_template, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]
from sqlalchemy import text
from werkzeug.wrappers import Response

from referee import __version__
from referee.store import StoreError, reading
from referee.web import modes
from referee.web.access import is_server_referee
from referee.web.extensions import db

bp = Blueprint("home", __name__, template_folder="templates")


# The referee's list: the newest games of each mode that has a dashboard, unfinished ones first.
LISTED = 30


def games_list(*, archived: bool = False) -> list[dict[str, Any]]:
    """Return the referee's games, running first: each {title, state, url, id, deletable}, in the page's language.

    `archived`: the games taken off the list instead.
    """
    rows: list[dict[str, Any]] = []
    for mode in modes.registered():
        if mode.listing is None:
            continue
        for game_id in db.store.game_ids_of(mode.name, LISTED, archived=archived):
            try:
                state, _version = db.store.load(game_id)
            except StoreError:
                continue  # gone, or a database busy this instant: the list is not worth a 500
            deletable = mode.may_delete is not None and mode.may_delete(state)
            rows.append({"id": game_id, "deletable": deletable, **mode.listing(game_id, state)})
    return rows


@bp.get("/")
def index() -> str:
    """Show the home page; the referee gets the way to a new game and back to every game."""
    referee = is_server_referee()
    return render_template(
        "home/index.html",
        is_referee=referee,
        games=games_list() if referee else [],
        archived=games_list(archived=True) if referee else [],
        links=modes.home_links(referee),
    )


def _listed_game(game_id: str) -> tuple[modes.WebMode, Any]:
    """The referee's game on the list, its web side and state: 403 for anyone else, 404 for no such game."""
    if not is_server_referee():
        abort(403, description=_("Only the referee may change the list of games."))
    state, _version = db.store.load(game_id)  # no such game: 404 (referee.web.errors)
    mode = modes.of(state)
    if mode.listing is None:
        abort(404, description=_("There is no such game."))
    return mode, state


@bp.post("/games/<game_id>/archive")
def archive(game_id: str) -> Response:
    """Take a game off the list of games (the referee); it is kept, and can be put back."""
    _listed_game(game_id)
    db.store.archive(game_id, at=time.time())  # a busy database: 503, nothing stored
    return redirect(url_for("home.index"), code=303)


@bp.post("/games/<game_id>/restore")
def restore(game_id: str) -> Response:
    """Put an archived game back on the list of games (the referee)."""
    _listed_game(game_id)
    db.store.archive(game_id, at=None)
    return redirect(url_for("home.index"), code=303)


@bp.get("/games/<game_id>/delete")
def delete_page(game_id: str) -> str:
    """Ask the referee whether to delete a practice game for good."""
    mode, state = _listed_game(game_id)
    if mode.may_delete is None or not mode.may_delete(state):
        abort(409, description=_("Only a practice game can be deleted. Archive this one to take it off the list."))
    assert mode.listing is not None
    return render_template("home/delete.html", game=mode.listing(game_id, state), game_id=game_id)


@bp.post("/games/<game_id>/delete")
def delete(game_id: str) -> Response:
    """Delete a practice game and everything of it (the referee); a game people played is only archived."""
    mode, state = _listed_game(game_id)
    if mode.may_delete is None or not mode.may_delete(state):
        abort(409, description=_("Only a practice game can be deleted. Archive this one to take it off the list."))
    db.store.delete_game(game_id)
    return redirect(url_for("home.index"), code=303)


@bp.get("/api/health")
def health() -> tuple[Response, int]:
    """Report whether the app and its database answer."""
    try:
        with reading(db.engine) as conn:
            conn.execute(text("SELECT 1"))
    except Exception:  # noqa: BLE001 - any database failure is a 503, not a traceback
        return jsonify({"ok": False, "version": __version__}), 503
    return jsonify({"ok": True, "version": __version__}), 200
