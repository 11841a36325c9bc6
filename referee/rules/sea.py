"""A team's sea: ship kinds, the fleet placement check, and the sea written as text."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Self

from .errors import MalformedAction, Msg, Name
from .grid import LETTERS, Grid, Shape, Square
from .placement import Budget, Impossible, fleet_fits, random_fleet


@dataclass(frozen=True)
class ShipKind:
    """A kind of ship from the ruleset: its id, name, shape and planes it carries."""

    id: str
    name: str
    shape: Shape
    names: Mapping[str, str] = field(default_factory=dict)
    fighters: int = 0
    bombers: int = 0

    def name_in(self, lang: str | None) -> str:
        """Return the kind's name in a language, falling back to the ruleset's own."""
        if lang and lang in self.names:
            return self.names[lang]
        return self.name


@dataclass(frozen=True)
class SeaRules:
    """How a sea is laid out: coordinates, the ship kinds and the placement rule."""

    kinds: Mapping[str, ShipKind]
    letters: str = "columns"
    touching: bool = False
    mirror: bool = True
    straight: bool = False

    def grid(self, size: int) -> Grid:
        """Return the grid of a sea of this size."""
        return Grid(size, self.letters)


@dataclass(frozen=True)
class Ship:
    """One placed ship: its letter in the sea, its kind and its squares."""

    id: str
    kind: str
    squares: frozenset[Square]

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        """Return itself: a value made only of values never changes, so a copy of a state shares it."""
        return self

    def to_dict(self, grid: Grid) -> dict[str, object]:
        """Return the ship as JSON-able data with squares written like "B6"."""
        return {
            "id": self.id,
            "kind": self.kind,
            "squares": [grid.square_name(s) for s in sorted(self.squares, key=lambda s: (s.row, s.col))],
        }

    @classmethod
    def from_dict(cls, data: object, grid: Grid) -> Ship:
        """Parse a ship from JSON-able data; refuse anything malformed."""
        if not isinstance(data, dict):
            raise MalformedAction(Msg("a ship is an object with kind and squares"))
        kind = data.get("kind")
        squares = data.get("squares")
        ship_id = data.get("id", "")
        if not isinstance(kind, str) or not kind:
            raise MalformedAction(Msg("a ship needs its kind"))
        if len(kind) > 40:
            raise MalformedAction(Msg("a ship's kind is at most 40 characters"))
        if not isinstance(squares, list) or not squares:
            raise MalformedAction(Msg("the {kind} needs a list of squares", kind=kind))
        if len(squares) > grid.size * grid.size:
            # Checked before any square is read: no ship is larger than its sea.
            raise MalformedAction(Msg("the {kind} has more squares than the sea", kind=kind))
        if not isinstance(ship_id, str) or len(ship_id) > 4:
            raise MalformedAction(Msg("a ship's id is a letter"))
        return cls(ship_id, kind, frozenset(grid.parse_square(s) for s in squares))


@dataclass(frozen=True)
class SeaProblem:
    """One reason a fleet is refused, with the ships and squares involved."""

    message: str
    ships: tuple[str, ...] = ()
    squares: frozenset[Square] = frozenset()

    def to_dict(self, grid: Grid) -> dict[str, object]:
        """Return the problem as JSON-able data."""
        return {
            "message": self.message,
            "ships": list(self.ships),
            "squares": [grid.square_name(s) for s in sorted(self.squares)],
        }


def fleet_kinds(fleet: Mapping[str, int] | Sequence[str]) -> list[str]:
    """Expand a fleet given as {kind: count} into a list of kind ids, one per ship."""
    if isinstance(fleet, Mapping):
        return [kind for kind, count in fleet.items() for _ in range(count)]
    return list(fleet)


def ship_labels(
    rules: SeaRules, ships: Sequence[Ship], lang: str | None = None, fleet: Sequence[str] | None = None
) -> dict[str, Name]:
    """Name each ship for people: its kind, numbered when the fleet has several of that kind.

    Given the fleet, a kind is numbered as soon as the fleet holds several of it (a sea half
    placed still says which cruiser), and a ship lettered by its place in the fleet, as a sea
    editor letters its tray (A, B, … by slot), takes that place's number, the one its tray shows.
    """
    # Every order of a view names its ship, so a view asked this a dozen times: the names of one
    # fleet are made once (ships and rules are values; the rules are matched by identity).
    key = (id(rules), tuple(ships), lang, tuple(fleet) if fleet is not None else None)
    known = _LABELS.get(key)
    if known is None or known[0] is not rules:
        if len(_LABELS) >= MAX_LABELS:
            _LABELS.clear()
        known = _LABELS[key] = (rules, _ship_labels(rules, ships, lang, fleet))
    return dict(known[1])


_LABELS: dict[tuple[object, ...], tuple[SeaRules, dict[str, Name]]] = {}
MAX_LABELS = 1024


def _ship_labels(
    rules: SeaRules, ships: Sequence[Ship], lang: str | None, fleet: Sequence[str] | None
) -> dict[str, Name]:
    slots = list(fleet or ())
    placed = [s.kind for s in ships]
    totals = {kind_id: max(placed.count(kind_id), slots.count(kind_id)) for kind_id in {*placed, *slots}}
    numbers: dict[int, int] = {}  # by the ship's place in `ships`: letters may repeat
    taken: dict[str, set[int]] = {kind_id: set() for kind_id in totals}
    for i, ship in enumerate(ships):
        place = LETTERS.find(ship.id) if len(ship.id) == 1 else -1
        if 0 <= place < len(slots) and slots[place] == ship.kind:
            number = slots[: place + 1].count(ship.kind)
            if number not in taken[ship.kind]:
                numbers[i] = number
                taken[ship.kind].add(number)
    labels: dict[str, Name] = {}
    for i, ship in enumerate(ships):
        if i not in numbers:
            numbers[i] = next(n for n in itertools.count(1) if n not in taken[ship.kind])
            taken[ship.kind].add(numbers[i])
        kind = rules.kinds.get(ship.kind)
        suffix = f" {numbers[i]}" if totals[ship.kind] > 1 else ""
        english = (kind.name_in(lang) if kind else ship.kind) + suffix
        names = {code: name + suffix for code, name in kind.names.items()} if kind else {}
        labels[ship.id] = Name(english, names)
    return labels


def check_fleet(grid: Grid, rules: SeaRules, fleet: Sequence[str], ships: Sequence[Ship]) -> list[SeaProblem]:
    """Return every reason this fleet is not a legal sea; an empty list means it is legal."""
    problems: list[SeaProblem] = []
    labels = ship_labels(rules, ships, fleet=fleet)
    ids = [s.id for s in ships]
    for dup in sorted({i for i in ids if ids.count(i) > 1}):
        problems.append(SeaProblem(Msg("two ships share the letter {dup}", dup=dup), (dup,)))
    # The fleet count comes first: a referee fixing a sea wants to know what is missing.
    wanted: dict[str, int] = {}
    for kind_name in fleet:
        wanted[kind_name] = wanted.get(kind_name, 0) + 1
    have: dict[str, int] = {}
    for ship in ships:
        have[ship.kind] = have.get(ship.kind, 0) + 1
    for kind_id in list(wanted) + [k for k in have if k not in wanted]:
        kind = rules.kinds.get(kind_id)
        name = Name(kind.name, dict(kind.names)) if kind else Name(kind_id)
        if kind is None:
            problems.append(
                SeaProblem(
                    Msg("{kind_id} is not a ship kind of this ruleset", kind_id=kind_id),
                    tuple(s.id for s in ships if s.kind == kind_id),
                )
            )
        elif have.get(kind_id, 0) != wanted.get(kind_id, 0):
            problems.append(
                SeaProblem(
                    Msg(
                        "{kind}: the fleet has {wanted}, this sea has {have}",
                        kind=name,
                        wanted=wanted.get(kind_id, 0),
                        have=have.get(kind_id, 0),
                    ),
                    tuple(s.id for s in ships if s.kind == kind_id),
                )
            )
    for ship in ships:
        label = labels[ship.id]
        off = frozenset(s for s in ship.squares if not grid.contains(s))
        if off:
            problems.append(
                SeaProblem(
                    Msg("{label} lies off the sea at {names}", label=label, names=grid.names(off)), (ship.id,), off
                )
            )
            continue
        ship_kind = rules.kinds.get(ship.kind)
        if ship_kind is None:
            continue
        if not ship_kind.shape.matches(ship.squares, rules.mirror):
            how = Msg("turned or mirrored") if rules.mirror else Msg("turned")
            problems.append(
                SeaProblem(
                    Msg(
                        "{label} at {names} is not the shape {to_text} ({how})",
                        label=label,
                        names=grid.names(ship.squares),
                        to_text=ship_kind.shape.to_text(),
                        how=how,
                    ),
                    (ship.id,),
                    ship.squares,
                )
            )
    for i, first in enumerate(ships):
        for second in ships[i + 1 :]:
            both = first.squares & second.squares
            if both:
                problems.append(
                    SeaProblem(
                        Msg(
                            "{labels} overlaps {labels2} at {names}",
                            labels=labels[first.id],
                            labels2=labels[second.id],
                            names=grid.names(both),
                        ),
                        (first.id, second.id),
                        both,
                    )
                )
                continue
            if rules.touching:
                continue
            pairs = sorted(
                (a, b)
                for a in first.squares
                for b in second.squares
                if abs(a.col - b.col) <= 1 and abs(a.row - b.row) <= 1
            )
            if pairs:
                where = ", ".join(f"{grid.square_name(a)}/{grid.square_name(b)}" for a, b in pairs)
                touched = frozenset(s for pair in pairs for s in pair)
                problems.append(
                    SeaProblem(
                        Msg(
                            "{labels} touches {labels2} at {where}",
                            labels=labels[first.id],
                            labels2=labels[second.id],
                            where=where,
                        ),
                        (first.id, second.id),
                        touched,
                    )
                )
    return problems


def parse_sea_text(text: str, letters: str = "columns") -> tuple[Grid, dict[str, frozenset[Square]]]:
    """Parse a sea written one row per line, "." for water and a letter per ship."""
    rows = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not rows:
        raise MalformedAction(Msg("the sea is empty: write one line per row, . for water and a letter per ship"))
    size = len(rows)
    for number, row in enumerate(rows, 1):
        if len(row) != size:
            raise MalformedAction(
                Msg(
                    "row {number} has {len} squares; a {size}-row sea needs {size} in every row",
                    number=number,
                    len=len(row),
                    size=size,
                )
            )
    grid = Grid(size, letters)
    ships: dict[str, set[Square]] = {}
    for r, row in enumerate(rows):
        for c, ch in enumerate(row):
            if ch == ".":
                continue
            if not ch.isalpha():
                raise MalformedAction(
                    Msg(
                        "{square_name} holds {ch!r}: use . for water and letters for ships",
                        square_name=grid.square_name(Square(c, r)),
                        ch=ch,
                    )
                )
            ships.setdefault(ch.upper(), set()).add(Square(c, r))
    return grid, {k: frozenset(v) for k, v in sorted(ships.items())}


def sea_to_text(grid: Grid, ships: Iterable[Ship]) -> str:
    """Write a sea one row per line, "." for water and each ship's letter on its squares."""
    board = [["." for _ in range(grid.size)] for _ in range(grid.size)]
    for ship in ships:
        for s in ship.squares:
            board[s.row][s.col] = ship.id[:1] or "?"
    return "\n".join("".join(row) for row in board)


