"""Each game's state in this process: a cache by version, one load of a game at a time, and snapshots.

A state is the fold of a game's events. Folding a long game again for every action would grow
with the game, so the newest state is kept here, refreshed by the events written since; a game
not held is read from its newest snapshot plus the events after it. A snapshot is only a
shortcut: one lost to a race or a busy database costs nothing, the log holds the truth.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, func, insert, select
from sqlalchemy.exc import IntegrityError, OperationalError

from referee import offload
from referee.store.engine import reading, retry_busy
from referee.store.rows import (
    LOG_IN_EVENTS,
    computed,
    event_rows,
    folded,
    from_snapshot,
    replayed,
    snapshot_text,
    snapshots_t,
)
from referee.store.types import Mode

log = logging.getLogger(__name__)


@dataclass
class _Cached:
    mode_name: str
    state: Any
    version: int


class States:
    """The states this process holds, by game, and the snapshots it reads and writes."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._cache: dict[str, _Cached] = {}
        # game id -> the seq of the newest snapshot this process wrote or read (snapshots are
        # never deleted, so it stays a base a new one may point back to: no query to find one).
        self._snapshot_seq: dict[str, int] = {}
        self._lock = threading.Lock()
        # game id -> [its load gate, how many hold or wait for it] (`_gate`)
        self._gates: dict[str, list[Any]] = {}

    def holds(self, game_id: str) -> bool:
        """Tell whether this process holds a state of the game (of any version)."""
        with self._lock:
            return game_id in self._cache

    def cached(self, game: Any) -> Any | None:
        """Return the game's state at game.seq if this process holds that very version."""
        with self._lock:
            cached = self._cache.get(game.id)
        return cached.state if cached is not None and cached.version == game.seq else None

    def state_in(self, conn: Connection, game: Any, mode: Mode) -> Any:
        """Return the game's state at game.seq: cache, else snapshot, plus a fold of later events.

        The rows are read here; decoding and folding them, which grows with the game (a first
        load after a restart), runs in a thread (`offload`) past a few dozen events. One load of
        a game at a time (`_gate`): fifty screens reconnecting after a restart wait for the
        first, then fold on its state.
        """
        held = self.cached(game)
        if held is not None:
            return held
        with self._gate(game.id):
            with self._lock:
                cached = self._cache.get(game.id)
            if cached is not None and cached.version <= game.seq:
                state, version = cached.state, cached.version
                if version < game.seq:
                    rows = event_rows(conn, game.id, version, game.seq)
                    state = computed(len(rows), folded, mode, state, rows)
                    self.remember(game.id, game.mode, state, game.seq)
                return state
            return self._loaded(conn, game, mode)

    def _loaded(self, conn: Connection, game: Any, mode: Mode) -> Any:
        """Return the game's state at game.seq from its newest snapshot and the events after it (or its whole log)."""
        snap = conn.execute(
            select(snapshots_t)
            .where(snapshots_t.c.game_id == game.id, snapshots_t.c.seq <= game.seq)
            .order_by(snapshots_t.c.seq.desc())
            .limit(1)
        ).one_or_none()
        state = None
        if snap is not None:
            seq = int(snap.seq)
            log_rows = event_rows(conn, game.id, 0, seq) if LOG_IN_EVENTS in snap.state else None
            bodies = self._older_snapshots(conn, game.id, seq)
            after = event_rows(conn, game.id, seq, game.seq)
            work = len(after) + len(log_rows or ()) + len(bodies)
            state = computed(work, from_snapshot, mode, snap.state, log_rows, bodies, after)
            if state is not None:
                self.saw_snapshot(game.id, seq)
            else:
                log.warning("a snapshot of game %s points back to one that is gone: replaying its log", game.id)
        if state is None:
            if snap is None:
                self.saw_snapshot(game.id, 0)  # none yet: the first one points back to none
            rows = event_rows(conn, game.id, 0, game.seq)
            state = computed(len(rows), replayed, mode, rows)
        self.remember(game.id, game.mode, state, game.seq)
        return state

    def _older_snapshots(self, conn: Connection, game_id: str, seq: int) -> dict[int, str]:
        """Return the bodies of a game's snapshots before `seq`, by seq (its growing part spreads over them)."""
        return {
            int(r.seq): r.state
            for r in conn.execute(
                select(snapshots_t.c.seq, snapshots_t.c.state).where(
                    snapshots_t.c.game_id == game_id, snapshots_t.c.seq < seq
                )
            )
        }

    @contextmanager
    def _gate(self, game_id: str) -> Iterator[None]:
        """Hold the game's load gate: one load of a game at a time in this process."""
        with self._lock:
            gate = self._gates.get(game_id)
            if gate is None:
                gate = self._gates[game_id] = [threading.Lock(), 0]
            gate[1] += 1
        try:
            with gate[0]:
                yield
        finally:
            with self._lock:
                gate[1] -= 1
                if not gate[1]:
                    del self._gates[game_id]

    def remember(self, game_id: str, mode_name: str, state: Any, version: int) -> None:
        """Hold a committed state (never an older version over a newer one)."""
        with self._lock:
            cached = self._cache.get(game_id)
            if cached is None or cached.version <= version:
                self._cache[game_id] = _Cached(mode_name, state, version)

    def forget(self, game_id: str | None = None) -> None:
        """Drop one game (or every game)."""
        with self._lock:
            if game_id is None:
                self._cache.clear()
                self._snapshot_seq.clear()
            else:
                self._cache.pop(game_id, None)
                self._snapshot_seq.pop(game_id, None)

    def write_snapshot(self, game_id: str, mode: Mode, state: Any, version: int) -> None:
        """Store a snapshot in a transaction of its own, after the action's has committed."""
        # Outside the action's write transaction, so encoding it never holds the write lock; a
        # snapshot is only a shortcut, so one lost to a race or a busy database costs nothing.
        # Encoded in a thread: the one after a void holds every note of the game.
        try:
            base = self._snapshot_base(game_id, mode, state, version)
            body = offload.run(snapshot_text, mode, state, base)
            retry_busy(lambda: self._insert_snapshot(game_id, version, body))
        except (IntegrityError, OperationalError):
            log.warning("snapshot of game %s at %d not written", game_id, version, exc_info=True)

    def _snapshot_base(self, game_id: str, mode: Mode, state: Any, version: int) -> int:
        """Return the seq of the snapshot a new one may take its state's growing part from (0: none)."""
        if mode.snapshot_grows is None:
            return 0

        def last() -> int:
            with reading(self.engine) as conn:
                found = conn.execute(
                    select(func.max(snapshots_t.c.seq)).where(
                        snapshots_t.c.game_id == game_id, snapshots_t.c.seq < version
                    )
                ).scalar()
            return int(found or 0)

        with self._lock:
            known = self._snapshot_seq.get(game_id)
        previous = known if known is not None and known < version else retry_busy(last)
        return int(mode.snapshot_base(state, previous)) if previous else 0

    def _insert_snapshot(self, game_id: str, version: int, body: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(insert(snapshots_t).values(game_id=game_id, seq=version, state=body))
        self.saw_snapshot(game_id, version)

    def saw_snapshot(self, game_id: str, seq: int) -> None:
        """Note the newest snapshot of a game this process wrote or read."""
        with self._lock:
            if self._snapshot_seq.get(game_id, -1) < seq:
                self._snapshot_seq[game_id] = seq
