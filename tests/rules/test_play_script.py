"""`referee play RULESET ACTIONS.jsonl`: a scripted game of any mode, and `referee map check` wired in.

The play files under tests/fixtures/play/ are the worked examples of docs/actions.md.
"""

from __future__ import annotations

import io
import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from referee.cli import main, play_setup
from referee.cli.play import play_text
from referee.cli.play_setup import SetupError, create_action, map_name, read_map, ruleset_path
from referee.rules import battleship, find_mode
from referee.rules.events import Event
from referee.rules.ruleset import read_toml

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "play"
SEA = "\n".join(["AAAAA.....", "BBBB......", "CCC.......", "DDD.......", "EE........", *[".........."] * 5])


def run(*args: str) -> tuple[int, list[dict[str, Any]], str]:
    """Run `referee ARGS`; return the exit code, the JSON lines printed, and the standard error."""
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, [json.loads(line) for line in result.stdout.splitlines()], result.stderr


def play(text: str, ruleset: str = "zeeslag", seed: int | None = None) -> tuple[int, list[dict[str, Any]]]:
    out = io.StringIO()
    code = play_text(ruleset, text, seed=seed, out=out)
    return code, [json.loads(line) for line in out.getvalue().splitlines()]


def lines(*objects: Any) -> str:
    return "".join(json.dumps(o) + "\n" for o in objects)


def place(player: str) -> dict[str, Any]:
    return {"by": f"player:{player}", "action": {"type": "place_fleet", "player": player, "sea": SEA}}


def fire(player: str, square: str, **more: Any) -> dict[str, Any]:
    return {"by": f"player:{player}", "action": {"type": "fire", "player": player, "squares": [square]}, **more}


# --- A whole game from a file ----------------------------------------------------------------


def test_a_zeeslag_game_is_played_to_its_end_from_a_file() -> None:
    code, records, _err = run("play", "zeeslag", str(FIXTURES / "zeeslag_full_game.jsonl"))
    assert code == 0
    *answers, last = records
    assert last == {
        "outcome": {"winner": "A", "reason": "fleet_sunk", "detail": "Anna sank the whole fleet", "seq": 36},
        "seq": 36,
        "unexpected": 0,
    }
    assert all(r["as_expected"] for r in answers)
    fired = [e for r in answers for e in r.get("events", []) if e["kind"] == "fire"]
    assert len(fired) == 17 + 16
    # Each line's record names the line of the file (comments and blank lines are counted).
    assert answers[0]["line"] == 3 and answers[0]["events"][0]["kind"] == "create_game"


def test_the_printed_events_are_the_stored_log_and_replay_to_the_same_end() -> None:
    _code, records, _err = run("play", "zeeslag", str(FIXTURES / "zeeslag_full_game.jsonl"))
    events = [Event.from_dict(e) for r in records for e in r.get("events", [])]
    assert [e.seq for e in events] == list(range(1, 37))
    outcome = battleship.outcome(battleship.replay(events))
    assert outcome is not None and outcome.winner == "A"


def test_an_expected_refusal_counts_as_success() -> None:
    code, records = play(lines(place("A"), fire("B", "A1", expect={"refused": "play has not started"})))
    assert code == 0
    refused = next(r for r in records if r.get("line") == 2)
    assert refused == {
        "line": 2,
        "ok": False,
        "refused": "play has not started: both fleets must be placed first",
        "error": "illegal",
        "as_expected": True,
    }


def test_an_expected_refusal_may_name_its_error_code_and_must_match_it() -> None:
    code, _ = play(lines(place("A"), fire("B", "A1", expect={"error": "illegal"})))
    assert code == 0
    code, records = play(lines(place("A"), fire("B", "A1", expect={"error": "not_your_turn"})))
    assert code == 1 and records[-1]["unexpected"] == 1


def test_an_unexpected_refusal_fails_the_run() -> None:
    code, records = play(lines(place("A"), fire("B", "A1"), place("B")))
    assert code == 1
    assert [r.get("ok") for r in records if "line" in r] == [True, True, False, True]
    assert records[2]["as_expected"] is False and records[-1]["unexpected"] == 1


def test_an_accepted_line_that_expected_a_refusal_fails_the_run() -> None:
    code, records = play(lines({**place("A"), "expect": "refused"}))
    assert code == 1 and records[1]["ok"] is True and records[1]["as_expected"] is False


def test_a_refusal_from_the_play_service_itself_is_a_refusal_too() -> None:
    code, records = play(lines({"action": "fire"}, {"action": {"type": "create_game"}, "expect": "refused"}))
    assert code == 1
    assert records[1]["refused"] == "action must be a JSON object with a type"
    assert records[2]["as_expected"] is True


# --- Lines the file gets wrong ---------------------------------------------------------------


