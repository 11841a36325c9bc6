"""The score sheet of an air-raid game: the result, the teams, the pilots, the rounds and a timeline.

Everything is read from the folded state: the orders, and the notes each event left of what it
did (`state.notes`). A voided event's effects are gone from the notes (a void re-folds the log
without it), and an event a void left skipped never noted anything; both are still passed over
by seq, so that a note kept by mistake could never count. Words are left to the web layer: this
module gives ids ("water", "shot_down", "round_limit") and numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .state import TEAMS, Order, State, other


@dataclass(frozen=True)
class TieBreak:
    """One tie-break of the ruleset, with what each team had at the end."""

    name: str  # floating_squares | trophies
    a: int
    b: int


@dataclass(frozen=True)
class Result:
    """How the game ended (or that it has not yet)."""

    over: bool
    winner: str | None
    reason: str  # fleet_sunk | fleets_sunk | round_limit | referee_ended | surrender | forfeit | "" while playing
    decided_by: str  # fleet | floating_squares | trophies | draw | surrender | forfeit | "" while playing
    detail: str
    rounds: int
    tie_breaks: tuple[TieBreak, ...]


@dataclass
class TeamScore:
    """One team's totals: what it did to the enemy and what it lost."""

    team: str
    name: str
    colour: str
    sorties: int = 0
    dogfights_won: int = 0
    dogfights_lost: int = 0
    bombs: int = 0
    squares_hit: int = 0
    ships_sunk: int = 0
    ships_lost: int = 0
    shot_down: int = 0
    lost_with_ships: int = 0
    trophies: int = 0
    ship_trophies: int = 0

    @property
    def planes_lost(self) -> int:
        """Count the planes gone: shot down, or lost with a ship (or with no ship left to land on)."""
        return self.shot_down + self.lost_with_ships


@dataclass
class PilotScore:
    """One pilot's line: sorties, dogfights, bombs and what they did."""

    team: str
    pilot: str
    sorties: int = 0
    dogfights_won: int = 0
    dogfights_lost: int = 0
    bombs: int = 0
    hits: int = 0
    sinkings: int = 0
    trophies: int = 0
    shot_down: int = 0


def _per_team() -> dict[str, int]:
    return dict.fromkeys(TEAMS, 0)


@dataclass
class RoundLine:
    """What happened in one round that flew; each count keyed by the team that did it (planes lost: that lost them)."""

    number: int
    started_at: float | None
    ended_at: float | None
    dogfights: int = 0
    sorties: dict[str, int] = field(default_factory=_per_team)
    bombings: dict[str, int] = field(default_factory=_per_team)
    hits: dict[str, int] = field(default_factory=_per_team)
    sinkings: dict[str, int] = field(default_factory=_per_team)
    planes_lost: dict[str, int] = field(default_factory=_per_team)


@dataclass(frozen=True)
class Flyer:
    """A plane in a moment of the timeline: its order, pilot, team, label and kind."""

    order: str
    team: str
    pilot: str
    label: str
    kind: str


@dataclass(frozen=True)
class Moment:
    """One line of the timeline.

    `what`: round_started | round_ended | dogfight | bombing | bombing_result | sunk | game_over.
    `result`: a dogfight's shot_down | passed; a bombing's answer water | fight | already_hit; a
    bombing's result hit | left | shot_down; a sinking's ship kind; the end's reason.
    `team` is the side the moment happens to: the sea bombed or sunk; the winner at the end.
    """

    seq: int
    at: float
    round: int | None
    into: float | None  # seconds since the round started, by the wall clock
    what: str
    result: str
    corridor: str | None = None
    team: str | None = None
    flyers: tuple[Flyer, ...] = ()
    shot_down: str | None = None  # the order of the plane shot down
    square: str | None = None
    ship: str | None = None
    planes: int = 0  # planes lost with a sunk ship


@dataclass(frozen=True)
class Sheet:
    """The whole score sheet of a game."""

    result: Result
    teams: dict[str, TeamScore]
    pilots: list[PilotScore]
    rounds: list[RoundLine]
    timeline: list[Moment]
    bombs: dict[str, dict[str, int]]  # the sea's team -> square -> bombings announced there
    voided: int  # events the referee voided: none of them counts


def _flyer(state: State, order: Order) -> Flyer:
    return Flyer(order.id, order.team, order.pilot, order.label(state.ruleset), order.kind)


