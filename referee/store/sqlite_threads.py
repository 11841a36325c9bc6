"""sqlite3 connections whose blocking calls run elsewhere (in real threads, under gevent).

Under gevent every request and socket is a greenlet of ONE thread. sqlite3 is C code that knows
nothing of gevent: while a statement waits for SQLite's write lock (busy_timeout, up to 10 s) or
a commit fsyncs (`synchronous=FULL`), no greenlet runs, and every page and socket of the server
waits. Worse, the greenlet holding the lock cannot finish while another one waits for it in C:
the hub stays frozen until the busy timeout. `OffloadedConnection` hands those calls to a runner
(referee.realtime.server: gevent's thread pool, which the calling greenlet waits on cooperatively);
everything else (attributes, fetching rows already stepped to) stays on the caller's thread.

Inside a write transaction (after `BEGIN IMMEDIATE` returned) the statements run on the caller's
thread too: the connection holds SQLite's write lock, so in WAL mode nothing in them waits for
another connection, and with `synchronous=FULL` only the commit fsyncs. The BEGIN itself is
tried in place, SQLite told not to wait: this process's writers queue at a gate before it, so
only another process can hold the lock, and only then does the BEGIN wait in another thread.
A report is then one hop (the COMMIT that fsyncs), not one per statement. A greenlet cannot
yield in between: the statements are C calls that never switch.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol, TypeVar

T = TypeVar("T")

# The statement that takes SQLite's write lock at once (referee.store's "begin" listener).
WRITE_BEGIN = "BEGIN IMMEDIATE"
# The statement a read-only transaction begins with: it takes no lock and reads nothing yet.
READ_BEGIN = "BEGIN"
_IN_PLACE = (READ_BEGIN,)


class Runner(Protocol):
    """Run `fn(*args)` somewhere that may block, and return its result (or raise its error)."""

    def __call__(self, fn: Callable[..., T], *args: Any) -> T:
        """Return fn(*args), run where blocking harms no one."""
        ...


class OffloadedCursor:
    """A sqlite3 cursor whose execute calls go through the runner."""

    def __init__(self, cursor: sqlite3.Cursor, run: Runner, owner: OffloadedConnection) -> None:
        """Wrap `cursor`; `run` runs its statements, unless `owner` holds the write lock."""
        self._cursor = cursor
        self._run = run
        self._owner = owner

    def _call(self, fn: Callable[..., T], *args: Any) -> T:
        if self._owner.writing:
            return fn(*args)
        return self._run(fn, *args)

    def execute(self, sql: str, parameters: Any = ()) -> OffloadedCursor:
        """Run one statement (a write may wait for SQLite's lock in here)."""
        if sql.startswith(WRITE_BEGIN):
            self._owner.begin_writing(lambda: self._begin(sql, parameters))
            return self
        if sql in _IN_PLACE:
            # A deferred BEGIN only marks the transaction open (the first read takes the lock):
            # nothing in it waits or touches the disk, so a read costs one hop, not two.
            self._cursor.execute(sql, parameters)
            return self
        if sql[:6].upper() == "PRAGMA" and "busy_timeout" in sql.lower():
            self._owner.forget_patience()
        self._call(self._cursor.execute, sql, parameters)
        return self

    def _begin(self, sql: str, parameters: Any) -> None:
        self._owner.begin_on(self._cursor, sql, parameters)

    def executemany(self, sql: str, seq_of_parameters: Any) -> OffloadedCursor:
        """Run one statement for each set of parameters."""
        self._call(self._cursor.executemany, sql, seq_of_parameters)
        return self

    def fetchall(self) -> list[Any]:
        """Step through the remaining rows (reads pages: may touch the disk)."""
        return self._call(self._cursor.fetchall)

    def fetchmany(self, size: int | None = None) -> list[Any]:
        """Step through up to `size` rows."""
        if size is None:
            return self._call(self._cursor.fetchmany)
        return self._call(self._cursor.fetchmany, size)

    def fetchone(self) -> Any:
        """Step to the next row."""
        return self._cursor.fetchone()  # one row: the hop would cost more than the step

    def __iter__(self) -> Iterator[Any]:
        """Iterate over the remaining rows."""
        return iter(self.fetchall())

    def __getattr__(self, name: str) -> Any:
        """description, rowcount, lastrowid, close, ...: the cursor's own."""
        return getattr(self._cursor, name)


class OffloadedConnection:
    """A sqlite3 connection whose statements, commits and rollbacks go through the runner.

    SQLAlchemy's pysqlite dialect and our connect listener set attributes (isolation_level)
    and register functions on it: those pass straight through to the real connection.
    """

    writing: bool
    """Whether this connection is in a write transaction: it holds SQLite's write lock."""

    def __init__(
        self, connection: sqlite3.Connection, run: Runner, gate: AbstractContextManager[Any] | None = None
    ) -> None:
        """Wrap `connection`; `run` runs its blocking calls; `gate` lets one write transaction in at a time."""
        object.__setattr__(self, "_connection", connection)
        object.__setattr__(self, "_run", run)
        object.__setattr__(self, "_gate", gate)
        object.__setattr__(self, "writing", False)

    def patience(self) -> int:
        """Return the connection's busy timeout in ms: read once, at its first write transaction.

        A `PRAGMA busy_timeout` run through a cursor of this connection makes it read again
        (`forget_patience`): a write transaction restores what was set last.
        """
        known: int | None = self.__dict__.get("_patience")
        if known is None:
            known = int(self._connection.execute("PRAGMA busy_timeout").fetchone()[0])
            object.__setattr__(self, "_patience", known)
        return known

    def begin_writing(self, begin: Callable[[], Any]) -> None:
        """Take SQLite's write lock (`begin` runs BEGIN IMMEDIATE), after this process's other writers.

        SQLite makes a writer that finds the lock taken sleep and try again (1 ms, then 2, 5, 10 ...
        up to 100 ms a time): at a hundred reports a second that was seconds of waiting with the
        processor idle. The writers of this process queue at the gate instead, each let in as the
        one before commits; only another process's writer can still make one sleep.
        """
        gate = self._gate
        if gate is not None:
            gate.__enter__()
        try:
            begin()
        except BaseException:
            if gate is not None:
                gate.__exit__(None, None, None)
            raise
        object.__setattr__(self, "writing", True)

    def begin_on(self, cursor: sqlite3.Cursor, sql: str = WRITE_BEGIN, parameters: Any = ()) -> None:
        """Take the write lock on a cursor of this connection here if it is free, else wait for it through the runner.

        This process's writers queue at the gate before this, so the lock is taken only by
        another process (a `referee` command) if at all: SQLite is asked not to wait, and only
        a refusal costs the trip to another thread, where it waits its busy timeout.
        """
        connection = self._connection
        patience = self.patience()
        connection.execute("PRAGMA busy_timeout = 0")
        try:
            cursor.execute(sql, parameters)
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
        finally:
            connection.execute(f"PRAGMA busy_timeout = {patience}")
        self._run(cursor.execute, sql, parameters)

    def _done_writing(self, closed: bool = False) -> None:
        was = self.writing
        object.__setattr__(self, "writing", False if closed else self._connection.in_transaction)
        if was and not self.writing and self._gate is not None:
            try:
                self._gate.__exit__(None, None, None)
            except RuntimeError:  # closed by another thread than the one that began: not its to let go
                pass

    def cursor(self, *args: Any) -> OffloadedCursor:
        """Return a cursor whose statements go through the runner."""
        return OffloadedCursor(self._connection.cursor(*args), self._run, self)

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> OffloadedCursor:
        """Run one statement on a new cursor."""
        return self.cursor().execute(sql, parameters)

    def forget_patience(self) -> None:
        """Forget the busy timeout read: it was set anew (read again at the next write transaction)."""
        object.__setattr__(self, "_patience", None)

    def commit(self) -> None:
        """Commit (fsync with synchronous=FULL; a WAL checkpoint now and then)."""
        if not self._connection.in_transaction:
            self._done_writing()
            return  # nothing to commit: sqlite3 would do nothing, without a hop
        try:
            self._run(self._connection.commit)
        finally:
            self._done_writing()

    def rollback(self) -> None:
        """Roll back (the pool does on every connection it takes back: mostly nothing to undo)."""
        if not self._connection.in_transaction:
            self._done_writing()
            return
        try:
            self._run(self._connection.rollback)
        finally:
            self._done_writing()

    def close(self) -> None:
        """Close (a last checkpoint may run)."""
        try:
            self._run(self._connection.close)
        finally:
            self._done_writing(closed=True)

    def __getattr__(self, name: str) -> Any:
        """Everything else is the real connection's."""
        return getattr(self._connection, name)

    def __setattr__(self, name: str, value: Any) -> None:
        """isolation_level and the like are set on the real connection."""
        setattr(self._connection, name, value)
