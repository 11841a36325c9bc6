"""Rulesets as data: load a TOML ruleset file, check it, and report every problem precisely."""

from __future__ import annotations

import itertools
import reprlib
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from .errors import MalformedAction, RulesetError
from .grid import Grid, Shape
from .modes import MODES
from .placement import UNDECIDED, Budget
from .sea import SeaRules, ShipKind, fleet_fit_reason, fleet_kinds

TIE_BREAKS = ("floating_squares", "trophies")
AT_ZERO = ("wait", "end")


def _config_dir() -> Path:
    """Return the packaged `referee/config` folder (a wheel), else the repository's `config`."""
    # The same two places as referee.resources, which the rules core may not import (standard library only).
    package = Path(__file__).resolve().parent.parent
    packaged = package / "config"
    return packaged if packaged.is_dir() else package.parent / "config"


LIMITS_PATH = _config_dir() / "ruleset_limits.toml"
# The entries of the limits file the readers look up: a file lacking one is refused when read.
FILE_LIMITS = ("characters", "nesting", "text", "languages")
BOUNDS = (
    "teams.min_players",
    "teams.max_players",
    "sea_sizes",
    "sea_sizes[].players",
    "sea_sizes[].size",
    "sea.size",
    "ships",
    "ships.*.shape",
    "ships.*.fighters",
    "ships.*.bombers",
    "fleet.*",
    "fleet",
    "corridors.names",
    "corridors.limit",
    "rounds.seconds",
    "rounds.limit",
    "play.actions_per_turn",
    "play.rounds_to_hold",
    "play.ports_needed",
    "classes.*.defence",
    "classes.*.count",
    "gunnery.*.*",
)


@dataclass(frozen=True)
class Limits:
    """The bounds of every number in a ruleset file, from config/ruleset_limits.toml."""

    file: Mapping[str, tuple[int, int]]
    bounds: Mapping[str, tuple[int, int]]

    def most(self, name: str) -> int:
        """Return the upper bound of a [file] entry."""
        return self.file[name][1]

    def lines(self) -> list[str]:
        """Describe every bound, one per line, for `referee rules check --help`."""
        file = self.file
        return [
            f"the file: at most {file['characters'][1]:,} characters, arrays and tables nested at most "
            f"{file['nesting'][1]} deep, texts of at most {file['text'][1]} characters, at most "
            f"{file['languages'][1]} languages in a names table",
            *(f"{key}: {low} to {high}" for key, (low, high) in self.bounds.items()),
        ]


