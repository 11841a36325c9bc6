"""Vestorsjø's ruleset as data: the sides, the piece classes, port depths, the gunnery and submarine tables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import Name
from ..ruleset import Problems, brief, check_nesting, key_text, mode_ruleset

MODE = "vestorsjo"
SIDES = ("scania", "zealand")
CLASSES = ("destroyer", "frigate", "corvette", "submarine")
SUBMARINE = "submarine"
FACES = 6
TABLE_KEYS = ("submarine_attacks_ship", "ship_attacks_submarine", "submarine_attacks_submarine")
PLAY_KEYS = (
    "first",
    "actions_per_turn",
    "rounds_to_hold",
    "ports_needed",
    "holds_counted",
    "sunk_holds_port",
    "sunk_is_target",
)
HOLDS_COUNTED = ("enemy_turn", "round_end")
"""When a hold of an enemy strategic port counts one more round: after each turn of the port's side
(every hold then survives as many enemy turns), or at the end of each round (the first way of
this project: a game stored with a ruleset that does not say is replayed so)."""
SUB_KEYS = ("coast_edges", "pier_edges")
# A cell of a hit table is hits a die does: never more than the stoutest piece can take.
MOST_HITS = 10


def other(side: str) -> str:
    """Return the other side."""
    return SIDES[1] if side == SIDES[0] else SIDES[0]


Row = tuple[int, ...]
"""Hits for die faces 1 to 6."""


@dataclass(frozen=True)
class PieceClass:
    """A kind of piece: its name, whether it is a warship, its defence, how many a side has, how far it moves."""

    id: str
    name: str
    names: dict[str, str]
    warship: bool
    defence: int
    count: int
    steps: tuple[int, ...]

    def label(self) -> Name:
        """Return the class's name with its translations, for messages."""
        return Name(self.name, dict(self.names))

    def steps_with(self, hits: int) -> int:
        """Return how many steps a move may take with this many hits (0 once sunk)."""
        return self.steps[hits] if 0 <= hits < len(self.steps) else 0


@dataclass(frozen=True)
class VestorsjoRuleset:
    """Everything the Vestorsjø rules leave to the ruleset file."""

    id: str
    name: str
    names: dict[str, str]
    map: str
    side_names: dict[str, Name]
    first: str
    classes: dict[str, PieceClass]
    depths: dict[str, tuple[str, ...]]
    gunnery: dict[str, tuple[tuple[Row, ...], ...]]
    """Shooter class -> by the shooter's hits -> by range - 1 -> hits for die faces 1 to 6."""
    submarine_attacks_ship: Row
    ship_attacks_submarine: Row
    submarine_attacks_submarine: Row
    safe_ports: frozenset[str]
    actions_per_turn: int = 4
    rounds_to_hold: int = 4
    ports_needed: int = 2
    holds_counted: str = "round_end"
    sunk_holds_port: bool = False
    sunk_is_target: bool = False
    coast_edges: bool = False
    pier_edges: bool = False
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False)
    mode: str = MODE

    def gunnery_row(self, shooter: str, hits: int, distance: int) -> Row | None:
        """Return the hits by die face of a ship firing at a range with this damage, or None out of range."""
        tables = self.gunnery.get(shooter, ())
        if not 0 <= hits < len(tables) or not 1 <= distance <= len(tables[hits]):
            return None
        return tables[hits][distance - 1]

    def max_range(self, shooter: str, hits: int) -> int:
        """Return the longest range a ship fires at with this damage."""
        tables = self.gunnery.get(shooter, ())
        return len(tables[hits]) if 0 <= hits < len(tables) else 0

    def admits(self, depth: str, cls: str) -> bool:
        """Tell whether a port of a depth admits a class (submarines are not limited by depth)."""
        return not self.classes[cls].warship or cls in self.depths.get(depth, ())

    def name_in(self, lang: str | None) -> str:
        """Return the ruleset's name in a language, falling back to its own."""
        return self.names.get(lang or "", self.name)

    def summary(self) -> str:
        """Describe the ruleset in one line."""
        fleet = ", ".join(f"{c.count} {c.name}" for c in self.classes.values())
        return (
            f"{self.name} ({self.id}): map {self.map}; {self.side_names[self.first]} first; each side {fleet}; "
            f"{self.actions_per_turn} actions a turn; win by holding {self.ports_needed} enemy strategic ports "
            f"{self.rounds_to_hold} rounds in a row"
        )