def test_a_malformed_line_is_a_refusal_naming_the_problem_and_fails_the_run() -> None:
    code, records = play(lines(place("A")) + '{"by": "player:B", "action": {"type": "fire"\n' + lines(place("B")))
    assert code == 1
    bad = records[2]
    assert bad["line"] == 2 and bad["ok"] is False and bad["error"] == "bad_line"
    assert bad["refused"].startswith("not JSON: ")
    assert records[3]["ok"] is True  # the game goes on after it


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ({"by": "player:A", "actoin": {}}, "unknown field actoin"),
        ({"by": 5, "action": {"type": "fire"}}, "by must be a role"),
        ({"at": -1, "action": {"type": "fire"}}, "at must be a number"),
        ({"by": "player:A"}, "a line needs an action"),
        ({"action": {"type": "fire"}, "expect": "maybe"}, "expect is"),
        ({"action": {"type": "fire"}, "seed": "x"}, "seed must be a whole number"),
        ([1, 2], "a line is a JSON object"),
    ],
)
def test_lines_of_the_wrong_form_are_refused_with_the_reason(line: Any, problem: str) -> None:
    code, records = play(lines(line))
    assert code == 1
    assert records[1]["error"] == "bad_line" and problem in records[1]["refused"], records[1]


def test_a_line_of_the_wrong_form_may_be_expected() -> None:
    code, records = play(lines({"by": 5, "action": {}, "expect": {"refused": "by must be a role"}}))
    assert code == 0 and records[1]["as_expected"] is True


def test_time_does_not_go_back() -> None:
    code, records = play(lines({"at": 50}, {**place("A"), "at": 10}))
    assert code == 1 and records[2]["refused"] == "at 10 is before the clock's 50"


def test_create_is_only_the_first_line() -> None:
    code, records = play(lines(place("A"), {"create": {}}))
    assert code == 1 and records[2]["refused"] == "create is only the first line"


def test_a_refused_creation_refuses_every_later_line() -> None:
    code, records = play(lines({"create": {"players": {"A": "Same", "B": "same"}}}, place("A")))
    assert code == 1
    assert records[0]["refused"] == "the two players need different names"
    assert records[1]["refused"] == "no game: its creation was refused"
    assert records[-1] == {"outcome": None, "seq": 0, "unexpected": 2}


def test_a_refused_creation_may_be_expected() -> None:
    code, records = play(lines({"create": {"computer": {"A": "easy", "B": "easy"}}, "expect": "refused"}))
    assert code == 0 and records[0]["refused"] == "at least one player must be a person"


# --- Chance, the computer, retries -----------------------------------------------------------


def test_the_same_file_and_seed_print_the_same_bytes() -> None:
    path = str(FIXTURES / "zeeslag_computer.jsonl")
    first = CliRunner().invoke(main, ["play", "zeeslag", path, "--seed", "7"]).stdout_bytes
    second = CliRunner().invoke(main, ["play", "zeeslag", path, "--seed", "7"]).stdout_bytes
    other = CliRunner().invoke(main, ["play", "zeeslag", path, "--seed", "8"]).stdout_bytes
    assert first == second
    assert first != other  # the seed does choose: the computer places and fires otherwise


def test_the_computers_moves_follow_each_move_as_on_the_server() -> None:
    code, records, _err = run("play", "zeeslag", str(FIXTURES / "zeeslag_computer.jsonl"), "--seed", "1")
    assert code == 0
    automatic = [r for r in records if r.get("automatic")]
    # It places its fleet as soon as the game is made, then answers each of Anna's three shots.
    assert [r["line"] for r in automatic] == [3, 5, 6, 7]
    assert all(r["by"] == "player:B" and r["events"][0]["kind"] == "computer_move" for r in automatic)
    assert "ships" in automatic[0]["events"][0]["data"] and "squares" in automatic[1]["events"][0]["data"]
    seqs = [e["seq"] for r in records for e in r.get("events", [])]
    assert seqs == list(range(1, len(seqs) + 1))


def test_a_line_may_give_the_seed_the_server_would_draw() -> None:
    tosses = set()
    for seed in range(8):
        _code, records = play(lines({"create": {"first": "coin"}, "seed": seed}))
        (event,) = records[0]["events"]
        assert event["data"]["seed"] == seed
        tosses.add(find_mode("battleship").replay([Event.from_dict(event)]).first)
    assert tosses == {"A", "B"}


def test_a_seed_on_an_action_without_chance_is_refused() -> None:
    code, records = play(lines({**place("A"), "seed": 3}))
    assert code == 1 and records[1]["refused"] == "seed is given, but 'place_fleet' takes no chance"


def test_a_client_id_sent_twice_is_answered_as_a_duplicate() -> None:
    code, records = play(lines({**place("A"), "client_id": "c1"}, {**place("A"), "client_id": "c1"}))
    assert code == 0
    assert records[2]["duplicate"] is True and records[2]["events"] == records[1]["events"]
    assert records[-1]["seq"] == 2