@lru_cache(maxsize=1)
def limits() -> Limits:
    """Read config/ruleset_limits.toml (once); raise RulesetError if it is broken."""
    source = str(LIMITS_PATH)
    try:
        data = tomllib.loads(LIMITS_PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RulesetError([(source, "-", f"cannot be read: {exc}")]) from exc
    tables: dict[str, dict[str, tuple[int, int]]] = {}
    problems: list[tuple[str, str, str]] = []
    for name in ("file", "bounds"):
        table = data.get(name)
        tables[name] = {}
        if not isinstance(table, Mapping):
            problems.append((source, name, "missing table"))
            continue
        for key, pair in table.items():
            if (
                not isinstance(pair, list)
                or len(pair) != 2
                or not all(isinstance(n, int) and not isinstance(n, bool) for n in pair)
                or pair[0] > pair[1]
            ):
                problems.append((source, f"{name}.{key}", f"must be [least, most], not {pair!r}"))
                continue
            tables[name][key] = (pair[0], pair[1])
    for table_name, names in (("file", FILE_LIMITS), ("bounds", BOUNDS)):
        for name in names:
            if name not in tables[table_name]:
                problems.append((source, f"{table_name}.{name}", "missing bound"))
    if problems:
        raise RulesetError(problems)
    return Limits(tables["file"], tables["bounds"])


class _Brief(reprlib.Repr):
    """Show a bad value in a problem line: short, and never a wall of digits."""

    def repr_int(self, x: int, level: int) -> str:
        # Python refuses to write ints of more than 4300 digits; a problem line wants none of them.
        if x.bit_length() > 64:
            return "a number of more than 19 digits"
        return super().repr_int(x, level)


_BRIEF = _Brief()
_BRIEF.maxstring = 40
_BRIEF.maxother = 40
_BRIEF.maxlevel = 2


def brief(value: object) -> str:
    """Return a short repr of a value for a problem line."""
    return _BRIEF.repr(value)


def key_text(name: str) -> str:
    """Return a table key as a problem line names it: as it is, or cut short."""
    return name if len(name) <= 40 else name[:39] + "…"


class Problems:
    """Collect `FILE: key: reason` problems while reading a ruleset."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.items: list[tuple[str, str, str]] = []
        self.limits = limits()
        # One budget for every fleet-fit search of the file: its sea-size rows share it.
        self.budget = Budget()

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

    def integer(
        self,
        data: Mapping[str, Any],
        key: str,
        default: int | None = None,
        minimum: int = 0,
        maximum: int | None = None,
    ) -> int:
        """Return an integer from `minimum` to `maximum`, recording a problem otherwise."""
        value = data.get(key.rsplit(".", 1)[-1], default)
        if value is None:
            self.add(key, "missing number")
            return minimum
        if isinstance(value, bool) or not isinstance(value, int):
            self.add(key, f"must be a whole number, not {brief(value)}")
            return minimum
        if value < minimum:
            what = "negative" if value < 0 else "too small"
            self.add(key, f"{what}: {brief(value)} (at least {minimum})")
            return minimum
        if maximum is not None and value > maximum:
            self.add(key, f"too large: {brief(value)} (at most {maximum})")
            return minimum
        return value

    def bounded(self, data: Mapping[str, Any], key: str, bound: str | None = None, default: int | None = None) -> int:
        """Return an integer within its bound of config/ruleset_limits.toml (`bound`, or the key itself)."""
        low, high = self.limits.bounds[bound or key]
        return self.integer(data, key, default, minimum=low, maximum=high)

    def count(self, key: str, number: int, what: str, bound: str | None = None) -> bool:
        """Check how many of something a key holds against its bound; record a problem and say False if outside."""
        low, high = self.limits.bounds[bound or key]
        if number > high:
            self.add(key, f"too many {what}: {number} (at most {high})")
            return False
        if number < low:
            self.add(key, f"too few {what}: {number} (at least {low})")
            return False
        return True

    def long_text(self, key: str, value: str) -> bool:
        """Record a problem and say True if a text is longer than the bound of texts."""
        most = self.limits.most("text")
        if len(value) > most:
            self.add(key, f"too long: {len(value)} characters (at most {most})")
            return True
        return False

    def text(self, data: Mapping[str, Any], key: str, default: str | None = None) -> str:
        """Return a non-empty string within the bound of texts, recording a problem otherwise."""
        value = data.get(key.rsplit(".", 1)[-1], default)
        if not isinstance(value, str) or not value.strip():
            self.add(key, "missing text" if value is None else f"must be text, not {brief(value)}")
            return default or "?"
        if self.long_text(key, value):
            return (default or "?")[: self.limits.most("text")]
        return value

    def flag(self, data: Mapping[str, Any], key: str, default: bool) -> bool:
        """Return a boolean, recording a problem otherwise."""
        value = data.get(key.rsplit(".", 1)[-1], default)
        if not isinstance(value, bool):
            self.add(key, f"must be true or false, not {brief(value)}")
            return default
        return value

    def names(self, data: Mapping[str, Any], key: str) -> dict[str, str]:
        """Return a table of translations {language: name}."""
        value = data.get(key.rsplit(".", 1)[-1], {})
        if not isinstance(value, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()
        ):
            self.add(key, "must be a table of language = name")
            return {}
        most = self.limits.most("languages")
        if len(value) > most:
            self.add(key, f"too many languages: {len(value)} (at most {most})")
            return {}
        longest = self.limits.most("text")
        if any(len(lang) > longest or len(name) > longest for lang, name in value.items()):
            self.add(key, f"too long: a language or name of more than {longest} characters")
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
    at_zero: str = "end"
    """What 0:00 does: `end` the round at once (the clock does), or `wait` for the referee to end it."""
    mode: str = "airraid"

    def name_in(self, lang: str | None) -> str:
        """Return the ruleset's name in a language, falling back to its own."""
        return self.names.get(lang or "", self.name)

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
            + ", ".join(
                f"{r.size}×{r.size} for {r.min_players}–{r.max_players} players ({len(r.fleet)} ships)"
                for r in self.sea_sizes
            )
            + f"; corridors {', '.join(self.corridors)} (limit {self.corridor_limit})"
            + f"; rounds {self.round_seconds // 60}:{self.round_seconds % 60:02d}"
            + (f", at most {self.round_limit}" if self.round_limit else "")
            + f"; fleet of {len(fleet)} at the smallest sea"
        )


