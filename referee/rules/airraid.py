"""The live air-raid game: rounds, orders, corridors, dogfights, bombings, as a pure event fold.

The module's surface, shared by every game mode:

- `create(action, at, by)` starts a game; `apply(state, action, at, by)` checks an action and
  returns the new state and its events; `fold(state, event)` applies a stored event;
  `replay(events)` rebuilds a state from a log.
- `legal_actions(state, role)` lists what a role may do now; the same checks drive `apply`.
- `view_for(state, role, now)` is the only place secrets are stripped.
- `outcome(state)` tells who won, if anyone has.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from .engine import Engine, Fields, Rules, effective_voids
from .errors import GameOver, IllegalAction, MalformedAction, Msg, NotYourTurn, RulesError, join_msgs
from .events import JSON, Event, Role, Throw, encode, log_state_from_dict, log_state_to_dict, parse_throws
from .grid import Grid, Square
from .ruleset import AirRaidRuleset, airraid_ruleset_from_dict
from .placement import UNDECIDED
from .sea import Ship, check_fleet, fleet_fit_reason, ship_labels

MODE = "airraid"
TEAMS = ("A", "B")
FIGHTER, BOMBER = "fighter", "bomber"
PLANE_KINDS = (FIGHTER, BOMBER)
IN_AIR = ("airborne", "bombing")
MAX_NAME = 40
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

    def label(self) -> str:
        """Name the plane as pilots call it in the corridor: team letter and take-off position."""
        return f"{self.team}{self.position}"


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
    ruleset: AirRaidRuleset = field(default=None, metadata={"encode": False})  # type: ignore[assignment]

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

    def order(self, order_id: str) -> Order | None:
        """Find an order of any round by its id."""
        for rnd in reversed(self.rounds):
            if order_id in rnd.orders:
                return rnd.orders[order_id]
        return None


# --- Helpers for checking action data --------------------------------------------------------


def _team_field(f: Fields) -> str:
    team = f.data.get("team")
    if team not in TEAMS:
        raise MalformedAction(Msg('team must be A or B, not {team!r}', team=team))
    return str(team)


def _require(role: Role, *allowed: str, team: str | None = None) -> None:
    """Refuse unless the role is the referee or (when allowed) the given team's base."""
    if role.kind == "referee":
        return
    if "team" in allowed and role.kind == "team" and (team is None or role.subject == team):
        return
    if "clock" in allowed and role.kind == "clock":
        return
    if allowed == ("referee",):
        raise NotYourTurn(Msg("only the referee may do this"))
    raise NotYourTurn(Msg("only the referee or that team may do this"))


def _players(value: Any, key: str, most: int) -> list[str]:
    """Read a roster of at most `most` distinct names; the length is checked before any name."""
    if not isinstance(value, list) or not value:
        raise MalformedAction(Msg('{key} must be a list of player names', key=key))
    if len(value) > most:
        # Checked first: a list of 40,000 names must cost nothing, inside the write lock above all.
        raise MalformedAction(Msg('{key}: a team has at most {most} players, not {count}', key=key, most=most, count=len(value)))
    names: list[str] = []
    seen: set[str] = set()
    for name in value:
        if not isinstance(name, str) or not name.strip():
            raise MalformedAction(Msg('{key}: every player needs a name', key=key))
        if len(name) > 4 * MAX_NAME or len(name.strip()) > MAX_NAME:
            raise MalformedAction(Msg('{key}: the name {name!r}… is longer than {MAX_NAME} characters', key=key, name=name.strip()[:20], MAX_NAME=MAX_NAME))
        folded = name.strip().casefold()
        if folded in seen:
            raise MalformedAction(Msg('{key}: two players are called {name!r}', key=key, name=name.strip()))
        seen.add(folded)
        names.append(name.strip())
    return names


# --- Corridors: who meets whom ---------------------------------------------------------------


@dataclass(frozen=True)
class Meeting:
    """One cell of a corridor's meeting grid: A's i-th plane against B's j-th."""

    corridor: str
    a: str
    b: str
    status: str  # done | due | waiting | never
    reason: str = ""


@dataclass
class CorridorBoard:
    """Everything the meeting order says about one corridor right now."""

    corridor: str
    a_planes: list[Order]
    b_planes: list[Order]
    meetings: list[Meeting]
    through: list[str]  # order ids that have flown through

    def meeting(self, a: str, b: str) -> Meeting | None:
        """Find the meeting of two planes."""
        return next((m for m in self.meetings if m.a == a and m.b == b), None)

    def due(self) -> list[Meeting]:
        """Return the meetings that can be fought now."""
        return [m for m in self.meetings if m.status == "due"]


def duel_key(corridor: str, a: str, b: str) -> str:
    """Key a dogfight by its corridor and its two orders (A's first)."""
    return f"{corridor}:{a}:{b}"


def corridor_board(rnd: Round, corridor: str) -> CorridorBoard:
    """Work out, from the take-off order and the results so far, who meets whom in a corridor.

    Plane a_i meets b_j only if both survived all their earlier meetings; a_i meets the
    surviving B planes in B's take-off order. Filling the grid row by row works because cell
    (i, j) depends only on (i, j' < j) and (i' < i, j).
    """
    flying = [o for o in rnd.orders.values() if o.corridor == corridor and o.status != "planned"]
    a_planes = sorted((o for o in flying if o.team == "A"), key=lambda o: o.position)
    b_planes = sorted((o for o in flying if o.team == "B"), key=lambda o: o.position)
    # Each plane's fate so far along its path: alive, dead (with who shot it), or unknown.
    b_state: dict[str, str] = {b.id: "alive" for b in b_planes}
    b_killer: dict[str, str] = {}
    meetings: list[Meeting] = []
    through: list[str] = []
    for a in a_planes:
        a_state = "alive"
        a_killer = ""
        for b in b_planes:
            if a_state == "dead" or b_state[b.id] == "dead":
                dead, killer = (a, a_killer) if a_state == "dead" else (b, b_killer[b.id])
                meetings.append(Meeting(corridor, a.id, b.id, "never", Msg("{plane} was shot down by {killer}", plane=dead.label(), killer=killer)))
                continue
            if a_state == "unknown" or b_state[b.id] == "unknown":
                first = a if a_state == "unknown" else b
                meetings.append(Meeting(corridor, a.id, b.id, "waiting", Msg("{plane} must first finish its earlier dogfight", plane=first.label())))
                a_state = "unknown"
                b_state[b.id] = "unknown"
                continue
            result = rnd.duels.get(duel_key(corridor, a.id, b.id))
            if result is None:
                meetings.append(Meeting(corridor, a.id, b.id, "due"))
                a_state = "unknown"
                b_state[b.id] = "unknown"
                continue
            meetings.append(Meeting(corridor, a.id, b.id, "done"))
            if result.shot_down == a.id:
                a_state, a_killer = "dead", b.label()
            elif result.shot_down == b.id:
                b_state[b.id] = "dead"
                b_killer[b.id] = a.label()
        if a_state == "alive":
            through.append(a.id)
    through.extend(b.id for b in b_planes if b_state[b.id] == "alive")
    return CorridorBoard(corridor, a_planes, b_planes, meetings, through)


def corridor_boards(state: State) -> list[CorridorBoard]:
    """Return the meeting board of every corridor in the current round."""
    rnd = state.round
    if rnd is None:
        return []
    return [corridor_board(rnd, c) for c in state.ruleset.corridors]


def next_meeting(state: State, order: Order) -> Meeting | None:
    """Return the meeting a plane in the air flies to next (due, or waiting on another), if any."""
    rnd = state.rounds[order.round - 1]
    if rnd.phase != "airborne" or order.status != "airborne":
        return None
    for m in corridor_board(rnd, order.corridor).meetings:
        if order.id in (m.a, m.b) and m.status not in ("done", "never"):
            return m
    return None


# --- Which orders a role may name ------------------------------------------------------------


def orders_shown_to(state: State, role: Role) -> frozenset[str] | None:
    """Return the ids of the orders a role's view shows it; None for the referee, who sees all.

    A team is shown its own orders, the enemy planes its planes fly to meet next and the enemy
    bombers waiting at its base; a pilot its own order and the plane it meets next. An action
    may name only these orders. Order ids are easy to guess (1B1, 1B2, ...): a refusal that
    looked the order up first would tell whether it exists, its kind and its corridor.
    """
    if role.kind in ("referee", "clock"):
        return None
    shown: set[str] = set()
    flying: list[Order] = []
    if role.kind == "team" and role.subject in TEAMS:
        team = role.subject
        for rnd in state.rounds:
            shown.update(o.id for o in rnd.orders.values() if o.team == team)
        if state.round is not None:
            flying = [o for o in state.round.orders.values() if o.team == team]
        shown.update(o.id for o in waiting_bombers(state, team))
    elif role.kind == "pilot":
        order = state.order(role.subject)
        if order is not None:
            shown.add(order.id)
            flying = [order]
    for order in flying:
        meeting = next_meeting(state, order)
        if meeting is not None:
            shown.update((meeting.a, meeting.b))
    return frozenset(shown)


