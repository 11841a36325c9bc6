"""Battleship's pages and its own routes: the lobby, a player's page, the projector, rematches, the scores.

Playing goes through the API every mode shares (web/api/routes.py, web/live.py); these routes create
games and open the pages.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, make_response, redirect, render_template, request, url_for
from werkzeug.exceptions import TooManyRequests

from referee.rules import battleship as bs
from referee.rules.errors import MalformedAction, RulesError
from referee.rules.events import PUBLIC, Role
from referee.web.access import Access, current_roles, current_team
from referee.web.i18n import say
from referee.web.links import qr_svg
from referee.web.modes import seats
from referee.web.modes.battleship.games import against_friend, create_game, new_invite, rematch, ruleset_choices
from referee.web.modes.battleship.scores import SCORE_HOURS, scoreboard
from referee.web.modes.battleship.views import HOTSEAT, load_game, role_in, view_of

bp = Blueprint("battleship", __name__)


def page(template: str, game_id: str, role: Role, state: bs.State, **extra: Any) -> str:
    """Render a Battleship page with its initial view handed to the page's script."""
    view = view_of(state, role, game_id)
    page_data = {
        "game": game_id,
        "role": role,
        "seq": state.version,
        "view": view,
        "api": f"/api/games/{game_id}",
        **extra.pop("data", {}),
    }
    return render_template(
        template, game_id=game_id, role=role, view=view, seq=state.version, page_data=page_data, **extra
    )


@bp.route("/battleship", methods=["GET", "POST"])
def lobby() -> Any:
    """Start a Battleship game: against a friend, the computer, or pass-and-play."""
    if request.method == "GET":
        return render_template("battleship/lobby.html", rulesets=ruleset_choices(), form={}, error=None)
    form = request.form.to_dict()
    try:
        seats.check_creation_limit(bs.MODE)
    except TooManyRequests as exc:
        page = render_template("battleship/lobby.html", rulesets=ruleset_choices(), form=form, error=exc.description)
        refused = make_response(page, 429)
        refused.headers["Retry-After"] = str(exc.retry_after)
        return refused
    try:
        created = create_game(form)
    except RulesError as exc:
        return render_template(
            "battleship/lobby.html", rulesets=ruleset_choices(), form=form, error=say(exc.message)
        ), 400
    response = redirect(url_for("battleship.play_page", game_id=created["game"]), code=303)
    return seats.with_device_cookies(response, created["game"], created["devices"])


@bp.get("/b/<game_id>")
def play_page(game_id: str) -> Any:
    """Show a player's page (placement, play, end); anyone else is sent to the projector view.

    Player A of a game against a friend sees the friend's invite while no phone holds seat B,
    else the "new invite" button.
    """
    state = load_game(game_id)
    role = role_in(game_id, None, state)
    if role.kind != "player":
        return redirect(url_for("battleship.watch_page", game_id=game_id), code=303)
    data: dict[str, Any] = {"hotseat": current_team(game_id) == HOTSEAT}
    invite = None
    if against_friend(state) and current_team(game_id) == "A":
        url = seats.join_link("battleship.play_page", game_id, "B")
        invite = {"url": url, "qr": qr_svg(url, 6) if url else None, "joined": url is None}
    return page("battleship/play.html", game_id, role, state, data=data, invite=invite)


@bp.post("/b/<game_id>/invite")
def invite_page(game_id: str) -> Any:
    """Player A's "new invite": the friend's old phone is cut off, and A's page shows a new link."""
    new_invite(game_id, load_game(game_id))
    return redirect(url_for("battleship.play_page", game_id=game_id), code=303)


@bp.get("/b/<game_id>/watch")
def watch_page(game_id: str) -> Any:
    """Show the spectator view (both seas' shots, no ships until the end); the referee may forfeit."""
    state = load_game(game_id)
    referee = Access.REFEREE in current_roles(game_id)
    return page("battleship/watch.html", game_id, PUBLIC, state, data={"referee": referee}, referee=referee)


@bp.post("/b/<game_id>/rematch")
def rematch_page(game_id: str) -> Any:
    """Start or join the rematch from the end screen, and open it."""
    state = load_game(game_id)
    created = rematch(game_id, state, role_in(game_id, None, state))
    response = redirect(url_for("battleship.play_page", game_id=created["game"]), code=303)
    return seats.with_device_cookies(response, created["game"], created["devices"])


@bp.get("/battleship/scores")
def scores_page() -> Any:
    """Show the club's scoreboard of the evening: wins, games and shots per game per player name."""
    return render_template("battleship/scores.html", scores=scoreboard(), hours=SCORE_HOURS)


# --- JSON API --------------------------------------------------------------------------------


def _json() -> dict[str, Any]:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise MalformedAction("send a JSON object (Content-Type: application/json)")
    return data


@bp.post("/api/battleship/games")
def api_create() -> Any:
    """Create a game; the caller's browser becomes player A (or both, pass-and-play)."""
    seats.check_creation_limit(bs.MODE)
    created = create_game(_json())
    response = jsonify({"game": created["game"], "links": created["links"]})
    response.status_code = 201
    return seats.with_device_cookies(response, created["game"], created["devices"])


@bp.post("/api/battleship/games/<game_id>/rematch")
def api_rematch(game_id: str) -> Any:
    """Start or join the rematch of a finished game (a player); the caller's browser joins it."""
    state = load_game(game_id)
    created = rematch(game_id, state, role_in(game_id, None, state))
    response = jsonify({"game": created["game"], "links": created["links"]})
    return seats.with_device_cookies(response, created["game"], created["devices"])


@bp.get("/api/battleship/scores")
def api_scores() -> Any:
    """The scoreboard of the evening: [{name, wins, games, shots_per_game, computer}]."""
    return jsonify({"hours": SCORE_HOURS, "scores": scoreboard()})
