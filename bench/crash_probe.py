"""Probe what SQLite's synchronous setting changes (WAL mode), for docs/crash-safety.md.

Run: .venv/bin/python bench/crash_probe.py [--kills 5] [--seed 1] [--commits 100] [--executes 300]

For FULL (the store's setting) and NORMAL, side by side in one run:

1. fsyncs: 100 one-row commits under `strace -f -c -e trace=fsync,fdatasync` (skipped with a note
   when strace is missing): FULL syncs the WAL at every commit, NORMAL only at checkpoints.
2. SIGKILL: a child process calls `Store.execute` in a loop and prints each acknowledged version;
   it is SIGKILLed `--kills` times at seeded random moments and started again on the same file.
   Afterwards: the highest acknowledged version against the stored one, and `PRAGMA
   integrity_check`. A process kill cannot tell FULL from NORMAL (the kernel keeps the writes);
   only a power cut can, which no script can make.
3. Cost: the mean time of one `Store.execute` in one process, FULL against NORMAL (a ratio, as
   both are measured in the same run on the same machine).

The last line is exactly `fsyncs_full=<n> fsyncs_normal=<n> lost_full=<n> lost_normal=<n> ratio=<x>`
(fsyncs -1 without strace; lost = acknowledged but not stored).
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SYNC_CHILD = r"""
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA journal_mode=WAL"); c.execute(f"PRAGMA synchronous={sys.argv[2]}")
c.execute("CREATE TABLE t (x)")
for i in range(int(sys.argv[3])):
    c.execute("BEGIN IMMEDIATE"); c.execute("INSERT INTO t VALUES (?)", (i,)); c.execute("COMMIT")
"""

STORE_CHILD = r"""
import sys, time
sys.path.insert(0, sys.argv[5])
from sqlalchemy import event
from referee.store import Store, make_engine, migrate
from tests.store.test_store import CounterMode
url, sync, gid, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
engine = make_engine(url)

@event.listens_for(engine, "connect")
def _sync(dbapi, _record):
    dbapi.execute(f"PRAGMA synchronous={sync}")  # after make_engine's own hook (FULL)

migrate(engine)
store = Store(engine, modes={"counter": CounterMode()})
if gid == "-":
    print(store.create_game("counter", {}, at=0.0, by="referee").game_id, flush=True)
    sys.exit(0)
started, n = time.perf_counter(), 0
while count == 0 or n < count:
    print(store.execute(gid, {"type": "add", "n": 1}, at=0.0, by="referee").version, flush=True)
    n += 1
print(f"mean {(time.perf_counter() - started) / max(n, 1)}", flush=True)
"""


def fsyncs(folder: Path, sync: str, commits: int) -> int:
    """Count fsync/fdatasync calls of `commits` one-row commits, or -1 without strace."""
    strace = shutil.which("strace")
    if strace is None:
        return -1
    db = folder / f"sync-{sync}.sqlite3"
    out = subprocess.run(
        [
            strace,
            "-f",
            "-c",
            "-e",
            "trace=fsync,fdatasync",
            sys.executable,
            "-c",
            SYNC_CHILD,
            str(db),
            sync,
            str(commits),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    return sum(
        int(m.group(1))
        for m in re.finditer(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?f(?:data)?sync$", out, re.M)
    )


def store_child(url: str, sync: str, gid: str, count: int) -> list[str]:
    return [sys.executable, "-c", STORE_CHILD, url, sync, gid, str(count), str(ROOT)]


def kill_probe(folder: Path, sync: str, kills: int, rng: random.Random) -> tuple[int, int, str]:
    """SIGKILL a Store.execute loop `kills` times; return (acknowledged, stored, integrity)."""
    url = f"sqlite:///{folder / f'kill-{sync}.sqlite3'}"
    gid = subprocess.run(store_child(url, sync, "-", 0), capture_output=True, text=True, check=True).stdout.strip()
    acked = 0
    for _ in range(kills):
        proc = subprocess.Popen(store_child(url, sync, gid, 0), stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        first = proc.stdout.readline().strip()  # the clock starts at its first commit, not its imports
        acked = max(acked, int(first)) if first.isdigit() else acked
        until = time.monotonic() + rng.uniform(0.2, 1.5)
        while time.monotonic() < until:
            line = proc.stdout.readline().strip()
            if line.isdigit():
                acked = max(acked, int(line))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        for line in proc.stdout:  # acknowledgements already printed when the kill came
            if line.strip().isdigit():
                acked = max(acked, int(line))
    with sqlite3.connect(folder / f"kill-{sync}.sqlite3") as conn:
        stored = int(conn.execute("SELECT max(seq) FROM events").fetchone()[0])
        integrity = str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    return acked, stored, integrity


def execute_cost(folder: Path, sync: str, executes: int) -> float:
    """Mean seconds of one Store.execute in one process."""
    url = f"sqlite:///{folder / f'cost-{sync}.sqlite3'}"
    gid = subprocess.run(store_child(url, sync, "-", 0), capture_output=True, text=True, check=True).stdout.strip()
    out = subprocess.run(store_child(url, sync, gid, executes), capture_output=True, text=True, check=True).stdout
    return float(out.strip().splitlines()[-1].split()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--commits", type=int, default=100)
    parser.add_argument("--executes", type=int, default=300)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    folder = Path(tempfile.mkdtemp(prefix="referee-crash-probe-"))  # on disk: fsync must cost what it costs
    try:
        result: dict[str, dict[str, object]] = {}
        for sync in ("FULL", "NORMAL"):
            n = fsyncs(folder, sync, args.commits)
            acked, stored, integrity = kill_probe(folder, sync, args.kills, rng)
            cost = execute_cost(folder, sync, args.executes)
            # Stored beyond acknowledged is fine (committed, the ack died with the process: the
            # client id case); acknowledged beyond stored would be a lost entry.
            result[sync] = {"fsyncs": n, "lost": max(0, acked - stored), "cost": cost}
            print(
                f"{sync:6}  fsyncs for {args.commits} commits: {n if n >= 0 else 'n/a (no strace)'};  "
                f"{args.kills} SIGKILLs: acknowledged {acked}, stored {stored}, integrity {integrity};  "
                f"Store.execute {cost * 1000:.1f} ms"
            )
        ratio = float(result["FULL"]["cost"]) / float(result["NORMAL"]["cost"])  # type: ignore[arg-type]
        print(
            f"fsyncs_full={result['FULL']['fsyncs']} fsyncs_normal={result['NORMAL']['fsyncs']} "
            f"lost_full={result['FULL']['lost']} lost_normal={result['NORMAL']['lost']} ratio={ratio:.2f}"
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
