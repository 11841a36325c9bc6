"""Vestorsjø, the two-player naval hex game in the Öresund strait, as a pure event fold.

The package, read top to bottom: `hexes` (hexes, corners and sides with paired parse/format),
`ruleset` (the ruleset as data: classes, depths, the gunnery and submarine tables), `board` (the
map as the rules see it, its check `map_problems`, how far a piece may go), `state`, `moves` (the
predicates and handlers on the shared engine), `views`, `schema`. `GAME` is its game-mode
definition (`referee.rules.modes.GameMode`); also `actions_for(state, role)`, every action a role may
send now, ready to apply (for a computer player), and `map_problems(data)` for `referee map check`.

Sides are "scania" and "zealand"; roles are "player:scania", "player:zealand", "referee" and "public".
Pieces are named "<side>.<class>[-n]", like "scania.frigate-1".
"""

import functools
from collections.abc import Mapping
from typing import Any

from ..events import Event, log_state_to_dict
from ..modes import GameMode
from .board import Board, map_problems, read_board, start_problems
from .effects import effects
from .hexes import Edge, Hex, Vertex
from .moves import (
    BINDINGS,
    CHANCE,
    ENGINE,
    HANDLERS,
    SLOW_KINDS,
    UNDOS_PER_TURN,
    attack_problem,
    audiences,
    automatic,
    end_turn_problem,
    fire_problem,
    move_problem,
    move_targets,
    server_pips_problem,
    surrender_problem,
    undo_problem,
)
from .ruleset import MODE, SIDES, VestorsjoRuleset, other, read_ruleset, vestorsjo_from_dict
from .schema import ACTION_SCHEMAS
from .state import DRAGS_KEPT, Drag, Outcome, Piece, Roll, State
from .views import actions_for, legal_actions, view_for


class _Vestorsjo(GameMode):
    def apply(
        self,
        state: Any,
        action: Mapping[str, Any],
        *,
        at: float,
        by: str,
        version: int | None = None,
        seed: int | None = None,
    ) -> tuple[Any, list[Event]]:
        """Check an action as every mode does, after refusing pips where the server rolls."""
        refusal = server_pips_problem(state, action)
        if refusal is not None:
            raise refusal
        return super().apply(state, action, at=at, by=by, version=version, seed=seed)


GAME = _Vestorsjo(
    name=MODE,
    state_type=State,
    engine=ENGINE,
    view_for=view_for,
    legal_actions=legal_actions,
    read_ruleset=read_ruleset,
    action_schemas=ACTION_SCHEMAS,
    audiences=audiences,
    automatic=automatic,
    slow_kinds=SLOW_KINDS,
    snapshot_to_dict=functools.partial(log_state_to_dict, log=False, messages=True),
    effects=effects,
)

# The mode's moves by name, for scripts and tests that play Vestorsjø alone.
create, apply, fold, replay = GAME.create, GAME.apply, GAME.fold, GAME.replay
state_to_dict, state_from_dict, outcome = GAME.state_to_dict, GAME.state_from_dict, GAME.outcome

__all__ = [
    "ACTION_SCHEMAS",
    "BINDINGS",
    "CHANCE",
    "DRAGS_KEPT",
    "ENGINE",
    "GAME",
    "HANDLERS",
    "MODE",
    "SIDES",
    "SLOW_KINDS",
    "UNDOS_PER_TURN",
    "Board",
    "Drag",
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
    "effects",
    "end_turn_problem",
    "fire_problem",
    "fold",
    "legal_actions",
    "map_problems",
    "move_problem",
    "move_targets",
    "other",
    "outcome",
    "read_board",
    "read_ruleset",
    "replay",
    "start_problems",
    "state_from_dict",
    "state_to_dict",
    "surrender_problem",
    "undo_problem",
    "vestorsjo_from_dict",
    "view_for",
]
