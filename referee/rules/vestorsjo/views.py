"""What each role sees (`view_for`): the game has no secrets.

What a role may do now (`legal_actions`, `actions_for`) lives in `moves`, beside the predicates
(the computer's move needs it there); it is named here too.
"""

from __future__ import annotations

from ..events import JSON, Role, encode
from .hexes import Hex
from .moves import actions_for, in_port, legal_actions, role_of, steps_of
from .ruleset import MODE, SIDES, format_row
from .state import Piece, State

__all__ = ["actions_for", "legal_actions", "view_for"]


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
    role = role_of(role)
    me = role.subject if role.kind == "player" and role.subject in SIDES else None
    rs = state.ruleset
    return {
        "mode": MODE,
        "version": state.version,
        "role": role.to_str(),
        "me": me,
        "ruleset": _ruleset_view(state),
        "dice": state.dice,
        "sides": {
            s: {"name": str(rs.side_names[s]), "names": dict(rs.side_names[s].names), "computer": state.computer.get(s)}
            for s in SIDES
        },
        "board": _board_view(state),
        "pieces": [_piece_view(state, p) for p in state.pieces.values()],
        "turn": state.turn if state.outcome is None else None,
        "round": state.round,
        "actions_used": len(state.acts),
        "actions_left": state.actions_left() if state.outcome is None else 0,
        "this_turn": [encode(a) for a in state.acts],
        "last_turn": [encode(a) for a in state.last_turn],
        "drags": [encode(d) for d in state.drags],
        "confirm_rolls": state.confirm_rolls,
        "pending": None if state.pending is None else encode(state.pending),
        "taken": dict(state.taken),
        "rolls": [encode(r) for r in state.rolls],
        "undone": sorted(state.undone),
        "skipped": {str(k): v for k, v in state.skipped.items()},
        "outcome": encode(state.outcome) if state.outcome else None,
        "actions": legal_actions(state, role),
    }
