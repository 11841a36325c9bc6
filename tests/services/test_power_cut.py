"""Power cuts: every acknowledged entry survives one, none is there twice, and the database opens clean.

A kill -9 proves little about durability: the operating system still writes the killed process's
page cache out. Here the instance folder lives on a filesystem that loses every write not yet
fsynced when the power goes (tests/services/lazyfs.py), and a disk that fails one fsync with EIO,
as Linux reports a failing disk (once, the pages then marked clean: "fsyncgate").

1. The harness catches a loss: the store, its SQLite set to `synchronous=OFF`, loses acknowledged
   entries at a cut. With the product's own settings it loses none, also across a failed fsync.
2. The real `referee serve`, two air-raid games and twenty phones (tests/services/test_kill.py's):
   twenty power cuts during their burst of reports, one of them after an fsync of the `-wal` that
   failed. After each cut the server starts again on what the disk kept; afterwards every
   acknowledged entry is in the log exactly once, and the log and snapshots replay to the state.

Run: `.venv/bin/python -m pytest -q tests/services/test_power_cut.py` (about 1-2 minutes). Needs
/dev/fuse, fusermount3 (Debian's fuse3) and mfusepy (the test extra). See docs/crash-safety.md.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from ..conftest import skip_or_fail
from ..live_server import ROOT, Server
from . import test_kill
from .test_kill import Ledger, Phone, check_store, phones_of, set_up_game

try:
    from .lazyfs import LazyFS
except (ImportError, OSError) as exc:  # mfusepy absent, or no libfuse to load
    LazyFS = None  # type: ignore[assignment,misc]
    WHY = f"no FUSE library: {exc}"
else:
    WHY = "" if os.path.exists("/dev/fuse") and shutil.which("fusermount3") else "no /dev/fuse or fusermount3"


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[tuple[LazyFS, Path]]:
    """A lazy filesystem mounted on a new folder for the test: (it, the folder); unmounted after, whatever happens."""
    if WHY:
        skip_or_fail(WHY)  # under CI (REFEREE_REQUIRE_SERVICES=1) a missing FUSE fails
    fs = LazyFS()
    folder = tmp_path / "disk"
    fs.mount(folder)
    try:
        yield fs, folder
    finally:
        fs.unmount()


SEED = 20261207

# --- 1. the store alone, in a child process: the harness catches a loss ---------------------------

WRITER = """
import sys, threading
from sqlalchemy import event
from referee.store import Store, StoreBusy, make_engine
from tests.store.test_store import CounterMode

db, synchronous, gid = sys.argv[1:4]
engine = make_engine(f"sqlite:///{db}")
if synchronous != "FULL":
    @event.listens_for(engine, "connect")
    def _weaker(dbapi_connection, _record):  # after make_engine's own FULL
        dbapi_connection.execute(f"PRAGMA synchronous={synchronous}")
store = Store(engine, modes={"counter": CounterMode()})
said = threading.Lock()

def writer(w):
    for k in range(1_000_000):
        try:
            store.execute(gid, {"type": "add", "n": 1}, at=float(k), by=f"w{w}", client_id=f"w{w}-{k}")
        except StoreBusy:
            continue  # not acknowledged: the phone would send it again
        with said:
            sys.stdout.write(f"w{w}-{k}\\n")  # acknowledged
            sys.stdout.flush()

for w in range(20):
    threading.Thread(target=writer, args=(w,), daemon=True).start()