def parse_sea_rules(data: Mapping[str, Any], p: Problems) -> SeaRules:
    """Read the [sea] and [ships.*] tables shared by every mode."""
    sea = p.table(data, "sea")
    letters = sea.get("letters", "columns")
    if letters not in ("columns", "rows"):
        p.add("sea.letters", f'must be "columns" or "rows", not {brief(letters)}')
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
    else:
        p.count("ships", len(ships), "ship kinds")
    # Each kind costs a little (its text is bounded): all are read, so a fleet naming any finds it.
    for kind_id, spec in ships.items():
        key = f"ships.{kind_id}"
        if p.long_text(f"ships.{key_text(kind_id)}", kind_id):
            continue
        if not isinstance(spec, Mapping):
            p.add(key, "must be a table")
            continue
        name = p.text(spec, f"{key}.name", kind_id)
        shape = _read_shape(spec.get("shape", ""), f"{key}.shape", p)
        if shape is None:
            # Keep the kind known, so fleets naming it do not add a second, misleading problem.
            shape = Shape.from_text("X")
        elif not shape.is_connected():
            p.add(f"{key}.shape", f"{shape.to_text()} is not connected: every square must share a side with another")
        elif straight and not shape.is_straight():
            p.add(f"{key}.shape", f"{shape.to_text()} is not straight, and sea.straight is true")
        fighters = p.bounded(spec, f"{key}.fighters", "ships.*.fighters", 0)
        bombers = p.bounded(spec, f"{key}.bombers", "ships.*.bombers", 0)
        kinds[kind_id] = ShipKind(kind_id, name, shape, p.names(spec, f"{key}.names"), fighters, bombers)
    return SeaRules(kinds, letters, touching, mirror, straight)


def _read_shape(drawing: Any, key: str, p: Problems) -> Shape | None:
    """Read a ship's shape drawing within its bounds; record a problem and return None otherwise."""
    if isinstance(drawing, str) and p.long_text(key, drawing):
        return None
    try:
        shape = Shape.from_text(drawing)
    except MalformedAction as exc:
        p.add(key, exc.message)
        return None
    low, high = p.limits.bounds["ships.*.shape"]
    if shape.size > high:
        p.add(key, f"too many squares: {shape.size} (at most {high})")
        return None
    if shape.size < low:
        p.add(key, f"too few squares: {shape.size} (at least {low})")
        return None
    return shape


def parse_fleet(value: Any, key: str, kinds: Mapping[str, ShipKind], p: Problems) -> tuple[str, ...]:
    """Read a fleet table {kind = count}, checking kinds and counts (each, and in all) against their bounds."""
    if not isinstance(value, Mapping) or not value:
        p.add(key, "must be a table of kind = count")
        return ()
    fleet: dict[str, int] = {}
    before = len(p.items)
    for kind_id in value:
        if kind_id not in kinds:
            known = ", ".join(kinds) if len(kinds) <= p.limits.bounds["ships"][1] else "see [ships]"
            p.add(f"{key}.{key_text(kind_id)}", f"no ship kind {brief(kind_id)} (kinds: {known})")
            continue
        fleet[kind_id] = p.bounded(value, f"{key}.{kind_id}", "fleet.*")
    if len(p.items) > before:
        return ()
    if fleet and not any(fleet.values()):
        p.add(key, "the fleet has no ships")
        return ()
    # Counted before the fleet is written out one ship at a time.
    if not p.count(key, sum(fleet.values()), "ships", "fleet"):
        return ()
    return tuple(fleet_kinds(fleet))


