"""What each role may do now (`legal_actions`) and see (`view_for`): secrets are stripped here only."""

from __future__ import annotations

from ..errors import IllegalAction, MalformedAction, Msg, NotYourTurn
from ..events import JSON, REFEREE, Event, Role, encode
from ..sea import Draft, ship_labels
from .conditions import (
    AFTER_END,
    add_order_problem,
    adjust_problem,
    airborne_problem,
    announce_problem,
    bombing_problem,
    confirm_problem,
    corridor_problems,
    defender_problem,
    dogfight_problem,
    end_game_problem,
    end_round_problem,
    forfeit_problem,
    lock_sea_problem,
    pause_problem,
    pilot_problems,
    planes_left,
    planning_problem,
    remove_order_problem,
    report_bombing_problem,
    reported_problem,
    resume_problem,
    role_problem,
    set_defender_problem,
    set_players_problem,
    setup_problem,
    start_game_problem,
    start_round_problem,
    surrender_problem,
    unlock_sea_problem,
    void_problem,
)
from .corridors import (
    corridor_boards,
    due_dogfights,
    duel_key,
    next_meeting,
    still_open,
    waiting_bombers,
)
from .planes import ledger
from .state import (
    BOMBER,
    FIGHTER,
    MODE,
    PLANE_KINDS,
    TEAMS,
    DuelResult,
    Order,
    Round,
    State,
    other,
)

# --- Legal actions and views -----------------------------------------------------------------


def order_options(state: State, team: str) -> JSON:
    """Return what an order may use now: free pilots, ships with stock, corridor slots.

    Each option is what `order_problems`, the add_order handler's check, takes on its own.
    """
    rnd = state.round
    t = state.teams[team]
    if rnd is None or rnd.phase != "planning":
        return {}
    labels = ship_labels(state.ruleset.sea, t.ships)
    ships = [
        {
            "ship": ship.id,
            "name": labels[ship.id],
            "kind": ship.kind,
            **{k: planes_left(state, team, ship.id, k) for k in PLANE_KINDS},
        }
        for ship in t.afloat()
    ]
    corridors = []
    for c in state.ruleset.corridors:
        free = [p for p in range(1, state.ruleset.corridor_limit + 1) if not corridor_problems(state, team, c, p)]
        corridors.append({"corridor": c, "free": len(free), "positions": free})
    return {
        "pilots": [p for p in t.players if not pilot_problems(state, team, p)],
        "ships": ships,
        "corridors": corridors,
        "target_size": state.teams[other(team)].size,
    }


def legal_actions(state: State, role: Role) -> list[JSON]:
    """List the actions a role may take now; forms with free fields list their options.

    Each move is listed when its handler's predicates (`conditions`) let the role make it, for
    the teams, orders and pairs of orders it could name; so what is listed is what `apply` takes.
    """
    # Pilots' and the public's screens, most of a push, make no move of the referee's or a team's:
    # the role check all those moves start with refuses them once here, not once a move.
    base = role_problem(role, "referee", "team") is None
    acts: list[JSON] = []
    if base:
        acts.extend(_setup_actions(state, role))
        acts.extend({"type": "surrender", "team": t} for t in TEAMS if surrender_problem(state, role, t) is None)
        acts.extend(_planning_actions(state, role))
    acts.extend(_airborne_actions(state, role, base))
    if base:
        if end_game_problem(state, role) is None:
            acts.append({"type": "end_game"})
        if forfeit_problem(state, role) is None:
            acts.append({"type": "forfeit"})
        acts.extend({"type": "set_players", "team": t} for t in TEAMS if set_players_problem(state, role, t) is None)
    # The newest event is not void yet: whether it may be voided tells whether any event may.
    if role_problem(role, "referee") is None and void_problem(state, state.version) is None:
        acts.append({"type": "void"})
    if state.over is not None:
        # Once the game is over the engine takes these kinds only.
        acts = [a for a in acts if a["type"] in AFTER_END]
    return acts


def _setup_actions(state: State, role: Role) -> list[JSON]:
    acts: list[JSON] = []
    if setup_problem(state) is not None:
        return acts  # every move here refuses outside the setup
    for t in TEAMS:
        if lock_sea_problem(state, role, t) is None:
            acts.append({"type": "lock_sea", "team": t})
        elif unlock_sea_problem(state, role, t) is None:
            acts.append({"type": "unlock_sea", "team": t})
    if start_game_problem(state, role) is None:
        acts.append({"type": "start_game"})
    return acts


