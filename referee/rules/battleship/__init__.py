"""Battleship (Zeeslag classic and salvo, Sjøslag) as a pure event fold, every rule read from the ruleset.

The package, read top to bottom: `ruleset` (the ruleset as data), `volley` (the referee of one
volley: what the shooter is told), `state`, `moves` (placing, firing, forfeiting and the
computer's turn, on the shared engine), `views`, and `ai` (the computer opponent, which reads
only what a shooter is told). `GAME` is its game-mode
definition (`referee.rules.modes.GameMode`); also `answer(ruleset, ships, already_hit, squares)`, the referee
of one volley, and `volleys_of(state, player)`, every volley a player fired as it was told.

Players are "A" and "B"; roles are "player:A", "player:B", "referee" and "public".
"""

import functools

from ..events import Event, log_state_to_dict
from ..modes import GameMode
from . import ai
from .moves import BINDINGS, CHANCE, ENGINE, HANDLERS, SLOW_KINDS, audiences, computer_due, read_ruleset
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
from .turns import automatic, screen_player
from .views import legal_actions, sea_draft, view_for
from .volley import answer, ring_of

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
    automatic=automatic,
    slow_kinds=SLOW_KINDS,
    snapshot_to_dict=functools.partial(log_state_to_dict, log=False, messages=True),
)

# The mode's moves by name, for scripts and tests that play Battleship alone.
create, apply, fold, replay = GAME.create, GAME.apply, GAME.fold, GAME.replay
state_to_dict, state_from_dict, outcome = GAME.state_to_dict, GAME.state_from_dict, GAME.outcome

__all__ = [
    "ACTION_SCHEMAS",
    "BINDINGS",
    "CHANCE",
    "COIN",
    "ENGINE",
    "FIRSTS",
    "GAME",
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
    "fold",
    "legal_actions",
    "other",
    "outcome",
    "read_ruleset",
    "replay",
    "ring_of",
    "screen_player",
    "sea_draft",
    "ship_name",
    "shots_due",
    "state_from_dict",
    "state_to_dict",
    "view_for",
    "volleys_of",
]
