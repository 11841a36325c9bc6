"""When each move may be made: one predicate per condition, for the handlers and `legal_actions` alike.

A predicate is a pure function of the state, the role and the ids a move names; it returns the
refusal (the error a handler raises) or None when the condition holds. The handlers in `moves`
raise what their predicates return, in the order they check; `legal_actions` in `views` lists a
move, or an option of its form, exactly when the same predicates return None. So each condition
is written once, and what a screen is offered is what `apply` takes (python-chess routes every
move through one legal-move generator for the same reason). Checks of the free fields of a
form, which no screen is offered a list of (a dogfight's throws, a roster's names, the seconds
added to the clock, a fleet), stay in their handler.
"""

from __future__ import annotations

from ..errors import GameOver, IllegalAction, Msg, NotYourTurn, RulesError
from ..events import Role
from ..grid import Square
from ..sea import ship_labels
from .corridors import corridor_board, duel_key, next_meeting, still_open, waiting_bombers
from .state import BOMBER, CHANGES_PER_STAGE, FIGHTER, TEAMS, Order, Round, State, other

AFTER_END: frozenset[str] = frozenset({"void"})
"""The kinds the engine still takes once the game is over (a void may undo the end)."""


def refuse(refusal: RulesError | None) -> None:
    """Raise a predicate's refusal, if it gave one."""
    if refusal is not None:
        raise refusal


# --- Who, and in which phase -----------------------------------------------------------------


def role_problem(role: Role, *allowed: str, team: str | None = None) -> RulesError | None:
    """Refuse unless the role is the referee or (when allowed) the given team's base, or the clock."""
    if role.kind == "referee":
        return None
    if "team" in allowed and role.kind == "team" and (team is None or role.subject == team):
        return None
    if "clock" in allowed and role.kind == "clock":
        return None
    if allowed == ("referee",):
        return NotYourTurn(Msg("only the referee may do this"))
    return NotYourTurn(Msg("only the referee or that team may do this"))


def changes_problem(state: State, role: Role, team: str) -> RulesError | None:
    """Refuse a team's base one more change once it made CHANGES_PER_STAGE in this stage (the referee may still)."""
    if role.kind != "team" or state.changes.get(state.stage_key(team), 0) < CHANGES_PER_STAGE:
        return None
    stage = "setup" if state.round is None else "round"
    message = (
        Msg(
            "{name} has made {count} changes before the game: no more can be made from a phone. "
            "Ask the referee to change what must still change.",
            name=state.teams[team].name,
            count=CHANGES_PER_STAGE,
        )
        if stage == "setup"
        else Msg(
            "{name} has made {count} changes this round: no more can be made from a phone until the next round. "
            "Ask the referee to change what must still change.",
            name=state.teams[team].name,
            count=CHANGES_PER_STAGE,
        )
    )
    return IllegalAction(message)


def over_problem(state: State) -> RulesError | None:
    """Refuse once the game is over."""
    return GameOver(Msg("the game is over")) if state.phase == "over" else None


def setup_problem(state: State) -> RulesError | None:
    """Refuse a change of the seas once the game has started."""
    return IllegalAction(Msg("the game has started: seas no longer change")) if state.phase != "setup" else None


def planning_problem(state: State) -> RulesError | None:
    """Refuse unless the current round is being planned."""
    rnd = state.round
    if rnd is None or state.phase != "playing":
        return IllegalAction(Msg("the game has not started"))
    if rnd.phase != "planning":
        return IllegalAction(Msg("round {number} has started: orders are locked", number=rnd.number))
    return None


def airborne_problem(state: State) -> RulesError | None:
    """Refuse unless the current round is in the air."""
    rnd = state.round
    if state.phase == "over":
        return GameOver(Msg("the game is over"))
    if rnd is None or state.phase != "playing" or rnd.phase != "airborne":
        return IllegalAction(Msg("no round is in the air"))
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


def named_order_problem(state: State, rnd: Round, role: Role, *order_ids: str) -> RulesError | None:
    """Refuse the orders an action names, in turn, unless of the round; alike for every order the role is not shown."""
    shown = orders_shown_to(state, role)
    for order_id in order_ids:
        if shown is not None and order_id not in shown:
            # One answer whether the order exists or not: no label, corridor, kind or count.
            return IllegalAction(Msg("you can act only on your own planes and on the enemy planes your screen shows"))
        if order_id not in rnd.orders:
            return IllegalAction(Msg("no order {order_id} in round {number}", order_id=order_id, number=rnd.number))
    return None


