"""The board of a Vestorsjø game, built from an already-parsed map file, and the map's own check.

The map is data (`config/maps/<name>.toml`, docs in the map-file contract): terrain by row ("."
sea, "#" land, "P" a port hex), ports, piers and start places. The rules never read files: the
caller loads the TOML and hands the dict over; `map_problems` lists everything wrong with it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import MalformedAction, Msg, RulesetError
from ..ruleset import brief
from .hexes import Edge, Hex, Vertex
from .ruleset import CLASSES, SIDES, SUBMARINE, VestorsjoRuleset, piece_ids

SEA, LAND, PORT = ".", "#", "P"
TERRAIN = (SEA, LAND, PORT)
MOST_COLUMNS = 26
MOST_ROWS = 99
# Used by `map_problems` when no ruleset is given: the fleet and depths of config/rulesets/vestorsjo.toml.
DEFAULT_DEPTHS: dict[str, tuple[str, ...]] = {
    "destroyer": ("destroyer", "frigate", "corvette"),
    "frigate": ("frigate", "corvette"),
    "corvette": ("corvette",),
}
DEFAULT_PIECES: tuple[str, ...] = (
    "destroyer",
    "frigate-1",
    "frigate-2",
    "corvette-1",
    "corvette-2",
    "corvette-3",
    "corvette-4",
    "submarine-1",
    "submarine-2",
)


def class_of(local_id: str) -> str:
    """Return the class of a piece from its id within its side ("frigate-2" is a frigate)."""
    return local_id.rsplit("-", 1)[0] if local_id.rsplit("-", 1)[-1].isdigit() else local_id


@dataclass(frozen=True)
class Port:
    """One port: its name as the seed spells it, side, depth, whether strategic or a sea fort, its hex and corners."""

    index: int
    name: str
    side: str
    depth: str
    strategic: bool
    fort: bool
    hex: Hex
    vertices: frozenset[Vertex]
    place: str = ""


@dataclass
class Board:
    """The map as the rules see it: terrain, ports, piers and start places (the coastline is for drawing only)."""

    name: str
    columns: int
    rows: int
    terrain: dict[Hex, str]
    ports: tuple[Port, ...]
    pier_edges: frozenset[Edge]
    pier_vertices: frozenset[Vertex]
    start: dict[str, dict[str, str]]

    def __post_init__(self) -> None:
        self.port_at = {p.hex: p for p in self.ports}
        self.by_name = {p.name: p for p in self.ports}
        in_port: dict[Vertex, list[Port]] = {}
        for port in self.ports:
            for v in port.vertices:
                in_port.setdefault(v, []).append(port)
        self.in_port = {v: tuple(ps) for v, ps in in_port.items()}
        self.fort_hexes = frozenset(p.hex for p in self.ports if p.fort)
        self._open: dict[Vertex, bool] = {}
        self._steps: dict[Hex, tuple[Hex, ...]] = {}

    # --- Hexes ------------------------------------------------------------------------------

    def on_grid(self, h: Hex) -> bool:
        """Tell whether a hex lies on the map."""
        return 0 <= h.col < self.columns and 0 <= h.row < self.rows

    def at(self, h: Hex) -> str:
        """Return a hex's terrain; off the map counts as land."""
        return self.terrain.get(h, LAND)

    def hexes(self) -> Iterable[Hex]:
        """Yield every hex of the map, row by row."""
        for row in range(self.rows):
            for col in range(self.columns):
                yield Hex(col, row)

    def parse_hex(self, text: object) -> Hex:
        """Parse a hex that must lie on the map."""
        h = Hex.parse(text)
        if not self.on_grid(h):
            raise _off_map(h)
        return h

    def ship_may_stand(self, h: Hex, side: str, cls: str, rs: VestorsjoRuleset | None = None) -> bool:
        """Tell whether a warship may be in a hex: sea, or a port deep enough (of the enemy's, a strategic one)."""
        terrain = self.at(h)
        if terrain == SEA:
            return True
        port = self.port_at.get(h)
        if terrain != PORT or port is None or (port.side != side and not port.strategic):
            return False
        if rs is not None:
            return rs.admits(port.depth, cls)
        return cls in DEFAULT_DEPTHS.get(port.depth, ())

    def ship_steps(self, h: Hex) -> tuple[Hex, ...]:
        """Yield the hexes one step from a hex that no pier separates from it (of any terrain)."""
        known = self._steps.get(h)
        if known is None:
            known = tuple(n for n in h.neighbours() if self.on_grid(n) and Edge.of(h, n) not in self.pier_edges)
            self._steps[h] = known
        return known

    # --- Corners ----------------------------------------------------------------------------

    def vertex_on_grid(self, v: Vertex) -> bool:
        """Tell whether all three hexes of a corner lie on the map."""
        return all(self.on_grid(h) for h in v.hexes)

    def at_fort(self, hexes: Iterable[Hex]) -> bool:
        """Tell whether a pier corner or side belongs to a sea fort (open to submarines)."""
        return any(h in self.fort_hexes for h in hexes)

    def sub_may_stand(self, v: Vertex) -> bool:
        """Tell whether a submarine may stand on or pass a corner: on the map, touching sea, no pier but a fort's."""
        known = self._open.get(v)
        if known is None:
            known = (
                self.vertex_on_grid(v)
                and any(self.at(h) == SEA for h in v.hexes)
                and (v not in self.pier_vertices or self.at_fort(v.hexes))
            )
            self._open[v] = known
        return known

    def sub_may_follow(self, edge: Edge, rs: VestorsjoRuleset) -> bool:
        """Tell whether a submarine may step along a hex side (the ruleset's choices on coasts and piers)."""
        if not rs.coast_edges and not any(self.at(h) == SEA for h in edge.hexes):
            return False
        return rs.pier_edges or edge not in self.pier_edges or self.at_fort(edge.hexes)

    def ports_of(self, v: Vertex) -> tuple[Port, ...]:
        """Return the ports a corner counts as "in port" for."""
        return self.in_port.get(v, ())

    def parse_vertex(self, text: object) -> Vertex:
        """Parse a corner that must lie on the map."""
        v = Vertex.parse(text)
        if not self.vertex_on_grid(v):
            raise _off_map(v)
        return v

    def corners_on_grid(self, h: Hex) -> tuple[Vertex, ...]:
        """Return the corners of a hex that lie wholly on the map."""
        return tuple(v for v in h.corners() if self.vertex_on_grid(v))


