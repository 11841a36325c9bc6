"""SQLite commits written at once and made durable after: one fdatasync of the WAL for everyone waiting.

With `synchronous=FULL` SQLite syncs the `-wal` file inside every COMMIT, and in this process the
writers queue at one gate (referee.sqlite_threads): a flush that the disk holds for 20 or 40 ms
(a virtual disk does, now and then) holds every report behind it, and every screen waits for it,
since a push follows its commit. An action's commit is written with `synchronous=NORMAL` instead
(its frames reach the OS, not yet the disk: a killed process still loses nothing), its push goes
out, and only its acknowledgement waits here until the WAL has been synced. One sync covers every
commit written before it started, so the reports that arrive during a slow flush share the next
one (a group commit) and none waits at the gate for the disk.

What the referee promised before still holds: an entry whose acknowledgement a page has seen
survives a pulled plug. What is new: for the moment of a flush, the screens can show an entry
that a power cut then loses; after the restart the server is behind them, and their resync
takes its word (the answer says `reset: true`). See docs/crash-safety.md.

Standard library only: `sync` runs where blocking harms no one (the runner of referee.store).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

# The commits flushed between two checkpoints. The commits left to a flush do not checkpoint
# (referee.sqlite_threads.NO_CHECKPOINT: a checkpoint syncs both files, and they run on the
# event loop's thread); an action writes 4 to 6 pages, so this is about SQLite's own threshold
# of 1,000 pages. Other writers (snapshots, tokens) still checkpoint by themselves.
CHECKPOINT_EVERY = 200


def fdatasync_file(path: str) -> None:
    """Flush a file's data to the disk; nothing if it is gone (SQLite deletes a WAL after its last checkpoint)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        # The last connection's close checkpointed every frame into the database and synced it
        # (WAL mode syncs the database after each checkpoint) before it deleted the WAL.
        return
    try:
        os.fdatasync(fd)
    finally:
        os.close(fd)


def _here(fn: Callable[..., Any], *args: Any) -> Any:
    return fn(*args)


class GroupFlush:
    """Make every commit written so far durable, with one flush at a time shared by all who wait.

    `ticket()` after a commit returns; `wait(ticket)` returns once a flush that began after that
    ticket was taken has finished. Flushes run one at a time, so a waiter that arrives during one
    (which may have begun before its commit) waits for it and then for the next, which every
    waiter that arrived meanwhile shares.
    """

    def __init__(
        self,
        path: str,
        run: Callable[..., Any] | None = None,
        sync: Callable[[str], None] | None = None,
        database: str | None = None,
    ) -> None:
        """Flush the file at `path` (a database's `-wal`), by `sync` (fdatasync), through `run` if given.

        `database`: the SQLite file whose WAL it is, checkpointed every CHECKPOINT_EVERY commits.
        """
        self.path = path
        self.database = database
        # Where the sync and the checkpoint run: the runner itself (no call around it), or here.
        self._call: Callable[..., Any] = run if run is not None else _here
        self._sync = sync or (fdatasync_file if database is None else self._sync_held)
        self._wal: Any = None
        # A plain lock, not a Condition: a report's ticket and its own flush take it three
        # times and wait for no one. Only a waiter that finds a flush under way waits, on an
        # Event made then (`_done`), which that flush sets as it ends.
        self._lock = threading.Lock()
        self._done: threading.Event | None = None
        self._started = 0
        self._finished = 0
        self._flushing = False
        self._commits = 0
        self._checkpointed_at = 0
        self._checkpointing = False
        self._checkpointer: sqlite3.Connection | None = None
        self.flushes = 0
        """Flushes done so far (for the tests and the bench: far fewer than the commits they covered)."""
        self.checkpoints = 0
        """Checkpoints this flush has run so far."""

    def ticket(self) -> int:
        """Return the mark of a commit that has just returned: the flushes begun before it."""
        with self._lock:
            self._commits += 1
            return self._started

    def wait(self, ticket: int) -> None:
        """Return once a flush begun after `ticket` has finished; raise OSError if the flush failed."""
        while True:
            with self._lock:
                if self._finished > ticket:
                    return
                if self._flushing:
                    if self._done is None:
                        self._done = threading.Event()
                    done = self._done
                else:
                    done = None
                    self._flushing = True
                    self._started += 1
                    number = self._started
            if done is not None:
                done.wait()  # for the flush under way; then look again
                continue
            try:
                self._call(self._sync, self.path)
            except BaseException:
                # Nothing is known to be on the disk: the waiters try again, each its own flush.
                self._end_flush(None)
                raise
            checkpoint = self._end_flush(number)
            if checkpoint:
                # Beside, not in, this flush's answer: nobody waits for a checkpoint.
                threading.Thread(target=self._checkpoint_beside, name="referee-checkpoint", daemon=True).start()
            return

    def _end_flush(self, number: int | None) -> bool:
        """Mark the flush under way done (`number`) or failed (None), wake who waits; tell whether to checkpoint."""
        with self._lock:
            self._flushing = False
            done, self._done = self._done, None
            checkpoint = False
            if number is not None:
                self._finished = number
                self.flushes += 1
                checkpoint = (
                    self.database is not None
                    and not self._checkpointing
                    and self._commits - self._checkpointed_at >= CHECKPOINT_EVERY
                )
                if checkpoint:
                    self._checkpointing = True
                    self._checkpointed_at = self._commits
        if done is not None:
            done.set()
        return checkpoint

    def _checkpoint_beside(self) -> None:
        try:
            self._call(self._checkpoint)
        except Exception:  # the flush is done; a checkpoint put off costs nothing yet
            log.warning("checkpoint of %s failed; the next one tries again", self.database, exc_info=True)
        finally:
            with self._lock:
                self._checkpointing = False

    def _connection(self) -> sqlite3.Connection:
        """Return this flush's own connection to the database, opened once and kept.

        Its own: one of the pool's may be in a transaction on another thread. While it is open,
        no other connection's close is the last one, which would delete the WAL (`_sync_held`).
        Opened by the first flush, or else by the first checkpoint, which follows a flush: the
        two never open it at once (flushes run one at a time, and so do checkpoints).
        """
        assert self.database is not None
        if self._checkpointer is None:
            connection = sqlite3.connect(self.database, timeout=0, check_same_thread=False)
            connection.execute("SELECT count(*) FROM sqlite_master").fetchall()  # joins the WAL's users
            self._checkpointer = connection
        return self._checkpointer

    def _sync_held(self, path: str) -> None:
        """Flush the WAL through a descriptor kept open: one system call a flush, one hand-over of the GIL."""
        if self._wal is None:
            self._connection()
            try:
                self._wal = open(path, "rb", buffering=0)  # noqa: SIM115 - kept for the store's life
            except FileNotFoundError:
                return  # nothing written since the last close checkpointed the WAL away
        os.fdatasync(self._wal.fileno())

    def _checkpoint(self) -> None:
        """Copy the WAL's frames into the database, without waiting for any reader or writer."""
        self._connection().execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        self.checkpoints += 1
