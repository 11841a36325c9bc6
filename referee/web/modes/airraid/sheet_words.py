"""The score sheet in words, in the page's language: names and results, the timeline's rows, the tables' rows.

What the page, the projector's timeline and the CSV files say comes from here, so they say it alike.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

from flask_babel import gettext as _  # type: ignore[import-untyped]
from flask_babel import ngettext

from referee.rules import airraid


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


# --- The tables -----------------------------------------------------------------------------


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
