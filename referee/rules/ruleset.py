"""Rulesets as data: load a TOML ruleset file, check it, and report every problem precisely."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Union

from .errors import MalformedAction, RulesetError
from .grid import Grid, Shape
from .sea import SeaRules, ShipKind, fleet_fit_reason, fleet_kinds

if TYPE_CHECKING:
    from .battleship import BattleshipRuleset

TIE_BREAKS = ("floating_squares", "trophies")


class Problems:
    """Collect `FILE: key: reason` problems while reading a ruleset."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.items: list[tuple[str, str, str]] = []

    def add(self, key: str, reason: str) -> None:
        """Record one problem at a key."""
        self.items.append((self.source, key, reason))

    def table(self, data: Mapping[str, Any], key: str, required: bool = True) -> Mapping[str, Any]:
        """Return a sub-table, recording a problem if it is missing or not a table."""
        value = data.get(key.rsplit(".", 1)[-1])
        if value is None:
            if required:
                self.add(key, "missing table")
            return {}
        if not isinstance(value, Mapping):
            self.add(key, "must be a table")
            return {}
        return value

    def integer(self, data: Mapping[str, Any], key: str, default: int | None = None, minimum: int = 0) -> int:
        """Return an integer at least `minimum`, recording a problem otherwise."""
        value = data.get(key.rsplit(".", 1)[-1], default)
        if value is None:
            self.add(key, "missing number")
            return minimum
        if isinstance(value, bool) or not isinstance(value, int):
            self.add(key, f"must be a whole number, not {value!r}")
            return minimum
        if value < minimum:
            what = "negative" if value < 0 else "too small"
            self.add(key, f"{what}: {value} (at least {minimum})")
            return minimum
        return value

    def text(self, data: Mapping[str, Any], key: str, default: str | None = None) -> str:
        """Return a non-empty string, recording a problem otherwise."""
        value = data.get(key.rsplit(".", 1)[-1], default)
        if not isinstance(value, str) or not value.strip():
            self.add(key, "missing text" if value is None else f"must be text, not {value!r}")
            return default or "?"
        return value

    def flag(self, data: Mapping[str, Any], key: str, default: bool) -> bool:
        """Return a boolean, recording a problem otherwise."""
        value = data.get(key.rsplit(".", 1)[-1], default)
        if not isinstance(value, bool):
            self.add(key, f"must be true or false, not {value!r}")
            return default
        return value

    def names(self, data: Mapping[str, Any], key: str) -> dict[str, str]:
        """Return a table of translations {language: name}."""
        value = data.get(key.rsplit(".", 1)[-1], {})
        if not isinstance(value, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            self.add(key, "must be a table of language = name")
            return {}
        return dict(value)

    def raise_if_any(self) -> None:
        """Raise RulesetError carrying every problem, if there are any."""
        if self.items:
            raise RulesetError(self.items)


@dataclass(frozen=True)
class SeaSize:
    """One row of the sea-size table: a range of team sizes, the sea, and the fleet."""

    min_players: int
    max_players: int
    size: int
    fleet: tuple[str, ...]


@dataclass(frozen=True)
class AirRaidRuleset:
    """Everything the air-raid rules leave to the ruleset file."""

    id: str
    name: str
    names: Mapping[str, str]
    sea: SeaRules
    sea_sizes: tuple[SeaSize, ...]
    min_players: int
    max_players: int
    corridors: tuple[str, ...]
    corridor_names: Mapping[str, tuple[str, ...]]
    corridor_limit: int
    round_seconds: int
    round_limit: int
    tie_breaks: tuple[str, ...]
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False)
    mode: str = "airraid"

    def sea_size_for(self, players: int) -> SeaSize:
        """Return the recommended sea and fleet for a team of this many players."""
        for row in self.sea_sizes:
            if row.min_players <= players <= row.max_players:
                return row
        if players < self.sea_sizes[0].min_players:
            return self.sea_sizes[0]
        return self.sea_sizes[-1]

    def sea_for(self, size: int | None = None, players: int | None = None) -> tuple[int, tuple[str, ...]]:
        """Return the sea size and fleet for a team size, or for a sea size (nearest smaller row's fleet)."""
        if size is None:
            row = self.sea_size_for(players) if players is not None else self.sea_sizes[0]
            return row.size, row.fleet
        fitting = [r for r in self.sea_sizes if r.size <= size] or [self.sea_sizes[0]]
        return size, max(fitting, key=lambda r: r.size).fleet

    def grid(self, size: int) -> Grid:
        """Return the grid for a sea of this size."""
        return self.sea.grid(size)

    def corridor_label(self, corridor: str, lang: str | None = None) -> str:
        """Return a corridor's name in a language."""
        if lang and lang in self.corridor_names:
            return self.corridor_names[lang][self.corridors.index(corridor)]
        return corridor

    def summary(self) -> str:
        """Describe the ruleset in one line."""
        fleet = self.sea_sizes[0].fleet
        return (
            f"{self.name} ({self.id}): {len(self.sea.kinds)} ship kinds, seas "
            + ", ".join(f"{r.size}×{r.size} for {r.min_players}–{r.max_players} players ({len(r.fleet)} ships)" for r in self.sea_sizes)
            + f"; corridors {', '.join(self.corridors)} (limit {self.corridor_limit}); rounds {self.round_seconds // 60}:{self.round_seconds % 60:02d}"
            + (f", at most {self.round_limit}" if self.round_limit else "")
            + f"; fleet of {len(fleet)} at the smallest sea"
        )