def _planning_actions(state: State, role: Role) -> list[JSON]:
    acts: list[JSON] = []
    rnd = state.round
    if rnd is None or planning_problem(state) is not None:
        return acts  # every move here refuses outside the planning
    for t in TEAMS:
        if set_defender_problem(state, role, t) is None:
            pilots = [p for p in state.teams[t].players if defender_problem(state, t, p) is None]
            acts.append({"type": "set_defender", "team": t, "options": pilots})
        if add_order_problem(state, role, t) is None:
            acts.append({"type": "add_order", "team": t, "options": order_options(state, t)})
        acts.extend(
            {"type": "remove_order", "order": o.id}
            for o in rnd.orders.values()
            if o.team == t and remove_order_problem(state, role, o.id) is None
        )
    if start_round_problem(state, role) is None:
        acts.append({"type": "start_round"})
    return acts


def _airborne_actions(state: State, role: Role, base: bool) -> list[JSON]:
    """The moves of a round in the air; `base`: the role may act for a team (the referee or a team)."""
    acts: list[JSON] = []
    if airborne_problem(state) is not None:
        return acts
    # Only planes due to meet may fight (`dogfight_problem`), so only those are asked about.
    for m in due_dogfights(state):
        if confirm_problem(state, role, m.a, m.b) is None:
            acts.append({"type": "confirm_dogfight", "a": m.a, "b": m.b})
        if dogfight_problem(state, role, m.a, m.b) is None and reported_problem(state, role, m.a, m.b) is None:
            acts.append({"type": "report_dogfight", "a": m.a, "b": m.b})
    for t in TEAMS if base else ():
        for o in waiting_bombers(state, t):
            if bombing_problem(state, role, o.id) is not None:
                continue
            if announce_problem(state, o) is None:
                acts.append({"type": "announce_bombing", "order": o.id})
            elif report_bombing_problem(state, o) is None:
                acts.append({"type": "report_bombing", "order": o.id})
    if base and pause_problem(state, role) is None:
        acts.append({"type": "pause_timer"})
    if base and resume_problem(state, role) is None:
        acts.append({"type": "resume_timer"})
    if base and adjust_problem(state, role) is None:
        acts.append({"type": "adjust_timer"})
    if end_round_problem(state, role, None) is None:
        acts.append({"type": "end_round"})
    return acts


def _timer_view(rnd: Round | None, now: float, at_zero: str) -> JSON:
    if rnd is None:
        return {"running": False, "left": None, "deadline": None}
    return {
        "round": rnd.number,
        "phase": rnd.phase,
        "running": rnd.timer.running,
        "deadline": rnd.timer.deadline,
        "left": rnd.timer.left(now),
        "seconds": rnd.timer.seconds,
        "at_zero": at_zero,
    }


def _public_team(state: State, team_id: str) -> JSON:
    t = state.teams[team_id]
    grid = state.grid(team_id)
    led = ledger(state, team_id)
    sunk_ships = [ship for ship in (t.ship(s) for s in t.sunk) if ship is not None]
    sunk = [
        {"ship": ship.id, "kind": ship.kind, "squares": sorted(grid.square_name(q) for q in ship.squares)}
        for ship in sunk_ships
    ]
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
    data: JSON = {
        "id": order.id,
        "team": order.team,
        "label": order.label(state.ruleset),
        "round": order.round,
        "kind": order.kind,
        "corridor": order.corridor,
        "position": order.position,
        "status": order.status,
    }
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
        "opponent": {"label": enemy.label(state.ruleset), "kind": enemy.kind, "team": enemy.team},
        "reported_by": [r.by for r in reports],
        "conflict": key in rnd.conflicts,
        "pending": [_duel_view(state, r.result, rnd) for r in reports],
    }


def _duel_view(state: State, d: DuelResult, rnd: Round) -> JSON:
    return {
        "corridor": d.corridor,
        "a": d.a,
        "b": d.b,
        "a_label": rnd.orders[d.a].label(state.ruleset),
        "b_label": rnd.orders[d.b].label(state.ruleset),
        "throws": [t.to_dict() for t in d.throws],
        "choice": d.choice,
        "passed": d.passed,
        "shot_down": d.shot_down,
        "by": d.by,
    }


