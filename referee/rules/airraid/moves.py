"""The air raid's moves: one handler per action, each checking fully before it changes anything."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from ..engine import Engine, Fields, Rules, effective_voids
from ..errors import (
    IllegalAction,
    MalformedAction,
    Msg,
    NotYourTurn,
    RulesError,
    join_msgs,
)
from ..events import (
    JSON,
    Event,
    Role,
    encode,
    log_state_from_dict,
    log_state_to_dict,
    parse_throws,
)
from ..grid import Square
from ..placement import UNDECIDED
from ..ruleset import AirRaidRuleset, airraid_ruleset_from_dict
from ..sea import Ship, check_fleet, fleet_fit_reason, ship_labels
from .conditions import (
    AFTER_END,
    add_order_problem,
    adjust_problem,
    airborne_problem,
    announce_problem,
    bomber_problem,
    confirm_problem,
    defender_problem,
    dogfight_problem,
    end_game_problem,
    end_round_problem,
    forfeit_problem,
    lock_sea_problem,
    named_order_problem,
    order_pair,
    order_problems,
    pause_problem,
    refuse,
    remove_order_problem,
    report_bombing_problem,
    reported_problem,
    resume_problem,
    role_problem,
    round_length_problem,
    set_defender_problem,
    set_players_problem,
    start_game_problem,
    start_round_problem,
    surrender_problem,
    unlock_sea_problem,
    void_problem,
)
from .corridors import (
    duel_key,
    judge_bombing,
    judge_dogfight,
    still_open,
)
from .planes import (
    _after_corridor,
    _check_fleets,
    _decide_by_tie_breaks,
    _end,
    _land,
    _note,
    _shoot_down,
    _sink_if_done,
)
from .state import (
    _COLOUR,
    BOMBER,
    CHECKPOINT_EVERY,
    FIGHTER,
    IN_AIR,
    MAX_NAME,
    MODE,
    PLANE_KINDS,
    TEAMS,
    Bombing,
    DuelResult,
    Order,
    Report,
    Round,
    State,
    Team,
    Timer,
    order_serial,
    other,
)

# --- Helpers for checking action data --------------------------------------------------------


def _team_field(f: Fields) -> str:
    team = f.data.get("team")
    if team not in TEAMS:
        raise MalformedAction(Msg("team must be A or B, not {team!r}", team=team))
    return str(team)


def _require(role: Role, *allowed: str, team: str | None = None) -> None:
    """Refuse unless the role is the referee or (when allowed) the given team's base."""
    refuse(role_problem(role, *allowed, team=team))


def _players(value: Any, key: str, most: int) -> list[str]:
    """Read a roster of at most `most` distinct names; the length is checked before any name."""
    if not isinstance(value, list) or not value:
        raise MalformedAction(Msg("{key} must be a list of player names", key=key))
    if len(value) > most:
        # Checked first: a list of 40,000 names must cost nothing, inside the write lock above all.
        raise MalformedAction(
            Msg("{key}: a team has at most {most} players, not {count}", key=key, most=most, count=len(value))
        )
    names: list[str] = []
    seen: set[str] = set()
    for name in value:
        if not isinstance(name, str) or not name.strip():
            raise MalformedAction(Msg("{key}: every player needs a name", key=key))
        if len(name) > 4 * MAX_NAME or len(name.strip()) > MAX_NAME:
            raise MalformedAction(
                Msg(
                    "{key}: the name {name!r}… is longer than {MAX_NAME} characters",
                    key=key,
                    name=name.strip()[:20],
                    MAX_NAME=MAX_NAME,
                )
            )
        folded = name.strip().casefold()
        if folded in seen:
            raise MalformedAction(Msg("{key}: two players are called {name!r}", key=key, name=name.strip()))
        seen.add(folded)
        names.append(name.strip())
    return names


def _named_order(state: State, rnd: Round, order_id: str, role: Role) -> Order:
    """Find an order an action names, refusing alike every order the role is not shown."""
    refuse(named_order_problem(state, rnd, role, order_id))
    return rnd.orders[order_id]


