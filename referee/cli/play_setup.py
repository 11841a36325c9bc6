"""Setting up a scripted game: the ruleset file a RULESET argument names, its map, the create_game action."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from referee.resources import resource_path
from referee.rules.errors import RulesetError
from referee.rules.ruleset import read_toml, ruleset_from_dict

_MAP_NAME = re.compile(r"^[A-Za-z0-9_-]{1,60}$")


class SetupError(Exception):
    """The ruleset, its map or the play file cannot be read: nothing is played."""


def ruleset_path(name: str, rulesets: Path | None = None) -> Path:
    """Return the ruleset file a RULESET argument names: a path, or a bare name in config/rulesets/."""
    path = Path(name)
    if path.is_file():
        return path
    folder = rulesets or resource_path("config") / "rulesets"
    bare = name[: -len(".toml")] if name.endswith(".toml") else name
    if _MAP_NAME.match(bare) and (folder / f"{bare}.toml").is_file():
        return folder / f"{bare}.toml"
    raise SetupError(f"{name}: no such ruleset file (nor {folder / (bare + '.toml')})")


def read_ruleset_file(path: Path) -> tuple[dict[str, Any], Any]:
    """Read and check a ruleset file; return its data and the mode's ruleset."""
    try:
        data = read_toml(path)
        return data, ruleset_from_dict(data, str(path))
    except RulesetError as exc:
        raise SetupError("\n".join(exc.lines())) from exc


def map_name(data: Mapping[str, Any], ruleset: Any = None) -> str | None:
    """Return the map a ruleset names, if any: its reader's `map` (which may be a default), else `[ruleset] map`."""
    named = getattr(ruleset, "map", None)
    if named is None:
        head = data.get("ruleset")
        named = head.get("map") if isinstance(head, Mapping) else None
    if named is None:
        return None
    if not isinstance(named, str) or not _MAP_NAME.match(named):
        raise SetupError(f"the ruleset's map must be a map's name (letters, digits, - and _), not {named!r}")
    return named


def read_map(name: str, maps: Path | None = None) -> dict[str, Any]:
    """Read config/maps/<name>.toml (parsed TOML), as a create_game action's `map` carries it."""
    path = (maps or resource_path("config") / "maps") / f"{name}.toml"
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise SetupError(f"{path}: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise SetupError(f"{path}: not valid TOML: {exc}") from exc


def _battleship_defaults(ruleset: Any) -> dict[str, Any]:
    return {"players": {"A": "Player A", "B": "Player B"}}


def _airraid_defaults(ruleset: Any) -> dict[str, Any]:
    count = int(ruleset.min_players)
    return {
        "teams": [
            {"name": f"Team {team}", "players": [f"{team}{n}" for n in range(1, count + 1)]} for team in ("A", "B")
        ]
    }


# The options a game is created with when the play file's first line gives none (or some of
# them): whatever each mode's create_game needs beside its ruleset. A mode not listed gets only
# its ruleset (and map); its play files give the rest in a `create` line.
CREATE_DEFAULTS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "battleship": _battleship_defaults,
    "airraid": _airraid_defaults,
}


def create_action(
    mode: str,
    data: Mapping[str, Any],
    ruleset: Any,
    options: Mapping[str, Any] | None = None,
    maps: Path | None = None,
) -> dict[str, Any]:
    """Return the create_game action: the mode's defaults, the ruleset's data, its map, then the file's options."""
    action: dict[str, Any] = {"type": "create_game", **CREATE_DEFAULTS.get(mode, lambda _r: {})(ruleset)}
    action["ruleset"] = dict(data)
    options = dict(options or {})
    named = map_name(data, ruleset)
    if named is not None and "map" not in options:
        action["map"] = read_map(named, maps)
    action.update(options)
    action["type"] = "create_game"
    return action