PUBLIC_NOTES = {
    "game_created",
    "game_started",
    "sea_locked",
    "round_started",
    "round_ended",
    "dogfight",
    "shot_down",
    "through",
    "bombing",
    "bombing_result",
    "hit",
    "sunk",
    "game_over",
    "timer",
    "voided",
    "void",
}


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
    over = state.phase == "over"
    whose = _whose(state, role)
    made = state.rows
    if len(made) > MADE_ROWS:
        made.clear()
    # Newest first, stopping at the limit: every push makes this for every screen's role, and
    # the log only grows, so walking all of it made pushes slower as the game went on.
    for event in reversed(state.log):
        if limit and len(rows) >= limit:
            break
        notes = state.notes.get(event.seq)
        shown = (len(notes) if notes else 0, state.voided.get(event.seq), state.skipped.get(event.seq), over)
        # A row is made once and then reused while what it shows is the same (its event, its
        # notes, whether it is void or skipped): the same object, so a push's change set
        # finds it unchanged at a glance instead of comparing it field by field.
        key = (event.seq, whose)
        known = made.get(key)
        if known is not None and known[0] is event and known[1] is notes and known[2] == shown:
            row = known[3]
        else:
            row = _log_row(state, event, notes or [], role)
            made[key] = (event, notes, shown, row)
        if row is not None:
            rows.append(row)
    rows.reverse()
    return rows


# Rows kept for reuse, all roles together, before they are made afresh: a few pushes' worth.
MADE_ROWS = 2000


def _whose(state: State, role: Role) -> tuple[str, str | None]:
    """Return what a log row depends on of a role: its kind and its team (a pilot's is its order's)."""
    if role.kind == "team":
        return role.kind, role.subject
    if role.kind == "pilot":
        order = state.order(role.subject)
        return role.kind, order.team if order else None
    return role.kind, None


def _log_row(state: State, event: Event, notes: list[JSON], role: Role) -> JSON | None:
    """Return one event's log row as a role may see it, or None if it shows the role nothing."""
    seen = [n for n in (_note_view(state, n, role) for n in notes) if n]
    if role.kind == "referee":
        return {
            **event.to_dict(),
            "notes": seen,
            "voided": state.voided.get(event.seq),
            "skipped": state.skipped.get(event.seq),
        }
    if seen:
        return {"seq": event.seq, "kind": event.kind, "at": event.at, "notes": seen}
    return None


def _sea_view(state: State, team_id: str, reveal: bool) -> JSON:
    t = state.teams[team_id]
    grid = state.grid(team_id)
    labels = ship_labels(state.ruleset.sea, t.ships)
    data: JSON = {
        "size": t.size,
        "columns": grid.column_labels(),
        "rows": grid.row_labels(),
        "hits": sorted(grid.square_name(s) for s in t.hits),
        "shots": dict(sorted(t.shots.items())),
    }
    if reveal:
        data["ships"] = [
            {
                **s.to_dict(grid),
                "name": labels[s.id],
                "sunk": s.id in t.sunk,
                "fighters": t.stock.get(s.id, {}).get(FIGHTER, 0),
                "bombers": t.stock.get(s.id, {}).get(BOMBER, 0),
            }
            for s in t.ships
        ]
        data["fleet"] = list(t.fleet)
    return data


def _sank(state: State, order_id: str) -> bool:
    """Tell whether a bomber's hit sank its ship: the ship's sinking is noted with the bombing's result."""
    for notes in state.notes.values():
        if any(
            n.get("type") == "bombing_result" and n.get("order") == order_id and n.get("result") == "hit" for n in notes
        ):
            return any(n.get("type") == "sunk" for n in notes)
    return False


