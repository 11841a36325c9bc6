"""The air raid's score sheet: the page people keep, its timeline for the projector, and two CSV files.

- `GET /g/<game_id>/sheet`: the result and how it was decided, the teams, the pilots, the rounds,
  each sea at the end and where the bombs fell on it (inline SVG), and the timeline; A4 print.
- `GET /g/<game_id>/sheet?view=timeline`: the timeline alone, in type read from the back of a room.
- `GET /api/games/<game_id>/pilots.csv` and `…/events.csv`: the pilots and the moments of the game,
  in the page's language, for a spreadsheet to open as they are.

Who may see them is who may download the log (`api.require_log_access`): the referee at any time,
everyone once the game is over, since the sheet shows both fleets and every order.

The CSV files are UTF-8 with a byte-order mark (so Excel reads Czech letters) and separated by
the list separator a spreadsheet of that language expects: a semicolon where the decimal mark is
a comma (Czech, Swedish, Dutch, Norwegian: Excel there splits on ";"), a comma elsewhere (English).
A cell that begins like a formula (= + - @) gets a leading apostrophe, as spreadsheets advise, so a
pilot named "=1+1" stays a name.
"""

from __future__ import annotations

import csv
import io
import time
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from babel.numbers import get_decimal_symbol
from flask import Blueprint, Response, abort, copy_current_request_context, render_template, request
from flask_babel import gettext as _  # type: ignore[import-untyped]
from flask_babel import ngettext

from referee.rules import airraid
from referee.rules.events import REFEREE, Role
from referee.rules.grid import Square
from referee.web import exports
from referee.web.api import require_log_access
from referee.web.i18n import current_lang, say, say_all
from referee.web.modes.airraid.pages import load_state, role_in

bp = Blueprint("sheet", __name__)

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
HEAT_LEVELS = 4  # 1, 2, 3 and "4 or more" bombs on one square


def made_sheet(game_id: str, state: airraid.State) -> airraid.Sheet:
    """Return the game's score sheet: made once per version, in a thread (a long game's walk takes a while)."""
    return exports.once("sheet", game_id, state.version, partial(airraid.score_sheet, state))


def sheet_state(game_id: str) -> tuple[airraid.State, Role]:
    """Return an air-raid game and the caller's role, refused as the log is: 404 no game, 403 not yet."""
    state = load_state(game_id)
    require_log_access(game_id, state)
    return state, role_in(game_id)


# --- Words --------------------------------------------------------------------------------


def team_name(state: airraid.State, team: str | None) -> str:
    """Return a team's name, or nothing for no team."""
    return state.teams[team].name if team in state.teams else ""


def corridor_word(corridor: str | None) -> str:
    """Translate a corridor's id (upper, middle, lower: words of the catalogue, referee/web/words.py)."""
    return _(corridor) if corridor else ""


