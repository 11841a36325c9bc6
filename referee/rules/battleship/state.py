"""Battleship's state: two players, their fleets, the shots at them, whose turn it is."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..events import Event
from ..grid import Grid, Square
from ..sea import Ship
from ..shots import Volley
from .ruleset import BattleshipRuleset, battleship_from_dict, other

# --- State -----------------------------------------------------------------------------------


@dataclass
class Player:
    """One side: its name, its fleet and what the enemy did to it, and the volleys it fired."""

    id: str
    name: str
    computer: str | None = None
    ships: list[Ship] = field(default_factory=list)
    placed: bool = False
    shot_at: list[Square] = field(default_factory=list)  # squares the enemy called at this sea, in order
    marked: list[Square] = field(default_factory=list)  # ring squares marked as sure water on this sea
    sunk: list[str] = field(default_factory=list)  # ids of this player's ships sunk, in order
    volleys: list[Volley] = field(default_factory=list)  # what this player fired, as it was told

    def afloat(self) -> list[Ship]:
        """Return the ships not yet sunk."""
        return [s for s in self.ships if s.id not in self.sunk]

    def closed(self) -> set[Square]:
        """Return the squares of this sea that may not be fired at again: called or marked."""
        return set(self.shot_at) | set(self.marked)


@dataclass
class Outcome:
    """How the game ended: the winner, why ("fleet_sunk", "resigned" or "forfeit"), and in words."""

    winner: str
    reason: str
    detail: str
    seq: int


@dataclass
class State:
    """The whole game, as the fold of its events."""

    ruleset_raw: dict[str, Any]
    players: dict[str, Player]
    first: str
    per_shot: bool = False
    hotseat: bool = False
    phase: str = "placing"  # placing → playing → over
    turn: str | None = None
    turns: int = 0  # volleys fired so far
    last: str | None = None  # who fired the latest volley
    outcome: Outcome | None = None
    version: int = 0
    log: tuple[Event, ...] = ()
    skipped: dict[int, str] = field(default_factory=dict)
    ruleset: BattleshipRuleset = field(default=None, metadata={"encode": False})  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.ruleset is None:
            self.ruleset = battleship_from_dict(self.ruleset_raw).with_per_shot(self.per_shot)

    @property
    def over(self) -> str | None:
        """Return how the game ended, in words, once it has; None while it goes on."""
        if self.phase != "over":
            return None
        return self.outcome.detail if self.outcome else ""

    def grid(self) -> Grid:
        """Return the grid both seas share."""
        return self.ruleset.grid()


def shots_due(state: State) -> int:
    """Return how many squares the player to move must call now (0 when nobody is to move)."""
    if state.phase != "playing" or state.turn is None:
        return 0
    shooter, target = state.players[state.turn], state.players[other(state.turn)]
    free = state.ruleset.size**2 - len(target.closed())
    return min(state.ruleset.shots_for(len(shooter.afloat())), free)


def volleys_of(state: State, player: str) -> list[Volley]:
    """Return every volley a player fired, as that player was told it."""
    return list(state.players[player].volleys)
