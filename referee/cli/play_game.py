"""One scripted game: a private store and the play service on a virtual clock, playing a play file's lines.

Every line goes through the server's own path (`Store`, `Play`); only time and chance are the
run's: the clock moves when a line says, and the server's seeds come from the run's `_Chance`.
"""

from __future__ import annotations

import itertools
import logging
import random
import uuid
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from sqlalchemy.pool import QueuePool

from referee.cli.play_lines import BAD_LINE, BadLine, Expect, Line, outcome_matches, parse_line
from referee.cli.play_setup import create_action
from referee.play import Play
from referee.rules import find_mode
from referee.rules.errors import RulesError
from referee.rules.events import Role, encode
from referee.store import Store, make_engine, random_seed
from referee.store.models import Game

GAME_ID = "play-script"
"""The id the scripted game gets (no event names it, so any fixed id keeps the output alike)."""


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
        refusal, code = (None, None) if exc is None else (str(exc.message), exc.code)
        met = line.expect.met_by(refusal, code, more.get("effects"))
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
        own = [e for e in stored if e.seq <= ends[0]]
        state = self.state
        said, state = self._effects(state, own)
        yield self._answer(line, None, events=_dicts(own), **said)
        for start, end in itertools.pairwise(ends):
            move = [e for e in stored if start < e.seq <= end]
            if move:
                said, state = self._effects(state, move)
                yield {"line": line.number, "automatic": True, "by": move[0].by, "events": _dicts(move), **said}
        for refusal in self.refusals.found:
            # Play.follow stops at a refused automatic move (a bug of the mode): the run fails.
            self.unexpected += 1
            yield {"line": line.number, "automatic": True, **_refusal(refusal), "as_expected": False}
        self.refusals.found.clear()
        self._refresh()

    def _effects(self, state: Any, events: list[Any]) -> tuple[dict[str, Any], Any]:
        """Return {"effects": what these events did} (the mode's `effects`, if it has one) and the state after them."""
        if self.mode.effects is None or not events:
            return {}, state
        if state is None:  # the game's creation: nothing before it to compare with
            return {}, self.mode.replay(events)
        after = state
        for event in events:
            after = self.mode.fold(after, event)
        return {"effects": self.mode.effects(state, after)}, after

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