def _named_order(state: State, rnd: Round, order_id: str, role: Role) -> Order:
    """Find an order an action names, refusing alike every order the role is not shown."""
    shown = orders_shown_to(state, role)
    if shown is not None and order_id not in shown:
        # One answer whether the order exists or not: no label, corridor, kind or count.
        raise IllegalAction(Msg("you can act only on your own planes and on the enemy planes your screen shows"))
    order = rnd.orders.get(order_id)
    if order is None:
        raise IllegalAction(Msg('no order {order_id} in round {number}', order_id=order_id, number=rnd.number))
    return order


# --- Judging duels ---------------------------------------------------------------------------


def judge_dogfight(kind_a: str, kind_b: str, throws: list[Throw], choice: str | None) -> tuple[str | None, bool]:
    """Decide a dogfight between sides "A" and "B"; return (side shot down or None, passed)."""
    decisive = [t.winner for t in throws if t.winner is not None]
    if kind_a == kind_b:
        if kind_a == BOMBER and choice == "pass":
            if decisive:
                raise MalformedAction(Msg('bombers who agree to pass throw no decisive throw'))
            return None, True
        if choice is not None:
            raise MalformedAction(
                Msg("only two bombers may agree to pass") if choice == "pass" else Msg("a {kind_a}-{kind_b} dogfight has no choice to make", kind_a=kind_a, kind_b=kind_b)
            )
        if len(decisive) != 1:
            raise MalformedAction(Msg('a {kind_a}-{kind_b} dogfight takes one decisive throw, not {count}', kind_a=kind_a, kind_b=kind_b, count=len(decisive)))
        if throws[-1].winner is None:
            raise MalformedAction(Msg('the last throw was a tie: enter the throw again'))
        return ("B" if decisive[0] == "A" else "A"), False
    fighter = "A" if kind_a == FIGHTER else "B"
    bomber = "B" if fighter == "A" else "A"
    if not decisive:
        raise MalformedAction(Msg('enter the first throw: who won it?'))
    if decisive[0] == fighter:
        if len(decisive) > 1 or choice is not None:
            raise MalformedAction(Msg('the fighter won the first throw: the bomber is shot down, nothing follows'))
        return bomber, False
    if choice is None:
        raise MalformedAction(Msg('the fighter lost the first throw: its pilot chooses pass or continue'))
    if choice == "pass":
        if len(decisive) > 1:
            raise MalformedAction(Msg('the fighter passed: there is no second throw'))
        return None, True
    if choice != "continue":
        raise MalformedAction(Msg("the fighter's choice is pass or continue, not {choice!r}", choice=choice))
    if len(decisive) != 2:
        raise MalformedAction(Msg('the fighter chose to continue: enter the second throw'))
    return ("B" if decisive[1] == "A" else "A"), False


def judge_bombing(throws: list[Throw], choice: str | None) -> str:
    """Decide a fight of ship and bomber (sides "bomber", "ship"): hit, left or shot_down."""
    decisive = [t.winner for t in throws if t.winner is not None]
    if not decisive:
        raise MalformedAction(Msg('enter the first throw: did the bomber or the ship win it?'))
    if decisive[0] == "bomber":
        if len(decisive) > 1 or choice is not None:
            raise MalformedAction(Msg('the bomber won the first throw: the square is hit, nothing follows'))
        return "hit"
    if choice is None:
        raise MalformedAction(Msg("the ship won the first throw: the bomber's pilot chooses leave or continue"))
    if choice == "leave":
        if len(decisive) > 1:
            raise MalformedAction(Msg('the bomber left: there is no second throw'))
        return "left"
    if choice != "continue":
        raise MalformedAction(Msg("the bomber's choice is leave or continue, not {choice!r}", choice=choice))
    if len(decisive) != 2:
        raise MalformedAction(Msg('the bomber chose to continue: enter the second throw'))
    return "hit" if decisive[1] == "bomber" else "shot_down"


# --- Plane movements (the ledger's only writers) ----------------------------------------------


def _note(state: State, seq: int, **effect: Any) -> None:
    state.notes.setdefault(seq, []).append(effect)


def _land(state: State, order: Order, seq: int) -> None:
    """Land a plane after its sortie: on its home ship, or on another floating ship if that sank."""
    team = state.teams[order.team]
    home = order.ship if order.ship not in team.sunk else None
    ship_id = home or next((s.id for s in team.afloat()), None)
    if ship_id is None:
        order.status = "landed"
        order.landed_on = None
        team.lost[order.kind] += 1
        _note(state, seq, type="lost", team=order.team, order=order.id, why="no ship afloat to land on")
        return
    order.status = "landed"
    order.landed_on = ship_id
    team.stock[ship_id][order.kind] += 1
    _note(state, seq, type="landed", team=order.team, order=order.id, ship=ship_id, home=ship_id == order.ship)


def _shoot_down(state: State, order: Order, holder_team: str, holder: str, seq: int) -> None:
    order.status = "shot_down"
    order.shot_down_by = holder
    rnd = state.rounds[order.round - 1]
    state.trophies.append(Trophy(order.team, order.kind, holder_team, holder, rnd.number, order.id))
    _note(state, seq, type="shot_down", team=order.team, order=order.id, label=order.label(), kind=order.kind, by=holder, by_team=holder_team)


def _after_corridor(state: State, rnd: Round, corridor: str, seq: int) -> None:
    """Send planes that have flown through on: bombers to the enemy base, fighters home."""
    board = corridor_board(rnd, corridor)
    for order_id in board.through:
        order = rnd.orders[order_id]
        if order.status != "airborne":
            continue
        if order.kind == BOMBER:
            order.status = "bombing"
            _note(state, seq, type="through", team=order.team, order=order.id, label=order.label(), corridor=corridor, kind=BOMBER)
        else:
            _note(state, seq, type="through", team=order.team, order=order.id, label=order.label(), corridor=corridor, kind=FIGHTER)
            _land(state, order, seq)


def _sink_if_done(state: State, team: Team, ship: Ship, seq: int) -> bool:
    if ship.id in team.sunk or not ship.squares <= team.hits:
        return False
    team.sunk.append(ship.id)
    lost = team.stock.pop(ship.id, {FIGHTER: 0, BOMBER: 0})
    team.stock[ship.id] = {FIGHTER: 0, BOMBER: 0}
    for kind in PLANE_KINDS:
        team.lost[kind] += lost[kind]
    grid = state.grid(team.id)
    for s in ship.squares:
        team.shots[grid.square_name(s)] = "sunk"
    _note(state, seq, type="sunk", team=team.id, ship=ship.id, kind=ship.kind, squares=sorted(grid.square_name(s) for s in ship.squares), fighters_lost=lost[FIGHTER], bombers_lost=lost[BOMBER])
    return True


def ledger(state: State, team_id: str) -> dict[str, dict[str, int]]:
    """Count a team's planes: on ships, in the air, lost with ships, held by the enemy as trophies."""
    team = state.teams[team_id]
    rows: dict[str, dict[str, int]] = {}
    for kind in PLANE_KINDS:
        on_ships = sum(stock[kind] for stock in team.stock.values())
        in_air = sum(
            1 for rnd in state.rounds for o in rnd.orders.values() if o.team == team_id and o.kind == kind and o.status in IN_AIR
        )
        trophies = sum(1 for t in state.trophies if t.plane_team == team_id and t.kind == kind)
        rows[kind] = {
            "on_ships": on_ships,
            "in_air": in_air,
            "lost": team.lost[kind],
            "trophies": trophies,
            "start": team.start_planes[kind],
        }
    return rows


def ledger_balances(state: State) -> bool:
    """Tell whether every team's planes add up to its starting total."""
    for team_id in TEAMS:
        for row in ledger(state, team_id).values():
            if row["on_ships"] + row["in_air"] + row["lost"] + row["trophies"] != row["start"]:
                return False
    return True


# --- End of game -----------------------------------------------------------------------------


