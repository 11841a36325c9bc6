"""The Battleship computer opponent: legal shots, uses what it is told, uniform placement, repeatable."""

from __future__ import annotations

import random
import statistics
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest

from referee.rules import battleship
from referee.rules.battleship.ai import LEVELS, choose_shots, place_fleet
from referee.rules.grid import Grid, Shape, Square
from referee.rules.ruleset import load_ruleset
from referee.rules.sea import SeaRules, Ship, ShipKind, check_fleet, random_sea
from referee.rules.shots import Shot, Volley
from tests.rules.test_placement import all_fleets, chi_square_p

RULESETS = Path(__file__).resolve().parents[2] / "config" / "rulesets"


def ruleset(name: str) -> battleship.BattleshipRuleset:
    loaded = load_ruleset(RULESETS / f"{name}.toml")
    assert isinstance(loaded, battleship.BattleshipRuleset)
    return loaded


def ship(grid: Grid, ship_id: str, kind: str, names: str) -> Ship:
    return Ship(ship_id, kind, frozenset(grid.parse_square(n) for n in names.split()))


def fire(rules: battleship.BattleshipRuleset, fleet: Sequence[Ship], volleys: list[Volley], names: str) -> Volley:
    """Fire one volley at a fleet through the rules core's referee and keep what the shooter is told."""
    grid = rules.grid()
    struck = frozenset(s for v in volleys for s in v.squares())
    volley = battleship.answer(rules, fleet, struck, [grid.parse_square(n) for n in names.split()])
    volleys.append(volley)
    return volley


def known_water(rules: battleship.BattleshipRuleset, volleys: Sequence[Volley]) -> set[Square]:
    """Squares a careful player knows are empty: misses, marked rings and, untouching, hit diagonals."""
    water = {s.square for v in volleys for s in v.shots if s.result == "miss"}
    water |= {s for v in volleys for s in v.ring}
    water |= {s.square for v in volleys if v.hits == 0 for s in v.shots}
    if not rules.sea.touching:
        for v in volleys:
            for s in v.shots:
                if s.result in ("hit", "sunk"):
                    sq = s.square
                    water |= {Square(sq.col + dc, sq.row + dr) for dc in (-1, 1) for dr in (-1, 1)}
    return water


def play(rules: battleship.BattleshipRuleset, seed: int, level: str, check: bool = True) -> int:
    """Play a whole seeded game against a random fleet, checking every volley; return its shots."""
    grid = rules.grid()
    fleet = random_sea(grid, rules.sea, rules.fleet, random.Random(seed))
    rng = random.Random(seed + 100)
    volleys: list[Volley] = []
    squares_left = {s for f in fleet for s in f.squares}
    shots = 0
    count = 1 if rules.shots_per_turn == "one" else len(rules.fleet)
    while squares_left:
        squares = choose_shots(grid, rules.sea, rules.fleet, volleys, count, rng, level)
        if check:
            shot = {s for v in volleys for s in v.squares()}
            assert len(squares) == count
            assert len(set(squares)) == count
            assert all(grid.contains(s) for s in squares)
            assert not set(squares) & shot, "fired at a square already shot"
            if level == "strong":
                assert not set(squares) & known_water(rules, volleys), "fired at known water"
            else:
                marked = {s.square for v in volleys for s in v.shots if s.result == "miss"} | {
                    s for v in volleys for s in v.ring
                }
                assert not set(squares) & marked, "fired at a square marked as water"
        volley = battleship.answer(rules, fleet, frozenset(s for v in volleys for s in v.squares()), squares)
        volleys.append(volley)
        squares_left -= set(squares)
        shots += len(squares)
        assert shots <= grid.size * grid.size
    return shots


# --- Legal shots -----------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", ["zeeslag", "zeeslag-salvo", "sjoslag"])
@pytest.mark.parametrize("level", LEVELS)
def test_whole_games_fire_only_at_squares_not_shot_and_not_known_water(name: str, level: str) -> None:
    rules = ruleset(name)
    for seed in range(2):
        shots = play(rules, seed, level)
        assert shots >= len([s for k in rules.fleet for s in rules.sea.kinds[k].shape.cells])


def test_per_shot_house_rule_for_salvo_is_played_too() -> None:
    rules = ruleset("zeeslag-salvo").with_per_shot(True)
    assert rules.report == "named"
    play(rules, 3, "strong")