# --- The air raid: roles, throws, the round clock --------------------------------------------


def test_the_air_raids_first_round_from_a_file() -> None:
    code, records, _err = run("play", "airraid", str(FIXTURES / "airraid_first_round.jsonl"))
    assert code == 0, records
    events = {e["kind"]: e for r in records for e in r.get("events", [])}
    assert events["add_order"]["data"]["id"] == "1A2"  # the id the rules bound is in the stored event
    assert events["announce_bombing"]["data"]["order"] == "1A2"
    clock = [r for r in records if r.get("clock")]
    assert clock == [
        {
            "line": 22,
            "clock": True,
            "by": "clock",
            "at": 310.0,
            "events": [{"seq": 15, "kind": "end_round", "data": {}, "at": 310.0, "by": "clock"}],
        }
    ]
    assert records[-1] == {"outcome": None, "seq": 15, "unexpected": 0}


def test_the_air_raids_defaults_name_the_smallest_teams_the_ruleset_takes() -> None:
    _code, records = play("", ruleset="airraid")
    teams = records[0]["events"][0]["data"]["teams"]
    assert teams == [
        {"name": "Team A", "players": ["A1", "A2", "A3", "A4"]},
        {"name": "Team B", "players": ["B1", "B2", "B3", "B4"]},
    ]


def test_an_outcome_check_fails_the_run_when_the_outcome_differs() -> None:
    resign = {"by": "player:A", "action": {"type": "forfeit", "player": "A"}}
    code, records = play(lines(resign, {"expect_outcome": {"winner": "A"}}))
    assert code == 1
    assert records[2]["ok"] is False and records[2]["outcome"]["winner"] == "B"


# --- The ruleset and its map -----------------------------------------------------------------


def test_a_ruleset_is_a_path_or_a_bare_name_in_config_rulesets(tmp_path: Path) -> None:
    assert ruleset_path("zeeslag").name == "zeeslag.toml"
    assert ruleset_path("zeeslag.toml").name == "zeeslag.toml"
    own = tmp_path / "mine.toml"
    own.write_text((ruleset_path("zeeslag")).read_text(encoding="utf-8"), encoding="utf-8")
    assert ruleset_path(str(own)) == own
    with pytest.raises(SetupError, match="no such ruleset file"):
        ruleset_path("../zeeslag")


def test_a_missing_ruleset_or_play_file_is_one_line_on_standard_error() -> None:
    code, records, err = run("play", "nosuch", str(FIXTURES / "zeeslag_full_game.jsonl"))
    assert (code, records) == (1, []) and err.count("\n") == 1 and "nosuch: no such ruleset file" in err
    code, records, err = run("play", "zeeslag", "nosuch.jsonl")
    assert (code, records) == (1, []) and err == "nosuch.jsonl: No such file or directory\n"


