"""Accepted reports per second through the real write path, against bare INSERTs on the same engine.

    .venv/bin/python bench/ingest.py [--db sqlite|postgres|both] [--seconds 8] [--writers 4] [--no-http]

Each writer (a thread) plays its own air-raid game with the property tests' bot (seas, orders,
dogfight and bombing reports, round ends; no voids), starting a new game when one ends, and
counts the actions the rules accepted. Three paths per engine, each for `--seconds`:

- store: Store.execute in-process (one write transaction per report, the game row locked,
  state from the store's cache, events + game row + snapshots written);
- http: POST /api/games/<id>/actions on a real `referee serve` (auth, JSON, the view answer and
  the Socket.IO push to nobody), with the same bot choosing from the events the answers carry;
- baseline: one bare INSERT of a row as large as an average report's event rows, one
  transaction each, by the same number of threads on an engine made the same way (SQLite: the
  store's pragmas, WAL, synchronous=FULL, BEGIN IMMEDIATE).

The ratio store/baseline is our overhead per report. SQLite is a file in a temporary folder;
PostgreSQL (127.0.0.1:5432, db `test`) gets a fresh schema that is dropped at the end.
"""

from __future__ import annotations

import argparse
import json
import random
import secrets
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import requests  # noqa: E402
from sqlalchemy import Column, Integer, MetaData, String, Table, Text, insert  # noqa: E402

from referee.rules import airraid  # noqa: E402
from referee.rules.errors import RulesError  # noqa: E402
from referee.store import MODES, Store, make_engine, migrate  # noqa: E402
from tests.airraid_helpers import PLAYERS, ruleset_data  # noqa: E402
from tests.live_server import Server  # noqa: E402
from tests.rules.test_airraid_properties import bot_action  # noqa: E402

PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
MODES.setdefault(airraid.MODE, airraid)  # type: ignore[arg-type]  # the rules registry has it already; kept for older trees
CREATE = {
    "type": "create_game",
    "ruleset": ruleset_data(),
    "teams": [{"name": "Eagles", "players": PLAYERS["A"]}, {"name": "Sharks", "players": PLAYERS["B"]}],
}


@dataclass
class Tally:
    """What the writers of one path did."""

    accepted: int = 0
    refused: int = 0
    row_bytes: int = 0
    rows: int = 0
    latencies: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def refuse(self) -> None:
        with self.lock:
            self.refused += 1

    def add(self, seconds: float, events: list[dict[str, Any]]) -> None:
        with self.lock:
            self.accepted += 1
            self.latencies.append(seconds)
            for ev in events:
                self.rows += 1
                self.row_bytes += len(json.dumps(ev["data"], separators=(",", ":"))) + len(ev["kind"]) + len(ev["by"])


