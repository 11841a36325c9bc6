"""Finding 7 of the security review: a referee's ruleset must not exhaust the server.

Every number of a ruleset has a bound a real game needs (config/ruleset_limits.toml), checked
before any work that grows with it; the fleet-fit search has a work budget and answers "could
not decide in time" when it is spent; deep nesting is refused before tomllib recurses. The
searches here run with a small budget (monkeypatched), so a regression that ignores it hangs
visibly, while every test asserts on the answer, not on the time.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from flask import Flask

from referee.cli.rules import rules_group, sea_group
from referee.rules import placement
from referee.rules.errors import RulesetError
from referee.rules.grid import Grid, Shape
from referee.rules.placement import UNDECIDED, UNPLACED, Budget, Undecided, fleet_fits, random_fleet
from referee.rules.ruleset import BOUNDS as READER_BOUNDS
from referee.rules.ruleset import FILE_LIMITS, limits, load_ruleset, parse_toml, ruleset_from_dict, toml_nesting

from ..airraid_helpers import PLAYERS, RULESET_PATH, ruleset_data
from ..battleship_helpers import RULESETS_DIR, ruleset_path, ruleset_raw
from .test_games_web import referee_client

AIRRAID_TEXT = RULESET_PATH.read_text(encoding="utf-8")
ZEESLAG_TEXT = ruleset_path("zeeslag").read_text(encoding="utf-8")
TEAMS = [{"name": "Eagles", "players": PLAYERS["A"]}, {"name": "Sharks", "players": PLAYERS["B"]}]
# A tenth of the real budget: a search that ignores it runs for minutes, one that keeps it ends in
# a fraction of a second.
SMALL_BUDGET = 50_000


@pytest.fixture(autouse=True)
def small_budget(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(placement, "SEARCH_BUDGET", SMALL_BUDGET)
    placement._clear_caches()
    yield
    placement._clear_caches()


def problems(data: dict[str, Any]) -> list[str]:
    """Return the ruleset's problem lines, or [] if it is accepted."""
    try:
        ruleset_from_dict(data, "rules.toml")
    except RulesetError as exc:
        return exc.lines()
    return []


def text_problems(text: str) -> list[str]:
    """Return the problem lines of a ruleset's TOML text, or [] if it is accepted."""
    try:
        ruleset_from_dict(parse_toml(text, "rules.toml"), "rules.toml")
    except RulesetError as exc:
        return exc.lines()
    return []


def post_ruleset(app: Flask, text: str) -> Any:
    """Create a game through the API with an uploaded ruleset; return the response."""
    return referee_client(app).post("/api/games", json={"teams": TEAMS, "ruleset_toml": text})


def zeeslag(**tables: Any) -> dict[str, Any]:
    data = copy.deepcopy(ruleset_raw("zeeslag"))
    data.update(tables)
    return data


def zeeslag_text(sea: str, ships: str, fleet: str) -> str:
    """Return a Battleship ruleset text with its own sea, ship kinds and fleet tables."""
    head = ZEESLAG_TEXT.split("[sea]", 1)[0]
    play = "[play]" + ZEESLAG_TEXT.split("[play]", 1)[1]
    return f"{head}[sea]\n{sea}\n\n{ships}\n\n[fleet]\n{fleet}\n\n{play}"


# --- The three reported attacks ------------------------------------------------------------


HUGE_LIMIT = AIRRAID_TEXT.replace("limit = 3 ", "limit = 10000000 ", 1)
MILLION_TWOS = AIRRAID_TEXT.replace("two = 1 }", "two = 1000000 }", 1)
# 168 T-shaped ships on 26×26, about 2 KB: seven kinds of 24 ships each, in an air-raid sea.
T_FLEET = (
    AIRRAID_TEXT.split("# Sea size and fleet", 1)[0]
    + "".join(f'[ships.t{i}]\nname = "t{i}"\nshape = "XXX/.X."\n\n' for i in range(7))
    + "[[sea_sizes]]\nplayers = [4, 10]\nsize = 26\nfleet = { "
    + ", ".join(f"t{i} = 24" for i in range(7))
    + " }\n\n[teams]"
    + AIRRAID_TEXT.split("[teams]", 1)[1]
)
# Within every bound, and still hard: 26 T-pentominoes on 12×12.
HARD_FLEET = zeeslag_text(
    'size = 12\nletters = "rows"\ntouching = true\nstraight = false\nmirror = true',
    '[ships.t]\nname = "t"\nshape = "XXX/.X./.X."',
    "t = 26",
)


