"""The JSON API every mode shares: create, view, act, and the event log.

A mode reaches the web through the rules registry (`referee.rules.find_mode`) and its web side
(`web.modes`): a mode that brings no pages of its own is still created, watched and played here,
by the referee, over HTTP and Socket.IO (`live.py`). The air raid's own routes (teams, devices,
slips, seas) are in `modes/airraid/`, Battleship's in `modes/battleship/`.
"""

from __future__ import annotations

import csv
import io
import json
import time
from typing import Any

from flask import Blueprint, abort, jsonify, request
from flask_babel import gettext as _  # type: ignore[import-untyped]

from referee.rules import find_mode, mode_of
from referee.rules.errors import MalformedAction
from referee.rules.events import PUBLIC, REFEREE, encode
from referee.rules.placement import Impossible
from referee.rules.sea import Draft
from referee.web import modes
from referee.web.access import is_server_referee
from referee.web.api import exports
from referee.web.api.acting import load_any_state, play, role_of, run_action, view_of
from referee.web.extensions import db
from referee.web.i18n import current_lang, say, say_all
from referee.web.security import RULESET_BODY_LIMIT, body_limit

bp = Blueprint("api", __name__)


def json_body() -> dict[str, Any]:
    """Return the request's JSON object, or a 400 naming the problem."""
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise MalformedAction("send a JSON object (Content-Type: application/json)")
    return data


@bp.post("/api/modes/<mode>/games")
@body_limit(RULESET_BODY_LIMIT)  # a whole ruleset may come with it
def api_create(mode: str) -> Any:
    """Create a game of any registered mode (the referee): {action: the create_game action's data}."""
    if not is_server_referee():
        abort(403, description=_("Only the referee may create a game."))
    found = find_mode(mode)
    action = json_body().get("action")
    if not isinstance(action, dict):
        raise MalformedAction("action must be the game's create_game action, a JSON object")
    acted = play().create(found.name, {**action, "type": "create_game"}, by="referee")
    return jsonify({"game": acted.result.game_id, "mode": found.name, "seq": acted.state.version}), 201


@bp.get("/api/games/<game_id>/view")
def api_view(game_id: str) -> Any:
    """Return the caller's view of a game of any mode (pilots pass ?slip=)."""
    state = load_any_state(game_id)
    role = role_of(game_id, request.args.get("slip"), state)
    return jsonify(view_of(state, role, game_id))


@bp.post("/api/games/<game_id>/actions")
def api_action(game_id: str) -> Any:
    """Apply one action as the caller's role, in a game of any mode: {action, client_id?, version?, slip?}."""
    body = json_body()
    state = load_any_state(game_id)
    role = role_of(game_id, body.get("slip") if isinstance(body.get("slip"), str) else None, state)
    if role == PUBLIC:
        abort(403, description=_("Watchers cannot act. Join a team or open your slip."))
    return jsonify(
        run_action(game_id, role, body.get("action"), client_id=body.get("client_id"), version=body.get("version"))
    )


def require_log_access(game_id: str, state: Any) -> None:
    """Refuse the full log (which holds every secret) to anyone but the referee until the game ends."""
    if mode_of(state).outcome(state) is None and role_of(game_id, None, state) != REFEREE:
        abort(403, description=_("The full log holds both fleets: it opens to everyone when the game is over."))


@bp.get("/api/games/<game_id>/events")
def api_events(game_id: str) -> Any:
    """Return the event log after a seq (referee; anyone once the game is over)."""
    state = load_any_state(game_id)
    require_log_access(game_id, state)
    try:
        since = int(request.args.get("since", "0"))
    except ValueError:
        raise MalformedAction("since must be a whole number") from None
    if not 0 <= since <= 2**62:  # the database's integers end at 2**63 (found by the API fuzz: a 500)
        raise MalformedAction("since must be a whole number from 0")
    return jsonify({"events": [e.to_dict() for e in db.store.events_since(game_id, since)]})


@bp.get("/api/games/<game_id>/log.json")
def api_log_json(game_id: str) -> Any:
    """Download the whole event log as JSON (referee; anyone once the game is over)."""
    state = load_any_state(game_id)
    require_log_access(game_id, state)
    # The events stay exactly as stored (the file replays as it is); what a void did to them is
    # beside them, by seq: undone (voided) or no longer applying (skipped), each with its reason.
    outcome = mode_of(state).outcome(state)
    skipped = say_all(dict(state.skipped))  # (translated here: the file is written in a thread)

    def build() -> str:
        return json.dumps(
            {
                "game": game_id,
                "events": [e.to_dict() for e in state.log],
                "voided": dict(getattr(state, "voided", {})),
                "skipped": skipped,
                "outcome": encode(outcome) if outcome is not None else None,
            },
            ensure_ascii=False,
            indent=1,
        )

    return exports.download(
        "log.json",
        game_id,
        state.version,
        build,
        current_lang(),
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="referee-{game_id}.json"'},
    )


@bp.get("/api/games/<game_id>/log.csv")
def api_log_csv(game_id: str) -> Any:
    """Download the event log as CSV, one row per event (referee; anyone once the game is over)."""
    state = load_any_state(game_id)
    require_log_access(game_id, state)
    voided: dict[int, str] = dict(getattr(state, "voided", {}))

    def build() -> str:
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["seq", "time", "by", "kind", "data", "voided", "skipped"])
        for e in state.log:
            writer.writerow(
                [
                    e.seq,
                    time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(e.at)),
                    e.by,
                    e.kind,
                    json.dumps(dict(e.data), ensure_ascii=False),
                    voided.get(e.seq, ""),
                    state.skipped.get(e.seq, ""),
                ]
            )
        return out.getvalue()

    return exports.download(
        "log.csv",
        game_id,
        state.version,
        build,
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="referee-{game_id}.csv"'},
    )


# --- A draft sea, for every mode whose sides place fleets ------------------------------------

# The side a draft is for, as each mode's page names it (the air raid's teams, Battleship's players).
SIDE_FIELDS = ("side", "team", "player")


def _draft(game_id: str, body: dict[str, Any]) -> Draft:
    """Return the draft sea the caller asks for: the mode's own, checked for the caller's role."""
    state = load_any_state(game_id)
    why = modes.of(state).gone
    gone = why(game_id) if why is not None else None
    if gone:
        abort(410, description=gone)
    sea_draft = mode_of(state).sea_draft
    if sea_draft is None:
        abort(404, description=_("No fleet is placed in this game."))
    side = next((body[k] for k in SIDE_FIELDS if k in body), None)
    draft: Draft = sea_draft(state, role_of(game_id, None, state), side)
    return draft


@bp.post("/api/games/<game_id>/sea/check")
def api_sea_check(game_id: str) -> Any:
    """Check a draft fleet without storing it (that side, or the referee): {team|player, ships} → {ok, problems}."""
    body = json_body()
    draft = _draft(game_id, body)
    problems = draft.problems(body.get("ships"))
    grid = draft.grid
    return jsonify({"ok": not problems, "problems": [{**p.to_dict(grid), "message": say(p.message)} for p in problems]})


@bp.post("/api/games/<game_id>/sea/random")
def api_sea_random(game_id: str) -> Any:
    """Place a side's whole fleet at random, not stored (that side, or the referee): {team|player} → {ships}."""
    draft = _draft(game_id, json_body())
    try:
        ships = play().random_sea(draft)
    except Impossible as exc:
        return jsonify({"error": "impossible", "message": say(exc.message)}), 409
    return jsonify({"ships": [s.to_dict(draft.grid) for s in ships]})
