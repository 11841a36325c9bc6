"""The home page and the health endpoint."""

from __future__ import annotations

from flask import Blueprint, jsonify, render_template
from sqlalchemy import text
from werkzeug.wrappers import Response

from referee import __version__
from referee.store import reading
from referee.web.auth import is_server_referee
from referee.web.extensions import db

bp = Blueprint("home", __name__, template_folder="templates")


@bp.get("/")
def index() -> str:
    """Show the home page; the referee gets the way to a new game."""
    return render_template("home/index.html", is_referee=is_server_referee())


@bp.get("/api/health")
def health() -> tuple[Response, int]:
    """Report whether the app and its database answer."""
    try:
        with reading(db.engine) as conn:
            conn.execute(text("SELECT 1"))
    except Exception:  # noqa: BLE001 - any database failure is a 503, not a traceback
        return jsonify({"ok": False, "version": __version__}), 503
    return jsonify({"ok": True, "version": __version__}), 200