# --- Event handlers: each checks fully, then changes the state --------------------------------

Handler = Callable[[State, Event, Role], "Mapping[str, Any] | None"]
"""A handler checks an event fully, then changes the state.

What it returns are its bindings: values it chose when the event was first accepted (a new
order's id, a take-off position, the bomber an announcement by square was matched to). They
are written into the stored event, so that a replay, after a void above all, applies the
event to the same planes instead of choosing again.
"""
HANDLERS: dict[str, Handler] = {}

BINDINGS: dict[str, frozenset[str]] = {
    "add_order": frozenset({"id", "position"}),
    "announce_bombing": frozenset({"order"}),
}
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
    f = Fields(action, ("ruleset", "teams", "sea_size", "round_seconds", "practice"), kind="create_game")
    practice = action.get("practice", False)
    if type(practice) is not bool:
        raise MalformedAction(Msg("practice must be true or false"))
    raw = action.get("ruleset")
    if not isinstance(raw, Mapping):
        raise MalformedAction(Msg("ruleset must be the ruleset's data (a parsed ruleset file)"))
    try:
        ruleset = airraid_ruleset_from_dict(raw)
    except RulesError as exc:
        raise MalformedAction(Msg("the ruleset is broken: {message}", message=exc.message)) from exc
    except Exception as exc:  # a RulesetError lists every problem
        raise MalformedAction(Msg("the ruleset is broken: {exc}", exc=exc)) from exc
    teams_data = action.get("teams")
    if not isinstance(teams_data, list) or len(teams_data) != 2:
        raise MalformedAction(Msg("teams must list exactly two teams"))
    players = []
    for i, t in enumerate(teams_data):
        if not isinstance(t, Mapping):
            raise MalformedAction(Msg("teams[{i}] must be an object with name, colour and players", i=i))
        tf = Fields(t, ("name", "colour", "players"), kind=f"teams[{i}]")
        tf.text("name", limit=MAX_NAME)
        tf.text("colour", optional=True, limit=20)
        names = _players(t.get("players"), f"teams[{i}].players", ruleset.max_players)
        if not ruleset.min_players <= len(names) <= ruleset.max_players:
            raise IllegalAction(
                Msg(
                    "{t} has {len} players; this ruleset takes {min_players} to {max_players}",
                    t=t["name"],
                    len=len(names),
                    min_players=ruleset.min_players,
                    max_players=ruleset.max_players,
                )
            )
        players.append(names)
    if teams_data[0]["name"].strip().casefold() == teams_data[1]["name"].strip().casefold():
        raise MalformedAction(Msg("the two teams need different names"))
    row = ruleset.sea_size_for(max(len(p) for p in players))
    size = f.integer("sea_size", optional=True, low=2, high=26) or row.size
    if size != row.size:
        reason = fleet_fit_reason(size, ruleset.sea, row.fleet)
        if reason == UNDECIDED:
            raise IllegalAction(UNDECIDED)
        if reason:
            raise IllegalAction(Msg("a {size}×{size} sea cannot hold the fleet: {reason}", size=size, reason=reason))
    seconds = f.integer("round_seconds", optional=True, low=10, high=3600) or ruleset.round_seconds
    teams = {}
    for team_id, t, names in zip(TEAMS, teams_data, players, strict=True):
        colour = str(t.get("colour") or ("#0072B2" if team_id == "A" else "#E69F00"))
        if not _COLOUR.match(colour):
            raise MalformedAction(Msg("a team colour is written like #0072B2, not {colour!r}", colour=colour))
        teams[team_id] = Team(team_id, t["name"].strip(), colour, names, size, row.fleet)
    return State(dict(raw), teams, seconds, ruleset=ruleset, practice=practice)


