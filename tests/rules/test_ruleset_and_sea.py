"""Rulesets as data, the sea check, the sea text, and the command line that checks them."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli.rules import rules_group, sea_group
from referee.rules.errors import MalformedAction, RulesetError
from referee.rules.grid import Grid, Shape, Square
from referee.rules.ruleset import load_ruleset, ruleset_from_dict
from referee.rules.sea import Ship, check_fleet, random_sea, sea_to_text, ships_from_text

from ..airraid_helpers import RULESET_PATH, SEA_7, ruleset_data


def write(tmp_path: Path, text: str, name: str = "rules.toml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def broken(tmp_path: Path, old: str, new: str) -> str:
    return write(tmp_path, RULESET_PATH.read_text(encoding="utf-8").replace(old, new, 1))


# --- Squares and shapes ----------------------------------------------------------------------


def test_squares_are_column_letter_then_row_number() -> None:
    grid = Grid(7)
    assert grid.parse_square("B6") == Square(1, 5)
    assert grid.square_name(Square(1, 5)) == "B6"
    assert grid.parse_square(" c4 ") == Square(2, 3)
    with pytest.raises(MalformedAction, match="H1 is off the 7×7 sea"):
        grid.parse_square("H1")
    with pytest.raises(MalformedAction, match="written like B6"):
        grid.parse_square("6B")


def test_row_letter_grids_write_the_row_first() -> None:
    grid = Grid(10, "rows")
    assert grid.parse_square("B6") == Square(5, 1)
    assert grid.square_name(Square(5, 1)) == "B6"


def test_shapes_turn_and_mirror() -> None:
    carrier = Shape.from_text("XXXX/.X..")
    assert len(carrier.orientations()) == 8
    assert len(carrier.orientations(mirror=False)) == 4
    mirrored = {Square(0, 0), Square(1, 0), Square(2, 0), Square(3, 0), Square(2, 1)}
    assert carrier.matches(mirrored)
    assert not carrier.matches(mirrored, mirror=False) or carrier.matches(mirrored, mirror=False) is False
    assert Shape.from_text("XX/XX").to_text() == "XX/XX"
    assert not Shape.from_text("X./.X").is_connected()


# --- Ruleset files ---------------------------------------------------------------------------


def test_the_default_ruleset_holds_every_default_of_the_rules_file() -> None:
    rs = load_ruleset(RULESET_PATH)
    assert rs.corridors == ("upper", "middle", "lower") and rs.corridor_limit == 3
    assert [(r.min_players, r.max_players, r.size, r.fleet.count("two")) for r in rs.sea_sizes] == [
        (4, 5, 7, 1),
        (6, 7, 8, 2),
        (8, 9, 9, 3),
        (10, 10, 10, 4),
    ]
    assert {k: v.shape.to_text() for k, v in rs.sea.kinds.items()} == {
        "carrier": "XXXX/.X..",
        "cruiser": "XXXX",
        "tug": "XX/XX",
        "three": "XXX",
        "two": "XX",
    }
    assert all((k.fighters, k.bombers) == (2, 2) for k in rs.sea.kinds.values())
    assert rs.round_seconds == 300 and rs.round_limit == 0
    assert rs.tie_breaks == ("floating_squares", "trophies")
    assert not rs.sea.touching and rs.sea.mirror


@pytest.mark.parametrize(
    ("old", "new", "key", "reason"),
    [
        ('shape = "XXXX/.X.."', 'shape = "XX../..XX"', "ships.carrier.shape", "is not connected"),
        ("fighters = 2", "fighters = -1", "ships.carrier.fighters", "negative: -1"),
        ("size = 7", "size = 4", "sea_sizes[0]", "too small for its fleet"),
        ("limit = 3 ", "limit = 0 ", "corridors.limit", "too small: 0"),
        ("two = 1 }", "frigate = 1 }", "sea_sizes[0].fleet.frigate", "no ship kind 'frigate'"),
        ("seconds = 300", 'seconds = "5:00"', "rounds.seconds", "must be a whole number"),
    ],
)
def test_a_broken_ruleset_names_file_key_and_reason(tmp_path: Path, old: str, new: str, key: str, reason: str) -> None:
    path = broken(tmp_path, old, new)
    with pytest.raises(RulesetError) as info:
        load_ruleset(path)
    assert any(line.startswith(f"{path}: {key}: ") and reason in line for line in info.value.lines()), (
        info.value.lines()
    )


def test_every_problem_is_reported_not_just_the_first(tmp_path: Path) -> None:
    text = (
        RULESET_PATH.read_text(encoding="utf-8")
        .replace("fighters = 2", "fighters = -1")
        .replace("bombers = 2", "bombers = -2")
    )
    with pytest.raises(RulesetError) as info:
        load_ruleset(write(tmp_path, text))
    assert len(info.value.lines()) == 10


def test_unparseable_toml_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "[ruleset\nid=")
    with pytest.raises(RulesetError, match="not valid TOML"):
        load_ruleset(path)


def test_a_modified_copy_can_start_a_game() -> None:
    from ..airraid_helpers import new_game

    state, _ = new_game(corridors__limit=2, rounds__seconds=240)
    assert state.ruleset.corridor_limit == 2 and state.round_seconds == 240


# --- The sea check -----------------------------------------------------------------------------


def sea(text: str) -> tuple[Grid, list[Ship], list[str]]:
    rs = load_ruleset(RULESET_PATH)
    grid, ships, problems = ships_from_text(text, rs.sea, rs.sea_sizes[0].fleet)
    return grid, ships, [p.message for p in problems]


def test_a_legal_sea_passes() -> None:
    assert sea(SEA_7)[2] == []


def test_touching_at_a_corner_is_refused_naming_ships_and_squares() -> None:
    corner = "AAAA.CC\n.A...CC\n.......\nBBBB...\n....D..\nEE..D..\n....D.."
    _, _, problems = sea(corner)
    assert problems == ["cruiser touches ship-three at D4/E5"]


def test_overlap_wrong_shape_and_wrong_count_are_refused() -> None:
    rs = load_ruleset(RULESET_PATH)
    grid = Grid(7)
    ships = [
        Ship("A", "cruiser", frozenset(grid.parse_square(s) for s in ("A1", "B1", "C1", "D1"))),
        Ship("B", "two", frozenset(grid.parse_square(s) for s in ("D1", "D2"))),
        Ship("C", "three", frozenset(grid.parse_square(s) for s in ("A7", "B6", "C7"))),
    ]
    problems = [p.message for p in check_fleet(grid, rs.sea, rs.sea_sizes[0].fleet, ships)]
    assert "cruiser overlaps ship-two at D1" in problems
    assert "ship-three at B6/A7/C7 is not the shape XXX (turned or mirrored)" in problems
    assert "aircraft carrier: the fleet has 1, this sea has 0" in problems


def test_a_ship_off_the_sea_is_refused() -> None:
    rs = load_ruleset(RULESET_PATH)
    grid = Grid(7)
    ship = Ship("E", "two", frozenset({Square(6, 6), Square(7, 6)}))
    problems = [p.message for p in check_fleet(grid, rs.sea, ["two"], [ship])]
    assert problems == ["ship-two lies off the sea at H7"]


def test_seeded_random_placement_is_legal_and_repeatable() -> None:
    rs = load_ruleset(RULESET_PATH)
    grid = Grid(7)
    fleet = rs.sea_sizes[0].fleet
    first = random_sea(grid, rs.sea, fleet, random.Random(7))
    assert check_fleet(grid, rs.sea, fleet, first) == []
    assert sea_to_text(grid, first) == sea_to_text(grid, random_sea(grid, rs.sea, fleet, random.Random(7)))


# --- The command line ------------------------------------------------------------------------


def test_rules_check_ok_prints_one_line() -> None:
    result = CliRunner().invoke(rules_group, ["check", str(RULESET_PATH)])
    assert result.exit_code == 0
    assert result.output.count("\n") == 1 and "ok" in result.output


def test_rules_check_broken_prints_file_key_reason(tmp_path: Path) -> None:
    path = broken(tmp_path, 'shape = "XXX"', 'shape = "X.X"')
    result = CliRunner().invoke(rules_group, ["check", path])
    assert result.exit_code == 1
    assert (
        result.output.strip()
        == f"{path}: ships.three.shape: X.X is not connected: every square must share a side with another"
    )


def test_sea_place_prints_a_legal_sea_the_same_for_the_same_seed(tmp_path: Path) -> None:
    runner = CliRunner()
    first = runner.invoke(sea_group, ["place", str(RULESET_PATH), "--players", "8", "--seed", "3"])
    again = runner.invoke(sea_group, ["place", str(RULESET_PATH), "--players", "8", "--seed", "3"])
    assert first.exit_code == 0 and first.output == again.output
    rows = first.output.split()
    assert len(rows) == 9 and all(len(r) == 9 for r in rows)
    sea_file = write(tmp_path, first.output, "sea.txt")
    checked = runner.invoke(sea_group, ["check", str(RULESET_PATH), sea_file, "--size", "9"])
    assert (checked.exit_code, checked.output) == (0, "ok\n")


def test_sea_place_answers_impossible_for_a_fleet_that_cannot_fit() -> None:
    result = CliRunner().invoke(sea_group, ["place", str(RULESET_PATH), "--size", "4"])
    assert result.exit_code == 1 and result.output.startswith("impossible: ")


def test_sea_check_lists_every_reason(tmp_path: Path) -> None:
    text = SEA_7.replace("AAAA.CC", "AAAACC.").replace(".A...CC", ".A..CC.").replace("EE....D", "E.....D")
    result = CliRunner().invoke(sea_group, ["check", str(RULESET_PATH), write(tmp_path, text, "sea.txt")])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert "aircraft carrier touches tug at D1/E1, D1/E2" in lines
    assert any("ship E" in line and "no shape of this fleet" in line for line in lines)


def test_ruleset_data_can_be_checked_without_a_file() -> None:
    data = ruleset_data()
    assert ruleset_from_dict(data).id == "airraid"