def test_a_corridor_limit_of_ten_million_is_refused_by_the_reader() -> None:
    assert text_problems(HUGE_LIMIT) == ["rules.toml: corridors.limit: too large: 10000000 (at most 20)"]


def test_a_million_ship_twos_are_refused_by_the_reader() -> None:
    assert text_problems(MILLION_TWOS) == ["rules.toml: sea_sizes[0].fleet.two: too large: 1000000 (at most 26)"]


def test_168_t_shaped_ships_are_refused_by_the_reader() -> None:
    assert len(T_FLEET.encode()) < 3000
    assert text_problems(T_FLEET) == ["rules.toml: sea_sizes[0].fleet: too many ships: 168 (at most 26)"]


def test_a_fleet_too_hard_to_decide_is_refused_with_could_not_decide() -> None:
    assert text_problems(HARD_FLEET) == [
        "rules.toml: fleet: the 12×12 sea and the fleet: could not decide in time whether this fleet fits; "
        "make the sea larger or the fleet smaller"
    ]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (HUGE_LIMIT, "corridors.limit: too large: 10000000 (at most 20)"),
        (MILLION_TWOS, "sea_sizes[0].fleet.two: too large: 1000000 (at most 26)"),
        (T_FLEET, "sea_sizes[0].fleet: too many ships: 168 (at most 26)"),
        (HARD_FLEET, "could not decide in time whether this fleet fits"),
    ],
    ids=["corridor-limit", "million-twos", "168-t-ships", "hard-fleet"],
)
def test_the_attacks_are_refused_by_the_new_game_route(app: Flask, text: str, words: str) -> None:
    response = post_ruleset(app, text)
    assert response.status_code == 400
    body = response.get_json()
    assert body["error"] == "malformed" and words in body["message"]


def test_an_air_raid_row_too_hard_to_decide_is_refused_and_the_others_share_its_budget() -> None:
    data = ruleset_data()
    data["ships"]["s"] = {"name": "s", "shape": "XX./.XX"}
    hard = {"players": [11, 12], "size": 16, "fleet": {"s": 26}}
    data["teams"]["max_players"] = 14
    data["sea_sizes"] = [*data["sea_sizes"], hard, {**hard, "players": [13, 14]}]
    lines = problems(data)
    assert lines == [
        f"rules.toml: sea_sizes[{i}]: the 16×16 sea and its fleet: could not decide in time whether this fleet fits; "
        "make the sea larger or the fleet smaller"
        for i in (4, 5)
    ]


# --- The work budget of the fleet-fit search -------------------------------------------------


S_FOUR = Shape.from_text("XX./.XX")


def test_the_search_stops_when_its_budget_is_spent_and_answers_the_same_again() -> None:
    budget = Budget(20_000)
    assert fleet_fits(Grid(16), [S_FOUR] * 26, touching=False, budget=budget) == UNDECIDED
    assert -100 < budget.left < 0  # it stopped at the first step past its budget
    # Nothing of the failed search is kept to help the next try: same question, same answer.
    assert fleet_fits(Grid(16), [S_FOUR] * 26, touching=False, budget=Budget(20_000)) == UNDECIDED
    assert fleet_fits(Grid(16), [S_FOUR] * 26, touching=False) == UNDECIDED