# --- Before the game -------------------------------------------------------------------------


def lock_sea_problem(state: State, role: Role, team: str) -> RulesError | None:
    """Refuse locking a team's sea unless it is the setup and the sea is not locked yet."""
    refusal = (
        role_problem(role, "referee", "team", team=team) or setup_problem(state) or changes_problem(state, role, team)
    )
    if refusal is None and state.teams[team].locked:
        refusal = IllegalAction(Msg("{name}'s sea is already locked", name=state.teams[team].name))
    return refusal


def unlock_sea_problem(state: State, role: Role, team: str) -> RulesError | None:
    """Refuse unlocking a team's sea unless it is the setup and the sea is locked."""
    refusal = (
        role_problem(role, "referee", "team", team=team) or setup_problem(state) or changes_problem(state, role, team)
    )
    if refusal is None and not state.teams[team].locked:
        refusal = IllegalAction(Msg("{name}'s sea is not locked", name=state.teams[team].name))
    return refusal


def start_game_problem(state: State, role: Role) -> RulesError | None:
    """Refuse the start unless it is the setup and both seas are locked."""
    refusal = role_problem(role, "referee")
    if refusal is None and state.phase != "setup":
        refusal = IllegalAction(Msg("the game has already started"))
    unlocked = [state.teams[t].name for t in TEAMS if not state.teams[t].locked]
    if refusal is None and unlocked:
        refusal = IllegalAction(Msg("both seas must be locked first; waiting for {join}", join=" and ".join(unlocked)))
    return refusal


def set_players_problem(state: State, role: Role, team: str) -> RulesError | None:
    """Refuse a new roster for a team from anyone but the referee and that team (at any time)."""
    return role_problem(role, "referee", "team", team=team) or changes_problem(state, role, team)


# --- Planning --------------------------------------------------------------------------------


def set_defender_problem(state: State, role: Role, team: str) -> RulesError | None:
    """Refuse naming a team's defender but in planning (which pilot: `defender_problem`)."""
    return (
        role_problem(role, "referee", "team", team=team)
        or planning_problem(state)
        or changes_problem(state, role, team)
    )


def defender_problem(state: State, team: str, pilot: str) -> RulesError | None:
    """Refuse a pilot (of the team's roster) as its defender if the pilot flies this round."""
    rnd = state.round
    assert rnd is not None
    if any(o.team == team and o.pilot == pilot for o in rnd.orders.values()):
        return IllegalAction(Msg("{name} already flies this round; the defender stays at base", name=pilot))
    return None


def add_order_problem(state: State, role: Role, team: str) -> RulesError | None:
    """Refuse writing a team's order but in planning (what it may use: `order_problems`)."""
    return (
        role_problem(role, "referee", "team", team=team)
        or planning_problem(state)
        or changes_problem(state, role, team)
    )


def _team_orders(rnd: Round, team: str) -> list[Order]:
    return [o for o in rnd.orders.values() if o.team == team]


def pilot_problems(state: State, team: str, pilot: str) -> list[str]:
    """Return why a pilot of the roster may not fly an order now (empty when they may)."""
    rnd = state.round
    assert rnd is not None
    problems: list[str] = []
    if rnd.defenders.get(team) == pilot:
        problems.append(Msg("{pilot} is this round's defender and stays at base", pilot=pilot))
    if any(o.pilot == pilot for o in _team_orders(rnd, team)):
        problems.append(Msg("{pilot} already flies this round", pilot=pilot))
    return problems


def planes_left(state: State, team: str, ship_id: str, kind: str) -> int:
    """Return the planes of a kind a team's ship has on deck for new orders: its stock less this round's orders."""
    rnd = state.round
    assert rnd is not None
    used = sum(1 for o in _team_orders(rnd, team) if o.ship == ship_id and o.kind == kind)
    return state.teams[team].stock[ship_id][kind] - used


def ship_problems(state: State, team: str, ship_id: str, kind: str) -> list[str]:
    """Return why a plane of a kind may not take off from a ship now (empty when it may)."""
    t = state.teams[team]
    ship = t.ship(ship_id)
    if ship is None:
        return [Msg("{name} has no ship {ship_id}", name=t.name, ship_id=ship_id)]
    labels = ship_labels(state.ruleset.sea, t.ships)
    if ship_id in t.sunk:
        return [Msg("the {ship_labels} has sunk", ship_labels=labels[ship_id])]
    if planes_left(state, team, ship_id, kind) <= 0:
        return [Msg("the {ship_labels} has no {kind} left", ship_labels=labels[ship_id], kind=kind)]
    return []


