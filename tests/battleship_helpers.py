"""Shared helpers for the Battleship tests: the three rulesets, a game, placements written as sea text."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from referee.rules import battleship as bs
from referee.rules.ruleset import read_toml
from referee.rules.sea import random_sea

RULESETS_DIR = Path(__file__).resolve().parent.parent / "config" / "rulesets"
RULESET_IDS = ("zeeslag", "zeeslag-salvo", "sjoslag")


def ruleset_path(ruleset_id: str) -> Path:
    """Return a shipped Battleship ruleset's file."""
    return RULESETS_DIR / f"{ruleset_id}.toml"


def ruleset_raw(ruleset_id: str) -> dict[str, Any]:
    """Return a shipped ruleset's parsed TOML, as a create_game action carries it."""
    return read_toml(ruleset_path(ruleset_id))


# Zeeslag seas (rows A–J top to bottom, columns 1–10): the carrier on row A (A1–A5), the
# battleship on row B touching it, cruiser C1–C3, submarine D1–D3, destroyer E1–E2.
ZEE_PACKED = """
AAAAA.....
BBBB......
CCC.......
DDD.......
EE........
..........
..........
..........
..........
..........
"""

# Sjøslag sea (columns A–J, rows 1–10): battleship A1–D1, cruisers F1–H1 and A3–C3, destroyers
# E3–F3, H3–I3, A5–B5, torpedo boats D5, F5, H5, A7. No two ships touch.
SJO_SPREAD = """
AAAA.BBB..
..........
CCC.DD.EE.
..........
FF.G.H.I..
..........
J.........
..........
..........
..........
"""


class Game:
    """A Battleship game driven by actions, keeping its event log for replays."""

    def __init__(self, ruleset_id: str, *, first: str = "A", per_shot: bool | None = None, **extra: Any) -> None:
        action: dict[str, Any] = {
            "type": "create_game",
            "ruleset": ruleset_raw(ruleset_id),
            "players": {"A": "Eva", "B": "Ola"},
            "first": first,
            **extra,
        }
        if per_shot is not None:
            action["per_shot"] = per_shot
        self.state, self.log = bs.create(action, at=0.0)
        self.log = list(self.log)

    def act(self, action: dict[str, Any], by: str | None = None) -> bs.State:
        """Apply an action (by the acting player unless given) and keep its event."""
        who = by or f"player:{action.get('player', 'A')}"
        self.state, events = bs.apply(self.state, action, at=float(len(self.log)), by=who)
        self.log.extend(events)
        return self.state

    def place(self, player: str, sea: str) -> bs.State:
        """Place a player's fleet from a sea text."""
        return self.act({"type": "place_fleet", "player": player, "sea": sea})

    def place_random(self, player: str, rng: random.Random) -> bs.State:
        """Place a player's fleet uniformly at random, sent as a ship list."""
        grid = self.state.grid()
        ships = random_sea(grid, self.state.ruleset.sea, self.state.ruleset.fleet, rng)
        return self.act({"type": "place_fleet", "player": player, "ships": [s.to_dict(grid) for s in ships]})

    def fire(self, player: str, *squares: str) -> bs.State:
        """Fire one volley."""
        return self.act({"type": "fire", "player": player, "squares": list(squares)})

    def last_volley(self, player: str) -> Any:
        """Return the latest volley a player fired, as told."""
        return bs.volleys_of(self.state, player)[-1]


def started(ruleset_id: str, sea_a: str | None = None, sea_b: str | None = None, **kwargs: Any) -> Game:
    """Return a game in play, both fleets placed (the packed/spread seas by default)."""
    default = SJO_SPREAD if ruleset_id == "sjoslag" else ZEE_PACKED
    game = Game(ruleset_id, **kwargs)
    game.place("A", sea_a or default)
    game.place("B", sea_b or default)
    return game


def play_random(game: Game, rng: random.Random, *, limit: int = 10_000) -> None:
    """Play the game to its end with random legal volleys, as either player may fire them."""
    for _ in range(limit):
        state = game.state
        if state.phase != "playing":
            return
        assert state.turn is not None
        fire = next(a for a in bs.legal_actions(state, f"player:{state.turn}") if a["type"] == "fire")
        game.fire(state.turn, *rng.sample(fire["squares"], fire["count"]))