def test_a_decided_answer_costs_nothing_the_second_time() -> None:
    shapes = [Shape.from_text("XXXX/.X..")] * 9
    assert fleet_fits(Grid(10), shapes, touching=False, budget=Budget(SMALL_BUDGET)) is not None
    again = Budget(0)
    assert fleet_fits(Grid(10), shapes, touching=False, budget=again) is not None and not again.spent


def test_the_hardest_benchmark_refusal_fits_the_real_budget() -> None:
    # 24 carriers on 11×11, the slowest refusal of bench/placement.py: decided within the real
    # SEARCH_BUDGET (500,000), not "undecided".
    budget = Budget(10**9)
    reason = fleet_fits(Grid(11), [Shape.from_text("XXXX/.X..")] * 24, touching=True, budget=budget)
    assert reason is not None and "no arrangement" in reason
    assert 10**9 - budget.left < 500_000


def test_random_placement_is_refused_when_the_budget_runs_out() -> None:
    with pytest.raises(Undecided) as refused:
        random_fleet(Grid(16), [S_FOUR] * 26, touching=False, rng=random.Random(1))
    assert refused.value.message == UNDECIDED and refused.value.code == "undecided"


def test_the_last_resort_search_of_placement_is_bounded_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(placement, "_PILOT_DRAWS", 0)
    monkeypatch.setattr(placement, "_TABLE_LIMIT", 0)
    placement._clear_caches()
    shapes = [Shape.from_text(t) for t in ("XXXX/.X..", "XXXX", "XX/XX", "XXX", "XX")]
    grid = Grid(7)
    assert placement._Fleet(grid, shapes, False, True, ()).plan().method == "search"
    with pytest.raises(Undecided) as refused:
        random_fleet(grid, shapes, touching=False, rng=random.Random(1), budget=Budget(1))
    assert refused.value.message == UNPLACED
    assert random_fleet(grid, shapes, touching=False, rng=random.Random(1))  # the same sea, with a budget


