"""Vestorsjø, the two-player naval hex game in the Öresund strait, as a pure event fold.

The package, read top to bottom: `hexes` (hexes, corners and sides with paired parse/format),
`ruleset` (the ruleset as data: classes, depths, the gunnery and submarine tables), `board` (the
map as the rules see it, its check `map_problems`, how far a piece may go), `state`, `moves` (the
predicates and handlers on the shared engine), `views`, `schema`. Its surface is the game-mode
surface of `referee.rules.modes.GameMode`; also `actions_for(state, role)`, every action a role may
send now, ready to apply (for a computer player), and `map_problems(data)` for `referee map check`.

Sides are "scania" and "zealand"; roles are "player:scania", "player:zealand", "referee" and "public".
Pieces are named "<side>.<class>[-n]", like "scania.frigate-1".
"""

from ..events import Event
from .board import Board, map_problems, read_board, start_problems
from .hexes import Edge, Hex, Vertex
from .moves import (
    BINDINGS,
    CHANCE,
    ENGINE,
    HANDLERS,
    SLOW_KINDS,
    UNDOS_PER_TURN,
    apply,
    attack_problem,
    audiences,
    automatic,
    create,
    due_action,
    end_turn_problem,
    fire_problem,
    fold,
    move_problem,
    move_targets,
    next_deadline,
    outcome,
    replay,
    snapshot_to_dict,
    state_from_dict,
    state_to_dict,
    surrender_problem,
    undo_problem,
)
from .ruleset import MODE, SIDES, VestorsjoRuleset, other, read_ruleset, vestorsjo_from_dict
from .schema import ACTION_SCHEMAS
from .state import Outcome, Piece, Roll, State
from .views import actions_for, legal_actions, view_for

__all__ = [
    "ACTION_SCHEMAS",
    "BINDINGS",
    "CHANCE",
    "ENGINE",
    "HANDLERS",
    "MODE",
    "SIDES",
    "SLOW_KINDS",
    "UNDOS_PER_TURN",
    "Board",
    "Edge",
    "Event",
    "Hex",
    "Outcome",
    "Piece",
    "Roll",
    "State",
    "Vertex",
    "VestorsjoRuleset",
    "actions_for",
    "apply",
    "attack_problem",
    "audiences",
    "automatic",
    "create",
    "due_action",
    "end_turn_problem",
    "fire_problem",
    "fold",
    "legal_actions",
    "map_problems",
    "move_problem",
    "move_targets",
    "next_deadline",
    "other",
    "outcome",
    "read_board",
    "read_ruleset",
    "replay",
    "snapshot_to_dict",
    "start_problems",
    "state_from_dict",
    "state_to_dict",
    "surrender_problem",
    "undo_problem",
    "vestorsjo_from_dict",
    "view_for",
]
