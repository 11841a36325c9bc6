"""Vestorsjø's state: the pieces, whose turn it is, what this turn has done, the ports held, every roll."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..events import Event
from .board import Board, read_board
from .hexes import Hex, Vertex
from .ruleset import SUBMARINE, VestorsjoRuleset, vestorsjo_from_dict

MOVE, FIRE, ATTACK = "move", "fire", "attack_submarine"
ACTS = (MOVE, FIRE, ATTACK)
"""The three kinds of action a piece may take, each at most once a turn."""
DICE = ("server", "physical")


@dataclass
class Piece:
    """One piece: its side and class, where it stands, its hits, and what it has done this turn.

    `before` is its hits as they stood before the enemy's latest turn (taken at the end of each of
    its own side's turns): a shooter fires with that damage. A sunk piece stays on its place through
    its own side's next turn, then is removed.
    """

    id: str
    side: str
    cls: str
    place: str
    hits: int = 0
    before: int = 0
    sunk: bool = False
    removed: bool = False
    done: list[str] = field(default_factory=list)

    @property
    def submarine(self) -> bool:
        """Tell whether the piece stands on corners (a submarine) rather than in hexes."""
        return self.cls == SUBMARINE

    @property
    def standing(self) -> bool:
        """Tell whether the piece is on the board (afloat, or sunk and still on its place)."""
        return not self.removed

    def copy(self) -> Piece:
        """Return a copy a handler may change (cheaper than dataclasses.replace, which an action does 18 times)."""
        return Piece(
            self.id, self.side, self.cls, self.place, self.hits, self.before, self.sunk, self.removed, list(self.done)
        )

    def hex(self) -> Hex:
        """Return the hex of a warship."""
        return Hex.parse(self.place)

    def vertex(self) -> Vertex:
        """Return the corner of a submarine."""
        return Vertex.parse(self.place)


@dataclass
class Done:
    """One action of the turn under way (for the budget and for undo)."""

    seq: int
    kind: str
    piece: str
    origin: str = ""
    """Where a moved piece stood before (undo puts it back)."""
    to: str = ""
    """Where a moved piece went, or whom a shot or an attack was aimed at."""
    at: str = ""
    """For a shot or an attack: where the target stood (the shooter's place is `origin`), so a
    drag long past is drawn where it happened, not where the pieces stand now."""


DRAGS_KEPT = 20
"""How many ended drags the state keeps for players to step back through (ten rounds): the view
is sent on every change, so it must not grow with the game; the log keeps every one."""


@dataclass
class Drag:
    """A drag that ended: whose it was, in which round, and what it did."""

    round: int
    side: str
    acts: list[Done] = field(default_factory=list)


@dataclass
class Pending:
    """A die a player threw by hand, waiting for the other side to confirm what it showed.

    Only in a game on two devices with our own dice (`State.confirm_rolls`): the shot counts as
    the shooter's action at once, its hits only once the other side confirms the pips.
    """

    seq: int
    kind: str
    piece: str
    target: str
    pips: int


@dataclass
class Roll:
    """One die rolled (or entered): who at whom, with which table and damage, the pips, the hits it made."""

    seq: int
    round: int
    side: str
    kind: str
    piece: str
    target: str
    table: str
    """"gunnery", "submarine_attacks_ship", "ship_attacks_submarine" or "submarine_attacks_submarine"."""
    distance: int
    damage: int
    """The shooter's hits the table was read with (gunnery only)."""
    pips: int
    physical: bool
    hits: int
    sunk: bool


@dataclass
class Outcome:
    """How the game ended: the winner (None: nobody), why, and in words."""

    winner: str | None
    reason: str
    detail: str
    seq: int
    round: int


@dataclass
class State:
    """The whole game, as the fold of its events."""

    ruleset_raw: dict[str, Any]
    map_raw: dict[str, Any]
    dice: str
    pieces: dict[str, Piece]
    turn: str
    round: int = 1
    acts: list[Done] = field(default_factory=list)
    last_turn: list[Done] = field(default_factory=list)
    """The actions of the drag that ended last (the other side's): each side sees on the board what
    the other did while it looked away (the tablet handed over, the computer's drag)."""
    drags: list[Drag] = field(default_factory=list)
    """The last `DRAGS_KEPT` drags that ended, oldest first (the newest is `last_turn`)."""
    held: dict[str, int] = field(default_factory=dict)
    """Each strategic port's count of holds in a row by an enemy warship (ruleset `holds_counted`: after
    each turn of the port's side, or at each round's end)."""
    taken: dict[str, bool] = field(default_factory=dict)
    """Whether each side has had a hold of an enemy strategic port counted."""
    rolls: list[Roll] = field(default_factory=list)
    undone: dict[int, int] = field(default_factory=dict)
    """This turn's undone moves: their seq -> the seq of the undo. Emptied when the turn ends (its
    moves then stand, and the log keeps every undo), so neither the state nor a view grows with
    the undos of turns long past; its size is also the count `UNDOS_PER_TURN` bounds."""
    outcome: Outcome | None = None
    confirm_rolls: bool = False
    """Two devices with our own dice: the other side confirms each die thrown (set at creation)."""
    pending: Pending | None = None
    """The die thrown by hand that the other side has yet to confirm (blocks the drag meanwhile)."""
    computer: dict[str, str] = field(default_factory=dict)
    """The sides the computer plays, with its level ("easy", "normal", "strong")."""
    version: int = 0
    log: tuple[Event, ...] = ()
    skipped: dict[int, str] = field(default_factory=dict)
    ruleset: VestorsjoRuleset = field(default=None, metadata={"encode": False})  # type: ignore[assignment]
    board: Board = field(default=None, metadata={"encode": False})  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.ruleset is None:
            self.ruleset = vestorsjo_from_dict(self.ruleset_raw)
        if self.board is None:
            self.board = read_board(self.map_raw, self.ruleset)

    @property
    def phase(self) -> str:
        """Return "playing" or "over": the game's status in the store's games table (which the idle sweep reads)."""
        return "playing" if self.outcome is None else "over"

    @property
    def over(self) -> str | None:
        """Return how the game ended, in words, once it has; None while it goes on."""
        return self.outcome.detail if self.outcome else None

    def actions_left(self) -> int:
        """Return how many actions the side to move has left this turn."""
        return max(0, self.ruleset.actions_per_turn - len(self.acts))

    def side_pieces(self, side: str) -> list[Piece]:
        """Return a side's pieces still on the board."""
        return [p for p in self.pieces.values() if p.side == side and not p.removed]
