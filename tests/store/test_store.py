"""The event store: contiguous seqs under concurrency, dedupe, refusals, snapshots; SQLite and PostgreSQL."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, inspect, select
from sqlalchemy.exc import OperationalError

from referee.rules.errors import IllegalAction, MalformedAction
from referee.rules.modes import GameMode
from referee.store import (
    MODES,
    GameNotFound,
    Store,
    StoreBusy,
    is_busy_error,
    make_engine,
    migrate,
    reading,
    retry_busy,
)
from referee.store.models import EventRow, Game, Snapshot

# --- A tiny fake mode: a counter ------------------------------------------------------------


@dataclass(frozen=True)
class CEvent:
    """Event of the fake counter mode."""

    seq: int
    kind: str
    data: dict[str, Any]
    at: float
    by: str

    def to_dict(self) -> dict[str, Any]:
        """Return the event as a dict."""
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CEvent:
        """Rebuild an event."""
        return cls(int(d["seq"]), str(d["kind"]), dict(d["data"]), float(d["at"]), str(d["by"]))


@dataclass(frozen=True)
class CState:
    """State of the fake counter mode."""

    version: int
    total: int
    adds: int


class CounterMode(GameMode):
    """Counts: actions {"type": "add"|"add_twice", "n": positive int}; counts folds and replays.

    It folds its own way, without the shared engine, so it overrides the four moves of a mode.
    """

    def __init__(self) -> None:
        super().__init__(
            name="counter",
            state_type=CState,
            engine=None,
            view_for=lambda state, role, now: asdict(state),
            legal_actions=lambda state, role: [{"type": "add"}, {"type": "add_twice"}],
            state_to_dict=asdict,
            state_from_dict=lambda d: CState(**d),
            event_from_dict=CEvent.from_dict,
        )
        self.folds = 0
        self.replays = 0

    def create(self, action: Mapping[str, Any], *, at: float, by: str = "referee", seed: int | None = None) -> Any:
        """Start a game: one game_created event holding the action."""
        first = CEvent(1, "game_created", dict(action), at, by)
        return self.replay([first]), [first]

    def replay(self, events: Sequence[CEvent]) -> CState:
        """Fold every event from game_created."""
        self.replays += 1
        first = events[0]
        start = first.data.get("start", 0)
        if first.kind != "game_created" or not isinstance(start, int):
            raise MalformedAction("bad setup")
        state = CState(first.seq, start, 0)
        for event in events[1:]:
            state = self.fold(state, event)
        return state

    def fold(self, state: CState, event: CEvent) -> CState:
        """Apply one stored event."""
        self.folds += 1
        assert event.seq == state.version + 1, (event.seq, state.version)
        if event.kind == "added":
            return CState(event.seq, state.total + int(event.data["n"]), state.adds + 1)
        return replace(state, version=event.seq)

    def apply(self, state: CState, action: Mapping[str, Any], *, at: float, by: str, **rest: Any) -> Any:
        """Validate and apply an action."""
        kind, n = action.get("type"), action.get("n")
        if kind not in ("add", "add_twice"):
            raise MalformedAction(f"unknown action {kind!r}")
        if not isinstance(n, int) or n <= 0:
            raise IllegalAction("n must be a positive integer")
        events: list[CEvent] = []
        for _ in range(2 if kind == "add_twice" else 1):
            event = CEvent(state.version + 1, "added", {"n": n}, at, by)
            state = self.fold(state, event)
            events.append(event)
        return state, events


class CreatingCounterMode(CounterMode):
    """A counter mode that makes its first events itself, like the lead's modes do."""

    def create(self, action: Mapping[str, Any], *, at: float, by: str = "referee", seed: int | None = None) -> Any:
        """Start a game: game_created plus one 'added' of the initial bonus."""
        first = CEvent(1, "game_created", {"start": 0}, at, by)
        bonus = CEvent(2, "added", {"n": int(action["bonus"])}, at, by)
        return self.replay([first, bonus]), [first, bonus]


# --- Fixtures --------------------------------------------------------------------------------


@pytest.fixture
def mode(monkeypatch: pytest.MonkeyPatch) -> CounterMode:
    """Register the counter mode in the global registry."""
    m = CounterMode()
    monkeypatch.setitem(MODES, "counter", m)
    return m


