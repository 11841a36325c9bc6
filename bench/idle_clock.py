"""Cost of one round-clock tick with thousands of Battleship games in play (security review, finding 6).

    .venv/bin/python bench/idle_clock.py [--games 2600] [--ticks 40]

Makes an app on a fresh SQLite file, one air-raid game with a round in the air and N Battleship
games in play (against the computer, both fleets placed), then times `end_rounds_on_time` (the
round clock runs it every 0.25 s) and counts the games it loads. The review found the clock
loading every game with status "playing", Battleship included: with about 2,600 such games the
idle worker went from 1% to 63% CPU and a 10 s round ended 1.4 s late. Goal: the tick loads only
games whose deadline has come (none here), and takes under 5 ms, whatever N.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.push import clock as push_clock  # noqa: E402
from referee.rules import battleship as bs  # noqa: E402
from referee.rules.battleship import ai as battleship_ai  # noqa: E402
from referee.rules.ruleset import read_toml  # noqa: E402
from referee.store import Store  # noqa: E402
from referee.web import create_app  # noqa: E402
from referee.web.extensions import db, engine_of  # noqa: E402

GOAL_MS = 5.0


def battleship_in_play(store: Store, raw: dict[str, Any], rng: random.Random) -> str:
    """Store one Battleship game against the computer with both fleets placed."""
    created = store.create_game(
        bs.MODE,
        {
            "type": "create_game",
            "ruleset": raw,
            "players": {"A": "Eva", "B": "Bot"},
            "first": "A",
            "computer": {"B": "easy"},
        },
        at=time.time(),
        by="player:A",
    )
    state = created.state
    grid = state.ruleset.grid()
    for player in bs.PLAYERS:
        ships = battleship_ai.place_fleet(grid, state.ruleset.sea, state.ruleset.fleet, rng)
        action = {"type": "place_fleet", "player": player, "ships": [s.to_dict(grid) for s in ships]}
        state = store.execute(created.game_id, action, at=time.time(), by=f"player:{player}").state
    assert state.phase == "playing"
    return created.game_id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2600)
    parser.add_argument("--ticks", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(
            {
                "TESTING": True,
                "SECRET_KEY": "bench-" + "0" * 40,
                "DATABASE_URL": f"sqlite:///{Path(tmp) / 'b.sqlite3'}",
            },
            instance_path=Path(tmp) / "instance",
        )
        raw = read_toml(ROOT / "config" / "rulesets" / "zeeslag.toml")
        rng = random.Random(7)
        started = time.perf_counter()
        with app.app_context():
            for _ in range(args.games):
                battleship_in_play(db.store, raw, rng)
            db.store.forget()  # a worker's cache after a restart: every load would read the database
        print(f"made {args.games} Battleship games in play in {time.perf_counter() - started:.1f} s")
        loads = 0
        real_load = Store.load

        def counting(self: Store, game_id: str) -> Any:
            nonlocal loads
            loads += 1
            return real_load(self, game_id)

        Store.load = counting  # type: ignore[method-assign]
        times = []
        for _ in range(args.ticks):
            t0 = time.perf_counter()
            push_clock.end_rounds_on_time(app)
            times.append((time.perf_counter() - t0) * 1000)
        Store.load = real_load  # type: ignore[method-assign]
        engine_of(app).dispose()
    median = statistics.median(times)
    print(
        f"tick: median {median:.2f} ms, max {max(times):.2f} ms over {args.ticks} ticks; "
        f"games loaded per tick: {loads / args.ticks:.0f}"
    )
    print(f"goal: no game loaded and median < {GOAL_MS} ms: {'met' if loads == 0 and median < GOAL_MS else 'NOT met'}")


if __name__ == "__main__":
    main()