def test_a_broken_ruleset_is_refused_with_its_problems(tmp_path: Path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text('[ruleset]\nmode = "chess"\n', encoding="utf-8")
    code, records, err = run("play", str(broken), str(FIXTURES / "zeeslag_full_game.jsonl"))
    assert (code, records) == (1, []) and "ruleset.mode: unknown mode 'chess'" in err


def test_a_map_the_ruleset_names_goes_into_the_create_action(tmp_path: Path) -> None:
    (tmp_path / "little.toml").write_text('[map]\nname = "Little"\nhexes = ["a1", "a2"]\n', encoding="utf-8")
    data = read_toml(ruleset_path("zeeslag"))
    data["ruleset"] = {**data["ruleset"], "map": "little"}
    parsed = battleship.read_ruleset(read_toml(ruleset_path("zeeslag")))
    action = create_action("battleship", data, parsed, {"first": "B"}, maps=tmp_path)
    assert action["map"] == {"map": {"name": "Little", "hexes": ["a1", "a2"]}}
    assert action["first"] == "B" and action["players"] == {"A": "Player A", "B": "Player B"}
    # The file's own `map` wins; a ruleset naming none gets none.
    assert create_action("battleship", data, parsed, {"map": {"x": 1}}, maps=tmp_path)["map"] == {"x": 1}
    assert "map" not in create_action("battleship", read_toml(ruleset_path("zeeslag")), parsed, maps=tmp_path)


def test_a_ruleset_readers_own_map_counts_first(tmp_path: Path) -> None:
    reader = types.SimpleNamespace(map="oresund")
    assert map_name({"ruleset": {"mode": "x"}}, reader) == "oresund"
    assert map_name({"ruleset": {"map": "other"}}) == "other"
    assert map_name({"ruleset": {}}) is None
    with pytest.raises(SetupError, match="must be a map's name"):
        map_name({"ruleset": {"map": "../secrets"}})


def test_a_missing_or_broken_map_is_a_setup_error(tmp_path: Path) -> None:
    with pytest.raises(SetupError, match=r"nowhere\.toml: No such file"):
        read_map("nowhere", tmp_path)
    (tmp_path / "bad.toml").write_text("[map\n", encoding="utf-8")
    with pytest.raises(SetupError, match=r"bad\.toml: not valid TOML"):
        read_map("bad", tmp_path)


def test_a_mode_without_defaults_gets_only_its_ruleset_and_map(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(play_setup, "CREATE_DEFAULTS", {})
    action = create_action("battleship", {"ruleset": {"mode": "battleship"}}, None)
    assert action == {"type": "create_game", "ruleset": {"ruleset": {"mode": "battleship"}}}


# --- The documentation ----------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["battleship", "airraid", "vestorsjo"])
def test_every_action_of_a_mode_is_documented_with_an_example(mode: str) -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "actions.md").read_text(encoding="utf-8")
    for kind in find_mode(mode).action_schemas:
        assert f'{{"type": "{kind}"' in text, kind


# --- `referee map check` ---------------------------------------------------------------------


def test_map_check_hands_the_path_to_maps_cli_and_exits_with_its_code(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    def check_command(path: str) -> int:
        seen.append(path)
        print(f"{path}: checked")
        return 3

    monkeypatch.setitem(sys.modules, "referee.cli.maps", types.SimpleNamespace(check_command=check_command))
    result = CliRunner().invoke(main, ["map", "check", "some/map.toml"])
    assert (result.exit_code, seen, result.stdout) == (3, ["some/map.toml"], "some/map.toml: checked\n")


@pytest.mark.parametrize("content", ["[hexes\n", None])
def test_map_check_of_a_bad_or_missing_file_is_one_clear_line(tmp_path: Path, content: str | None) -> None:
    pytest.importorskip("referee.cli.maps")
    path = tmp_path / "tiny.toml"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    result = CliRunner().invoke(main, ["map", "check", str(path)])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1 and str(path) in result.output


def test_a_vestorsjo_game_on_the_real_map_from_a_file() -> None:
    code, records, _err = run("play", "vestorsjo", str(FIXTURES / "vestorsjo_short.jsonl"), "--seed", "1")
    assert code == 0, records
    fire = next(r for r in records if r.get("line") == 5)
    assert fire["ok"] and fire["events"][0]["data"]["physical"] is True and fire["events"][0]["data"]["pips"] == 6
    refused = next(r for r in records if r.get("line") == 8)
    assert refused["ok"] is False and "no undo past a roll" in refused["refused"]
    assert records[-1]["outcome"]["winner"] == "scania" and records[-1]["outcome"]["reason"] == "surrender"


def test_a_vestorsjo_file_checks_what_each_roll_did() -> None:
    """Each accepted line prints its effects (dice, hits, sinkings, removals, port counters); `expect` checks them."""
    text = (FIXTURES / "vestorsjo_rolls.jsonl").read_text(encoding="utf-8")
    code, records = play(text, "vestorsjo")
    assert code == 0, [r for r in records if not r.get("as_expected", True)]
    attack = next(r for r in records if r.get("line") == 7)
    assert attack["effects"]["rolls"] == [
        {
            "piece": "scania.corvette-3",
            "target": "zealand.submarine-1",
            "table": "ship_attacks_submarine",
            "distance": 0,
            "damage": 0,
            "pips": 6,
            "hits": 1,
            "sunk": True,
        }
    ]
    # A check that does not hold fails the run, and says which line.
    right = '"damage": 0, "hits": 2, "sunk": true}], "pieces": {"zealand.frigate-1"'
    wrong = text.replace(right, '"hits": 1}], "pieces": {"zealand.frigate-1"')
    assert wrong != text
    code, records = play(wrong, "vestorsjo")
    assert code == 1 and [r["line"] for r in records if r.get("as_expected") is False] == [8]
    # true is not 1, and a list is matched item by item, as long as the effects' own.
    one = text.replace('{"hits": 1, "sunk": true}}', '{"hits": 1, "sunk": 1}}')
    assert one != text
    assert play(one, "vestorsjo")[0] == 1
    two = text.replace('"rolls": [{"table": "ship_attacks', '"rolls": [{}, {"table": "ship_attacks')
    assert two != text
    assert play(two, "vestorsjo")[0] == 1


def test_an_effects_expectation_is_an_object() -> None:
    code, records = play(lines({"by": "player:A", "action": {"type": "resign"}, "expect": {"effects": 3}}))
    bad = next(r for r in records if r.get("line") == 1)
    assert code == 1 and bad["error"] == "bad_line" and '{"effects"' in bad["refused"]