def test_sea_place_answers_undecided(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "rules.toml"
    path.write_text(ZEESLAG_TEXT, encoding="utf-8")
    monkeypatch.setattr(placement, "_PILOT_DRAWS", 0)
    monkeypatch.setattr(placement, "_TABLE_LIMIT", 0)
    real = placement.random_fleet

    def starved(*args: Any, **kwargs: Any) -> list[Any]:
        return real(*args, **{**kwargs, "budget": Budget(0)})

    monkeypatch.setattr("referee.rules.sea.random_fleet", starved)
    result = CliRunner().invoke(sea_group, ["place", str(path), "--seed", "1"])
    assert (result.exit_code, result.output) == (1, f"undecided: {UNDECIDED}\n")


# --- Every bound: accepted at the bound, refused one past it -------------------------------------


def airraid(edit: Callable[[dict[str, Any], int], None]) -> Callable[[int], dict[str, Any]]:
    def make(n: int) -> dict[str, Any]:
        data = ruleset_data()
        edit(data, n)
        return data

    return make


def battleship(edit: Callable[[dict[str, Any], int], None]) -> Callable[[int], dict[str, Any]]:
    def make(n: int) -> dict[str, Any]:
        data = zeeslag()
        edit(data, n)
        return data

    return make


def _teams(data: dict[str, Any], low: int, high: int) -> None:
    data["teams"] = {"min_players": low, "max_players": high}


def _rows(data: dict[str, Any], n: int) -> None:
    ten = data["sea_sizes"][-1]
    data["sea_sizes"] = [{**ten, "players": [i + 1, i + 1]} for i in range(n)]


def _players(data: dict[str, Any], low: int, high: int) -> None:
    data["sea_sizes"] = [{**data["sea_sizes"][-1], "players": [low, high]}]


def _row_size(data: dict[str, Any], n: int) -> None:
    data["sea_sizes"] = [{"players": [4, 10], "size": n, "fleet": {"two": 1}}]


def _kinds(data: dict[str, Any], n: int) -> None:
    data["ships"] = {f"k{i}": {"name": f"k{i}", "shape": "X"} for i in range(n)}
    data["fleet"] = {"k0": 1}


def _planes(which: str) -> Callable[[dict[str, Any], int], None]:
    def edit(data: dict[str, Any], n: int) -> None:
        for kind in data["ships"].values():
            kind[which] = n

    return edit


def _corridors(data: dict[str, Any], n: int) -> None:
    names = [f"c{i}" for i in range(n)]
    data["corridors"] = {**data["corridors"], "names": names, "names_cs": names}


def _table(table: str, key: str) -> Callable[[dict[str, Any], int], None]:
    def edit(data: dict[str, Any], n: int) -> None:
        data[table] = {**data[table], key: n}

    return edit


def _fleet_total(data: dict[str, Any], n: int) -> None:
    data["fleet"] = {"carrier": 1, "battleship": 1, "cruiser": 1, "submarine": 1, "destroyer": n - 4}


def vestorsjo(edit: Callable[[dict[str, Any], int], None]) -> Callable[[int], dict[str, Any]]:
    def make(n: int) -> dict[str, Any]:
        data = copy.deepcopy(ruleset_raw("vestorsjo"))
        edit(data, n)
        return data

    return make


def _play(key: str) -> Callable[[dict[str, Any], int], None]:
    def edit(data: dict[str, Any], n: int) -> None:
        data["play"] = {**data["play"], key: n}

    return edit


def _corvette_defence(data: dict[str, Any], n: int) -> None:
    # A class's steps and gunnery tables come one per hit short of its defence.
    data["classes"]["corvette"].update(defence=n, steps=[1] * n)
    data["gunnery"]["corvette"] = {str(h): ["- - 1 1 2 2"] for h in range(n)}


def _corvette_count(data: dict[str, Any], n: int) -> None:
    data["classes"]["corvette"]["count"] = n


def _ranges(data: dict[str, Any], n: int) -> None:
    data["gunnery"]["corvette"]["0"] = ["- - - - - 1"] * n


# (bound, which end, ruleset for a value, key of the problem line)
BOUNDS: list[tuple[str, str, Callable[[int], dict[str, Any]], str]] = [
    ("teams.min_players", "high", airraid(lambda d, n: _teams(d, n, n)), "teams.min_players"),
    ("teams.min_players", "low", airraid(lambda d, n: _teams(d, n, 10)), "teams.min_players"),
    ("teams.max_players", "high", airraid(lambda d, n: _teams(d, 4, n)), "teams.max_players"),
    (
        "teams.max_players",
        "low",
        airraid(lambda d, n: _teams(d, 2, max(n, 2)) if n >= 2 else _teams(d, 1, n)),
        "teams.max_players",
    ),
    ("sea_sizes", "high", airraid(_rows), "sea_sizes"),
    ("sea_sizes[].players", "high", airraid(lambda d, n: _players(d, 4, n)), "sea_sizes[0].players"),
    ("sea_sizes[].players", "low", airraid(lambda d, n: _players(d, n, 10)), "sea_sizes[0].players"),
    ("sea_sizes[].size", "high", airraid(_row_size), "sea_sizes[0].size"),
    ("sea_sizes[].size", "low", airraid(_row_size), "sea_sizes[0].size"),
    (
        "sea.size",
        "high",
        battleship(lambda d, n: d.update(sea={**d["sea"], "size": n}, fleet={"destroyer": 1})),
        "sea.size",
    ),
    (
        "sea.size",
        "low",
        battleship(lambda d, n: d.update(sea={**d["sea"], "size": n}, fleet={"destroyer": 1})),
        "sea.size",
    ),
    ("ships", "high", battleship(_kinds), "ships"),
    (
        "ships.*.shape",
        "high",
        battleship(lambda d, n: d["ships"]["carrier"].update(shape="X" * n)),
        "ships.carrier.shape",
    ),
    ("ships.*.fighters", "high", airraid(_planes("fighters")), "ships.carrier.fighters"),
    ("ships.*.fighters", "low", airraid(_planes("fighters")), "ships.carrier.fighters"),
    ("ships.*.bombers", "high", airraid(_planes("bombers")), "ships.carrier.bombers"),
    ("ships.*.bombers", "low", airraid(_planes("bombers")), "ships.carrier.bombers"),
    ("fleet.*", "high", battleship(lambda d, n: d.update(fleet={"destroyer": n})), "fleet.destroyer"),
    ("fleet.*", "low", battleship(lambda d, n: d.update(fleet={"destroyer": n, "carrier": 1})), "fleet.destroyer"),
    ("fleet", "high", battleship(_fleet_total), "fleet"),
    ("corridors.names", "high", airraid(_corridors), "corridors.names"),
    ("corridors.limit", "high", airraid(_table("corridors", "limit")), "corridors.limit"),
    ("corridors.limit", "low", airraid(_table("corridors", "limit")), "corridors.limit"),
    ("rounds.seconds", "high", airraid(_table("rounds", "seconds")), "rounds.seconds"),
    ("rounds.seconds", "low", airraid(_table("rounds", "seconds")), "rounds.seconds"),
    ("rounds.limit", "high", airraid(_table("rounds", "limit")), "rounds.limit"),
    ("rounds.limit", "low", airraid(_table("rounds", "limit")), "rounds.limit"),
    *(
        (f"play.{key}", end, vestorsjo(_play(key)), f"play.{key}")
        for key in ("actions_per_turn", "rounds_to_hold", "ports_needed")
        for end in ("high", "low")
    ),
    ("classes.*.defence", "high", vestorsjo(_corvette_defence), "classes.corvette.defence"),
    ("classes.*.defence", "low", vestorsjo(_corvette_defence), "classes.corvette.defence"),
    ("classes.*.count", "high", vestorsjo(_corvette_count), "classes.corvette.count"),
    ("classes.*.count", "low", vestorsjo(_corvette_count), "classes.corvette.count"),
    ("gunnery.*.*", "high", vestorsjo(_ranges), "gunnery.corvette.0"),
    ("gunnery.*.*", "low", vestorsjo(_ranges), "gunnery.corvette.0"),
]


def test_every_bound_of_the_limits_file_is_tested() -> None:
    assert {bound for bound, _, _, _ in BOUNDS} == set(limits().bounds)


@pytest.mark.parametrize(("bound", "end", "make", "key"), BOUNDS, ids=[f"{b}-{e}" for b, e, _, _ in BOUNDS])
def test_a_number_at_its_bound_is_accepted_and_one_past_it_refused(
    bound: str, end: str, make: Callable[[int], dict[str, Any]], key: str
) -> None:
    low, high = limits().bounds[bound]
    at, past = (high, high + 1) if end == "high" else (low, low - 1)
    assert problems(make(at)) == []
    lines = problems(make(past))
    named = f"(at most {high})" if end == "high" else f"(at least {low})"
    assert any(line.startswith(f"rules.toml: {key}: ") and named in line for line in lines), lines


def _characters(n: int) -> str:
    return AIRRAID_TEXT + "#" * (n - len(AIRRAID_TEXT))


def _brackets(n: int) -> str:
    return f"extra = {'[' * n}1{']' * n}\n" + AIRRAID_TEXT


def _inline_tables(n: int) -> str:
    return "extra = " + "{ a = " * n + "1" + " }" * n + "\n" + AIRRAID_TEXT


def _dotted(n: int) -> str:
    return "extra" + ".a" * n + " = 1\n" + AIRRAID_TEXT  # n tables: extra, then n - 1 times a


def _name(n: int) -> str:
    return AIRRAID_TEXT.replace('name = "Air raid"', f'name = "{"n" * n}"', 1)


def _languages(n: int) -> str:
    names = ", ".join(f'l{i} = "x"' for i in range(n))
    return AIRRAID_TEXT.replace('names = { cs = "Letecký útok", en = "Air raid" }', f"names = {{ {names} }}", 1)


FILE_BOUNDS: list[tuple[str, Callable[[int], str], str]] = [
    ("characters", _characters, "too large"),
    ("nesting", _brackets, "nested too deeply"),
    ("nesting", _inline_tables, "nested too deeply"),
    ("nesting", _dotted, "nested too deeply"),
    ("text", _name, "ruleset.name: too long: 61 characters (at most 60)"),
    ("languages", _languages, "ruleset.names: too many languages: 13 (at most 12)"),
]


@pytest.mark.parametrize(("bound", "make", "words"), FILE_BOUNDS, ids=[f"{b}-{m.__name__}" for b, m, _ in FILE_BOUNDS])
def test_a_file_at_its_bound_is_accepted_and_one_past_it_refused(
    bound: str, make: Callable[[int], str], words: str
) -> None:
    high = limits().most(bound)
    assert text_problems(make(high)) == []
    lines = text_problems(make(high + 1))
    assert len(lines) == 1 and words in lines[0], lines


def test_every_text_bound_is_tested() -> None:
    assert {bound for bound, _, _ in FILE_BOUNDS} == set(limits().file)


# --- Nesting, huge numbers and odd files -------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "a = " + "[" * 50_000 + "]" * 50_000,
        "a = " + "[" * 1_000 + "]" * 1_000,
        "a = " + "{ b = " * 5_000 + "1" + " }" * 5_000,
        "a" + ".a" * 20_000 + " = 1",
        "[" + "a." * 20_000 + "a]",
    ],
    ids=["arrays-50000", "arrays-1000", "inline-tables-5000", "dotted-keys-20000", "dotted-header-20000"],
)
def test_deeply_nested_toml_is_a_400_with_a_json_error(app: Flask, text: str) -> None:
    response = post_ruleset(app, text)
    assert response.status_code == 400
    body = response.get_json()
    assert body["error"] == "malformed" and "uploaded ruleset: -: " in body["message"]
    assert "nested too deeply" in body["message"] or "too large" in body["message"]


