"""`legal_actions` and `apply` agree both ways, in random games of both modes.

One half: every action `legal_actions` lists for a role, filled in with a valid choice from its
options, is accepted by `apply`. The other half, which games driven through `legal_actions` alone
cannot see: candidate actions made without asking `legal_actions` (every kind; every team, roster
name, order and pair of orders of the round; as the referee, the teams or players and the pilots
concerned, plus one role picked at random) are tried, a sample of each kind at every step, and
each one `apply` accepts must be listed, with the same ids; so must every move the driver makes.
The clock is left out: it has no screen, and when it may end a round depends on the time, which
`legal_actions` is not given. The tests at the end break one predicate on one side only and
check that the search notices.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from referee.rules import airraid
from referee.rules import battleship as bs
from referee.rules.airraid import conditions
from referee.rules.airraid import moves as airraid_moves
from referee.rules.airraid import views as airraid_views
from referee.rules.battleship import views as bs_views
from referee.rules.engine import effective_voids
from referee.rules.errors import IllegalAction, RulesError
from referee.rules.events import JSON, Event, Role
from referee.rules.grid import Square
from referee.rules.sea import random_sea

from ..airraid_helpers import Game, new_game
from ..battleship_helpers import RULESET_IDS
from ..battleship_helpers import Game as BattleshipGame
from ..speed import examples
from .test_airraid_properties import bombing_fields, bot_action, dogfight_fields

NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)
"""A game is random from its seed on: shrinking the seed finds nothing smaller, only takes minutes."""
Action = dict[str, Any]
Candidate = tuple[str, Action]
PER_KIND = 2
"""Candidates of each kind tried at every step: a sample, since every try costs a copy of the state."""
VOID_RATE = 0.15
"""A void re-folds the whole game: voids are tried at this share of the steps only."""
PLAY = {"report_dogfight", "confirm_dogfight", "announce_bombing", "report_bombing"}
"""Kinds the driver prefers among the accepted candidates: pilots' reports and confirmations above all."""
ENDING = {"surrender", "forfeit", "end_game", "void"}
"""Kinds the driver never picks among the accepted candidates: they end a game or redo it all."""


def accepted(mode: Any, state: Any, by: str, action: Action, at: float) -> Event | None:
    """Return the event `apply` makes of an action, or None if it refuses it."""
    try:
        _, events = mode.apply(state, action, at=at, by=by, seed=7)
    except RulesError:
        return None
    event: Event = events[0]
    return event


def sample(rng: random.Random, items: list[Candidate]) -> list[Candidate]:
    """Return up to PER_KIND candidates of each kind."""
    kinds: dict[str, list[Candidate]] = {}
    for item in items:
        kinds.setdefault(item[1]["type"], []).append(item)
    return [c for group in kinds.values() for c in rng.sample(group, min(PER_KIND, len(group)))]


# --- The air raid ----------------------------------------------------------------------------


def roles_of(state: airraid.State) -> list[str]:
    """Every role with a screen: the referee, the public, both teams and each pilot of the round."""
    roles = ["referee", "public", "team:A", "team:B"]
    if state.round is not None:
        roles += [f"pilot:{o}" for o in state.round.orders]
    return roles


def square_names(state: airraid.State, team: str) -> list[str]:
    grid = state.grid(team)
    return [grid.square_name(Square(c, r)) for c in range(grid.size) for r in range(grid.size)]


def fleet(state: airraid.State, team: str, rng: random.Random) -> list[JSON]:
    grid = state.grid(team)
    return [s.to_dict(grid) for s in random_sea(grid, state.ruleset.sea, state.teams[team].fleet, rng)]


def order_from(state: airraid.State, team: str, options: JSON, rng: random.Random) -> Action | None:
    """Fill an add_order form from its options; None if they leave no order to write."""
    pilots = options["pilots"]
    ships = [(s["ship"], k) for s in options["ships"] for k in airraid.PLANE_KINDS if s[k] > 0]
    slots = [(c["corridor"], p) for c in options["corridors"] for p in c["positions"]]
    if not (pilots and ships and slots):
        return None
    ship, kind = rng.choice(ships)
    corridor, position = rng.choice(slots)
    action: Action = {"type": "add_order", "team": team, "pilot": rng.choice(pilots), "kind": kind}
    action.update(ship=ship, corridor=corridor)
    if rng.random() < 0.8:  # else the rules choose the first free position
        action["position"] = position
    if kind == airraid.BOMBER:
        action["target"] = rng.choice(square_names(state, airraid.other(team)))
    return action