def _decide_by_tie_breaks(state: State, reason: str, seq: int, detail: str, at: float) -> None:
    what: str
    scores = {t: state.teams[t] for t in TEAMS}
    for tie_break in state.ruleset.tie_breaks:
        if tie_break == "floating_squares":
            a, b = scores["A"].floating_squares(), scores["B"].floating_squares()
            what = Msg("more squares still afloat")
        else:
            a = sum(1 for t in state.trophies if t.holder_team == "A")
            b = sum(1 for t in state.trophies if t.holder_team == "B")
            what = Msg("more trophies")
        if a != b:
            winner = "A" if a > b else "B"
            _end(state, winner, reason, Msg("{detail}; {team} has {what} ({high} to {low})", detail=detail, team=state.teams[winner].name, what=what, high=max(a, b), low=min(a, b)), seq, at)
            return
    _end(state, None, reason, Msg("{detail}; a draw", detail=detail), seq, at)


def _end(state: State, winner: str | None, reason: str, detail: str, seq: int, at: float) -> None:
    state.outcome = Outcome(winner, reason, detail, seq)
    state.phase = "over"
    rnd = state.round
    if rnd is not None and rnd.phase == "airborne":
        rnd.timer.remaining = rnd.timer.left(at)
        rnd.timer.deadline = None
    _note(state, seq, type="game_over", winner=winner, reason=reason, detail=detail)


def _check_fleets(state: State, seq: int, at: float, round_closed: bool) -> None:
    """End the game once a fleet is gone and no raid already in the air can change the result."""
    if state.phase != "playing":
        return
    gone = [t for t in TEAMS if not state.teams[t].afloat()]
    if not gone:
        return
    rnd = state.round
    if not round_closed and rnd is not None and rnd.phase == "airborne" and len(gone) == 1:
        # The raids of a sunk team's bombers still in the air may yet sink the last enemy ship.
        loser = gone[0]
        if any(o.team == loser and o.kind == BOMBER and o.status in IN_AIR for o in rnd.orders.values()):
            return
    if len(gone) == 2:
        _decide_by_tie_breaks(state, "fleets_sunk", seq, Msg("both fleets sank in the same round"), at)
    else:
        winner = other(gone[0])
        _end(state, winner, "fleet_sunk", Msg("{team} has no ship afloat", team=state.teams[gone[0]].name), seq, at)


# --- Event handlers: each checks fully, then changes the state --------------------------------

Handler = Callable[[State, Event, Role], "Mapping[str, Any] | None"]
"""A handler checks an event fully, then changes the state.

What it returns are its bindings: values it chose when the event was first accepted (a new
order's id, a take-off position, the bomber an announcement by square was matched to). They
are written into the stored event, so that a replay, after a void above all, applies the
event to the same planes instead of choosing again.
"""
HANDLERS: dict[str, Handler] = {}

BINDINGS: dict[str, frozenset[str]] = {"add_order": frozenset({"id", "position"}), "announce_bombing": frozenset({"order"})}
"""The fields a handler may bind into the event of each kind of action."""
BOUND_FIELDS: dict[str, frozenset[str]] = {"add_order": frozenset({"id"})}
CHANCE: frozenset[str] = frozenset()
"""The kinds of action that take a seed from the server: none, the air raid's chance is played by hand."""
"""Fields that only the rules write into an event (as bindings): an action may not send them."""


def handler(kind: str) -> Callable[[Handler], Handler]:
    """Register the handler of one event kind."""

    def register(fn: Handler) -> Handler:
        HANDLERS[kind] = fn
        return fn

    return register


def _setup_game(action: Mapping[str, Any]) -> State:
    f = Fields(action, ("ruleset", "teams", "sea_size", "round_seconds"))
    raw = action.get("ruleset")
    if not isinstance(raw, Mapping):
        raise MalformedAction(Msg("ruleset must be the ruleset's data (a parsed ruleset file)"))
    try:
        ruleset = airraid_ruleset_from_dict(raw)
    except RulesError as exc:
        raise MalformedAction(Msg('the ruleset is broken: {message}', message=exc.message)) from exc
    except Exception as exc:  # a RulesetError lists every problem
        raise MalformedAction(Msg('the ruleset is broken: {exc}', exc=exc)) from exc
    teams_data = action.get("teams")
    if not isinstance(teams_data, list) or len(teams_data) != 2:
        raise MalformedAction(Msg('teams must list exactly two teams'))
    players = []
    for i, t in enumerate(teams_data):
        if not isinstance(t, Mapping):
            raise MalformedAction(Msg('teams[{i}] must be an object with name, colour and players', i=i))
        tf = Fields(t, ("name", "colour", "players"))
        tf.text("name", limit=MAX_NAME)
        tf.text("colour", optional=True, limit=20)
        names = _players(t.get("players"), f"teams[{i}].players", ruleset.max_players)
        if not ruleset.min_players <= len(names) <= ruleset.max_players:
            raise IllegalAction(
                Msg('{t} has {len} players; this ruleset takes {min_players} to {max_players}', t=t['name'], len=len(names), min_players=ruleset.min_players, max_players=ruleset.max_players)
            )
        players.append(names)
    if teams_data[0]["name"].strip().casefold() == teams_data[1]["name"].strip().casefold():
        raise MalformedAction(Msg('the two teams need different names'))
    row = ruleset.sea_size_for(max(len(p) for p in players))
    size = f.integer("sea_size", optional=True, low=2, high=26) or row.size
    if size != row.size:
        reason = fleet_fit_reason(size, ruleset.sea, row.fleet)
        if reason == UNDECIDED:
            raise IllegalAction(UNDECIDED)
        if reason:
            raise IllegalAction(Msg('a {size}×{size} sea cannot hold the fleet: {reason}', size=size, reason=reason))
    seconds = f.integer("round_seconds", optional=True, low=10, high=3600) or ruleset.round_seconds
    teams = {}
    for team_id, t, names in zip(TEAMS, teams_data, players):
        colour = str(t.get("colour") or ("#0072B2" if team_id == "A" else "#E69F00"))
        if not _COLOUR.match(colour):
            raise MalformedAction(Msg('a team colour is written like #0072B2, not {colour!r}', colour=colour))
        teams[team_id] = Team(team_id, t["name"].strip(), colour, names, size, row.fleet)
    return State(dict(raw), teams, seconds, ruleset=ruleset)


@handler("set_players")
def _set_players(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("team", "players"))
    team = _team_field(f)
    _require(role, "referee", "team", team=team)
    rs = state.ruleset
    names = _players(event.data.get("players"), "players", rs.max_players)
    if not rs.min_players <= len(names) <= rs.max_players:
        raise IllegalAction(Msg('a team has {min_players} to {max_players} players, not {len}', min_players=rs.min_players, max_players=rs.max_players, len=len(names)))
    rnd = state.round
    if rnd is not None and rnd.phase != "closed":
        flying = {o.pilot for o in rnd.orders.values() if o.team == team}
        flying |= {rnd.defenders[team]} if team in rnd.defenders else set()
        missing = sorted(flying - set(names))
        if missing:
            raise IllegalAction(Msg('{missing} has a part in this round: take them off it first', missing=missing[0]))
    state.teams[team].players = names


@handler("lock_sea")
def _lock_sea(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("team", "ships"))
    team_id = _team_field(f)
    _require(role, "referee", "team", team=team_id)
    if state.phase != "setup":
        raise IllegalAction(Msg('the game has started: seas no longer change'))
    team = state.teams[team_id]
    if team.locked:
        raise IllegalAction(Msg("{name}'s sea is already locked", name=team.name))
    grid = state.grid(team_id)
    raw = event.data.get("ships")
    if not isinstance(raw, list) or len(raw) > 26:
        raise MalformedAction(Msg("ships must be a list of the fleet's ships"))
    ships = []
    for i, item in enumerate(raw):
        ship = Ship.from_dict(item, grid)
        ships.append(Ship(ship.id or chr(ord("A") + i), ship.kind, ship.squares))
    problems = check_fleet(grid, state.ruleset.sea, team.fleet, ships)
    if problems:
        raise IllegalAction(join_msgs([p.message for p in problems]))
    team.ships = ships
    team.locked = True
    kinds = state.ruleset.sea.kinds
    team.stock = {s.id: {FIGHTER: kinds[s.kind].fighters, BOMBER: kinds[s.kind].bombers} for s in ships}
    team.start_planes = {k: sum(st[k] for st in team.stock.values()) for k in PLANE_KINDS}
    _note(state, event.seq, type="sea_locked", team=team_id)


