"""Who meets whom in a corridor, who waits at a base, and how a dogfight or a bombing is judged."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import MalformedAction, Msg
from ..events import Throw
from ..ruleset import AirRaidRuleset
from .state import BOMBER, FIGHTER, TEAMS, Order, Round, State, other

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


def corridor_board(rnd: Round, corridor: str, ruleset: AirRaidRuleset) -> CorridorBoard:
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
                meetings.append(
                    Meeting(
                        corridor,
                        a.id,
                        b.id,
                        "never",
                        Msg("{plane} was shot down by {killer}", plane=dead.label(ruleset), killer=killer),
                    )
                )
                continue
            if a_state == "unknown" or b_state[b.id] == "unknown":
                first = a if a_state == "unknown" else b
                meetings.append(
                    Meeting(
                        corridor,
                        a.id,
                        b.id,
                        "waiting",
                        Msg("{plane} must first finish its earlier dogfight", plane=first.label(ruleset)),
                    )
                )
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
                a_state, a_killer = "dead", b.label(ruleset)
            elif result.shot_down == b.id:
                b_state[b.id] = "dead"
                b_killer[b.id] = a.label(ruleset)
        if a_state == "alive":
            through.append(a.id)
    through.extend(b.id for b in b_planes if b_state[b.id] == "alive")
    return CorridorBoard(corridor, a_planes, b_planes, meetings, through)


def corridor_boards(state: State) -> list[CorridorBoard]:
    """Return the meeting board of every corridor in the current round."""
    rnd = state.round
    if rnd is None:
        return []
    return [corridor_board(rnd, c, state.ruleset) for c in state.ruleset.corridors]


def next_meeting(state: State, order: Order) -> Meeting | None:
    """Return the meeting a plane in the air flies to next (due, or waiting on another), if any."""
    rnd = state.rounds[order.round - 1]
    if rnd.phase != "airborne" or order.status != "airborne":
        return None
    for m in corridor_board(rnd, order.corridor, state.ruleset).meetings:
        if order.id in (m.a, m.b) and m.status not in ("done", "never"):
            return m
    return None


# --- Judging duels ---------------------------------------------------------------------------


def judge_dogfight(kind_a: str, kind_b: str, throws: list[Throw], choice: str | None) -> tuple[str | None, bool]:
    """Decide a dogfight between sides "A" and "B"; return (side shot down or None, passed)."""
    decisive = [t.winner for t in throws if t.winner is not None]
    if kind_a == kind_b:
        if kind_a == BOMBER and choice == "pass":
            if decisive:
                raise MalformedAction(Msg("bombers who agree to pass throw no decisive throw"))
            return None, True
        if choice is not None:
            raise MalformedAction(
                Msg("only two bombers may agree to pass")
                if choice == "pass"
                else Msg("a {kind_a}-{kind_b} dogfight has no choice to make", kind_a=kind_a, kind_b=kind_b)
            )
        if len(decisive) != 1:
            raise MalformedAction(
                Msg(
                    "a {kind_a}-{kind_b} dogfight takes one decisive throw, not {count}",
                    kind_a=kind_a,
                    kind_b=kind_b,
                    count=len(decisive),
                )
            )
        if throws[-1].winner is None:
            raise MalformedAction(Msg("the last throw was a tie: enter the throw again"))
        return ("B" if decisive[0] == "A" else "A"), False
    fighter = "A" if kind_a == FIGHTER else "B"
    bomber = "B" if fighter == "A" else "A"
    if not decisive:
        raise MalformedAction(Msg("enter the first throw: who won it?"))
    if decisive[0] == fighter:
        if len(decisive) > 1 or choice is not None:
            raise MalformedAction(Msg("the fighter won the first throw: the bomber is shot down, nothing follows"))
        return bomber, False
    if choice is None:
        raise MalformedAction(Msg("the fighter lost the first throw: its pilot chooses pass or continue"))
    if choice == "pass":
        if len(decisive) > 1:
            raise MalformedAction(Msg("the fighter passed: there is no second throw"))
        return None, True
    if choice != "continue":
        raise MalformedAction(Msg("the fighter's choice is pass or continue, not {choice!r}", choice=choice))
    if len(decisive) != 2:
        raise MalformedAction(Msg("the fighter chose to continue: enter the second throw"))
    return ("B" if decisive[1] == "A" else "A"), False


def judge_bombing(throws: list[Throw], choice: str | None) -> str:
    """Decide a fight of ship and bomber (sides "bomber", "ship"): hit, left or shot_down."""
    decisive = [t.winner for t in throws if t.winner is not None]
    if not decisive:
        raise MalformedAction(Msg("enter the first throw: did the bomber or the ship win it?"))
    if decisive[0] == "bomber":
        if len(decisive) > 1 or choice is not None:
            raise MalformedAction(Msg("the bomber won the first throw: the square is hit, nothing follows"))
        return "hit"
    if choice is None:
        raise MalformedAction(Msg("the ship won the first throw: the bomber's pilot chooses leave or continue"))
    if choice == "leave":
        if len(decisive) > 1:
            raise MalformedAction(Msg("the bomber left: there is no second throw"))
        return "left"
    if choice != "continue":
        raise MalformedAction(Msg("the bomber's choice is leave or continue, not {choice!r}", choice=choice))
    if len(decisive) != 2:
        raise MalformedAction(Msg("the bomber chose to continue: enter the second throw"))
    return "hit" if decisive[1] == "bomber" else "shot_down"


def due_dogfights(state: State) -> list[Meeting]:
    """Return the dogfights that can be fought now, in every corridor."""
    rnd = state.round
    if rnd is None or rnd.phase != "airborne" or state.phase != "playing":
        return []
    return [m for board in corridor_boards(state) for m in board.due()]


def still_open(state: State) -> dict[str, int]:
    """Count what keeps a round in the air: dogfights due, bombers at a base, reports in dispute."""
    rnd = state.round
    if rnd is None or rnd.phase != "airborne":
        return {"dogfights": 0, "bombings": 0, "disputes": 0}
    return {
        "dogfights": len(due_dogfights(state)),
        "bombings": sum(len(waiting_bombers(state, t)) for t in TEAMS),
        "disputes": len(rnd.conflicts),
    }


def waiting_bombers(state: State, defender: str) -> list[Order]:
    """Return the enemy bombers at a team's base, waiting to bomb or to finish their fight."""
    rnd = state.round
    if rnd is None or rnd.phase != "airborne":
        return []
    return [o for o in rnd.orders.values() if o.team == other(defender) and o.status == "bombing"]