def run_writers(writers: int, seconds: float, work: Callable[[int, float, Tally], None]) -> tuple[Tally, float]:
    """Run `work(i, stop_at, tally)` in `writers` threads; return the tally and the wall time."""
    tally = Tally()
    t0 = time.perf_counter()
    stop_at = t0 + seconds
    threads = [threading.Thread(target=work, args=(i, stop_at, tally)) for i in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return tally, time.perf_counter() - t0


def store_path(store: Store) -> Callable[[int, float, Tally], None]:
    """A writer that plays games through Store.execute."""

    def work(i: int, stop_at: float, tally: Tally) -> None:
        rng = random.Random(i)
        while time.perf_counter() < stop_at:
            created = store.create_game(airraid.MODE, CREATE, at=time.time(), by="referee")
            gid, state = created.game_id, created.state
            while state.phase != "over" and time.perf_counter() < stop_at:
                picked = bot_action(state, rng, void_rate=0.0)
                if picked is None:
                    break
                by, action = picked
                t = time.perf_counter()
                try:
                    result = store.execute(gid, action, at=time.time(), by=by)
                except RulesError:
                    tally.refuse()
                    continue
                tally.add(time.perf_counter() - t, [e.to_dict() for e in result.events])
                state = result.state

    return work


def http_path(server: Server) -> Callable[[int, float, Tally], None]:
    """A writer that plays games through POST /api/games/<id>/actions as the referee."""
    mode = MODES[airraid.MODE]

    def work(i: int, stop_at: float, tally: Tally) -> None:
        rng = random.Random(100 + i)
        ref = requests.Session()
        ref.get(server.link, allow_redirects=False, timeout=10)
        while time.perf_counter() < stop_at:
            body = {"teams": CREATE["teams"]}
            gid = ref.post(f"{server.base}/api/games", json=body, timeout=30).json()["game"]
            log = ref.get(f"{server.base}/api/games/{gid}/events", timeout=30).json()["events"]
            state = mode.replay([Store._event_from_dict(mode, e) for e in log])
            while state.phase != "over" and time.perf_counter() < stop_at:
                picked = bot_action(state, rng, void_rate=0.0)
                if picked is None:
                    break
                _by, action = picked
                t = time.perf_counter()
                answer = ref.post(f"{server.base}/api/games/{gid}/actions", json={"action": action}, timeout=30)
                elapsed = time.perf_counter() - t
                if answer.status_code != 200:
                    tally.refuse()
                    continue
                events = answer.json()["events"]
                tally.add(elapsed, events)
                for e in events:
                    state = mode.fold(state, Store._event_from_dict(mode, e))

    return work


def baseline_path(url: str, engine_kwargs: dict[str, Any], row_bytes: int) -> Callable[[int, float, Tally], None]:
    """A writer of bare INSERTs, one transaction each, of rows `row_bytes` large."""
    engine = make_engine(url, **engine_kwargs)
    meta = MetaData()
    rows = Table(
        f"bench_rows_{secrets.token_hex(4)}",
        meta,
        Column("game_id", String(32), primary_key=True),
        Column("seq", Integer, primary_key=True),
        Column("data", Text, nullable=False),
    )
    meta.create_all(engine)
    payload = "x" * row_bytes

    def work(i: int, stop_at: float, tally: Tally) -> None:
        seq = 0
        while time.perf_counter() < stop_at:
            seq += 1
            t = time.perf_counter()
            with engine.begin() as conn:
                conn.execute(insert(rows).values(game_id=f"w{i}", seq=seq, data=payload))
            with tally.lock:
                tally.accepted += 1
                tally.latencies.append(time.perf_counter() - t)

    return work


def report(name: str, tally: Tally, wall: float) -> float:
    """Print one path's figures; return its rate."""
    rate = tally.accepted / wall
    lat = sorted(tally.latencies) or [0.0]
    p50 = statistics.median(lat) * 1000
    p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000
    print(
        f"  {name:<9} {rate:8.1f} /s   ({tally.accepted} accepted, {tally.refused} refused; "
        f"p50 {p50:.1f} ms, p99 {p99:.1f} ms per report)"
    )
    return rate


def bench_engine(db: str, args: argparse.Namespace, tmp: Path) -> None:
    """Measure the three paths on one engine."""
    schema = ""
    if db == "sqlite":
        url = f"sqlite:///{tmp / 'ingest.sqlite3'}"
        engine_kwargs: dict[str, Any] = {}
        server_url = f"sqlite:///{tmp / 'ingest-http.sqlite3'}"
    else:
        import psycopg

        schema = f"bench_ingest_{secrets.token_hex(4)}"
        with psycopg.connect(PG_URL.replace("+psycopg", ""), autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        url = f"{PG_URL}?options=-csearch_path%3D{schema}"
        engine_kwargs = {}
        server_url = url
    try:
        engine = make_engine(url, **engine_kwargs)
        migrate(engine)
        store = Store(engine)
        print(f"{db} ({args.writers} writers, {args.seconds:.0f} s each):")
        tally, wall = run_writers(args.writers, args.seconds, store_path(store))
        store_rate = report("store", tally, wall)
        row_bytes = max(1, tally.row_bytes // max(1, tally.rows))
        events_per_report = tally.rows / max(1, tally.accepted)
        if not args.no_http:
            # The write path, not the rate limit a phone gets (20 writes a second: docs/security.md).
            unlimited = {"REFEREE_POSTS_PER_SECOND": "1000000", "REFEREE_POSTS_BURST": "1000000"}
            server = Server(tmp / f"instance-{db}", database_url=server_url, env=unlimited)
            server.start()
            try:
                tally_h, wall_h = run_writers(args.writers, args.seconds, http_path(server))
            finally:
                server.stop()
            http_rate = report("http", tally_h, wall_h)
        tally_b, wall_b = run_writers(args.writers, args.seconds, baseline_path(url, engine_kwargs, row_bytes))
        base_rate = report("baseline", tally_b, wall_b)
        ratios = f"store/baseline = {store_rate / base_rate:.2f}" + (
            "" if args.no_http else f", http/baseline = {http_rate / base_rate:.2f}"
        )
        print(f"  a report writes {events_per_report:.2f} events of ~{row_bytes} bytes; {ratios}")
        engine.dispose()
    finally:
        if schema:
            import psycopg

            with psycopg.connect(PG_URL.replace("+psycopg", ""), autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA "{schema}" CASCADE')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--no-http", action="store_true", help="skip the HTTP API path")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for db in ("sqlite", "postgres") if args.db == "both" else (args.db,):
            bench_engine(db, args, Path(tmp))


if __name__ == "__main__":
    main()