def corridor_problems(state: State, team: str, corridor: str, position: int | None) -> list[str]:
    """Return why a team's plane may not take the corridor (at the position, if given) now (empty when it may)."""
    rnd = state.round
    assert rnd is not None
    rs = state.ruleset
    if corridor not in rs.corridors:
        return [Msg("there is no {corridor} corridor", corridor=corridor)]
    problems: list[str] = []
    in_corridor = [o for o in _team_orders(rnd, team) if o.corridor == corridor]
    if len(in_corridor) >= rs.corridor_limit:
        problems.append(
            Msg(
                "the {corridor} corridor already has {corridor_limit} planes, its limit",
                corridor=corridor,
                corridor_limit=rs.corridor_limit,
            )
        )
    if position is not None:
        if not 1 <= position <= rs.corridor_limit:
            problems.append(
                Msg(
                    "take-off position is 1 to {corridor_limit}, not {position}",
                    corridor_limit=rs.corridor_limit,
                    position=position,
                )
            )
        elif any(o.position == position for o in in_corridor):
            problems.append(
                Msg("position {position} in the {corridor} corridor is taken", position=position, corridor=corridor)
            )
    return problems


def target_problems(kind: str, target: Square | None) -> list[str]:
    """Return why a plane of a kind may not have (or lack) a target square."""
    if kind == FIGHTER and target is not None:
        return ["a fighter has no target square"]
    if kind == BOMBER and target is None:
        return ["a bomber needs a target square"]
    return []


def order_problems(
    state: State,
    team: str,
    pilot: str,
    kind: str,
    ship_id: str,
    corridor: str,
    position: int | None,
    target: Square | None,
) -> list[str]:
    """Return every reason an order may not be written now (empty when it may)."""
    return [
        *pilot_problems(state, team, pilot),
        *ship_problems(state, team, ship_id, kind),
        *corridor_problems(state, team, corridor, position),
        *target_problems(kind, target),
    ]


def remove_order_problem(state: State, role: Role, order_id: str) -> RulesError | None:
    """Refuse taking an order back but in planning, by the referee or the order's team."""
    refusal = role_problem(role, "referee", "team") or planning_problem(state)
    if refusal is not None:
        return refusal
    rnd = state.round
    assert rnd is not None
    refusal = named_order_problem(state, rnd, role, order_id)
    if refusal is not None:
        return refusal
    team = rnd.orders[order_id].team
    return role_problem(role, "referee", "team", team=team) or changes_problem(state, role, team)


def start_round_problem(state: State, role: Role) -> RulesError | None:
    """Refuse the take-off unless in planning and every team has its defender."""
    refusal = role_problem(role, "referee") or planning_problem(state)
    if refusal is not None:
        return refusal
    rnd = state.round
    assert rnd is not None
    missing = [state.teams[t].name for t in TEAMS if t not in rnd.defenders]
    if missing:
        return IllegalAction(
            Msg("every team needs this round's defender; missing for {join}", join=" and ".join(missing))
        )
    return None


# --- In the air ------------------------------------------------------------------------------


def order_pair(rnd: Round, a_id: str, b_id: str) -> tuple[Order, Order]:
    """Return two named orders of the round, team A's first."""
    first, second = rnd.orders[a_id], rnd.orders[b_id]
    return (first, second) if first.team == "A" else (second, first)