@handler("set_players")
def _set_players(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("team", "players"), kind=event.kind)
    team = _team_field(f)
    refuse(set_players_problem(state, role, team))
    rs = state.ruleset
    names = _players(event.data.get("players"), "players", rs.max_players)
    if not rs.min_players <= len(names) <= rs.max_players:
        raise IllegalAction(
            Msg(
                "a team has {min_players} to {max_players} players, not {len}",
                min_players=rs.min_players,
                max_players=rs.max_players,
                len=len(names),
            )
        )
    rnd = state.round
    if rnd is not None and rnd.phase != "closed":
        flying = {o.pilot for o in rnd.orders.values() if o.team == team}
        flying |= {rnd.defenders[team]} if team in rnd.defenders else set()
        missing = sorted(flying - set(names))
        if missing:
            raise IllegalAction(Msg("{missing} has a part in this round: take them off it first", missing=missing[0]))
    state.teams[team].players = names
    _counted(state, role, team)


@handler("lock_sea")
def _lock_sea(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("team", "ships"), kind=event.kind)
    team_id = _team_field(f)
    refuse(lock_sea_problem(state, role, team_id))
    team = state.teams[team_id]
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
    _counted(state, role, team_id)
    _note(state, event.seq, type="sea_locked", team=team_id)


@handler("unlock_sea")
def _unlock_sea(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("team",), kind=event.kind)
    team_id = _team_field(f)
    refuse(unlock_sea_problem(state, role, team_id))
    team = state.teams[team_id]
    team.locked = False
    team.ships = []
    team.stock = {}
    team.start_planes = {FIGHTER: 0, BOMBER: 0}
    _counted(state, role, team_id)


@handler("start_game")
def _start_game(state: State, event: Event, role: Role) -> None:
    Fields(event.data, (), kind=event.kind)
    refuse(start_game_problem(state, role))
    state.phase = "playing"
    state.rounds.append(Round(1, Timer(state.round_seconds)))
    _note(state, event.seq, type="game_started")


def _counted(state: State, role: Role, team: str) -> None:
    """Count a change a team's base made in this stage (`conditions.changes_problem` bounds them)."""
    if role.kind == "team":
        key = state.stage_key(team)
        state.changes[key] = state.changes.get(key, 0) + 1


def _pilot_name(state: State, team: str, f: Fields, key: str = "pilot") -> str:
    name = f.text(key, limit=MAX_NAME)
    for player in state.teams[team].players:
        if player.casefold() == name.casefold():
            return player
    raise IllegalAction(Msg("{name} is not on {name2}'s roster", name=name, name2=state.teams[team].name))


@handler("set_defender")
def _set_defender(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("team", "pilot"), kind=event.kind)
    team = _team_field(f)
    refuse(set_defender_problem(state, role, team))
    name = _pilot_name(state, team, f)
    refuse(defender_problem(state, team, name))
    rnd = state.round
    assert rnd is not None
    rnd.defenders[team] = name
    _counted(state, role, team)


def _parse_order(
    state: State, event: Event, role: Role, allowed: tuple[str, ...]
) -> tuple[str, str, str, str, str, int | None, Square | None, Fields]:
    f = Fields(event.data, allowed, kind=event.kind)
    team = _team_field(f)
    refuse(add_order_problem(state, role, team))
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
            raise IllegalAction(
                Msg("order {order_id} cannot be made again in round {number}", order_id=order_id, number=rnd.number)
            )
    else:
        serial = rnd.serial.get(team, 0) + 1
        order_id = f"{rnd.number}{team}{serial}"
    rnd.serial[team] = max(rnd.serial.get(team, 0), serial)
    rnd.orders[order_id] = Order(order_id, rnd.number, team, pilot, kind, ship, corridor, position, target)
    _counted(state, role, team)
    _note(state, event.seq, type="order_added", team=team, order=order_id)
    return {"id": order_id, "position": position}


@handler("remove_order")
def _remove_order(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("order",), kind=event.kind)
    order_id = f.text("order", limit=20)
    refuse(remove_order_problem(state, role, order_id))
    rnd = state.round
    assert rnd is not None
    order = rnd.orders[order_id]
    del rnd.orders[order_id]
    _counted(state, role, order.team)
    _note(state, event.seq, type="order_removed", team=order.team, order=order_id)


