"""Vestorsjø's pages and its own route: the new-game page, a player's page, the invite, the projector.

Playing goes through the API every mode shares (web/api/routes.py, web/live.py); these routes create
games and open the pages.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, jsonify, make_response, redirect, render_template, request, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]
from markupsafe import Markup
from werkzeug.exceptions import TooManyRequests

from referee.rules import vestorsjo as vs
from referee.rules.errors import MalformedAction, RulesError
from referee.rules.events import PUBLIC, Role
from referee.web.access import current_team
from referee.web.i18n import say
from referee.web.links import qr_svg
from referee.web.modes import seats
from referee.web.modes.vestorsjo.board import board_svg
from referee.web.modes.vestorsjo.games import against_friend, create_game
from referee.web.modes.vestorsjo.views import BOTH, GUEST, load_game, role_in, view_of

bp = Blueprint("vestorsjo", __name__)


def page(template: str, game_id: str, role: Role, state: vs.State, **extra: Any) -> str:
    """Render a Vestorsjø page with the board and its initial view for the page's script."""
    view = view_of(state, role, game_id)
    board = board_svg(view["ruleset"]["map"])
    page_data = {
        "game": game_id,
        "role": role,
        "seq": state.version,
        "view": view,
        "api": f"/api/games/{game_id}",
        "unit": board["unit"],
        "box": board["box"],
        **extra.pop("data", {}),
    }
    return render_template(template, game_id=game_id, view=view, board=board, page_data=page_data, **extra)


def _new_game_page(form: dict[str, Any], error: str | None, status: int = 200) -> Any:
    return render_template("vestorsjo/new.html", form=form, error=error), status


@bp.route("/vestorsjo", methods=["GET", "POST"])
def new_game() -> Any:
    """Start a Vestorsjø game: pass-and-play, against a friend's device, or against the computer."""
    if request.method == "GET":
        return _new_game_page({}, None)
    form = request.form.to_dict()
    try:
        seats.check_creation_limit(vs.MODE)
    except TooManyRequests as exc:
        refused = make_response(*_new_game_page(form, exc.description, 429))
        refused.headers["Retry-After"] = str(exc.retry_after)
        return refused
    try:
        created = create_game(form)
    except RulesError as exc:
        return _new_game_page(form, say(exc.message), 400)
    response = redirect(url_for("vestorsjo.play_page", game_id=created["game"]), code=303)
    return seats.with_device_cookies(response, created["game"], created["devices"])


@bp.get("/v/<game_id>")
def play_page(game_id: str) -> Any:
    """Show a player's page; anyone else is sent to the projector view.

    Scania's device in a game against a friend shows the invite while no device holds Zealand.
    """
    state = load_game(game_id)
    role = role_in(game_id, None, state)
    if role.kind != "player":
        return redirect(url_for("vestorsjo.watch_page", game_id=game_id), code=303)
    device = current_team(game_id)
    invite = None
    if against_friend(game_id, state):
        url = seats.join_link("vestorsjo.play_page", game_id, GUEST)
        invite = {"url": url, "qr": Markup(qr_svg(url, 6)) if url else None, "joined": url is None}
    computer = state.log[0].data.get("computer") if state.log else None
    data = {"hotseat": device == BOTH, "device": device, "computer": computer}
    return page("vestorsjo/play.html", game_id, role, state, data=data, invite=invite, hotseat=device == BOTH)


@bp.post("/v/<game_id>/invite")
def invite_page(game_id: str) -> Any:
    """Scania's "new invite": the friend's old device is cut off, and Scania's page shows a new link."""
    state = load_game(game_id)
    if not against_friend(game_id, state):
        abort(403, description=_("Only Scania's device of a game against a friend may invite the friend again."))
    if state.outcome is not None:
        abort(409, description=_("The game is over."))
    seats.new_invite(game_id, GUEST)
    return redirect(url_for("vestorsjo.play_page", game_id=game_id), code=303)


@bp.get("/v/<game_id>/watch")
def watch_page(game_id: str) -> Any:
    """Show the projector: the board large, the port counters and the log, live."""
    state = load_game(game_id)
    return page("vestorsjo/watch.html", game_id, PUBLIC, state)


# --- JSON API --------------------------------------------------------------------------------


@bp.post("/api/vestorsjo/games")
def api_create() -> Any:
    """Create a game: {opponent, dice, level?, start?}; the caller's browser gets Scania (or both sides)."""
    seats.check_creation_limit(vs.MODE)
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise MalformedAction("send a JSON object (Content-Type: application/json)")
    created = create_game(body)
    response = jsonify({"game": created["game"], "links": created["links"]})
    response.status_code = 201
    return seats.with_device_cookies(response, created["game"], created["devices"])
