"""The offloaded SQLite connection: which calls go to the runner (a thread pool under gevent)."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from referee.store.sqlite_threads import OffloadedConnection


class CountingRunner:
    """A runner that runs in place and notes the name of every call handed to it."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, fn: Callable[..., Any], *args: Any) -> Any:
        self.calls.append(f"{fn.__name__} {args[0]}" if args and isinstance(args[0], str) else fn.__name__)
        return fn(*args)


@pytest.fixture
def conn(tmp_path: Path) -> tuple[OffloadedConnection, CountingRunner]:
    runner = CountingRunner()
    raw = sqlite3.connect(tmp_path / "t.sqlite3", isolation_level=None)
    raw.execute("PRAGMA journal_mode=WAL")
    raw.execute("CREATE TABLE t (n INTEGER PRIMARY KEY, v TEXT)")
    return OffloadedConnection(raw, runner), runner


def test_a_write_transaction_hops_to_the_runner_only_to_commit(
    conn: tuple[OffloadedConnection, CountingRunner],
) -> None:
    db, runner = conn
    cur = db.cursor()
    cur.execute("BEGIN IMMEDIATE")  # the lock is free: taken in place
    assert db.writing
    cur.execute("SELECT count(*) FROM t")
    assert cur.fetchall() == [(0,)]
    cur.execute("INSERT INTO t (v) VALUES (?)", ("a",))
    cur.executemany("INSERT INTO t (v) VALUES (?)", [("b",), ("c",)])
    db.commit()
    assert runner.calls == ["commit"]
    assert not db.writing
    # The pool rolls back every connection it takes back: with no transaction open, no hop.
    db.rollback()
    db.commit()
    assert runner.calls == ["commit"]
    # Outside a write transaction every statement goes to the runner again (a read may touch the disk).
    cur.execute("SELECT v FROM t ORDER BY n")
    assert cur.fetchall() == [("a",), ("b",), ("c",)]
    assert runner.calls[1:] == ["execute SELECT v FROM t ORDER BY n", "fetchall"]


def test_a_read_transaction_begins_in_place_and_hops_only_to_read(
    conn: tuple[OffloadedConnection, CountingRunner],
) -> None:
    db, runner = conn
    cur = db.cursor()
    cur.execute("BEGIN")  # deferred: no lock, no page read until the first statement
    assert not db.writing and db.in_transaction
    cur.execute("SELECT count(*) FROM t")
    assert cur.fetchone() == (0,)
    db.commit()
    assert runner.calls == ["execute SELECT count(*) FROM t", "commit"]


def test_a_write_transaction_reads_the_busy_timeout_once_and_again_after_it_is_set(
    conn: tuple[OffloadedConnection, CountingRunner],
) -> None:
    db, _runner = conn
    seen: list[str] = []
    db._connection.set_trace_callback(seen.append)

    def write(value: str) -> None:
        cur = db.cursor()
        cur.execute("BEGIN IMMEDIATE")
        cur.execute("INSERT INTO t (v) VALUES (?)", (value,))
        db.commit()

    def reads() -> int:
        return sum(1 for s in seen if s.replace(" ", "").upper() == "PRAGMABUSY_TIMEOUT")

    write("a")
    write("b")
    assert reads() == 1
    db.cursor().execute("PRAGMA busy_timeout = 1234")
    write("c")
    assert reads() == 2
    assert db.execute("PRAGMA busy_timeout").fetchall() == [(1234,)]  # given back after each write
    assert [r[0] for r in db.execute("SELECT v FROM t ORDER BY n").fetchall()] == ["a", "b", "c"]