@handler("start_round")
def _start_round(state: State, event: Event, role: Role) -> None:
    Fields(event.data, (), kind=event.kind)
    refuse(start_round_problem(state, role))
    rnd = state.round
    assert rnd is not None
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
    refuse(airborne_problem(state))
    rnd = state.round
    assert rnd is not None
    return rnd


def _dogfight_from(state: State, event: Event, role: Role) -> tuple[Round, Order, Order, DuelResult]:
    """Check a reported dogfight against the meeting order and judge it."""
    f = Fields(event.data, ("a", "b", "throws", "choice"), kind=event.kind)
    throws = parse_throws(event.data.get("throws"), ("A", "B"))
    choice = f.choice("choice", ("pass", "continue"), optional=True)
    rnd = _airborne(state)
    a_id, b_id = f.text("a", limit=20), f.text("b", limit=20)
    refuse(dogfight_problem(state, role, a_id, b_id))
    a, b = order_pair(rnd, a_id, b_id)
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
    _note(
        state,
        seq,
        type="dogfight",
        corridor=a.corridor,
        a=a.id,
        b=b.id,
        a_label=a.label(state.ruleset),
        b_label=b.label(state.ruleset),
        shot_down=result.shot_down,
        passed=result.passed,
    )
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
    refuse(reported_problem(state, role, a.id, b.id))
    key = duel_key(a.corridor, a.id, b.id)
    pending = rnd.reports.get(key, [])
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
    f = Fields(event.data, ("a", "b"), kind=event.kind)
    rnd = _airborne(state)
    a_id, b_id = f.text("a", limit=20), f.text("b", limit=20)
    refuse(confirm_problem(state, role, a_id, b_id))
    a, b = order_pair(rnd, a_id, b_id)
    pending = rnd.reports[duel_key(a.corridor, a.id, b.id)]
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
                raise IllegalAction(
                    Msg(
                        "no bomber is waiting at the base with target {square_name}",
                        square_name=state.grid(other(order.team)).square_name(square),
                    )
                )
    elif target_text is not None:
        defender = role.subject if role.kind == "team" else f.data.get("team")
        if defender not in TEAMS:
            raise MalformedAction(Msg("say which team's sea is bombed (team)"))
        square = state.grid(str(defender)).parse_square(target_text)
        waiting = [
            o
            for o in rnd.orders.values()
            if o.team == other(str(defender))
            and o.status == "bombing"
            and o.target == square
            and o.id not in rnd.bombings
        ]
        if not waiting:
            raise IllegalAction(
                Msg(
                    "no bomber is waiting at the base with target {square_name}",
                    square_name=state.grid(str(defender)).square_name(square),
                )
            )
        order = min(waiting, key=lambda o: (o.corridor, o.position))
        matched = True
    else:
        raise MalformedAction(Msg("give the bomber's order (scan its slip) or its target square"))
    refuse(bomber_problem(state, role, order))
    return order, matched


@handler("announce_bombing")
def _announce_bombing(state: State, event: Event, role: Role) -> Mapping[str, Any] | None:
    f = Fields(event.data, ("order", "target", "team"), kind=event.kind)
    rnd = _airborne(state)
    order, matched = _waiting_bomber(state, rnd, f, role)
    refuse(announce_problem(state, order))
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
    _note(
        state,
        event.seq,
        type="bombing",
        team=defender.id,
        order=order.id,
        label=order.label(state.ruleset),
        square=name,
        answer=answer,
    )
    if answer != "fight":
        rnd.bombings[order.id].result = answer
        if answer == "water":
            defender.shots.setdefault(name, "water")
        _land(state, order, event.seq)
        _check_fleets(state, event.seq, event.at, round_closed=False)
    return {"order": order.id} if matched else None


