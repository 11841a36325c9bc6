"""Paper for the cabins (`GET /g/<game>/print`, the referee's): per team, on A4 sheets of their own.

Each team's sheets are in that team's language (`?lang_A=cs&lang_B=en`, else the page's): the
join card to leave in the cabin (its QR code and address), the team's sea once locked, for the
physical board where the planes stand, and blank grids of the sea's size for planning. The
teams' sheets never share a page: each goes to its own cabin.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, current_app, render_template, request
from flask_babel import force_locale  # type: ignore[import-untyped]
from flask_babel import gettext as _

from referee.rules import airraid
from referee.rules.events import REFEREE
from referee.web.api.acting import view_of
from referee.web.i18n import current_lang
from referee.web.links import qr_svg
from referee.web.modes.airraid.games import join_url
from referee.web.modes.airraid.views import load_state, role_in

bp = Blueprint("print_pack", __name__)


@bp.get("/g/<game_id>/print")
def print_pack(game_id: str) -> Any:
    """Show the print pack: both teams' join cards, seas and blank grids, each team in its language."""
    state = load_state(game_id)
    if role_in(game_id) != REFEREE:
        abort(403, description=_("Only the referee may print the teams' papers."))
    languages = list(current_app.config["LANGUAGES"])
    here = current_lang()
    chosen = {}
    for team in airraid.TEAMS:
        asked = request.args.get(f"lang_{team}", here)
        chosen[team] = asked if asked in languages else here
    view = view_of(state, REFEREE, game_id)
    teams = []
    for team in airraid.TEAMS:
        url = join_url(game_id, team, reissue=False)
        sea = view["seas"][team]
        with force_locale(chosen[team]):
            html = render_template(
                "games/print_team.html",
                team=team,
                me=view["teams"][team],
                them=view["teams"][airraid.other(team)],
                sea=sea,
                locked=bool(view["teams"][team].get("locked")) and bool(sea.get("ships")),
                join=url,
                qr=qr_svg(url, box_size=8),
                lang=chosen[team],
            )
        teams.append({"team": team, "name": view["teams"][team]["name"], "lang": chosen[team], "html": html})
    return render_template("games/print.html", game_id=game_id, teams=teams, languages=languages)
