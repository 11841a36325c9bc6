"""Battleship property tests: random fleets and random games, checked against independent oracles."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.rules import battleship as bs
from referee.rules.errors import IllegalAction, RulesError
from referee.rules.grid import Grid, Square
from referee.rules.sea import Ship, random_sea

from ..battleship_helpers import RULESET_IDS, Game
from ..speed import examples

SEEDS = st.integers(0, 2**32 - 1)


def touching(a: Ship, b: Ship) -> bool:
    """Tell whether two ships share or touch a square, sides and corners counted (the oracle)."""
    return any(max(abs(p.col - q.col), abs(p.row - q.row)) <= 1 for p in a.squares for q in b.squares)


@given(seed=SEEDS, index=st.integers(0, 9), dc=st.integers(-2, 2), dr=st.integers(-2, 2), turn=st.booleans())
@settings(max_examples=examples(150), deadline=None)
def test_no_accepted_sjoslag_fleet_touches(seed: int, index: int, dc: int, dr: int, turn: bool) -> None:
    """A legal fleet with one ship moved (and maybe turned) is accepted exactly when nothing touches."""
    game = Game("sjoslag")
    grid = game.state.grid()
    ships = random_sea(grid, game.state.ruleset.sea, game.state.ruleset.fleet, random.Random(seed))
    moved = ships[index]
    origin = min(moved.squares)
    squares = {
        Square(
            origin.col + (s.row - origin.row if turn else s.col - origin.col) + dc,
            origin.row + (s.col - origin.col if turn else s.row - origin.row) + dr,
        )
        for s in moved.squares
    }
    ships[index] = Ship(moved.id, moved.kind, frozenset(squares))
    legal = all(grid.contains(s) for s in squares) and not any(
        touching(a, b) for i, a in enumerate(ships) for b in ships[i + 1 :]
    )
    try:
        game.act({"type": "place_fleet", "player": "A", "ships": [_ship_json(grid, s) for s in ships]})
    except RulesError:
        assert not legal
        assert not game.state.players["A"].placed
        return
    assert legal
    placed = game.state.players["A"].ships
    assert not any(touching(a, b) for i, a in enumerate(placed) for b in placed[i + 1 :])


def _ship_json(grid: Grid, ship: Ship) -> dict[str, Any]:
    # Squares off the grid cannot be written as names; send a name that is off the grid instead.
    names = [grid.square_name(s) if grid.contains(s) else "K11" for s in ship.squares]
    return {"id": ship.id, "kind": ship.kind, "squares": names}


def random_game(ruleset_id: str, seed: int, *, hit_rate: float = 0.5, check: Any = None, **options: Any) -> Game:
    """Play a whole game: each volley calls enemy ship squares with `hit_rate`, else random free squares.

    `check(game, before, shooter, squares)` runs after every volley, with the state before it.
    """
    rng = random.Random(seed)
    game = Game(ruleset_id, first=rng.choice("AB"), **options)
    for player in "AB":
        game.place_random(player, rng)
    grid = game.state.grid()
    while game.state.phase == "playing":
        before = game.state
        shooter = before.turn
        assert shooter is not None
        fire = next(a for a in bs.legal_actions(before, f"player:{shooter}") if a["type"] == "fire")
        free = set(fire["squares"])
        ship_squares = [grid.square_name(s) for sh in before.players[bs.other(shooter)].ships for s in sh.squares]
        targets = [n for n in ship_squares if n in free]
        called: list[str] = []
        for _ in range(fire["count"]):
            pool = targets if targets and rng.random() < hit_rate else sorted(free)
            name = rng.choice(pool)
            called.append(name)
            free.discard(name)
            if name in targets:
                targets.remove(name)
        game.fire(shooter, *called)
        if check is not None:
            check(game, before, shooter, called)
    return game


@given(ruleset_id=st.sampled_from(RULESET_IDS), seed=SEEDS, hit_rate=st.floats(0.0, 1.0))
@settings(max_examples=examples(30), deadline=None)
def test_turns_alternate_exactly_as_the_ruleset_says(ruleset_id: str, seed: int, hit_rate: float) -> None:
    """Sjøslag: a hit or sinking shoots again, a miss passes; Zeeslag: strictly alternate, hit or miss."""
    shooters: list[str] = []

    def check(game: Game, before: bs.State, shooter: str, called: list[str]) -> None:
        shooters.append(shooter)
        grid = before.grid()
        enemy = {grid.square_name(s) for sh in before.players[bs.other(shooter)].ships for s in sh.squares}
        hit = any(n in enemy for n in called)
        state = game.state
        if state.phase == "over":
            assert state.turn is None
        elif before.ruleset.again_on_hit and hit:
            assert state.turn == shooter
        else:
            assert state.turn == bs.other(shooter)

    game = random_game(ruleset_id, seed, hit_rate=hit_rate, check=check)
    assert shooters[0] == game.state.first
    if ruleset_id.startswith("zeeslag"):
        assert all(a != b for a, b in itertools.pairwise(shooters))


@given(seed=SEEDS, hit_rate=st.floats(0.0, 1.0), per_shot=st.booleans())
@settings(max_examples=examples(25), deadline=None)
def test_salvo_size_follows_the_ships_afloat(seed: int, hit_rate: float, per_shot: bool) -> None:
    """Every salvo calls exactly one square per own ship afloat (fewer only when fewer squares are left)."""
    sizes: dict[str, list[int]] = {"A": [], "B": []}

    def check(game: Game, before: bs.State, shooter: str, called: list[str]) -> None:
        own = before.players[shooter]
        struck = set(own.shot_at)
        afloat = sum(1 for sh in own.ships if not sh.squares <= struck)
        free = 100 - len(before.players[bs.other(shooter)].closed())
        assert len(called) == min(afloat, free) == bs.shots_due(before)
        sizes[shooter].append(len(called))
        grid = before.grid()
        spare = [
            grid.square_name(s)
            for s in grid.squares()
            if s not in before.players[bs.other(shooter)].closed() and grid.square_name(s) not in called
        ]
        for wrong in (called[:-1], called + spare[:1]):
            if wrong and len(wrong) != len(called):
                try:
                    bs.apply(
                        before, {"type": "fire", "player": shooter, "squares": wrong}, at=0.0, by=f"player:{shooter}"
                    )
                except IllegalAction:
                    pass
                else:
                    raise AssertionError(f"a salvo of {len(wrong)} was accepted, {len(called)} due")

    game = random_game("zeeslag-salvo", seed, hit_rate=hit_rate, check=check, per_shot=per_shot)
    assert game.state.phase == "over"
    assert sizes[game.state.first][0] == 5  # the first salvo of the game: the whole fleet afloat
    for own in sizes.values():
        assert own == sorted(own, reverse=True)  # a salvo never grows: sunk ships stay sunk


@given(ruleset_id=st.sampled_from(RULESET_IDS), seed=SEEDS, cut=st.floats(0.0, 1.0))
@settings(max_examples=examples(20), deadline=None)
def test_replay_equals_the_live_state_and_the_snapshot_round_trips(ruleset_id: str, seed: int, cut: float) -> None:
    """Folding the log gives the live state at every point, and a JSON snapshot gives it back too."""
    states: list[bs.State] = []
    game = random_game(ruleset_id, seed, check=lambda g, *_: states.append(g.state))
    assert bs.state_to_dict(bs.replay(game.log)) == bs.state_to_dict(game.state)
    middle = states[int(cut * (len(states) - 1))]
    assert bs.state_to_dict(bs.replay(game.log[: middle.version])) == bs.state_to_dict(middle)
    for state in (middle, game.state):
        snapshot = json.loads(json.dumps(bs.state_to_dict(state)))
        back = bs.state_from_dict(snapshot)
        assert bs.state_to_dict(back) == bs.state_to_dict(state)
        for role in ("player:A", "player:B", "public", "referee"):
            assert bs.view_for(back, role) == bs.view_for(state, role)
    if game.state.phase == "over":
        # A snapshot of a finished game refuses further shots just as the live state does.
        restored = bs.state_from_dict(json.loads(json.dumps(bs.state_to_dict(game.state))))
        assert bs.legal_actions(restored, "player:A") == []


def _names(grid: Grid, squares: Any) -> set[str]:
    return {grid.square_name(s) for s in squares}


def _leaks(state: bs.State, role: str) -> list[str]:
    """Return the unhit enemy ship squares that appear in the role's view (as JSON)."""
    grid = state.grid()
    view = bs.view_for(state, role)
    for action in view["actions"]:
        if action["type"] == "fire":
            # The callable squares are every square not yet shot or marked: they tell nothing.
            closed = state.players[bs.other(action["player"])].closed()
            assert set(action["squares"]) == _names(grid, (s for s in grid.squares() if s not in closed))
    view["actions"] = []
    text = json.dumps(view)
    viewer = role.partition(":")[2]
    hidden: set[str] = set()
    shown: set[str] = set()
    for p in bs.PLAYERS:
        side = state.players[p]
        shown |= _names(grid, side.shot_at) | _names(grid, side.marked)
        ships = _names(grid, (s for sh in side.ships for s in sh.squares))
        if p == viewer:
            shown |= ships
        else:
            hidden |= ships
    return sorted(n for n in hidden - shown if f'"{n}"' in text)


