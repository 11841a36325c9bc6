"""The score sheet's seas drawn as SVG: each sea at the end, its ships' outlines, and where the bombs fell."""

from __future__ import annotations

from typing import Any

from referee.rules import airraid
from referee.rules.grid import Square

HEAT_LEVELS = 4  # 1, 2, 3 and "4 or more" bombs on one square
CELL = 10  # one square of an SVG sea, in its user units; the labels take one more row and column


def sea_picture(state: airraid.State, team: str, sea: dict[str, Any], bombs: dict[str, int]) -> dict[str, Any]:
    """Lay out a sea at the end and its heat map: squares, ship outlines and marks, in SVG units."""
    grid = state.grid(team)
    ship_of: dict[Square, dict[str, Any]] = {}
    for ship in sea.get("ships", []):
        for name in ship["squares"]:
            ship_of[grid.parse_square(name)] = ship
    hits = set(sea.get("hits", []))
    shots = sea.get("shots", {})
    cells, heat = [], []
    for square in grid.squares():
        name = grid.square_name(square)
        ship = ship_of.get(square)
        if ship is not None:
            look = "sunk" if ship.get("sunk") else "hit" if name in hits else "ship"
        else:
            look = "miss" if shots.get(name) == "water" else "water"
        x, y = (square.col + 1) * CELL, (square.row + 1) * CELL
        cells.append({"x": x, "y": y, "look": look, "name": name})
        count = bombs.get(name, 0)
        heat.append({"x": x, "y": y, "count": count, "level": min(count, HEAT_LEVELS), "name": name})
    return {
        "team": team,
        "box": (grid.size + 1) * CELL,
        "columns": [{"x": (i + 1.5) * CELL, "text": c} for i, c in enumerate(sea["columns"])],
        "rows": [{"y": (i + 1.5) * CELL, "text": r} for i, r in enumerate(sea["rows"])],
        "cells": cells,
        "heat": heat,
        "outlines": outline_paths(ship_of),
        "bombs": sum(bombs.values()),
    }


def outline_paths(ship_of: dict[Square, dict[str, Any]]) -> list[dict[str, Any]]:
    """Draw each ship's outline: every side of its squares that borders no square of the same ship."""
    by_ship: dict[str, list[str]] = {}
    sunk: dict[str, bool] = {}
    for sq, ship in ship_of.items():
        x, y = (sq.col + 1) * CELL, (sq.row + 1) * CELL
        sides = by_ship.setdefault(ship["id"], [])
        sunk[ship["id"]] = bool(ship.get("sunk"))
        same = {n for n in sq.neighbours4() if ship_of.get(n) is ship}
        if Square(sq.col, sq.row - 1) not in same:
            sides.append(f"M{x} {y}h{CELL}")
        if Square(sq.col, sq.row + 1) not in same:
            sides.append(f"M{x} {y + CELL}h{CELL}")
        if Square(sq.col - 1, sq.row) not in same:
            sides.append(f"M{x} {y}v{CELL}")
        if Square(sq.col + 1, sq.row) not in same:
            sides.append(f"M{x + CELL} {y}v{CELL}")
    return [{"ship": k, "d": "".join(v), "sunk": sunk[k]} for k, v in sorted(by_ship.items())]
