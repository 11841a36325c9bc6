"""A small hand-made Vestorsjø map in the map-file format, so the rules tests do not depend on the real map.

Eight columns by ten rows, Zealand's coast on the west (column A), Scania's on the east (column H):

    row  1  #P....P#   B1 Helsingør (Z, strategic)        G1 Hælsengbór (S, strategic)
    row  2  #.....P#                                      G2 Raû (S, frigate)
    row  3  #P.....#   B3 Snekkersten (Z, corvette)
    row  4  #...P..#   E4 Flakfort (Z, frigate, a sea fort)
    row  5  #P....P#   B5 København Nord (Z, strategic)   G5 Lanskròna (S, strategic)
    row  6  #......#
    row  7  #P....P#   B7 Dragør (Z, corvette, strategic)  G7 Malme Nor (S, strategic)
    row  8  #.....##
    row  9  ##P..P.#   C9 Kastrup (Z, frigate)             F9 Lomme (S, corvette)
    row 10  ########

København Nord is closed by piers to the north (B4|B5) and south (B5|B6), with pier corners at
their tips (B4/B5/C5, B5/C5/B6): only C5 leads in. Flakfort has a pier on its east side (E4|F4)
whose corners (F3/E4/F4, E4/F4/F5) are open to submarines, as at every fort.
"""

from __future__ import annotations

import copy
import random
import tomllib
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from referee.rules import vestorsjo as v
from referee.rules.errors import RulesError


def _port(
    name: str, side: str, depth: str, hex_: str, vertices: list[str], *, strategic: bool = False, fort: bool = False
) -> dict[str, Any]:
    return {
        "name": name,
        "place": name,
        "side": side,
        "depth": depth,
        "strategic": strategic,
        "fort": fort,
        "hex": hex_,
        "lat": 0.0,
        "lon": 0.0,
        "vertices": vertices,
    }


SMALL: dict[str, Any] = {
    "map": {
        "name": "Small strait",
        "source": "hand-made for the tests",
        "generator": "tests/rules/vestorsjo_maps.py",
        "columns": 8,
        "rows": 10,
        "hex_km": 1.6,
        "origin_lat": 56.0,
        "origin_lon": 12.6,
        "terrain": [
            "#P....P#",
            "#.....P#",
            "#P.....#",
            "#...P..#",
            "#P....P#",
            "#......#",
            "#P....P#",
            "#.....##",
            "##P..P.#",
            "########",
        ],
    },
    "ports": [
        _port("Helsingør", "zealand", "destroyer", "B1", [], strategic=True),
        _port("Hælsengbór", "scania", "destroyer", "G1", [], strategic=True),
        _port("Raû", "scania", "frigate", "G2", []),
        _port("Snekkersten", "zealand", "corvette", "B3", []),
        _port("Flakfort", "zealand", "frigate", "E4", ["F3/E4/F4", "E4/F4/F5"], fort=True),
        _port("København Nord", "zealand", "destroyer", "B5", ["A4/B4/B5", "B5/A6/B6"], strategic=True),
        _port("Lanskròna", "scania", "destroyer", "G5", ["F4/F5/G5", "F5/G5/F6"], strategic=True),
        _port("Dragør", "zealand", "corvette", "B7", ["B6/B7/C7", "B7/C7/B8"], strategic=True),
        _port("Malme Nor", "scania", "destroyer", "G7", ["F6/F7/G7", "F7/G7/F8"], strategic=True),
        _port("Kastrup", "zealand", "frigate", "C9", []),
        _port("Lomme", "scania", "corvette", "F9", []),
    ],
    "piers": {
        "edges": ["B4|B5", "B5|B6", "E4|F4"],
        "vertices": ["B4/B5/C5", "B5/C5/B6", "F3/E4/F4", "E4/F4/F5"],
    },
    "start": {
        "scania": {
            "destroyer": "G5",
            "frigate-1": "F5",
            "frigate-2": "F6",
            "corvette-1": "F4",
            "corvette-2": "E6",
            "corvette-3": "F7",
            "corvette-4": "E5",
            "submarine-1": "E6/E7/F7",
            "submarine-2": "E5/F5/E6",
        },
        "zealand": {
            "destroyer": "B5",
            "frigate-1": "C5",
            "frigate-2": "C6",
            "corvette-1": "C4",
            "corvette-2": "D5",
            "corvette-3": "B6",
            "corvette-4": "B4",
            "submarine-1": "C6/C7/D7",
            "submarine-2": "C3/D3/C4",
        },
    },
    "coast": [{"kind": "land", "name": "Zealand", "points": [[0.0, 0.0], [0.5, 0.0], [0.5, 8.0]]}],
}