@handler("unlock_sea")
def _unlock_sea(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("team",))
    team_id = _team_field(f)
    _require(role, "referee", "team", team=team_id)
    if state.phase != "setup":
        raise IllegalAction(Msg('the game has started: seas no longer change'))
    team = state.teams[team_id]
    if not team.locked:
        raise IllegalAction(Msg("{name}'s sea is not locked", name=team.name))
    team.locked = False
    team.ships = []
    team.stock = {}
    team.start_planes = {FIGHTER: 0, BOMBER: 0}


@handler("start_game")
def _start_game(state: State, event: Event, role: Role) -> None:
    Fields(event.data, ())
    _require(role, "referee")
    if state.phase != "setup":
        raise IllegalAction(Msg('the game has already started'))
    unlocked = [state.teams[t].name for t in TEAMS if not state.teams[t].locked]
    if unlocked:
        raise IllegalAction(Msg('both seas must be locked first; waiting for {join}', join=' and '.join(unlocked)))
    state.phase = "playing"
    state.rounds.append(Round(1, Timer(state.round_seconds)))
    _note(state, event.seq, type="game_started")


def _planning(state: State) -> Round:
    rnd = state.round
    if rnd is None or state.phase != "playing":
        raise IllegalAction(Msg('the game has not started'))
    if rnd.phase != "planning":
        raise IllegalAction(Msg('round {number} has started: orders are locked', number=rnd.number))
    return rnd


def _pilot_name(state: State, team: str, f: Fields, key: str = "pilot") -> str:
    name = f.text(key, limit=MAX_NAME)
    for player in state.teams[team].players:
        if player.casefold() == name.casefold():
            return player
    raise IllegalAction(Msg("{name} is not on {name2}'s roster", name=name, name2=state.teams[team].name))


@handler("set_defender")
def _set_defender(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("team", "pilot"))
    team = _team_field(f)
    _require(role, "referee", "team", team=team)
    rnd = _planning(state)
    name = _pilot_name(state, team, f)
    if any(o.team == team and o.pilot == name for o in rnd.orders.values()):
        raise IllegalAction(Msg('{name} already flies this round; the defender stays at base', name=name))
    rnd.defenders[team] = name


def order_problems(state: State, team: str, pilot: str, kind: str, ship_id: str, corridor: str, position: int | None, target: Square | None, replacing: str | None = None) -> list[str]:
    """Return every reason an order may not be written now (empty when it may)."""
    rnd = state.round
    assert rnd is not None
    rs = state.ruleset
    t = state.teams[team]
    problems: list[str] = []
    others = [o for o in rnd.orders.values() if o.team == team and o.id != replacing]
    if rnd.defenders.get(team) == pilot:
        problems.append(Msg("{pilot} is this round's defender and stays at base", pilot=pilot))
    if any(o.pilot == pilot for o in others):
        problems.append(Msg('{pilot} already flies this round', pilot=pilot))
    ship = t.ship(ship_id)
    if ship is None:
        problems.append(Msg('{name} has no ship {ship_id}', name=t.name, ship_id=ship_id))
    elif ship_id in t.sunk:
        problems.append(Msg('the {ship_labels} has sunk', ship_labels=ship_labels(rs.sea, t.ships)[ship_id]))
    else:
        used = sum(1 for o in others if o.ship == ship_id and o.kind == kind)
        if t.stock[ship_id][kind] - used <= 0:
            problems.append(Msg('the {ship_labels} has no {kind} left', ship_labels=ship_labels(rs.sea, t.ships)[ship_id], kind=kind))
    if corridor not in rs.corridors:
        problems.append(Msg('there is no {corridor} corridor', corridor=corridor))
    else:
        in_corridor = [o for o in others if o.corridor == corridor]
        if len(in_corridor) >= rs.corridor_limit:
            problems.append(Msg('the {corridor} corridor already has {corridor_limit} planes, its limit', corridor=corridor, corridor_limit=rs.corridor_limit))
        if position is not None:
            if not 1 <= position <= rs.corridor_limit:
                problems.append(Msg('take-off position is 1 to {corridor_limit}, not {position}', corridor_limit=rs.corridor_limit, position=position))
            elif any(o.position == position for o in in_corridor):
                problems.append(Msg('position {position} in the {corridor} corridor is taken', position=position, corridor=corridor))
    if kind == FIGHTER and target is not None:
        problems.append("a fighter has no target square")
    if kind == BOMBER and target is None:
        problems.append("a bomber needs a target square")
    return problems


def _parse_order(state: State, event: Event, role: Role, allowed: tuple[str, ...]) -> tuple[str, str, str, str, str, int | None, Square | None, Fields]:
    f = Fields(event.data, allowed)
    team = _team_field(f)
    _require(role, "referee", "team", team=team)
    _planning(state)
    pilot = _pilot_name(state, team, f)
    kind = f.choice("kind", PLANE_KINDS)
    assert kind is not None
    ship = f.text("ship", limit=4).upper()
    corridor = f.text("corridor", limit=40)
    position = f.integer("position", optional=True, low=1, high=99)
    target_text = event.data.get("target")
    target = None
    if target_text not in (None, ""):
        target = state.grid(other(team)).parse_square(target_text)
    return team, pilot, kind, ship, corridor, position, target, f


_ORDER_ID = re.compile(r"^([1-9][0-9]{0,5})([AB])([1-9][0-9]{0,5})$")


def order_serial(order_id: str, round_number: int, team: str) -> int | None:
    """Return the counter of an order id like "2A3" if it is of that round and team, else None."""
    m = _ORDER_ID.match(order_id)
    if m is None or int(m.group(1)) != round_number or m.group(2) != team:
        return None
    return int(m.group(3))


def _reserve(state: State, event: Event) -> None:
    """Keep an id given by an event that no longer applies (voided or skipped): ids are never reused."""
    rnd = state.round
    order_id, team = event.data.get("id"), event.data.get("team")
    if event.kind != "add_order" or rnd is None or not isinstance(order_id, str) or not isinstance(team, str):
        return
    serial = order_serial(order_id, rnd.number, team)
    if serial is not None:
        rnd.serial[team] = max(rnd.serial.get(team, 0), serial)


@handler("add_order")
def _add_order(state: State, event: Event, role: Role) -> Mapping[str, Any]:
    team, pilot, kind, ship, corridor, position, target, f = _parse_order(
        state, event, role, ("team", "pilot", "kind", "ship", "corridor", "position", "target", "id")
    )
    problems = order_problems(state, team, pilot, kind, ship, corridor, position, target)
    if problems:
        raise IllegalAction(join_msgs(problems))
    rnd = state.round
    assert rnd is not None
    if position is None:
        taken = {o.position for o in rnd.orders.values() if o.team == team and o.corridor == corridor}
        position = min(p for p in range(1, state.ruleset.corridor_limit + 1) if p not in taken)
    if "id" in event.data:
        # A stored event names the order it made: a replay after a void gives it the same id.
        order_id = f.text("id", limit=20)
        serial = order_serial(order_id, rnd.number, team)
        if serial is None or state.order(order_id) is not None:
            raise IllegalAction(Msg('order {order_id} cannot be made again in round {number}', order_id=order_id, number=rnd.number))
    else:
        serial = rnd.serial.get(team, 0) + 1
        order_id = f"{rnd.number}{team}{serial}"
    rnd.serial[team] = max(rnd.serial.get(team, 0), serial)
    rnd.orders[order_id] = Order(order_id, rnd.number, team, pilot, kind, ship, corridor, position, target)
    _note(state, event.seq, type="order_added", team=team, order=order_id)
    return {"id": order_id, "position": position}


@handler("remove_order")
def _remove_order(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("order",))
    order_id = f.text("order", limit=20)
    _require(role, "referee", "team")
    rnd = _planning(state)
    order = _named_order(state, rnd, order_id, role)
    _require(role, "referee", "team", team=order.team)
    del rnd.orders[order_id]
    _note(state, event.seq, type="order_removed", team=order.team, order=order_id)


@handler("start_round")
def _start_round(state: State, event: Event, role: Role) -> None:
    Fields(event.data, ())
    _require(role, "referee")
    rnd = _planning(state)
    missing = [state.teams[t].name for t in TEAMS if t not in rnd.defenders]
    if missing:
        raise IllegalAction(Msg("every team needs this round's defender; missing for {join}", join=' and '.join(missing)))
    rnd.phase = "airborne"
    rnd.timer.started_at = event.at
    rnd.timer.deadline = event.at + rnd.timer.seconds
    for order in rnd.orders.values():
        state.teams[order.team].stock[order.ship][order.kind] -= 1
        order.status = "airborne"
    _note(state, event.seq, type="round_started", round=rnd.number, deadline=rnd.timer.deadline)
    for corridor in state.ruleset.corridors:
        _after_corridor(state, rnd, corridor, event.seq)


