"""Eight writer processes on one SQLite file: the store loses nothing, and BEGIN IMMEDIATE is why.

- `Store.execute` in 8 processes (each with its own engine, as 8 servers on one database would)
  × 500 actions, every tenth sent twice with the same client id: no error reaches a caller (no
  "database is locked", no StoreBusy), no update is lost, the seqs are exactly 1..4001.
- The same read-then-write, done naively, by 8 processes at once (× 100):
  * pysqlite's default transaction handling (plain SQLAlchemy) begins the transaction only at
    the first write, after the read: two writers read the same value and one update is lost;
  * a DEFERRED transaction (BEGIN; read; write) cannot upgrade a stale read to a write: SQLite
    answers "database is locked" (SQLITE_BUSY_SNAPSHOT) at once, whatever the busy timeout;
  * BEGIN IMMEDIATE with the store's busy retry (what Store.execute does) takes the write lock
    before the read: exact.
- The same three, step by step with two connections, so the difference needs no luck.

Run: `.venv/bin/python -m pytest -q tests/store/test_concurrency.py`. See docs/crash-safety.md.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import sqlite3
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, insert, select, text
from sqlalchemy.exc import IntegrityError, OperationalError

from referee.store import Store, StoreBusy, make_engine, migrate, retry_busy
from referee.store.models import EventRow, Game

from .test_store import CounterMode

WRITERS = 8
EACH = 500
NAIVE_EACH = 100  # the naive writers need fewer rounds to show their races (same 8 at once)
# Separate processes, like separate servers. Not plain fork: pytest may run threads (live servers'
# readers, browsers) by now, and a child forked while one of them holds a lock would hang on it.
# The fork server is a clean single-threaded process that has imported this module once.
CTX = multiprocessing.get_context("forkserver")
CTX.set_forkserver_preload([__name__])


def store_writer(db: str, gid: str, writer: int, start: Any, out: Any) -> None:
    """One process: its own engine and Store; 500 adds, every tenth sent twice (a retry)."""
    engine = make_engine(db)
    store = Store(engine, modes={"counter": CounterMode()}, snapshot_every=50)
    errors: list[str] = []
    duplicates = 0
    versions: list[int] = []
    start.wait()
    for k in range(EACH):
        for attempt in range(2 if k % 10 == 0 else 1):
            try:
                result = store.execute(
                    gid, {"type": "add", "n": 1}, at=float(k), by=f"writer{writer}", client_id=f"w{writer}-{k}"
                )
            except Exception as exc:  # noqa: BLE001 - anything reaching the caller is a failure of the store
                errors.append(f"{type(exc).__name__}: {exc}"[:200])
                continue
            duplicates += result.duplicate
            if attempt == 0:
                versions.append(result.version)
    engine.dispose()
    out.put((writer, errors, duplicates, versions))


def counter_writer(db: str, how: str, start: Any, out: Any) -> None:
    """One process: NAIVE_EACH times read the counter, add one, write it back, the way `how` says.

    "immediate" is what Store.execute does: BEGIN IMMEDIATE inside `retry_busy` (under heavy load
    a writer can wait longer than the 10 s busy timeout: SQLite's lock is not a fair queue).
    """
    if how == "pysqlite":
        # Plain SQLAlchemy on pysqlite's defaults: the driver emits BEGIN before the UPDATE only.
        engine = create_engine(db)
    else:
        engine = make_engine(db)  # WAL, busy timeout 10 s; its write transactions BEGIN IMMEDIATE
        if how == "deferred":
            # The store's hook begins these with a plain (DEFERRED) BEGIN, as it does for reads.
            engine = engine.execution_options(referee_readonly=True)
    errors: list[str] = []

    def increment() -> None:
        with engine.begin() as conn:
            total = conn.execute(text("SELECT total FROM counter WHERE id = 1")).scalar_one()
            conn.execute(text("UPDATE counter SET total = :t WHERE id = 1"), {"t": total + 1})

    start.wait()
    for _ in range(NAIVE_EACH):
        try:
            retry_busy(increment) if how == "immediate" else increment()
        except (OperationalError, StoreBusy) as exc:
            errors.append(str(getattr(exc, "orig", None) or exc))
    engine.dispose()
    out.put((how, errors))


def run_processes(target: Any, args_of: Any) -> list[Any]:
    """Start WRITERS processes at once (a barrier), collect one result from each."""
    start = CTX.Barrier(WRITERS)
    out = CTX.Queue()
    procs = [CTX.Process(target=target, args=(*args_of(i), start, out)) for i in range(WRITERS)]
    for p in procs:
        p.start()
    results = [out.get(timeout=300) for _ in procs]  # minutes only on a machine loaded many times over
    for p in procs:
        p.join(30)
        assert p.exitcode == 0
    return results


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    """A folder in RAM where there is one: these tests are about locks, not disks.

    WAL and its locks work the same on tmpfs; only fsync is free there, so 4,000 commits take
    seconds instead of a minute on a busy disk. (Durability is docs/crash-safety.md's subject.)
    """
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    folder = Path(tempfile.mkdtemp(prefix="referee-concurrency-", dir=shm))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def db(folder: Path) -> Iterator[str]:
    """A migrated SQLite file with a one-row counter table for the naive writers."""
    url = f"sqlite:///{folder / 'shared.sqlite3'}"
    engine = make_engine(url)
    migrate(engine)
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE counter (id INTEGER PRIMARY KEY, total INTEGER NOT NULL)"))
        conn.execute(text("INSERT INTO counter VALUES (1, 0)"))
    engine.dispose()
    yield url


def counter_total(url: str) -> int:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(text("SELECT total FROM counter WHERE id = 1")).scalar_one())
    finally:
        engine.dispose()


def test_eight_store_processes_lose_nothing_and_see_no_lock(db: str) -> None:
    engine = make_engine(db)
    store = Store(engine, modes={"counter": CounterMode()})
    gid = store.create_game("counter", {}, at=0.0, by="referee").game_id
    results = run_processes(store_writer, lambda i: (db, gid, i))

    total = WRITERS * EACH
    for writer, errors, duplicates, versions in results:
        assert errors == [], f"writer {writer}: {errors[:3]}"
        assert duplicates == EACH // 10, "every retried client id was answered as a duplicate"
        assert versions == sorted(versions) and len(set(versions)) == EACH
    with engine.connect() as conn:
        seqs = list(conn.execute(select(EventRow.seq).where(EventRow.game_id == gid).order_by(EventRow.seq)).scalars())
        client_ids = list(
            conn.execute(
                select(EventRow.client_id).where(EventRow.game_id == gid, EventRow.client_id.is_not(None))
            ).scalars()
        )
        game_seq = conn.execute(select(Game.seq).where(Game.id == gid)).scalar_one()
    assert seqs == list(range(1, total + 2)), "contiguous seqs 1..N"
    assert game_seq == total + 1
    assert sorted(str(c) for c in client_ids) == sorted(f"w{w}-{k}" for w in range(WRITERS) for k in range(EACH)), (
        "each entry once"
    )
    fresh = Store(engine, modes={"counter": CounterMode()})
    state, version = fresh.load(gid)
    assert (state.total, state.adds, version) == (total, total, total + 1), "no update lost"
    engine.dispose()


def test_naive_read_then_write_loses_updates_or_locks_where_immediate_does_not(db: str) -> None:
    outcomes: dict[str, tuple[int, list[str]]] = {}
    for how in ("pysqlite", "deferred", "immediate"):
        with make_engine(db).begin() as conn:
            conn.execute(text("UPDATE counter SET total = 0"))
        results = run_processes(counter_writer, lambda _i, how=how: (db, how))
        errors = [e for _how, errs in results for e in errs]
        lost = WRITERS * NAIVE_EACH - len(errors) - counter_total(db)
        outcomes[how] = (lost, errors)
    print(
        "\nlost updates, errors reaching the caller:",
        {how: (lost, len(errors)) for how, (lost, errors) in outcomes.items()},
    )

    lost, errors = outcomes["pysqlite"]
    assert lost > 0 or errors, "pysqlite's default (BEGIN at the first write) races: updates are lost"
    lost, errors = outcomes["deferred"]
    assert errors and all("locked" in e for e in errors), "a DEFERRED read-then-write fails with 'database is locked'"
    assert lost == 0  # it fails loudly instead: each failed increment is simply not made
    lost, errors = outcomes["immediate"]
    assert (lost, errors) == (0, []), "BEGIN IMMEDIATE: exact, and no error reaches the caller"


# --- The same, step by step: two connections, no luck needed -----------------------------------


def two(path: Path, **kwargs: Any) -> tuple[sqlite3.Connection, sqlite3.Connection]:
    return sqlite3.connect(path, timeout=2, **kwargs), sqlite3.connect(path, timeout=2, **kwargs)


def read(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT total FROM counter WHERE id = 1").fetchone()[0])


def write(conn: sqlite3.Connection, total: int) -> None:
    conn.execute("UPDATE counter SET total = ? WHERE id = 1", (total,))


def test_step_by_step_pysqlite_default_loses_an_update(db: str, folder: Path) -> None:
    path = folder / "shared.sqlite3"
    a, b = two(path)  # pysqlite's default isolation: BEGIN is sent before the UPDATE, not the SELECT
    seen_a, seen_b = read(a), read(b)
    write(a, seen_a + 1)
    a.commit()
    write(b, seen_b + 1)
    b.commit()
    assert read(a) == 1, "two increments, one lost"


def test_step_by_step_deferred_says_database_is_locked(db: str, folder: Path) -> None:
    path = folder / "shared.sqlite3"
    a, b = two(path, isolation_level=None)
    a.execute("BEGIN")
    b.execute("BEGIN")
    seen_a, seen_b = read(a), read(b)
    write(a, seen_a + 1)
    a.execute("COMMIT")
    started = time.monotonic()
    with pytest.raises(sqlite3.OperationalError, match="database is locked"):
        write(b, seen_b + 1)  # its read is stale: waiting cannot help, so SQLite does not wait
    b.execute("ROLLBACK")
    assert time.monotonic() - started < 1.5, "refused at once, not after the busy timeout"
    assert read(a) == 1


def test_step_by_step_immediate_waits_and_counts_both(db: str) -> None:
    engine: Engine = make_engine(db)
    second_read: list[int] = []
    try:
        with engine.begin() as conn:  # BEGIN IMMEDIATE: the write lock before the read
            seen = conn.execute(text("SELECT total FROM counter WHERE id = 1")).scalar_one()

            def other() -> None:
                with engine.begin() as conn2:  # waits for the first to commit, then reads its write
                    total = conn2.execute(text("SELECT total FROM counter WHERE id = 1")).scalar_one()
                    second_read.append(total)
                    conn2.execute(text("UPDATE counter SET total = :t WHERE id = 1"), {"t": total + 1})

            thread = threading.Thread(target=other)
            thread.start()
            time.sleep(0.3)
            assert second_read == [], "the second writer waits at BEGIN, before its read"
            conn.execute(text("UPDATE counter SET total = :t WHERE id = 1"), {"t": seen + 1})
        thread.join(10)
        assert second_read == [1]
        assert counter_total(db) == 2
    finally:
        engine.dispose()


def test_the_log_refuses_a_second_event_with_the_same_client_id(db: str) -> None:
    """The last line behind the dedupe: (game, client_id) is unique in the events table."""
    engine = make_engine(db)
    store = Store(engine, modes={"counter": CounterMode()})
    gid = store.create_game("counter", {}, at=0.0, by="referee").game_id
    store.execute(gid, {"type": "add", "n": 1}, at=1.0, by="referee", client_id="once")
    with pytest.raises(IntegrityError), engine.begin() as conn:
        conn.execute(
            insert(EventRow).values(
                game_id=gid, seq=3, kind="added", data='{"n":1}', at=2.0, by="x", batch_seq=3, client_id="once"
            )
        )
    engine.dispose()