def ships_from_text(
    text: str, rules: SeaRules, fleet: Sequence[str], size: int | None = None
) -> tuple[Grid, list[Ship], list[SeaProblem]]:
    """Read a sea text, naming each lettered ship's kind by its shape, and check the fleet."""
    grid, lettered = parse_sea_text(text, rules.letters)
    problems: list[SeaProblem] = []
    if size is not None and size != grid.size:
        problems.append(
            SeaProblem(Msg("the sea is {size}×{size}, the game asks for {size2}×{size2}", size=grid.size, size2=size))
        )
    # Kinds whose shapes are the same under turning are interchangeable, so a letter only has to
    # match a class of kinds; the class's kinds are then handed out in fleet order.
    classes: list[tuple[frozenset[frozenset[tuple[int, int]]], list[str]]] = []
    for kind_id in fleet:
        kind = rules.kinds[kind_id]
        key = frozenset(kind.shape.orientations(rules.mirror))
        for known, members in classes:
            if known == key:
                members.append(kind_id)
                break
        else:
            classes.append((key, [kind_id]))
    ships: list[Ship] = []
    for letter, squares in lettered.items():
        cells = [(s.col, s.row) for s in squares]
        match = None
        for key, members in classes:
            if members and any(_same(cells, o) for o in key):
                match = members
                break
        if match is None:
            problems.append(
                SeaProblem(
                    Msg(
                        "ship {letter} at {names} has no shape of this fleet", letter=letter, names=grid.names(squares)
                    ),
                    (letter,),
                    squares,
                )
            )
            continue
        ships.append(Ship(letter, match.pop(0), squares))
    missing = [kind_id for _, members in classes for kind_id in members]
    for kind_id in dict.fromkeys(missing):
        count = missing.count(kind_id)
        kind = rules.kinds[kind_id]
        problems.append(
            SeaProblem(Msg("{kind}: the sea lacks {count}", kind=Name(kind.name, dict(kind.names)), count=count))
        )
    problems.extend(p for p in check_fleet(grid, rules, [s.kind for s in ships], ships))
    return grid, ships, problems


