"""Squares, coordinate conventions and ship shapes on a square grid."""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Self

from .errors import MalformedAction, Msg

LETTERS = string.ascii_uppercase
_SQUARE_RE = re.compile(r"^\s*([A-Za-z])\s*(\d{1,2})\s*$")


@dataclass(frozen=True, order=True)
class Square:
    """One square of a grid: zero-based column (left to right) and row (top to bottom)."""

    col: int
    row: int

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        """Return itself: a value made only of values never changes, so a copy of a state shares it."""
        return self

    def neighbours8(self) -> Iterator[Square]:
        """Yield the eight squares around this one (some may lie off the grid)."""
        for dc in (-1, 0, 1):
            for dr in (-1, 0, 1):
                if dc or dr:
                    yield Square(self.col + dc, self.row + dr)

    def neighbours4(self) -> Iterator[Square]:
        """Yield the four squares sharing a side with this one."""
        yield Square(self.col + 1, self.row)
        yield Square(self.col - 1, self.row)
        yield Square(self.col, self.row + 1)
        yield Square(self.col, self.row - 1)


@dataclass(frozen=True)
class Grid:
    """A square sea of `size`×`size` with its coordinate convention.

    `letters` is "columns" (the air-raid and Sjøslag convention: "B6" is column B, row 6) or
    "rows" (the classic Zeeslag board: "B6" is row B, column 6). The letter always comes first.
    """

    size: int
    letters: str = "columns"

    def __post_init__(self) -> None:
        if not 1 <= self.size <= 26:
            raise MalformedAction(Msg("a sea is 1 to 26 squares wide, not {size}", size=self.size))
        if self.letters not in ("columns", "rows"):
            raise MalformedAction(Msg('letters label "columns" or "rows", not {letters!r}', letters=self.letters))

    def contains(self, square: Square) -> bool:
        """Tell whether a square lies on this grid."""
        return 0 <= square.col < self.size and 0 <= square.row < self.size

    def squares(self) -> Iterator[Square]:
        """Yield every square, row by row."""
        for row in range(self.size):
            for col in range(self.size):
                yield Square(col, row)

    def parse_square(self, text: object) -> Square:
        """Parse a square written like "B6"; refuse anything off this grid."""
        if not isinstance(text, str):
            raise MalformedAction(Msg("a square is written like B6, not {text!r}", text=text))
        match = _SQUARE_RE.match(text)
        if not match:
            raise MalformedAction(Msg("a square is written like B6, not {text!r}", text=text))
        letter = LETTERS.index(match.group(1).upper())
        number = int(match.group(2)) - 1
        square = Square(letter, number) if self.letters == "columns" else Square(number, letter)
        if not self.contains(square):
            raise MalformedAction(
                Msg("{upper} is off the {size}×{size} sea", upper=text.strip().upper(), size=self.size)
            )
        return square

    def square_name(self, square: Square) -> str:
        """Write a square like "B6" in this grid's convention."""
        if self.letters == "columns":
            return f"{LETTERS[square.col]}{square.row + 1}"
        return f"{LETTERS[square.row]}{square.col + 1}"

    def names(self, squares: Iterable[Square]) -> str:
        """Write several squares, sorted, joined by "/" (as in "C4/D5")."""
        return "/".join(self.square_name(s) for s in sorted(squares, key=lambda s: (s.row, s.col)))

    def column_labels(self) -> list[str]:
        """Return the labels along the top edge."""
        if self.letters == "columns":
            return [LETTERS[c] for c in range(self.size)]
        return [str(c + 1) for c in range(self.size)]

    def row_labels(self) -> list[str]:
        """Return the labels down the left edge."""
        if self.letters == "columns":
            return [str(r + 1) for r in range(self.size)]
        return [LETTERS[r] for r in range(self.size)]


Cells = frozenset[tuple[int, int]]


def _normalise(cells: Iterable[tuple[int, int]]) -> Cells:
    cells = list(cells)
    min_c = min(c for c, _ in cells)
    min_r = min(r for _, r in cells)
    return frozenset((c - min_c, r - min_r) for c, r in cells)


@dataclass(frozen=True)
class Shape:
    """A ship's outline: a connected set of cells, drawn as text like "XXXX/.X.."."""

    cells: Cells

    @classmethod
    def from_text(cls, text: str) -> Shape:
        """Parse a shape drawn with "X" for ship and "." for water, rows split by "/"."""
        if not isinstance(text, str) or not text.strip():
            raise MalformedAction(Msg("a shape is drawn like XXXX/.X.. with X for ship and . for water"))
        cells: set[tuple[int, int]] = set()
        for r, line in enumerate(text.strip().split("/")):
            for c, ch in enumerate(line.strip()):
                if ch in "Xx#":
                    cells.add((c, r))
                elif ch not in ".":
                    raise MalformedAction(Msg("a shape uses X and . only, not {ch!r} in {text!r}", ch=ch, text=text))
        if not cells:
            raise MalformedAction(Msg("the shape {text!r} has no X", text=text))
        return cls(_normalise(cells))

    def to_text(self) -> str:
        """Draw this shape as text, rows split by "/"."""
        width = max(c for c, _ in self.cells) + 1
        height = max(r for _, r in self.cells) + 1
        return "/".join("".join("X" if (c, r) in self.cells else "." for c in range(width)) for r in range(height))

    @property
    def size(self) -> int:
        """Return the number of squares."""
        return len(self.cells)

    def is_connected(self) -> bool:
        """Tell whether every cell is reachable from every other through shared sides."""
        start = next(iter(self.cells))
        seen = {start}
        todo = [start]
        while todo:
            c, r = todo.pop()
            for n in ((c + 1, r), (c - 1, r), (c, r + 1), (c, r - 1)):
                if n in self.cells and n not in seen:
                    seen.add(n)
                    todo.append(n)
        return len(seen) == len(self.cells)

    def is_straight(self) -> bool:
        """Tell whether the shape is a single straight line."""
        cols = {c for c, _ in self.cells}
        rows = {r for _, r in self.cells}
        return len(cols) == 1 or len(rows) == 1

    def orientations(self, mirror: bool = True) -> list[Cells]:
        """Return the distinct normalised orientations: rotations, and mirror images if allowed."""
        found: list[Cells] = []
        current = list(self.cells)
        for flip in (False, True) if mirror else (False,):
            base = [(-c, r) for c, r in current] if flip else current
            for _ in range(4):
                base = [(-r, c) for c, r in base]
                norm = _normalise(base)
                if norm not in found:
                    found.append(norm)
        return found

    def matches(self, squares: Iterable[Square], mirror: bool = True) -> bool:
        """Tell whether some squares form this shape, turned or (if allowed) mirrored."""
        cells = [(s.col, s.row) for s in squares]
        if len(cells) != self.size:
            return False
        return _normalise(cells) in self.orientations(mirror)