def check_fit(size: int, sea: SeaRules, fleet: tuple[str, ...], key: str, what: str, p: Problems) -> None:
    """Record a problem if the fleet does not fit a sea of this size, or the search runs out of the file's budget."""
    reason = fleet_fit_reason(size, sea, fleet, p.budget)
    if reason == UNDECIDED:
        p.add(key, f"the {size}×{size} sea and {what}: {reason}")
    elif reason:
        p.add(key, f"the {size}×{size} sea is too small for {what}: {reason}")


def airraid_from_dict(data: Mapping[str, Any], source: str = "<ruleset>") -> AirRaidRuleset:
    """Build and check an air-raid ruleset from parsed TOML; raise RulesetError listing every problem."""
    p = Problems(source)
    head = p.table(data, "ruleset")
    rid = p.text(head, "ruleset.id", "airraid")
    mode = head.get("mode", "airraid")
    if mode != "airraid":
        p.add("ruleset.mode", f"this reader takes mode airraid, not {brief(mode)}")
    name = p.text(head, "ruleset.name", rid)
    names = p.names(head, "ruleset.names")
    before_sea = len(p.items)
    sea = parse_sea_rules(data, p)
    sea_ok = len(p.items) == before_sea

    teams = p.table(data, "teams")
    min_players = p.bounded(teams, "teams.min_players")
    max_players = p.bounded(teams, "teams.max_players")
    if max_players < min_players:
        p.add("teams.max_players", f"{max_players} is fewer than teams.min_players {min_players}")

    sizes: list[SeaSize] = []
    rows = data.get("sea_sizes")
    if not isinstance(rows, list) or not rows:
        p.add("sea_sizes", "missing: give at least one [[sea_sizes]] row")
        rows = []
    elif not p.count("sea_sizes", len(rows), "rows"):
        rows = []
    fewest, most = p.limits.bounds["sea_sizes[].players"]
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
            p.add(f"{key}.players", f"must be [fewest, most], not {brief(players)}")
            continue
        if players[1] > most:
            p.add(f"{key}.players", f"too large: {brief(players[1])} players (at most {most})")
            continue
        if players[0] < fewest:
            p.add(f"{key}.players", f"too small: {brief(players[0])} players (at least {fewest})")
            continue
        before = len(p.items)
        size = p.bounded(row, f"{key}.size", "sea_sizes[].size")
        if len(p.items) > before:
            continue
        fleet = parse_fleet(row.get("fleet"), f"{key}.fleet", sea.kinds, p)
        if fleet and sea_ok and len(p.items) == before:
            check_fit(size, sea, fleet, key, "its fleet", p)
        sizes.append(SeaSize(players[0], players[1], size, fleet))
    for a, b in itertools.pairwise(sizes):
        if b.min_players <= a.max_players:
            p.add(
                "sea_sizes",
                f"rows for {a.min_players}–{a.max_players} and {b.min_players}–{b.max_players} players overlap",
            )

    corridors_t = p.table(data, "corridors")
    corridors = corridors_t.get("names", [])
    longest = p.limits.most("text")
    if not isinstance(corridors, list) or not corridors or not all(isinstance(c, str) and c for c in corridors):
        p.add("corridors.names", "must be a list of corridor names")
        corridors = ["upper"]
    elif not p.count("corridors.names", len(corridors), "corridors"):
        corridors = ["upper"]
    elif any(len(c) > longest for c in corridors):
        p.add("corridors.names", f"too long: a name of more than {longest} characters")
    if len(set(corridors)) != len(corridors):
        p.add("corridors.names", "two corridors share a name")
    corridor_names: dict[str, tuple[str, ...]] = {}
    translated = [key_name for key_name in corridors_t if key_name.startswith("names_")]
    if len(translated) > p.limits.most("languages"):
        p.add("corridors", f"too many languages: {len(translated)} (at most {p.limits.most('languages')})")
        translated = []
    for key_name in translated:
        value = corridors_t[key_name]
        if p.long_text(f"corridors.{key_text(key_name)}", key_name):
            continue
        if not isinstance(value, list) or len(value) != len(corridors) or not all(isinstance(v, str) for v in value):
            p.add(f"corridors.{key_name}", f"must list {len(corridors)} names, one per corridor")
        elif any(len(v) > longest for v in value):
            p.add(f"corridors.{key_name}", f"too long: a name of more than {longest} characters")
        else:
            corridor_names[key_name[len("names_") :]] = tuple(value)
    limit = p.bounded(corridors_t, "corridors.limit")

    rounds = p.table(data, "rounds")
    seconds = p.bounded(rounds, "rounds.seconds", default=300)
    round_limit = p.bounded(rounds, "rounds.limit", default=0)
    tie_breaks = rounds.get("tie_breaks", list(TIE_BREAKS))
    if not isinstance(tie_breaks, list) or not all(t in TIE_BREAKS for t in tie_breaks):
        p.add("rounds.tie_breaks", f"must be a list drawn from {', '.join(TIE_BREAKS)}, not {brief(tie_breaks)}")
        tie_breaks = list(TIE_BREAKS)
    elif len(set(tie_breaks)) != len(tie_breaks):
        p.add("rounds.tie_breaks", "names a tie-break twice")
        tie_breaks = list(TIE_BREAKS)
    # A file from before the choice ends the round at 0:00, as every game of that day did.
    at_zero = rounds.get("at_zero", "end")
    if at_zero not in AT_ZERO:
        p.add("rounds.at_zero", f"must be one of {', '.join(AT_ZERO)}, not {brief(at_zero)}")
        at_zero = "end"
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
        at_zero=str(at_zero),
    )


