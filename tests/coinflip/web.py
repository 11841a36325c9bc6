"""The coin flip's own pages, as a new mode would add them: `referee/web/modes/coinflip.py`.

Not imported here: tests/web/test_new_mode_files.py copies it, with its two templates (`templates/coinflip/`)
and the rules package (`tests/coinflip/__init__.py`), into a copy of the project and plays it there.
A referee starts a game from the home page's button; the game's page shows the calls and falls.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, redirect, render_template, request, url_for

from referee.rules import coinflip
from referee.rules.events import REFEREE
from referee.web import modes
from referee.web.access import require_referee
from referee.web.api import acting

bp = Blueprint("coinflip", __name__)


@bp.route("/coinflip", methods=["GET", "POST"])
def new_game() -> Any:
    """Offer (GET) and start (POST) a game of three flips: the referee only."""
    require_referee()
    if request.method == "GET":
        return render_template("coinflip/new.html")
    action = {"type": "create_game", "flips": 3}
    result = acting.play().create(coinflip.MODE, action, by=REFEREE).result
    return redirect(url_for("coinflip.play_page", game_id=result.game_id), code=303)


@bp.get("/coinflip/<game_id>")
def play_page(game_id: str) -> Any:
    """Show the game: every call and fall so far."""
    state = acting.load_any_state(game_id)
    role = acting.role_of(game_id, None, state)
    return render_template("coinflip/play.html", view=acting.view_of(state, role, game_id))


def init_app(app: Flask) -> None:
    """Register the blueprint and the mode's web side: a home-page button for the referee."""
    modes.register(
        modes.WebMode(
            name=coinflip.MODE,
            home=lambda referee: [modes.HomeLink(url_for("coinflip.new_game"), "Coin flip", "big")] if referee else [],
        )
    )
    app.register_blueprint(bp)
