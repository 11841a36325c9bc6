"""Battleship (Zeeslag classic and salvo, Sjøslag) as a pure event fold, every rule read from the ruleset.

The package, read top to bottom: `ruleset` (the ruleset as data), `volley` (the referee of one
volley: what the shooter is told), `state`, `moves` (placing, firing, forfeiting and the
computer's turn, on the shared engine), `views`, and `ai` (the computer opponent, which reads
only what a shooter is told). Its surface is the game-mode surface of
`referee.rules.modes.GameMode`; also `answer(ruleset, ships, already_hit, squares)`, the referee
of one volley, and `volleys_of(state, player)`, every volley a player fired as it was told.

Players are "A" and "B"; roles are "player:A", "player:B", "referee" and "public".
"""

from ..events import Event
from . import ai
from .moves import (
    BINDINGS,
    CHANCE,
    ENGINE,
    HANDLERS,
    SLOW_KINDS,
    apply,
    audiences,
    computer_due,
    create,
    event_from_dict,
    fold,
    next_deadline,
    outcome,
    read_ruleset,
    replay,
    snapshot_to_dict,
    state_from_dict,
    state_to_dict,
)
from .ruleset import (
    COIN,
    FIRSTS,
    LEVELS,
    MAX_NAME,
    MODE,
    PLAYERS,
    BattleshipRuleset,
    battleship_from_dict,
    other,
    ship_name,
)
from .schema import ACTION_SCHEMAS
from .state import Outcome, Player, State, shots_due, volleys_of
from .turns import automatic, due_action, screen_player
from .views import legal_actions, sea_draft, view_for
from .volley import answer, ring_of

__all__ = [
    "ACTION_SCHEMAS",
    "BINDINGS",
    "CHANCE",
    "COIN",
    "ENGINE",
    "FIRSTS",
    "HANDLERS",
    "LEVELS",
    "MAX_NAME",
    "MODE",
    "PLAYERS",
    "SLOW_KINDS",
    "BattleshipRuleset",
    "Event",
    "Outcome",
    "Player",
    "State",
    "ai",
    "answer",
    "apply",
    "audiences",
    "automatic",
    "battleship_from_dict",
    "computer_due",
    "create",
    "due_action",
    "event_from_dict",
    "fold",
    "legal_actions",
    "next_deadline",
    "other",
    "outcome",
    "read_ruleset",
    "replay",
    "ring_of",
    "screen_player",
    "sea_draft",
    "ship_name",
    "shots_due",
    "snapshot_to_dict",
    "state_from_dict",
    "state_to_dict",
    "view_for",
    "volleys_of",
]