def read_toml(path: str | Path) -> dict[str, Any]:
    """Read a TOML file; raise RulesetError naming the file if it cannot be read or parsed, or is too large."""
    source = str(path)
    most = limits().most("characters")
    try:
        with open(path, "rb") as handle:
            # UTF-8 takes at most 4 bytes a character: no need to read further to know it is too large.
            raw = handle.read(4 * most + 1)
    except OSError as exc:
        raise RulesetError([(source, "-", exc.strerror or str(exc))]) from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if len(raw) > 4 * most:
            raise RulesetError([(source, "-", f"too large: more than {most:,} characters")]) from exc
        raise RulesetError([(source, "-", f"not valid TOML: not UTF-8 text (byte {exc.start + 1})")]) from exc
    return parse_toml(text, source)


def parse_toml(text: str, source: str = "<ruleset>") -> dict[str, Any]:
    """Parse a ruleset's TOML text; raise RulesetError if it is too large, nested too deeply, or not TOML.

    Size and nesting are checked before the parser runs: tomllib recurses once per nested
    array or inline table (a few hundred brackets end in RecursionError), and its time grows
    with the square of a dotted key's parts (a 40 kB key `a.a.a…` takes 5 s).
    """
    most = limits().most("characters")
    if len(text) > most:
        raise RulesetError([(source, "-", f"too large: {len(text):,} characters (at most {most:,})")])
    deepest = limits().most("nesting")
    if max(toml_nesting(text)) > deepest:
        raise RulesetError([(source, "-", _too_deep(deepest))])
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesetError([(source, "-", f"not valid TOML: {exc}")]) from exc
    except ValueError as exc:
        # int() refuses numbers of more than 4300 digits; tomllib lets that ValueError through.
        raise RulesetError([(source, "-", "not valid TOML: a number has too many digits")]) from exc
    except RecursionError as exc:  # the scan above should make this unreachable; a 500 must not be
        raise RulesetError([(source, "-", _too_deep(deepest))]) from exc
    check_nesting(data, source)
    return data