def test_deeply_nested_toml_is_refused_by_rules_check(tmp_path: Path) -> None:
    path = tmp_path / "deep.toml"
    path.write_text("a = " + "[" * 1_000 + "]" * 1_000, encoding="utf-8")
    result = CliRunner().invoke(rules_group, ["check", str(path)])
    assert result.exit_code == 1
    assert (
        result.output
        == f"{path}: -: nested too deeply: arrays, tables and dotted keys inside one another (at most 8 deep)\n"
    )


def test_brackets_and_dots_in_strings_values_and_comments_do_not_count_as_nesting() -> None:
    text = (
        "a = \"[[[[[[[[[[\" # {{{{{{{{{{{{\nb = '''\n[[[[[[[[[[\n'''\nc = \"\\\"[[[[[[[[[[[\"\nd = [[1], [2]]\n"
        'e = 1.5\nf = 1979-05-27T07:32:00.999\n"g.g.g.g.g.g.g.g.g.g".h = 1\n'
        "[i.j]\nk = { l.m = 1, n = [{ o.p.q = 2 }], r = {} }\n[[s.t.u]]\n"
    )
    assert toml_nesting(text) == (3, 2)
    assert parse_toml(text)["d"] == [[1], [2]]


@pytest.mark.parametrize(
    ("text", "nesting"),
    [
        ("a" + ".a" * 9 + " = 1", (0, 9)),
        ("[" + "a." * 9 + "a]", (0, 9)),
        ("[[" + "a." * 9 + "a]]", (0, 9)),
        ("x = { " + "a." * 9 + "a = 1 }", (1, 9)),
        ("x = [1, { y = 2, " + "a." * 9 + "a = 1 }]", (2, 9)),
    ],
)
def test_long_dotted_keys_are_measured_wherever_they_are(text: str, nesting: tuple[int, int]) -> None:
    assert toml_nesting(text) == nesting
    with pytest.raises(RulesetError, match="nested too deeply"):
        parse_toml(text)


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        (
            "limit = 3 ",
            "limit = 0x" + "f" * 5000 + " ",
            "corridors.limit: too large: a number of more than 19 digits (at most 20)",
        ),
        ("limit = 3 ", "limit = " + "9" * 5000 + " ", "-: not valid TOML: a number has too many digits"),
        (
            "limit = 3 ",
            "limit = -" + "9" * 30 + " ",
            "corridors.limit: negative: a number of more than 19 digits (at least 1)",
        ),
        (
            "seconds = 300",
            'seconds = "' + "x" * 5000 + '"',
            "rounds.seconds: must be a whole number, not 'xxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxx'",
        ),
    ],
)
def test_huge_values_are_refused_in_a_short_line(old: str, new: str, line: str) -> None:
    assert text_problems(AIRRAID_TEXT.replace(old, new, 1)) == [f"rules.toml: {line}"]


