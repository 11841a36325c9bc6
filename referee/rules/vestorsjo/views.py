"""What each role may do now (`legal_actions`, `actions_for`) and see (`view_for`): the game has no secrets."""

from __future__ import annotations

from ..errors import RulesError
from ..events import JSON, Role, encode
from .hexes import Hex
from .moves import (
    END_TURN,
    SURRENDER,
    UNDO,
    act_problem,
    attack_row,
    end_turn_problem,
    fire_row,
    in_port,
    move_targets,
    occupied,
    steps_of,
    surrender_problem,
    undo_problem,
)
from .ruleset import MODE, SIDES, Row, chances, format_row
from .state import ATTACK, FIRE, MOVE, Piece, State


def _role(role: Role | str) -> Role:
    return role if isinstance(role, Role) else Role.from_str(role)


def _target_ok(state: State, shooter: Piece, target: Piece, submarine: bool) -> bool:
    """Tell whether a piece is a target of the right kind (the same tests as the predicates' `_target`)."""
    if target.side == shooter.side or target.removed or (target.sunk and not state.ruleset.sunk_is_target):
        return False
    return target.submarine == submarine


def _offer(target: Piece, found: tuple[str, Row, int, int]) -> JSON:
    table, row, distance, damage = found
    hit, expected = chances(row)
    return {
        "target": target.id,
        "table": table,
        "distance": distance,
        "damage": damage,
        "row": list(row),
        "chance": round(hit, 4),
        "expected": round(expected, 4),
    }


def _targets(state: State, shooter: Piece, kind: str) -> list[JSON]:
    offers = []
    for target in state.pieces.values():
        if not _target_ok(state, shooter, target, submarine=kind == ATTACK):
            continue
        found = attack_row(state, shooter, target) if kind == ATTACK else fire_row(state, shooter, target)
        if not isinstance(found, RulesError):
            offers.append(_offer(target, found))
    return offers


def legal_actions(state: State, role: Role | str) -> list[JSON]:
    """List what a role may do now: per piece its moves and its targets (each with its hit chance), then the rest.

    Each entry lists the choices of one kind of action for one piece: `{"type": "move", "piece",
    "to": [...]}`, `{"type": "fire" | "attack_submarine", "piece", "targets": [{"target", "chance",
    "expected", …}]}`; then `end_turn`, `undo` and `surrender` as they may be sent. The predicates of
    `moves` decide each one, as the handlers do.
    """
    role = _role(role)
    acts: list[JSON] = []
    if state.outcome is not None:
        return acts
    where = occupied(state)
    for piece in state.pieces.values():
        if piece.side != state.turn or piece.removed:
            continue
        if act_problem(state, role, piece.id, MOVE) is None:
            to = sorted(move_targets(state, piece, where))
            if to:
                acts.append({"type": MOVE, "piece": piece.id, "to": to})
        for kind in (FIRE, ATTACK):
            if act_problem(state, role, piece.id, kind) is None:
                offers = _targets(state, piece, kind)
                if offers:
                    acts.append({"type": kind, "piece": piece.id, "targets": offers})
    if end_turn_problem(state, role) is None:
        acts.append({"type": END_TURN})
    if undo_problem(state, role) is None:
        acts.append({"type": UNDO, "seq": state.acts[-1].seq})
    for side in SIDES:
        if surrender_problem(state, role, side) is None:
            acts.append({"type": SURRENDER, "side": side})
    return acts


def actions_for(state: State, role: Role | str) -> list[JSON]:
    """List every action a role may send now, each ready to apply (a computer player picks among these).

    Fire and attack actions carry no pips (the server rolls); surrender is left out (a player
    gives up by choice, not by search).
    """
    flat: list[JSON] = []
    for entry in legal_actions(state, role):
        kind = entry["type"]
        if kind == MOVE:
            flat.extend({"type": MOVE, "piece": entry["piece"], "to": to} for to in entry["to"])
        elif kind in (FIRE, ATTACK):
            flat.extend({"type": kind, "piece": entry["piece"], "target": t["target"]} for t in entry["targets"])
        elif kind in (END_TURN, UNDO):
            flat.append({"type": kind})
    return flat


# --- The view ------------------------------------------------------------------------------------