def _off_map(place: Hex | Vertex) -> MalformedAction:
    """Return the refusal of a place off the map."""
    return MalformedAction(Msg("{place} is off the map", place=place.format()))


# --- Moving -----------------------------------------------------------------------------------


def ship_reach(
    board: Board,
    rs: VestorsjoRuleset,
    side: str,
    cls: str,
    start: Hex,
    steps: int,
    blocked: frozenset[Hex] | set[Hex],
    occupied: frozenset[Hex] | set[Hex],
) -> set[Hex]:
    """Return the hexes a warship may end a move on: within `steps`, never across a pier, never through `blocked`."""
    seen = {start}
    frontier = [start]
    for _ in range(steps):
        nxt = []
        for h in frontier:
            for n in board.ship_steps(h):
                if n in seen or n in blocked or not board.ship_may_stand(n, side, cls, rs):
                    continue
                seen.add(n)
                nxt.append(n)
        frontier = nxt
    return {h for h in seen if h != start and h not in occupied}


def sub_reach(
    board: Board,
    rs: VestorsjoRuleset,
    start: Vertex,
    steps: int,
    blocked: frozenset[Vertex] | set[Vertex],
    occupied: frozenset[Vertex] | set[Vertex],
) -> set[Vertex]:
    """Return the corners a submarine may end a move on: within `steps` hex sides, never through `blocked`."""
    seen = {start}
    frontier = [start]
    for _ in range(steps):
        nxt = []
        for v in frontier:
            for edge, w in v.steps():
                if w in seen or w in blocked or not board.sub_may_stand(w) or not board.sub_may_follow(edge, rs):
                    continue
                seen.add(w)
                nxt.append(w)
        frontier = nxt
    return {v for v in seen if v != start and v not in occupied}


# --- Reading and checking the map ------------------------------------------------------------