def _same(cells: list[tuple[int, int]], orientation: frozenset[tuple[int, int]]) -> bool:
    if len(cells) != len(orientation):
        return False
    min_c = min(c for c, _ in cells)
    min_r = min(r for _, r in cells)
    return frozenset((c - min_c, r - min_r) for c, r in cells) == orientation


def random_sea(
    grid: Grid, rules: SeaRules, fleet: Sequence[str], rng: random.Random, budget: Budget | None = None
) -> list[Ship]:
    """Place the fleet at random, lettered A, B, … in fleet order; raise Impossible if it cannot fit.

    The search is paid from `budget` (by default `placement.SEARCH_BUDGET`): Undecided, an
    Impossible, when it runs out.
    """
    if len(fleet) > len(LETTERS):
        raise Impossible(f"a sea text letters at most {len(LETTERS)} ships, the fleet has {len(fleet)}")
    shapes = [rules.kinds[k].shape for k in fleet]
    placed = random_fleet(grid, shapes, touching=rules.touching, mirror=rules.mirror, rng=rng, budget=budget)
    return [Ship(LETTERS[i], kind, squares) for i, (kind, squares) in enumerate(zip(fleet, placed, strict=True))]


def fleet_fit_reason(size: int, rules: SeaRules, fleet: Sequence[str], budget: Budget | None = None) -> str | None:
    """Return None when the fleet fits a sea of this size, or the reason it cannot.

    The reason is `placement.UNDECIDED` when the search spends `budget` (by default
    `placement.SEARCH_BUDGET`) first.
    """
    shapes = [rules.kinds[k].shape for k in fleet]
    return fleet_fits(Grid(size, rules.letters), shapes, touching=rules.touching, mirror=rules.mirror, budget=budget)


@dataclass(frozen=True)
class Draft:
    """A side's sea before it is locked: where its fleet goes and by which placement rule."""

    grid: Grid
    rules: SeaRules
    fleet: tuple[str, ...]

    def ships(self, raw: object) -> list[Ship]:
        """Read a fleet sent as JSON ([{kind, squares, id?}]), lettering unlettered ships by their place."""
        if not isinstance(raw, list) or len(raw) > len(LETTERS):
            raise MalformedAction(Msg("ships must be a list of the fleet's ships"))
        ships = [Ship.from_dict(item, self.grid) for item in raw]
        return [Ship(s.id or LETTERS[i], s.kind, s.squares) for i, s in enumerate(ships)]

    def problems(self, raw: object) -> list[SeaProblem]:
        """Check a fleet sent as JSON against the placement rule, without storing anything."""
        return check_fleet(self.grid, self.rules, self.fleet, self.ships(raw))

    def random(self, seed: int) -> list[Ship]:
        """Place the whole fleet uniformly at random from a seed; raise Impossible if it cannot fit."""
        return random_sea(self.grid, self.rules, self.fleet, random.Random(seed))
