"""Idle CPU of a server with many games in the air and no screen open (issue 13: a clock that sleeps).

    .venv/bin/python bench/idle_games.py [--games 50] [--seconds 30]

Starts a real `referee serve` (gevent, as it runs by default) on a fresh instance folder, creates
N air-raid games through the API and starts a round in each (every one has a deadline five minutes
away, and no screen is connected), waits five seconds for the start-up to settle, then reads the
server process's CPU time (user + system, /proc) over `--seconds`. Prints the share of one core.
The same server idle with no game at all is the baseline, measured first in the same run. The
round clock used to reload every playing game four times a second: 50 games cost 4–4.5 % of a core.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.fanout import cpu_seconds, session_from, set_up_game, start_ours  # noqa: E402


def idle_share(pid: int, seconds: float) -> float:
    """Return the process's CPU time over `seconds` as a share of one core, in per cent."""
    before, started = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    return 100.0 * (cpu_seconds(pid) - before) / (time.monotonic() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server, link = start_ours(Path(tmp), "gevent", threads=60)
        try:
            time.sleep(5.0)
            bare = idle_share(server.proc.pid, args.seconds)
            ref = session_from(link)
            for _ in range(args.games):
                set_up_game(server.base, ref, screens=0)
            time.sleep(5.0)
            busy = idle_share(server.proc.pid, args.seconds)
        finally:
            server.stop()
    print(f"no game:                     {bare:5.2f} % of a core")
    print(f"{args.games} games in the air, no screen: {busy:5.2f} % of a core")
    print(f"idle games={args.games} cpu_pct={busy:.2f} no_game_cpu_pct={bare:.2f}")


if __name__ == "__main__":
    main()
