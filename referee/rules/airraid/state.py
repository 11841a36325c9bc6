"""The air raid's state: teams and their seas, rounds, orders, duels, bombings, trophies."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..events import Event, Throw
from ..grid import Grid, Square
from ..ruleset import AirRaidRuleset, airraid_ruleset_from_dict
from ..sea import Ship

MODE = "airraid"
TEAMS = ("A", "B")
FIGHTER, BOMBER = "fighter", "bomber"
PLANE_KINDS = (FIGHTER, BOMBER)
IN_AIR = ("airborne", "bombing")
MAX_NAME = 40
CHANGES_PER_STAGE = 60
"""The most changes a team's base makes in one stage (the setup, or one round's planning).

A stage needs a roster, a sea, a defender and an order per pilot: at most about 25 changes for
ten players, even written twice over. Every change is an event the game keeps for good (its
log, every void's recomputation), so a phone adding and removing an order as fast as it can
must stop somewhere: 20,000 such events once made every void of the game take seconds. The
referee's own changes are not counted."""
CHECKPOINT_EVERY = 100
"""Events between two checkpoints of a state (`State.checkpoints`): a void re-folds at most about
this many events more than those after its target."""
_COLOUR = re.compile(r"^#[0-9A-Fa-f]{6}$")


def other(team: str) -> str:
    """Return the other team's id."""
    return "B" if team == "A" else "A"


# --- State ---------------------------------------------------------------------------------


@dataclass
class Order:
    """A pilot's order for one round: the plane, the corridor, the take-off position, the target."""

    id: str
    round: int
    team: str
    pilot: str
    kind: str
    ship: str
    corridor: str
    position: int
    target: Square | None = None
    status: str = "planned"  # planned → airborne → (bombing →) landed | shot_down
    landed_on: str | None = None
    shot_down_by: str | None = None

    def label(self, ruleset: AirRaidRuleset) -> str:
        """Name the plane as everyone calls it: the team letter and its order's number in the round.

        Orders are numbered as they are written (1A1, 1A2, … in round 1) and a number is never
        given twice, so the label is unique in its team's round, never changes once written, and
        says nothing of the corridor or the take-off position the enemy's view keeps from them.
        """
        serial = order_serial(self.id, self.round, self.team)
        if serial is None:
            # Ids of games stored before orders were numbered: the corridor's block of numbers.
            serial = ruleset.corridors.index(self.corridor) * ruleset.corridor_limit + self.position
        return f"{self.team}{serial}"


_ORDER_ID = re.compile(r"^([1-9][0-9]{0,5})([AB])([1-9][0-9]{0,5})$")


def order_serial(order_id: str, round_number: int, team: str) -> int | None:
    """Return the counter of an order id like "2A3" if it is of that round and team, else None."""
    m = _ORDER_ID.match(order_id)
    if m is None or int(m.group(1)) != round_number or m.group(2) != team:
        return None
    return int(m.group(3))


@dataclass
class DuelResult:
    """A dogfight as decided: the throws, any pass or continue choice, and who was shot down."""

    corridor: str
    a: str
    b: str
    throws: list[Throw]
    choice: str | None
    passed: bool
    shot_down: str | None
    seq: int
    by: str


@dataclass
class Report:
    """A pilot's report of a dogfight, waiting for the other pilot or the referee to confirm."""

    by: str
    seq: int
    result: DuelResult


@dataclass
class Bombing:
    """A bomber at the enemy base: what the sea answered, and how the fight went."""

    order: str
    target: Square
    answer: str  # water | fight | already_hit
    ship: str | None
    seq: int
    throws: list[Throw] = field(default_factory=list)
    choice: str | None = None
    result: str | None = None  # water | already_hit | hit | left | shot_down
    sunk: bool = False


@dataclass
class Timer:
    """The round's clock: an absolute deadline while running, the time left while paused."""

    seconds: float
    deadline: float | None = None
    remaining: float | None = None
    started_at: float | None = None
    ended_at: float | None = None

    def left(self, now: float) -> float:
        """Return the seconds left at a moment, never below zero."""
        if self.deadline is not None:
            return max(0.0, self.deadline - now)
        if self.remaining is not None:
            return max(0.0, self.remaining)
        return float(self.seconds)

    @property
    def running(self) -> bool:
        """Tell whether the clock is counting down."""
        return self.deadline is not None


@dataclass
class Round:
    """One numbered round: planning, then airborne, then closed."""

    number: int
    timer: Timer
    phase: str = "planning"
    defenders: dict[str, str] = field(default_factory=dict)
    orders: dict[str, Order] = field(default_factory=dict)
    serial: dict[str, int] = field(default_factory=dict)
    duels: dict[str, DuelResult] = field(default_factory=dict)
    reports: dict[str, list[Report]] = field(default_factory=dict)
    conflicts: dict[str, list[Report]] = field(default_factory=dict)
    bombings: dict[str, Bombing] = field(default_factory=dict)


@dataclass
class Trophy:
    """A plane shot down, held by whoever shot it: a pilot and their team, or a ship's team."""

    plane_team: str
    kind: str
    holder_team: str
    holder: str
    round: int
    order: str


@dataclass
class Team:
    """One team: its roster, its sea and fleet, its planes on ships and its losses."""

    id: str
    name: str
    colour: str
    players: list[str]
    size: int
    fleet: tuple[str, ...]
    ships: list[Ship] = field(default_factory=list)
    locked: bool = False
    hits: set[Square] = field(default_factory=set)
    shots: dict[str, str] = field(default_factory=dict)
    stock: dict[str, dict[str, int]] = field(default_factory=dict)
    lost: dict[str, int] = field(default_factory=lambda: {FIGHTER: 0, BOMBER: 0})
    start_planes: dict[str, int] = field(default_factory=lambda: {FIGHTER: 0, BOMBER: 0})
    sunk: list[str] = field(default_factory=list)

    def ship(self, ship_id: str) -> Ship | None:
        """Return a ship by its letter."""
        return next((s for s in self.ships if s.id == ship_id), None)

    def afloat(self) -> list[Ship]:
        """Return the ships not yet sunk."""
        return [s for s in self.ships if s.id not in self.sunk]

    def floating_squares(self) -> int:
        """Count the squares of floating ships not yet hit."""
        return sum(len(s.squares - self.hits) for s in self.afloat())


@dataclass
class Outcome:
    """How the game ended: the winner (None for a draw), why, and in words."""

    winner: str | None
    reason: str
    detail: str
    seq: int


@dataclass
class State:
    """The whole game, as the fold of its events."""

    ruleset_raw: dict[str, Any]
    teams: dict[str, Team]
    round_seconds: int
    phase: str = "setup"  # setup → playing → over
    rounds: list[Round] = field(default_factory=list)
    trophies: list[Trophy] = field(default_factory=list)
    outcome: Outcome | None = None
    version: int = 0
    log: tuple[Event, ...] = ()
    voided: dict[int, str] = field(default_factory=dict)
    skipped: dict[int, str] = field(default_factory=dict)
    notes: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    notes_rebuilt: int = 0
    """The seq of the last void: every note was made again then (a snapshot before it holds old ones)."""
    changes: dict[str, int] = field(default_factory=dict)
    """The changes each team's base made, by stage and team (`stage_key`): at most CHANGES_PER_STAGE each."""
    practice: bool = False
    """A practice game: the server plays both teams and their pilots; it counts for nothing."""
    ruleset: AirRaidRuleset = field(default=None, metadata={"encode": False})  # type: ignore[assignment]
    checkpoints: tuple[tuple[dict[int, str], State], ...] = field(
        default=(), compare=False, repr=False, metadata={"encode": False}
    )
    """Copies of this game's earlier states, every CHECKPOINT_EVERY events (and the one a load began
    from), newest last, each with the voids in force it was made under: a void recomputes from the
    newest it leaves as it was, not from the start (engine.Engine.restart_point). Kept in memory
    only: a loaded game has none before its snapshot."""
    made: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False, metadata={"encode": False})
    """What the views made (log rows, parts of views), reused while what they show is unchanged (views.py).

    Every copy of a state shares it: a part made for one version serves the next while the parts
    of the state it was made from are equal."""

    def __post_init__(self) -> None:
        if self.ruleset is None:
            self.ruleset = airraid_ruleset_from_dict(self.ruleset_raw)

    @property
    def over(self) -> str | None:
        """Return how the game ended, in words, once it has; None while it goes on."""
        if self.phase != "over":
            return None
        return self.outcome.detail if self.outcome else ""

    @property
    def round(self) -> Round | None:
        """Return the current round, if the game has started."""
        return self.rounds[-1] if self.rounds else None

    def grid(self, team: str) -> Grid:
        """Return the grid of a team's sea."""
        return self.ruleset.grid(self.teams[team].size)

    def stage_key(self, team: str) -> str:
        """Name the stage a team's change counts in: `setup:A`, or `3:A` in round 3."""
        rnd = self.round
        return f"{'setup' if rnd is None else rnd.number}:{team}"

    def order(self, order_id: str) -> Order | None:
        """Find an order of any round by its id."""
        for rnd in reversed(self.rounds):
            if order_id in rnd.orders:
                return rnd.orders[order_id]
        return None