def fill(state: airraid.State, entry: JSON, rng: random.Random) -> Action | None:
    """Fill a listed action's free fields with a valid choice from its options; None if it offers none."""
    kind = entry["type"]
    action: Action = {k: v for k, v in entry.items() if k != "options"}
    rnd = state.round
    if kind == "lock_sea":
        action["ships"] = fleet(state, entry["team"], rng)
    elif kind == "set_players":
        action["players"] = list(state.teams[entry["team"]].players)
    elif kind == "set_defender":
        if not entry["options"]:
            return None
        action["pilot"] = rng.choice(entry["options"])
    elif kind == "add_order":
        return order_from(state, entry["team"], entry["options"], rng)
    elif kind == "report_dogfight":
        assert rnd is not None
        action.update(dogfight_fields(rng, rnd.orders[entry["a"]].kind, rnd.orders[entry["b"]].kind))
    elif kind == "report_bombing":
        action.update(bombing_fields(rng))
    elif kind == "adjust_timer":
        action["seconds"] = rng.choice([0, 30])
    elif kind == "set_round_length":
        action["seconds"] = rng.choice([60, 300])
    elif kind == "forfeit":
        action.update(team=rng.choice(airraid.TEAMS), reason="went home")
    elif kind == "void":
        voided = effective_voids(state.log)
        action.update(seq=rng.choice([s for s in range(2, state.version + 1) if s not in voided]), reason="test")
    return action


def random_order(state: airraid.State, team: str, pilot: str, rng: random.Random) -> Action:
    """Write an order of any ship, kind, corridor and position, right or wrong."""
    ships = [s.id for s in state.teams[team].ships] or ["A"]
    action: Action = {
        "type": "add_order",
        "team": team,
        "pilot": pilot,
        "kind": rng.choice(airraid.PLANE_KINDS),
        "ship": rng.choice(ships),
        "corridor": rng.choice(state.ruleset.corridors),
    }
    if rng.random() < 0.8:
        action["position"] = rng.randint(1, state.ruleset.corridor_limit)
    if action["kind"] == airraid.BOMBER or rng.random() < 0.1:
        action["target"] = rng.choice(square_names(state, airraid.other(team)))
    return action


