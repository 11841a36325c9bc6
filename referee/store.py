"""Append-only event log plus snapshots, generic over the game mode.

Every game is a list of events with contiguous seq numbers 1, 2, 3, ...; the first one
(kind "game_created") holds the ruleset and setup. The state of a game is the fold of its
events; a snapshot every `snapshot_every` events keeps loading fast. Writes go through
`Store.execute`, which runs one action in ONE write transaction: on SQLite it begins
IMMEDIATE (the write lock is taken before the state is read), on PostgreSQL it locks the
game row with SELECT ... FOR UPDATE. So two writers never both fold the same version.
"""

from __future__ import annotations

import json
import logging
import math
import os
import random
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, suppress
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple, Protocol, TypeVar, cast

from sqlalchemy import (
    Connection,
    Engine,
    Table,
    bindparam,
    create_engine,
    event,
    func,
    insert,
    literal_column,
    select,
    text,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.pool import ConnectionPoolEntry

from referee import offload
from referee.models import EventRow, Game, Revocations, Snapshot
from referee.rules import modes as rules_modes
from referee.rules.errors import GameOver, MalformedAction, Msg
from referee.rules.events import Event
from referee.sqlite_threads import OffloadedConnection, Runner

log = logging.getLogger(__name__)

T = TypeVar("T")

games_t = cast(Table, Game.__table__)
events_t = cast(Table, EventRow.__table__)
revocations_t = cast(Table, Revocations.__table__)
snapshots_t = cast(Table, Snapshot.__table__)

# The statements every action runs, built once: building and keying a statement costs about what
# running it on SQLite does.
_GAME = select(games_t).where(games_t.c.id == bindparam("game_id"))
_GAME_LOCKED = _GAME.with_for_update()  # row lock on PostgreSQL; no-op SQL on SQLite
_ADD_EVENTS = insert(events_t)
_MOVE_GAME = (
    update(games_t)
    .where(games_t.c.id == bindparam("game_id"))
    .values(
        seq=bindparam("new_seq"),
        status=bindparam("new_status"),
        deadline=bindparam("new_deadline"),
        updated_at=bindparam("new_updated_at"),
    )
)
# The round clock's two looks, every few seconds: built once, as a statement built per call
# leaves objects in reference cycles for the cycle collector, whose pauses stop every socket.
_DUE_GAMES = (
    select(games_t.c.id)
    .where(games_t.c.deadline.is_not(None), games_t.c.deadline <= bindparam("now"))
    .order_by(games_t.c.deadline)
)
_EARLIEST_DEADLINE = select(func.min(games_t.c.deadline))
# The round clock's look: the soonest deadline, and every revocation ever made by any process
# (counted by the database's triggers, migration 0003), in one statement.
_LOOK = select(
    _EARLIEST_DEADLINE.scalar_subquery(),
    select(revocations_t.c.count).where(revocations_t.c.id == literal_column("1")).scalar_subquery(),
)
# The batch that used a client_id before (unique in a game, so at most one). Read after the game's
# row is locked: on PostgreSQL a statement that waited for the lock still reads from before it.
_USED_BY_BATCH = select(events_t.c.batch_seq).where(
    events_t.c.game_id == bindparam("game_id"), events_t.c.client_id == bindparam("client_id")
)


class Look(NamedTuple):
    """What the round clock reads every few seconds (`Store.look`)."""

    deadline: float | None
    """The soonest stored deadline of any game; None when no clock runs anywhere."""
    revocations: int
    """How many tokens and phones were ever revoked, by any process: when it moves, look up which."""


MIGRATIONS_DIR = Path(__file__).parent / "migrations"

# At most this many SQLite connections per engine (pool_size 10 plus overflow): the thread pool
# that runs their calls under gevent has as many threads, so a connection holding the write lock
# always finds a thread for its commit while the others wait for the lock in theirs.
SQLITE_MAX_CONNECTIONS = 40
# Where sqlite3's blocking calls run (None: in the caller's thread). `referee serve` under gevent
# sets a thread pool here before the app makes its engine (see referee.sqlite_threads).
_sqlite_runner: Runner | None = None


def run_sqlite_calls_in(runner: Runner | None) -> None:
    """Make engines created from now on run sqlite3's statements and commits through `runner`."""
    global _sqlite_runner
    _sqlite_runner = runner


# The status the store gives a game nobody played for too long (see Store.expire_idle). It is the
# store's own, not the mode's: such a game takes no more actions.
ABANDONED = "abandoned"


class Mode(Protocol):
    """The pure functions a game mode of the rules core provides.

    To turn stored rows back into events the store calls `mode.event_from_dict(d)` if the
    mode has it, else `mode.Event.from_dict(d)` (a mode module that imports its Event class).
    Optional: `create(action, *, at, by) -> (state, events)` makes a game's first events,
    `apply` may take `version=` (see Store.execute), and `next_deadline(state) -> float | None`
    tells when the round clock must next look at the game (stored in games.deadline).
    """

    def replay(self, events: Sequence[Any]) -> Any:
        """Fold every event from seq 1 (game_created) into a state."""
        ...

    def fold(self, state: Any, event: Any) -> Any:
        """Apply one stored event to a state."""
        ...

    def apply(self, state: Any, action: dict[str, Any], *, at: float, by: str) -> tuple[Any, list[Any]]:
        """Validate an action and return (new state, new events with seq set); raise RulesError on refusal."""
        ...

    def state_to_dict(self, state: Any) -> dict[str, Any]:
        """Serialize a state for a snapshot."""
        ...

    def state_from_dict(self, d: dict[str, Any]) -> Any:
        """Rebuild a state from a snapshot."""
        ...


# The rules core fills it (name -> mode); some tests add fake modes of their own.
MODES: dict[str, Any] = rules_modes.MODES
"""The modes a Store plays unless told otherwise: the rules core's registry (referee/rules/__init__.py)."""


class StoreError(Exception):
    """A store failure that is not a rules refusal."""


class GameNotFound(StoreError):
    """No game with that id."""


class StoreBusy(StoreError):
    """The database could not take a write now (locked through every retry, full, gone); the caller may try again.

    Nothing was stored. `retry_after`: the seconds after which a retry is worth making.
    """

    retry_after = 2.0


class WriteHealth:
    """Whether this store's writes succeed: the first failure and the next success are told to watchers.

    A disk that is full, a database that stays locked or read-only, a PostgreSQL that went away:
    every write fails alike until someone acts, and the referee's dashboard says so meanwhile.
    """

    def __init__(self) -> None:
        self.failing_since: float | None = None
        """When writes began to fail (seconds since the epoch); None while they succeed."""
        self.reason = ""
        self._watchers: list[Callable[[WriteHealth], None]] = []

    def watch(self, watcher: Callable[[WriteHealth], None]) -> None:
        """Call `watcher(health)` whenever writes begin to fail or succeed again."""
        self._watchers.append(watcher)

    def failed(self, reason: str) -> None:
        """Note a write that could not be stored."""
        self.reason = reason[:200]
        if self.failing_since is None:
            self.failing_since = time.time()
            log.error("writes are failing: %s", self.reason)
            self._tell()

    def succeeded(self) -> None:
        """Note a write that was stored."""
        if self.failing_since is not None:
            log.warning("writes succeed again (they failed for %.0f s)", time.time() - self.failing_since)
            self.failing_since = None
            self.reason = ""
            self._tell()

    def _tell(self) -> None:
        for watcher in list(self._watchers):
            try:
                watcher(self)
            except Exception:  # a watcher's failure must not turn a write's answer into another
                log.exception("a write-health watcher failed")


class BrokenMode(StoreError):
    """A mode returned events whose seq numbers do not follow the state's version."""


@dataclass(frozen=True)
class Result:
    """What `execute`/`create_game` return.

    `events` are the events the action wrote (on a duplicate client_id: the events the
    original request wrote). `state`/`version` are the latest state after the call.
    """

    game_id: str
    events: list[Any]
    state: Any
    version: int
    duplicate: bool = False
    mode: str = ""
    """The game's mode, by name (as registered)."""
    snapshot_due: bool = False
    """A snapshot is due and was left to the caller (`execute(defer_snapshot=True)`)."""


# ---------------------------------------------------------------------------------------
# Engine and migrations


def make_private_sqlite_file(path: Path) -> None:
    """Create the SQLite file only its owner may read (0600), and tighten an older install's files.

    The database holds both seas and every order in clear. SQLite gives its -wal and -shm files
    the database file's own mode, so a database made 0600 before the first connect keeps them
    0600 too, whatever the umask; ones an older install left 0644 are changed here.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass
    if os.name != "posix":
        return
    for each in (path, *(path.with_name(path.name + suffix) for suffix in ("-wal", "-shm", "-journal"))):
        try:
            if each.stat().st_mode & 0o077:
                os.chmod(each, 0o600)
        except FileNotFoundError:
            continue
        except OSError as exc:  # not ours to change: say so rather than refuse to start
            log.warning("could not make %s private (0600): %s", each, exc)


def make_engine(url: str, **kwargs: Any) -> Engine:
    """Create an engine; on SQLite set the durability pragmas and IMMEDIATE write transactions."""
    sa_url = make_url(url)
    if sa_url.get_backend_name() != "sqlite":
        kwargs.setdefault("pool_pre_ping", True)
        return create_engine(sa_url, **kwargs)
    if sa_url.database and sa_url.database != ":memory:" and not sa_url.query.get("uri"):
        make_private_sqlite_file(Path(sa_url.database))
    connect_args = dict(kwargs.pop("connect_args", {}))
    connect_args.setdefault("timeout", 10.0)
    connect_args.setdefault("check_same_thread", False)
    kwargs.setdefault("pool_size", 10)
    kwargs.setdefault("max_overflow", max(0, SQLITE_MAX_CONNECTIONS - kwargs["pool_size"]))
    # The connection used last is used next: SQLite keeps a page cache per connection and
    # keeps it only while no other connection has written, so the one that wrote the last
    # report has its pages, where the pool's oldest would read them again.
    kwargs.setdefault("pool_use_lifo", True)
    engine = create_engine(sa_url, connect_args=connect_args, **kwargs)
    runner = _sqlite_runner
    if runner is not None:
        # Made now, after `referee serve` has patched threading: a lock greenlets wait at.
        gate = threading.RLock()

        @event.listens_for(engine, "do_connect")
        def _offloaded(dialect: Any, _record: ConnectionPoolEntry, cargs: Any, cparams: Any) -> Any:
            # Opening is quick (SQLite reads nothing until the first statement); the rest is offloaded.
            return OffloadedConnection(dialect.loaded_dbapi.connect(*cargs, **cparams), runner, gate)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: ConnectionPoolEntry) -> None:
        # pysqlite would BEGIN only at the first write, after our reads: a read-then-write
        # would then race other writers and silently lose updates. Turn its transaction
        # handling off; the "begin" listener below emits BEGIN itself.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        # synchronous=FULL: in WAL mode NORMAL may lose the last commits on power loss
        # or an OS crash (the WAL is not fsynced at each commit). A result the referee
        # has seen acknowledged must survive SIGKILL and a pulled plug, so fsync each commit.
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA busy_timeout=10000")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        # Writes take the write lock up front; read-only transactions (see
        # Store._read) stay DEFERRED so WAL readers never wait on a writer.
        if conn.get_execution_options().get("referee_readonly"):
            conn.exec_driver_sql("BEGIN")
        else:
            conn.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def is_busy_error(exc: BaseException) -> bool:
    """Tell whether an error is SQLite's 'database is locked'/'busy' (worth a retry)."""
    if not isinstance(exc, OperationalError):
        return False
    message = str(exc.orig if exc.orig is not None else exc).lower()
    return "database is locked" in message or "database is busy" in message or "sqlite_busy" in message


def retry_busy(fn: Callable[[], T], *, attempts: int = 8, base_delay: float = 0.05) -> T:
    """Call `fn`, retrying on SQLite busy errors with jittered backoff; raise StoreBusy at the end.

    Every pooled connection in use for the pool's whole wait (an overloaded server) is StoreBusy
    at once: that wait was the retry.
    """
    for attempt in range(attempts):
        try:
            return fn()
        except PoolTimeout as exc:
            raise StoreBusy("every database connection stayed in use; try again") from exc
        except OperationalError as exc:
            if not is_busy_error(exc):
                raise
            log.warning("database busy (attempt %d/%d)", attempt + 1, attempts)
            time.sleep(base_delay * (2**attempt) * (0.5 + random.random()))
    raise StoreBusy("the database stayed busy; try again")


def migrate(engine: Engine) -> None:
    """Upgrade the database to the newest Alembic revision (works from an installed wheel)."""
    if _at_head(engine):
        return  # the usual restart: importing Alembic would cost a third of a second for nothing
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))

    def run() -> None:
        with engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                # Several processes starting at once: one migrates, the others wait.
                conn.execute(text("SELECT pg_advisory_xact_lock(727001)"))
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")

    retry_busy(run)


