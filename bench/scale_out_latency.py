"""Report→update latency across `referee serve` processes, against the same process as baseline.

    .venv/bin/python bench/scale_out_latency.py [--processes 2] [--clients 30] [--reports 60] [--rate 5]

Starts N processes on one fresh PostgreSQL schema and the machine's Redis (REFEREE_TEST_POSTGRES_URL,
REFEREE_TEST_REDIS_URL as in tests/conftest.py), creates a game, connects the clients round-robin
to the processes, and lets the referee (on process 1) send entries at `rate` per second. Each
client's arrival of the view with each entry's seq is timed from the send. Prints p50/p99 for
clients on the referee's own process and on the others, and their ratio (same run, same load).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import POSTGRES_URL, REDIS_URL  # noqa: E402
from tests.live_server import Server  # noqa: E402
from tests.services.test_scale_out import Screen, _schema, new_game, referee_session, start_all, stop_all  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--clients", type=int, default=30)
    parser.add_argument("--reports", type=int, default=60)
    parser.add_argument("--rate", type=float, default=5.0)
    args = parser.parse_args()

    schema = _schema(POSTGRES_URL)
    db_url = next(schema)
    with tempfile.TemporaryDirectory() as tmp:
        servers = [
            Server(Path(tmp) / "instance", database_url=db_url, redis_url=REDIS_URL) for _ in range(args.processes)
        ]
        start_all(servers)
        screens: list[tuple[int, Screen]] = []
        try:
            bases = [s.base for s in servers]
            game = new_game(bases, referee_session(bases[0], servers))
            referee = Screen(game.id, game.referee).connect(bases[0])
            for i in range(args.clients):
                screens.append((i % len(bases), Screen(game.id).connect(bases[i % len(bases)])))
            time.sleep(0.5)
            sent: dict[int, float] = {}
            for n in range(args.reports):
                start = time.perf_counter()
                ack = referee.act({"type": "pause_timer" if n % 2 == 0 else "resume_timer"}, f"bench-{n}")
                assert ack["ok"], ack
                sent[int(ack["seq"])] = start
                time.sleep(max(0.0, 1.0 / args.rate - (time.perf_counter() - start)))
            time.sleep(1.0)
            same: list[float] = []
            other: list[float] = []
            missing = 0
            for where, screen in screens:
                arrivals = {seq: t for t, seq in screen.arrivals}
                for seq, start in sent.items():
                    if seq not in arrivals:
                        missing += 1
                        continue
                    (same if where == 0 else other).append((arrivals[seq] - start) * 1000)
            referee.close()
        finally:
            for _where, screen in screens:
                screen.close()
            stop_all(servers)
            next(schema, None)
    print(f"processes={args.processes} clients={args.clients} reports={len(sent)} rate={args.rate}/s missing={missing}")
    print(f"same process  ms: p50={percentile(same, 0.5):.1f} p99={percentile(same, 0.99):.1f} (n={len(same)})")
    print(f"other process ms: p50={percentile(other, 0.5):.1f} p99={percentile(other, 0.99):.1f} (n={len(other)})")
    print(
        f"ratio other/same: p50 {percentile(other, 0.5) / percentile(same, 0.5):.2f}, "
        f"p99 {percentile(other, 0.99) / percentile(same, 0.99):.2f}"
    )


if __name__ == "__main__":
    main()
