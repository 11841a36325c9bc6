"""An action's commit reaches the screens before the disk, and its answer only after: referee.group_flush."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine

from referee import group_flush
from referee import store as store_module
from referee.group_flush import GroupFlush, fdatasync_file
from referee.play import Play
from referee.rules.errors import IllegalAction
from referee.rules.events import Role
from referee.store import MODES, Store, StoreBusy, make_engine, migrate

from .test_sqlite_threads import CountingRunner
from .test_store import CounterMode

# --- GroupFlush on its own -----------------------------------------------------------------------


class SlowDisk:
    """A sync that takes `seconds` and remembers when each one ran."""

    def __init__(self, seconds: float = 0.05) -> None:
        self.seconds = seconds
        self.runs: list[tuple[float, float]] = []
        self.lock = threading.Lock()
        self.fail_next = 0

    def __call__(self, path: str) -> None:
        start = time.monotonic()
        time.sleep(self.seconds)
        with self.lock:
            if self.fail_next:
                self.fail_next -= 1
                raise OSError(5, "Input/output error")
            self.runs.append((start, time.monotonic()))


def test_waiters_during_a_flush_share_the_next_one_and_each_waits_for_a_flush_begun_after_its_commit() -> None:
    disk = SlowDisk(0.05)
    flush = GroupFlush("unused", sync=disk)
    done: list[tuple[float, float]] = []  # (when the commit returned, when its wait did)
    lock = threading.Lock()

    def writer(delay: float) -> None:
        time.sleep(delay)
        committed = time.monotonic()
        flush.wait(flush.ticket())
        with lock:
            done.append((committed, time.monotonic()))

    threads = [threading.Thread(target=writer, args=(i * 0.004,)) for i in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(done) == 30
    # 30 commits over 0.12 s against 0.05 s a flush: a handful of flushes, not thirty.
    assert 2 <= flush.flushes == len(disk.runs) <= 6, disk.runs
    for committed, returned in done:
        # Some flush began after this commit and ended before its wait returned.
        assert any(committed <= start and end <= returned for start, end in disk.runs), (committed, disk.runs)


def test_a_failed_flush_is_raised_to_its_waiters_and_the_next_wait_flushes_again() -> None:
    disk = SlowDisk(0.0)
    flush = GroupFlush("unused", sync=disk)
    disk.fail_next = 1
    ticket = flush.ticket()
    with pytest.raises(OSError):
        flush.wait(ticket)
    assert disk.runs == []
    flush.wait(ticket)
    assert len(disk.runs) == 1
    # Nothing written since: a wait on a ticket taken now still needs a flush that begins later.
    flush.wait(flush.ticket())
    assert len(disk.runs) == 2


def test_the_flush_goes_through_the_runner() -> None:
    ran: list[str] = []

    def runner(fn: Any, *args: Any) -> Any:
        ran.append(args[0])
        return fn(*args)

    flush = GroupFlush("the-wal", run=runner, sync=lambda path: None)
    flush.wait(flush.ticket())
    assert ran == ["the-wal"]


def test_fdatasync_of_a_gone_file_is_nothing_and_of_a_file_is_a_sync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fdatasync_file(str(tmp_path / "never-made-wal"))
    synced: list[str] = []
    real = os.fdatasync

    def spy(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr(os, "fdatasync", spy)
    wal = tmp_path / "x-wal"
    wal.write_bytes(b"frames")
    fdatasync_file(str(wal))
    assert synced == [str(wal)]


# --- In the store ------------------------------------------------------------------------------


@pytest.fixture
def mode(monkeypatch: pytest.MonkeyPatch) -> CounterMode:
    """Register the store tests' counter mode."""
    m = CounterMode()
    monkeypatch.setitem(MODES, "counter", m)
    return m


@pytest.fixture
def file_engine(tmp_path: Path) -> Any:
    engine = make_engine(f"sqlite:///{tmp_path / 'flush.sqlite3'}")
    migrate(engine)
    yield engine
    engine.dispose()


def _synchronous(engine: Engine) -> list[int]:
    """Return the synchronous level of every connection the pool holds now (2 = FULL)."""
    levels = []
    held = [engine.raw_connection() for _ in range(engine.pool.checkedin())]
    for connection in held:
        levels.append(int(connection.cursor().execute("PRAGMA synchronous").fetchone()[0]))
    for connection in held:
        connection.close()
    return levels