def _board_view(state: State) -> JSON:
    board = state.board
    rs = state.ruleset
    ports = []
    for p in board.ports:
        entry: JSON = {
            "name": p.name,
            "place": p.place,
            "side": p.side,
            "depth": p.depth,
            "strategic": p.strategic,
            "fort": p.fort,
            "safe": p.name in rs.safe_ports,
            "hex": p.hex.format(),
            "vertices": sorted(v.format() for v in p.vertices),
        }
        if p.strategic:
            holder = next(
                (
                    q.side
                    for q in state.pieces.values()
                    if not q.removed and not q.submarine and q.side != p.side and q.place == p.hex.format()
                ),
                None,
            )
            entry.update(holder=holder, held=state.held.get(p.name, 0), needed=rs.rounds_to_hold)
        ports.append(entry)
    return {
        "name": board.name,
        "columns": board.columns,
        "rows": board.rows,
        "terrain": ["".join(board.at(Hex(c, r)) for c in range(board.columns)) for r in range(board.rows)],
        "ports": ports,
        "piers": {
            "edges": sorted(e.format() for e in board.pier_edges),
            "vertices": sorted(v.format() for v in board.pier_vertices),
        },
    }


def _piece_view(state: State, piece: Piece) -> JSON:
    cls = state.ruleset.classes[piece.cls]
    return {
        "id": piece.id,
        "side": piece.side,
        "class": piece.cls,
        "name": cls.name,
        "names": dict(cls.names),
        "place": piece.place,
        "on": "vertex" if piece.submarine else "hex",
        "hits": piece.hits,
        "defence": cls.defence,
        "damage_for_fire": piece.before,
        "steps": steps_of(state, piece) if not piece.removed else 0,
        "sunk": piece.sunk,
        "removed": piece.removed,
        "in_port": in_port(state.board, piece) if not piece.removed else [],
        "done": list(piece.done),
    }


def _ruleset_view(state: State) -> JSON:
    rs = state.ruleset
    return {
        "id": rs.id,
        "name": rs.name,
        "names": dict(rs.names),
        "map": rs.map,
        "first": rs.first,
        "actions_per_turn": rs.actions_per_turn,
        "rounds_to_hold": rs.rounds_to_hold,
        "ports_needed": rs.ports_needed,
        "classes": {
            c.id: {
                "name": c.name,
                "names": dict(c.names),
                "warship": c.warship,
                "defence": c.defence,
                "steps": list(c.steps),
            }
            for c in rs.classes.values()
        },
        "gunnery": {cls: [[format_row(r) for r in rows] for rows in tables] for cls, tables in rs.gunnery.items()},
        "submarine_combat": {
            "submarine_attacks_ship": format_row(rs.submarine_attacks_ship),
            "ship_attacks_submarine": format_row(rs.ship_attacks_submarine),
            "submarine_attacks_submarine": format_row(rs.submarine_attacks_submarine),
            "safe_ports": sorted(rs.safe_ports),
        },
    }


def view_for(state: State, role: Role | str, now: float = 0.0) -> JSON:
    """Return what a role sees: everything (the game hides nothing), and the role's legal actions with their chances."""
    del now  # turns have no clock
    role = _role(role)
    me = role.subject if role.kind == "player" and role.subject in SIDES else None
    rs = state.ruleset
    return {
        "mode": MODE,
        "version": state.version,
        "role": role.to_str(),
        "me": me,
        "ruleset": _ruleset_view(state),
        "dice": state.dice,
        "sides": {s: {"name": str(rs.side_names[s]), "names": dict(rs.side_names[s].names)} for s in SIDES},
        "board": _board_view(state),
        "pieces": [_piece_view(state, p) for p in state.pieces.values()],
        "turn": state.turn if state.outcome is None else None,
        "round": state.round,
        "actions_used": len(state.acts),
        "actions_left": state.actions_left() if state.outcome is None else 0,
        "this_turn": [encode(a) for a in state.acts],
        "taken": dict(state.taken),
        "rolls": [encode(r) for r in state.rolls],
        "undone": sorted(state.undone),
        "skipped": {str(k): v for k, v in state.skipped.items()},
        "outcome": encode(state.outcome) if state.outcome else None,
        "actions": legal_actions(state, role),
    }