def test_a_salvo_asks_for_exactly_count_distinct_squares_even_late() -> None:
    rules = ruleset("zeeslag-salvo")
    grid = rules.grid()
    fleet = random_sea(grid, rules.sea, rules.fleet, random.Random(5))
    volleys: list[Volley] = []
    rng = random.Random(5)
    for count in (5, 4, 3, 2, 1, 7):
        squares = choose_shots(grid, rules.sea, rules.fleet, volleys, count, rng)
        assert len(squares) == len(set(squares)) == count
        fire(rules, fleet, volleys, " ".join(grid.square_name(s) for s in squares))


def test_an_unknown_level_is_refused() -> None:
    rules = ruleset("zeeslag")
    with pytest.raises(ValueError, match="level"):
        choose_shots(rules.grid(), rules.sea, rules.fleet, [], 1, random.Random(0), "hard")


# --- Uses what it is told --------------------------------------------------------------------


def sjoslag_fleet(grid: Grid) -> list[Ship]:
    return [
        ship(grid, "A", "battleship", "A1 B1 C1 D1"),
        ship(grid, "B", "cruiser", "F1 G1 H1"),
        ship(grid, "C", "cruiser", "A10 B10 C10"),
        ship(grid, "D", "destroyer", "C4 C5"),
        ship(grid, "E", "destroyer", "J3 J4"),
        ship(grid, "F", "destroyer", "E10 F10"),
        ship(grid, "G", "torpedo_boat", "H10"),
        ship(grid, "H", "torpedo_boat", "J8"),
        ship(grid, "I", "torpedo_boat", "F6"),
        ship(grid, "J", "torpedo_boat", "H6"),
    ]


def test_sjoslag_fleet_of_the_tests_is_legal() -> None:
    rules = ruleset("sjoslag")
    assert check_fleet(rules.grid(), rules.sea, rules.fleet, sjoslag_fleet(rules.grid())) == []


@pytest.mark.parametrize("level", LEVELS)
def test_after_a_sjoslag_sinking_no_shot_lands_in_the_ring(level: str) -> None:
    rules = ruleset("sjoslag")
    grid = rules.grid()
    volleys: list[Volley] = []
    fleet = sjoslag_fleet(grid)
    fire(rules, fleet, volleys, "C4")
    sunk = fire(rules, fleet, volleys, "C5")
    assert sunk.sunk == ("destroyer",)
    ring = set(sunk.ring)
    assert grid.parse_square("B3") in ring and grid.parse_square("D6") in ring
    for seed in range(30):
        (square,) = choose_shots(grid, rules.sea, rules.fleet, volleys, 1, random.Random(seed), level)
        assert square not in ring


def test_after_a_sjoslag_hit_the_strong_level_fires_beside_it_never_on_its_diagonals() -> None:
    rules = ruleset("sjoslag")
    grid = rules.grid()
    volleys: list[Volley] = []
    fleet = sjoslag_fleet(grid)
    assert fire(rules, fleet, volleys, "G1").shots[0].result == "hit"
    beside = {grid.parse_square(n) for n in ("F1", "H1", "G2")}
    for seed in range(20):
        (square,) = choose_shots(grid, rules.sea, rules.fleet, volleys, 1, random.Random(seed))
        assert square in beside


def test_a_named_destroyer_with_one_side_left_is_finished() -> None:
    rules = ruleset("zeeslag")
    grid = rules.grid()
    fleet = [
        ship(grid, "A", "carrier", "A1 A2 A3 A4 A5"),
        ship(grid, "B", "battleship", "C1 C2 C3 C4"),
        ship(grid, "C", "cruiser", "E4 F4 G4"),
        ship(grid, "D", "submarine", "J8 J9 J10"),
        ship(grid, "E", "destroyer", "E6 E7"),
    ]
    assert check_fleet(grid, rules.sea, rules.fleet, fleet) == []
    volleys: list[Volley] = []
    told = fire(rules, fleet, volleys, "E6")
    assert told.shots[0] == Shot(grid.parse_square("E6"), "hit", "destroyer")
    # The cruiser is hit right beside it: a named hit says it is not the destroyer's square.
    fire(rules, fleet, volleys, "E5")
    fire(rules, fleet, volleys, "D6")
    fire(rules, fleet, volleys, "F6")
    assert fire(rules, fleet, volleys, "F4").shots[0].ship == "cruiser"
    for seed in range(10):
        (square,) = choose_shots(grid, rules.sea, rules.fleet, volleys, 1, random.Random(seed))
        assert grid.square_name(square) == "E7"