def test_an_action_left_to_flush_is_flushed_once_waited_for_and_its_connection_is_strict_again(
    file_engine: Engine, mode: CounterMode, tmp_path: Path
) -> None:
    store = Store(file_engine)
    assert store.group_flush is not None and store.group_flush.path == str(tmp_path / "flush.sqlite3") + "-wal"
    disk = SlowDisk(0.0)
    store.group_flush._sync = disk
    gid = store.create_game("counter", {"start": 0}, at=1.0, by="referee").game_id
    plain = store.execute(gid, {"type": "add", "n": 1}, at=2.0, by="referee")
    assert plain.flush_ticket is None
    store.flushed(plain)
    assert disk.runs == []  # synced at its commit: nothing to wait for
    left = store.execute(gid, {"type": "add", "n": 2}, at=3.0, by="referee", defer_flush=True, client_id="k1")
    assert left.flush_ticket is not None and disk.runs == []
    assert _synchronous(file_engine) and set(_synchronous(file_engine)) == {2}
    # Another engine (another process) reads it at once: written, only not yet synced.
    other = make_engine(f"sqlite:///{tmp_path / 'flush.sqlite3'}")
    try:
        assert Store(other).load(gid)[0].total == 3
    finally:
        other.dispose()
    store.flushed(left)
    assert len(disk.runs) == 1
    # The same entry sent again is answered only once its original is on the disk too.
    again = store.execute(gid, {"type": "add", "n": 2}, at=4.0, by="referee", defer_flush=True, client_id="k1")
    assert again.duplicate and again.flush_ticket is not None
    store.flushed(again)
    assert len(disk.runs) == 2