def _airborne(state: State) -> Round:
    rnd = state.round
    if state.phase == "over":
        raise GameOver(Msg('the game is over'))
    if rnd is None or state.phase != "playing" or rnd.phase != "airborne":
        raise IllegalAction(Msg('no round is in the air'))
    return rnd


def _dogfight_from(state: State, event: Event, role: Role) -> tuple[Round, Order, Order, DuelResult]:
    """Check a reported dogfight against the meeting order and judge it."""
    f = Fields(event.data, ("a", "b", "throws", "choice"))
    throws = parse_throws(event.data.get("throws"), ("A", "B"))
    choice = f.choice("choice", ("pass", "continue"), optional=True)
    rnd = _airborne(state)
    a_id, b_id = f.text("a", limit=20), f.text("b", limit=20)
    # Who may report is settled by the ids as sent, before either order is looked up.
    if role.kind != "referee" and not (role.kind == "pilot" and role.subject in (a_id, b_id)):
        raise NotYourTurn(Msg('only the two pilots of a dogfight, or the referee, report it'))
    first = _named_order(state, rnd, a_id, role)
    second = _named_order(state, rnd, b_id, role)
    if first.team == second.team:
        raise IllegalAction(Msg('{label} and {label2} fly for the same team', label=first.label(), label2=second.label()))
    a, b = (first, second) if first.team == "A" else (second, first)
    if a.corridor != b.corridor:
        raise IllegalAction(Msg('{label} flies the {corridor} corridor and {label2} the {corridor2}: they never meet', label=a.label(), corridor=a.corridor, label2=b.label(), corridor2=b.corridor))
    board = corridor_board(rnd, a.corridor)
    meeting = board.meeting(a.id, b.id)
    if meeting is None:
        raise IllegalAction(Msg('{label} and {label2} are not in the air', label=a.label(), label2=b.label()))
    if meeting.status == "done":
        raise IllegalAction(Msg('the dogfight of {label} and {label2} in the {corridor} corridor is already decided', label=a.label(), label2=b.label(), corridor=a.corridor))
    if meeting.status == "never":
        raise IllegalAction(Msg('{label} never meets {label2}: {reason}', label=a.label(), label2=b.label(), reason=meeting.reason))
    if meeting.status == "waiting":
        raise IllegalAction(Msg('{label} cannot meet {label2} yet: {reason}', label=a.label(), label2=b.label(), reason=meeting.reason))
    loser, passed = judge_dogfight(a.kind, b.kind, throws, choice)
    shot = a.id if loser == "A" else b.id if loser == "B" else None
    result = DuelResult(a.corridor, a.id, b.id, throws, choice, passed, shot, event.seq, event.by)
    return rnd, a, b, result


def _same_result(x: DuelResult, y: DuelResult) -> bool:
    return x.shot_down == y.shot_down and x.passed == y.passed and x.choice == y.choice


def _resolve_dogfight(state: State, rnd: Round, a: Order, b: Order, result: DuelResult, seq: int, at: float) -> None:
    key = duel_key(a.corridor, a.id, b.id)
    rnd.duels[key] = result
    rnd.reports.pop(key, None)
    rnd.conflicts.pop(key, None)
    _note(state, seq, type="dogfight", corridor=a.corridor, a=a.id, b=b.id, a_label=a.label(), b_label=b.label(), shot_down=result.shot_down, passed=result.passed)
    if result.shot_down:
        loser, winner = (a, b) if result.shot_down == a.id else (b, a)
        _shoot_down(state, loser, winner.team, winner.pilot, seq)
    _after_corridor(state, rnd, a.corridor, seq)
    _check_fleets(state, seq, at, round_closed=False)


@handler("report_dogfight")
def _report_dogfight(state: State, event: Event, role: Role) -> None:
    rnd, a, b, result = _dogfight_from(state, event, role)
    if role.kind == "referee":
        _resolve_dogfight(state, rnd, a, b, result, event.seq, event.at)
        return None
    key = duel_key(a.corridor, a.id, b.id)
    pending = rnd.reports.get(key, [])
    if any(r.by == role.to_str() for r in pending):
        raise IllegalAction(Msg('you have already reported this dogfight; the other pilot or the referee confirms it'))
    report = Report(role.to_str(), event.seq, result)
    agreeing = [r for r in pending if _same_result(r.result, result)]
    if agreeing:
        _resolve_dogfight(state, rnd, a, b, agreeing[0].result, event.seq, event.at)
        return None
    rnd.reports.setdefault(key, []).append(report)
    if len(rnd.reports[key]) > 1:
        rnd.conflicts[key] = list(rnd.reports[key])
        _note(state, event.seq, type="conflict", corridor=a.corridor, a=a.id, b=b.id)
    else:
        _note(state, event.seq, type="reported", corridor=a.corridor, a=a.id, b=b.id, by=role.to_str())


@handler("confirm_dogfight")
def _confirm_dogfight(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("a", "b"))
    rnd = _airborne(state)
    a_id, b_id = f.text("a", limit=20), f.text("b", limit=20)
    if role.kind != "referee" and not (role.kind == "pilot" and role.subject in (a_id, b_id)):
        raise NotYourTurn(Msg('only the other pilot or the referee confirms a dogfight'))
    first = _named_order(state, rnd, a_id, role)
    second = _named_order(state, rnd, b_id, role)
    if first.team == second.team:
        raise IllegalAction(Msg('no such dogfight in this round'))
    a, b = (first, second) if first.team == "A" else (second, first)
    key = duel_key(a.corridor, a.id, b.id)
    pending = rnd.reports.get(key)
    if not pending:
        raise IllegalAction(Msg('nobody has reported the dogfight of {label} and {label2}', label=a.label(), label2=b.label()))
    if key in rnd.conflicts:
        raise IllegalAction(Msg("the pilots' reports contradict each other: the referee enters the result"))
    if role.to_str() == pending[0].by:
        raise IllegalAction(Msg('the other pilot or the referee confirms your report, not you'))
    _resolve_dogfight(state, rnd, a, b, pending[0].result, event.seq, event.at)


def _waiting_bomber(state: State, rnd: Round, f: Fields, role: Role) -> tuple[Order, bool]:
    """Find the bomber a bombing action is about; say whether it was matched by its target square."""
    _require(role, "referee", "team")
    order_id = f.data.get("order")
    target_text = f.data.get("target")
    matched = False
    if order_id is not None:
        order = _named_order(state, rnd, f.text("order", limit=20), role)
        if target_text is not None:
            # An announcement by square, stored with the bomber it was matched to: it stays that one.
            square = state.grid(other(order.team)).parse_square(target_text)
            if order.target != square:
                raise IllegalAction(Msg('no bomber is waiting at the base with target {square_name}', square_name=state.grid(other(order.team)).square_name(square)))
    elif target_text is not None:
        defender = role.subject if role.kind == "team" else f.data.get("team")
        if defender not in TEAMS:
            raise MalformedAction(Msg("say which team's sea is bombed (team)"))
        square = state.grid(str(defender)).parse_square(target_text)
        waiting = [o for o in rnd.orders.values() if o.team == other(str(defender)) and o.status == "bombing" and o.target == square and o.id not in rnd.bombings]
        if not waiting:
            raise IllegalAction(Msg('no bomber is waiting at the base with target {square_name}', square_name=state.grid(str(defender)).square_name(square)))
        order = min(waiting, key=lambda o: (o.corridor, o.position))
        matched = True
    else:
        raise MalformedAction(Msg("give the bomber's order (scan its slip) or its target square"))
    if order.kind != BOMBER:
        raise IllegalAction(Msg('{label} is a fighter: fighters do not bomb', label=order.label()))
    if order.status == "airborne":
        raise IllegalAction(Msg('{label} has not flown through the {corridor} corridor yet', label=order.label(), corridor=order.corridor))
    if order.status != "bombing":
        raise IllegalAction(Msg('{label} is {replace}: it cannot bomb', label=order.label(), replace=order.status.replace('_', ' ')))
    _require(role, "referee", "team", team=other(order.team))
    return order, matched


