"""Property tests: random games driven through `legal_actions` keep every invariant of the rules."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.rules import airraid
from referee.rules.engine import effective_voids
from referee.rules.errors import RulesError
from referee.rules.events import PUBLIC, REFEREE, Role
from referee.rules.grid import Grid
from referee.rules.ruleset import load_ruleset
from referee.rules.sea import check_fleet, random_sea

from ..airraid_helpers import RULESET_PATH, Game, new_game
from ..speed import examples

RULESET = load_ruleset(RULESET_PATH)


@given(seed=st.integers(0, 2**32 - 1), size_row=st.integers(0, 3))
@settings(max_examples=examples(60), deadline=None)
def test_no_accepted_fleet_ever_has_touching_ships(seed: int, size_row: int) -> None:
    row = RULESET.sea_sizes[size_row]
    grid = Grid(row.size)
    ships = random_sea(grid, RULESET.sea, row.fleet, random.Random(seed))
    assert check_fleet(grid, RULESET.sea, row.fleet, ships) == []
    for i, a in enumerate(ships):
        for b in ships[i + 1 :]:
            assert all(max(abs(p.col - q.col), abs(p.row - q.row)) > 1 for p in a.squares for q in b.squares)


def random_throw(rng: random.Random, sides: tuple[str, str]) -> dict[str, Any]:
    if rng.random() < 0.5:
        return {"hands": [rng.choice(["rock", "paper", "scissors"]) for _ in range(2)]}
    return {"winner": rng.choice([*sides, "tie"])}


def decisive(rng: random.Random, sides: tuple[str, str], n: int) -> list[dict[str, Any]]:
    """Return throws with exactly n decisive ones, ties recorded in between."""
    throws: list[dict[str, Any]] = []
    while sum(1 for t in throws if _winner(t)) < n:
        throws.append(random_throw(rng, sides))
    return throws


def _winner(throw: dict[str, Any]) -> bool:
    if "hands" in throw:
        return throw["hands"][0] != throw["hands"][1]
    return throw["winner"] != "tie"


def bot_action(state: airraid.State, rng: random.Random, void_rate: float = 0.03) -> tuple[str, dict[str, Any]] | None:
    """Pick a plausible action for some role, as players and the referee would."""
    rnd = state.round
    if state.phase == "setup":
        for t in airraid.TEAMS:
            if not state.teams[t].locked:
                grid = state.grid(t)
                ships = random_sea(grid, state.ruleset.sea, state.teams[t].fleet, rng)
                return f"team:{t}", {"type": "lock_sea", "team": t, "ships": [s.to_dict(grid) for s in ships]}
        return "referee", {"type": "start_game"}
    assert rnd is not None
    if rng.random() < void_rate and state.version > 3:
        return "referee", {"type": "void", "seq": rng.randint(2, state.version), "reason": "property test"}
    if rnd.phase == "planning":
        for t in airraid.TEAMS:
            if t not in rnd.defenders:
                return f"team:{t}", {"type": "set_defender", "team": t, "pilot": rng.choice(state.teams[t].players)}
        if rnd.orders and rng.random() < 0.05:
            order = rng.choice(list(rnd.orders.values()))
            return f"team:{order.team}", {"type": "remove_order", "order": order.id}
        if rng.random() < 0.9:
            t = rng.choice(airraid.TEAMS)
            opts = airraid.order_options(state, t)
            ships = [s for s in opts["ships"] if s["fighter"] or s["bomber"]]
            corridors = [c for c in opts["corridors"] if c["free"]]
            if opts["pilots"] and ships and corridors:
                ship = rng.choice(ships)
                kind = rng.choice([k for k in airraid.PLANE_KINDS if ship[k]])
                corridor = rng.choice(corridors)
                size = opts["target_size"]
                # Like a team, aim at squares not yet shot at.
                shot = set(state.teams[airraid.other(t)].shots)
                fresh = [
                    f"{chr(65 + c)}{r + 1}"
                    for c in range(size)
                    for r in range(size)
                    if f"{chr(65 + c)}{r + 1}" not in shot
                ]
                target = rng.choice(fresh or ["A1"]) if kind == "bomber" else None
                return f"team:{t}", {
                    "type": "add_order",
                    "team": t,
                    "pilot": rng.choice(opts["pilots"]),
                    "kind": kind,
                    "ship": ship["ship"],
                    "corridor": corridor["corridor"],
                    "position": rng.choice(corridor["positions"]),
                    **({"target": target} if target else {}),
                }
        return "referee", {"type": "start_round"}
    if rng.random() < 0.1:
        # The referee's clock: every view shows it, and the moves it allows change with it.
        clock = [a for a in airraid.legal_actions(state, REFEREE) if a["type"].endswith("_timer")]
        if clock:
            move = rng.choice(clock)
            extra = {"seconds": rng.choice([-30, 15, 60])} if move["type"] == "adjust_timer" else {}
            return "referee", {"type": move["type"], **extra}
    due = airraid.due_dogfights(state)
    bombers = [o for t in airraid.TEAMS for o in airraid.waiting_bombers(state, t)]
    if due and (not bombers or rng.random() < 0.6):
        m = rng.choice(due)
        a, b = rnd.orders[m.a], rnd.orders[m.b]
        if rng.random() < 0.4:
            # A pilot reports, the other confirms or disagrees: reports and disputes in the views.
            pilot = rng.choice([a, b])
            moves = airraid.legal_actions(state, Role("pilot", pilot.id))
            if any(x["type"] == "confirm_dogfight" for x in moves) and rng.random() < 0.7:
                return f"pilot:{pilot.id}", {"type": "confirm_dogfight", "a": a.id, "b": b.id}
            return f"pilot:{pilot.id}", {
                "type": "report_dogfight",
                "a": a.id,
                "b": b.id,
                **dogfight_fields(rng, a.kind, b.kind),
            }
        return "referee", {"type": "report_dogfight", "a": a.id, "b": b.id, **dogfight_fields(rng, a.kind, b.kind)}
    if bombers:
        o = rng.choice(bombers)
        defender = airraid.other(o.team)
        if o.id not in rnd.bombings:
            return f"team:{defender}", {"type": "announce_bombing", "order": o.id}
        return f"team:{defender}", {"type": "report_bombing", "order": o.id, **bombing_fields(rng)}
    return "referee", {"type": "end_round"}


def dogfight_fields(rng: random.Random, kind_a: str, kind_b: str) -> dict[str, Any]:
    """Return the throws (and choice) of a well-formed dogfight between planes of these kinds."""
    if kind_a == kind_b:
        if kind_a == "bomber" and rng.random() < 0.3:
            return {"choice": "pass"}
        return {"throws": decisive(rng, ("A", "B"), 1)}
    fighter = "A" if kind_a == "fighter" else "B"
    throws = decisive(rng, ("A", "B"), 1)
    if _first_winner(throws) == fighter:
        return {"throws": throws}
    if rng.random() < 0.5:
        return {"throws": throws, "choice": "pass"}
    return {"throws": throws + decisive(rng, ("A", "B"), 1), "choice": "continue"}


def bombing_fields(rng: random.Random) -> dict[str, Any]:
    """Return the throws (and choice) of a well-formed fight of a bomber and a ship."""
    throws = [{"winner": rng.choice(["bomber", "ship"])}]
    if throws[0]["winner"] == "bomber":
        return {"throws": throws}
    if rng.random() < 0.4:
        return {"throws": throws, "choice": "leave"}
    throws.append({"winner": rng.choice(["bomber", "ship"])})
    return {"throws": throws, "choice": "continue"}


def _first_winner(throws: list[dict[str, Any]]) -> str:
    for t in throws:
        if "hands" in t:
            a, b = t["hands"]
            if a != b:
                return "A" if {"rock": "scissors", "scissors": "paper", "paper": "rock"}[a] == b else "B"
        elif t["winner"] != "tie":
            return str(t["winner"])
    raise AssertionError("no decisive throw")


def enemy_ship_squares(state: airraid.State, team: str) -> set[str]:
    """Return the enemy's ship squares that a team may not know: those not yet hit."""
    enemy = state.teams[airraid.other(team)]
    grid = state.grid(enemy.id)
    return {grid.square_name(s) for ship in enemy.ships for s in ship.squares - enemy.hits}