class _Reader:
    """Read a map dict, collecting (key, reason) problems instead of stopping at the first."""

    def __init__(self) -> None:
        self.problems: list[tuple[str, str]] = []

    def add(self, key: str, reason: str) -> None:
        self.problems.append((key, reason))

    def hex(self, text: object, key: str) -> Hex | None:
        try:
            return Hex.parse(text)
        except MalformedAction as exc:
            self.add(key, exc.message)
            return None

    def vertex(self, text: object, key: str) -> Vertex | None:
        try:
            return Vertex.parse(text)
        except MalformedAction as exc:
            self.add(key, exc.message)
            return None

    def edge(self, text: object, key: str) -> Edge | None:
        try:
            return Edge.parse(text)
        except MalformedAction as exc:
            self.add(key, exc.message)
            return None


def _grid(r: _Reader, data: Mapping[str, Any]) -> tuple[str, int, int, dict[Hex, str]] | None:
    head = data.get("map")
    if not isinstance(head, Mapping):
        r.add("map", "missing table")
        return None
    name = head.get("name")
    if not isinstance(name, str) or not name.strip():
        r.add("map.name", "missing text")
        name = "?"
    columns, rows = head.get("columns"), head.get("rows")
    if isinstance(columns, bool) or not isinstance(columns, int) or not 1 <= columns <= MOST_COLUMNS:
        r.add("map.columns", f"must be a whole number from 1 to {MOST_COLUMNS} (the letters A–Z), not {brief(columns)}")
        return None
    if isinstance(rows, bool) or not isinstance(rows, int) or not 1 <= rows <= MOST_ROWS:
        r.add("map.rows", f"must be a whole number from 1 to {MOST_ROWS}, not {brief(rows)}")
        return None
    lines = head.get("terrain")
    if not isinstance(lines, list) or len(lines) != rows:
        r.add("map.terrain", f"must list {rows} rows, one string each")
        return None
    terrain: dict[Hex, str] = {}
    for row, line in enumerate(lines):
        if not isinstance(line, str) or len(line) != columns or any(ch not in TERRAIN for ch in line):
            r.add(f"map.terrain[{row}]", f'must be {columns} characters of ".", "#" and "P", not {brief(line)}')
            return None
        for col, ch in enumerate(line):
            terrain[Hex(col, row)] = ch
    return name, columns, rows, terrain


def _port(r: _Reader, i: int, entry: Any, board: Board, depths: Mapping[str, tuple[str, ...]]) -> Port | None:
    key = f"ports[{i}]"
    if not isinstance(entry, Mapping):
        r.add(key, "must be a table")
        return None
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        r.add(f"{key}.name", "missing text")
        return None
    side, depth = entry.get("side"), entry.get("depth")
    ok = True
    if side not in SIDES:
        r.add(f"{key}.side", f"{name}: must be one of {', '.join(SIDES)}, not {brief(side)}")
        ok = False
    if depth not in depths:
        r.add(f"{key}.depth", f"{name}: must be one of {', '.join(depths)}, not {brief(depth)}")
        ok = False
    strategic, fort = entry.get("strategic", False), entry.get("fort", False)
    if not isinstance(strategic, bool) or not isinstance(fort, bool):
        r.add(key, f"{name}: strategic and fort are true or false")
        ok = False
    h = r.hex(entry.get("hex"), f"{key}.hex")
    if h is None:
        return None
    if not board.on_grid(h):
        r.add(f"{key}.hex", f"{name}: {h} is off the map")
        return None
    if board.at(h) != PORT:
        r.add(f"{key}.hex", f'{name}: {h} is not a port hex ("P") on the terrain')
    if not any(board.at(n) == SEA for n in h.neighbours() if board.on_grid(n)):
        r.add(f"{key}.hex", f"{name}: {h} is not next to the sea")
    raw_vertices = entry.get("vertices", [])
    vertices: set[Vertex] = set()
    if not isinstance(raw_vertices, list):
        r.add(f"{key}.vertices", f"{name}: must list corners like F12/G12/F13")
        raw_vertices = []
    corners = set(h.corners())
    for j, text in enumerate(raw_vertices):
        v = r.vertex(text, f"{key}.vertices[{j}]")
        if v is None:
            continue
        if v not in corners:
            r.add(f"{key}.vertices[{j}]", f"{name}: {v} is not a corner of the port's hex {h}")
        elif not board.vertex_on_grid(v) or not any(board.at(x) == SEA for x in v.hexes):
            r.add(
                f"{key}.vertices[{j}]", f"{name}: {v} is not a corner a submarine may stand on (on the map, by the sea)"
            )
        else:
            vertices.add(v)
    if not ok:
        return None
    place = entry.get("place", "")
    return Port(i, name.strip(), str(side), str(depth), strategic, fort, h, frozenset(vertices), str(place))