@handler("announce_bombing")
def _announce_bombing(state: State, event: Event, role: Role) -> Mapping[str, Any] | None:
    f = Fields(event.data, ("order", "target", "team"))
    rnd = _airborne(state)
    order, matched = _waiting_bomber(state, rnd, f, role)
    if order.id in rnd.bombings:
        raise IllegalAction(Msg("{label}'s bombing is already announced: {answer}", label=order.label(), answer=rnd.bombings[order.id].answer))
    assert order.target is not None
    defender = state.teams[other(order.team)]
    ship = next((s for s in defender.ships if order.target in s.squares), None)
    name = state.grid(defender.id).square_name(order.target)
    if ship is None:
        answer = "water"
    elif order.target in defender.hits or ship.id in defender.sunk:
        answer = "already_hit"
    else:
        answer = "fight"
    rnd.bombings[order.id] = Bombing(order.id, order.target, answer, ship.id if ship else None, event.seq)
    _note(state, event.seq, type="bombing", team=defender.id, order=order.id, label=order.label(), square=name, answer=answer)
    if answer != "fight":
        rnd.bombings[order.id].result = answer
        if answer == "water":
            defender.shots.setdefault(name, "water")
        _land(state, order, event.seq)
        _check_fleets(state, event.seq, event.at, round_closed=False)
    return {"order": order.id} if matched else None


@handler("report_bombing")
def _report_bombing(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("order", "throws", "choice"))
    rnd = _airborne(state)
    order, _ = _waiting_bomber(state, rnd, f, role)
    bombing = rnd.bombings.get(order.id)
    if bombing is None:
        raise IllegalAction(Msg("announce {label}'s bombing first: the sea answers water, fight or already hit", label=order.label()))
    if bombing.answer != "fight" or bombing.result is not None:
        raise IllegalAction(Msg("{label}'s bombing is over: {value}", label=order.label(), value=bombing.result or bombing.answer))
    throws = parse_throws(event.data.get("throws"), ("bomber", "ship"))
    choice = f.choice("choice", ("leave", "continue"), optional=True)
    result = judge_bombing(throws, choice)
    bombing.throws, bombing.choice, bombing.result = throws, choice, result
    defender = state.teams[other(order.team)]
    grid = state.grid(defender.id)
    name = grid.square_name(bombing.target)
    _note(state, event.seq, type="bombing_result", team=defender.id, order=order.id, label=order.label(), square=name, result=result)
    if result == "hit":
        defender.hits.add(bombing.target)
        defender.shots[name] = "hit"
        ship = defender.ship(bombing.ship or "")
        assert ship is not None
        _note(state, event.seq, type="hit", team=defender.id, square=name, ship=ship.id)
        _sink_if_done(state, defender, ship, event.seq)
        _land(state, order, event.seq)
    elif result == "left":
        _land(state, order, event.seq)
    else:
        ship_label = ship_labels(state.ruleset.sea, defender.ships)[bombing.ship or ""]
        _shoot_down(state, order, defender.id, f"ship:{ship_label}", event.seq)
    _check_fleets(state, event.seq, event.at, round_closed=False)


@handler("pause_timer")
def _pause(state: State, event: Event, role: Role) -> None:
    Fields(event.data, ())
    _require(role, "referee")
    rnd = _airborne(state)
    if not rnd.timer.running:
        raise IllegalAction(Msg('the clock is already paused'))
    rnd.timer.remaining = rnd.timer.left(event.at)
    rnd.timer.deadline = None
    _note(state, event.seq, type="timer", running=False, remaining=rnd.timer.remaining)


@handler("resume_timer")
def _resume(state: State, event: Event, role: Role) -> None:
    Fields(event.data, ())
    _require(role, "referee")
    rnd = _airborne(state)
    if rnd.timer.running:
        raise IllegalAction(Msg('the clock is already running'))
    rnd.timer.deadline = event.at + (rnd.timer.remaining or 0.0)
    rnd.timer.remaining = None
    _note(state, event.seq, type="timer", running=True, deadline=rnd.timer.deadline)


@handler("adjust_timer")
def _adjust(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("seconds",))
    _require(role, "referee")
    rnd = _airborne(state)
    delta = f.number("seconds", low=-3600, high=3600)
    left = rnd.timer.left(event.at)
    if left + delta < 0:
        raise IllegalAction(Msg('only {left:.0f} s are left: end the round instead', left=left))
    if rnd.timer.deadline is not None:
        rnd.timer.deadline += delta
    else:
        rnd.timer.remaining = left + delta
    _note(state, event.seq, type="timer", running=rnd.timer.running, deadline=rnd.timer.deadline, remaining=rnd.timer.remaining)


@handler("end_round")
def _end_round(state: State, event: Event, role: Role) -> None:
    Fields(event.data, ())
    _require(role, "referee", "clock")
    rnd = _airborne(state)
    if role.kind == "clock" and (rnd.timer.deadline is None or event.at < rnd.timer.deadline):
        raise IllegalAction(Msg("the round's time is not up"))
    rnd.phase = "closed"
    rnd.timer.ended_at = event.at
    rnd.timer.remaining = rnd.timer.left(event.at)
    rnd.timer.deadline = None
    rnd.reports.clear()
    rnd.conflicts.clear()
    for order in rnd.orders.values():
        if order.status in IN_AIR:
            # A plane still out when the round ends goes home; its sortie is over.
            _land(state, order, event.seq)
    _note(state, event.seq, type="round_ended", round=rnd.number)
    _check_fleets(state, event.seq, event.at, round_closed=True)
    if state.phase == "playing" and state.ruleset.round_limit and rnd.number >= state.ruleset.round_limit:
        _decide_by_tie_breaks(state, "round_limit", event.seq, Msg("the limit of {rounds} rounds is reached", rounds=rnd.number), event.at)
    if state.phase == "playing":
        state.rounds.append(Round(rnd.number + 1, Timer(state.round_seconds)))


@handler("surrender")
def _surrender(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("team",))
    team = _team_field(f)
    _require(role, "referee", "team", team=team)
    if state.phase == "over":
        raise GameOver(Msg('the game is over'))
    _end(state, other(team), "surrender", Msg("{team} surrendered", team=state.teams[team].name), event.seq, event.at)


@handler("forfeit")
def _forfeit(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("team", "reason"))
    team = _team_field(f)
    reason = f.text("reason", limit=300)
    _require(role, "referee")
    if state.phase == "over":
        raise GameOver(Msg('the game is over'))
    _end(state, other(team), "forfeit", Msg("{team} forfeits: {reason}", team=state.teams[team].name, reason=reason), event.seq, event.at)


@handler("end_game")
def _end_game(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("reason",))
    reason = f.text("reason", optional=True, limit=300) or Msg("the referee ended the game")
    _require(role, "referee")
    if state.phase == "over":
        raise GameOver(Msg('the game is over'))
    if state.phase == "setup":
        raise IllegalAction(Msg('the game has not started: there is nothing to score'))
    _decide_by_tie_breaks(state, "referee_ended", event.seq, reason, event.at)


@handler("void")
def _void(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("seq", "reason"))
    _require(role, "referee")
    target = f.integer("seq", low=1, high=10**9)
    f.text("reason", limit=300)  # kept in the event itself
    assert target is not None
    if target == 1:
        raise IllegalAction(Msg("the game's creation cannot be voided; start a new game instead"))
    if target >= event.seq or target > len(state.log):
        raise IllegalAction(Msg('there is no event {target} to void', target=target))
    if target in effective_voids(state.log):
        raise IllegalAction(Msg('event {target} is already void', target=target))
    fresh = ENGINE.recompute(state.log + (event,))
    fresh.voided = effective_voids(fresh.log)
    state.__dict__.update(fresh.__dict__)


# --- Folding ---------------------------------------------------------------------------------


def _clone(state: State) -> State:
    # The log is an immutable tuple, the ruleset frozen, closed rounds and earlier notes are
    # never changed again: share them, so an action costs the size of the live round, not of
    # the whole game.
    memo: dict[int, Any] = {id(state.log): state.log, id(state.ruleset): state.ruleset, id(state.ruleset_raw): state.ruleset_raw}
    for rnd in state.rounds:
        if rnd.phase == "closed":
            memo[id(rnd)] = rnd
    notes = state.notes
    memo[id(notes)] = dict(notes)
    return copy.deepcopy(state, memo=memo)


def _setup(event: Event) -> State:
    if Role.from_str(event.by).kind != "referee":
        raise NotYourTurn(Msg('only the referee creates a game'))
    state = _setup_game(event.data)
    _note(state, 1, type="game_created")
    return state


def _voided(state: State, event: Event, reason: str) -> None:
    _note(state, event.seq, type="voided", reason=reason)


def _void_noted(state: State, event: Event) -> None:
    _note(state, event.seq, type="void", target=event.data["seq"], reason=event.data.get("reason", ""))


