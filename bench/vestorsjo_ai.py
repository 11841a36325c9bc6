"""Benchmark the Vestorsjø computer opponent on the real map: whole games against a random player and against itself.

Run: .venv/bin/python bench/vestorsjo_ai.py [--games N] [--seed N] [--cap ROUNDS] [--workers N] [--level strong]

Two matches of N games each on config/maps/oresund.toml with config/rulesets/vestorsjo.toml:
the level against a random legal player (uniform among every move, shot and end_turn the rules
list), and the level against itself one depth less (strong: depth 2 against depth 1). Sides are
alternated (even games: the level plays Scania, who moves first). The server's dice come from
fixed seeds (game g of a match: `random.Random(seed * 100003 + g)` draws every action's seed),
so a run repeats exactly. A game still going after `--cap` rounds (60) is counted as a draw.
Time per move is the wall time of one `ai.choose_action` call.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.rules import vestorsjo as v  # noqa: E402
from referee.rules.vestorsjo import ai  # noqa: E402

RULESET = ROOT / "config" / "rulesets" / "vestorsjo.toml"
MAP = ROOT / "config" / "maps" / "oresund.toml"


def _load() -> tuple[dict[str, Any], dict[str, Any]]:
    return tomllib.loads(RULESET.read_text(encoding="utf-8")), tomllib.loads(MAP.read_text(encoding="utf-8"))


def play(task: tuple[int, int, int | str, int | str, int, int]) -> dict[str, Any]:
    """Play one game: the tested player (depth) on one side, the opponent (depth, or "random") on the other."""
    game, seed, tested, opponent, cap, match = task
    ruleset, board = _load()
    state, _ = v.create({"type": "create_game", "ruleset": ruleset, "map": board}, at=0.0, by="referee")
    tested_side = v.SIDES[game % 2]
    players = {tested_side: tested, v.other(tested_side): opponent}
    dice = random.Random(seed * 100003 + game + match * 7)
    minds = {side: random.Random(seed * 7919 + game * 2 + i) for i, side in enumerate(v.SIDES)}
    times: dict[str, list[float]] = {"tested": [], "opponent": []}
    while state.outcome is None and state.round <= cap:
        side = state.turn
        who = "tested" if side == tested_side else "opponent"
        started = time.perf_counter()
        level = players[side]
        action = ai.choose_action(state, 0 if level == "random" else level, minds[side], v.legal_actions)
        times[who].append(time.perf_counter() - started)
        state, _ = v.apply(state, action, at=0.0, by=f"player:{side}", seed=dice.getrandbits(63))
    outcome = state.outcome
    if outcome is None:
        result, reason = "draw", "cap"
    elif outcome.winner is None:
        result, reason = "draw", outcome.reason
    else:
        result, reason = ("win" if outcome.winner == tested_side else "loss"), outcome.reason
    rounds = outcome.round if outcome is not None else cap
    return {"game": game, "result": result, "reason": reason, "rounds": rounds, "times": times}


def match(name: str, tested: int, opponent: int | str, args: argparse.Namespace, number: int) -> None:
    """Play one match and print its figures."""
    tasks = [(g, args.seed, tested, opponent, args.cap, number) for g in range(args.games)]
    started = time.perf_counter()
    results = []
    with multiprocessing.Pool(args.workers) as pool:
        for i, r in enumerate(pool.imap_unordered(play, tasks), 1):
            results.append(r)
            if i % 10 == 0 or i == len(tasks):
                print(f"  {name}: {i}/{len(tasks)} games, {time.perf_counter() - started:.0f} s", flush=True)
    count = {k: sum(1 for r in results if r["result"] == k) for k in ("win", "draw", "loss")}
    reasons: dict[str, int] = {}
    for r in results:
        reasons[f"{r['result']}:{r['reason']}"] = reasons.get(f"{r['result']}:{r['reason']}", 0) + 1
    ended = [r["rounds"] for r in results if r["reason"] != "cap"]
    tested_times = [t for r in results for t in r["times"]["tested"]]
    opp_times = [t for r in results for t in r["times"]["opponent"]]
    print(f"{name}: {args.games} games, {time.perf_counter() - started:.0f} s wall")
    wdl = f"{count['win']}/{count['draw']}/{count['loss']}"
    print(f"  win/draw/loss = {wdl}   by reason {dict(sorted(reasons.items()))}")
    print(
        f"  rounds: mean {statistics.fmean(r['rounds'] for r in results):.1f} over all games (a capped game counts"
        f" {args.cap}), mean {statistics.fmean(ended) if ended else 0:.1f} over the {len(ended)} that ended"
    )
    for label, ts in (("tested", tested_times), ("opponent", opp_times)):
        if ts:
            ts.sort()
            print(
                f"  time per move ({label}): mean {1000 * statistics.fmean(ts):.1f} ms, median"
                f" {1000 * ts[len(ts) // 2]:.1f} ms, p99 {1000 * ts[int(len(ts) * 0.99)]:.1f} ms,"
                f" max {1000 * ts[-1]:.1f} ms over {len(ts)} moves"
            )


def main() -> None:
    """Run both matches."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cap", type=int, default=60, help="rounds after which a game counts as a draw")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--level", default="strong", choices=sorted(ai.LEVELS))
    parser.add_argument("--only", choices=("random", "self"), help="play only one of the two matches")
    args = parser.parse_args()
    depth = ai.LEVELS[args.level]
    print(f"Vestorsjø AI bench: level {args.level} (depth {depth}), seed {args.seed}, cap {args.cap} rounds")
    if args.only in (None, "random"):
        match(f"{args.level} vs random", depth, "random", args, 1)
    if args.only in (None, "self") and depth >= 1:
        match(f"{args.level} vs depth {depth - 1}", depth, depth - 1, args, 2)


if __name__ == "__main__":
    main()
