"""The live air-raid game: rounds, orders, corridors, dogfights, bombings, as a pure event fold.

The package, read top to bottom: `state` (the game's dataclasses), `corridors` (who meets whom,
and the judges of a dogfight and a bombing), `planes` (movements, the ledger, the end of the
game), `conditions` (when each move may be made: one predicate per condition), `moves` (one
handler per action, on the shared engine) and `views` (what each role may do and see). `GAME`
is its game-mode definition (`referee.rules.modes.GameMode`):

- `create(action, at, by)` starts a game; `apply(state, action, at, by)` checks an action and
  returns the new state and its events; `fold(state, event)` applies a stored event;
  `replay(events)` rebuilds a state from a log.
- `legal_actions(state, role)` lists what a role may do now; the same checks drive `apply`: the
  handlers and `legal_actions` call the same predicates of `conditions`.
- `view_for(state, role, now)` is the only place secrets are stripped.
- `outcome(state)` tells who won, if anyone has.
"""

from ..modes import GameMode
from .clock import automatic, due_action
from .conditions import order_problems, orders_shown_to
from .corridors import (
    CorridorBoard,
    Meeting,
    corridor_board,
    corridor_boards,
    due_dogfights,
    duel_key,
    judge_bombing,
    judge_dogfight,
    next_meeting,
    waiting_bombers,
)
from .moves import (
    BINDINGS,
    BOUND_FIELDS,
    CHANCE,
    ENGINE,
    HANDLERS,
    SLOW_KINDS,
    SNAPSHOT_GROWS,
    audiences,
    next_deadline,
    read_ruleset,
    snapshot_base,
    snapshot_to_dict,
    state_from_dict,
)
from .planes import ledger, ledger_balances
from .schema import ACTION_SCHEMAS
from .score import Flyer, Moment, PilotScore, Result, RoundLine, Sheet, TeamScore, TieBreak, score_sheet
from .state import (
    BOMBER,
    FIGHTER,
    IN_AIR,
    MAX_NAME,
    MODE,
    PLANE_KINDS,
    TEAMS,
    Bombing,
    DuelResult,
    Order,
    Outcome,
    Report,
    Round,
    State,
    Team,
    Timer,
    Trophy,
    other,
)
from .views import (
    PUBLIC_NOTES,
    _log_view,
    _note_view,
    legal_actions,
    order_options,
    sea_draft,
    slip_rows,
    view_for,
)

GAME = GameMode(
    name=MODE,
    state_type=State,
    engine=ENGINE,
    view_for=view_for,
    legal_actions=legal_actions,
    sea_draft=sea_draft,
    read_ruleset=read_ruleset,
    action_schemas=ACTION_SCHEMAS,
    audiences=audiences,
    next_deadline=next_deadline,
    due_action=due_action,
    automatic=automatic,
    slow_kinds=SLOW_KINDS,
    state_from_dict=state_from_dict,
    snapshot_to_dict=snapshot_to_dict,
    snapshot_grows=SNAPSHOT_GROWS,
    snapshot_base=snapshot_base,
)

# The mode's moves by name, for scripts and tests that play the air raid alone.
create, apply, fold, replay = GAME.create, GAME.apply, GAME.fold, GAME.replay
state_to_dict, outcome = GAME.state_to_dict, GAME.outcome

__all__ = [
    "ACTION_SCHEMAS",
    "BINDINGS",
    "BOMBER",
    "BOUND_FIELDS",
    "CHANCE",
    "ENGINE",
    "FIGHTER",
    "GAME",
    "HANDLERS",
    "IN_AIR",
    "MAX_NAME",
    "MODE",
    "PLANE_KINDS",
    "PUBLIC_NOTES",
    "SLOW_KINDS",
    "SNAPSHOT_GROWS",
    "TEAMS",
    "Bombing",
    "CorridorBoard",
    "DuelResult",
    "Flyer",
    "Meeting",
    "Moment",
    "Order",
    "Outcome",
    "PilotScore",
    "Report",
    "Result",
    "Round",
    "RoundLine",
    "Sheet",
    "State",
    "Team",
    "TeamScore",
    "TieBreak",
    "Timer",
    "Trophy",
    "_log_view",
    "_note_view",
    "apply",
    "audiences",
    "automatic",
    "corridor_board",
    "corridor_boards",
    "create",
    "due_action",
    "due_dogfights",
    "duel_key",
    "fold",
    "judge_bombing",
    "judge_dogfight",
    "ledger",
    "ledger_balances",
    "legal_actions",
    "next_deadline",
    "next_meeting",
    "order_options",
    "order_problems",
    "order_serial",
    "orders_shown_to",
    "other",
    "outcome",
    "read_ruleset",
    "replay",
    "score_sheet",
    "sea_draft",
    "slip_rows",
    "snapshot_base",
    "snapshot_to_dict",
    "state_from_dict",
    "state_to_dict",
    "view_for",
    "waiting_bombers",
]