@handler("report_bombing")
def _report_bombing(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("order", "throws", "choice"), kind=event.kind)
    rnd = _airborne(state)
    order, _ = _waiting_bomber(state, rnd, f, role)
    refuse(report_bombing_problem(state, order))
    bombing = rnd.bombings[order.id]
    throws = parse_throws(event.data.get("throws"), ("bomber", "ship"))
    choice = f.choice("choice", ("leave", "continue"), optional=True)
    result = judge_bombing(throws, choice)
    bombing.throws, bombing.choice, bombing.result = throws, choice, result
    defender = state.teams[other(order.team)]
    grid = state.grid(defender.id)
    name = grid.square_name(bombing.target)
    _note(
        state,
        event.seq,
        type="bombing_result",
        team=defender.id,
        order=order.id,
        label=order.label(state.ruleset),
        square=name,
        result=result,
    )
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
    Fields(event.data, (), kind=event.kind)
    refuse(pause_problem(state, role))
    rnd = _airborne(state)
    rnd.timer.remaining = rnd.timer.left(event.at)
    rnd.timer.deadline = None
    _note(state, event.seq, type="timer", running=False, remaining=rnd.timer.remaining)


@handler("resume_timer")
def _resume(state: State, event: Event, role: Role) -> None:
    Fields(event.data, (), kind=event.kind)
    refuse(resume_problem(state, role))
    rnd = _airborne(state)
    rnd.timer.deadline = event.at + (rnd.timer.remaining or 0.0)
    rnd.timer.remaining = None
    _note(state, event.seq, type="timer", running=True, deadline=rnd.timer.deadline)


@handler("adjust_timer")
def _adjust(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("seconds",), kind=event.kind)
    refuse(adjust_problem(state, role))
    rnd = _airborne(state)
    delta = f.number("seconds", low=-3600, high=3600)
    left = rnd.timer.left(event.at)
    if left + delta < 0:
        raise IllegalAction(Msg("only {left:.0f} s are left: end the round instead", left=left))
    if rnd.timer.deadline is not None:
        rnd.timer.deadline += delta
    else:
        rnd.timer.remaining = left + delta
    _note(
        state,
        event.seq,
        type="timer",
        running=rnd.timer.running,
        deadline=rnd.timer.deadline,
        remaining=rnd.timer.remaining,
    )


@handler("set_round_length")
def _set_round_length(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("seconds",), kind=event.kind)
    seconds = f.integer("seconds", low=10, high=3600)
    assert seconds is not None
    refuse(round_length_problem(state, role))
    state.round_seconds = seconds
    rnd = state.round
    first = 1
    if rnd is not None:
        # The round being planned takes the new length; one in the air keeps its clock.
        first = rnd.number if rnd.phase == "planning" else rnd.number + 1
        if rnd.phase == "planning":
            rnd.timer.seconds = seconds
    _note(state, event.seq, type="round_length", seconds=seconds, round=first)


@handler("end_round")
def _end_round(state: State, event: Event, role: Role) -> None:
    Fields(event.data, (), kind=event.kind)
    refuse(end_round_problem(state, role, event.at))
    rnd = _airborne(state)
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
        _decide_by_tie_breaks(
            state, "round_limit", event.seq, Msg("the limit of {rounds} rounds is reached", rounds=rnd.number), event.at
        )
    if state.phase == "playing":
        state.rounds.append(Round(rnd.number + 1, Timer(state.round_seconds)))


@handler("surrender")
def _surrender(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("team",), kind=event.kind)
    team = _team_field(f)
    refuse(surrender_problem(state, role, team))
    _end(state, other(team), "surrender", Msg("{team} surrendered", team=state.teams[team].name), event.seq, event.at)


@handler("forfeit")
def _forfeit(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("team", "reason"), kind=event.kind)
    team = _team_field(f)
    reason = f.text("reason", limit=300)
    refuse(forfeit_problem(state, role))
    _end(
        state,
        other(team),
        "forfeit",
        Msg("{team} forfeits: {reason}", team=state.teams[team].name, reason=reason),
        event.seq,
        event.at,
    )


@handler("end_game")
def _end_game(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("reason",), kind=event.kind)
    reason = f.text("reason", optional=True, limit=300) or Msg("the referee ended the game")
    refuse(end_game_problem(state, role))
    _decide_by_tie_breaks(state, "referee_ended", event.seq, reason, event.at)


