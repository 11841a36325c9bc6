"""A practice game: the server plays both teams and their pilots, so a referee learns the dashboard.

The referee starts one from the home page (`POST /games/practice`); its teams place their seas,
choose defenders, write orders, fly, report dogfights (now and then two pilots disagree: a
dispute to settle) and answer bombings by themselves, one move every few seconds. The referee
starts the game and each round, watches the projector, and steps in as on a real night (pause,
settle, void, end). `POST /api/games/<game>/practice {"seconds": 0|1|3|6}` sets the pace (0:
stopped). Every move goes through the play service as the role that makes it, as a phone's
would: pushed to every screen, written to the log. The game is marked (`practice` in its views):
its score sheet says that it counts for nothing. The players live in the server's process: after
a restart they wait ("stopped" on the dashboard) until the referee sets a pace again.

The players' throws are physical chance in a real game; here they are the server's (Python's
`random`), entered as any phone enters them.
"""

from __future__ import annotations

import logging
import random
from typing import Any

from flask import Blueprint, Flask, abort, current_app, jsonify, redirect, render_template, url_for
from flask_babel import gettext as _  # type: ignore[import-untyped]
from werkzeug.wrappers import Response

from referee.rules import airraid
from referee.rules.errors import RulesError
from referee.rules.events import REFEREE, Role
from referee.store import GameNotFound, StoreError
from referee.web.access import is_server_referee
from referee.web.api import acting
from referee.web.api.routes import json_body
from referee.web.extensions import socketio
from referee.web.modes.airraid.games import create_game
from referee.web.modes.airraid.views import load_state, role_in

log = logging.getLogger(__name__)
bp = Blueprint("practice", __name__)

PACES = (0, 1, 3, 6)
"""Seconds between two of the simulated players' moves (0: they wait)."""
DEFAULT_PACE = 3
PLAYERS = {
    "A": ["Ada", "Ben", "Cyril", "Dana", "Emil"],
    "B": ["Filip", "Gita", "Hugo", "Iva", "Jan"],
}
MAX_PLAYING = 4
"""Practice games whose players play at once in one process: a rehearsal, not a load test."""
DISPUTE_RATE = 0.15
"""How often the second pilot of a dogfight reports the other result: a dispute for the referee."""


@bp.get("/games/practice")
def practice_page() -> str:
    """Say what a practice game is, with the button that starts one (the referee)."""
    if not is_server_referee():
        abort(403, description=_("Only the referee may start a practice game."))
    return render_template("games/practice.html")


@bp.post("/games/practice")
def start_practice() -> Any:
    """From the home page (the referee): a practice game with simulated teams, then its dashboard."""
    if not is_server_referee():
        abort(403, description=_("Only the referee may start a practice game."))
    teams = [
        {"name": _("Practice A"), "players": PLAYERS["A"]},
        {"name": _("Practice B"), "players": PLAYERS["B"]},
    ]
    made = create_game({"teams": teams, "practice": True})
    players().pace(made["game"], DEFAULT_PACE)
    return redirect(url_for("games.referee_page", game_id=made["game"]), code=303)


@bp.post("/api/games/<game_id>/practice")
def api_pace(game_id: str) -> Response | tuple[Response, int]:
    """Set the simulated players' pace (the referee of a practice game): {"seconds": 0, 1, 3 or 6}."""
    state = load_state(game_id)
    if role_in(game_id) != REFEREE:
        abort(403, description=_("Only the referee sets the pace of a practice game."))
    if not state.practice:
        return jsonify({"error": "illegal", "message": _("This is no practice game: its players are people.")}), 409
    seconds = json_body().get("seconds")
    if type(seconds) is not int or seconds not in PACES:
        abort(400, description=_("seconds must be one of 0, 1, 3 or 6."))
    if not players().pace(game_id, seconds):
        message = _("%(n)s practice games are playing already: stop one first.", n=MAX_PLAYING)
        return jsonify({"error": "illegal", "message": message}), 409
    return jsonify({"ok": True, "seconds": seconds})


class Players:
    """The simulated players of this process's practice games: each game's pace, and its loop."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.paces: dict[str, int] = {}

    def pace(self, game_id: str, seconds: int) -> bool:
        """Set a practice game's pace; start its players if they are not playing in this process.

        False (and nothing changed) when MAX_PLAYING other practice games play already.
        """
        playing = self.paces.get(game_id, 0) > 0
        others = sum(1 for g, p in self.paces.items() if p > 0 and g != game_id)
        if seconds > 0 and not playing and others >= MAX_PLAYING:
            return False
        self.paces[game_id] = seconds
        if seconds > 0 and not playing and not self.app.config.get("TESTING"):
            socketio.start_background_task(self._play, game_id)
        return True

    def _play(self, game_id: str) -> None:
        """One game's players: a move, a pause, until stopped or the game is over."""
        rng = random.Random()
        while self.paces.get(game_id, 0) > 0:
            socketio.sleep(self.paces[game_id])
            with self.app.test_request_context("/"):
                try:
                    if step(game_id, rng) == "over":
                        break
                except GameNotFound:
                    break  # the referee deleted it
                except StoreError:
                    continue  # busy a moment: the next pause tries again
                except Exception:  # a practice game's player never takes the server down
                    log.exception("practice game %s: a simulated move failed", game_id)
        self.paces.pop(game_id, None)


