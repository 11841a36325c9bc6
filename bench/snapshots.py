"""Snapshots that do not grow: their cost and the database's bytes per event as a game gets long.

    .venv/bin/python bench/snapshots.py [--events 5000] [--every 50]

One air-raid game on a fresh SQLite file, in-process through `Store.execute`: both seas locked,
the game started, a round in the air, then the referee pausing and resuming its clock again and
again (each one event with a note, so the log and the notes grow, as in a real game, while the
rest of the state does not; `--quiet` changes the defender instead, an event with no note). At 50, 500, 2,000 and
5,000 events it prints: the time of the last report that wrote a snapshot, the median of the
plain reports around it (the baseline, same run), the snapshot's size, the database's bytes per
event, and the time a fresh store takes to load the game (snapshot plus the events after it).
Before snapshots left the log to the events table, each one re-encoded the whole log: 4 ms,
then 12, then 42–55 ms, and the database grew with the square of the game's length; before each
held only the notes since the one before, the notes did the same (5.7 ms at 50 events, 89 ms
and 295 KB at 5,000).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from sqlalchemy import func, select, text

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.store import Store, make_engine, migrate  # noqa: E402
from referee.store.models import Snapshot  # noqa: E402
from tests.airraid_helpers import PLAYERS, ruleset_data, ships_json  # noqa: E402

CHECKPOINTS = (50, 500, 2000, 5000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=5000)
    parser.add_argument("--every", type=int, default=50, help="snapshot every N events (the server's default)")
    parser.add_argument("--quiet", action="store_true", help="events with no note (the defender changing hands)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.sqlite3"
        engine = make_engine(f"sqlite:///{path}")
        migrate(engine)
        store = Store(engine, snapshot_every=args.every)
        create = {
            "type": "create_game",
            "ruleset": ruleset_data(),
            "teams": [{"name": "Eagles", "players": PLAYERS["A"]}, {"name": "Sharks", "players": PLAYERS["B"]}],
        }
        gid = store.create_game("airraid", create, at=1000.0, by="referee").game_id
        clock = 1000.0
        for team in "AB":
            clock += 1
            store.execute(gid, {"type": "lock_sea", "team": team, "ships": ships_json()}, at=clock, by=f"team:{team}")
        start: list[dict[str, str]] = [{"type": "start_game"}]
        if not args.quiet:
            start += [
                {"type": "set_defender", "team": "A", "pilot": "Amy"},
                {"type": "set_defender", "team": "B", "pilot": "Bo"},
                {"type": "start_round"},
            ]
        for action in start:
            clock += 1
            version = store.execute(gid, action, at=clock, by="referee").version
        pilots = PLAYERS["A"]
        plain: list[float] = []
        snapshot_ms: dict[int, float] = {}
        rows = []
        print(
            f"{'events':>7} {'snapshot report ms':>19} {'plain report ms':>16} {'snapshot bytes':>15} "
            f"{'db bytes/event':>15} {'load ms':>8}"
        )
        i = 0
        while version < args.events:
            clock += 1
            if args.quiet:
                action = {"type": "set_defender", "team": "A", "pilot": pilots[i % 4]}
            else:
                action = {"type": "pause_timer" if i % 2 == 0 else "resume_timer"}
            i += 1
            started = time.perf_counter()
            version = store.execute(gid, action, at=clock, by="referee").version
            took = (time.perf_counter() - started) * 1000
            if version % args.every == 0:
                snapshot_ms[version] = took
            else:
                plain.append(took)
            if version in CHECKPOINTS or version == args.events:
                with engine.connect() as conn:
                    size = conn.execute(
                        select(func.length(Snapshot.__table__.c.state))
                        .order_by(Snapshot.__table__.c.seq.desc())
                        .limit(1)
                    ).scalar()
                    pages = conn.execute(text("PRAGMA page_count")).scalar() or 0
                    page_size = conn.execute(text("PRAGMA page_size")).scalar() or 0
                started = time.perf_counter()
                Store(engine, snapshot_every=args.every).load(gid)
                load_ms = (time.perf_counter() - started) * 1000
                last_snap = snapshot_ms[max(snapshot_ms)]
                recent = statistics.median(plain[-200:])
                rows.append((version, last_snap, recent, size, pages * page_size / version, load_ms))
                print(
                    f"{version:>7} {last_snap:>19.2f} {recent:>16.2f} {size:>15} {pages * page_size / version:>15.0f} "
                    f"{load_ms:>8.1f}"
                )
        engine.dispose()
    first, last = rows[0], rows[-1]
    print(
        f"snapshots events={last[0]} snapshot_ms_first={first[1]:.2f} snapshot_ms_last={last[1]:.2f} "
        f"snapshot_bytes_first={first[3]} snapshot_bytes_last={last[3]} "
        f"db_bytes_per_event_first={first[4]:.0f} db_bytes_per_event_last={last[4]:.0f} load_ms_last={last[5]:.1f}"
    )


if __name__ == "__main__":
    main()