threading.Event().wait()
"""


def _stored_client_ids(db: Path) -> set[str]:
    connection = sqlite3.connect(db)
    try:
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        return {row[0] for row in connection.execute("SELECT client_id FROM events WHERE client_id IS NOT NULL")}
    finally:
        connection.close()


def _cuts_of_the_store(
    fs: LazyFS, disk: Path, synchronous: str, cuts: int, fail_fsync_at: int | None = None
) -> list[int]:
    """Run 20 writer threads on the lazy disk; cut the power `cuts` times; return the entries lost at each."""
    from referee.store import Store, make_engine, migrate
    from tests.store.test_store import CounterMode

    rng = random.Random(SEED)
    lost: list[int] = []
    db = disk / "referee.sqlite3"
    engine = make_engine(f"sqlite:///{db}")
    migrate(engine)
    gid = Store(engine, modes={"counter": CounterMode()}).create_game("counter", {}, at=0.0, by="referee").game_id
    engine.dispose()
    acknowledged: set[str] = set()
    for cut in range(cuts):
        child = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db), synchronous, gid],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        assert child.stdout is not None
        want = rng.randrange(50, 300)
        for n, line in enumerate(child.stdout):
            acknowledged.add(line.strip())
            if n == 20 and cut == fail_fsync_at:
                fs.fail_next_fsync("-wal")
            if n >= want:
                break
        child.send_signal(signal.SIGKILL)
        child.wait(10)
        fs.power_cut()
        stored = _stored_client_ids(db)
        lost.append(len(acknowledged - stored))
        acknowledged &= stored  # what a cut lost is counted once
    if fail_fsync_at is not None:
        assert fs.failed_syncs == 1, "the injected EIO was met"
    assert fs.lost_pages > 0, "every cut found pages not yet synced: the power went mid-write"
    return lost


def test_the_harness_catches_a_loss_when_sqlite_does_not_sync(disk: tuple[LazyFS, Path]) -> None:
    lost = _cuts_of_the_store(*disk, "OFF", cuts=3)
    assert sum(lost) > 0, f"with synchronous=OFF a cut must lose acknowledged entries: {lost}"


def test_the_store_loses_no_acknowledged_entry_at_a_cut_nor_after_a_failed_fsync(disk: tuple[LazyFS, Path]) -> None:
    lost = _cuts_of_the_store(*disk, "FULL", cuts=4, fail_fsync_at=1)
    assert lost == [0, 0, 0, 0]


# --- 2. the real server, twenty phones, twenty cuts --------------------------------------------------

CUTS = 20
GAMES = 2  # 2 bases and 8 pilots a game: twenty phones


def test_twenty_phones_and_twenty_power_cuts_lose_nothing_and_double_nothing(
    disk: tuple[LazyFS, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Twenty restarts take a minute: the phones' patience is longer than test_kill's.
    monkeypatch.setattr(test_kill, "WORK_DEADLINE", 300.0)
    rng = random.Random(SEED)
    fs, folder = disk
    instance = folder / "instance"
    instance.mkdir()
    settings = instance / "referee.toml"
    settings.write_text("SNAPSHOT_EVERY = 10\n", encoding="utf-8")
    with settings.open("rb") as written:  # an operator's file, on the disk long before the evening
        os.fsync(written.fileno())
    server = Server(instance)
    ledger = Ledger()
    cuts: list[int] = []
    try:
        server.start()
        referee = Phone(server.base, "referee")
        referee.opener.open(server.link, timeout=10).read()
        with ThreadPoolExecutor(GAMES) as pool:
            games = list(pool.map(lambda _n: set_up_game(referee, ledger), range(GAMES)))
        setup_entries = len(ledger.acks)

        phones = phones_of(games, server.base, ledger)
        assert len(phones) == 20

        errors: list[BaseException] = []

        def run(fn: Any, args: tuple[Any, ...]) -> None:
            try:
                fn(*args)
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=run, args=(fn, args), daemon=True) for _phone, fn, args in phones]
        # At least 48 entries to come (a game: 16 dogfight reports, 8 announcements, a report a FIGHT).
        points = sorted(rng.sample(range(setup_entries + 2, setup_entries + 46), CUTS))
        failing = rng.randrange(CUTS // 2)  # after this cut's restart, one fsync of the -wal fails
        for t in threads:
            t.start()
        for n, point in enumerate(points):
            while not ledger.wait_for(point, 1.0):
                if not any(t.is_alive() for t in threads):
                    break
            else:
                pass
            if not any(t.is_alive() for t in threads):
                break
            time.sleep(rng.uniform(0.0, 0.05))  # requests in flight, commits under way
            server.kill()
            fs.power_cut()
            cuts.append(point)
            server.start()
            if n == failing:
                # The next commit, a phone's entry, fails to sync; the next cut comes after it.
                # (At a restart instead, `referee serve` stops: "cannot store the referee's link".)
                fs.fail_next_fsync("-wal")
                deadline = time.monotonic() + 60
                while not fs.failed_syncs and time.monotonic() < deadline:
                    time.sleep(0.01)
        for t in threads:
            t.join(test_kill.WORK_DEADLINE)
        assert not any(t.is_alive() for t in threads), "a phone is still at work"
        assert not errors, errors[:3]
        assert len(cuts) == CUTS, f"the traffic ended before every cut: {cuts}"
        assert fs.failed_syncs == 1, "the failing fsync was met during the traffic"
        assert not ledger.refusals, f"every entry was legal when made: {ledger.refusals[:3]}"
        errors_5xx = [e for phone, _fn, _args in phones for e in phone.server_errors]
        assert not [e for e in errors_5xx if e[0] != 503], f"the server failed, not just went away: {errors_5xx[:3]}"
        logs = {g["id"]: referee.get(f"/api/games/{g['id']}/log.json") for g in games}
        print(
            f"\n{len(ledger.acks) - setup_entries} entries by 20 phones through {CUTS} power cuts; "
            f"{fs.lost_pages} unsynced pages lost; {ledger.retried} entries sent again; "
            f"{len(errors_5xx)} answered 503"
        )
    finally:
        if server.proc and server.proc.poll() is None:
            server.kill()
    db = instance / "referee.sqlite3"
    connection = sqlite3.connect(db)
    assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    connection.close()
    for game in games:
        check_store(db, game, ledger, logs[game["id"]])