def _result(state: State) -> Result:
    teams = state.teams
    trophies = {t: sum(1 for tr in state.trophies if tr.holder_team == t) for t in TEAMS}
    breaks: list[TieBreak] = []
    for name in state.ruleset.tie_breaks:
        if name == "floating_squares":
            breaks.append(TieBreak(name, teams["A"].floating_squares(), teams["B"].floating_squares()))
        else:
            breaks.append(TieBreak(name, trophies["A"], trophies["B"]))
    played = sum(1 for r in state.rounds if r.phase != "planning")
    out = state.outcome
    if state.phase != "over" or out is None:
        return Result(False, None, "", "", "", played, tuple(breaks))
    if out.reason in ("surrender", "forfeit"):
        decided = out.reason
    elif out.reason == "fleet_sunk":
        decided = "fleet"
    else:
        # The same walk as the end of the game (planes._decide_by_tie_breaks): the first that differs.
        decided = next((b.name for b in breaks if b.a != b.b), "draw")
    return Result(True, out.winner, out.reason, decided, out.detail, played, tuple(breaks))


def _pilots(state: State) -> dict[tuple[str, str], PilotScore]:
    pilots: dict[tuple[str, str], PilotScore] = {}
    for team in TEAMS:
        for name in state.teams[team].players:
            pilots[(team, name)] = PilotScore(team, name)
    # A pilot taken off a roster later still flew: their line stays.
    for rnd in state.rounds:
        for order in rnd.orders.values():
            pilots.setdefault((order.team, order.pilot), PilotScore(order.team, order.pilot))
    return pilots