def test_a_file_that_is_not_utf8_is_refused_by_rules_check(tmp_path: Path) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes(AIRRAID_TEXT.encode("utf-8").replace("ý".encode(), b"\xfd"))  # Latin-1
    result = CliRunner().invoke(rules_group, ["check", str(path)])
    assert result.exit_code == 1 and result.output.startswith(f"{path}: -: not valid TOML: not UTF-8 text")


def test_a_file_too_large_is_refused_by_rules_check_without_reading_it_all(tmp_path: Path) -> None:
    path = tmp_path / "large.toml"
    path.write_text(AIRRAID_TEXT + "#" * (10 * limits().most("characters")), encoding="utf-8")
    result = CliRunner().invoke(rules_group, ["check", str(path)])
    assert result.exit_code == 1 and result.output.startswith(f"{path}: -: too large")


def test_a_tie_break_named_twice_is_refused() -> None:
    data = ruleset_data()
    data["rounds"] = {**data["rounds"], "tie_breaks": ["trophies"] * 1000}
    assert problems(data) == ["rules.toml: rounds.tie_breaks: names a tie-break twice"]


# --- The command line and the shipped files ----------------------------------------------------------


def test_rules_check_help_lists_every_bound() -> None:
    result = CliRunner().invoke(rules_group, ["check", "--help"])
    assert result.exit_code == 0
    output = " ".join(result.output.split())
    for key, (low, high) in limits().bounds.items():
        assert f"{key}: {low} to {high}" in output
    assert "at most 100,000 characters" in output and "nested at most 8 deep" in output
    assert "could not decide in time" in output