def test_a_begin_waits_for_another_processs_lock_in_the_runner_with_its_busy_timeout(
    conn: tuple[OffloadedConnection, CountingRunner], tmp_path: Path
) -> None:
    db, runner = conn
    db.execute("PRAGMA busy_timeout = 5000")
    holder = sqlite3.connect(tmp_path / "t.sqlite3", isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")  # a `referee` command's write, past this process's gate
    threading.Timer(0.2, lambda: holder.execute("ROLLBACK")).start()
    started = time.monotonic()
    db.execute("BEGIN IMMEDIATE")
    assert db.writing and time.monotonic() - started >= 0.15
    assert runner.calls[-1] == "execute BEGIN IMMEDIATE"  # waited in the runner, not here
    db.rollback()
    assert db.execute("PRAGMA busy_timeout").fetchall() == [(5000,)]  # its patience given back


def test_a_rollback_or_a_failed_begin_leaves_the_connection_offloaded(
    conn: tuple[OffloadedConnection, CountingRunner], tmp_path: Path
) -> None:
    db, runner = conn
    db.execute("BEGIN IMMEDIATE")
    db.execute("INSERT INTO t (v) VALUES ('x')")
    db.rollback()
    assert not db.writing
    holder = sqlite3.connect(tmp_path / "t.sqlite3", isolation_level=None, timeout=0)
    holder.execute("BEGIN IMMEDIATE")
    db.execute("PRAGMA busy_timeout=0")
    with pytest.raises(sqlite3.OperationalError):
        db.execute("BEGIN IMMEDIATE")  # another connection holds the write lock
    assert not db.writing
    holder.execute("ROLLBACK")
    db.execute("SELECT count(*) FROM t")
    assert runner.calls[-1] == "execute SELECT count(*) FROM t"
    assert db.execute("SELECT count(*) FROM t").fetchall() == [(0,)]


def test_the_writers_of_a_process_wait_at_the_gate_not_in_sqlites_busy_sleeps(tmp_path: Path) -> None:
    runner = CountingRunner()
    path = tmp_path / "gate.sqlite3"
    setup = sqlite3.connect(path, isolation_level=None)
    setup.execute("PRAGMA journal_mode=WAL")
    setup.execute("CREATE TABLE t (n INTEGER PRIMARY KEY, v TEXT)")
    setup.close()
    gate = threading.RLock()
    first = OffloadedConnection(sqlite3.connect(path, isolation_level=None, check_same_thread=False), runner, gate)
    second = OffloadedConnection(sqlite3.connect(path, isolation_level=None, check_same_thread=False), runner, gate)
    second.execute("PRAGMA busy_timeout=0")  # past the gate, a lock still taken would fail at once
    first.execute("BEGIN IMMEDIATE")
    first.execute("INSERT INTO t (v) VALUES ('first')")
    began: list[float] = []

    def write_second() -> None:
        second.execute("BEGIN IMMEDIATE")
        began.append(time.monotonic())
        second.execute("INSERT INTO t (v) VALUES ('second')")
        second.commit()

    writer = threading.Thread(target=write_second)
    writer.start()
    time.sleep(0.2)
    assert not began  # waiting at the gate, not failing on SQLite's lock
    committed = time.monotonic()
    first.commit()
    writer.join(5)
    assert began and began[0] >= committed
    assert first.execute("SELECT v FROM t ORDER BY n").fetchall() == [("first",), ("second",)]


def test_a_begin_that_fails_lets_the_next_writer_in(tmp_path: Path) -> None:
    runner = CountingRunner()
    path = tmp_path / "gate.sqlite3"
    gate = threading.RLock()
    db = OffloadedConnection(sqlite3.connect(path, isolation_level=None, check_same_thread=False), runner, gate)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA busy_timeout=0")
    holder = sqlite3.connect(path, isolation_level=None)  # another process's writer, past any gate
    holder.execute("BEGIN IMMEDIATE")
    with pytest.raises(sqlite3.OperationalError):
        db.execute("BEGIN IMMEDIATE")
    holder.execute("ROLLBACK")
    other = threading.Thread(target=lambda: (gate.acquire(), gate.release()))
    other.start()
    other.join(2)
    assert not other.is_alive()  # the gate was let go when the BEGIN failed


def test_closing_a_connection_in_a_write_lets_the_gate_go(tmp_path: Path) -> None:
    gate = threading.RLock()
    raw = sqlite3.connect(tmp_path / "gate.sqlite3", isolation_level=None, check_same_thread=False)
    db = OffloadedConnection(raw, CountingRunner(), gate)
    db.execute("BEGIN IMMEDIATE")
    db.close()
    assert not db.writing
    other = threading.Thread(target=lambda: (gate.acquire(), gate.release()))
    other.start()
    other.join(2)
    assert not other.is_alive()


def test_a_write_begins_in_place_when_the_lock_is_free_and_waits_in_the_runner_when_it_is_not(
    conn: tuple[OffloadedConnection, CountingRunner], tmp_path: Path
) -> None:
    db, runner = conn
    cur = db.cursor()
    cur.execute("BEGIN IMMEDIATE")  # the lock is free: taken in place
    assert db.writing and runner.calls == []
    cur.execute("INSERT INTO t (v) VALUES ('a')")  # holding the lock, nothing waits: in place too
    assert runner.calls == []
    db.commit()  # the commit syncs: in the runner
    assert not db.writing and runner.calls == ["commit"]
    db.execute("PRAGMA busy_timeout = 5000")
    holder = sqlite3.connect(tmp_path / "t.sqlite3", isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")  # a `referee` command's write
    threading.Timer(0.2, lambda: holder.execute("ROLLBACK")).start()
    db.cursor().execute("BEGIN IMMEDIATE")
    assert db.writing and runner.calls[-1] == "execute BEGIN IMMEDIATE"  # waited in the runner
    db.rollback()
    assert not db.writing
    assert db.execute("PRAGMA busy_timeout").fetchall() == [(5000,)]
    assert db.execute("SELECT v FROM t").fetchall() == [("a",)]