class _Tally:
    """The walk through the log: every note of every event that still counts, in order."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.teams = {t: TeamScore(t, state.teams[t].name, state.teams[t].colour) for t in TEAMS}
        self.pilots = _pilots(state)
        self.rounds: dict[int, RoundLine] = {}
        self.timeline: list[Moment] = []
        self.bombs: dict[str, dict[str, int]] = {t: {} for t in TEAMS}
        self.round: int | None = None
        self.next_round: int | None = None
        self.started: dict[int, float] = {}
        self.squares_hit: set[tuple[str, str]] = set()  # (the team bombed, the square)

    def pilot(self, order: Order) -> PilotScore:
        return self.pilots[(order.team, order.pilot)]

    def order(self, order_id: Any) -> Order | None:
        return self.state.order(order_id) if isinstance(order_id, str) else None

    def line(self) -> RoundLine | None:
        return self.rounds.get(self.round) if self.round is not None else None

    def moment(self, seq: int, at: float, what: str, result: str, **extra: Any) -> None:
        start = self.started.get(self.round) if self.round is not None else None
        into = max(0.0, at - start) if start is not None else None
        self.timeline.append(Moment(seq, at, self.round, into, what, result, **extra))

    def walk(self) -> None:
        state = self.state
        for event in state.log:
            if event.seq in state.voided or event.seq in state.skipped:
                continue
            if self.next_round is not None:
                self.round, self.next_round = self.next_round, None
            # A bombing's result, its hit and its sinking are noted together: the sinking is that bomber's.
            bomber: Order | None = None
            for note in state.notes.get(event.seq, []):
                bomber = self.note(event.seq, event.at, note, bomber)

    def note(self, seq: int, at: float, note: Mapping[str, Any], bomber: Order | None) -> Order | None:
        kind = note.get("type")
        if kind == "game_started":
            self.round = 1
        elif kind == "round_started":
            self.round_started(seq, at, int(note["round"]))
        elif kind == "round_ended":
            number = int(note["round"])
            line = self.rounds.get(number)
            if line is not None:
                line.ended_at = at
            self.moment(seq, at, "round_ended", "")
            self.next_round = number + 1
        elif kind == "dogfight":
            self.dogfight(seq, at, note)
        elif kind == "shot_down":
            self.plane_lost(str(note["team"]), 1, shot=True)
            holder = str(note["by_team"])
            self.teams[holder].trophies += 1
            if bomber is not None and bomber.id == note.get("order"):
                # Shot down over the enemy's sea by a ship: the ship's team holds it, no pilot does.
                self.teams[holder].ship_trophies += 1
        elif kind == "bombing":
            return self.bombing(seq, at, note)
        elif kind == "bombing_result":
            return self.bombing_result(seq, at, note)
        elif kind == "hit":
            self.bombs_hit(note, bomber)
        elif kind == "sunk":
            self.sunk(seq, at, note, bomber)
        elif kind == "lost":
            self.plane_lost(str(note["team"]), 1, shot=False)
        elif kind == "game_over":
            winner = note.get("winner")
            self.moment(seq, at, "game_over", str(note.get("reason", "")), team=winner if winner in TEAMS else None)
        return bomber

    def round_started(self, seq: int, at: float, number: int) -> None:
        self.round = number
        self.started[number] = at
        line = RoundLine(number, at, None)
        self.rounds[number] = line
        rnd = self.state.rounds[number - 1]
        for order in rnd.orders.values():
            if order.status == "planned":
                continue
            line.sorties[order.team] += 1
            self.teams[order.team].sorties += 1
            self.pilot(order).sorties += 1
        self.moment(seq, at, "round_started", "")

    def dogfight(self, seq: int, at: float, note: Mapping[str, Any]) -> None:
        a, b = self.order(note.get("a")), self.order(note.get("b"))
        if a is None or b is None:
            return
        line = self.line()
        if line is not None:
            line.dogfights += 1
        shot = note.get("shot_down")
        if shot in (a.id, b.id):
            loser, winner = (a, b) if shot == a.id else (b, a)
            self.teams[winner.team].dogfights_won += 1
            self.teams[loser.team].dogfights_lost += 1
            won, lost = self.pilot(winner), self.pilot(loser)
            won.dogfights_won += 1
            won.trophies += 1
            lost.dogfights_lost += 1
            lost.shot_down += 1
            result = "shot_down"
        else:
            result = "passed"
        self.moment(
            seq,
            at,
            "dogfight",
            result,
            corridor=a.corridor,
            flyers=(_flyer(self.state, a), _flyer(self.state, b)),
            shot_down=shot if isinstance(shot, str) else None,
        )

    def bombing(self, seq: int, at: float, note: Mapping[str, Any]) -> Order | None:
        order = self.order(note.get("order"))
        if order is None:
            return None
        sea, square = str(note["team"]), str(note["square"])
        self.teams[order.team].bombs += 1
        self.pilot(order).bombs += 1
        self.bombs[sea][square] = self.bombs[sea].get(square, 0) + 1
        line = self.line()
        if line is not None:
            line.bombings[order.team] += 1
        self.moment(
            seq,
            at,
            "bombing",
            str(note["answer"]),
            corridor=order.corridor,
            team=sea,
            flyers=(_flyer(self.state, order),),
            square=square,
        )
        return order

    def bombing_result(self, seq: int, at: float, note: Mapping[str, Any]) -> Order | None:
        order = self.order(note.get("order"))
        if order is None:
            return None
        result = str(note["result"])
        if result == "shot_down":
            self.pilot(order).shot_down += 1
        self.moment(
            seq,
            at,
            "bombing_result",
            result,
            corridor=order.corridor,
            team=str(note["team"]),
            flyers=(_flyer(self.state, order),),
            shot_down=order.id if result == "shot_down" else None,
            square=str(note["square"]),
        )
        return order

    def bombs_hit(self, note: Mapping[str, Any], bomber: Order | None) -> None:
        square = (str(note["team"]), str(note.get("square")))
        if square in self.squares_hit:
            # Two bombers announced on one square before either fought both answer "fight"; the
            # second hit changes nothing on the sea, so it counts for no one.
            return
        self.squares_hit.add(square)
        attacker = other(str(note["team"]))
        self.teams[attacker].squares_hit += 1
        if bomber is not None:
            self.pilot(bomber).hits += 1
        line = self.line()
        if line is not None:
            line.hits[attacker] += 1

    def sunk(self, seq: int, at: float, note: Mapping[str, Any], bomber: Order | None) -> None:
        sea = str(note["team"])
        planes = int(note.get("fighters_lost", 0)) + int(note.get("bombers_lost", 0))
        self.teams[other(sea)].ships_sunk += 1
        self.teams[sea].ships_lost += 1
        self.plane_lost(sea, planes, shot=False)
        if bomber is not None:
            self.pilot(bomber).sinkings += 1
        line = self.line()
        if line is not None:
            line.sinkings[other(sea)] += 1
        self.moment(
            seq,
            at,
            "sunk",
            str(note.get("kind", "")),
            corridor=bomber.corridor if bomber else None,
            team=sea,
            flyers=(_flyer(self.state, bomber),) if bomber else (),
            ship=str(note.get("ship", "")),
            planes=planes,
        )

    def plane_lost(self, team: str, count: int, *, shot: bool) -> None:
        if shot:
            self.teams[team].shot_down += count
        else:
            self.teams[team].lost_with_ships += count
        line = self.line()
        if line is not None:
            line.planes_lost[team] += count


def score_sheet(state: State) -> Sheet:
    """Compute the score sheet of a game as it stands (over or not) from its folded state."""
    tally = _Tally(state)
    tally.walk()
    return Sheet(
        result=_result(state),
        teams=tally.teams,
        pilots=list(tally.pilots.values()),
        rounds=[tally.rounds[n] for n in sorted(tally.rounds)],
        timeline=tally.timeline,
        bombs=tally.bombs,
        voided=len(state.voided),
    )