def small_map() -> dict[str, Any]:
    """Return a fresh copy of the small map, for a test to change as it needs."""
    return copy.deepcopy(SMALL)


# --- Playing scripted games on it ---------------------------------------------------------------

RULESET_PATH = Path(__file__).resolve().parents[2] / "config" / "rulesets" / "vestorsjo.toml"


def ruleset_data() -> dict[str, Any]:
    """Return the parsed ruleset file, fresh."""
    return tomllib.loads(RULESET_PATH.read_text(encoding="utf-8"))


@lru_cache(maxsize=8)
def seed_for(pips: int) -> int:
    """Return a seed whose server die shows these pips (engine.chance(event).randint(1, 6))."""
    return next(s for s in range(1000) if random.Random(s).randint(1, 6) == pips)


class Game:
    """A game on the small map, played by scripted actions; `events` is its whole log."""

    def __init__(
        self,
        start: Mapping[str, str] | None = None,
        *,
        dice: str = "server",
        map_data: dict[str, Any] | None = None,
        ruleset: dict[str, Any] | None = None,
        confirm_rolls: bool = False,
    ) -> None:
        action: dict[str, Any] = {
            "type": "create_game",
            "ruleset": ruleset or ruleset_data(),
            "map": map_data or small_map(),
            "dice": dice,
        }
        if confirm_rolls:
            action["confirm_rolls"] = True
        if start:
            action["start"] = dict(start)
        self.state, self.events = v.create(action, at=0.0, by="referee")
        self.clock = 0.0

    def act(self, action: Mapping[str, Any], *, by: str | None = None, pips: int | None = None) -> v.State:
        """Apply an action by a role (the side to move's player by default); pips: the die to show."""
        self.clock += 1.0
        role = by or f"player:{self.state.turn}"
        data = dict(action)
        seed = None
        if pips is not None and self.state.dice == "physical":
            data["pips"] = pips
        elif pips is not None:
            seed = seed_for(pips)
        else:
            seed = int(self.clock)
        self.state, events = v.apply(self.state, data, at=self.clock, by=role, seed=seed)
        self.events.extend(events)
        return self.state

    def move(self, piece: str, to: str, **kw: Any) -> v.State:
        """Move a piece."""
        return self.act({"type": "move", "piece": piece, "to": to}, **kw)

    def fire(self, piece: str, target: str, pips: int, **kw: Any) -> v.State:
        """Fire at a ship with a die showing `pips`."""
        return self.act({"type": "fire", "piece": piece, "target": target}, pips=pips, **kw)

    def attack(self, piece: str, target: str, pips: int, **kw: Any) -> v.State:
        """Attack a submarine with a die showing `pips`."""
        return self.act({"type": "attack_submarine", "piece": piece, "target": target}, pips=pips, **kw)

    def end(self, **kw: Any) -> v.State:
        """End the turn of the side to move."""
        return self.act({"type": "end_turn"}, **kw)

    def rounds(self, count: int) -> v.State:
        """Let both sides pass for some whole rounds (from Scania's turn)."""
        for _ in range(2 * count):
            if self.state.outcome is not None:
                break
            self.end()
        return self.state

    def refused(self, action: Mapping[str, Any], *, by: str | None = None, pips: int | None = None) -> RulesError:
        """Return the refusal of an action, which must leave the game as it was."""
        before = v.state_to_dict(self.state)
        try:
            self.act(action, by=by, pips=pips)
        except RulesError as exc:
            assert v.state_to_dict(self.state) == before
            self.clock -= 1.0
            return exc
        raise AssertionError(f"accepted: {action}")

    def piece(self, pid: str) -> v.Piece:
        """Return a piece of the game."""
        return self.state.pieces[pid]
