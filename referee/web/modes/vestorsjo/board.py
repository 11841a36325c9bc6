"""Vestorsjø's board drawn as SVG, once per map: the real coast, the hexes, ports, piers, forts and coordinates.

The page puts it in as it is; the page's script draws the pieces and highlights over it from
each view (static/js/vestorsjo/board.js).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from markupsafe import Markup, escape

from referee.rules import vestorsjo as vs
from referee.rules.vestorsjo.hexes import Edge, Hex, Vertex
from referee.web.modes.vestorsjo.games import map_data, ruleset_data

UNIT = 10.0  # SVG units per hex step (the map's unit): whole-ish numbers keep the markup short
ROOT3 = math.sqrt(3.0)
# A pointy-top hex's outline from its top corner, clockwise, relative (the same for every hex).
HEX_TAIL = "l{a} {b}v{c}l-{a} {b}-{a}-{b}v-{c}z".format(
    a=f"{UNIT / 2:g}", b=f"{UNIT / (2 * ROOT3):.2f}", c=f"{UNIT / ROOT3:.2f}"
)


def centre(h: Hex) -> tuple[float, float]:
    """Return a hex's centre in board units (the map contract's geometry, scaled by UNIT)."""
    return ((h.col + 0.5 * (h.row & 1)) * UNIT, h.row * ROOT3 / 2 * UNIT)


def corner(v: Vertex) -> tuple[float, float]:
    """Return a corner's place: the middle of its three hexes' centres."""
    points = [centre(h) for h in v.hexes]
    return (sum(p[0] for p in points) / 3, sum(p[1] for p in points) / 3)


def _f(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".") or "0"


def _hex_path(hexes: list[Hex]) -> str:
    parts = []
    for h in hexes:
        x, y = centre(h)
        parts.append(f"M{_f(x)} {_f(y - UNIT / ROOT3)}{HEX_TAIL}")
    return "".join(parts)


def _label_side(board: vs.Board, port: Any) -> str:
    """Say where a port's name goes: onto its own side's land ("e" east for Scania, "w" for Zealand).

    A name is put the other way when a port stands right behind the land it would cover (Ven's two
    ports face each other across the island); a sea fort's name goes under it.
    """
    if port.fort:
        return "s"
    first, second = ("e", "w") if port.side == "scania" else ("w", "e")
    for way in (first, second):
        step = 1 if way == "e" else -1
        near, far = Hex(port.hex.col + step, port.hex.row), Hex(port.hex.col + 2 * step, port.hex.row)
        if board.at(near) != "." and far not in board.port_at:
            return way
    return first


@lru_cache(maxsize=4)
def board_svg(map_name: str) -> dict[str, Any]:
    """Return the static board of a map: its viewBox, size and the SVG markup inside <svg> (no words to translate)."""
    raw = map_data(map_name)
    board = vs.read_board({k: v for k, v in raw.items() if k != "coast"}, vs.read_ruleset(ruleset_data()))
    cols, rows = board.columns, board.rows
    left, top = -UNIT * 1.2, -UNIT * 1.2
    width = (cols + 0.5) * UNIT + UNIT * 1.4
    height = (rows - 1) * ROOT3 / 2 * UNIT + UNIT * 2.4
    out: list[str] = [
        f'<rect class="vs-water" x="{_f(left)}" y="{_f(top)}" width="{_f(width)}" height="{_f(height)}"/>'
    ]
    # The real coastline: land polygons, filled, with the coast drawn as a line.
    coast = []
    for shape in raw.get("coast", []):
        if shape.get("kind", "land") != "land":
            continue
        pts = shape.get("points", [])
        if len(pts) < 3:
            continue
        coast.append("M" + "L".join(f"{_f(x * UNIT)} {_f(y * UNIT)}" for x, y in pts) + "Z")
    out.append(f'<path class="vs-land" d="{"".join(coast)}"/>')
    sea = [h for h in board.hexes() if board.at(h) == "."]
    land = [h for h in board.hexes() if board.at(h) == "#"]
    out.append(f'<path class="vs-land-hex" d="{_hex_path(land)}"/>')
    out.append(f'<path class="vs-grid" d="{_hex_path(sea)}"/>')
    for side in vs.SIDES:
        hexes = [p.hex for p in board.ports if p.side == side]
        out.append(f'<path class="vs-port-hex side-{side}" d="{_hex_path(hexes)}"/>')
    # Piers: a thick line along the hex side; a pier corner a small square (hollow at a fort).
    piers = []
    for edge in sorted(board.pier_edges, key=Edge.format):
        (x1, y1), (x2, y2) = (corner(v) for v in edge.ends())
        piers.append(f"M{_f(x1)} {_f(y1)}L{_f(x2)} {_f(y2)}")
    out.append(f'<path class="vs-pier" d="{"".join(piers)}"/>')
    for v in sorted(board.pier_vertices, key=Vertex.format):
        x, y = corner(v)
        cls = "vs-pier-v is-fort" if board.at_fort(v.hexes) else "vs-pier-v"
        out.append(f'<rect class="{cls}" x="{_f(x - 1)}" y="{_f(y - 1)}" width="2" height="2"/>')
    # Ports: a mark at the top of the hex (★ strategic, ⚓ other, a bastion for a sea fort).
    marks = []
    for p in board.ports:
        x, y = centre(p.hex)
        y -= UNIT * 0.3
        if p.fort:
            d = f"M{_f(x)} {_f(y - 2.2)}l2.2 2.2-2.2 2.2-2.2-2.2z"
            marks.append(f'<path class="vs-fort side-{p.side}" d="{d}"/>')
        elif p.strategic:
            marks.append(
                f'<text class="vs-port-mark is-strategic side-{p.side}" x="{_f(x)}" y="{_f(y + 1.6)}">★</text>'
            )
        else:
            marks.append(f'<text class="vs-port-mark side-{p.side}" x="{_f(x)}" y="{_f(y + 1.3)}">⚓</text>')
    out.append('<g class="vs-port-marks" aria-hidden="true">' + "".join(marks) + "</g>")
    labels = []
    for p in board.ports:
        x, y = centre(p.hex)
        way = _label_side(board, p)
        lx = x + (UNIT * 0.62 if way == "e" else -UNIT * 0.62 if way == "w" else 0)
        ly = y + (UNIT * 0.95 if way == "s" else 0)
        anchor = {"e": "start", "w": "end", "s": "middle"}[way]
        cls = "vs-port-name" + (" is-strategic" if p.strategic else "") + (" is-fort" if p.fort else "")
        labels.append(
            f'<text class="{cls} side-{p.side}" x="{_f(lx)}" y="{_f(ly)}" text-anchor="{anchor}"'
            f' data-port="{escape(p.name)}">{escape(p.name)}</text>'
        )
    out.append('<g class="vs-labels" id="vs-labels">' + "".join(labels) + "</g>")
    # Column letters above row 1 and row numbers west of column A, to read a hex's name.
    coords = []
    for c in range(cols):
        coords.append(f'<text x="{_f(c * UNIT + UNIT * 0.25)}" y="{_f(-UNIT * 0.75)}">{Hex(c, 0).format()[0]}</text>')
    for r in range(0, rows, 2):
        coords.append(f'<text x="{_f(-UNIT * 0.75)}" y="{_f(r * ROOT3 / 2 * UNIT + 1.5)}">{r + 1}</text>')
    out.append('<g class="vs-coords" id="vs-coords" aria-hidden="true">' + "".join(coords) + "</g>")
    return {
        "viewbox": f"{_f(left)} {_f(top)} {_f(width)} {_f(height)}",
        "box": [left, top, width, height],
        "inner": Markup("".join(out)),
        "unit": UNIT,
    }