def players() -> Players:
    """This app's simulated players."""
    found: Players = current_app.extensions["referee.practice"]
    return found


def init_app(app: Flask) -> None:
    """Register the practice game's routes and its players."""
    app.extensions["referee.practice"] = Players(app)
    app.register_blueprint(bp)


def step(game_id: str, rng: random.Random) -> str:
    """Make one simulated player's move, if any is due; return what happened ("moved", "waiting", "over")."""
    state = load_state(game_id)
    if state.phase == "over" or not state.practice:
        return "over"
    move = next_move(state, rng)
    if move is None:
        return "waiting"  # for the referee: to start the game, a round, or to settle a dispute
    role, action = move
    try:
        acting.run_action(game_id, role, action, device_id=None, with_view=False)
    except RulesError:
        return "waiting"  # the state moved on between the look and the move: the next look sees it
    return "moved"


def next_move(state: airraid.State, rng: random.Random) -> tuple[Role, dict[str, Any]] | None:
    """Choose a move one of the simulated players would make now, from what the rules allow them.

    Both teams' seas first, then both defenders (the referee may start the round once they are
    chosen), then the orders, the bombings at the bases and the dogfights in the corridors.
    """
    bases = [(team, Role("team", team), airraid.legal_actions(state, Role("team", team))) for team in airraid.TEAMS]
    for wanted in ("lock_sea", "set_defender", "add_order", "announce_bombing", "report_bombing"):
        for team, base, entries in bases:
            for entry in entries:
                if entry["type"] == wanted:
                    move = _base_move(state, team, entry, rng)
                    if move is not None:
                        return base, move
    rnd = state.round
    if rnd is None or rnd.phase != "airborne":
        return None
    for meeting in airraid.due_dogfights(state):
        for pilot in (meeting.a, meeting.b):
            role = Role("pilot", pilot)
            for entry in airraid.legal_actions(state, role):
                if entry["type"] == "confirm_dogfight" and rng.random() > DISPUTE_RATE:
                    return role, {"type": "confirm_dogfight", "a": meeting.a, "b": meeting.b}
                if entry["type"] == "report_dogfight":
                    a, b = rnd.orders[meeting.a], rnd.orders[meeting.b]
                    return role, {"type": "report_dogfight", "a": a.id, "b": b.id, **_dogfight_throws(a, b, rng)}
    return None


def _base_move(state: airraid.State, team: str, entry: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """A team base's move for one of its legal actions, or None when it has nothing to do there."""
    kind = entry["type"]
    if kind == "lock_sea":
        draft = airraid.sea_draft(state, Role("team", team), team)
        ships = draft.random(rng.getrandbits(63))
        return {"type": "lock_sea", "team": team, "ships": [s.to_dict(draft.grid) for s in ships]}
    if kind == "set_defender":
        defenders = state.round.defenders if state.round else {}
        if entry["options"] and team not in defenders:
            return {"type": "set_defender", "team": team, "pilot": rng.choice(entry["options"])}
        return None
    if kind == "add_order":
        return _order(state, team, entry["options"], rng)
    if kind == "announce_bombing":
        return {"type": "announce_bombing", "order": entry["order"]}
    return {"type": "report_bombing", "order": entry["order"], **_bombing_throws(rng)}


def _order(state: airraid.State, team: str, options: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    pilots = options["pilots"]
    planes = [(s["ship"], kind) for s in options["ships"] for kind in airraid.PLANE_KINDS if s[kind] > 0]
    corridors = [c["corridor"] for c in options["corridors"] if c["positions"]]
    if not (pilots and planes and corridors):
        return None
    ship, kind = rng.choice(planes)
    order = {"type": "add_order", "team": team, "pilot": pilots[0], "kind": kind, "ship": ship}
    order["corridor"] = rng.choice(corridors)
    if kind == airraid.BOMBER:
        grid = state.grid(airraid.other(team))
        order["target"] = grid.square_name(rng.choice(list(grid.squares())))
    return order


def _dogfight_throws(a: airraid.Order, b: airraid.Order, rng: random.Random) -> dict[str, Any]:
    """One throw's winner; a fighter that loses to a bomber passes or throws again."""
    first = rng.choice(["A", "B"])
    throws = [{"winner": first}]
    if a.kind == b.kind:
        return {"throws": throws}
    fighter_team = a.team if a.kind == airraid.FIGHTER else b.team
    if first == fighter_team:
        return {"throws": throws}
    if rng.random() < 0.5:
        return {"throws": throws, "choice": "pass"}
    return {"throws": [*throws, {"winner": rng.choice(["A", "B"])}], "choice": "continue"}


def _bombing_throws(rng: random.Random) -> dict[str, Any]:
    """The ship's duel with a bomber: the bomber hits at once, or the ship wins and the bomber leaves or goes on."""
    if rng.random() < 0.5:
        return {"throws": [{"winner": "bomber"}]}
    if rng.random() < 0.4:
        return {"throws": [{"winner": "ship"}], "choice": "leave"}
    return {"throws": [{"winner": "ship"}, {"winner": rng.choice(["bomber", "ship"])}], "choice": "continue"}