def _ports(r: _Reader, data: Mapping[str, Any], board: Board, depths: Mapping[str, tuple[str, ...]]) -> list[Port]:
    raw = data.get("ports")
    if not isinstance(raw, list) or not raw:
        r.add("ports", "must list the ports, one [[ports]] table each")
        return []
    ports: list[Port] = []
    for i, entry in enumerate(raw):
        port = _port(r, i, entry, board, depths)
        if port is None:
            continue
        if any(p.name == port.name for p in ports):
            r.add(f"ports[{i}].name", f"{port.name}: a second port of this name")
        elif any(p.hex == port.hex for p in ports):
            r.add(f"ports[{i}].hex", f"{port.name}: {port.hex} already holds another port")
        else:
            ports.append(port)
    named = {p.hex for p in ports}
    for h, ch in board.terrain.items():
        if ch == PORT and h not in named:
            r.add("map.terrain", f"{h} is a port hex that no port names")
    for side in SIDES:
        own = [p for p in ports if p.side == side]
        if not own:
            r.add("ports", f"{side} has no ports")
        elif not any(p.strategic for p in own):
            r.add("ports", f"{side} has no strategic port")
    return ports


def _piers(r: _Reader, data: Mapping[str, Any], board: Board) -> tuple[frozenset[Edge], frozenset[Vertex]]:
    raw = data.get("piers", {})
    if not isinstance(raw, Mapping):
        r.add("piers", "must be a table of edges and vertices")
        return frozenset(), frozenset()
    port_hexes = set(board.port_at)
    edges: set[Edge] = set()
    for j, text in enumerate(raw.get("edges", [])):
        e = r.edge(text, f"piers.edges[{j}]")
        if e is None:
            continue
        if not all(board.on_grid(h) for h in e.hexes):
            r.add(f"piers.edges[{j}]", f"{e} is not on the map")
        elif not any(h in port_hexes for h in e.hexes):
            r.add(f"piers.edges[{j}]", f"{e} dangles: a pier must touch a port hex")
        else:
            edges.add(e)
    vertices: set[Vertex] = set()
    for j, text in enumerate(raw.get("vertices", [])):
        v = r.vertex(text, f"piers.vertices[{j}]")
        if v is None:
            continue
        if not board.vertex_on_grid(v):
            r.add(f"piers.vertices[{j}]", f"{v} is not on the map")
        elif not any(h in port_hexes for h in v.hexes):
            r.add(f"piers.vertices[{j}]", f"{v} dangles: a pier must touch a port hex")
        else:
            vertices.add(v)
    return frozenset(edges), frozenset(vertices)


def _start(
    r: _Reader, data: Mapping[str, Any], board: Board, pieces: tuple[str, ...], rs: VestorsjoRuleset | None
) -> dict[str, dict[str, str]]:
    raw = data.get("start")
    if not isinstance(raw, Mapping):
        r.add("start", "missing table: the start places of both sides")
        return {}
    start: dict[str, dict[str, str]] = {}
    for side in SIDES:
        places = raw.get(side)
        if not isinstance(places, Mapping):
            r.add(f"start.{side}", "missing table")
            continue
        for local in places:
            if local not in pieces:
                r.add(f"start.{side}.{local}", f"unknown piece (known: {', '.join(pieces)})")
        start[side] = {}
        for local in pieces:
            if local not in places:
                r.add(f"start.{side}.{local}", "missing start place")
                continue
            start[side][local] = str(places[local])
    for side, key, reason in start_problems(board, start, rs):
        r.add(f"start.{side}.{key}", reason)
    return start


