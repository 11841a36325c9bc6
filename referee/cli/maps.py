"""The `referee map check` command: check a Vestorsjø map file (config/maps/oresund.toml) before a game.

The format is docs/maps.md's. The rules' own check (`referee.rules.vestorsjo.board.map_problems`:
terrain, ports next to the sea, piers that touch a port, legal start places, every strategic port
within a ship's reach) runs first; this module adds what a real map must also have: every port of
the rules' lists with the rules' side, depth and flags, sea forts with sea all round, and pier
corners at the ends of piers. `check_command` prints one summary line and returns 0, or one
`FILE: key: reason` line per problem and returns 1, like `referee rules check`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from referee.rules.errors import MalformedAction
from referee.rules.vestorsjo.board import map_problems
from referee.rules.vestorsjo.hexes import Edge, Hex, Vertex

Problem = tuple[str, str]  # (key, reason)


@dataclass(frozen=True)
class RulesPort:
    """A port as the rules list it (shared/rules/vestorsjo.md)."""

    side: str
    depth: str
    strategic: bool
    fort: bool = False


# The rules' two lists, south to north, as the seed spells the names.
RULES_PORTS: dict[str, RulesPort] = {
    "Limmhámnen": RulesPort("scania", "destroyer", False),
    "Malme Syngor": RulesPort("scania", "destroyer", False),
    "Malme Nor": RulesPort("scania", "destroyer", True),
    "Lomme": RulesPort("scania", "corvette", False),
    "Vihójjana": RulesPort("scania", "corvette", False),
    "Bâsebetçs lajje": RulesPort("scania", "corvette", False),
    "Lanskròna": RulesPort("scania", "destroyer", True),
    "Tçorkebakken": RulesPort("scania", "corvette", False),
    "Bækkvigen": RulesPort("scania", "frigate", False),
    "Boostahusen": RulesPort("scania", "corvette", False),
    "Aûlaboen": RulesPort("scania", "corvette", False),
    "Raû": RulesPort("scania", "frigate", False),
    "Hælsengbór": RulesPort("scania", "destroyer", True),
    "Dragør": RulesPort("zealand", "corvette", True),
    "Kastrup": RulesPort("zealand", "frigate", False),
    "København SydSyd": RulesPort("zealand", "destroyer", False),
    "København Syd": RulesPort("zealand", "destroyer", False),
    "København Nord": RulesPort("zealand", "destroyer", True),
    "Tuborg": RulesPort("zealand", "destroyer", False),
    "Flakfort": RulesPort("zealand", "frigate", False, fort=True),
    "Middelgrunds fort": RulesPort("zealand", "corvette", False, fort=True),
    "Skovshoved": RulesPort("zealand", "frigate", False),
    "Taarbæk": RulesPort("zealand", "corvette", False),
    "Vedbæk": RulesPort("zealand", "corvette", False),
    "Rungsted": RulesPort("zealand", "corvette", False),
    "Sletten": RulesPort("zealand", "corvette", False),
    "Humlebæk": RulesPort("zealand", "corvette", False),
    "Espergærde": RulesPort("zealand", "corvette", False),
    "Snekkersten": RulesPort("zealand", "corvette", False),
    "Helsingør": RulesPort("zealand", "destroyer", True),
}


def real_map_problems(data: Mapping[str, Any]) -> list[Problem]:
    """Return what the rules' check leaves to a real map: the rules' ports, forts, pier corners."""
    problems: list[Problem] = []
    head = data.get("map")
    terrain = head.get("terrain") if isinstance(head, Mapping) else None
    rows = terrain if isinstance(terrain, list) and all(isinstance(r, str) for r in terrain) else []

    def at(h: Hex) -> str:
        return rows[h.row][h.col] if 0 <= h.row < len(rows) and 0 <= h.col < len(rows[h.row]) else "#"

    ports = data.get("ports")
    entries = [p for p in ports if isinstance(p, Mapping)] if isinstance(ports, list) else []
    seen: set[str] = set()
    port_hexes: set[Hex] = set()
    for i, port in enumerate(entries):
        name = port.get("name")
        if not isinstance(name, str):
            continue  # the rules' check reports it
        seen.add(name)
        rules = RULES_PORTS.get(name)
        if rules is None:
            problems.append((f"ports[{i}].name", f"{name}: the rules list no port of that name"))
            continue
        for field in ("side", "depth", "strategic", "fort"):
            want, got = getattr(rules, field), port.get(field, False if field in ("strategic", "fort") else None)
            if got != want:
                problems.append((f"ports[{i}].{field}", f"{name}: {_toml(got)}, but the rules say {_toml(want)}"))
        h = _parse(Hex.parse, port.get("hex"))
        if not isinstance(h, Hex):
            continue
        port_hexes.add(h)
        if port.get("fort") is True:
            not_sea = [n.format() for n in h.neighbours() if at(n) != "."]
            if not_sea:
                problems.append((f"ports[{i}].hex", f"{name}: a sea fort has sea all round, not {', '.join(not_sea)}"))
    for name, rules in RULES_PORTS.items():
        if name not in seen:
            problems.append(("ports", f"{name} is missing ({rules.side}'s {rules.depth} port)"))
    piers = data.get("piers")
    if isinstance(piers, Mapping):
        edges = piers.get("edges", [])
        ends = set()
        for text in edges if isinstance(edges, list) else []:
            e = _parse(Edge.parse, text)
            if isinstance(e, Edge):
                ends |= set(e.ends())
        vertices = piers.get("vertices", [])
        for j, text in enumerate(vertices if isinstance(vertices, list) else []):
            v = _parse(Vertex.parse, text)
            if isinstance(v, Vertex) and v not in ends:
                problems.append((f"piers.vertices[{j}]", f"{v} dangles: no pier edge ends there"))
    return problems


def _parse(parse: Callable[[object], object], text: object) -> object:
    """Return a parsed place, or None where the rules' check has already said why not."""
    try:
        return parse(text)
    except MalformedAction:
        return None


