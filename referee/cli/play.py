"""`referee play`: a scripted game of any mode, played as the server plays it, on a virtual clock.

A play file holds one JSON object a line (docs/actions.md): an optional first line with the
create_game action's options, then actions as the API takes them with the acting role, lines
that only let time pass, and checks of the outcome. Each line goes through the real path: the
`Store` on a private in-memory SQLite database and the play service (`Play`), so what is printed
is what the server would store, and the computer's moves follow (`Play.follow`) and the round
clock acts (`Play.tick`) exactly as on the server. Only time and chance differ: the clock is
virtual (it starts at 0 and moves only when a line says), and with a seed every seed the server
would draw comes from `random.Random(seed)` instead, so one file and one seed print the same
bytes every time.
"""

from __future__ import annotations

import itertools
import json
import logging
import math
import random
import re
import sys
import tomllib
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from sqlalchemy.pool import QueuePool

from referee.play import Play
from referee.resources import resource_path
from referee.rules import find_mode
from referee.rules.errors import MalformedAction, RulesError, RulesetError
from referee.rules.events import REFEREE, Role, encode
from referee.rules.ruleset import read_toml, ruleset_from_dict
from referee.store import Store, make_engine, random_seed
from referee.store.models import Game

GAME_ID = "play-script"
"""The id the scripted game gets (no event names it, so any fixed id keeps the output alike)."""

LINE_FIELDS = ("by", "action", "at", "expect", "client_id", "version", "seed", "create", "expect_outcome")
BAD_LINE = "bad_line"
"""The `error` of a line the play file itself gets wrong (not JSON, an unknown field, ...)."""
_MAP_NAME = re.compile(r"^[A-Za-z0-9_-]{1,60}$")


class SetupError(Exception):
    """The ruleset, its map or the play file cannot be read: nothing is played."""


# --- The ruleset and its map -------------------------------------------------------------------


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


# --- Lines -------------------------------------------------------------------------------------


