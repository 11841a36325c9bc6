"""The one event engine every mode runs on: the registry, chance as logged seeds, versions."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from referee.rules import MODES, airraid, find_mode
from referee.rules import battleship as bs
from referee.rules.battleship import ai as battleship_ai
from referee.rules.battleship import moves as battleship_moves
from referee.rules.engine import SEED
from referee.rules.errors import MalformedAction, StaleVersion
from referee.rules.ruleset import ruleset_from_dict
from referee.store import Store, make_engine, migrate

from ..airraid_helpers import new_game
from ..battleship_helpers import ruleset_raw


def computer_game(**more: Any) -> dict[str, Any]:
    return {
        "type": "create_game",
        "ruleset": ruleset_raw("zeeslag"),
        "players": {"A": "Ada", "B": "Computer"},
        "computer": {"B": "strong"},
        **more,
    }


def test_the_registry_holds_every_mode_and_refuses_others() -> None:
    assert find_mode("airraid") is airraid.GAME and find_mode("battleship") is bs.GAME
    assert list(MODES) == ["airraid", "battleship", "vestorsjo"]
    with pytest.raises(MalformedAction):
        find_mode("chess")


def test_a_ruleset_is_read_by_the_mode_it_names() -> None:
    assert type(ruleset_from_dict(ruleset_raw("sjoslag"))).__name__ == "BattleshipRuleset"
    with pytest.raises(Exception, match=r"ruleset\.mode"):
        airraid.read_ruleset(ruleset_raw("sjoslag"))


@pytest.mark.parametrize("mode", ["airraid", "battleship"])
def test_an_action_may_not_bring_its_own_seed(mode: str) -> None:
    if mode == "airraid":
        state, _ = new_game()
        action: dict[str, Any] = {"type": "set_defender", "team": "A", "pilot": "Ann", SEED: 4}
        by = "referee"
    else:
        state, _ = bs.create(computer_game(), at=1.0, by="player:A", seed=1)
        action = {"type": "computer_move", "player": "B", SEED: 4}
        by = "player:B"
    with pytest.raises(MalformedAction, match="seed"):
        find_mode(mode).apply(state, action, at=2.0, by=by, seed=5 if mode == "battleship" else None)


def test_the_coin_toss_is_the_seed_s_and_a_replay_tosses_alike() -> None:
    firsts = set()
    for seed in range(12):
        state, events = bs.create(computer_game(first=bs.COIN), at=1.0, by="player:A", seed=seed)
        assert events[0].data[SEED] == seed
        assert bs.replay(events).first == state.first
        firsts.add(state.first)
    assert firsts == {"A", "B"}
    with pytest.raises(MalformedAction, match="seed"):
        bs.create(computer_game(first=bs.COIN), at=1.0, by="player:A")


def test_the_computer_s_move_is_chance_bound_into_its_event(monkeypatch: pytest.MonkeyPatch) -> None:
    state, events = bs.create(computer_game(first="B"), at=1.0, by="player:A", seed=1)
    state, more = bs.apply(state, {"type": "computer_move", "player": "B"}, at=2.0, by="player:B", seed=7)
    events += more
    assert more[0].data[SEED] == 7 and len(more[0].data["ships"]) == len(state.ruleset.fleet)
    # The same seed places the same fleet; the whole game replays without asking the computer again.
    again, _ = bs.apply(
        bs.create(computer_game(first="B"), at=1.0, by="player:A", seed=1)[0],
        {"type": "computer_move", "player": "B"},
        at=2.0,
        by="player:B",
        seed=7,
    )
    assert bs.state_to_dict(again)["players"]["B"]["ships"] == bs.state_to_dict(state)["players"]["B"]["ships"]
    grid = state.grid()
    ships = battleship_ai.place_fleet(grid, state.ruleset.sea, state.ruleset.fleet, random.Random(3))
    state, more = bs.apply(
        state, {"type": "place_fleet", "player": "A", "ships": [s.to_dict(grid) for s in ships]}, at=3.0, by="player:A"
    )
    events += more
    state, more = bs.apply(state, {"type": "computer_move", "player": "B"}, at=4.0, by="player:B", seed=8)
    events += more
    assert more[0].data["squares"] and state.players["B"].volleys

    def no_thinking(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("a replay asked the computer to choose again")

    # The moves call the computer by these names: a replay that thought again would fail here.
    monkeypatch.setattr(battleship_moves, "choose_shots", no_thinking)
    monkeypatch.setattr(battleship_moves, "place_fleet", no_thinking)
    assert bs.state_to_dict(bs.replay(events)) == bs.state_to_dict(state)
    # A person may not choose the computer's squares for it.
    with pytest.raises(MalformedAction, match="squares"):
        bs.apply(state, {"type": "computer_move", "player": "B", "squares": ["A1"]}, at=5.0, by="referee")


def test_the_store_draws_the_seed_for_the_kinds_that_take_chance(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    migrate(engine)
    store = Store(engine)
    made = store.create_game(bs.MODE, computer_game(first=bs.COIN), at=1.0, by="player:A")
    assert isinstance(made.events[0].data[SEED], int)
    done = store.execute(made.game_id, {"type": "computer_move", "player": "B"}, at=2.0, by="player:B")
    assert isinstance(done.events[0].data[SEED], int)
    store.forget(made.game_id)
    loaded, _version = store.load(made.game_id)
    assert bs.state_to_dict(loaded) == bs.state_to_dict(done.state)


def test_a_version_inside_an_air_raid_action_is_checked_too() -> None:
    state, _ = new_game()
    with pytest.raises(StaleVersion):
        airraid.apply(state, {"type": "set_defender", "team": "A", "pilot": "Ann", "version": 7}, at=2.0, by="referee")