def read_row(value: Any, key: str, p: Problems) -> Row | None:
    """Read one row of a table: six entries, "-" or a whole number of hits, separated by spaces."""
    if not isinstance(value, str) or len(value.split()) != FACES:
        p.add(key, f'must be six entries for die faces 1 to 6, like "- - 1 1 2 2", not {brief(value)}')
        return None
    hits = []
    for part in value.split():
        if part == "-":
            hits.append(0)
        elif part.isdigit() and 1 <= int(part) <= MOST_HITS:
            hits.append(int(part))
        else:
            p.add(key, f'an entry is "-" or 1 to {MOST_HITS} hits, not {brief(part)}')
            return None
    return tuple(hits)


def format_row(row: Row) -> str:
    """Write a row of a table as the ruleset file does."""
    return " ".join(str(h) if h else "-" for h in row)


def _classes(data: Mapping[str, Any], p: Problems) -> dict[str, PieceClass]:
    table = p.table(data, "classes")
    for key in table:
        if key not in CLASSES:
            p.add(f"classes.{key_text(key)}", f"unknown class (known: {', '.join(CLASSES)})")
    classes = {}
    for cid in CLASSES:
        entry = p.table(table, f"classes.{cid}")
        if not entry:
            continue
        name = p.text(entry, f"classes.{cid}.name", cid)
        names = p.names(entry, f"classes.{cid}.names")
        warship = p.flag(entry, f"classes.{cid}.warship", cid != SUBMARINE)
        if warship != (cid != SUBMARINE):
            p.add(f"classes.{cid}.warship", "only the submarine is not a warship")
        defence = p.bounded(entry, f"classes.{cid}.defence", "classes.*.defence")
        count = p.bounded(entry, f"classes.{cid}.count", "classes.*.count")
        raw_steps = entry.get("steps")
        steps: tuple[int, ...] = ()
        if (
            not isinstance(raw_steps, list)
            or len(raw_steps) != defence
            or not all(isinstance(s, int) and not isinstance(s, bool) and 1 <= s <= 3 for s in raw_steps)
        ):
            p.add(f"classes.{cid}.steps", f"must list {defence} step counts of 1 to 3, one per hit short of defence")
        else:
            steps = tuple(raw_steps)
        classes[cid] = PieceClass(cid, name, names, warship, defence, count, steps)
    return classes


def _gunnery(data: Mapping[str, Any], classes: Mapping[str, PieceClass], p: Problems) -> dict[str, Any]:
    table = p.table(data, "gunnery")
    gunnery: dict[str, tuple[tuple[Row, ...], ...]] = {}
    for cid in table:
        if cid not in classes or not classes[cid].warship:
            p.add(f"gunnery.{key_text(cid)}", "only a warship class has a gunnery table")
    for cid, cls in classes.items():
        if not cls.warship:
            continue
        by_hits = p.table(table, f"gunnery.{cid}")
        expected = [str(h) for h in range(cls.defence)]
        if sorted(by_hits) != expected:
            p.add(f"gunnery.{cid}", f"needs one table per number of hits short of defence: {', '.join(expected)}")
            continue
        tables = []
        for h in expected:
            rows = by_hits[h]
            key = f"gunnery.{cid}.{h}"
            if not isinstance(rows, list) or not p.count(key, len(rows), "ranges", "gunnery.*.*"):
                if not isinstance(rows, list):
                    p.add(key, "must list one row per range")
                continue
            read = [read_row(r, f"{key}[{i}]", p) for i, r in enumerate(rows)]
            tables.append(tuple(r for r in read if r is not None))
        gunnery[cid] = tuple(tables)
    return gunnery