def _head_revisions() -> set[str]:
    """Return the head revision ids of the migration scripts, read as text (no Alembic import).

    An empty set means "could not tell": the caller then lets Alembic decide.
    """
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in sorted((MIGRATIONS_DIR / "versions").glob("*.py")):
        source = path.read_text(encoding="utf-8")
        revision = re.search(r"^revision\s*(?::[^=]*)?=\s*[\"']([^\"']+)[\"']", source, re.M)
        down = re.search(r"^down_revision\s*(?::[^=]*)?=(.*)$", source, re.M)
        if revision is None or down is None:
            return set()
        revisions.add(revision.group(1))
        parents.update(re.findall(r"[\"']([^\"']+)[\"']", down.group(1)))
    return revisions - parents


def _at_head(engine: Engine) -> bool:
    """Tell whether the database is already at every head revision (False when unsure)."""
    heads = _head_revisions()
    if not heads:
        return False
    try:
        with reading(engine) as conn:
            stamped = {str(row[0]) for row in conn.execute(text("SELECT version_num FROM alembic_version"))}
    except Exception:  # noqa: BLE001 - no table yet (a new database), or anything odd: Alembic decides
        return False
    return stamped == heads


@contextmanager
def reading(engine: Engine) -> Iterator[Connection]:
    """A read-only transaction: DEFERRED on SQLite, so it never takes the write lock.

    StoreBusy when no pooled connection came free within the pool's wait (an overloaded server).
    """
    try:
        connection = engine.connect()
    except PoolTimeout as exc:
        raise StoreBusy("every database connection stayed in use; try again") from exc
    with connection as conn:
        conn = conn.execution_options(referee_readonly=True)
        with conn.begin():
            yield conn