def dogfight_problem(state: State, role: Role, a_id: str, b_id: str) -> RulesError | None:
    """Refuse a dogfight's result unless the two planes are due to meet now, from their pilots or the referee."""
    refusal = airborne_problem(state)
    if refusal is not None:
        return refusal
    # Who may report is settled by the ids as sent, before either order is looked up.
    if role.kind != "referee" and not (role.kind == "pilot" and role.subject in (a_id, b_id)):
        return NotYourTurn(Msg("only the two pilots of a dogfight, or the referee, report it"))
    rnd = state.round
    assert rnd is not None
    refusal = named_order_problem(state, rnd, role, a_id, b_id)
    if refusal is not None:
        return refusal
    if rnd.orders[a_id].team == rnd.orders[b_id].team:
        return IllegalAction(
            Msg(
                "{label} and {label2} fly for the same team",
                label=rnd.orders[a_id].label(state.ruleset),
                label2=rnd.orders[b_id].label(state.ruleset),
            )
        )
    a, b = order_pair(rnd, a_id, b_id)
    if a.corridor != b.corridor:
        return IllegalAction(
            Msg(
                "{label} flies the {corridor} corridor and {label2} the {corridor2}: they never meet",
                label=a.label(state.ruleset),
                corridor=a.corridor,
                label2=b.label(state.ruleset),
                corridor2=b.corridor,
            )
        )
    meeting = corridor_board(rnd, a.corridor, state.ruleset).meeting(a.id, b.id)
    if meeting is None:
        return IllegalAction(
            Msg("{label} and {label2} are not in the air", label=a.label(state.ruleset), label2=b.label(state.ruleset))
        )
    if meeting.status == "done":
        return IllegalAction(
            Msg(
                "the dogfight of {label} and {label2} in the {corridor} corridor is already decided",
                label=a.label(state.ruleset),
                label2=b.label(state.ruleset),
                corridor=a.corridor,
            )
        )
    if meeting.status == "never":
        return IllegalAction(
            Msg(
                "{label} never meets {label2}: {reason}",
                label=a.label(state.ruleset),
                label2=b.label(state.ruleset),
                reason=meeting.reason,
            )
        )
    if meeting.status == "waiting":
        return IllegalAction(
            Msg(
                "{label} cannot meet {label2} yet: {reason}",
                label=a.label(state.ruleset),
                label2=b.label(state.ruleset),
                reason=meeting.reason,
            )
        )
    return None


def reported_problem(state: State, role: Role, a_id: str, b_id: str) -> RulesError | None:
    """Refuse a pilot's second report of a dogfight (of two orders that meet; the referee may always enter one)."""
    rnd = state.round
    assert rnd is not None
    a, b = order_pair(rnd, a_id, b_id)
    pending = rnd.reports.get(duel_key(a.corridor, a.id, b.id), [])
    if role.kind != "referee" and any(r.by == role.to_str() for r in pending):
        return IllegalAction(Msg("you have already reported this dogfight; the other pilot or the referee confirms it"))
    return None


def confirm_problem(state: State, role: Role, a_id: str, b_id: str) -> RulesError | None:
    """Refuse a confirmation unless one report waits, uncontested, from someone else than the role."""
    refusal = airborne_problem(state)
    if refusal is not None:
        return refusal
    if role.kind != "referee" and not (role.kind == "pilot" and role.subject in (a_id, b_id)):
        return NotYourTurn(Msg("only the other pilot or the referee confirms a dogfight"))
    rnd = state.round
    assert rnd is not None
    refusal = named_order_problem(state, rnd, role, a_id, b_id)
    if refusal is not None:
        return refusal
    if rnd.orders[a_id].team == rnd.orders[b_id].team:
        return IllegalAction(Msg("no such dogfight in this round"))
    a, b = order_pair(rnd, a_id, b_id)
    key = duel_key(a.corridor, a.id, b.id)
    pending = rnd.reports.get(key)
    if not pending:
        return IllegalAction(
            Msg(
                "nobody has reported the dogfight of {label} and {label2}",
                label=a.label(state.ruleset),
                label2=b.label(state.ruleset),
            )
        )
    if key in rnd.conflicts:
        return IllegalAction(Msg("the pilots' reports contradict each other: the referee enters the result"))
    if role.to_str() == pending[0].by:
        return IllegalAction(Msg("the other pilot or the referee confirms your report, not you"))
    return None


def bomber_problem(state: State, role: Role, order: Order) -> RulesError | None:
    """Refuse a bombing's action unless the order is a bomber waiting at the base of the role's team."""
    if order.kind != BOMBER:
        return IllegalAction(Msg("{label} is a fighter: fighters do not bomb", label=order.label(state.ruleset)))
    if order.status == "airborne":
        return IllegalAction(
            Msg(
                "{label} has not flown through the {corridor} corridor yet",
                label=order.label(state.ruleset),
                corridor=order.corridor,
            )
        )
    if order.status != "bombing":
        return IllegalAction(
            Msg(
                "{label} is {replace}: it cannot bomb",
                label=order.label(state.ruleset),
                replace=order.status.replace("_", " "),
            )
        )
    return role_problem(role, "referee", "team", team=other(order.team))


def bombing_problem(state: State, role: Role, order_id: str) -> RulesError | None:
    """Refuse a bombing's action naming its bomber unless the bomber waits at the base of the role's team."""
    refusal = airborne_problem(state) or role_problem(role, "referee", "team")
    if refusal is not None:
        return refusal
    rnd = state.round
    assert rnd is not None
    return named_order_problem(state, rnd, role, order_id) or bomber_problem(state, role, rnd.orders[order_id])