def play(seed: int, steps: int, rounds_limit: int = 0, check_views: bool = True, void_rate: float = 0.03) -> Game:
    game = Game(*new_game(rounds__limit=rounds_limit))
    rng = random.Random(seed)
    for _ in range(steps):
        if game.state.phase == "over":
            break
        picked = bot_action(game.state, rng, void_rate)
        if picked is None:
            break
        by, action = picked
        old = game.state
        before = airraid.snapshot_to_dict(old) if check_views else None
        try:
            game.do(by, **action)
        except RulesError:
            # The bot may pick a refused action (a void that cannot apply, say); refusals must
            # leave the state as it was, which the other checks below cover.
            continue
        finally:
            # A handler changes a copy: what the copy shares with the state before (`_clone`)
            # is never changed, accepted or refused.
            assert before is None or airraid.snapshot_to_dict(old) == before, action
        check_invariants(game, views=check_views)
    return game


LABEL_KEYS = {"label", "a_label", "b_label", "reason"}  # plane labels like "B2" look like squares


def strings(value: Any, key: str = "") -> list[str]:
    """Collect every string in a view, leaving out plane labels."""
    if key in LABEL_KEYS:
        return []
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k, *strings(v, str(k))]]
    if isinstance(value, list):
        return [s for v in value for s in strings(v, key)]
    return [value] if isinstance(value, str) else []


