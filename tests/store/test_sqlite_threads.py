"""The offloaded SQLite connection: which calls go to the runner (a thread pool under gevent)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from referee.sqlite_threads import OffloadedConnection


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


def test_a_write_transaction_hops_to_the_runner_only_to_begin_and_to_commit(
    conn: tuple[OffloadedConnection, CountingRunner],
) -> None:
    db, runner = conn
    cur = db.cursor()
    cur.execute("BEGIN IMMEDIATE")
    assert db.writing
    cur.execute("SELECT count(*) FROM t")
    assert cur.fetchall() == [(0,)]
    cur.execute("INSERT INTO t (v) VALUES (?)", ("a",))
    cur.executemany("INSERT INTO t (v) VALUES (?)", [("b",), ("c",)])
    db.commit()
    assert runner.calls == ["execute BEGIN IMMEDIATE", "commit"]
    assert not db.writing
    # The pool rolls back every connection it takes back: with no transaction open, no hop.
    db.rollback()
    db.commit()
    assert runner.calls == ["execute BEGIN IMMEDIATE", "commit"]
    # Outside a write transaction every statement goes to the runner again (a read may touch the disk).
    cur.execute("SELECT v FROM t ORDER BY n")
    assert cur.fetchall() == [("a",), ("b",), ("c",)]
    assert runner.calls[2:] == ["execute SELECT v FROM t ORDER BY n", "fetchall"]


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