@pytest.fixture(params=["sqlite", "postgresql"])
def engine_factory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """Make migrated engines on one database (several engines = several processes)."""
    engines: list[Engine] = []
    if request.param == "sqlite":
        url, kwargs = f"sqlite:///{tmp_path / 'store.sqlite3'}", {}
    else:
        url, kwargs = request.getfixturevalue("postgres_schema")

    def make() -> Engine:
        engine = make_engine(url, **kwargs)
        engines.append(engine)
        migrate(engine)
        return engine

    yield make
    for engine in engines:
        engine.dispose()


@pytest.fixture
def engine(engine_factory: Any) -> Engine:
    """One migrated engine."""
    e: Engine = engine_factory()
    return e


@pytest.fixture
def store(engine: Engine, mode: CounterMode) -> Store:
    """A store on the engine, snapshots every 5 events."""
    return Store(engine, snapshot_every=5)


def _seqs(engine: Engine, game_id: str) -> list[int]:
    with engine.connect() as conn:
        return list(
            conn.execute(select(EventRow.seq).where(EventRow.game_id == game_id).order_by(EventRow.seq)).scalars()
        )


def _game_seq(engine: Engine, game_id: str) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(Game.seq).where(Game.id == game_id)).scalar_one())


# --- Tests -----------------------------------------------------------------------------------


def test_migrations_create_tables(engine: Engine) -> None:
    """Every table exists after migrate, and migrating twice is harmless."""
    migrate(engine)
    names = set(inspect(engine).get_table_names())
    assert {"games", "events", "snapshots", "tokens", "devices", "alembic_version"} <= names


def test_models_match_migrations(engine: Engine) -> None:
    """The typed models and the Alembic migrations describe the same schema."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from referee.store.models import Base

    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []


def test_create_load_and_execute(store: Store, engine: Engine) -> None:
    """A game starts at version 1 and each action appends events with the next seqs."""
    created = store.create_game("counter", {"start": 10}, at=1.0, by="referee")
    assert created.version == 1 and created.state.total == 10
    state, version = store.load(created.game_id)
    assert (state.total, version) == (10, 1)

    r1 = store.execute(created.game_id, {"type": "add", "n": 5}, at=2.0, by="team:A", device_id="d1")
    r2 = store.execute(created.game_id, {"type": "add_twice", "n": 1}, at=3.0, by="team:B")
    assert [e.seq for e in r1.events] == [2]
    assert [e.seq for e in r2.events] == [3, 4]
    assert (r2.state.total, r2.version) == (17, 4)
    assert _seqs(engine, created.game_id) == [1, 2, 3, 4]
    assert _game_seq(engine, created.game_id) == 4
    assert [e.kind for e in store.all_events(created.game_id)] == ["game_created", "added", "added", "added"]
    assert [e.seq for e in store.events_since(created.game_id, 2)] == [3, 4]
    assert store.events_since(created.game_id, 2)[0].data == {"n": 1}


def test_create_with_mode_create(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """A mode's own `create` writes every first event it returns."""
    monkeypatch.setitem(MODES, "creating", CreatingCounterMode())
    store = Store(engine)
    created = store.create_game("creating", {"bonus": 3}, at=1.0, by="referee")
    assert created.version == 2 and created.state.total == 3
    assert _seqs(engine, created.game_id) == [1, 2]
    assert store.mode_of(created.game_id) == "creating"


def test_refused_create_writes_nothing(store: Store, engine: Engine) -> None:
    """A setup the mode refuses leaves no game behind."""
    with pytest.raises(MalformedAction):
        store.create_game("counter", {"start": "ten"}, at=1.0, by="referee", game_id="g-refused")
    with engine.connect() as conn:
        assert conn.execute(select(Game).where(Game.id == "g-refused")).first() is None


def test_refusal_writes_nothing(store: Store, engine: Engine) -> None:
    """On a RulesError no event, no seq change and no client_id is stored."""
    gid = store.create_game("counter", {}, at=1.0, by="referee").game_id
    store.execute(gid, {"type": "add", "n": 1}, at=2.0, by="referee")
    with pytest.raises(IllegalAction):
        store.execute(gid, {"type": "add", "n": -3}, at=3.0, by="referee", client_id="c-bad")
    with pytest.raises(MalformedAction):
        store.execute(gid, {"type": "explode"}, at=3.0, by="referee")
    assert _seqs(engine, gid) == [1, 2]
    assert _game_seq(engine, gid) == 2
    assert store.load(gid)[1] == 2
    # The refused client_id was not recorded: a valid retry with it is applied.
    result = store.execute(gid, {"type": "add", "n": 3}, at=4.0, by="referee", client_id="c-bad")
    assert not result.duplicate and result.state.total == 4


