"""Shared set-ups for the air-raid tests: a game with known seas, and a one-line action helper."""

from __future__ import annotations

from typing import Any

from referee.resources import resource_path
from referee.rules import airraid
from referee.rules.ruleset import read_toml
from referee.rules.sea import ships_from_text

RULESET_PATH = resource_path("config") / "rulesets" / "airraid.toml"

# Carrier A, cruiser B, tug C, ship-three D, ship-two E on the 7×7 sea; no two touch.
# A fleet of one ship-two, for end-of-game cases.
LAST_SHIP = ".......\n" * 5 + "EE.....\n" + ".......\n"

SEA_7 = """
AAAA.CC
.A...CC
.......
BBBB...
......D
EE....D
......D
"""

PLAYERS = {"A": ["Ann", "Ada", "Abe", "Amy"], "B": ["Bob", "Bea", "Ben", "Bo"]}


def ruleset_data(**overrides: Any) -> dict[str, Any]:
    """Return the default ruleset's data, with some tables changed (`rounds__limit=1`, `fleet={...}`)."""
    data = read_toml(RULESET_PATH)
    fleet = overrides.pop("fleet", None)
    if fleet is not None:
        data["sea_sizes"] = [{**row, "fleet": fleet} for row in data["sea_sizes"]]
    for key, value in overrides.items():
        table, _, field = key.partition("__")
        data[table] = {**data[table], field: value}
    return data


def ships_json(text: str = SEA_7, **overrides: Any) -> list[dict[str, Any]]:
    """Return a sea text's ships as the lock_sea action wants them."""
    state, _ = new_game(**overrides)
    grid, ships, problems = ships_from_text(text, state.ruleset.sea, state.teams["A"].fleet)
    assert not problems, problems
    return [s.to_dict(grid) for s in ships]  # type: ignore[misc]


def new_game(players: dict[str, list[str]] | None = None, **overrides: Any) -> tuple[airraid.State, list[Any]]:
    """Create a game with the default ruleset (changed by `overrides`)."""
    players = players or PLAYERS
    return airraid.create(
        {
            "type": "create_game",
            "ruleset": ruleset_data(**overrides),
            "teams": [{"name": "Eagles", "players": players["A"]}, {"name": "Sharks", "players": players["B"]}],
        },
        at=1000.0,
    )


class Game:
    """A game under test: every action goes through `apply`, and the log is kept for replay."""

    def __init__(self, state: airraid.State, events: list[Any]) -> None:
        self.state = state
        self.events = list(events)
        self.clock = 1000.0

    def do(self, by: str, **action: Any) -> airraid.State:
        """Apply an action (type given as `type=`) one second after the previous one."""
        self.clock += 1.0
        self.state, events = airraid.apply(self.state, action, at=self.clock, by=by)
        self.events.extend(events)
        return self.state

    def ref(self, **action: Any) -> airraid.State:
        """Apply an action as the referee."""
        return self.do("referee", **action)

    def order_id(self, team: str, pilot: str) -> str:
        """Find the current round's order of a pilot."""
        rnd = self.state.round
        assert rnd is not None
        return next(o.id for o in rnd.orders.values() if o.team == team and o.pilot == pilot)


def started_game(sea_a: str = SEA_7, sea_b: str = SEA_7, **overrides: Any) -> Game:
    """Return a game with both seas locked and round 1 in planning."""
    game = Game(*new_game(**overrides))
    fleet_only = {k: v for k, v in overrides.items() if k == "fleet"}
    game.do("team:A", type="lock_sea", team="A", ships=ships_json(sea_a, **fleet_only))
    game.do("team:B", type="lock_sea", team="B", ships=ships_json(sea_b, **fleet_only))
    game.ref(type="start_game")
    return game


def win(side: str) -> dict[str, str]:
    """Return a throw won by one side."""
    return {"winner": side}
