"""What each role may do now (`legal_actions`) and see (`view_for`): secrets are stripped here only."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from ..errors import IllegalAction, MalformedAction, Msg, Name, NotYourTurn
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
    round_length_problem,
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
    Trophy,
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


def legal_actions(state: State, role: Role, parts: _Parts | None = None) -> list[JSON]:
    """List the actions a role may take now; forms with free fields list their options.

    Each move is listed when its handler's predicates (`conditions`) let the role make it, for
    the teams, orders and pairs of orders it could name; so what is listed is what `apply` takes.
    `parts` (a view's): keep the moves that do not depend on the round's clock while the parts
    of the state they read are equal.
    """
    # Pilots' and the public's screens, most of a push, make no move of the referee's or a team's:
    # the role check all those moves start with refuses them once here, not once a move.
    base = role_problem(role, "referee", "team") is None
    # The newest event is not void yet: whether it may be voided tells whether any event may.
    newest = void_problem(state, state.version) is None

    def settled() -> tuple[list[JSON], list[JSON]]:
        return _moves_before_clock(state, role, base), _moves_after_clock(state, role, base, newest)

    if parts is None:
        return _listed(state, *settled(), _clock_moves(state, role, base))
    kept = _kept(state, ("moves", role), (*parts.everything, newest), settled)
    rnd = state.round
    running = rnd.timer.running if rnd is not None else None
    clock = _kept(state, ("clock", role), (parts.round, parts.phase, running), lambda: _clock_moves(state, role, base))
    return _kept(state, ("legal", role), (kept, clock), lambda: _listed(state, *kept, clock))


def _listed(state: State, before: list[JSON], after: list[JSON], clock: list[JSON]) -> list[JSON]:
    acts = [*before, *clock, *after]
    if state.over is not None:
        # Once the game is over the engine takes these kinds only.
        acts = [a for a in acts if a["type"] in AFTER_END]
    return acts


def _moves_before_clock(state: State, role: Role, base: bool) -> list[JSON]:
    acts: list[JSON] = []
    if base:
        acts.extend(_setup_actions(state, role))
        acts.extend({"type": "surrender", "team": t} for t in TEAMS if surrender_problem(state, role, t) is None)
        acts.extend(_planning_actions(state, role))
    acts.extend(_airborne_actions(state, role, base))
    return acts


def _moves_after_clock(state: State, role: Role, base: bool, newest: bool) -> list[JSON]:
    acts: list[JSON] = []
    if base:
        if end_game_problem(state, role) is None:
            acts.append({"type": "end_game"})
        if forfeit_problem(state, role) is None:
            acts.append({"type": "forfeit"})
        acts.extend({"type": "set_players", "team": t} for t in TEAMS if set_players_problem(state, role, t) is None)
    if round_length_problem(state, role) is None:
        acts.append({"type": "set_round_length"})
    if newest and role_problem(role, "referee") is None:
        acts.append({"type": "void"})
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
    return acts


def _clock_moves(state: State, role: Role, base: bool) -> list[JSON]:
    """The moves of the round's clock (the only ones that change with it)."""
    acts: list[JSON] = []
    if airborne_problem(state) is not None:
        return acts
    if base and pause_problem(state, role) is None:
        acts.append({"type": "pause_timer"})
    if base and resume_problem(state, role) is None:
        acts.append({"type": "resume_timer"})
    if base and adjust_problem(state, role) is None:
        acts.append({"type": "adjust_timer"})
    if end_round_problem(state, role, None) is None:
        acts.append({"type": "end_round"})
    return acts


def _last_closed(state: State) -> Round | None:
    """Return the newest closed round, if any (the one just before the current one, or the last of a game over)."""
    for rnd in reversed(state.rounds[-2:]):
        if rnd.phase == "closed":
            return rnd
    return None


def _timer_view(rnd: Round | None, now: float, at_zero: str, ended: Round | None, next_seconds: int) -> JSON:
    if rnd is None:
        return {"running": False, "left": None, "deadline": None, "next_seconds": next_seconds}
    return {
        # The round before, if the referee ended it with time still on its clock: every screen
        # then says "the referee ended round N", not "Time!" (the clock ends a round only at 0:00).
        "ended_early": ended.number if ended is not None and (ended.timer.remaining or 0) >= 1 else None,
        "round": rnd.number,
        "phase": rnd.phase,
        "running": rnd.timer.running,
        "deadline": rnd.timer.deadline,
        "left": rnd.timer.left(now),
        "seconds": rnd.timer.seconds,
        # The length of the rounds still to take off (`set_round_length`).
        "next_seconds": next_seconds,
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
            shot_down_by=holder_name(state, other(order.team), order.shot_down_by) if order.shot_down_by else None,
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
    "round_length",
    "voided",
    "void",
}


def holder_name(state: State, holder_team: str, holder: str) -> str:
    """Return a plane's holder for people: a ship named in every language, anyone else as kept.

    The state keeps a ship holder as `ship:` and its English label (what the log was written
    with); a view gives it as a Name, so each page reads the ship in its own language.
    """
    if not holder.startswith("ship:") or holder_team not in state.teams:
        return holder
    english = holder[len("ship:") :]
    for label in ship_labels(state.ruleset.sea, state.teams[holder_team].ships).values():
        if label == english:
            return Name(holder, {code: "ship:" + name for code, name in label.names.items()})
    return holder


def _trophy_view(state: State, trophy: Trophy) -> JSON:
    data: JSON = encode(trophy)
    data["holder"] = holder_name(state, trophy.holder_team, trophy.holder)
    return data


def _note_view(state: State, note: JSON, role: Role) -> JSON | None:
    """Strip a narration entry to what a role may know."""
    if note["type"] == "shot_down" and str(note.get("by", "")).startswith("ship:"):
        note = {**note, "by": holder_name(state, str(note.get("by_team", "")), str(note["by"]))}
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
    whose = _whose(state, role)
    over = state.phase == "over"
    # The rows of earlier events change only with a void (which makes a new state and all its
    # rows again), a skip or the end of the game: while none has happened, the rows of the last
    # view made are this one's too, and only the events since then are looked at.
    stamp = (over, state.notes_rebuilt, len(state.voided), len(state.skipped))
    key = ("log", whose, limit)
    known = state.made.get(key)
    log = state.log
    if known is not None and known[1] == stamp:
        seen, before = known[0], len(known[0])
        rows: list[JSON] = known[2]
        if before <= len(log) and log[before - 1] is seen[-1]:
            if before == len(log):
                return rows
            new = [row for row in (_row(state, e, role, whose, over) for e in log[before:]) if row is not None]
            if new:
                rows = rows + new
                if limit and len(rows) > limit:
                    rows = rows[-limit:]
            state.made[key] = (log, stamp, rows)
            return rows
    rows = []
    # Newest first, stopping at the limit: the log only grows, and walking all of it made a
    # view slower as the game went on.
    for event in reversed(log):
        if limit and len(rows) >= limit:
            break
        row = _row(state, event, role, whose, over)
        if row is not None:
            rows.append(row)
    rows.reverse()
    state.made[key] = (log, stamp, rows)
    return rows


def _row(state: State, event: Event, role: Role, whose: tuple[str, str | None], over: bool) -> JSON | None:
    """Return one event's row as a role sees it: made once, then reused while what it shows is the same.

    The same object, so a push's change set finds it unchanged at a glance instead of comparing
    it field by field.
    """
    notes = state.notes.get(event.seq)
    shown = (len(notes) if notes else 0, state.voided.get(event.seq), state.skipped.get(event.seq), over)
    key = (event.seq, whose)
    known = state.made.get(key)
    if known is not None and known[0] is event and known[1] is notes and known[2] == shown:
        row: JSON | None = known[3]
        return row
    row = _log_row(state, event, notes or [], role)
    state.made[key] = (event, notes, shown, row)
    return row


# Things kept for reuse (rows and parts of views, all roles together) before they are made
# afresh: a few pushes' worth.
MADE_ROWS = 2000


def _made(state: State) -> dict[Any, Any]:
    """Return what the views made before, emptied once it has grown past a few pushes' worth."""
    made = state.made
    if len(made) > MADE_ROWS:
        made.clear()
    return made


def _part(state: State, name: str, value: object) -> object:
    """Return a token for a part of the state: the same token while the part stays equal.

    A part is compared with the one seen last once per state (a copy of a state holds new
    objects), then found by identity for every other role's view of the same state.
    """
    key = ("part", name)
    known = state.made.get(key)
    token = known[1] if known is not None and (known[0] is value or known[0] == value) else object()
    state.made[key] = (value, token)
    return token


T = TypeVar("T")


def _kept(state: State, key: tuple[object, ...], inputs: tuple[object, ...], make: Callable[[], T]) -> T:
    """Return a part of a view made from `inputs` (tokens and plain values): made again only when they change.

    The same object while kept, so a push's change set passes over it at a glance.
    """
    known = state.made.get(key)
    if known is not None and known[0] == inputs:
        value: T = known[1]
        return value
    value = make()
    state.made[key] = (inputs, value)
    return value


@dataclass(frozen=True)
class _Parts:
    """Tokens of the parts of a state that views read, each the same while its part is equal."""

    teams: dict[str, object]
    round: object
    """The current round but its clock (which every view shows afresh)."""
    past: object
    """The rounds before the current one."""
    trophies: object
    outcome: object
    phase: str

    @classmethod
    def of(cls, state: State) -> _Parts:
        """Find the tokens of a state's parts (once per state: every role's view asks)."""
        known = _made(state).get(("parts",))
        if known is not None and known[0] is state:
            parts: _Parts = known[1]
            return parts
        parts = cls._found(state)
        state.made[("parts",)] = (state, parts)
        return parts

    @classmethod
    def _found(cls, state: State) -> _Parts:
        rnd = state.round
        body = (
            None
            if rnd is None
            else (
                rnd.number,
                rnd.phase,
                rnd.defenders,
                rnd.orders,
                rnd.serial,
                rnd.duels,
                rnd.reports,
                rnd.conflicts,
                rnd.bombings,
            )
        )
        return cls(
            teams={t: _part(state, f"team {t}", state.teams[t]) for t in TEAMS},
            round=_part(state, "round", body),
            past=_part(state, "past", tuple(state.rounds[:-1])),
            trophies=_part(state, "trophies", state.trophies),
            outcome=_part(state, "outcome", state.outcome),
            phase=state.phase,
        )

    @property
    def flights(self) -> tuple[object, ...]:
        """The tokens of every round's orders (and all else of each round)."""
        return (self.past, self.round)

    @property
    def everything(self) -> tuple[object, ...]:
        """The tokens of the whole state but its log, its narration and the round's clock."""
        return (self.teams["A"], self.teams["B"], self.round, self.past, self.trophies, self.outcome, self.phase)


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
    """Return what one role may see; every secret is stripped here and nowhere else.

    Each part of a view is made from the parts of the state it shows and kept (`_kept`): the
    next view of any later version reuses it, the same object, while those parts are equal.
    """
    rnd = state.round
    over = state.phase == "over"
    parts = _Parts.of(state)
    view: JSON = {
        "mode": MODE,
        "version": state.version,
        "phase": state.phase,
        "practice": state.practice,
        "role": role.to_str(),
        "ruleset": _kept(state, ("ruleset",), (state.ruleset,), lambda: _ruleset_view(state)),
        "round": _timer_view(rnd, now, state.ruleset.at_zero, _last_closed(state), state.round_seconds),
        "teams": _kept(
            state,
            ("teams",),
            (*parts.teams.values(), *parts.flights, parts.trophies),
            lambda: {t: _public_team(state, t) for t in TEAMS},
        ),
        "outcome": _kept(
            state, ("outcome",), (parts.outcome,), lambda: encode(state.outcome) if state.outcome else None
        ),
    }
    if role.kind == "public":
        view["log"] = _log_view(state, role, 12)
        return view
    if role.kind == "referee":
        seas = [_sea(state, parts, t, True) for t in TEAMS]
        view["seas"] = _kept(state, ("seas",), tuple(seas), lambda: dict(zip(TEAMS, seas, strict=True)))
        view.update(
            _kept(state, ("referee",), (*parts.teams.values(), parts.round, parts.phase), lambda: _round_parts(state))
        )
        view["ledger"] = _kept(
            state,
            ("ledger",),
            (*parts.teams.values(), *parts.flights, parts.trophies),
            lambda: {t: ledger(state, t) for t in TEAMS},
        )
        view["trophies"] = _kept(
            state, ("trophies",), (parts.trophies,), lambda: [_trophy_view(state, t) for t in state.trophies]
        )
        view["log"] = _log_view(state, role, log_limit)
        view["legal"] = legal_actions(state, role, parts)
        return view
    if role.kind == "team":
        team = role.subject
        if team not in TEAMS:
            raise MalformedAction(Msg("no team {team!r}", team=team))
        enemy = other(team)
        view.update(_kept(state, ("team", team), (parts.teams[team],), lambda: _team_parts(state, team)))
        view["sea"] = _sea(state, parts, team, True)
        view["enemy_sea"] = _sea(state, parts, enemy, over)
        view.update(
            _kept(
                state,
                ("orders", team),
                (*parts.teams.values(), *parts.flights, parts.phase),
                lambda: _team_orders(state, team),
            )
        )
        view["ledger"] = _kept(
            state, ("ledger", team), (parts.teams[team], *parts.flights, parts.trophies), lambda: ledger(state, team)
        )
        view["trophies"] = _kept(
            state,
            ("trophies", team),
            (parts.trophies,),
            lambda: [_trophy_view(state, t) for t in state.trophies if t.holder_team == team],
        )
        view["log"] = _log_view(state, role, log_limit)
        view["legal"] = legal_actions(state, role, parts)
        return view
    if role.kind == "pilot":
        order = state.order(role.subject)
        if order is None:
            raise IllegalAction(Msg("this slip's order no longer exists (it was removed or voided)"))
        view.update(_kept(state, ("pilot", role.subject), parts.everything, lambda: _pilot_parts(state, order)))
        view["legal"] = legal_actions(state, role, parts)
        return view
    raise MalformedAction(Msg("no view for role {to_str!r}", to_str=role.to_str()))


def _ruleset_view(state: State) -> JSON:
    return {
        "id": state.ruleset.id,
        "name": state.ruleset.name,
        "corridors": list(state.ruleset.corridors),
        "corridor_limit": state.ruleset.corridor_limit,
    }


def _sea(state: State, parts: _Parts, team: str, reveal: bool) -> JSON:
    return _kept(state, ("sea", team, reveal), (parts.teams[team],), lambda: _sea_view(state, team, reveal))


def _round_parts(state: State) -> JSON:
    """Return the referee's view of the current round: orders, corridors, duels, bombings."""
    rnd = state.round
    return {
        "rosters": {t: state.teams[t].players for t in TEAMS},
        "defenders": dict(rnd.defenders) if rnd else {},
        "orders": [_order_view(state, o) for o in rnd.orders.values()] if rnd else [],
        "corridors": [
            {
                "corridor": b.corridor,
                "a": [_order_view(state, o) for o in b.a_planes],
                "b": [_order_view(state, o) for o in b.b_planes],
                "meetings": [encode(m) for m in b.meetings],
                "through": b.through,
            }
            for b in corridor_boards(state)
        ],
        "duels": [_duel_view(state, d, rnd) for d in rnd.duels.values()] if rnd else [],
        "reports": (
            {
                k: [{"by": r.by, "seq": r.seq, "result": _duel_view(state, r.result, rnd)} for r in v]
                for k, v in rnd.reports.items()
            }
            if rnd
            else {}
        ),
        "conflicts": sorted(rnd.conflicts) if rnd else [],
        # What keeps a round in the air after 0:00 (at_zero "wait"), for the referee to see.
        "open": still_open(state),
        "bombings": (
            [
                {**encode(b), "target": state.grid(other(rnd.orders[b.order].team)).square_name(b.target)}
                for b in rnd.bombings.values()
            ]
            if rnd
            else []
        ),
    }


def _team_parts(state: State, team: str) -> JSON:
    """Return what a team's view says of the team itself and of the ruleset's ships."""
    return {
        "team": team,
        "players": state.teams[team].players,
        "fleet_kinds": {
            k: {"name": v.name, "names": dict(v.names), "shape": v.shape.to_text()}
            for k, v in state.ruleset.sea.kinds.items()
        },
    }


def _team_orders(state: State, team: str) -> JSON:
    """Return a team's orders of this round and before, what a new one may use, and the bombers at its base."""
    rnd = state.round
    mine = [o for r in state.rounds for o in r.orders.values() if o.team == team]
    rb = rnd.bombings if rnd else {}
    return {
        "defender": rnd.defenders.get(team) if rnd else None,
        "orders": [
            {**_order_view(state, o), "next": _next_meeting(state, o)} for o in mine if rnd and o.round == rnd.number
        ],
        "past_orders": [_order_view(state, o) for o in mine if rnd and o.round != rnd.number],
        "options": order_options(state, team),
        "bombers_at_base": [
            {
                "order": o.id,
                "label": o.label(state.ruleset),
                "corridor": o.corridor,
                "pilot": o.pilot,
                "answer": rb[o.id].answer if o.id in rb else None,
                "target": state.grid(team).square_name(o.target) if o.id in rb and o.target else None,
            }
            for o in waiting_bombers(state, team)
        ],
    }


def _pilot_parts(state: State, order: Order) -> JSON:
    """Return a pilot's view of the order on its slip: its next meeting and its bombing."""
    rnd = state.round
    bombing = state.rounds[order.round - 1].bombings.get(order.id)
    return {
        "team": order.team,
        "order": _order_view(state, order),
        "current": rnd is not None and order.round == rnd.number,
        "next": _next_meeting(state, order),
        # A sinking is public (every log says it): the bomber whose hit sank the ship hears it too.
        "bombing": (
            {"answer": bombing.answer, "result": bombing.result, "sunk": _sank(state, order.id)} if bombing else None
        ),
    }


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