def test_client_id_dedupe(store: Store, engine: Engine) -> None:
    """A retried request with the same client_id is applied once and returns the original events."""
    gid = store.create_game("counter", {}, at=1.0, by="referee").game_id
    first = store.execute(gid, {"type": "add_twice", "n": 2}, at=2.0, by="team:A", client_id="c-1")
    store.execute(gid, {"type": "add", "n": 100}, at=3.0, by="team:B", client_id="c-2")
    again = store.execute(gid, {"type": "add_twice", "n": 2}, at=9.0, by="team:A", client_id="c-1")
    assert not first.duplicate and again.duplicate
    assert [e.seq for e in again.events] == [e.seq for e in first.events] == [2, 3]
    assert [e.at for e in again.events] == [2.0, 2.0]
    assert again.state.total == 104 and again.version == 4
    assert _seqs(engine, gid) == [1, 2, 3, 4]
    # A different store (another process) dedupes from the database alone.
    other = Store(engine)
    assert other.execute(gid, {"type": "add", "n": 100}, at=5.0, by="team:B", client_id="c-2").duplicate
    assert _seqs(engine, gid) == [1, 2, 3, 4]


def test_unknown_game(store: Store) -> None:
    """Unknown game ids raise GameNotFound."""
    with pytest.raises(GameNotFound):
        store.load("nope")
    with pytest.raises(GameNotFound):
        store.execute("nope", {"type": "add", "n": 1}, at=1.0, by="referee")