def parse_sea_rules(data: Mapping[str, Any], p: Problems) -> SeaRules:
    """Read the [sea] and [ships.*] tables shared by every mode."""
    sea = p.table(data, "sea")
    letters = sea.get("letters", "columns")
    if letters not in ("columns", "rows"):
        p.add("sea.letters", f'must be "columns" or "rows", not {letters!r}')
        letters = "columns"
    touching = p.flag(sea, "sea.touching", False)
    mirror = p.flag(sea, "sea.mirror", True)
    straight = p.flag(sea, "sea.straight", False)
    kinds: dict[str, ShipKind] = {}
    ships = p.table(data, "ships")
    if not ships and "ships" in data:
        pass
    elif not ships:
        p.add("ships", "no ship kinds")
    for kind_id, spec in ships.items():
        key = f"ships.{kind_id}"
        if not isinstance(spec, Mapping):
            p.add(key, "must be a table")
            continue
        name = p.text(spec, f"{key}.name", kind_id)
        try:
            shape = Shape.from_text(spec.get("shape", ""))
        except MalformedAction as exc:
            p.add(f"{key}.shape", exc.message)
            # Keep the kind known, so fleets naming it do not add a second, misleading problem.
            shape = Shape.from_text("X")
        if not shape.is_connected():
            p.add(f"{key}.shape", f"{shape.to_text()} is not connected: every square must share a side with another")
        elif straight and not shape.is_straight():
            p.add(f"{key}.shape", f"{shape.to_text()} is not straight, and sea.straight is true")
        fighters = p.integer(spec, f"{key}.fighters", 0)
        bombers = p.integer(spec, f"{key}.bombers", 0)
        kinds[kind_id] = ShipKind(kind_id, name, shape, p.names(spec, f"{key}.names"), fighters, bombers)
    return SeaRules(kinds, letters, touching, mirror, straight)


def parse_fleet(value: Any, key: str, kinds: Mapping[str, ShipKind], p: Problems) -> tuple[str, ...]:
    """Read a fleet table {kind = count}, checking kinds and counts."""
    if not isinstance(value, Mapping) or not value:
        p.add(key, "must be a table of kind = count")
        return ()
    fleet: dict[str, int] = {}
    for kind_id, count in value.items():
        if kind_id not in kinds:
            p.add(f"{key}.{kind_id}", f"no ship kind {kind_id!r} (kinds: {', '.join(kinds)})")
            continue
        fleet[kind_id] = p.integer(value, f"{key}.{kind_id}", minimum=0)
    if fleet and not any(fleet.values()):
        p.add(key, "the fleet has no ships")
    return tuple(fleet_kinds(fleet))


