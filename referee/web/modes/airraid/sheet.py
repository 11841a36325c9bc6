"""The air raid's score sheet: the page people keep, its timeline for the projector, and two CSV files.

- `GET /g/<game_id>/sheet`: the result and how it was decided, the teams, the pilots, the rounds,
  each sea at the end and where the bombs fell on it (inline SVG), and the timeline; A4 print.
- `GET /g/<game_id>/sheet?view=timeline`: the timeline alone, in type read from the back of a room.
- `GET /api/games/<game_id>/pilots.csv` and `…/events.csv`: the pilots and the moments of the game,
  in the page's language, for a spreadsheet to open as they are.

Who may see them is who may download the log (`api.require_log_access`): the referee at any time,
everyone once the game is over, since the sheet shows both fleets and every order. The words are
`sheet_words.py`, the seas' drawing `sheet_seas.py`, the CSV files' form `sheet_csv.py`.
"""

from __future__ import annotations

import time
from functools import partial
from typing import Any

from flask import Blueprint, abort, copy_current_request_context, render_template, request
from flask_babel import gettext as _  # type: ignore[import-untyped]

from referee.rules import airraid
from referee.rules.events import REFEREE, Role
from referee.web.api import exports
from referee.web.api.routes import require_log_access
from referee.web.i18n import current_lang, say, say_all
from referee.web.modes.airraid.sheet_csv import csv_response
from referee.web.modes.airraid.sheet_seas import sea_picture
from referee.web.modes.airraid.sheet_words import (
    PILOT_COLUMNS,
    clock,
    how_decided,
    merged_rows,
    minutes,
    moment_row,
    pilot_headers,
    round_rows,
    ship_names,
    team_name,
    team_rows,
    winner_words,
)
from referee.web.modes.airraid.views import load_state, role_in

bp = Blueprint("sheet", __name__)


def made_sheet(game_id: str, state: airraid.State) -> airraid.Sheet:
    """Return the game's score sheet: made once per version, in a thread (a long game's walk takes a while)."""
    return exports.once("sheet", game_id, state.version, partial(airraid.score_sheet, state))


def sheet_state(game_id: str) -> tuple[airraid.State, Role]:
    """Return an air-raid game and the caller's role, refused as the log is: 404 no game, 403 not yet."""
    state = load_state(game_id)
    require_log_access(game_id, state)
    return state, role_in(game_id)


def end_seas(state: airraid.State, role: Role) -> dict[str, Any]:
    """Return both seas with their fleets, for the referee or once the game is over; refuse anyone else.

    The referee's view is the only one holding both fleets; it is asked for here, and only here,
    after the same check the log has: a team never sees the other's sea before the end.
    """
    if role != REFEREE and state.phase != "over":
        abort(403, description=_("The full log holds both fleets: it opens to everyone when the game is over."))
    view = say_all(airraid.view_for(state, REFEREE, now=time.time(), log_limit=1))
    seas: dict[str, Any] = view["seas"]
    return seas


@bp.get("/g/<game_id>/sheet")
def sheet_page(game_id: str) -> Any:
    """Show the score sheet (referee; everyone once the game is over); ?view=timeline for the projector."""
    state, role = sheet_state(game_id)
    mode = request.args.get("view", "sheet")
    if mode not in ("sheet", "timeline"):
        abort(400, description=_("view is sheet or timeline."))

    def render() -> str:
        sheet = made_sheet(game_id, state)
        seas = end_seas(state, role)
        rows = merged_rows(state, sheet, ship_names(seas))
        groups: list[dict[str, Any]] = []
        for row in rows:
            if not groups or groups[-1]["round"] != row.round:
                groups.append({"round": row.round, "rows": []})
            groups[-1]["rows"].append(row)
        teams = {t: {"name": state.teams[t].name, "colour": state.teams[t].colour} for t in airraid.TEAMS}
        result = sheet.result
        context: dict[str, Any] = {
            "game_id": game_id,
            "role": role,
            "teams": teams,
            "result": result,
            "headline": winner_words(state, result.winner) if result.over else _("Game not over yet"),
            "how": how_decided(state, result),
            "detail": say(result.detail) if result.reason in ("forfeit", "referee_ended") else "",
            "timeline": groups,
            "lengths": {
                str(r.number): minutes(r.ended_at - r.started_at) for r in sheet.rounds if r.started_at and r.ended_at
            },
            "ruleset": state.ruleset.name_in(current_lang()),
            "practice": state.practice,
            "started": clock(state.log[0].at) if state.log else "",
            "date": time.strftime("%Y-%m-%d", time.localtime(state.log[0].at)) if state.log else "",
        }
        if mode == "timeline":
            return render_template("games/sheet.html", view_mode="timeline", **context)
        pilots = [
            {"team": p.team, "pilot": p.pilot, "values": [getattr(p, c) for c in PILOT_COLUMNS]} for p in sheet.pilots
        ]
        return render_template(
            "games/sheet.html",
            view_mode="sheet",
            team_rows=team_rows(state, sheet),
            pilot_headers=pilot_headers(),
            pilots=pilots,
            rounds=round_rows(sheet),
            seas=[sea_picture(state, t, seas[t], sheet.bombs[t]) for t in airraid.TEAMS],
            voided=sheet.voided,
            **context,
        )

    # Made once per game version, language, role and address (its links), in a thread: 12 ms of
    # templates for a long game alone, several times that beside another download's thread.
    return exports.download(
        "sheet-page",
        game_id,
        state.version,
        copy_current_request_context(render),
        current_lang(),
        str(role),
        request.full_path,
        mimetype="text/html",
    )


@bp.get("/api/games/<game_id>/pilots.csv")
def pilots_csv(game_id: str) -> Any:
    """Download one row per pilot: team, pilot, sorties, dogfights, bombs, hits, sinkings, trophies."""
    state, _role = sheet_state(game_id)
    sheet = made_sheet(game_id, state)
    header = [_("Team"), _("Pilot"), *pilot_headers()]
    rows = [[team_name(state, p.team), p.pilot, *(getattr(p, c) for c in PILOT_COLUMNS)] for p in sheet.pilots]
    return csv_response(game_id, "pilots", header, rows)


@bp.get("/api/games/<game_id>/events.csv")
def events_csv(game_id: str) -> Any:
    """Download one row per moment of the game, in words: round, time, corridor, who, what, result."""
    state, role = sheet_state(game_id)
    sheet = made_sheet(game_id, state)
    ships = ship_names(end_seas(state, role))
    header = [_("Round"), _("Time"), _("In the round"), _("Corridor"), _("Who"), _("What"), _("Result")]
    rows: list[list[object]] = []
    for m in sheet.timeline:
        row = moment_row(state, m, ships)
        rows.append([row.round, row.clock, row.into, row.corridor, row.who, row.what, row.result])
    return csv_response(game_id, "events", header, rows)


def init_app(app: Any) -> None:
    """Register the score sheet's blueprint."""
    app.register_blueprint(bp)