def minutes(seconds: float | None) -> str:
    """Write a span of seconds as m:ss."""
    if seconds is None:
        return ""
    whole = int(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


def clock(at: float) -> str:
    """Write a moment as the server's local time of day (the club's clock), as the raw log does."""
    return time.strftime("%H:%M:%S", time.localtime(at))


def flyer_words(flyer: airraid.Flyer) -> str:
    """Name a plane as the room knows it: the pilot and the plane's label."""
    return f"{flyer.pilot} ({flyer.label})"


def winner_words(state: airraid.State, winner: str | None) -> str:
    """Say who won, or that it was a draw."""
    if winner in state.teams:
        return str(_("{team} won")).replace("{team}", team_name(state, winner))
    return str(_("A draw"))


ANSWERS = {"water": "WATER", "fight": "FIGHT", "already_hit": "ALREADY HIT"}


def answer_words(answer: str) -> str:
    """Say a defender's answer as it is called out at the screen."""
    return _(ANSWERS[answer]) if answer in ANSWERS else answer


def bombing_result_words(result: str) -> str:
    """Say how a bombing ended."""
    words = {
        "hit": _("hit"),
        "left": _("left empty-handed"),
        "shot_down": _("bomber shot down"),
        "water": _("water"),
        "already_hit": _("already hit"),
    }
    return str(words.get(result, result))


def how_decided(state: airraid.State, result: airraid.Result) -> list[str]:
    """Say, in a sentence or two, how the game was decided."""
    if not result.over:
        return [_("The game is still on: this is the sheet so far.")]
    loser = airraid.other(result.winner) if result.winner in state.teams else None
    lines: list[str] = []
    if result.reason == "fleet_sunk":
        lines.append(_("All the ships of %(team)s were sunk.", team=team_name(state, loser)))
    elif result.reason == "surrender":
        lines.append(str(_("{team} surrendered")).replace("{team}", team_name(state, loser)))
    elif result.reason == "forfeit":
        lines.append(str(_("{team} forfeited")).replace("{team}", team_name(state, loser)))
    elif result.reason == "round_limit":
        lines.append(
            ngettext(
                "The limit of %(num)s round was reached.", "The limit of %(num)s rounds was reached.", result.rounds
            )
        )
    elif result.reason == "fleets_sunk":
        lines.append(_("Both fleets sank in the same round."))
    elif result.reason == "referee_ended":
        lines.append(_("The referee ended the game."))
    deciding = next((b for b in result.tie_breaks if b.name == result.decided_by), None)
    if deciding is not None and result.winner in state.teams:
        high, low = max(deciding.a, deciding.b), min(deciding.a, deciding.b)
        team = team_name(state, result.winner)
        if deciding.name == "floating_squares":
            lines.append(
                _("%(team)s had more squares still afloat (%(high)s to %(low)s).", team=team, high=high, low=low)
            )
        else:
            lines.append(_("%(team)s had more trophies (%(high)s to %(low)s).", team=team, high=high, low=low))
    elif result.decided_by == "draw":
        lines.append(_("Every tie-break was level: a draw."))
    return lines


def tie_break_word(name: str) -> str:
    """Name a tie-break of the ruleset."""
    return str(_("Squares still afloat") if name == "floating_squares" else _("Trophies"))


# --- The timeline as rows of words ----------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One moment in words: what a table row, a CSV line and a projector line show."""

    round: str
    clock: str
    into: str
    corridor: str
    who: str
    what: str
    result: str
    kind: str  # round | dogfight | bombing | hit | sunk | over: what the page styles
    flyers: tuple[tuple[str, str], ...]  # (team, words) of each plane in `who`
    shot_down: bool = False


def ship_names(seas: dict[str, Any]) -> dict[tuple[str, str], str]:
    """Map (team, ship id) to the ship's name in the page's language, from the seas of a view."""
    return {(t, s["id"]): str(s.get("name", s["id"])) for t, sea in seas.items() for s in sea.get("ships", [])}


def moment_row(state: airraid.State, m: airraid.Moment, ships: dict[tuple[str, str], str]) -> Row:
    """Put one moment of the timeline into words."""
    flyers = tuple((f.team, flyer_words(f)) for f in m.flyers)

    def row(what: str, result: str, kind: str, *, named: bool = True, shot_down: bool = False) -> Row:
        return Row(
            round=str(m.round) if m.round is not None else "",
            clock=clock(m.at),
            into=minutes(m.into),
            corridor=corridor_word(m.corridor),
            who=" – ".join(words for _team, words in flyers) if named else "",
            what=what,
            result=result,
            kind=kind,
            flyers=flyers if named else (),
            shot_down=shot_down,
        )

    if m.what in ("round_started", "round_ended"):
        return row(_("Round started") if m.what == "round_started" else _("Round ended"), "", "round", named=False)
    if m.what == "dogfight":
        loser = next((f for f in m.flyers if f.order == m.shot_down), None)
        if loser is None:
            return row(_("Dogfight"), _("passed each other"), "dogfight")
        shot = str(_("{plane} shot down")).replace("{plane}", flyer_words(loser))
        return row(_("Dogfight"), shot, "dogfight", shot_down=True)
    if m.what in ("bombing", "bombing_result"):
        what = _("Bombing of %(team)s at %(square)s", team=team_name(state, m.team), square=m.square or "")
        result = answer_words(m.result) if m.what == "bombing" else bombing_result_words(m.result)
        return row(what, result, "hit" if m.result == "hit" else "bombing", shot_down=m.result == "shot_down")
    if m.what == "sunk":
        ship = ships.get((m.team or "", m.ship or ""), m.result)
        result = _("the %(ship)s of %(team)s", ship=ship, team=team_name(state, m.team))
        if m.planes:
            lost = ngettext("%(num)s plane lost with it", "%(num)s planes lost with it", m.planes)
            result = f"{result}, {lost}"
        return row(_("Ship sunk"), result, "sunk")
    return row(_("Game over"), winner_words(state, m.team), "over", named=False)


def merged_rows(state: airraid.State, sheet: airraid.Sheet, ships: dict[tuple[str, str], str]) -> list[Row]:
    """Put the timeline into words, a bombing's answer and its fight on one row ("FIGHT → hit")."""
    rows: list[Row] = []
    answered: dict[str, int] = {}
    for m in sheet.timeline:
        if m.what == "bombing_result" and m.flyers and m.flyers[0].order in answered:
            i = answered.pop(m.flyers[0].order)
            rows[i] = replace(
                rows[i],
                result=f"{rows[i].result} → {bombing_result_words(m.result)}",
                kind="hit" if m.result == "hit" else "bombing",
                shot_down=m.result == "shot_down",
            )
            continue
        if m.what == "bombing" and m.result == "fight" and m.flyers:
            answered[m.flyers[0].order] = len(rows)
        rows.append(moment_row(state, m, ships))
    return rows


# --- The seas, drawn ----------------------------------------------------------------------


CELL = 10  # one square of an SVG sea, in its user units; the labels take one more row and column


def sea_picture(state: airraid.State, team: str, sea: dict[str, Any], bombs: dict[str, int]) -> dict[str, Any]:
    """Lay out a sea at the end and its heat map: squares, ship outlines and marks, in SVG units."""
    grid = state.grid(team)
    ship_of: dict[Square, dict[str, Any]] = {}
    for ship in sea.get("ships", []):
        for name in ship["squares"]:
            ship_of[grid.parse_square(name)] = ship
    hits = set(sea.get("hits", []))
    shots = sea.get("shots", {})
    cells, heat = [], []
    for square in grid.squares():
        name = grid.square_name(square)
        ship = ship_of.get(square)
        if ship is not None:
            look = "sunk" if ship.get("sunk") else "hit" if name in hits else "ship"
        else:
            look = "miss" if shots.get(name) == "water" else "water"
        x, y = (square.col + 1) * CELL, (square.row + 1) * CELL
        cells.append({"x": x, "y": y, "look": look, "name": name})
        count = bombs.get(name, 0)
        heat.append({"x": x, "y": y, "count": count, "level": min(count, HEAT_LEVELS), "name": name})
    return {
        "team": team,
        "box": (grid.size + 1) * CELL,
        "columns": [{"x": (i + 1.5) * CELL, "text": c} for i, c in enumerate(sea["columns"])],
        "rows": [{"y": (i + 1.5) * CELL, "text": r} for i, r in enumerate(sea["rows"])],
        "cells": cells,
        "heat": heat,
        "outlines": outline_paths(ship_of),
        "bombs": sum(bombs.values()),
    }


def outline_paths(ship_of: dict[Square, dict[str, Any]]) -> list[dict[str, Any]]:
    """Draw each ship's outline: every side of its squares that borders no square of the same ship."""
    by_ship: dict[str, list[str]] = {}
    sunk: dict[str, bool] = {}
    for sq, ship in ship_of.items():
        x, y = (sq.col + 1) * CELL, (sq.row + 1) * CELL
        sides = by_ship.setdefault(ship["id"], [])
        sunk[ship["id"]] = bool(ship.get("sunk"))
        same = {n for n in sq.neighbours4() if ship_of.get(n) is ship}
        if Square(sq.col, sq.row - 1) not in same:
            sides.append(f"M{x} {y}h{CELL}")
        if Square(sq.col, sq.row + 1) not in same:
            sides.append(f"M{x} {y + CELL}h{CELL}")
        if Square(sq.col - 1, sq.row) not in same:
            sides.append(f"M{x} {y}v{CELL}")
        if Square(sq.col + 1, sq.row) not in same:
            sides.append(f"M{x + CELL} {y}v{CELL}")
    return [{"ship": k, "d": "".join(v), "sunk": sunk[k]} for k, v in sorted(by_ship.items())]


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


# --- The page -----------------------------------------------------------------------------


def team_rows(state: airraid.State, sheet: airraid.Sheet) -> list[dict[str, Any]]:
    """List the per-team table: a label, each team's value and its parts in words, and whether it decided the game."""
    decided = sheet.result.decided_by

    def row(
        label: str, values: dict[str, object], parts: dict[str, str] | None = None, name: str = ""
    ) -> dict[str, Any]:
        return {"label": label, "values": values, "parts": parts or {}, "deciding": bool(name) and name == decided}

    def per(get: Any) -> dict[str, object]:
        return {t: get(t) for t in airraid.TEAMS}

    score = sheet.teams
    lost_parts = {
        t: _("%(shot)s shot down, %(ships)s with ships", shot=score[t].shot_down, ships=score[t].lost_with_ships)
        for t in airraid.TEAMS
        if score[t].planes_lost
    }
    trophy_parts = {
        t: _("%(num)s by ships", num=score[t].ship_trophies) for t in airraid.TEAMS if score[t].ship_trophies
    }
    return [
        row(_("Enemy ships sunk"), per(lambda t: score[t].ships_sunk)),
        row(_("Squares hit"), per(lambda t: score[t].squares_hit)),
        row(_("Bombs dropped"), per(lambda t: score[t].bombs)),
        row(_("Sorties"), per(lambda t: score[t].sorties)),
        row(_("Dogfights won"), per(lambda t: score[t].dogfights_won)),
        row(_("Dogfights lost"), per(lambda t: score[t].dogfights_lost)),
        row(_("Planes lost"), per(lambda t: score[t].planes_lost), lost_parts),
        row(_("Trophies"), per(lambda t: score[t].trophies), trophy_parts, "trophies"),
        row(_("Ships afloat"), per(lambda t: f"{len(state.teams[t].afloat())} / {len(state.teams[t].fleet)}")),
        row(_("Squares still afloat"), per(lambda t: state.teams[t].floating_squares()), name="floating_squares"),
    ]


PILOT_COLUMNS = ("sorties", "dogfights_won", "dogfights_lost", "bombs", "hits", "sinkings", "trophies", "shot_down")


def pilot_headers() -> list[str]:
    """Name the columns of the pilots' table and file, after the team and the pilot."""
    return [
        _("Sorties"),
        _("Dogfights won"),
        _("Dogfights lost"),
        _("Bombs dropped"),
        _("Hits"),
        _("Ships sunk"),
        _("Trophies"),
        _("Shot down"),
    ]


def round_rows(sheet: airraid.Sheet) -> list[dict[str, Any]]:
    """List the per-round table: each count as "A – B" (a dogfight is both teams')."""

    def pair(d: dict[str, int]) -> str:
        return f"{d['A']} – {d['B']}"

    return [
        {
            "number": r.number,
            "length": minutes(r.ended_at - r.started_at) if r.started_at and r.ended_at else "",
            "sorties": pair(r.sorties),
            "dogfights": r.dogfights,
            "bombings": pair(r.bombings),
            "hits": pair(r.hits),
            "sinkings": pair(r.sinkings),
            "planes_lost": pair(r.planes_lost),
        }
        for r in sheet.rounds
    ]


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
            "ruleset": state.ruleset.name,
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


# --- The CSV files ------------------------------------------------------------------------


def list_separator(lang: str) -> str:
    """Return the separator a spreadsheet of a language splits on: ";" where the decimal mark is a comma."""
    try:
        return ";" if get_decimal_symbol(lang) == "," else ","
    except (ValueError, LookupError):
        return ","


def safe_cell(value: object) -> object:
    """Keep a text cell from being read as a formula; numbers pass as they are."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def csv_response(game_id: str, name: str, header: list[str], rows: list[list[object]]) -> Response:
    """Answer a CSV file a spreadsheet opens as it is: BOM, the language's separator, a download name."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=list_separator(current_lang()), lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows([safe_cell(v) for v in row] for row in rows)
    return Response(
        ("\ufeff" + out.getvalue()).encode("utf-8"),
        mimetype="text/csv",
        content_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="referee-{game_id}-{name}.csv"'},
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
