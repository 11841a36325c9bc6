"""Plane movements (the ledger's only writers), the ledger itself, and the end of the game."""

from __future__ import annotations

from typing import Any

from ..errors import Msg
from ..sea import Ship
from .corridors import corridor_board
from .state import (
    BOMBER,
    FIGHTER,
    IN_AIR,
    PLANE_KINDS,
    TEAMS,
    Order,
    Outcome,
    Round,
    State,
    Team,
    Trophy,
    other,
)

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
    _note(
        state,
        seq,
        type="shot_down",
        team=order.team,
        order=order.id,
        label=order.label(state.ruleset),
        kind=order.kind,
        by=holder,
        by_team=holder_team,
    )


def _after_corridor(state: State, rnd: Round, corridor: str, seq: int) -> None:
    """Send planes that have flown through on: bombers to the enemy base, fighters home."""
    board = corridor_board(rnd, corridor, state.ruleset)
    for order_id in board.through:
        order = rnd.orders[order_id]
        if order.status != "airborne":
            continue
        if order.kind == BOMBER:
            order.status = "bombing"
            _note(
                state,
                seq,
                type="through",
                team=order.team,
                order=order.id,
                label=order.label(state.ruleset),
                corridor=corridor,
                kind=BOMBER,
            )
        else:
            _note(
                state,
                seq,
                type="through",
                team=order.team,
                order=order.id,
                label=order.label(state.ruleset),
                corridor=corridor,
                kind=FIGHTER,
            )
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
    _note(
        state,
        seq,
        type="sunk",
        team=team.id,
        ship=ship.id,
        kind=ship.kind,
        squares=sorted(grid.square_name(s) for s in ship.squares),
        fighters_lost=lost[FIGHTER],
        bombers_lost=lost[BOMBER],
    )
    return True


def ledger(state: State, team_id: str) -> dict[str, dict[str, int]]:
    """Count a team's planes: on ships, in the air, lost with ships, held by the enemy as trophies."""
    team = state.teams[team_id]
    rows: dict[str, dict[str, int]] = {}
    for kind in PLANE_KINDS:
        on_ships = sum(stock[kind] for stock in team.stock.values())
        in_air = sum(
            1
            for rnd in state.rounds
            for o in rnd.orders.values()
            if o.team == team_id and o.kind == kind and o.status in IN_AIR
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
            _end(
                state,
                winner,
                reason,
                Msg(
                    "{detail}; {team} has {what} ({high} to {low})",
                    detail=detail,
                    team=state.teams[winner].name,
                    what=what,
                    high=max(a, b),
                    low=min(a, b),
                ),
                seq,
                at,
            )
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