ENGINE = Engine(
    Rules(
        mode=MODE,
        setup=_setup,
        handlers=HANDLERS,
        clone=_clone,
        bindings=BINDINGS,
        written=BOUND_FIELDS,
        after_end=frozenset({"void"}),
        on_voided=_voided,
        on_void=_void_noted,
        on_unapplied=_reserve,
    )
)


def create(action: Mapping[str, Any], *, at: float, by: str = "referee", seed: int | None = None) -> tuple[State, list[Event]]:
    """Start a game from a create_game action; return the state and its first event."""
    return ENGINE.create(action, at=at, by=by, seed=seed)


def apply(state: State, action: Mapping[str, Any], *, at: float, by: str, version: int | None = None, seed: int | None = None) -> tuple[State, list[Event]]:
    """Check an action by a role at a time; return the new state and the events it adds."""
    return ENGINE.apply(state, action, at=at, by=by, version=version, seed=seed)


def fold(state: State, event: Event) -> State:
    """Apply a stored event and return the new state (the input is not changed)."""
    return ENGINE.fold(state, event)


def replay(events: Sequence[Event]) -> State:
    """Rebuild a game from its whole log."""
    return ENGINE.replay(events)


def read_ruleset(data: Mapping[str, Any], source: str = "<ruleset>") -> AirRaidRuleset:
    """Build an air-raid ruleset from parsed ruleset data; raise RulesetError with every problem."""
    return airraid_ruleset_from_dict(data, source)


def audiences(state: State) -> list[Role]:
    """Return the roles whose screens hear a push: referee, public, both teams, recent pilots.

    Pilots of the last two rounds: a slip of the round before may still be open on a phone.
    """
    roles = [Role("referee"), Role("public"), Role("team", "A"), Role("team", "B")]
    for rnd in state.rounds[-2:]:
        roles.extend(Role("pilot", o) for o in rnd.orders)
    return roles


def next_deadline(state: State) -> float | None:
    """Return when the round clock must next act on a game: the running round's end, else None."""
    rnd = state.round
    if state.phase != "playing" or rnd is None or rnd.phase != "airborne":
        return None
    return rnd.timer.deadline


def outcome(state: State) -> Outcome | None:
    """Return how the game ended, or None while it goes on."""
    return state.outcome


def state_to_dict(state: State) -> JSON:
    """Return the whole state as JSON-able data (for snapshots and comparison)."""
    return log_state_to_dict(state)


def state_from_dict(data: Mapping[str, Any]) -> State:
    """Rebuild a state from `state_to_dict` output."""
    return log_state_from_dict(State, data)


# --- Legal actions and views -----------------------------------------------------------------


def due_dogfights(state: State) -> list[Meeting]:
    """Return the dogfights that can be fought now, in every corridor."""
    rnd = state.round
    if rnd is None or rnd.phase != "airborne" or state.phase != "playing":
        return []
    return [m for board in corridor_boards(state) for m in board.due()]


def waiting_bombers(state: State, defender: str) -> list[Order]:
    """Return the enemy bombers at a team's base, waiting to bomb or to finish their fight."""
    rnd = state.round
    if rnd is None or rnd.phase != "airborne":
        return []
    return [o for o in rnd.orders.values() if o.team == other(defender) and o.status == "bombing"]


def order_options(state: State, team: str) -> JSON:
    """Return what an order may use now: free pilots, ships with stock, corridor slots."""
    rnd = state.round
    t = state.teams[team]
    if rnd is None or rnd.phase != "planning":
        return {}
    flying = {o.pilot for o in rnd.orders.values() if o.team == team}
    labels = ship_labels(state.ruleset.sea, t.ships)
    ships = []
    for ship in t.afloat():
        used = {k: sum(1 for o in rnd.orders.values() if o.team == team and o.ship == ship.id and o.kind == k) for k in PLANE_KINDS}
        ships.append({"ship": ship.id, "name": labels[ship.id], "kind": ship.kind, **{k: t.stock[ship.id][k] - used[k] for k in PLANE_KINDS}})
    corridors = []
    for c in state.ruleset.corridors:
        taken = sorted(o.position for o in rnd.orders.values() if o.team == team and o.corridor == c)
        free = [p for p in range(1, state.ruleset.corridor_limit + 1) if p not in taken]
        corridors.append({"corridor": c, "free": len(free), "positions": free})
    return {
        "pilots": [p for p in t.players if p not in flying and p != rnd.defenders.get(team)],
        "ships": ships,
        "corridors": corridors,
        "target_size": state.teams[other(team)].size,
    }


def legal_actions(state: State, role: Role) -> list[JSON]:
    """List the actions a role may take now; forms with free fields list their options."""
    acts: list[JSON] = []
    if state.phase == "over":
        return acts
    is_ref = role.kind == "referee"
    teams = TEAMS if is_ref else (role.subject,) if role.kind == "team" else ()
    rnd = state.round
    if state.phase == "setup":
        for t in teams:
            acts.append({"type": "unlock_sea" if state.teams[t].locked else "lock_sea", "team": t})
        if is_ref and all(state.teams[t].locked for t in TEAMS):
            acts.append({"type": "start_game"})
        return acts
    assert rnd is not None
    for t in teams:
        acts.append({"type": "surrender", "team": t})
    if rnd.phase == "planning":
        for t in teams:
            acts.append({"type": "set_defender", "team": t, "options": [p for p in state.teams[t].players if not any(o.pilot == p and o.team == t for o in rnd.orders.values())]})
            acts.append({"type": "add_order", "team": t, "options": order_options(state, t)})
            acts.extend({"type": "remove_order", "order": o.id} for o in rnd.orders.values() if o.team == t)
        if is_ref and all(t in rnd.defenders for t in TEAMS):
            acts.append({"type": "start_round"})
    elif rnd.phase == "airborne":
        for m in due_dogfights(state):
            if is_ref or (role.kind == "pilot" and role.subject in (m.a, m.b)):
                key = duel_key(m.corridor, m.a, m.b)
                kind = "confirm_dogfight" if rnd.reports.get(key) and key not in rnd.conflicts and (is_ref or rnd.reports[key][0].by != role.to_str()) else "report_dogfight"
                acts.append({"type": kind, "a": m.a, "b": m.b})
                if kind == "confirm_dogfight":
                    acts.append({"type": "report_dogfight", "a": m.a, "b": m.b})
        for t in teams:
            for o in waiting_bombers(state, t):
                kind = "report_bombing" if o.id in rnd.bombings else "announce_bombing"
                acts.append({"type": kind, "order": o.id})
        if is_ref:
            acts.append({"type": "pause_timer" if rnd.timer.running else "resume_timer"})
            acts.append({"type": "adjust_timer"})
            acts.append({"type": "end_round"})
    if is_ref:
        acts.append({"type": "end_game"})
        acts.append({"type": "forfeit"})
    return acts


def _timer_view(rnd: Round | None, now: float) -> JSON:
    if rnd is None:
        return {"running": False, "left": None, "deadline": None}
    return {
        "round": rnd.number,
        "phase": rnd.phase,
        "running": rnd.timer.running,
        "deadline": rnd.timer.deadline,
        "left": rnd.timer.left(now),
        "seconds": rnd.timer.seconds,
    }


def _public_team(state: State, team_id: str) -> JSON:
    t = state.teams[team_id]
    grid = state.grid(team_id)
    led = ledger(state, team_id)
    sunk = [{"ship": s, "kind": t.ship(s).kind if t.ship(s) else "", "squares": sorted(grid.square_name(q) for q in t.ship(s).squares)} for s in t.sunk if t.ship(s)]  # type: ignore[union-attr]
    return {
        "id": team_id,
        "name": t.name,
        "colour": t.colour,
        "size": t.size,
        "locked": t.locked,
        "ships_total": len(t.fleet),
        "ships_afloat": len(t.afloat()) if t.ships else len(t.fleet),
        "squares_left": t.floating_squares() if t.ships else None,
        "planes": {k: led[k]["on_ships"] + led[k]["in_air"] for k in PLANE_KINDS},
        "trophies": sum(1 for tr in state.trophies if tr.holder_team == team_id),
        "sunk": sunk,
        # Results of the enemy's bombings on this sea: public, since both sides heard them.
        "shots": dict(sorted(t.shots.items())),
    }


def _order_view(state: State, order: Order, full: bool = True) -> JSON:
    grid = state.grid(other(order.team))
    data: JSON = {"id": order.id, "team": order.team, "label": order.label(), "round": order.round, "kind": order.kind, "corridor": order.corridor, "position": order.position, "status": order.status}
    if full:
        labels = ship_labels(state.ruleset.sea, state.teams[order.team].ships)
        data.update(
            pilot=order.pilot,
            ship=order.ship,
            ship_name=labels.get(order.ship, order.ship),
            landed_on_name=labels.get(order.landed_on, order.landed_on) if order.landed_on else None,
            target=grid.square_name(order.target) if order.target else None,
            landed_on=order.landed_on,
            shot_down_by=order.shot_down_by,
        )
    return data


