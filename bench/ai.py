"""Benchmark the Battleship computer opponent: shots it needs to sink a uniformly random fleet.

Run: .venv/bin/python bench/ai.py config/rulesets/zeeslag.toml [--games N] [--seed N] [--level easy|strong]

Each game draws the enemy fleet with `placement.random_fleet` (exactly uniform over legal fleets)
and referees every volley with the rules core's own `battleship.answer`, so the AI is told what a
player is told. The same fleets are also played, in the same run, by the plain hunt/target player
(the AI's "easy" level). Shots are squares called: a salvo of five counts five. Nobody shoots back,
so a salvo is always as large as the whole fleet (the shooter never loses a ship).

The last line is exactly `median=<n> mean=<x> p95=<n> max=<n> huntmedian=<n>`.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.rules import battleship  # noqa: E402
from referee.rules.battleship.ai import SAMPLES, choose_shots  # noqa: E402
from referee.rules.ruleset import load_ruleset  # noqa: E402
from referee.rules.sea import random_sea  # noqa: E402
from referee.rules.shots import Volley  # noqa: E402

_RULESET: battleship.BattleshipRuleset | None = None
_SAMPLES = SAMPLES


def _load(path: str) -> battleship.BattleshipRuleset:
    ruleset = load_ruleset(path)
    if not isinstance(ruleset, battleship.BattleshipRuleset):
        raise SystemExit(f"{path} is not a Battleship ruleset")
    return ruleset


def _init(path: str, samples: int) -> None:
    global _RULESET, _SAMPLES
    _RULESET = _load(path)
    _SAMPLES = samples


def play(ruleset: battleship.BattleshipRuleset, seed: int, level: str, samples: int = SAMPLES) -> int:
    """Play one seeded game at one level; return the squares called until the fleet is sunk."""
    grid = ruleset.grid()
    fleet = random_sea(grid, ruleset.sea, ruleset.fleet, random.Random(seed))
    rng = random.Random(seed * 7919 + (1 if level == "strong" else 2))
    afloat = {s.id: set(s.squares) for s in fleet}
    struck: set = set()
    volleys: list[Volley] = []
    shots = 0
    while any(afloat.values()):
        count = 1 if ruleset.shots_per_turn == "one" else len(ruleset.fleet)
        squares = choose_shots(grid, ruleset.sea, ruleset.fleet, volleys, count, rng, level, samples=samples)
        if len(set(squares)) != len(squares) or set(squares) & struck or not squares:
            raise AssertionError(f"seed {seed}: {level} fired at {squares}, some already shot")
        volley = battleship.answer(ruleset, fleet, frozenset(struck), squares)
        volleys.append(volley)
        struck |= set(squares)
        shots += len(squares)
        for squares_left in afloat.values():
            squares_left -= set(squares)
        if shots > grid.size * grid.size:
            raise AssertionError(f"seed {seed}: {level} took more shots than the sea has squares")
    return shots


def _task(job: tuple[int, str]) -> tuple[int, str, int, float]:
    seed, level = job
    assert _RULESET is not None
    start = time.process_time()
    shots = play(_RULESET, seed, level, _SAMPLES)
    return seed, level, shots, time.process_time() - start


def pct(values: list[int], p: float) -> int:
    """Return the p-th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ruleset")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--level", choices=("easy", "strong"), default="strong")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--samples", type=int, default=SAMPLES, help="the strong level's effort (fleets drawn per decision)"
    )
    args = parser.parse_args(argv)
    ruleset = _load(args.ruleset)
    seeds = [args.seed * 1_000_003 + g for g in range(args.games)]
    jobs = [(s, lvl) for s in seeds for lvl in (args.level, "easy")]
    started = time.perf_counter()
    if args.workers > 1:
        with multiprocessing.Pool(args.workers, _init, (args.ruleset, args.samples)) as pool:
            results = pool.map(_task, jobs, chunksize=4)
    else:
        _init(args.ruleset, args.samples)
        results = [_task(j) for j in jobs]
    wall = time.perf_counter() - started
    main_shots = [r[2] for r in results if r[1] == args.level]
    main_cpu = [r[3] for r in results if r[1] == args.level]
    hunt = [r[2] for r in results if r[1] == "easy"]
    per_game = sum(main_cpu) / len(main_cpu)
    print(f"ruleset {ruleset.id}: {args.games} games, seed {args.seed}, level {args.level}, {args.workers} workers")
    per_decision = sum(main_cpu) / sum(_decisions(ruleset, main_shots))
    print(
        f"wall {wall:.1f} s; CPU per {args.level} game {per_game * 1000:.0f} ms, "
        f"per decision {per_decision * 1000:.1f} ms"
    )
    print(
        f"hunt/target: median={statistics.median_low(hunt):g} mean={statistics.fmean(hunt):.2f} "
        f"p95={pct(hunt, 95)} max={max(hunt)}"
    )
    print(
        f"median={statistics.median_low(main_shots):g} mean={statistics.fmean(main_shots):.2f} "
        f"p95={pct(main_shots, 95)} max={max(main_shots)} huntmedian={statistics.median_low(hunt):g}"
    )
    return 0


def _decisions(ruleset: battleship.BattleshipRuleset, shots: list[int]) -> list[int]:
    """Return the number of decisions (volleys) behind each game's shot count."""
    per = 1 if ruleset.shots_per_turn == "one" else len(ruleset.fleet)
    return [math.ceil(s / per) for s in shots]


if __name__ == "__main__":
    raise SystemExit(main())
