"""What a Battleship shooter learns from one volley: the shared language of the rules and the AI.

The Battleship rules module (`battleship.py`) writes every volley a player fired as a `Volley`
holding only what the ruleset lets the defender reveal; the computer opponent
(`battleship/ai.py`) reads nothing else. So the AI can never use more than a player is told.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .grid import Grid, Square

RESULTS = ("miss", "hit", "sunk")


@dataclass(frozen=True)
class Shot:
    """One called square and, when the ruleset reports shots one by one, what it struck.

    `result` is "miss", "hit" or "sunk", or None when only the volley's totals are told (salvo).
    `ship` is the kind id of the ship struck when the ruleset names it (Zeeslag) or on "sunk";
    else None.
    """

    square: Square
    result: str | None = None
    ship: str | None = None

    def to_dict(self, grid: Grid) -> dict[str, Any]:
        """Return the shot as JSON-able data, its square written like "C4"."""
        return {"square": grid.square_name(self.square), "result": self.result, "ship": self.ship}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], grid: Grid) -> Shot:
        """Rebuild a shot from `to_dict` data."""
        return cls(grid.parse_square(data["square"]), data.get("result"), data.get("ship"))


@dataclass(frozen=True)
class Volley:
    """The squares one turn called, and what the defender answered.

    Per-shot rulesets fill each `Shot.result`; salvo-totals rulesets leave them None and tell
    only `hits` (how many of the called squares hit), `ships_hit` (the kind of each ship hit, one
    entry per hit, sorted) and `sunk` (the kinds sunk by this volley). The rules module fills
    `hits`, `ships_hit` and `sunk` for every ruleset, so totals are always available.
    `ring` lists squares the rules mark as sure water after a sinking (Sjøslag), if any.
    """

    shots: tuple[Shot, ...]
    hits: int = 0
    ships_hit: tuple[str, ...] = ()
    sunk: tuple[str, ...] = ()
    ring: tuple[Square, ...] = ()

    def squares(self) -> tuple[Square, ...]:
        """Return the squares this volley called, in calling order."""
        return tuple(s.square for s in self.shots)

    def to_dict(self, grid: Grid) -> dict[str, Any]:
        """Return the volley as JSON-able data."""
        return {
            "shots": [s.to_dict(grid) for s in self.shots],
            "hits": self.hits,
            "ships_hit": list(self.ships_hit),
            "sunk": list(self.sunk),
            "ring": [grid.square_name(s) for s in self.ring],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], grid: Grid) -> Volley:
        """Rebuild a volley from `to_dict` data."""
        return cls(
            tuple(Shot.from_dict(s, grid) for s in data["shots"]),
            int(data.get("hits", 0)),
            tuple(data.get("ships_hit", ())),
            tuple(data.get("sunk", ())),
            tuple(grid.parse_square(s) for s in data.get("ring", ())),
        )
