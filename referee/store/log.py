"""Append-only event log plus snapshots, generic over the game mode.

Every game is a list of events with contiguous seq numbers 1, 2, 3, ...; the first one
(kind "game_created") holds the ruleset and setup. The state of a game is the fold of its
events; a snapshot every `snapshot_every` events keeps loading fast. Writes go through
`Store.execute`, which runs one action in ONE write transaction: on SQLite it begins
IMMEDIATE (the write lock is taken before the state is read), on PostgreSQL it locks the
game row with SELECT ... FOR UPDATE. So two writers never both fold the same version.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from typing import Any, TypeVar

from sqlalchemy import (
    Connection,
    Engine,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError, InterfaceError, OperationalError

from referee import offload
from referee.rules.errors import GameOver, MalformedAction, Msg
from referee.store.engine import reading, retry_busy
from referee.store.listing import Listings
from referee.store.rows import (
    ADD_EVENTS,
    MOVE_GAME,
    USED_BY_BATCH,
    deadline_of,
    event_row,
    event_rows,
    events_t,
    game_row,
    games_t,
    new_id,
    random_seed,
    row_dict,
    snapshot_text,
    snapshots_t,
    status_text,
)
from referee.store.states import States
from referee.store.types import (
    ABANDONED,
    MODES,
    BrokenMode,
    GameNotFound,
    Mode,
    Result,
    StoreBusy,
    StoreError,
    WriteHealth,
)

log = logging.getLogger(__name__)

T = TypeVar("T")


class Store(Listings):
    """The event log of every game, with an in-process state cache refreshed by seq."""

    def __init__(
        self,
        engine: Engine,
        *,
        modes: Mapping[str, Mode] | None = None,
        snapshot_every: int = 50,
        seeds: Callable[[], int] = random_seed,
    ) -> None:
        """Bind the store to an engine; `modes` defaults to the rules core's registry of modes.

        `seeds` draws the chance of each action whose kind takes one (`referee play` draws its own).
        """
        self.engine = engine
        self.modes: Mapping[str, Mode] = MODES if modes is None else modes
        self.seeds = seeds
        self.snapshot_every = max(1, snapshot_every)
        # Set when a write here stores a deadline sooner than the round clock means to wake
        # (`clock_wakes_at`, which the clock keeps): the clock sleeps on it. A round paused and
        # resumed five minutes from its end does not wake it.
        self.deadlines_moved = threading.Event()
        self.clock_wakes_at = -math.inf
        # The soonest deadline a write here stored since the clock last set this to infinity (as
        # it looks): one stored while it looked may be missing from what its look read.
        self.soonest_stored = math.inf
        self.states = States(engine)
        self.health = WriteHealth()
        """Whether writes succeed now (the referee's dashboard warns while they fail)."""

    # -- helpers ------------------------------------------------------------------------

    def mode(self, name: str) -> Mode:
        """Return the registered mode called `name`."""
        try:
            return self.modes[name]
        except KeyError:
            raise StoreError(f"unknown game mode {name!r}") from None

    @staticmethod
    def _row_to_event(mode: Mode, row: Any) -> Any:
        return mode.event_from_dict(row_dict(row))

    def _seed_for(self, mode: Mode, kind: Any) -> dict[str, int]:
        """The chance of an action whose kind takes one (the mode's `chance`), as apply's `seed`."""
        return {"seed": self.seeds()} if isinstance(kind, str) and kind in mode.chance else {}

    def write_snapshot(self, result: Result) -> None:
        """Write the snapshot `execute(defer_snapshot=True)` left due (`result.snapshot_due`)."""
        if result.snapshot_due:
            self.states.write_snapshot(result.game_id, self.mode(result.mode), result.state, result.version)

    def forget(self, game_id: str | None = None) -> None:
        """Drop one game (or every game) from the in-process cache."""
        self.states.forget(game_id)

    # -- public API ---------------------------------------------------------------------

    def create_game(
        self,
        mode_name: str,
        action: dict[str, Any],
        *,
        at: float,
        by: str,
        game_id: str | None = None,
    ) -> Result:
        """Create a game from its first action; RulesError writes nothing.

        The mode's `create` makes the first events (numbered from 1).
        """
        mode = self.mode(mode_name)
        gid = game_id or new_id()
        state, events = mode.create(action, at=at, by=by, **self._seed_for(mode, "create_game"))
        events = list(events)
        for offset, ev in enumerate(events):
            if ev.seq != 1 + offset:
                raise BrokenMode(f"first events must be numbered from 1, got {ev.seq}")
        version = events[-1].seq

        def run() -> None:
            with self.engine.begin() as conn:
                conn.execute(
                    insert(games_t).values(
                        id=gid,
                        mode=mode_name,
                        created_at=at,
                        seq=version,
                        status=status_text(state),
                        deadline=deadline_of(mode, state),
                        updated_at=at,
                    )
                )
                conn.execute(insert(events_t), [event_row(gid, ev, 1, None, None) for ev in events])
                if version >= self.snapshot_every:
                    conn.execute(insert(snapshots_t).values(game_id=gid, seq=version, state=snapshot_text(mode, state)))

        self._written(run)
        self.states.remember(gid, mode_name, state, version)
        self.states.saw_snapshot(gid, version if version >= self.snapshot_every else 0)
        self._deadline_stored(deadline_of(mode, state))
        return Result(gid, events, state, version, mode=mode_name)

    def load(self, game_id: str) -> tuple[Any, int]:
        """Return (state, version) of a game: the latest snapshot plus a fold of later events."""

        def run() -> tuple[Any, int]:
            with reading(self.engine) as conn:
                game = game_row(conn, game_id, lock=False)
                state = self.states.state_in(conn, game, self.mode(game.mode))
                return state, int(game.seq)

        return retry_busy(run)

    def execute(
        self,
        game_id: str,
        action: Any,
        *,
        at: float,
        by: str,
        device_id: str | None = None,
        client_id: str | None = None,
        version: int | None = None,
        defer_snapshot: bool = False,
    ) -> Result:
        """Apply one action in one write transaction; dedupe by client_id; RulesError writes nothing.

        `version` (the state version the client saw) is handed to `mode.apply` when given, so
        the mode can refuse a stale action. `defer_snapshot`: a snapshot due now is left to the
        caller (`write_snapshot`), who pushes the change to every screen first. The answer
        comes once the commit is on the disk (SQLite's `synchronous=FULL`, PostgreSQL's own).
        """
        extra: dict[str, Any] = {} if version is None else {"version": version}
        if not self.states.holds(game_id):
            # Loaded before the write transaction, so its decoding never holds the write lock
            # (the transaction folds only what was written since, if anything).
            with suppress(GameNotFound, StoreBusy):
                self.load(game_id)

        def act(conn: Connection) -> tuple[Result, Any, Any, float | None, bool]:
            """Run the action's statements; return the result, mode, game row, moved deadline, snapshot now."""
            game = game_row(conn, game_id, lock=True)
            if client_id is not None:
                used = conn.execute(USED_BY_BATCH, {"game_id": game_id, "client_id": client_id}).first()
                if used is not None:
                    dup = self._duplicate(conn, game, int(used[0]))
                    if dup.events and dup.events[0].by != by:
                        # The answer to a retry holds the original's events: only the one
                        # who sent it may have them back (a team's fleet, for instance).
                        raise MalformedAction(Msg("this client_id was already used by someone else; send a new one"))
                    return dup, None, game, None, False
            if game.status == ABANDONED:
                raise GameOver(Msg("this game has expired: nobody played it for a long time"))
            mode = self.mode(game.mode)
            state = self.states.state_in(conn, game, mode)
            # The server's dice: drawn here, written into the event by the rules, so a replay rolls alike.
            kind = action.get("type") if isinstance(action, dict) else None
            chance = self._seed_for(mode, kind)

            def applied() -> tuple[Any, list[Any]]:
                return mode.apply(state, action, at=at, by=by, **extra, **chance)

            # A slow kind (a void of a long game) runs in a thread: other writers wait for the
            # write lock meanwhile, but the event loop, and everyone only reading, does not.
            new_state, events = offload.run(applied) if kind in mode.slow_kinds else applied()
            current = int(game.seq)
            if not events:
                return Result(game_id, [], state, current, mode=str(game.mode)), mode, game, None, False
            for offset, ev in enumerate(events):
                if ev.seq != current + 1 + offset:
                    raise BrokenMode(f"event seq {ev.seq} does not follow version {current + offset}")
            conn.execute(
                ADD_EVENTS,
                [
                    event_row(game_id, ev, current + 1, device_id, client_id if i == 0 else None)
                    for i, ev in enumerate(events)
                ],
            )
            new_version = events[-1].seq
            deadline = deadline_of(mode, new_state)
            conn.execute(
                MOVE_GAME,
                {
                    "game_id": game_id,
                    "new_seq": new_version,
                    "new_status": status_text(new_state),
                    "new_deadline": deadline,
                    "new_updated_at": at,
                },
            )
            # A snapshot every snapshot_every events, and after every void: a load after it then
            # starts from the recomputed state instead of recomputing the void again.
            due = new_version // self.snapshot_every > current // self.snapshot_every or any(
                ev.kind == "void" for ev in events
            )
            result = Result(
                game_id, list(events), new_state, new_version, mode=str(game.mode), snapshot_due=due and defer_snapshot
            )
            moved = deadline if deadline != game.deadline else None
            return result, mode, game, moved, due and not defer_snapshot

        def run() -> Result:
            with self.engine.begin() as conn:
                result, mode, game, moved, snapshot_now = act(conn)
            if result.duplicate or not result.events:
                return result
            # Committed: only now may other threads see the new state in the cache.
            self.states.remember(game_id, game.mode, result.state, result.version)
            self._deadline_stored(moved)
            if snapshot_now:
                self.states.write_snapshot(game_id, mode, result.state, result.version)
            return result

        try:
            return self._written(run)
        except IntegrityError:
            # Another process won a race we could not lock against (should not happen with
            # IMMEDIATE / FOR UPDATE); the retry sees its events, or its client_id.
            self.forget(game_id)
            return self._written(run)

    def _written(self, write: Callable[[], T]) -> T:
        """Run a write (retrying while the database is locked); a database that cannot take it is StoreBusy.

        SQLite's "database or disk is full", "disk I/O error", "attempt to write a readonly
        database", a lock held past every retry, a PostgreSQL gone away: nothing was stored,
        and the same entry can be sent again once it can be. `health` hears of it.
        """
        try:
            done = retry_busy(write)
        except StoreBusy as exc:
            self.health.failed(str(exc))
            raise
        except (OperationalError, InterfaceError) as exc:
            reason = str(exc.orig if exc.orig is not None else exc)
            self.health.failed(reason)
            raise StoreBusy(f"the database could not store the change: {reason}") from exc
        self.health.succeeded()
        return done

    def _duplicate(self, conn: Connection, game: Any, batch_seq: int) -> Result:
        """Return the original result of a retried client_id: the events of its batch."""
        mode = self.mode(game.mode)
        state = self.states.state_in(conn, game, mode)
        rows = conn.execute(
            select(events_t)
            .where(events_t.c.game_id == game.id, events_t.c.batch_seq == batch_seq)
            .order_by(events_t.c.seq)
        )
        events = [self._row_to_event(mode, r) for r in rows]
        return Result(game.id, events, state, int(game.seq), duplicate=True, mode=str(game.mode))

    def archive(self, game_id: str, *, at: float | None) -> None:
        """Take a game off the referee's list of games (`at`: when), or put it back (None).

        The game itself is untouched: its pages, its log and its screens go on as before.
        """

        def run() -> None:
            with self.engine.begin() as conn:
                game_row(conn, game_id, lock=True)
                conn.execute(update(games_t).where(games_t.c.id == game_id).values(archived_at=at))

        self._written(run)

    def delete_game(self, game_id: str) -> None:
        """Delete a game and everything of it (its log, snapshots, links and phones); GameNotFound if none.

        For what never counted (a practice game): the web layer decides which games may go.
        """

        def run() -> None:
            with self.engine.begin() as conn:
                game_row(conn, game_id, lock=True)
                # The tables that name a game delete their rows with it (ON DELETE CASCADE).
                conn.execute(delete(games_t).where(games_t.c.id == game_id))

        # A game's rows go in one statement that grows with its log (20,000 events: about 70 ms
        # here): in a thread, so the event loop serves everyone else meanwhile.
        self._written(lambda: offload.run(run))
        self.forget(game_id)

    def events_since(self, game_id: str, seq: int) -> list[Any]:
        """Return the events of a game with seq > `seq`, in order."""

        def run() -> list[Any]:
            with reading(self.engine) as conn:
                game = game_row(conn, game_id, lock=False)
                mode = self.mode(game.mode)
                return [self._row_to_event(mode, r) for r in event_rows(conn, game_id, seq)]

        return retry_busy(run)

    def all_events(self, game_id: str) -> list[Any]:
        """Return every event of a game, from seq 1."""
        return self.events_since(game_id, 0)

    def _deadline_stored(self, deadline: float | None) -> None:
        if deadline is None:
            return
        if deadline < self.soonest_stored:
            self.soonest_stored = deadline
        if deadline < self.clock_wakes_at:
            self.deadlines_moved.set()

    def refresh_deadline(self, game_id: str) -> float | None:
        """Store the deadline a game's state really has; return it.

        For a row whose deadline is only a "look now" mark (set by migration 0002 for games that
        were running, whose logs it cannot fold): once read, the clock leaves them alone.
        """

        def run() -> float | None:
            with self.engine.begin() as conn:
                game = game_row(conn, game_id, lock=True)
                mode = self.mode(game.mode)
                state = self.states.state_in(conn, game, mode)
                deadline = None if game.status == ABANDONED else deadline_of(mode, state)
                conn.execute(update(games_t).where(games_t.c.id == game_id).values(deadline=deadline))
                return deadline

        return retry_busy(run)

    def expire_idle(
        self, mode_name: str, *, before: float, statuses: Sequence[str] = ("placing", "playing"), limit: int = 500
    ) -> list[str]:
        """Mark ABANDONED (no deadline) the games of a mode in `statuses` with no action since `before`.

        At most `limit` games per call, so the write transaction stays short; return their ids.
        """
        idle = (
            games_t.c.mode == mode_name,
            games_t.c.status.in_(list(statuses)),
            func.coalesce(games_t.c.updated_at, games_t.c.created_at) < before,
        )
        with reading(self.engine) as conn:
            if conn.execute(select(games_t.c.id).where(*idle).limit(1)).first() is None:
                return []  # the usual minute: no write lock taken

        def run() -> list[str]:
            with self.engine.begin() as conn:
                ids = [
                    str(r.id)
                    for r in conn.execute(
                        select(games_t.c.id).where(*idle).order_by(games_t.c.id).limit(limit).with_for_update()
                    )
                ]
                if ids:
                    conn.execute(update(games_t).where(games_t.c.id.in_(ids)).values(status=ABANDONED, deadline=None))
                return ids

        return retry_busy(run)