@handler("void")
def _void(state: State, event: Event, role: Role) -> None:
    f = Fields(event.data, ("seq", "reason"), kind=event.kind)
    _require(role, "referee")
    target = f.integer("seq", low=1, high=10**9)
    f.text("reason", limit=300)  # kept in the event itself
    assert target is not None
    refuse(void_problem(state, target))
    log = state.log + (event,)
    fresh = ENGINE.recompute(log, ENGINE.restart_point(state, log))
    fresh.voided = effective_voids(fresh.log)
    fresh.notes_rebuilt = event.seq
    state.__dict__.update(fresh.__dict__)


# --- Folding ---------------------------------------------------------------------------------


def _clone(state: State) -> State:
    """Copy a state for a handler to change: what a handler may change is copied, the rest shared.

    The log is an immutable tuple, the ruleset frozen, closed rounds and earlier notes are never
    changed again, and squares, ships, throws, duels, reports, trophies and the outcome are made
    whole and never changed once made: sharing them, an action costs the size of the live round,
    not of the whole game. Written out rather than a deep copy: it is most of an action's time.
    """
    work = _shallow(state)
    work.teams = {k: _team_copy(t) for k, t in state.teams.items()}
    work.rounds = [rnd if rnd.phase == "closed" else _round_copy(rnd) for rnd in state.rounds]
    work.trophies = list(state.trophies)
    work.voided = dict(state.voided)
    work.skipped = dict(state.skipped)
    work.notes = dict(state.notes)
    work.changes = dict(state.changes)
    return work


def _clock_clone(state: State) -> State:
    """Copy a state for a handler of the round's clock: it changes the current round's timer and the notes only.

    Everything else is the state before's own objects, so the views find it unchanged at a
    glance (by identity) instead of comparing it, and a pause costs no copy of the teams.
    """
    if not state.rounds:
        return _clone(state)  # (the handler refuses: no round is in the air)
    work = _shallow(state)
    rnd = _shallow(state.rounds[-1])
    rnd.timer = _shallow(rnd.timer)
    work.rounds = [*state.rounds[:-1], rnd]
    work.notes = dict(state.notes)
    return work


# The handlers that change nothing but the current round's timer and the notes.
CLOCK_KINDS = ("pause_timer", "resume_timer", "adjust_timer", "set_round_length")

T = TypeVar("T")


def _shallow(value: T) -> T:
    """Return a new instance of a dataclass holding the same field values (copy.copy, without its detours)."""
    work: T = object.__new__(type(value))
    work.__dict__.update(value.__dict__)
    return work


def _team_copy(team: Team) -> Team:
    work = _shallow(team)
    work.players = list(team.players)
    work.ships = list(team.ships)
    work.hits = set(team.hits)
    work.shots = dict(team.shots)
    work.stock = {ship: dict(planes) for ship, planes in team.stock.items()}
    work.lost = dict(team.lost)
    work.start_planes = dict(team.start_planes)
    work.sunk = list(team.sunk)
    return work


def _round_copy(rnd: Round) -> Round:
    work = _shallow(rnd)
    work.timer = _shallow(rnd.timer)
    work.defenders = dict(rnd.defenders)
    work.orders = {k: _shallow(o) for k, o in rnd.orders.items()}
    work.serial = dict(rnd.serial)
    work.duels = dict(rnd.duels)
    work.reports = {k: list(v) for k, v in rnd.reports.items()}
    work.conflicts = {k: list(v) for k, v in rnd.conflicts.items()}
    work.bombings = {k: _shallow(b) for k, b in rnd.bombings.items()}
    return work


def _setup(event: Event) -> State:
    if Role.from_str(event.by).kind != "referee":
        raise NotYourTurn(Msg("only the referee creates a game"))
    state = _setup_game(event.data)
    _note(state, 1, type="game_created")
    return state


def _voided(state: State, event: Event, reason: str) -> None:
    _reopen_dogfight(state, event)
    _note(state, event.seq, type="voided", reason=reason)