def candidates(state: airraid.State, rng: random.Random) -> list[Candidate]:
    """Actions of every kind, made without `legal_actions`, each with the roles it concerns and one more."""
    roles = roles_of(state)
    out: list[Candidate] = []

    def add(action: Action, *concerned: str) -> None:
        # Ordered (not a set), so that a seed plays the same game in every process.
        for by in dict.fromkeys([*(concerned or ("referee",)), rng.choice(roles)]):
            out.append((by, action))

    for kind in ("start_game", "start_round", "pause_timer", "resume_timer", "end_round", "end_game"):
        add({"type": kind})
    add({"type": "adjust_timer", "seconds": rng.choice([0, 30, -30])})
    add({"type": "set_round_length", "seconds": rng.choice([60, 300, 5])})
    if state.version >= 2 and rng.random() < VOID_RATE:
        add({"type": "void", "seq": rng.randint(2, state.version), "reason": "test"})
    for t in airraid.TEAMS:
        team = state.teams[t]
        ours = ("referee", f"team:{t}")
        add({"type": "lock_sea", "team": t, "ships": fleet(state, t, rng)}, *ours)
        add({"type": "unlock_sea", "team": t}, *ours)
        add({"type": "set_players", "team": t, "players": list(team.players)}, *ours)
        add({"type": "surrender", "team": t}, *ours)
        add({"type": "forfeit", "team": t, "reason": "went home"}, *ours)
        for p in team.players:
            add({"type": "set_defender", "team": t, "pilot": p}, *ours)
            add(random_order(state, t, p, rng), *ours)
    rnd = state.round
    if rnd is None:
        return out
    for o in rnd.orders.values():
        mine = ("referee", f"team:{o.team}", f"team:{airraid.other(o.team)}", f"pilot:{o.id}")
        add({"type": "remove_order", "order": o.id}, *mine)
        add({"type": "announce_bombing", "order": o.id}, *mine)
        add({"type": "report_bombing", "order": o.id, **bombing_fields(rng)}, *mine)
        if o.target is not None:
            # By the square, as a team calls out a bomber at its base: the rules bind the order.
            defender = airraid.other(o.team)
            square = state.grid(defender).square_name(o.target)
            add({"type": "announce_bombing", "team": defender, "target": square}, "referee", f"team:{defender}")
    pairs = [(x, y) for x in rnd.orders.values() for y in rnd.orders.values() if x.id < y.id]
    # Planes of one corridor and both teams may meet; one other pair a step, in the wrong corridor
    # or of one team, checks that those are refused. The referee enters results as the bot.
    meet = [(x, y) for x, y in pairs if x.corridor == y.corridor and x.team != y.team]
    odd = [(x, y) for x, y in pairs if (x, y) not in meet]
    for x, y in meet + rng.sample(odd, min(1, len(odd))):
        x, y = rng.sample((x, y), 2)  # either order names the same dogfight
        pilots = (f"pilot:{x.id}", f"pilot:{y.id}")
        add({"type": "report_dogfight", "a": x.id, "b": y.id, **dogfight_fields(rng, x.kind, y.kind)}, *pilots)
        add({"type": "confirm_dogfight", "a": x.id, "b": y.id}, *pilots)
    return out


def airraid_lists(legal: list[JSON], action: Action, event: Event) -> bool:
    """Tell whether `legal` offers the action `event` was made of, with its ids and choices."""
    kind = action["type"]
    data = event.data
    same = [e for e in legal if e["type"] == kind]
    if kind in ("lock_sea", "unlock_sea", "set_players", "surrender"):
        return any(e["team"] == data["team"] for e in same)
    if kind == "set_defender":
        return any(e["team"] == data["team"] and data["pilot"] in e["options"] for e in same)
    if kind == "add_order":
        for e in same:
            opts = e["options"]
            if e["team"] != data["team"] or data["pilot"] not in opts["pilots"]:
                continue
            ship = next((s for s in opts["ships"] if s["ship"] == data["ship"].upper()), None)
            slot = next((c for c in opts["corridors"] if c["corridor"] == data["corridor"]), None)
            if ship and ship[data["kind"]] > 0 and slot and data["position"] in slot["positions"]:
                return True
        return False
    if kind in ("remove_order", "announce_bombing", "report_bombing"):
        return any(e["order"] == data["order"] for e in same)
    if kind in ("report_dogfight", "confirm_dogfight"):
        return any({e["a"], e["b"]} == {data["a"], data["b"]} for e in same)
    return bool(same)


def airraid_drift(state: airraid.State, rng: random.Random, at: float) -> tuple[list[str], list[Candidate]]:
    """Return every disagreement of `legal_actions` and `apply` found in a state, and the accepted candidates."""
    problems: list[str] = []
    for by in roles_of(state):
        legal = airraid.legal_actions(state, Role.from_str(by))
        for entry in legal:
            if entry["type"] == "void" and rng.random() > VOID_RATE:
                continue
            action = fill(state, entry, rng)
            if action is None:
                continue
            try:
                airraid.apply(state, action, at=at, by=by)
            except RulesError as exc:
                problems.append(f"listed for {by} but refused: {action} ({exc.message})")
    taken: list[Candidate] = []
    legal_of: dict[str, list[JSON]] = {}
    for by, action in sample(rng, candidates(state, rng)):
        event = accepted(airraid, state, by, action, at)
        if event is None:
            continue
        taken.append((by, action))
        legal = legal_of.setdefault(by, airraid.legal_actions(state, Role.from_str(by)))
        if not airraid_lists(legal, action, event):
            problems.append(f"accepted from {by} but not listed: {event.data | {'type': action['type']}}")
    return problems, taken