def _next_meeting(state: State, order: Order) -> JSON | None:
    m = next_meeting(state, order)
    if m is None:
        return None
    rnd = state.rounds[order.round - 1]
    enemy = rnd.orders[m.b if order.id == m.a else m.a]
    key = duel_key(m.corridor, m.a, m.b)
    reports = rnd.reports.get(key, [])
    return {
        "a": m.a,
        "b": m.b,
        "status": m.status,
        "reason": m.reason,
        "opponent": {"label": enemy.label(), "kind": enemy.kind, "team": enemy.team},
        "reported_by": [r.by for r in reports],
        "conflict": key in rnd.conflicts,
        "pending": [_duel_view(r.result, rnd) for r in reports],
    }


def _duel_view(d: DuelResult, rnd: Round) -> JSON:
    return {"corridor": d.corridor, "a": d.a, "b": d.b, "a_label": rnd.orders[d.a].label(), "b_label": rnd.orders[d.b].label(), "throws": [t.to_dict() for t in d.throws], "choice": d.choice, "passed": d.passed, "shot_down": d.shot_down, "by": d.by}


PUBLIC_NOTES = {"game_created", "game_started", "sea_locked", "round_started", "round_ended", "dogfight", "shot_down", "through", "bombing", "bombing_result", "hit", "sunk", "game_over", "timer", "voided", "void"}


def _note_view(state: State, note: JSON, role: Role) -> JSON | None:
    """Strip a narration entry to what a role may know."""
    kind = note["type"]
    if role.kind == "referee" or state.phase == "over":
        return note
    mine = role.subject if role.kind == "team" else None
    if role.kind == "pilot":
        order = state.order(role.subject)
        mine = order.team if order else None
    team = note.get("team")
    if mine is not None and team == mine:
        return note
    if kind not in PUBLIC_NOTES:
        return None
    if kind == "hit":
        return {k: v for k, v in note.items() if k != "ship"}
    if kind in ("dogfight", "shot_down", "through", "bombing", "bombing_result"):
        # Which orders and corridors the enemy flies stays secret; the result does not.
        hidden = {"a", "b", "order", "corridor", "by"} if mine or role.kind == "public" else set()
        return {k: v for k, v in note.items() if k not in hidden}
    return note


def _log_view(state: State, role: Role, limit: int | None) -> list[JSON]:
    """Return the newest `limit` log rows a role may see (all if no limit), oldest first."""
    rows: list[JSON] = []
    # Newest first, stopping at the limit: every push makes this for every screen's role, and
    # the log only grows, so walking all of it made pushes slower as the game went on.
    for event in reversed(state.log):
        if limit and len(rows) >= limit:
            break
        notes = [n for n in (_note_view(state, n, role) for n in state.notes.get(event.seq, [])) if n]
        if role.kind == "referee":
            rows.append({**event.to_dict(), "notes": notes, "voided": state.voided.get(event.seq), "skipped": state.skipped.get(event.seq)})
        elif notes:
            rows.append({"seq": event.seq, "kind": event.kind, "at": event.at, "notes": notes})
    rows.reverse()
    return rows


def _sea_view(state: State, team_id: str, reveal: bool) -> JSON:
    t = state.teams[team_id]
    grid = state.grid(team_id)
    labels = ship_labels(state.ruleset.sea, t.ships)
    data: JSON = {"size": t.size, "columns": grid.column_labels(), "rows": grid.row_labels(), "hits": sorted(grid.square_name(s) for s in t.hits), "shots": dict(sorted(t.shots.items()))}
    if reveal:
        data["ships"] = [{**s.to_dict(grid), "name": labels[s.id], "sunk": s.id in t.sunk, "fighters": t.stock.get(s.id, {}).get(FIGHTER, 0), "bombers": t.stock.get(s.id, {}).get(BOMBER, 0)} for s in t.ships]
        data["fleet"] = list(t.fleet)
    return data


def view_for(state: State, role: Role, now: float, log_limit: int | None = 50) -> JSON:
    """Return what one role may see; every secret is stripped here and nowhere else."""
    rnd = state.round
    over = state.phase == "over"
    view: JSON = {
        "mode": MODE,
        "version": state.version,
        "phase": state.phase,
        "role": role.to_str(),
        "ruleset": {"id": state.ruleset.id, "name": state.ruleset.name, "corridors": list(state.ruleset.corridors), "corridor_limit": state.ruleset.corridor_limit},
        "round": _timer_view(rnd, now),
        "teams": {t: _public_team(state, t) for t in TEAMS},
        "outcome": encode(state.outcome) if state.outcome else None,
    }
    if role.kind == "public":
        view["log"] = _log_view(state, role, 12)
        return view
    if role.kind == "referee":
        view["seas"] = {t: _sea_view(state, t, True) for t in TEAMS}
        view["rosters"] = {t: state.teams[t].players for t in TEAMS}
        view["defenders"] = dict(rnd.defenders) if rnd else {}
        view["orders"] = [_order_view(state, o) for o in rnd.orders.values()] if rnd else []
        view["corridors"] = [
            {"corridor": b.corridor, "a": [_order_view(state, o) for o in b.a_planes], "b": [_order_view(state, o) for o in b.b_planes], "meetings": [encode(m) for m in b.meetings], "through": b.through}
            for b in corridor_boards(state)
        ]
        view["duels"] = [_duel_view(d, rnd) for d in rnd.duels.values()] if rnd else []
        view["reports"] = {k: [{"by": r.by, "seq": r.seq, "result": _duel_view(r.result, rnd)} for r in v] for k, v in rnd.reports.items()} if rnd else {}
        view["conflicts"] = sorted(rnd.conflicts) if rnd else []
        view["bombings"] = [{**encode(b), "target": state.grid(other(rnd.orders[b.order].team)).square_name(b.target)} for b in rnd.bombings.values()] if rnd else []
        view["ledger"] = {t: ledger(state, t) for t in TEAMS}
        view["trophies"] = [encode(t) for t in state.trophies]
        view["log"] = _log_view(state, role, log_limit)
        view["legal"] = legal_actions(state, role)
        return view
    if role.kind == "team":
        team = role.subject
        if team not in TEAMS:
            raise MalformedAction(Msg('no team {team!r}', team=team))
        enemy = other(team)
        view["team"] = team
        view["players"] = state.teams[team].players
        view["fleet_kinds"] = {k: {"name": v.name, "names": dict(v.names), "shape": v.shape.to_text()} for k, v in state.ruleset.sea.kinds.items()}
        view["sea"] = _sea_view(state, team, True)
        view["enemy_sea"] = _sea_view(state, enemy, over)
        view["defender"] = rnd.defenders.get(team) if rnd else None
        mine = [o for r in state.rounds for o in r.orders.values() if o.team == team]
        view["orders"] = [{**_order_view(state, o), "next": _next_meeting(state, o)} for o in mine if rnd and o.round == rnd.number]
        view["past_orders"] = [_order_view(state, o) for o in mine if rnd and o.round != rnd.number]
        view["options"] = order_options(state, team)
        rb = rnd.bombings if rnd else {}
        view["bombers_at_base"] = [
            {"order": o.id, "label": o.label(), "corridor": o.corridor, "pilot": o.pilot, "answer": rb[o.id].answer if o.id in rb else None,
             "target": state.grid(team).square_name(o.target) if o.id in rb and o.target else None}
            for o in waiting_bombers(state, team)
        ]
        view["ledger"] = ledger(state, team)
        view["trophies"] = [encode(t) for t in state.trophies if t.holder_team == team]
        view["log"] = _log_view(state, role, log_limit)
        view["legal"] = legal_actions(state, role)
        return view
    if role.kind == "pilot":
        order = state.order(role.subject)
        if order is None:
            raise IllegalAction(Msg("this slip's order no longer exists (it was removed or voided)"))
        view["team"] = order.team
        view["order"] = _order_view(state, order)
        view["current"] = rnd is not None and order.round == rnd.number
        view["next"] = _next_meeting(state, order)
        bombing = state.rounds[order.round - 1].bombings.get(order.id)
        view["bombing"] = {"answer": bombing.answer, "result": bombing.result} if bombing else None
        view["legal"] = legal_actions(state, role)
        return view
    raise MalformedAction(Msg('no view for role {to_str!r}', to_str=role.to_str()))