def _too_deep(deepest: int) -> str:
    return f"nested too deeply: arrays, tables and dotted keys inside one another (at most {deepest} deep)"


def toml_nesting(text: str) -> tuple[int, int]:
    """Return (deepest nesting of arrays and inline tables, most dots in one key) of a TOML text.

    A linear scan that skips strings and comments, a cheap pre-check only: the parser still
    judges the text, and a text it would refuse may be measured wrongly here.
    """
    values: list[str] = []  # the open "[" and "{" of values
    deepest = dots = most_dots = 0
    at_key = True  # a key is next: at the start of a line outside values, or in an inline table
    header = False
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if ch == '"' or ch == "'":
            quote = ch * 3 if text.startswith(ch * 3, i) else ch
            i += len(quote)
            while i < n and not text.startswith(quote, i):
                if text[i] == "\\" and ch == '"':
                    i += 1  # an escaped character, maybe a quote
                elif text[i] == "\n" and len(quote) == 1:
                    break  # an unterminated string: the parser will say so
                i += 1
            i += len(quote)
            continue
        if ch == "\n" and not values:
            at_key, header, dots = True, False, 0
        elif at_key:
            if ch == ".":
                dots += 1
                most_dots = max(most_dots, dots)
            elif ch == "=" or (ch == "]" and header):
                at_key, dots = False, 0
            elif ch == "[" and not values:
                header = True  # a [table] or [[array of tables]] header: its key is dotted too
            elif ch == "}" and values:
                values.pop()  # an empty inline table
                at_key = False
        elif ch in "[{":
            values.append(ch)
            deepest = max(deepest, len(values))
            at_key = ch == "{"
        elif ch in "]}":
            if values:
                values.pop()
        elif ch == "," and values and values[-1] == "{":
            at_key = True
        i += 1
    return deepest, most_dots


def check_nesting(data: Mapping[str, Any], source: str) -> None:
    """Raise RulesetError if tables and arrays nest more deeply than the bound (dotted keys nest without brackets)."""
    deepest = limits().most("nesting")
    todo: list[tuple[object, int]] = [(data, 0)]
    while todo:
        value, depth = todo.pop()
        if isinstance(value, Mapping):
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > deepest:
            raise RulesetError([(source, "-", _too_deep(deepest))])
        todo.extend((child, depth + 1) for child in children)


Ruleset = Any
"""A ruleset of any mode (each mode's reader makes its own kind)."""


def ruleset_from_dict(data: Mapping[str, Any], source: str = "<ruleset>") -> Ruleset:
    """Build a ruleset of whichever registered mode the data names."""
    check_nesting(data, source)
    head = data.get("ruleset")
    mode = head.get("mode") if isinstance(head, Mapping) else None
    if not isinstance(mode, str) or mode not in MODES:
        raise RulesetError([(source, "ruleset.mode", f"unknown mode {brief(mode)} (known: {', '.join(MODES)})")])
    return MODES[mode].read_ruleset(data, source)


def mode_ruleset(mode: str, data: Mapping[str, Any], source: str) -> None:
    """Refuse ruleset data that names another mode than the game that reads it."""
    check_nesting(data, source)
    head = data.get("ruleset")
    named = head.get("mode") if isinstance(head, Mapping) else None
    if named != mode:
        article = "an" if mode[:1] in "aeiou" else "a"
        raise RulesetError([(source, "ruleset.mode", f"this game takes {article} {mode} ruleset, not {brief(named)}")])


def airraid_ruleset_from_dict(data: Mapping[str, Any], source: str = "<ruleset>") -> AirRaidRuleset:
    """Build a ruleset that must be an air-raid one (the air-raid game's own reader)."""
    mode_ruleset("airraid", data, source)
    return airraid_from_dict(data, source)


def load_ruleset(path: str | Path) -> Ruleset:
    """Load and check a ruleset file."""
    return ruleset_from_dict(read_toml(path), str(path))