def vestorsjo_from_dict(data: Mapping[str, Any], source: str = "<ruleset>") -> VestorsjoRuleset:
    """Build and check a Vestorsjø ruleset from parsed TOML; raise RulesetError listing every problem."""
    check_nesting(data, source)
    p = Problems(source)
    head = p.table(data, "ruleset")
    rid = p.text(head, "ruleset.id", MODE)
    if head.get("mode", MODE) != MODE:
        p.add("ruleset.mode", f"this reader takes mode {MODE}, not {brief(head.get('mode'))}")
    name = p.text(head, "ruleset.name", rid)
    names = p.names(head, "ruleset.names")
    map_name = p.text(head, "ruleset.map", "oresund")

    sides = p.table(data, "sides")
    side_names = {}
    for side in SIDES:
        entry = p.table(sides, f"sides.{side}")
        side_names[side] = Name(p.text(entry, f"sides.{side}.name", side), p.names(entry, f"sides.{side}.names"))

    play = p.table(data, "play")
    for key in play:
        if key not in PLAY_KEYS:
            p.add(f"play.{key_text(key)}", f"unknown rule (known: {', '.join(PLAY_KEYS)})")
    first = play.get("first", SIDES[0])
    if first not in SIDES:
        p.add("play.first", f"must be one of {', '.join(SIDES)}, not {brief(first)}")
        first = SIDES[0]
    actions = p.bounded(play, "play.actions_per_turn", default=4)
    hold = p.bounded(play, "play.rounds_to_hold", default=4)
    needed = p.bounded(play, "play.ports_needed", default=2)
    counted = play.get("holds_counted", "round_end")
    if counted not in HOLDS_COUNTED:
        p.add("play.holds_counted", f"must be one of {', '.join(HOLDS_COUNTED)}, not {brief(counted)}")
        counted = "round_end"
    sunk_holds = p.flag(play, "play.sunk_holds_port", False)
    sunk_target = p.flag(play, "play.sunk_is_target", False)

    classes = _classes(data, p)
    depths_table = p.table(data, "depths")
    depths: dict[str, tuple[str, ...]] = {}
    for depth, admitted in depths_table.items():
        ok = isinstance(admitted, list) and all(a in classes and classes[a].warship for a in admitted)
        if depth not in classes or not classes[depth].warship or not ok or depth not in admitted:
            p.add(f"depths.{key_text(depth)}", "a depth is a warship class, listing the warship classes it admits")
            continue
        depths[depth] = tuple(admitted)
    gunnery = _gunnery(data, classes, p)

    combat = p.table(data, "submarine_combat")
    rows: dict[str, Row] = {}
    for key in TABLE_KEYS:
        row = read_row(combat.get(key), f"submarine_combat.{key}", p)
        rows[key] = row or (0,) * FACES
    safe = combat.get("safe_ports", [])
    if not isinstance(safe, list) or not all(isinstance(s, str) for s in safe):
        p.add("submarine_combat.safe_ports", "must list port names")
        safe = []
    subs = p.table(data, "submarines")
    for key in subs:
        if key not in SUB_KEYS:
            p.add(f"submarines.{key_text(key)}", f"unknown rule (known: {', '.join(SUB_KEYS)})")
    coast = p.flag(subs, "submarines.coast_edges", False)
    pier = p.flag(subs, "submarines.pier_edges", False)
    p.raise_if_any()
    return VestorsjoRuleset(
        id=rid,
        name=name,
        names=dict(names),
        map=map_name,
        side_names=side_names,
        first=str(first),
        classes=classes,
        depths=depths,
        gunnery=gunnery,
        submarine_attacks_ship=rows["submarine_attacks_ship"],
        ship_attacks_submarine=rows["ship_attacks_submarine"],
        submarine_attacks_submarine=rows["submarine_attacks_submarine"],
        safe_ports=frozenset(safe),
        actions_per_turn=actions,
        rounds_to_hold=hold,
        ports_needed=needed,
        holds_counted=str(counted),
        sunk_holds_port=sunk_holds,
        sunk_is_target=sunk_target,
        coast_edges=coast,
        pier_edges=pier,
        raw=data,
    )


def read_ruleset(data: Mapping[str, Any], source: str = "<ruleset>") -> VestorsjoRuleset:
    """Build a Vestorsjø ruleset from parsed ruleset data; raise RulesetError with every problem."""
    mode_ruleset(MODE, data, source)
    return vestorsjo_from_dict(data, source)


def piece_ids(rs: VestorsjoRuleset) -> list[tuple[str, str]]:
    """Return each side's pieces as (local id, class): "destroyer", "frigate-1", … as the map's start names them."""
    ids = []
    for cls in rs.classes.values():
        if cls.count == 1:
            ids.append((cls.id, cls.id))
        else:
            ids.extend((f"{cls.id}-{i}", cls.id) for i in range(1, cls.count + 1))
    return ids


def chances(row: Sequence[int]) -> tuple[float, float]:
    """Return the chance of at least one hit and the expected hits of one die on a row."""
    return sum(1 for h in row if h) / FACES, sum(row) / FACES
