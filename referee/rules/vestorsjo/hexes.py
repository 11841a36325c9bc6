"""Hexes, their corners (vertices) and sides (edges) on a pointy-top "odd-r" grid, with paired parse/format.

A hex is written like `F12` (column letter A–Z west to east, row number 1… north to south); rows
2, 4, 6… are shoved half a hex east. A vertex is named by its three hexes sorted by (row, column)
and joined by "/" (`F12/G12/F13`), an edge by its two hexes joined by "|" (`F12|G12`). Distance is
the cube distance, counted as if the grid went on everywhere (over land too).
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from functools import lru_cache

from ..errors import MalformedAction, Msg

LETTERS = string.ascii_uppercase
_HEX_RE = re.compile(r"^([A-Z])([1-9][0-9]{0,2})$")
# Axial directions in turning order (E, NE, NW, W, SW, SE): two directions in a row point at two
# hexes that touch each other, so each pair names one corner.
_DIRECTIONS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


@dataclass(frozen=True, slots=True)
class Hex:
    """One hex: zero-based column (west to east) and row index (north to south); it may lie off a map."""

    col: int
    row: int

    @classmethod
    def parse(cls, text: object) -> Hex:
        """Parse a hex written like "F12"."""
        if not isinstance(text, str):
            raise MalformedAction(Msg("a hex is written like F12, not {text!r}", text=text))
        return _parse_hex(text)

    def format(self) -> str:
        """Write the hex like "F12" (only hexes east and south of A1 have a name)."""
        if not (0 <= self.col < len(LETTERS) and self.row >= 0):
            raise MalformedAction(Msg("the hex at column {col}, row {row} has no name", col=self.col, row=self.row))
        return f"{LETTERS[self.col]}{self.row + 1}"

    def __str__(self) -> str:
        return self.format()

    def key(self) -> tuple[int, int]:
        """Return the sort key of the map contract: by row, then column."""
        return (self.row, self.col)

    def axial(self) -> tuple[int, int]:
        """Return the axial coordinates (q, r) of the odd-r offset hex."""
        return self.col - (self.row - (self.row & 1)) // 2, self.row

    @classmethod
    def from_axial(cls, q: int, r: int) -> Hex:
        """Return the hex of axial coordinates (q, r)."""
        return cls(q + (r - (r & 1)) // 2, r)

    def neighbours(self) -> tuple[Hex, ...]:
        """Return the six hexes around this one, in turning order (some may lie off a map)."""
        return _neighbours(self)

    def distance(self, other: Hex) -> int:
        """Return the number of steps between two hexes, counted as if the grid were everywhere."""
        q1, r1 = self.axial()
        q2, r2 = other.axial()
        return (abs(q1 - q2) + abs(r1 - r2) + abs((q1 + r1) - (q2 + r2))) // 2

    def touches(self, other: Hex) -> bool:
        """Tell whether two hexes share a side."""
        return self.distance(other) == 1

    def corners(self) -> tuple[Vertex, ...]:
        """Return the six corners of the hex."""
        return _corners(self)

    def sides(self) -> tuple[Edge, ...]:
        """Return the six sides of the hex."""
        return tuple(Edge.of(self, n) for n in self.neighbours())


def _sorted(*hexes: Hex) -> tuple[Hex, ...]:
    return tuple(sorted(hexes, key=Hex.key))


@dataclass(frozen=True, slots=True)
class Edge:
    """One side of a hex, known by the two hexes it separates (sorted by row, then column)."""

    hexes: tuple[Hex, Hex]

    @classmethod
    def of(cls, a: Hex, b: Hex) -> Edge:
        """Return the side between two touching hexes."""
        if not a.touches(b):
            raise MalformedAction(Msg("{a} and {b} do not share a side", a=_name(a), b=_name(b)))
        first, second = _sorted(a, b)
        return cls((first, second))

    @classmethod
    def parse(cls, text: object) -> Edge:
        """Parse an edge written like "F12|G12"."""
        if not isinstance(text, str) or text.count("|") != 1:
            raise MalformedAction(Msg("an edge is written like F12|G12, not {text!r}", text=text))
        a, b = (Hex.parse(part) for part in text.split("|"))
        return cls.of(a, b)

    def format(self) -> str:
        """Write the edge like "F12|G12"."""
        return "|".join(h.format() for h in self.hexes)

    def __str__(self) -> str:
        return self.format()

    def ends(self) -> tuple[Vertex, Vertex]:
        """Return the two corners at the ends of this side."""
        a, b = self.hexes
        common = _sorted(*(set(a.neighbours()) & set(b.neighbours())))
        return Vertex.of(a, b, common[0]), Vertex.of(a, b, common[1])


@dataclass(frozen=True, slots=True)
class Vertex:
    """One corner where three hexes meet, known by those hexes (sorted by row, then column)."""

    hexes: tuple[Hex, Hex, Hex]

    @classmethod
    def of(cls, a: Hex, b: Hex, c: Hex) -> Vertex:
        """Return the corner of three hexes that touch each other."""
        if not (a.touches(b) and b.touches(c) and a.touches(c)):
            raise MalformedAction(Msg("{a}, {b} and {c} do not meet in one corner", a=_name(a), b=_name(b), c=_name(c)))
        first, second, third = _sorted(a, b, c)
        return cls((first, second, third))

    @classmethod
    def parse(cls, text: object) -> Vertex:
        """Parse a vertex written like "F12/G12/F13"."""
        if not isinstance(text, str) or text.count("/") != 2:
            raise MalformedAction(Msg("a vertex is written like F12/G12/F13, not {text!r}", text=text))
        return _parse_vertex(text)

    def format(self) -> str:
        """Write the vertex like "F12/G12/F13"."""
        return "/".join(h.format() for h in self.hexes)

    def __str__(self) -> str:
        return self.format()

    def steps(self) -> tuple[tuple[Edge, Vertex], ...]:
        """Return the three neighbouring corners, each with the hex side that leads there."""
        return _vertex_steps(self)

    def neighbours(self) -> tuple[Vertex, ...]:
        """Return the three corners one hex side away."""
        return tuple(v for _, v in _vertex_steps(self))

    def touches(self, other: Vertex) -> bool:
        """Tell whether two corners are one hex side apart."""
        return other in self.neighbours()


# Places are parsed and looked around again and again (every legal action, every view): the
# answers never change, so they are kept. Errors are not cached, only successful parses.


@lru_cache(maxsize=8192)
def _parse_hex(text: str) -> Hex:
    clean = text.strip().upper()
    if not _HEX_RE.match(clean):
        raise MalformedAction(Msg("a hex is written like F12, not {text!r}", text=text))
    return Hex(LETTERS.index(clean[0]), int(clean[1:]) - 1)


@lru_cache(maxsize=8192)
def _parse_vertex(text: str) -> Vertex:
    a, b, c = (Hex.parse(part) for part in text.split("/"))
    return Vertex.of(a, b, c)


@lru_cache(maxsize=8192)
def _neighbours(h: Hex) -> tuple[Hex, ...]:
    q, r = h.axial()
    return tuple(Hex.from_axial(q + dq, r + dr) for dq, dr in _DIRECTIONS)


@lru_cache(maxsize=8192)
def _corners(h: Hex) -> tuple[Vertex, ...]:
    around = h.neighbours()
    return tuple(Vertex.of(h, around[i], around[(i + 1) % 6]) for i in range(6))


@lru_cache(maxsize=8192)
def _vertex_steps(v: Vertex) -> tuple[tuple[Edge, Vertex], ...]:
    a, b, c = v.hexes
    edges = (Edge.of(a, b), Edge.of(a, c), Edge.of(b, c))
    return tuple((edge, next(w for w in edge.ends() if w != v)) for edge in edges)


def _name(h: Hex) -> str:
    try:
        return h.format()
    except MalformedAction:
        return f"({h.col}, {h.row})"