def _reopen_dogfight(state: State, event: Event) -> None:
    """A voided event that decided a dogfight takes the reports it settled with it.

    The referee voids a result because it was wrong: the pilot's report it confirmed (or agreed
    with) must not come back as a one-tap Confirm of that same result. The dogfight is open again
    for a fresh report by either pilot, or the referee's own. A voided report that decided
    nothing (one still waiting, or one that made a conflict) leaves the other pilot's report.
    """
    if event.kind not in ("confirm_dogfight", "report_dogfight") or not state.rounds:
        return
    rnd = state.rounds[-1]
    a_id, b_id = event.data.get("a"), event.data.get("b")
    if rnd.phase != "airborne" or not isinstance(a_id, str) or not isinstance(b_id, str):
        return
    if a_id not in rnd.orders or b_id not in rnd.orders:
        return
    a, b = order_pair(rnd, a_id, b_id)
    key = duel_key(a.corridor, a.id, b.id)
    pending = rnd.reports.get(key)
    if not pending or key in rnd.duels:
        return
    if event.kind == "report_dogfight" and Role.from_str(event.by).kind != "referee":
        try:
            result = _dogfight_from(state, event, Role.from_str(event.by))[3]
        except RulesError:
            return
        if not any(_same_result(r.result, result) for r in pending):
            return
    # New dicts, not changed in place: a checkpoint may share the round's.
    rnd.reports = {k: v for k, v in rnd.reports.items() if k != key}
    rnd.conflicts = {k: v for k, v in rnd.conflicts.items() if k != key}


def _void_noted(state: State, event: Event) -> None:
    _note(state, event.seq, type="void", target=event.data["seq"], reason=event.data.get("reason", ""))


ENGINE = Engine(
    Rules(
        mode=MODE,
        setup=_setup,
        handlers=HANDLERS,
        clone=_clone,
        clones=dict.fromkeys(CLOCK_KINDS, _clock_clone),
        bindings=BINDINGS,
        written=BOUND_FIELDS,
        after_end=AFTER_END,
        on_voided=_voided,
        on_void=_void_noted,
        on_unapplied=_reserve,
        checkpoint_every=CHECKPOINT_EVERY,
    )
)


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
    if state.phase != "playing" or rnd is None or rnd.phase != "airborne" or rnd.timer.deadline is None:
        return None  # (a paused clock has no deadline: the corridors need not be looked at)
    if state.ruleset.at_zero == "wait" and any(still_open(state).values()):
        # The round waits for its open duels: the deadline comes back (already past) when the last
        # one is settled, so the clock ends the round then, unless the referee has ended it.
        return None
    return rnd.timer.deadline


def snapshot_to_dict(state: State, after: int = 0) -> JSON:
    """Return the state without its log, which the store keeps as events, its messages translatable.

    `after`: only the notes of later events; the earlier ones are in the snapshot taken at that
    seq (`snapshot_base`), so a snapshot costs the events since the last one, not the whole game.
    """
    data = log_state_to_dict(state, log=False, messages=True, leave_out=frozenset({SNAPSHOT_GROWS}))
    data[SNAPSHOT_GROWS] = {str(seq): encode(notes, messages=True) for seq, notes in state.notes.items() if seq > after}
    return data


# The part of the state that grows with the log, by event seq: a snapshot may hold only its newest entries.
SNAPSHOT_GROWS = "notes"

SLOW_KINDS = frozenset({"void"})
"""The kinds of action whose cost grows with the game (a void re-folds what followed its target):
the server computes them where they hold no other client up."""


def snapshot_base(state: State, last: int) -> int:
    """Return the seq of the snapshot a new one may take its earlier notes from: `last`, or 0 for none.

    A note is never changed after its event, except by a void, which makes every note again
    (`notes_rebuilt`): the snapshot taken before that holds notes that are no longer the game's.
    """
    return last if state.notes_rebuilt <= last else 0


def state_from_dict(data: Mapping[str, Any]) -> State:
    """Rebuild a state from `state_to_dict` output; it is its own first checkpoint (a void after it starts there)."""
    state = log_state_from_dict(State, data)
    state.checkpoints = ((dict(state.voided), _clone(state)),)
    return state