def test_salvo_totals_rule_out_the_square_whose_neighbours_are_water() -> None:
    # A 5×5 sea with one destroyer. The first volley hit it once, at A1 or C3; the second
    # found water all around A1, so the destroyer lies through C3.
    kinds = {"destroyer": ShipKind("destroyer", "destroyer", Shape.from_text("XX"))}
    rules = SeaRules(kinds, touching=True, straight=True)
    grid = rules.grid(5)
    first = Volley((Shot(grid.parse_square("A1")), Shot(grid.parse_square("C3"))), 1, ("destroyer",))
    second = Volley((Shot(grid.parse_square("A2")), Shot(grid.parse_square("B1"))), 0)
    beside_c3 = {grid.parse_square(n) for n in ("B3", "D3", "C2", "C4")}
    for seed in range(10):
        squares = choose_shots(grid, rules, ["destroyer"], [first, second], 2, random.Random(seed))
        assert set(squares) <= beside_c3


def test_salvo_totals_know_which_ships_were_not_hit() -> None:
    # One volley hit only the destroyer, at C1 or C5, so the carrier is on neither; another
    # found row 3 empty but for C3. The carrier fits only in row 2 or row 4 (each half the
    # fleets), so C2 and C4 (carrier or destroyer) are likeliest, then the rest of rows 2 and 4.
    kinds = {
        "destroyer": ShipKind("destroyer", "destroyer", Shape.from_text("XX")),
        "carrier": ShipKind("carrier", "carrier", Shape.from_text("XXXXX")),
    }
    rules = SeaRules(kinds, touching=True, straight=True)
    grid = rules.grid(5)
    volleys = [
        Volley((Shot(grid.parse_square("C1")), Shot(grid.parse_square("C5"))), 1, ("destroyer",)),
        Volley(tuple(Shot(grid.parse_square(n)) for n in ("A3", "B3", "D3", "E3")), 0),
    ]
    for seed in range(5):
        squares = choose_shots(grid, rules, ["destroyer", "carrier"], volleys, 3, random.Random(seed))
        names = {grid.square_name(s) for s in squares}
        assert {"C2", "C4"} <= names
        assert all(s.row in (1, 3) for s in squares)


# --- Placement ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["zeeslag", "sjoslag"])
def test_placement_is_legal(name: str) -> None:
    rules = ruleset(name)
    for seed in range(20):
        ships = place_fleet(rules.grid(), rules.sea, rules.fleet, random.Random(seed))
        assert check_fleet(rules.grid(), rules.sea, rules.fleet, ships) == []


@pytest.mark.slow
def test_placement_is_uniform_over_legal_fleets() -> None:
    kinds = {
        "destroyer": ShipKind("destroyer", "destroyer", Shape.from_text("XX")),
        "boat": ShipKind("boat", "torpedo boat", Shape.from_text("X")),
    }
    rules = SeaRules(kinds, touching=False, straight=True)
    grid = rules.grid(4)
    fleet = ["destroyer", "destroyer", "boat"]
    fleets = all_fleets(grid, [kinds[k].shape for k in fleet], touching=False)
    index = {f: n for n, f in enumerate(fleets)}
    rng = random.Random(2026)
    seen: Counter[object] = Counter()
    draws = 12_000
    for _ in range(draws):
        ships = place_fleet(grid, rules, fleet, rng)
        seen[index[tuple(s.squares for s in ships)]] += 1
    assert len(fleets) == 600
    assert chi_square_p(seen, len(fleets), draws) > 1e-4
    # The check can fail: a placer that never turns a destroyer misses most fleets.
    assert len(seen) == len(fleets)


# --- Repeatable, and strong is stronger ------------------------------------------------------


@pytest.mark.parametrize("name", ["zeeslag", "zeeslag-salvo", "sjoslag"])
@pytest.mark.parametrize("level", LEVELS)
def test_the_same_seed_fires_the_same_shots(name: str, level: str) -> None:
    rules = ruleset(name)
    grid = rules.grid()
    fleet = random_sea(grid, rules.sea, rules.fleet, random.Random(9))
    count = 1 if rules.shots_per_turn == "one" else len(rules.fleet)

    def game() -> list[list[Square]]:
        rng = random.Random(42)
        volleys: list[Volley] = []
        fired = []
        for _ in range(8):
            squares = choose_shots(grid, rules.sea, rules.fleet, volleys, count, rng, level)
            fired.append(squares)
            fire(rules, fleet, volleys, " ".join(grid.square_name(s) for s in squares))
        return fired

    first = game()
    assert first == game()
    assert len({s for v in first for s in v}) == 8 * count


@pytest.mark.slow
def test_strong_sinks_the_classic_fleet_in_fewer_shots_than_easy() -> None:
    rules = ruleset("zeeslag")
    strong = [play(rules, seed, "strong", check=False) for seed in range(30)]
    easy = [play(rules, seed, "easy", check=False) for seed in range(30)]
    # Measured: strong about 44 shots on average, plain hunt/target about 66.
    assert statistics.fmean(strong) + 10 < statistics.fmean(easy)