def pilot_action(state: airraid.State, rng: random.Random) -> Candidate | None:
    """Pick a pilot's move in a dogfight due now: a report, or a confirmation of the other's report."""
    due = airraid.due_dogfights(state)
    if not due:
        return None
    m = rng.choice(due)
    rnd = state.round
    assert rnd is not None
    by = rng.choice((f"pilot:{m.a}", f"pilot:{m.b}"))
    if rnd.reports.get(airraid.duel_key(m.corridor, m.a, m.b)) and rng.random() < 0.6:
        return by, {"type": "confirm_dogfight", "a": m.a, "b": m.b}
    fields = dogfight_fields(rng, rnd.orders[m.a].kind, rnd.orders[m.b].kind)
    return by, {"type": "report_dogfight", "a": m.a, "b": m.b, **fields}


def airraid_game(seed: int, steps: int, *, first: bool = False) -> list[str]:
    """Play a random game; return every disagreement found on the way (`first`: stop at the first found)."""
    game = Game(*new_game(rounds__limit=6))
    rng = random.Random(seed)
    problems: list[str] = []
    for _ in range(steps):
        found, taken = airraid_drift(game.state, rng, game.clock + 1.0)
        problems += found
        if game.state.phase == "over" or (first and problems):
            break
        # The bot's plausible move (the referee enters every dogfight there), a pilot's report or
        # confirmation (so that reports wait, agree and conflict), or another accepted candidate.
        play = [c for c in taken if c[1]["type"] in PLAY]
        other = [c for c in taken if c[1]["type"] not in ENDING]
        picked = pilot_action(game.state, rng) if rng.random() < 0.5 else None
        if picked is None and play and rng.random() < 0.5:
            picked = rng.choice(play)
        elif picked is None and other and rng.random() < 0.1:
            picked = rng.choice(other)
        if picked is None:
            picked = bot_action(game.state, rng)
        if picked is None:
            break
        by, action = picked
        before = game.state
        try:
            game.do(by, **action)
        except RulesError:
            continue
        # The driver's own move is a candidate made without `legal_actions` too.
        if not airraid_lists(airraid.legal_actions(before, Role.from_str(by)), action, game.events[-1]):
            problems.append(f"accepted from {by} but not listed: {game.events[-1].data | {'type': action['type']}}")
    return problems


@pytest.mark.slow
@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=examples(5), deadline=None, suppress_health_check=[HealthCheck.too_slow], phases=NO_SHRINK)
def test_airraid_legal_actions_list_exactly_what_apply_takes(seed: int) -> None:
    assert airraid_game(seed, steps=70) == []


# --- Battleship ------------------------------------------------------------------------------

BS_ROLES = ("referee", "public", "player:A", "player:B")


def bs_fleet(state: bs.State, rng: random.Random) -> list[JSON]:
    grid = state.grid()
    return [s.to_dict(grid) for s in random_sea(grid, state.ruleset.sea, state.ruleset.fleet, rng)]


def bs_fill(state: bs.State, entry: JSON, rng: random.Random) -> Action:
    action: Action = {k: v for k, v in entry.items() if k not in ("fleet", "count", "squares")}
    if entry["type"] == "place_fleet":
        action["ships"] = bs_fleet(state, rng)
    elif entry["type"] == "fire":
        action["squares"] = rng.sample(entry["squares"], entry["count"])
    return action


def bs_candidates(state: bs.State, rng: random.Random) -> list[Candidate]:
    grid = state.grid()
    out: list[Candidate] = []
    for p in bs.PLAYERS:
        closed = state.players[bs.other(p)].closed()
        free = [grid.square_name(s) for s in grid.squares() if s not in closed]
        count = min(len(free), max(1, bs.shots_due(state)))
        actions: list[Action] = [
            {"type": "place_fleet", "player": p, "ships": bs_fleet(state, rng)},
            {"type": "fire", "player": p, "squares": rng.sample(free, count)},
            {"type": "forfeit", "player": p},
            {"type": "computer_move", "player": p},
        ]
        out += [(by, a) for a in actions for by in BS_ROLES]
    return out