def test_rules_check_names_the_bound_a_number_breaks(tmp_path: Path) -> None:
    path = tmp_path / "rules.toml"
    path.write_text(HUGE_LIMIT, encoding="utf-8")
    result = CliRunner().invoke(rules_group, ["check", str(path)])
    assert (result.exit_code, result.output) == (1, f"{path}: corridors.limit: too large: 10000000 (at most 20)\n")


@pytest.mark.parametrize("path", sorted(RULESETS_DIR.glob("*.toml")), ids=lambda p: p.stem)
def test_the_shipped_rulesets_pass_within_the_real_budget(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(placement, "SEARCH_BUDGET", 500_000)
    result = CliRunner().invoke(rules_group, ["check", str(path)])
    assert result.exit_code == 0 and result.output.startswith(f"{path}: ok: "), result.output
    load_ruleset(path)


def test_the_shipped_rulesets_state_their_bounds_in_comments() -> None:
    text = RULESET_PATH.read_text(encoding="utf-8")
    for bound in (
        "(1 to 20)",
        "(30 to 3600 seconds)",
        "(at most 100)",
        "1 to 25 rows",
        "2 to 30",
        "1 to 10 squares",
        "(0 to 10 each)",
    ):
        assert bound in text
    for path in RULESETS_DIR.glob("*.toml"):
        assert "config/ruleset_limits.toml" in path.read_text(encoding="utf-8")


def test_the_limits_file_holds_every_bound_the_readers_use() -> None:
    assert set(limits().bounds) == set(READER_BOUNDS) and set(limits().file) == set(FILE_LIMITS)