def test_snapshot_plus_fold_equals_replay(engine: Engine, mode: CounterMode) -> None:
    """Snapshots are written every N events, and a fresh load (snapshot + fold) equals a full replay."""
    writer = Store(engine, snapshot_every=5)
    gid = writer.create_game("counter", {"start": 1}, at=0.0, by="referee").game_id
    for i in range(1, 24):
        action = {"type": "add_twice" if i % 4 == 0 else "add", "n": i}
        writer.execute(gid, action, at=float(i), by="referee")
    version = _game_seq(engine, gid)
    assert version == 29

    with engine.connect() as conn:
        snaps = conn.execute(select(Snapshot.__table__).where(Snapshot.game_id == gid).order_by(Snapshot.seq)).all()
    # One snapshot each time the version crosses a multiple of 5 (an add_twice may skip past it).
    assert [s.seq // 5 for s in snaps] == [1, 2, 3, 4, 5]
    full = CounterMode().replay(writer.all_events(gid))
    for snap in snaps:
        upto = [e for e in writer.all_events(gid) if e.seq <= snap.seq]
        assert CounterMode().state_to_dict(CounterMode().replay(upto)) == json.loads(snap.state)

    fresh_mode = CounterMode()
    fresh = Store(engine, modes={"counter": fresh_mode})
    state, loaded_version = fresh.load(gid)
    assert loaded_version == version
    assert state == full
    assert fresh_mode.replays == 0  # started from a snapshot...
    assert fresh_mode.folds == version - snaps[-1].seq  # ...and folded only the later events


def test_stores_in_two_processes_stay_consistent(engine_factory: Any, mode: CounterMode) -> None:
    """Each store's cache is refreshed by seq, so writes through another store are never lost."""
    store_a = Store(engine_factory(), snapshot_every=5)
    store_b = Store(engine_factory(), snapshot_every=5)
    gid = store_a.create_game("counter", {}, at=0.0, by="referee").game_id
    store_b.load(gid)
    store_a.execute(gid, {"type": "add", "n": 1}, at=1.0, by="referee")
    result = store_b.execute(gid, {"type": "add", "n": 10}, at=2.0, by="referee")
    assert (result.version, result.state.total) == (3, 11)
    assert store_a.load(gid)[0].total == 11


def test_concurrent_writers_lose_nothing(engine_factory: Any, mode: CounterMode) -> None:
    """8 writer threads x 200 actions (through two engines): contiguous seqs, no lost update, no 'locked'."""
    threads_n, per_thread = 8, 200
    stores = [Store(engine_factory(), snapshot_every=50), Store(engine_factory(), snapshot_every=50)]
    gid = stores[0].create_game("counter", {}, at=0.0, by="referee").game_id
    errors: list[BaseException] = []
    start = threading.Barrier(threads_n)

    def work(i: int) -> None:
        store = stores[i % 2]
        try:
            start.wait()
            for j in range(per_thread):
                store.execute(gid, {"type": "add", "n": 1}, at=float(j), by=f"t{i}", client_id=f"{i}-{j}")
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    workers = [threading.Thread(target=work, args=(i,)) for i in range(threads_n)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()

    assert errors == []
    total = threads_n * per_thread
    engine = stores[0].engine
    assert _seqs(engine, gid) == list(range(1, total + 2))
    assert _game_seq(engine, gid) == total + 1
    for store in stores:
        state, version = store.load(gid)
        assert (state.total, state.adds, version) == (total, total, total + 1)
    assert Store(engine).load(gid)[0].total == total


def test_retry_busy_retries_then_gives_up() -> None:
    """SQLite busy errors are retried; other errors pass through; endless busy becomes StoreBusy."""
    locked = OperationalError("BEGIN IMMEDIATE", {}, Exception("database is locked"))
    other = OperationalError("SELECT", {}, Exception("no such table: x"))
    assert is_busy_error(locked) and not is_busy_error(other)

    calls = {"n": 0}

    def flaky() -> str:
        calls["n"] += 1
        if calls["n"] < 3:
            raise locked
        return "done"

    assert retry_busy(flaky, base_delay=0) == "done" and calls["n"] == 3

    def broken() -> None:
        raise other

    with pytest.raises(OperationalError):
        retry_busy(broken, base_delay=0)

    def always() -> None:
        raise locked

    with pytest.raises(StoreBusy):
        retry_busy(always, attempts=3, base_delay=0)


def test_sqlite_pragmas(tmp_path: Path) -> None:
    """SQLite runs in WAL with synchronous=FULL, foreign keys on, a 10 s busy timeout."""
    engine = make_engine(f"sqlite:///{tmp_path / 'p.sqlite3'}")
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 10000
    finally:
        engine.dispose()


def test_sqlite_reuses_the_connection_used_last(tmp_path: Path) -> None:
    """The pool hands out the SQLite connection returned last: its page cache is still valid."""
    engine = make_engine(f"sqlite:///{tmp_path / 'lifo.sqlite3'}")
    try:
        first, second = engine.raw_connection(), engine.raw_connection()
        older, newer = first.dbapi_connection, second.dbapi_connection
        assert older is not newer
        second.close()
        first.close()  # returned last
        again = engine.raw_connection()
        try:
            assert again.dbapi_connection is older
        finally:
            again.close()
    finally:
        engine.dispose()


def test_sqlite_write_transactions_begin_immediate(tmp_path: Path) -> None:
    """A write transaction holds the write lock from BEGIN: a second writer cannot start meanwhile."""
    import sqlite3

    path = tmp_path / "lock.sqlite3"
    engine = make_engine(f"sqlite:///{path}")
    migrate(engine)
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql("SELECT 1")  # a read only; IMMEDIATE already took the lock
            other = sqlite3.connect(path, timeout=0, isolation_level=None)
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("BEGIN IMMEDIATE")
            other.close()
    finally:
        engine.dispose()


def test_sqlite_reads_do_not_wait_for_writers(tmp_path: Path, mode: CounterMode) -> None:
    """Loads and reads stay DEFERRED: they work while another connection holds the write lock."""
    import sqlite3

    path = tmp_path / "read.sqlite3"
    engine = make_engine(f"sqlite:///{path}")
    migrate(engine)
    store = Store(engine)
    gid = store.create_game("counter", {"start": 2}, at=0.0, by="referee").game_id
    store.forget()
    writer = sqlite3.connect(path, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")
        assert store.load(gid)[0].total == 2
        with reading(engine) as conn:
            assert conn.exec_driver_sql("SELECT count(*) FROM games").scalar() == 1
    finally:
        writer.execute("ROLLBACK")
        writer.close()
        engine.dispose()


def test_an_action_that_cannot_take_the_write_lock_is_busy_and_writes_nothing(
    tmp_path: Path, mode: CounterMode, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An action's transaction runs on the driver's cursor: SQLite's "locked" is still the store's busy."""
    import sqlite3

    import referee.store.log as store_module

    path = tmp_path / "busy.sqlite3"
    engine = make_engine(f"sqlite:///{path}")
    migrate(engine)
    store = Store(engine)
    gid = store.create_game("counter", {"start": 2}, at=0.0, by="referee").game_id
    pooled = engine.raw_connection()  # the pool's one connection waits 50 ms for a lock, not 10 s
    pooled.driver_connection.execute("PRAGMA busy_timeout = 50")  # type: ignore[union-attr]
    pooled.close()
    real_retry = store_module.retry_busy
    monkeypatch.setattr(store_module, "retry_busy", lambda fn, **kw: real_retry(fn, attempts=2, base_delay=0))
    writer = sqlite3.connect(path, isolation_level=None)  # another process's writer
    try:
        writer.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreBusy):
            store.execute(gid, {"type": "add", "n": 1}, at=1.0, by="referee")
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert store.execute(gid, {"type": "add", "n": 1}, at=2.0, by="referee").state.total == 3
    assert _seqs(engine, gid) == [1, 2]
    engine.dispose()


def test_a_pool_with_no_connection_free_is_busy_not_an_error(tmp_path: Path, mode: CounterMode) -> None:
    # An overloaded server: every pooled connection stays in use for the pool's whole wait.
    engine = make_engine(f"sqlite:///{tmp_path / 'full.sqlite3'}", pool_size=1, max_overflow=0, pool_timeout=0.05)
    try:
        migrate(engine)
        store = Store(engine)
        gid = store.create_game("counter", {"type": "create_game"}, at=1.0, by="referee").game_id
        store.forget()  # the next load reads the database
        held = engine.connect()
        try:
            with pytest.raises(StoreBusy):
                store.load(gid)
            with pytest.raises(StoreBusy), reading(engine):
                pass
            with pytest.raises(StoreBusy):
                store.execute(gid, {"type": "add", "n": 1}, at=2.0, by="referee")
        finally:
            held.close()
        assert store.load(gid)[1] == 1, "nothing was written; once a connection is free, all is as before"
    finally:
        engine.dispose()


def test_the_database_counts_every_revocation_whoever_makes_it(engine: Engine) -> None:
    """Triggers count each token or phone revoked, by any process or by hand; nothing else moves the count."""
    from sqlalchemy import insert, update

    from referee.store.models import Device, Revocations, Token

    tokens, devices = Token.__table__, Device.__table__

    def counted() -> int:
        with engine.connect() as conn:
            return int(conn.execute(select(Revocations.count).where(Revocations.id == 1)).scalar_one())

    with engine.begin() as conn:
        conn.execute(
            insert(Game).values(id="g1", mode="airraid", created_at=1.0, seq=0, status="playing", deadline=7.5)
        )
        for i in (1, 2):
            conn.execute(
                insert(tokens).values(id=i, game_id="g1", role="device", token_hash=f"h{i}", label="", created_at=1.0)
            )
        conn.execute(insert(devices).values(id="d1", game_id="g1", token_id=1, name="", created_at=1.0))
    assert counted() == 0
    with engine.begin() as conn:  # seen, renamed: not a revocation
        conn.execute(update(tokens).values(last_seen_at=2.0))
        conn.execute(update(devices).values(name="Eva", last_seen_at=2.0))
    assert counted() == 0
    with engine.begin() as conn:  # a phone revoked, then its token (as `revoke_token` does)
        conn.execute(update(devices).where(devices.c.id == "d1").values(revoked_at=3.0))
    assert counted() == 1
    with engine.begin() as conn:
        conn.execute(update(tokens).where(tokens.c.revoked_at.is_(None)).values(revoked_at=4.0))
    assert counted() == 3  # two tokens
    with engine.begin() as conn:  # the same value written again is no new revocation
        conn.execute(update(tokens).values(revoked_at=4.0))
    assert counted() == 3
    # The round clock reads both in one statement.
    store = Store(engine)
    assert store.look() == (7.5, 3)
    with engine.begin() as conn:
        conn.execute(update(devices).values(revoked_at=None))  # undone by hand: a change all the same
        conn.execute(update(Game.__table__).values(deadline=None))
    assert store.look() == (None, 4)
    assert store.revocations() == 4 and store.earliest_deadline() is None