def bs_drift(state: bs.State, rng: random.Random) -> tuple[list[str], list[Candidate]]:
    problems: list[str] = []
    for by in BS_ROLES:
        for entry in bs.legal_actions(state, by):
            action = bs_fill(state, entry, rng)
            if accepted(bs, state, by, action, 0.0) is None:
                problems.append(f"listed for {by} but refused: {action}")
    taken: list[Candidate] = []
    for by, action in bs_candidates(state, rng):
        if accepted(bs, state, by, action, 0.0) is None:
            continue
        taken.append((by, action))
        listed = bs.legal_actions(state, by)
        if not any(e["type"] == action["type"] and e["player"] == action["player"] for e in listed):
            problems.append(f"accepted from {by} but not listed: {action['type']} {action['player']}")
    return problems, taken


def battleship_game(ruleset_id: str, seed: int, computer: bool, *, first: bool = False) -> list[str]:
    rng = random.Random(seed)
    extra: dict[str, Any] = {"computer": {"B": "easy"}} if computer else {}
    game = BattleshipGame(ruleset_id, first=rng.choice("AB"), **extra)
    problems: list[str] = []
    while True:
        found, taken = bs_drift(game.state, rng)
        problems += found
        if game.state.phase == "over" or (first and problems):
            return problems
        moves = [c for c in taken if c[1]["type"] != "forfeit" or rng.random() < 0.01]
        by, action = rng.choice(moves or taken)
        game.state, events = bs.apply(game.state, action, at=float(len(game.log)), by=by, seed=rng.randrange(2**32))
        game.log.extend(events)


@given(ruleset_id=st.sampled_from(RULESET_IDS), seed=st.integers(0, 2**32 - 1), computer=st.booleans())
@settings(max_examples=examples(8), deadline=None, phases=NO_SHRINK)
def test_battleship_legal_actions_list_exactly_what_apply_takes(ruleset_id: str, seed: int, computer: bool) -> None:
    assert battleship_game(ruleset_id, seed, computer) == []


# --- The search is not blind -----------------------------------------------------------------


def _refuse_always(*_args: Any) -> RulesError:
    return IllegalAction("broken on purpose")


def _allow_always(*_args: Any) -> None:
    return None


def _start_round_without_defenders(state: airraid.State, role: Role) -> RulesError | None:
    """`start_round_problem` with its one condition of the state dropped: every team's defender."""
    return conditions.role_problem(role, "referee") or conditions.planning_problem(state)


@pytest.mark.parametrize(
    ("side", "name", "broken", "finds"),
    [
        # legal_actions offers the round's start before both defenders are set: listed, then refused.
        (airraid_views, "start_round_problem", _start_round_without_defenders, "listed for referee but refused"),
        # legal_actions never offers a defender: set_defender is taken, never listed.
        (airraid_views, "defender_problem", _refuse_always, "but not listed: {'team'"),
        # The handler starts a round without its defenders: taken, never listed.
        (airraid_moves, "start_round_problem", _start_round_without_defenders, "accepted from referee but not listed"),
        # The handler takes a pilot's second report of one dogfight: taken, never listed.
        (airraid_moves, "reported_problem", _allow_always, "accepted from pilot"),
    ],
)
def test_the_search_finds_a_predicate_broken_on_one_side(
    monkeypatch: pytest.MonkeyPatch, side: Any, name: str, broken: Callable[..., RulesError | None], finds: str
) -> None:
    """Break one predicate on one side only (the other side keeps it): the search must say so."""
    monkeypatch.setattr(side, name, broken)
    problems: list[str] = []
    for seed in range(8):
        problems += airraid_game(seed, steps=80, first=True)
        if any(finds in p for p in problems):
            return
    raise AssertionError(f"not found in 8 games; found instead: {problems[:3]}")


def test_the_search_finds_a_battleship_move_never_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Battleship's `legal_actions` without the computer's move: the search must say so."""
    monkeypatch.setattr(bs_views, "computer_move_problem", _refuse_always)
    problems = battleship_game("zeeslag", 1, True, first=True)
    assert any("accepted from" in p and "computer_move" in p for p in problems), problems[:3]