def _start_place(board: Board, side: str, cls: str, text: str, rs: VestorsjoRuleset | None) -> tuple[str, str | None]:
    """Return a start place's name and why a piece of a class may not start there (None: it may)."""
    try:
        if cls == SUBMARINE:
            v = Vertex.parse(text)
            if not board.sub_may_stand(v):
                return v.format(), f"{v}: a submarine may not stand there (off the map, not by the sea, or a pier)"
            return v.format(), None
        h = Hex.parse(text)
    except MalformedAction as exc:
        return text, exc.message
    port = board.port_at.get(h)
    if not board.on_grid(h) or not board.ship_may_stand(h, side, cls, rs):
        return h.format(), f"{h}: a {cls} of {side} may not stand there (land, a port too shallow, not its own)"
    if port is not None and port.side != side:
        return h.format(), f"{h}: a piece may not start in an enemy port"
    return h.format(), None


def start_problems(
    board: Board, start: Mapping[str, Mapping[str, str]], rs: VestorsjoRuleset | None
) -> list[tuple[str, str, str]]:
    """Return (side, piece, reason) for every start place that is not legal, the pieces' classes by their ids."""
    problems: list[tuple[str, str, str]] = []
    taken: dict[str, str] = {}
    for side, places in start.items():
        for local, text in places.items():
            cls = class_of(local)
            if cls not in CLASSES:
                problems.append((side, local, f"unknown class {cls}"))
                continue
            name, why = _start_place(board, side, cls, text, rs)
            if why is not None:
                problems.append((side, local, why))
            elif name in taken:
                problems.append((side, local, f"{name} is taken already by {taken[name]}"))
            else:
                taken[name] = f"{side}.{local}"
    return problems


def _reachable(board: Board, rs: VestorsjoRuleset | None, side: str, cls: str, start: Hex) -> set[Hex]:
    seen = {start}
    todo = [start]
    while todo:
        h = todo.pop()
        for n in board.ship_steps(h):
            if n not in seen and board.ship_may_stand(n, side, cls, rs):
                seen.add(n)
                todo.append(n)
    return seen


def _reach_problems(r: _Reader, board: Board, rs: VestorsjoRuleset | None) -> None:
    """Every strategic port must be reachable, by a ship of its own depth, from each side's destroyer's start."""
    reach: dict[tuple[str, str], set[Hex]] = {}  # one flood per side and depth, not one per port
    for side in SIDES:
        text = board.start.get(side, {}).get("destroyer")
        if text is None:
            continue
        try:
            origin = Hex.parse(text)
        except MalformedAction:
            continue
        for port in board.ports:
            if not port.strategic:
                continue
            key = (side, port.depth)
            if key not in reach:
                reach[key] = _reachable(board, rs, side, port.depth, origin)
            if port.hex not in reach[key]:
                r.add(
                    f"ports[{port.index}].hex",
                    f"{port.name}: a {port.depth} of {side} cannot sail there from the destroyer's start {origin}",
                )


def _read(data: Mapping[str, Any], rs: VestorsjoRuleset | None) -> tuple[Board | None, list[tuple[str, str]]]:
    r = _Reader()
    if not isinstance(data, Mapping):
        return None, [("-", "a map is a table (a parsed map file)")]
    grid = _grid(r, data)
    if grid is None:
        return None, r.problems
    name, columns, rows, terrain = grid
    board = Board(name, columns, rows, terrain, (), frozenset(), frozenset(), {})
    depths = rs.depths if rs is not None else DEFAULT_DEPTHS
    ports = _ports(r, data, board, depths)
    board = Board(name, columns, rows, terrain, tuple(ports), frozenset(), frozenset(), {})
    edges, vertices = _piers(r, data, board)
    board = Board(name, columns, rows, terrain, tuple(ports), edges, vertices, {})
    pieces = tuple(_pieces(rs)) if rs is not None else DEFAULT_PIECES
    board.start = _start(r, data, board, pieces, rs)
    _reach_problems(r, board, rs)
    return board, r.problems


def _pieces(rs: VestorsjoRuleset) -> list[str]:
    return [local for local, _ in piece_ids(rs)]


def map_problems(data: Mapping[str, Any], rs: VestorsjoRuleset | None = None) -> list[tuple[str, str]]:
    """Return (key, reason) for everything wrong with a parsed map: ports, piers, start places, reach."""
    return _read(data, rs)[1]


def read_board(data: Mapping[str, Any], rs: VestorsjoRuleset | None = None, source: str = "<map>") -> Board:
    """Build the board of a parsed map; raise RulesetError listing every problem."""
    board, problems = _read(data, rs)
    if problems or board is None:
        raise RulesetError([(source, key, reason) for key, reason in problems])
    return board