class BadLine(Exception):
    """A line of the play file that is not of its form."""

    def __init__(self, message: str, expect: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.expect = expect


@dataclass(frozen=True)
class Expect:
    """What a line expects: accepted, or refused (with a part of the refusal's text, or its error code)."""

    refused: bool = False
    text: str | None = None
    error: str | None = None

    @classmethod
    def parse(cls, value: Any) -> Expect:
        """Read an `expect` field: "ok", "refused", or {"refused": "text part", "error": "code"}."""
        if value is None or value == "ok":
            return cls()
        if value == "refused":
            return cls(refused=True)
        if isinstance(value, Mapping) and value and set(value) <= {"refused", "error"}:
            text, error = value.get("refused"), value.get("error")
            if (text is None or isinstance(text, str)) and (error is None or isinstance(error, str)):
                return cls(True, text, error)
        raise BadLine('expect is "ok", "refused", or {"refused": "a part of the refusal", "error": "its code"}')

    def met_by(self, refusal: str | None, error: str | None) -> bool:
        """Tell whether an answer (None: accepted) is what was expected."""
        if refusal is None:
            return not self.refused
        return (
            self.refused and (self.text is None or self.text in refusal) and (self.error is None or self.error == error)
        )


@dataclass
class Line:
    """One line of a play file, read."""

    number: int
    by: Role = REFEREE
    action: Any = None
    at: float | None = None
    expect: Expect = field(default_factory=Expect)
    client_id: Any = None
    version: Any = None
    seed: int | None = None
    create: Mapping[str, Any] | None = None
    outcome: Any = None
    checks_outcome: bool = False


def parse_line(number: int, text: str) -> Line:
    """Read one line of a play file; raise BadLine naming what is wrong."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadLine(f"not JSON: {exc.msg} (column {exc.colno})") from None
    if not isinstance(data, dict):
        raise BadLine('a line is a JSON object, like {"by": "team:A", "action": {...}}')
    expect = Expect.parse(data.get("expect"))  # a broken expect cannot be what the line expects
    try:
        return _line_from(number, data, expect)
    except BadLine as exc:
        raise BadLine(exc.message, expect) from None


def _line_from(number: int, data: dict[str, Any], expect: Expect) -> Line:
    unknown = sorted(set(data) - set(LINE_FIELDS))
    if unknown:
        raise BadLine(f"unknown field {', '.join(unknown)}: a line has {', '.join(LINE_FIELDS)}")
    line = Line(number, expect=expect, client_id=data.get("client_id"), version=data.get("version"))
    by = data.get("by", "referee")
    try:
        line.by = Role.from_str(by)
    except MalformedAction:
        raise BadLine("by must be a role, like referee, team:A, player:B or pilot:1A1") from None
    at = data.get("at")
    if at is not None:
        if isinstance(at, bool) or not isinstance(at, (int, float)) or not math.isfinite(at) or at < 0:
            raise BadLine("at must be a number of seconds from 0")
        line.at = float(at)
    seed = data.get("seed")
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
            raise BadLine("seed must be a whole number from 0 to 2**63 - 1")
        line.seed = seed
    if "create" in data:
        if not isinstance(data["create"], dict):
            raise BadLine("create must be the create_game action's options, a JSON object")
        if "action" in data or "expect_outcome" in data:
            raise BadLine("a create line has no action and no expect_outcome")
        line.create = data["create"]
        return line
    if "expect_outcome" in data:
        if set(data) - {"expect_outcome"}:
            raise BadLine("an expect_outcome line has nothing else")
        line.outcome, line.checks_outcome = data["expect_outcome"], True
        return line
    if "action" not in data:
        if at is None:
            raise BadLine("a line needs an action (or only an at, to let time pass)")
        if set(data) - {"at"}:
            raise BadLine("a line without an action only lets time pass: it has nothing but at")
        return line
    line.action = data["action"]
    return line


def outcome_matches(expected: Any, outcome: Any) -> bool:
    """Tell whether an outcome (as JSON) has every field the expected one names, with its value."""
    if isinstance(expected, Mapping):
        return isinstance(outcome, Mapping) and all(
            k in outcome and outcome_matches(v, outcome[k]) for k, v in expected.items()
        )
    return bool(expected == outcome)


# --- Playing -----------------------------------------------------------------------------------


class _Chance:
    """Where the server's seeds come from: a line's own seed, else random.Random(seed), else a random one."""

    def __init__(self, seed: int | None) -> None:
        self.rng = random.Random(seed) if seed is not None else None
        self.given: int | None = None

    def draw(self) -> int:
        """The seed of an action that takes chance: the line's, else the run's next, else a random one."""
        if self.given is not None:
            given, self.given = self.given, None
            return given
        return random_seed() if self.rng is None else self.rng.getrandbits(63)


class _Versions:
    """The play service's publisher here: it only notes the version of each state it is handed."""

    def __init__(self) -> None:
        self.seen: list[int] = []

    def publish(
        self, game_id: str, state: Any, since: int | None = None, device_id: str | None = None
    ) -> Mapping[tuple[Role, str], Any]:
        """Note the version; no screen listens."""
        self.seen.append(int(state.version))
        return {}


class _AutomaticRefusals(logging.Handler):
    """Catch the refusal of a computer's move, which `Play.follow` only logs."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.found: list[RulesError] = []

    def emit(self, record: logging.LogRecord) -> None:
        """Keep the refusal the record carries."""
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, RulesError):
            self.found.append(error)


def _refusal(exc: RulesError) -> dict[str, Any]:
    return {"ok": False, "refused": str(exc.message), "error": exc.code}


class ScriptGame:
    """One scripted game: a fresh store, the play service on a virtual clock, and the lines played so far."""

    def __init__(
        self, mode: str, data: Mapping[str, Any], ruleset: Any, *, seed: int | None = None, maps: Path | None = None
    ) -> None:
        self.mode_name = mode
        self.mode = find_mode(mode)
        self.data, self.ruleset, self.maps = data, ruleset, maps
        self.chance = _Chance(seed)
        self.now = 0.0
        self.unexpected = 0
        self.state: Any = None
        self.version = 0
        # A private database per run: a shared-cache memory database lives while the engine keeps a connection.
        url = f"sqlite:///file:referee-play-{uuid.uuid4().hex}?mode=memory&cache=shared&uri=true"
        self.engine = make_engine(url, poolclass=QueuePool, pool_size=2, max_overflow=2)
        Game.metadata.create_all(self.engine)
        self.store = Store(self.engine, seeds=self.chance.draw)
        self.versions = _Versions()
        self.play = Play(self.store, self.versions, clock=lambda: self.now)
        self.refusals = _AutomaticRefusals()

    def close(self) -> None:
        """Drop the database."""
        self.engine.dispose()

    def run(self, lines: Iterable[tuple[int, str]]) -> Iterator[dict[str, Any]]:
        """Play numbered lines of a play file; yield one record per line, automatic move and clock action."""
        logger = logging.getLogger("referee.play")
        logger.addHandler(self.refusals)
        try:
            yield from self._run(iter(lines))
        finally:
            logger.removeHandler(self.refusals)

    def _run(self, lines: Iterator[tuple[int, str]]) -> Iterator[dict[str, Any]]:
        first = next(lines, None)
        created, bad = Line(0), None
        if first is not None:
            try:
                line = parse_line(*first)
            except BadLine as exc:
                bad = exc  # reported once the game is made with the defaults, in the order of the file
            else:
                if line.create is not None:
                    created = line
                else:
                    lines = _chain([first], lines)
        yield from self._create(created)
        if first is not None and bad is not None:
            yield self._bad(first[0], bad)
        for number, text in lines:
            if self.state is None:
                yield self._bad(number, BadLine("no game: its creation was refused"))
                continue
            try:
                line = parse_line(number, text)
            except BadLine as exc:
                yield self._bad(number, exc)
                continue
            yield from self._play(line)
        yield self._outcome()

    def _bad(self, number: int, exc: BadLine) -> dict[str, Any]:
        expect = exc.expect if isinstance(exc.expect, Expect) else Expect()
        met = expect.met_by(exc.message, BAD_LINE)
        self.unexpected += not met
        return {"line": number, "ok": False, "refused": exc.message, "error": BAD_LINE, "as_expected": met}

    def _answer(self, line: Line, exc: RulesError | None, **more: Any) -> dict[str, Any]:
        """Return a line's record, counting it if it is not what the line expects."""
        met = line.expect.met_by(None if exc is None else str(exc.message), None if exc is None else exc.code)
        self.unexpected += not met
        answer = {"ok": True} if exc is None else _refusal(exc)
        return {"line": line.number, **answer, **more, "as_expected": met}

    def _create(self, line: Line) -> Iterator[dict[str, Any]]:
        self.now = line.at or 0.0
        action = create_action(self.mode_name, self.data, self.ruleset, line.create, self.maps)
        self.chance.given = line.seed
        self.versions.seen.clear()
        try:
            acted = self.play.create(self.mode_name, action, by=line.by, game_id=GAME_ID)
        except RulesError as exc:
            yield self._answer(line, exc)
            return
        finally:
            self.chance.given = None
        yield from self._stored(line, 0, [acted.result.version, *self.versions.seen])

    def _play(self, line: Line) -> Iterator[dict[str, Any]]:
        if line.at is not None:
            if line.at < self.now:
                yield self._bad(line.number, BadLine(f"at {line.at:g} is before the clock's {self.now:g}", line.expect))
                return
            yield from self._pass_time(line.number, line.at)
        if line.create is not None:
            yield self._bad(line.number, BadLine("create is only the first line", line.expect))
        elif line.checks_outcome:
            outcome = self._outcome_json()
            met = outcome_matches(line.outcome, outcome)
            self.unexpected += not met
            yield {"line": line.number, "ok": met, "outcome": outcome, "as_expected": met}
        elif line.action is None:
            yield {"line": line.number, "ok": True, "at": self.now, "as_expected": True}
        else:
            yield from self._act(line)

    def _act(self, line: Line) -> Iterator[dict[str, Any]]:
        kind = line.action.get("type") if isinstance(line.action, dict) else None
        if line.seed is not None and kind not in self.mode.chance:
            yield self._bad(line.number, BadLine(f"seed is given, but {kind!r} takes no chance", line.expect))
            return
        self.chance.given = line.seed
        self.versions.seen.clear()
        before = self.version
        try:
            acted = self.play.act(GAME_ID, line.by, line.action, client_id=line.client_id, version=line.version)
        except RulesError as exc:
            yield self._answer(line, exc)
            return
        finally:
            self.chance.given = None
        if acted.result.duplicate:
            # A client_id seen before: the store answers with the original's events and stores nothing.
            self.versions.seen.clear()
            yield self._answer(line, None, duplicate=True, events=_dicts(acted.result.events))
            return
        yield from self._stored(line, before, list(self.versions.seen))

    def _stored(self, line: Line, before: int, ends: list[int]) -> Iterator[dict[str, Any]]:
        """Yield the line's own events, then each automatic move's, as stored; `ends`: the version after each."""
        stored = self.store.events_since(GAME_ID, before)
        self.versions.seen.clear()
        yield self._answer(line, None, events=_dicts(e for e in stored if e.seq <= ends[0]))
        for start, end in itertools.pairwise(ends):
            move = [e for e in stored if start < e.seq <= end]
            if move:
                yield {"line": line.number, "automatic": True, "by": move[0].by, "events": _dicts(move)}
        for refusal in self.refusals.found:
            # Play.follow stops at a refused automatic move (a bug of the mode): the run fails.
            self.unexpected += 1
            yield {"line": line.number, "automatic": True, **_refusal(refusal), "as_expected": False}
        self.refusals.found.clear()
        self._refresh()

    def _pass_time(self, number: int, until: float) -> Iterator[dict[str, Any]]:
        """Move the clock to `until`, letting the round clock act at each deadline on the way, as the server's."""
        while self.state is not None:
            deadline = self.mode.next_deadline(self.state)
            if deadline is None or deadline > until:
                break
            self.now = max(self.now, float(deadline))
            before = self.version
            if not self.play.tick(self.now):
                break
            events = self.store.events_since(GAME_ID, before)
            by = events[0].by if events else "clock"
            yield {"line": number, "clock": True, "by": by, "at": self.now, "events": _dicts(events)}
            self._refresh()
        self.now = until

    def _refresh(self) -> None:
        self.state, self.version = self.store.load(GAME_ID)

    def _outcome_json(self) -> Any:
        if self.state is None:
            return None
        outcome = self.mode.outcome(self.state)
        return None if outcome is None else encode(outcome)

    def _outcome(self) -> dict[str, Any]:
        return {"outcome": self._outcome_json(), "seq": self.version, "unexpected": self.unexpected}


def _chain(head: list[tuple[int, str]], tail: Iterator[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    yield from head
    yield from tail


def _dicts(events: Iterable[Any]) -> list[dict[str, Any]]:
    return [e.to_dict() for e in events]


def numbered_lines(text: str) -> list[tuple[int, str]]:
    """Return the lines of a play file that hold something, with their numbers (blank and # lines skipped)."""
    return [
        (number, line)
        for number, line in enumerate(text.splitlines(), start=1)
        if line.strip() and not line.lstrip().startswith("#")
    ]


def dumps(record: Mapping[str, Any]) -> str:
    """Write one output record as one JSON line."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def play_text(ruleset: str, text: str, *, seed: int | None = None, out: TextIO, maps: Path | None = None) -> int:
    """Play a play file's text against a fresh game of the ruleset's mode; print each record; return the exit code."""
    data, parsed = read_ruleset_file(ruleset_path(ruleset))
    game = ScriptGame(str(data["ruleset"]["mode"]), data, parsed, seed=seed, maps=maps)
    try:
        for record in game.run(numbered_lines(text)):
            out.write(dumps(record) + "\n")
    finally:
        game.close()
    return 0 if game.unexpected == 0 else 1


def play_file(ruleset: str, actions: str, *, seed: int | None = None, out: TextIO, err: TextIO) -> int:
    """Run `referee play RULESET ACTIONS.jsonl` ("-": standard input): 0 when every line went as expected, else 1."""
    try:
        if actions == "-":
            text = sys.stdin.read()
        else:
            try:
                text = Path(actions).read_text(encoding="utf-8")
            except OSError as exc:
                raise SetupError(f"{actions}: {exc.strerror or exc}") from exc
            except UnicodeDecodeError as exc:
                raise SetupError(f"{actions}: not UTF-8 text (byte {exc.start + 1})") from exc
        return play_text(ruleset, text, seed=seed, out=out)
    except SetupError as exc:
        err.write(f"{exc}\n")
        return 1