def _toml(value: object) -> str:
    """Write a value as the map file does."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def summary(data: Mapping[str, Any]) -> str:
    """Return the one-line summary of a good map."""
    terrain = "".join(data["map"]["terrain"])
    start = data.get("start", {})
    places = sum(len(start.get(side, {})) for side in ("scania", "zealand"))
    return (
        f"{len(terrain)} hexes ({terrain.count('.')} sea), {len(data.get('ports', []))} ports, "
        f"{len(data.get('piers', {}).get('edges', []))} piers, {places} start places"
    )


def load(path: str) -> tuple[dict[str, Any] | None, list[Problem]]:
    """Read a map file: its data, or the one problem that stops reading it."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        return None, [("-", f"cannot be read: {exc.strerror or exc}")]
    try:
        return tomllib.loads(raw.decode("utf-8")), []
    except UnicodeDecodeError:
        return None, [("-", "not UTF-8 text")]
    except tomllib.TOMLDecodeError as exc:
        return None, [("-", f"not valid TOML: {exc}")]
    except ValueError:
        # int() refuses numbers of more than 4300 digits; tomllib lets that ValueError through.
        return None, [("-", "not valid TOML: a number has too many digits")]


def problems_of(data: Mapping[str, Any]) -> list[Problem]:
    """Return every problem of a parsed map: the rules' check, then the real map's, each once."""
    found = map_problems(data)
    extra = real_map_problems(data)
    return found + [p for p in extra if p not in found]


def check_command(path: str) -> int:
    """Check a map file: print a summary and return 0, or one `FILE: key: reason` line per problem and return 1."""
    data, problems = load(path)
    if data is not None:
        problems = problems_of(data)
    for key, reason in problems:
        click.echo(f"{path}: {key}: {reason}")
    if problems or data is None:
        return 1
    click.echo(f"{path}: ok: {summary(data)}")
    return 0