def new_id(nbytes: int = 9) -> str:
    """Return an opaque random URL-safe id (12 characters for 9 bytes)."""
    return secrets.token_urlsafe(nbytes)


# ---------------------------------------------------------------------------------------
# The store


@dataclass
class _Cached:
    mode_name: str
    state: Any
    version: int


# An event's data and a snapshot's state, as stored: compact, and not escaped to ASCII.
_dumps = partial(json.dumps, ensure_ascii=False, separators=(",", ":"))


class Store:
    """The event log of every game, with an in-process state cache refreshed by seq."""

    def __init__(
        self,
        engine: Engine,
        *,
        modes: Mapping[str, Mode] | None = None,
        snapshot_every: int = 50,
    ) -> None:
        """Bind the store to an engine; `modes` defaults to the rules core's registry of modes."""
        self.engine = engine
        self.modes: Mapping[str, Mode] = MODES if modes is None else modes
        self.snapshot_every = max(1, snapshot_every)
        # Set when a write here stores a deadline sooner than the round clock means to wake
        # (`clock_wakes_at`, which the clock keeps): the clock sleeps on it. A round paused and
        # resumed five minutes from its end does not wake it.
        self.deadlines_moved = threading.Event()
        self.clock_wakes_at = -math.inf
        # The soonest deadline a write here stored since the clock last set this to infinity (as
        # it looks): one stored while it looked may be missing from what its look read.
        self.soonest_stored = math.inf
        self._cache: dict[str, _Cached] = {}
        # game id -> the seq of the newest snapshot this process wrote or read (snapshots are
        # never deleted, so it stays a base a new one may point back to: no query to find one).
        self._snapshot_seq: dict[str, int] = {}
        self._lock = threading.Lock()
        # game id -> [its load gate, how many hold or wait for it] (`_gate`)
        self._gates: dict[str, list[Any]] = {}
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
    def _event_from_dict(mode: Mode, d: dict[str, Any]) -> Any:
        # Every mode of the rules core logs the core's Event; a test's fake mode may bring its own.
        maker = getattr(mode, "event_from_dict", None) or getattr(getattr(mode, "Event", None), "from_dict", None)
        return (maker or Event.from_dict)(d)

    def _row_to_event(self, mode: Mode, row: Any) -> Any:
        return self._event_from_dict(mode, _row_dict(row))

    def _read(self) -> AbstractContextManager[Connection]:
        """A read-only transaction (DEFERRED on SQLite)."""
        return reading(self.engine)

    def _game_row(self, conn: Connection, game_id: str, *, lock: bool) -> Any:
        row = conn.execute(_GAME_LOCKED if lock else _GAME, {"game_id": game_id}).one_or_none()
        if row is None:
            raise GameNotFound(game_id)
        return row

    def _events_rows(self, conn: Connection, game_id: str, after: int, upto: int | None = None) -> list[Any]:
        stmt = select(events_t).where(events_t.c.game_id == game_id, events_t.c.seq > after)
        if upto is not None:
            stmt = stmt.where(events_t.c.seq <= upto)
        return list(conn.execute(stmt.order_by(events_t.c.seq)))

    def _state_in(self, conn: Connection, game: Any) -> tuple[Mode, Any]:
        """Return the game's state at game.seq: cache, else snapshot, plus a fold of later events.

        The rows are read here; decoding and folding them, which grows with the game (a first
        load after a restart), runs in a thread (`offload`) past a few dozen events. One load of
        a game at a time (`_gate`): fifty screens reconnecting after a restart wait for the
        first, then fold on its state.
        """
        mode = self.mode(game.mode)
        with self._lock:
            cached = self._cache.get(game.id)
        if cached is not None and cached.version == game.seq:
            return mode, cached.state
        with self._gate(game.id):
            with self._lock:
                cached = self._cache.get(game.id)
            if cached is not None and cached.version <= game.seq:
                state, version = cached.state, cached.version
                if version < game.seq:
                    rows = self._events_rows(conn, game.id, version, game.seq)
                    state = _computed(len(rows), _folded, mode, self._event_from_dict, state, rows)
                    self._remember(game.id, game.mode, state, game.seq)
                return mode, state
            return mode, self._loaded(conn, game, mode)

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
            log_rows = self._events_rows(conn, game.id, 0, seq) if _LOG_IN_EVENTS in snap.state else None
            bodies = self._older_snapshots(conn, game.id, seq)
            after = self._events_rows(conn, game.id, seq, game.seq)
            work = len(after) + len(log_rows or ()) + len(bodies)
            state = _computed(work, _from_snapshot, mode, self._event_from_dict, snap.state, log_rows, bodies, after)
            if state is not None:
                self._saw_snapshot(game.id, seq)
            else:
                log.warning("a snapshot of game %s points back to one that is gone: replaying its log", game.id)
        if state is None:
            if snap is None:
                self._saw_snapshot(game.id, 0)  # none yet: the first one points back to none
            rows = self._events_rows(conn, game.id, 0, game.seq)
            state = _computed(len(rows), _replayed, mode, self._event_from_dict, rows)
        self._remember(game.id, game.mode, state, game.seq)
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

    def write_snapshot(self, result: Result) -> None:
        """Write the snapshot `execute(defer_snapshot=True)` left due (`result.snapshot_due`)."""
        if result.snapshot_due:
            self._write_snapshot(result.game_id, self.mode(result.mode), result.state, result.version)

    def _write_snapshot(self, game_id: str, mode: Mode, state: Any, version: int) -> None:
        """Store a snapshot in a transaction of its own, after the action's has committed."""
        # Outside the action's write transaction, so encoding it never holds the write lock; a
        # snapshot is only a shortcut, so one lost to a race or a busy database costs nothing.
        # Encoded in a thread: the one after a void holds every note of the game.
        try:
            base = self._snapshot_base(game_id, mode, state, version)
            body = offload.run(_snapshot, mode, state, base)
            retry_busy(lambda: self._insert_snapshot(game_id, version, body))
        except (IntegrityError, OperationalError):
            log.warning("snapshot of game %s at %d not written", game_id, version, exc_info=True)

    def _snapshot_base(self, game_id: str, mode: Mode, state: Any, version: int) -> int:
        """Return the seq of the snapshot a new one may take its state's growing part from (0: none)."""
        base_of = getattr(mode, "snapshot_base", None)
        if base_of is None:
            return 0

        def last() -> int:
            with self._read() as conn:
                found = conn.execute(
                    select(func.max(snapshots_t.c.seq)).where(
                        snapshots_t.c.game_id == game_id, snapshots_t.c.seq < version
                    )
                ).scalar()
            return int(found or 0)

        with self._lock:
            known = self._snapshot_seq.get(game_id)
        previous = known if known is not None and known < version else retry_busy(last)
        return int(base_of(state, previous)) if previous else 0

    def _insert_snapshot(self, game_id: str, version: int, body: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(insert(snapshots_t).values(game_id=game_id, seq=version, state=body))
        self._saw_snapshot(game_id, version)

    def _saw_snapshot(self, game_id: str, seq: int) -> None:
        with self._lock:
            if self._snapshot_seq.get(game_id, -1) < seq:
                self._snapshot_seq[game_id] = seq

    def _remember(self, game_id: str, mode_name: str, state: Any, version: int) -> None:
        with self._lock:
            cached = self._cache.get(game_id)
            if cached is None or cached.version <= version:
                self._cache[game_id] = _Cached(mode_name, state, version)

    def forget(self, game_id: str | None = None) -> None:
        """Drop one game (or every game) from the in-process cache."""
        with self._lock:
            if game_id is None:
                self._cache.clear()
                self._snapshot_seq.clear()
            else:
                self._cache.pop(game_id, None)
                self._snapshot_seq.pop(game_id, None)

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

        A mode with `create(action, *, at, by) -> (state, events)` makes the first events itself;
        otherwise the store writes one event (seq 1, kind "game_created", data = action) and
        validates it with `mode.replay`.
        """
        mode = self.mode(mode_name)
        gid = game_id or new_id()
        create = getattr(mode, "create", None)
        if create is not None:
            state, events = create(action, at=at, by=by, **_seed_for(mode, "create_game"))
            events = list(events)
        else:
            first = self._event_from_dict(mode, {"seq": 1, "kind": "game_created", "data": action, "at": at, "by": by})
            state = mode.replay([first])  # validates the setup; raises RulesError on refusal
            events = [first]
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
                        status=_status(state),
                        deadline=_deadline(mode, state),
                        updated_at=at,
                    )
                )
                conn.execute(insert(events_t), [_event_row(gid, ev, 1, None, None) for ev in events])
                if version >= self.snapshot_every:
                    conn.execute(insert(snapshots_t).values(game_id=gid, seq=version, state=_snapshot(mode, state)))

        self._written(run)
        self._remember(gid, mode_name, state, version)
        self._saw_snapshot(gid, version if version >= self.snapshot_every else 0)
        self._deadline_stored(_deadline(mode, state))
        return Result(gid, events, state, version, mode=mode_name)

    def load(self, game_id: str) -> tuple[Any, int]:
        """Return (state, version) of a game: the latest snapshot plus a fold of later events."""

        def run() -> tuple[Any, int]:
            with self._read() as conn:
                game = self._game_row(conn, game_id, lock=False)
                _mode, state = self._state_in(conn, game)
                return state, int(game.seq)

        return retry_busy(run)

    def mode_of(self, game_id: str) -> str:
        """Return the mode name of a game."""
        with self._read() as conn:
            return str(self._game_row(conn, game_id, lock=False).mode)

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
        with self._lock:
            known = game_id in self._cache
        if not known:
            # Loaded before the write transaction, so its decoding never holds the write lock
            # (the transaction folds only what was written since, if anything).
            with suppress(GameNotFound, StoreBusy):
                self.load(game_id)

        def act(conn: Connection) -> tuple[Result, Any, Any, float | None, bool]:
            """Run the action's statements; return the result, mode, game row, moved deadline, snapshot now."""
            game = self._game_row(conn, game_id, lock=True)
            if client_id is not None:
                used = conn.execute(_USED_BY_BATCH, {"game_id": game_id, "client_id": client_id}).first()
                if used is not None:
                    dup = self._duplicate(conn, game, int(used[0]))
                    if dup.events and dup.events[0].by != by:
                        # The answer to a retry holds the original's events: only the one
                        # who sent it may have them back (a team's fleet, for instance).
                        raise MalformedAction(Msg("this client_id was already used by someone else; send a new one"))
                    return dup, None, game, None, False
            if game.status == ABANDONED:
                raise GameOver(Msg("this game has expired: nobody played it for a long time"))
            mode, state = self._cached(game) or self._state_in(conn, game)
            # The server's dice: drawn here, written into the event by the rules, so a replay rolls alike.
            kind = action.get("type") if isinstance(action, dict) else None
            chance = _seed_for(mode, kind)

            def applied() -> tuple[Any, list[Any]]:
                return mode.apply(state, action, at=at, by=by, **extra, **chance)

            # A slow kind (a void of a long game) runs in a thread: other writers wait for the
            # write lock meanwhile, but the event loop, and everyone only reading, does not.
            new_state, events = offload.run(applied) if kind in getattr(mode, "SLOW_KINDS", ()) else applied()
            current = int(game.seq)
            if not events:
                return Result(game_id, [], state, current, mode=str(game.mode)), mode, game, None, False
            for offset, ev in enumerate(events):
                if ev.seq != current + 1 + offset:
                    raise BrokenMode(f"event seq {ev.seq} does not follow version {current + offset}")
            conn.execute(
                _ADD_EVENTS,
                [
                    _event_row(game_id, ev, current + 1, device_id, client_id if i == 0 else None)
                    for i, ev in enumerate(events)
                ],
            )
            new_version = events[-1].seq
            deadline = _deadline(mode, new_state)
            conn.execute(
                _MOVE_GAME,
                {
                    "game_id": game_id,
                    "new_seq": new_version,
                    "new_status": _status(new_state),
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
            self._remember(game_id, game.mode, result.state, result.version)
            self._deadline_stored(moved)
            if snapshot_now:
                self._write_snapshot(game_id, mode, result.state, result.version)
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

    def _cached(self, game: Any) -> tuple[Mode, Any] | None:
        """Return the game's mode and state at game.seq from this process's cache, if it holds that version."""
        with self._lock:
            cached = self._cache.get(game.id)
        if cached is None or cached.version != game.seq:
            return None
        return self.mode(game.mode), cached.state

    def _duplicate(self, conn: Connection, game: Any, batch_seq: int) -> Result:
        """Return the original result of a retried client_id: the events of its batch."""
        mode, state = self._state_in(conn, game)
        rows = conn.execute(
            select(events_t)
            .where(events_t.c.game_id == game.id, events_t.c.batch_seq == batch_seq)
            .order_by(events_t.c.seq)
        )
        events = [self._row_to_event(mode, r) for r in rows]
        return Result(game.id, events, state, int(game.seq), duplicate=True, mode=str(game.mode))

    def events_since(self, game_id: str, seq: int) -> list[Any]:
        """Return the events of a game with seq > `seq`, in order."""

        def run() -> list[Any]:
            with self._read() as conn:
                game = self._game_row(conn, game_id, lock=False)
                mode = self.mode(game.mode)
                return [self._row_to_event(mode, r) for r in self._events_rows(conn, game_id, seq)]

        return retry_busy(run)

    def all_events(self, game_id: str) -> list[Any]:
        """Return every event of a game, from seq 1."""
        return self.events_since(game_id, 0)

    def game_ids(self) -> list[str]:
        """Return every game id, newest first."""
        with self._read() as conn:
            return [r.id for r in conn.execute(select(games_t.c.id).order_by(games_t.c.created_at.desc()))]

    def game_ids_of(self, mode: str, limit: int = 100) -> list[str]:
        """Return the newest games of one mode, unfinished ones first (the referee's list)."""
        with self._read() as conn:
            finished = games_t.c.status.in_(("over", ABANDONED))
            stmt = (
                select(games_t.c.id)
                .where(games_t.c.mode == mode)
                .order_by(finished, games_t.c.created_at.desc())
                .limit(limit)
            )
            return [r.id for r in conn.execute(stmt)]

    def status_of(self, game_id: str) -> str:
        """Return a game's status in the games table (the mode's phase, or ABANDONED)."""
        with self._read() as conn:
            return str(self._game_row(conn, game_id, lock=False).status)

    def due_game_ids(self, now: float) -> list[str]:
        """Return the games whose stored deadline has come, soonest first, for the round clock.

        Only games with a deadline are read: thousands of Battleship games cost the clock nothing.
        """
        with self._read() as conn:
            return [r.id for r in conn.execute(_DUE_GAMES, {"now": now})]

    def _deadline_stored(self, deadline: float | None) -> None:
        if deadline is None:
            return
        if deadline < self.soonest_stored:
            self.soonest_stored = deadline
        if deadline < self.clock_wakes_at:
            self.deadlines_moved.set()

    def earliest_deadline(self) -> float | None:
        """Return the soonest stored deadline of any game, or None when no clock runs anywhere."""
        return self.look().deadline

    def revocations(self) -> int:
        """Return how many tokens and phones were ever revoked, by any process."""
        return self.look().revocations

    def look(self) -> Look:
        """Return the soonest stored deadline and the revocations counted, read in one statement (the round clock's)."""
        with self._read() as conn:
            deadline, revocations = conn.execute(_LOOK).one()
        return Look(None if deadline is None else float(deadline), int(revocations))

    def refresh_deadline(self, game_id: str) -> float | None:
        """Store the deadline a game's state really has; return it.

        For a row whose deadline is only a "look now" mark (set by migration 0002 for games that
        were running, whose logs it cannot fold): once read, the clock leaves them alone.
        """

        def run() -> float | None:
            with self.engine.begin() as conn:
                game = self._game_row(conn, game_id, lock=True)
                mode, state = self._state_in(conn, game)
                deadline = None if game.status == ABANDONED else _deadline(mode, state)
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
        with self._read() as conn:
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

    def count_events(self, game_id: str) -> int:
        """Return how many events a game has stored."""
        with self._read() as conn:
            return int(conn.execute(select(func.count()).where(events_t.c.game_id == game_id)).scalar_one())


# A snapshot's marker that its state's `log` was left out: the events table holds it already,
# and a snapshot that carried it would grow with the square of the game's length.
_LOG_IN_EVENTS = "_log_in_events"
# A snapshot's marker that its growing part holds only the entries after this earlier snapshot's seq.
_GROWN_SINCE = "_grown_since"


def _snapshot(mode: Mode, state: Any, base: int = 0) -> str:
    """Encode a state for the snapshots table, without the log the events table holds.

    `base`: the seq of an earlier snapshot that holds the state's growing part up to there
    (`SNAPSHOT_GROWS`, the air-raid notes): this one then holds only the entries after it.
    """
    log_free = getattr(mode, "snapshot_to_dict", None)
    if log_free is None:
        return _dumps(mode.state_to_dict(state))
    if base:
        return _dumps({**log_free(state, after=base), _LOG_IN_EVENTS: True, _GROWN_SINCE: base})
    return _dumps({**log_free(state), _LOG_IN_EVENTS: True})


# Rows under which loading a game is computed where it is: the thread hop costs more than they do.
_IN_PLACE_ROWS = 32

MakeEvent = Callable[[Mode, dict[str, Any]], Any]


def _computed(work: int, fn: Callable[..., T], *args: Any) -> T:
    """Return fn(*args): in a thread of `offload` when `work` (rows to decode and fold) is more than a few."""
    return fn(*args) if work <= _IN_PLACE_ROWS else offload.run(fn, *args)


def _folded(mode: Mode, make: MakeEvent, state: Any, rows: Sequence[Any]) -> Any:
    """Return the state after folding the events of these rows (pure: run in a thread)."""
    for row in rows:
        state = mode.fold(state, make(mode, _row_dict(row)))
    return state


def _replayed(mode: Mode, make: MakeEvent, rows: Sequence[Any]) -> Any:
    """Return the state of a whole log's rows (pure: run in a thread)."""
    return mode.replay([make(mode, _row_dict(r)) for r in rows])


def _from_snapshot(
    mode: Mode,
    make: MakeEvent,
    body: str,
    log_rows: Sequence[Any] | None,
    older: Mapping[int, str],
    after: Sequence[Any],
) -> Any:
    """Return the state of a snapshot's body and the events after it; None if it points back to one that is gone.

    (Pure: run in a thread.) A snapshot that left its log to the events table gets it back from
    `log_rows`, unfolded; one that holds only the newest entries of its growing part gets the
    earlier ones from the snapshots it points back to (`older`), oldest entries first.
    """
    data = json.loads(body)
    if data.pop(_LOG_IN_EVENTS, False):
        data["log"] = [_row_dict(r) for r in log_rows or ()]
    since = data.pop(_GROWN_SINCE, 0)
    if since:
        grows = getattr(mode, "SNAPSHOT_GROWS", None)
        if grows is None:
            return None
        pieces = [data.get(grows, {})]
        while since:
            if since not in older:
                return None
            earlier = json.loads(older[since])
            pieces.append(earlier.get(grows, {}))
            since = earlier.get(_GROWN_SINCE, 0)
        data[grows] = {k: v for piece in reversed(pieces) for k, v in piece.items()}
    return _folded(mode, make, mode.state_from_dict(data), after)


def _row_dict(row: Any) -> dict[str, Any]:
    """Return an events-table row as the dict its Event was made from."""
    return {"seq": row.seq, "kind": row.kind, "data": json.loads(row.data), "at": row.at, "by": row.by}


def _event_row(game_id: str, ev: Any, batch_seq: int, device_id: str | None, client_id: str | None) -> dict[str, Any]:
    """Return the events-table row of one event."""
    return {
        "game_id": game_id,
        "seq": ev.seq,
        "kind": ev.kind,
        "data": _dumps(dict(ev.data)),
        "at": float(ev.at),
        "by": ev.by,
        "batch_seq": batch_seq,
        "device_id": device_id,
        "client_id": client_id,
    }


def _seed_for(mode: Mode, kind: Any) -> dict[str, int]:
    """Draw the chance of an action whose kind takes one (the mode's CHANCE), as apply's `seed`."""
    if isinstance(kind, str) and kind in getattr(mode, "CHANCE", ()):
        return {"seed": secrets.randbits(63)}
    return {}


def _deadline(mode: Mode, state: Any) -> float | None:
    """When the round clock must next look at a game, from the mode's `next_deadline`; None: never."""
    next_deadline = getattr(mode, "next_deadline", None)
    value = next_deadline(state) if next_deadline is not None else None
    return None if value is None else float(value)


def _status(state: Any) -> str:
    """The game's status for the games table: the state's `status` (or `phase`) if it is a string."""
    for attr in ("status", "phase"):
        value = getattr(state, attr, None)
        if isinstance(value, str) and value:
            return value[:32]
    return "active"