@given(ruleset_id=st.sampled_from(RULESET_IDS), seed=SEEDS, hit_rate=st.floats(0.0, 1.0))
@settings(max_examples=examples(12), deadline=None)
def test_no_view_shows_an_unhit_enemy_ship_square_before_the_game_is_over(
    ruleset_id: str, seed: int, hit_rate: float
) -> None:
    """Player and public views, serialised to JSON, never name an unhit enemy ship square while play goes on."""

    def check(game: Game, before: bs.State, shooter: str, called: list[str]) -> None:
        for state in (before, game.state):
            if state.phase == "over":
                continue
            for role in ("player:A", "player:B", "public"):
                assert _leaks(state, role) == [], role
                board = bs.view_for(state, role)["boards"]
                assert all("ships" not in board[p] for p in bs.PLAYERS if role != f"player:{p}")

    game = random_game(ruleset_id, seed, hit_rate=hit_rate, check=check)
    # Once over, both fleets are shown to everyone: the same search now finds them (it can fail).
    over = bs.view_for(game.state, "public")
    assert all(len(over["boards"][p]["ships"]) == len(game.state.ruleset.fleet) for p in bs.PLAYERS)


def test_the_leak_search_finds_a_fleet_shown_by_mistake() -> None:
    """The search above is not blind: a view that carried the enemy fleet is caught."""
    game = Game("sjoslag")
    rng = random.Random(4)
    game.place_random("A", rng)
    game.place_random("B", rng)
    assert _leaks(game.state, "player:A") == []
    # While placing or playing, the referee view does show B's fleet: `_leaks` sees it.
    assert _leaks(game.state, "referee") != []