def check_invariants(game: Game, views: bool) -> None:
    state = game.state
    assert airraid.ledger_balances(state), airraid.ledger(state, "A")
    # The voids in force are kept in the state (a void's refusal reads them, not the whole log).
    assert state.voided == effective_voids(state.log)
    if not views:
        return
    # Log rows are reused from earlier views while unchanged: a view is what a fresh one would be.
    fresh = copy.copy(state)
    fresh.made = {}
    roles = [REFEREE, PUBLIC, *(Role("team", t) for t in airraid.TEAMS)]
    roles += [Role("pilot", o.id) for o in (state.round.orders.values() if state.round else ())]
    for role in roles:
        assert airraid.view_for(state, role, now=game.clock) == airraid.view_for(fresh, role, now=game.clock), role
    if state.phase == "over":
        return
    for team in airraid.TEAMS:
        # Squares a team bombed itself are its own knowledge: "fight" tells a bomber a ship is there.
        secret = enemy_ship_squares(state, team) - _own_squares(state, team)
        view = airraid.view_for(state, Role("team", team), now=game.clock)
        leaked = secret & set(strings(_enemy_parts(view, team)))
        assert not leaked, leaked
        rnd = state.round
        if rnd is not None:
            for o in rnd.orders.values():
                if o.team == team:
                    pilot = airraid.view_for(state, Role("pilot", o.id), now=game.clock)
                    leaked = secret & set(strings(pilot))
                    assert not leaked, leaked


def _own_squares(state: airraid.State, team: str) -> set[str]:
    grid = state.grid(team)
    t = state.teams[team]
    own = {grid.square_name(s) for ship in t.ships for s in ship.squares}
    own |= set(t.shots)
    # A team's own orders name targets on the enemy sea: those are its own secret, not the enemy's.
    for rnd in state.rounds:
        for o in rnd.orders.values():
            if o.team == team and o.target is not None:
                own.add(state.grid(airraid.other(team)).square_name(o.target))
    return own


def _enemy_parts(view: dict[str, Any], team: str) -> dict[str, Any]:
    """Return the parts of a team view that speak of the enemy sea."""
    return {
        "enemy_sea": view["enemy_sea"],
        "enemy_team": view["teams"][airraid.other(team)],
        "log": [n for row in view["log"] for n in row["notes"] if n.get("team") != team],
        "bombers_at_base": view["bombers_at_base"],
        "next": [o["next"] for o in view["orders"]],
    }


@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_random_games_keep_the_ledger_and_the_secrets(seed: int) -> None:
    play(seed, steps=160)


@given(seed=st.integers(0, 2**32 - 1), limit=st.sampled_from([0, 2]))
@settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_replay_equals_live_state(seed: int, limit: int) -> None:
    game = play(seed, steps=160, rounds_limit=limit, check_views=False)
    replayed = airraid.replay(game.events)
    assert airraid.state_to_dict(replayed) == airraid.state_to_dict(game.state)
    restored = airraid.state_from_dict(json.loads(json.dumps(airraid.state_to_dict(game.state))))
    assert airraid.state_to_dict(restored) == airraid.state_to_dict(game.state)


@pytest.mark.slow
def test_a_long_random_game_reaches_an_end() -> None:
    # Planes lost as trophies can leave a team unable to attack: clubs play to a round limit.
    reasons = []
    for seed in range(4):
        game = play(seed, steps=2000, rounds_limit=40, check_views=False, void_rate=0.002)
        assert game.state.outcome is not None, f"seed {seed} did not end"
        assert airraid.ledger_balances(game.state)
        reasons.append(game.state.outcome.reason)
    assert set(reasons) <= {"fleet_sunk", "fleets_sunk", "round_limit"}