def view_for(state: State, role: Role, now: float, log_limit: int | None = 50) -> JSON:
    """Return what one role may see; every secret is stripped here and nowhere else."""
    rnd = state.round
    over = state.phase == "over"
    view: JSON = {
        "mode": MODE,
        "version": state.version,
        "phase": state.phase,
        "role": role.to_str(),
        "ruleset": {
            "id": state.ruleset.id,
            "name": state.ruleset.name,
            "corridors": list(state.ruleset.corridors),
            "corridor_limit": state.ruleset.corridor_limit,
        },
        "round": _timer_view(rnd, now, state.ruleset.at_zero),
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
            {
                "corridor": b.corridor,
                "a": [_order_view(state, o) for o in b.a_planes],
                "b": [_order_view(state, o) for o in b.b_planes],
                "meetings": [encode(m) for m in b.meetings],
                "through": b.through,
            }
            for b in corridor_boards(state)
        ]
        view["duels"] = [_duel_view(state, d, rnd) for d in rnd.duels.values()] if rnd else []
        view["reports"] = (
            {
                k: [{"by": r.by, "seq": r.seq, "result": _duel_view(state, r.result, rnd)} for r in v]
                for k, v in rnd.reports.items()
            }
            if rnd
            else {}
        )
        view["conflicts"] = sorted(rnd.conflicts) if rnd else []
        # What keeps a round in the air after 0:00 (at_zero "wait"), for the referee to see.
        view["open"] = still_open(state)
        view["bombings"] = (
            [
                {**encode(b), "target": state.grid(other(rnd.orders[b.order].team)).square_name(b.target)}
                for b in rnd.bombings.values()
            ]
            if rnd
            else []
        )
        view["ledger"] = {t: ledger(state, t) for t in TEAMS}
        view["trophies"] = [encode(t) for t in state.trophies]
        view["log"] = _log_view(state, role, log_limit)
        view["legal"] = legal_actions(state, role)
        return view
    if role.kind == "team":
        team = role.subject
        if team not in TEAMS:
            raise MalformedAction(Msg("no team {team!r}", team=team))
        enemy = other(team)
        view["team"] = team
        view["players"] = state.teams[team].players
        view["fleet_kinds"] = {
            k: {"name": v.name, "names": dict(v.names), "shape": v.shape.to_text()}
            for k, v in state.ruleset.sea.kinds.items()
        }
        view["sea"] = _sea_view(state, team, True)
        view["enemy_sea"] = _sea_view(state, enemy, over)
        view["defender"] = rnd.defenders.get(team) if rnd else None
        mine = [o for r in state.rounds for o in r.orders.values() if o.team == team]
        view["orders"] = [
            {**_order_view(state, o), "next": _next_meeting(state, o)} for o in mine if rnd and o.round == rnd.number
        ]
        view["past_orders"] = [_order_view(state, o) for o in mine if rnd and o.round != rnd.number]
        view["options"] = order_options(state, team)
        rb = rnd.bombings if rnd else {}
        view["bombers_at_base"] = [
            {
                "order": o.id,
                "label": o.label(state.ruleset),
                "corridor": o.corridor,
                "pilot": o.pilot,
                "answer": rb[o.id].answer if o.id in rb else None,
                "target": state.grid(team).square_name(o.target) if o.id in rb and o.target else None,
            }
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
        # A sinking is public (every log says it): the bomber whose hit sank the ship hears it too.
        view["bombing"] = (
            {"answer": bombing.answer, "result": bombing.result, "sunk": _sank(state, order.id)} if bombing else None
        )
        view["legal"] = legal_actions(state, role)
        return view
    raise MalformedAction(Msg("no view for role {to_str!r}", to_str=role.to_str()))


def sea_draft(state: State, role: Role, team: object) -> Draft:
    """Return a team's sea to place a fleet on, for that team's base or the referee; refuse anyone else."""
    if team not in TEAMS:
        raise MalformedAction(Msg("team must be A or B, not {team!r}", team=team))
    if role not in (REFEREE, Role("team", str(team))):
        raise NotYourTurn(Msg("Only that team or the referee may do this."))
    return Draft(state.grid(str(team)), state.ruleset.sea, tuple(state.teams[str(team)].fleet))


def slip_rows(state: State, role: Role, number: int) -> list[JSON]:
    """List the slips of a round's orders that a role may print: a team its own, the referee all."""
    if not 1 <= number <= len(state.rounds) or role.kind not in ("referee", "team"):
        return []
    rows = []
    for order in state.rounds[number - 1].orders.values():
        if role not in (REFEREE, Role("team", order.team)):
            continue
        grid = state.grid(other(order.team))
        team = state.teams[order.team]
        ship = team.ship(order.ship)
        rows.append(
            {
                "order": order.id,
                "pilot": order.pilot,
                "team": order.team,
                "team_name": team.name,
                "kind": order.kind,
                "ship": order.ship,
                "ship_kind": ship.kind if ship else "",
                "corridor": order.corridor,
                "position": order.position,
                "label": order.label(state.ruleset),
                "round": order.round,
                "target": grid.square_name(order.target) if order.target else None,
            }
        )
    return rows