def airraid_from_dict(data: Mapping[str, Any], source: str = "<ruleset>") -> AirRaidRuleset:
    """Build and check an air-raid ruleset from parsed TOML; raise RulesetError listing every problem."""
    p = Problems(source)
    head = p.table(data, "ruleset")
    rid = p.text(head, "ruleset.id", "airraid")
    mode = head.get("mode", "airraid")
    if mode != "airraid":
        p.add("ruleset.mode", f"this reader takes mode airraid, not {mode!r}")
    name = p.text(head, "ruleset.name", rid)
    names = p.names(head, "ruleset.names")
    before_sea = len(p.items)
    sea = parse_sea_rules(data, p)
    sea_ok = len(p.items) == before_sea

    teams = p.table(data, "teams")
    min_players = p.integer(teams, "teams.min_players", minimum=2)
    max_players = p.integer(teams, "teams.max_players", minimum=2)
    if max_players < min_players:
        p.add("teams.max_players", f"{max_players} is fewer than teams.min_players {min_players}")

    sizes: list[SeaSize] = []
    rows = data.get("sea_sizes")
    if not isinstance(rows, list) or not rows:
        p.add("sea_sizes", "missing: give at least one [[sea_sizes]] row")
        rows = []
    for i, row in enumerate(rows):
        key = f"sea_sizes[{i}]"
        if not isinstance(row, Mapping):
            p.add(key, "must be a table")
            continue
        players = row.get("players")
        if (
            not isinstance(players, list)
            or len(players) != 2
            or not all(isinstance(n, int) and not isinstance(n, bool) for n in players)
            or players[0] > players[1]
        ):
            p.add(f"{key}.players", f"must be [fewest, most], not {players!r}")
            continue
        size = p.integer(row, f"{key}.size", minimum=2)
        if size > 26:
            p.add(f"{key}.size", f"{size} is wider than the 26 letters A–Z")
            continue
        before = len(p.items)
        fleet = parse_fleet(row.get("fleet"), f"{key}.fleet", sea.kinds, p)
        if fleet and sea_ok and len(p.items) == before:
            reason = fleet_fit_reason(size, sea, fleet)
            if reason:
                p.add(key, f"the {size}×{size} sea is too small for its fleet: {reason}")
        sizes.append(SeaSize(players[0], players[1], size, fleet))
    for a, b in zip(sizes, sizes[1:]):
        if b.min_players <= a.max_players:
            p.add("sea_sizes", f"rows for {a.min_players}–{a.max_players} and {b.min_players}–{b.max_players} players overlap")

    corridors_t = p.table(data, "corridors")
    corridors = corridors_t.get("names", [])
    if not isinstance(corridors, list) or not corridors or not all(isinstance(c, str) and c for c in corridors):
        p.add("corridors.names", "must be a list of corridor names")
        corridors = ["upper"]
    if len(set(corridors)) != len(corridors):
        p.add("corridors.names", "two corridors share a name")
    corridor_names: dict[str, tuple[str, ...]] = {}
    for key_name, value in corridors_t.items():
        if key_name.startswith("names_"):
            if not isinstance(value, list) or len(value) != len(corridors) or not all(isinstance(v, str) for v in value):
                p.add(f"corridors.{key_name}", f"must list {len(corridors)} names, one per corridor")
            else:
                corridor_names[key_name[len("names_") :]] = tuple(value)
    limit = p.integer(corridors_t, "corridors.limit", minimum=1)

    rounds = p.table(data, "rounds")
    seconds = p.integer(rounds, "rounds.seconds", 300, minimum=10)
    round_limit = p.integer(rounds, "rounds.limit", 0, minimum=0)
    tie_breaks = rounds.get("tie_breaks", list(TIE_BREAKS))
    if not isinstance(tie_breaks, list) or not all(t in TIE_BREAKS for t in tie_breaks):
        p.add("rounds.tie_breaks", f"must be a list drawn from {', '.join(TIE_BREAKS)}, not {tie_breaks!r}")
        tie_breaks = list(TIE_BREAKS)
    p.raise_if_any()
    return AirRaidRuleset(
        id=rid,
        name=name,
        names=names,
        sea=sea,
        sea_sizes=tuple(sizes),
        min_players=min_players,
        max_players=max_players,
        corridors=tuple(corridors),
        corridor_names=corridor_names,
        corridor_limit=limit,
        round_seconds=seconds,
        round_limit=round_limit,
        tie_breaks=tuple(tie_breaks),
        raw=data,
    )


def read_toml(path: str | Path) -> dict[str, Any]:
    """Read a TOML file; raise RulesetError naming the file if it cannot be read or parsed."""
    source = str(path)
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise RulesetError([(source, "-", exc.strerror or str(exc))]) from exc
    except tomllib.TOMLDecodeError as exc:
        raise RulesetError([(source, "-", f"not valid TOML: {exc}")]) from exc


Ruleset = Union[AirRaidRuleset, "BattleshipRuleset"]


def ruleset_from_dict(data: Mapping[str, Any], source: str = "<ruleset>") -> Ruleset:
    """Build a ruleset of whichever mode the data names."""
    # Imported here: the Battleship module builds on this one (Problems, parse_sea_rules).
    from .battleship import battleship_from_dict

    head = data.get("ruleset")
    mode = head.get("mode") if isinstance(head, Mapping) else None
    readers: dict[str, Any] = {"airraid": airraid_from_dict, "battleship": battleship_from_dict}
    reader = readers.get(mode) if isinstance(mode, str) else None
    if reader is None:
        raise RulesetError([(source, "ruleset.mode", f"unknown mode {mode!r} (known: {', '.join(readers)})")])
    ruleset: Ruleset = reader(data, source)
    return ruleset


def airraid_ruleset_from_dict(data: Mapping[str, Any], source: str = "<ruleset>") -> AirRaidRuleset:
    """Build a ruleset that must be an air-raid one (the air-raid game's own reader)."""
    ruleset = ruleset_from_dict(data, source)
    if not isinstance(ruleset, AirRaidRuleset):
        raise RulesetError([(source, "ruleset.mode", f"this game takes an airraid ruleset, not {ruleset.mode!r}")])
    return ruleset


def load_ruleset(path: str | Path) -> Ruleset:
    """Load and check a ruleset file."""
    return ruleset_from_dict(read_toml(path), str(path))