def announce_problem(state: State, order: Order) -> RulesError | None:
    """Refuse announcing a waiting bomber's bombing twice."""
    rnd = state.rounds[order.round - 1]
    if order.id in rnd.bombings:
        return IllegalAction(
            Msg(
                "{label}'s bombing is already announced: {answer}",
                label=order.label(state.ruleset),
                answer=rnd.bombings[order.id].answer,
            )
        )
    return None


def report_bombing_problem(state: State, order: Order) -> RulesError | None:
    """Refuse a bombing's fight unless it was announced, the sea answered "fight", and it is not over."""
    bombing = state.rounds[order.round - 1].bombings.get(order.id)
    if bombing is None:
        return IllegalAction(
            Msg(
                "announce {label}'s bombing first: the sea answers water, fight or already hit",
                label=order.label(state.ruleset),
            )
        )
    if bombing.answer != "fight" or bombing.result is not None:
        return IllegalAction(
            Msg(
                "{label}'s bombing is over: {value}",
                label=order.label(state.ruleset),
                value=bombing.result or bombing.answer,
            )
        )
    return None


def round_length_problem(state: State, role: Role) -> RulesError | None:
    """Refuse a new length for the rounds to come but from the referee, or once the game is over.

    The rounds not yet in the air take it (the one being planned too); a round in the air keeps
    its clock, which `adjust_timer` changes.
    """
    return role_problem(role, "referee") or over_problem(state)


def pause_problem(state: State, role: Role) -> RulesError | None:
    """Refuse pausing the round's clock unless it runs."""
    refusal = role_problem(role, "referee") or airborne_problem(state)
    if refusal is None and state.round is not None and not state.round.timer.running:
        refusal = IllegalAction(Msg("the clock is already paused"))
    return refusal


def resume_problem(state: State, role: Role) -> RulesError | None:
    """Refuse resuming the round's clock unless it is paused."""
    refusal = role_problem(role, "referee") or airborne_problem(state)
    if refusal is None and state.round is not None and state.round.timer.running:
        refusal = IllegalAction(Msg("the clock is already running"))
    return refusal


def adjust_problem(state: State, role: Role) -> RulesError | None:
    """Refuse changing the round's time but in the air (by how much: the handler's check)."""
    return role_problem(role, "referee") or airborne_problem(state)


def end_round_problem(state: State, role: Role, at: float | None) -> RulesError | None:
    """Refuse ending the round but in the air; the clock ends it only once its time is up at `at`.

    `legal_actions` knows no time (`at` None): to it the clock's time is never up.
    """
    refusal = role_problem(role, "referee", "clock") or airborne_problem(state)
    if refusal is not None or role.kind != "clock":
        return refusal
    deadline = state.round.timer.deadline if state.round is not None else None
    if at is None or deadline is None or at < deadline:
        return IllegalAction(Msg("the round's time is not up"))
    if state.ruleset.at_zero == "wait" and any(still_open(state).values()):
        return IllegalAction(Msg("time is up, but duels that were due are still open: the referee ends the round"))
    return None


# --- Ending and undoing ----------------------------------------------------------------------


def surrender_problem(state: State, role: Role, team: str) -> RulesError | None:
    """Refuse a team's surrender from anyone but the referee and that team, or once the game is over."""
    return role_problem(role, "referee", "team", team=team) or over_problem(state)


def forfeit_problem(state: State, role: Role) -> RulesError | None:
    """Refuse a forfeit from anyone but the referee, or once the game is over."""
    return role_problem(role, "referee") or over_problem(state)


def end_game_problem(state: State, role: Role) -> RulesError | None:
    """Refuse ending the game before it started or once it is over."""
    refusal = role_problem(role, "referee") or over_problem(state)
    if refusal is None and state.phase == "setup":
        refusal = IllegalAction(Msg("the game has not started: there is nothing to score"))
    return refusal


def void_problem(state: State, target: int) -> RulesError | None:
    """Refuse voiding an event unless it is in the log, not the game's creation, and not void already."""
    if target == 1:
        return IllegalAction(Msg("the game's creation cannot be voided; start a new game instead"))
    if target > state.version or target > len(state.log):
        return IllegalAction(Msg("there is no event {target} to void", target=target))
    # state.voided is the log's effective voids, kept by every void: not a walk of the whole log.
    if target in state.voided:
        return IllegalAction(Msg("event {target} is already void", target=target))
    return None
