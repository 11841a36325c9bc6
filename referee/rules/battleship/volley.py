"""The referee of one volley: what the shooter is told of each square called."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..grid import Grid, Square
from ..sea import Ship
from ..shots import Shot, Volley
from .ruleset import BattleshipRuleset

# --- One volley, refereed --------------------------------------------------------------------


def ring_of(grid: Grid, squares: Iterable[Square]) -> tuple[Square, ...]:
    """Return the squares around a ship (sides and corners) that lie on the grid, sorted."""
    body = set(squares)
    around = {n for s in body for n in s.neighbours8() if grid.contains(n) and n not in body}
    return tuple(sorted(around, key=lambda s: (s.row, s.col)))


def answer(
    ruleset: BattleshipRuleset, ships: Sequence[Ship], already_hit: frozenset[Square], squares: Sequence[Square]
) -> Volley:
    """Referee one volley at a fleet: return what the shooter is told under the ruleset's report rule.

    `already_hit` holds the squares shot at this fleet before (misses in it change nothing).
    Per-shot reports answer each square in calling order, so a ship sunk by the second shot of a
    salvo reads "sunk" there; "totals" leaves every shot's result empty. `hits`, `ships_hit` and
    `sunk` are always filled; `ring` holds the squares around each ship sunk when the ruleset
    marks them.
    """
    grid = ruleset.grid()
    where = {s: ship for ship in ships for s in ship.squares}
    struck = set(already_hit)
    told: list[Shot] = []
    ships_hit: list[str] = []
    sunk: list[str] = []
    ring: list[Square] = []
    for square in squares:
        ship = where.get(square)
        if ship is None or square in struck:
            # A square already hit strikes nothing new; the game refuses such shots, but
            # `answer` stays total for the AI's simulations.
            struck.add(square)
            told.append(Shot(square) if ruleset.report == "totals" else Shot(square, "miss"))
            continue
        struck.add(square)
        ships_hit.append(ship.kind)
        result = "hit"
        if ship.squares <= struck:
            result = "sunk"
            sunk.append(ship.kind)
            if ruleset.sunk_ring:
                ring.extend(s for s in ring_of(grid, ship.squares) if s not in ring)
        if ruleset.report == "totals":
            told.append(Shot(square))
        elif ruleset.report == "named" or result == "sunk":
            told.append(Shot(square, result, ship.kind))
        else:
            told.append(Shot(square, result))
    return Volley(tuple(told), len(ships_hit), tuple(sorted(ships_hit)), tuple(sunk), tuple(ring))
