"""What each role may do now (`legal_actions`) and see (`view_for`): secrets are stripped here only."""

from __future__ import annotations

import dataclasses

from ..errors import MalformedAction, Msg, NotYourTurn
from ..events import JSON, REFEREE, Role
from ..sea import Draft, ship_labels
from ..shots import Volley
from .moves import computer_move_problem, fire_problem, forfeit_problem, place_fleet_problem
from .ruleset import MODE, PLAYERS, BattleshipRuleset, other
from .state import State, shots_due

# --- What each role may do and see -----------------------------------------------------------


def _role(role: Role | str) -> Role:
    return role if isinstance(role, Role) else Role.from_str(role)


def legal_actions(state: State, role: Role | str) -> list[JSON]:
    """List the actions a role may take now; a fire action lists the squares that may be called.

    A move is listed when its handler's predicate (in `moves`) lets the role make it for a player.
    """
    role = _role(role)
    acts: list[JSON] = []
    if state.over is not None:
        return acts  # the engine takes nothing once the game is over
    grid = state.grid()
    for p in PLAYERS:
        if place_fleet_problem(state, role, p) is None:
            acts.append({"type": "place_fleet", "player": p, "fleet": list(state.ruleset.fleet)})
        if fire_problem(state, role, p) is None:
            closed = state.players[other(p)].closed()
            free = [grid.square_name(s) for s in grid.squares() if s not in closed]
            acts.append({"type": "fire", "player": p, "count": shots_due(state), "squares": free})
    for p in PLAYERS:
        if computer_move_problem(state, role, p) is None:
            acts.append({"type": "computer_move", "player": p})
    acts.extend({"type": "forfeit", "player": p} for p in PLAYERS if forfeit_problem(state, role, p) is None)
    return acts


def _kind_view(rs: BattleshipRuleset, kind_id: str) -> JSON:
    kind = rs.sea.kinds[kind_id]
    return {"kind": kind_id, "name": kind.name, "names": dict(kind.names), "size": kind.shape.size}


def _ruleset_view(rs: BattleshipRuleset) -> JSON:
    grid = rs.grid()
    return {
        "id": rs.id,
        "name": rs.name,
        "names": dict(rs.names),
        "language": rs.language,
        "size": rs.size,
        "letters": rs.sea.letters,
        "column_labels": grid.column_labels(),
        "row_labels": grid.row_labels(),
        "touching": rs.sea.touching,
        "straight": rs.sea.straight,
        "shots_per_turn": rs.shots_per_turn,
        "report": rs.report,
        "per_shot": rs.per_shot,
        "again_on_hit": rs.again_on_hit,
        "sunk_ring": rs.sunk_ring,
        "fleet": [_kind_view(rs, k) for k in rs.fleet],
    }


def _truth(state: State, owner: str) -> list[JSON]:
    """Every shot at a sea as its owner knows it: the square, miss/hit/sunk (every square of a sunk ship
    reads "sunk"), the ship's kind (as in `Shot.to_dict`) and its letter."""
    grid = state.grid()
    side = state.players[owner]
    where = {s: ship for ship in side.ships for s in ship.squares}
    shots = []
    for square in side.shot_at:
        ship = where.get(square)
        result = "miss" if ship is None else "sunk" if ship.id in side.sunk else "hit"
        shots.append(
            {
                "square": grid.square_name(square),
                "result": result,
                "ship": ship.kind if ship else None,
                "letter": ship.id if ship else None,
            }
        )
    return shots


def _told(state: State, shooter: str) -> list[JSON]:
    """Every shot a player fired, as the player was told it (salvo totals leave results empty)."""
    grid = state.grid()
    return [shot.to_dict(grid) for volley in state.players[shooter].volleys for shot in volley.shots]


def _board_view(state: State, owner: str, role: Role, reveal: bool) -> JSON:
    """One sea: its ships when `reveal`, the shots at it (the truth for its owner and the referee)."""
    grid = state.grid()
    side = state.players[owner]
    knows = reveal or role.kind == "referee" or (role.kind == "player" and role.subject == owner)
    labels = ship_labels(state.ruleset.worded_sea, side.ships, fleet=state.ruleset.fleet)
    board: JSON = {
        "owner": owner,
        "shots": _truth(state, owner) if knows else _told(state, other(owner)),
        "marked": [grid.square_name(s) for s in side.marked],
        "sunk": [next(s.kind for s in side.ships if s.id == i) for i in side.sunk],
        "remaining": [s.kind for s in side.afloat()],
        "afloat": len(side.afloat()),
    }
    if knows:
        board["ships"] = [
            {**s.to_dict(grid), "name": str(labels[s.id]), "names": labels[s.id].names, "sunk": s.id in side.sunk}
            for s in side.ships
        ]
    return board


def _volley_view(state: State, shooter: str, volley: Volley) -> JSON:
    return {"player": shooter, **volley.to_dict(state.grid())}


def view_for(state: State, role: Role | str, now: float = 0.0) -> JSON:
    """Return what a role may see now; the enemy fleet stays out of every view until the game is over.

    A player sees its own fleet and every shot at it, its own volleys as told, the enemy's
    remaining ships by kind, whose turn it is and how many shots are due. The public sees both
    seas' shots as told and no ships. The referee sees everything. At the end every fleet is shown.
    """
    del now  # turns have no clock; kept for the shared view signature
    role = _role(role)
    over = state.phase == "over"
    me = role.subject if role.kind == "player" and role.subject in PLAYERS else None
    volleys = {p: [_volley_view(state, p, v) for v in state.players[p].volleys] for p in PLAYERS}
    last = volleys[state.last][-1] if state.last else None
    view: JSON = {
        "mode": MODE,
        "version": state.version,
        "role": role.to_str(),
        "me": me,
        "phase": state.phase,
        "ruleset": _ruleset_view(state.ruleset),
        "hotseat": state.hotseat,
        "first": state.first,
        "turn": state.turn,
        "shots_due": shots_due(state),
        "turns": state.turns,
        "players": {
            p: {"name": state.players[p].name, "computer": state.players[p].computer, "placed": state.players[p].placed}
            for p in PLAYERS
        },
        "boards": {p: _board_view(state, p, role, over) for p in PLAYERS},
        "volleys": volleys,
        "last": last,
        "outcome": dataclasses.asdict(state.outcome) if state.outcome else None,
        "actions": legal_actions(state, role),
    }
    return view


def sea_draft(state: State, role: Role | str, player: object) -> Draft:
    """Return a player's sea to place a fleet on, for that player or the referee; refuse anyone else."""
    if player not in PLAYERS:
        raise MalformedAction(Msg("player must be A or B, not {player!r}", player=player))
    if _role(role) not in (REFEREE, Role("player", str(player))):
        raise NotYourTurn(Msg("Only that player or the referee may do this."))
    return Draft(state.grid(), state.ruleset.worded_sea, tuple(state.ruleset.fleet))