class RollbackFails:
    """A kept connection whose rollback fails and leaves its transaction open (a disk that went away)."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.closed = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.connection, name)

    def rollback(self) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    def close(self) -> None:
        self.closed = True
        self.connection.close()


def test_actions_left_to_flush_share_one_kept_connection_replaced_once_it_cannot_roll_back(
    file_engine: Engine, mode: CounterMode
) -> None:
    store = Store(file_engine)
    assert store.group_flush is not None
    store.group_flush._sync = SlowDisk(0.0)
    gid = store.create_game("counter", {"start": 0}, at=1.0, by="referee").game_id
    store.flushed(store.execute(gid, {"type": "add", "n": 1}, at=2.0, by="referee", defer_flush=True))
    kept = store._writer
    assert kept is not None
    assert int(kept.execute("PRAGMA synchronous").fetchone()[0]) == 1  # NORMAL: the flush syncs
    store.flushed(store.execute(gid, {"type": "add", "n": 1}, at=3.0, by="referee", defer_flush=True))
    assert store._writer is kept
    assert set(_synchronous(file_engine)) <= {2}  # the pool's connections still sync at commit
    # A refused action is rolled back: the connection stays.
    with pytest.raises(IllegalAction):
        store.execute(gid, {"type": "add", "n": 0}, at=4.0, by="referee", defer_flush=True)
    assert store._writer is kept and not kept.in_transaction
    broken = RollbackFails(kept)
    store._writer = broken
    with pytest.raises(sqlite3.OperationalError):
        store.execute(gid, {"type": "add", "n": 0}, at=5.0, by="referee", defer_flush=True)
    assert broken.closed and store._writer is None  # never used again
    store.flushed(store.execute(gid, {"type": "add", "n": 5}, at=6.0, by="referee", defer_flush=True))
    assert store._writer is not None and store._writer is not kept
    assert store.load(gid)[0].total == 7


def test_a_disk_that_refuses_the_flush_is_a_store_error(file_engine: Engine, mode: CounterMode) -> None:
    store = Store(file_engine)
    assert store.group_flush is not None
    disk = SlowDisk(0.0)
    disk.fail_next = 1
    store.group_flush._sync = disk
    gid = store.create_game("counter", {"start": 0}, at=1.0, by="referee").game_id
    left = store.execute(gid, {"type": "add", "n": 2}, at=3.0, by="referee", defer_flush=True, client_id="c1")
    with pytest.raises(StoreBusy, match="disk"):
        store.flushed(left)
    # Sent again with its client id: answered as saved once a flush succeeds.
    again = store.execute(gid, {"type": "add", "n": 2}, at=3.0, by="referee", defer_flush=True, client_id="c1")
    assert again.duplicate and again.version == left.version
    store.flushed(again)
    assert len(disk.runs) == 1


def test_a_store_in_memory_has_no_flush_to_leave() -> None:
    assert Store(create_engine("sqlite://")).group_flush is None


# --- In the play service -----------------------------------------------------------------------


class Screens:
    """A publisher that notes how many flushes had run when the push went out."""

    def __init__(self, disk: SlowDisk, fail: bool = False) -> None:
        self.disk = disk
        self.fail = fail
        self.flushes_at_push: list[int] = []

    def publish(
        self, game_id: str, state: Any, since: int | None = None, device_id: str | None = None
    ) -> Mapping[tuple[Role, str], Any]:
        self.flushes_at_push.append(len(self.disk.runs))
        if self.fail:
            raise RuntimeError("a push that broke")
        return {}


def test_the_screens_get_the_push_before_the_flush_and_the_answer_comes_after_it(
    file_engine: Engine, mode: CounterMode
) -> None:
    store = Store(file_engine)
    assert store.group_flush is not None
    disk = SlowDisk(0.0)
    store.group_flush._sync = disk
    screens = Screens(disk)
    play = Play(store, screens)
    mode.automatic = lambda state: None  # type: ignore[attr-defined] # nothing happens by itself
    gid = store.create_game("counter", {"start": 0}, at=1.0, by="referee").game_id
    acted = play.act(gid, "referee", {"type": "add", "n": 1}, client_id="a1")
    assert screens.flushes_at_push == [0]  # pushed before any flush
    assert len(disk.runs) == 1  # and answered after one
    assert acted.result.version == 2
    # A push that fails is logged, and the action, stored, is flushed and answered as stored.
    play.publisher = Screens(disk, fail=True)
    again = play.act(gid, "referee", {"type": "add", "n": 1}, client_id="a2")
    assert again.result.version == 3 and again.pushed == {}
    assert len(disk.runs) == 2


def test_an_action_left_to_flush_commits_in_place_and_only_its_flush_goes_to_the_runner(
    tmp_path: Path, mode: CounterMode, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = CountingRunner()
    monkeypatch.setattr(store_module, "_sqlite_runner", runner)
    engine = make_engine(f"sqlite:///{tmp_path / 'pool.sqlite3'}")
    try:
        migrate(engine)
        store = Store(engine)
        gid = store.create_game("counter", {"start": 0}, at=1.0, by="referee").game_id
        store.execute(gid, {"type": "add", "n": 1}, at=2.0, by="referee")  # warm: the game is in the cache
        runner.calls.clear()
        left = store.execute(gid, {"type": "add", "n": 1}, at=3.0, by="referee", defer_flush=True)
        assert runner.calls == []  # no trip to the thread pool on the way to the push
        store.flushed(left)
        assert runner.calls == [f"_sync_held {tmp_path / 'pool.sqlite3'}-wal"]
        # The pool opens a connection in place of the one the store now keeps for such commits.
        store.execute(gid, {"type": "add", "n": 1}, at=4.0, by="referee")
        runner.calls.clear()
        store.execute(gid, {"type": "add", "n": 1}, at=5.0, by="referee")
        assert runner.calls == ["commit"]  # everything else commits, and syncs, in the pool
        runner.calls.clear()
        left = store.execute(gid, {"type": "add", "n": 1}, at=6.0, by="referee", defer_flush=True)
        assert runner.calls == []  # the kept connection: no pragma, no trip to the thread pool
    finally:
        engine.dispose()


def test_the_commits_left_to_flush_are_checkpointed_beside_the_flush(
    file_engine: Engine, mode: CounterMode, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(group_flush, "CHECKPOINT_EVERY", 5)
    store = Store(file_engine)
    flush = store.group_flush
    assert flush is not None
    gid = store.create_game("counter", {"start": 0}, at=1.0, by="referee").game_id
    database = tmp_path / "flush.sqlite3"
    before = database.stat().st_size
    for n in range(12):
        store.flushed(store.execute(gid, {"type": "add", "n": 1}, at=2.0 + n, by="referee", defer_flush=True))
    deadline = time.monotonic() + 10
    while flush.checkpoints < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    # At the 5th and 10th commit, unless the first was still running at the 10th: one is put off.
    assert 1 <= flush.checkpoints <= 2 and flush.flushes == 12
    assert database.stat().st_size > before  # the events reached the database file itself
    assert Store(file_engine).load(gid)[0].total == 12


def test_the_wal_is_synced_through_one_descriptor_kept_open(
    file_engine: Engine, mode: CounterMode, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[tuple[int, str]] = []
    real = os.fdatasync

    def spy(fd: int) -> None:
        synced.append((fd, os.readlink(f"/proc/self/fd/{fd}")))
        real(fd)

    monkeypatch.setattr(os, "fdatasync", spy)
    store = Store(file_engine)
    gid = store.create_game("counter", {"start": 0}, at=1.0, by="referee").game_id
    for n in range(3):
        store.flushed(store.execute(gid, {"type": "add", "n": 1}, at=2.0 + n, by="referee", defer_flush=True))
    wal = f"{tmp_path / 'flush.sqlite3'}-wal"
    assert [path for _fd, path in synced] == [wal] * 3
    assert len({fd for fd, _path in synced}) == 1
    # The pool's connections all closed: the flush's own keeps the WAL (a close by the last one deletes it).
    file_engine.dispose()
    assert Path(wal).exists()
