"""The home page and the health endpoint."""

from __future__ import annotations

from flask import Blueprint, jsonify, render_template
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


def games_list() -> list[dict[str, str]]:
    """Return the referee's games, running first: each {title, state, url, id}, in the page's language."""
    rows: list[dict[str, str]] = []
    for mode in modes.registered():
        if mode.listing is None:
            continue
        for game_id in db.store.game_ids_of(mode.name, LISTED):
            try:
                state, _version = db.store.load(game_id)
            except StoreError:
                continue  # gone, or a database busy this instant: the list is not worth a 500
            rows.append({"id": game_id, **mode.listing(game_id, state)})
    return rows


@bp.get("/")
def index() -> str:
    """Show the home page; the referee gets the way to a new game and back to every game."""
    referee = is_server_referee()
    return render_template(
        "home/index.html", is_referee=referee, games=games_list() if referee else [], links=modes.home_links(referee)
    )


@bp.get("/api/health")
def health() -> tuple[Response, int]:
    """Report whether the app and its database answer."""
    try:
        with reading(db.engine) as conn:
            conn.execute(text("SELECT 1"))
    except Exception:  # noqa: BLE001 - any database failure is a 503, not a traceback
        return jsonify({"ok": False, "version": __version__}), 503
    return jsonify({"ok": True, "version": __version__}), 200
