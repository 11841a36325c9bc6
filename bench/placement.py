"""Benchmark random fleet placement: speed per placement, and how fast impossible fleets are refused.

Run: .venv/bin/python bench/placement.py [--seeds N]

Every figure is measured in this run. The baseline is the usual naive placer: ship by ship in
fleet order, a random spot among those still legal, starting again from an empty sea when a ship
has none left (not uniform, and it never gives up on an impossible fleet, so it is only timed on
fleets that fit).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import tomllib
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.rules import placement  # noqa: E402
from referee.rules.grid import Grid, Shape, Square  # noqa: E402
from referee.rules.placement import Impossible, fleet_fits, random_fleet, sampling_is_uniform  # noqa: E402

S = Shape.from_text
AIRRAID_TOML = ROOT / "config" / "rulesets" / "airraid.toml"
# Used when the ruleset file is missing: carrier, cruiser, tug, ship-three, ship-two.
AIRRAID_SHAPES = {"carrier": "XXXX/.X..", "cruiser": "XXXX", "tug": "XX/XX", "three": "XXX", "two": "XX"}
AIRRAID_SIZES = {7: 1, 8: 2, 9: 3, 10: 4}  # sea size: number of ship-twos; one of each other kind


def airraid_fleets() -> tuple[list[tuple[int, list[Shape]]], str]:
    """Return (size, shapes) per air-raid sea, from config/rulesets/airraid.toml when it exists."""
    if AIRRAID_TOML.exists():
        data = tomllib.loads(AIRRAID_TOML.read_text(encoding="utf-8"))
        kinds = {name: S(kind["shape"]) for name, kind in data["ships"].items()}
        seas = []
        for sea in data["sea_sizes"]:
            shapes = [kinds[name] for name, count in sea["fleet"].items() for _ in range(count)]
            seas.append((sea["size"], shapes))
        return seas, f"read from {AIRRAID_TOML.relative_to(ROOT)}"
    seas = []
    for size, twos in AIRRAID_SIZES.items():
        shapes = [S(AIRRAID_SHAPES[k]) for k in ("carrier", "cruiser", "tug", "three")]
        seas.append((size, shapes + [S("XX")] * twos))
    return seas, "hard-coded (no ruleset file)"


def naive_fleet(grid: Grid, shapes: Sequence[Shape], touching: bool, rng: random.Random) -> list[frozenset[Square]]:
    """Place ship by ship among the legal spots, starting over on a dead end (the baseline)."""
    spots = []
    for shape in shapes:
        found = []
        for cells in shape.orientations(True):
            for col in range(grid.size):
                for row in range(grid.size):
                    squares = frozenset(Square(col + c, row + r) for c, r in cells)
                    if all(grid.contains(s) for s in squares):
                        found.append(squares)
        spots.append(found)
    while True:
        taken: set[Square] = set()
        placed: list[frozenset[Square]] = []
        for options in spots:
            legal = [o for o in options if not o & taken]
            if not legal:
                break
            ship = rng.choice(legal)
            placed.append(ship)
            taken |= ship if touching else {n for s in ship for n in (s, *s.neighbours8())}
        else:
            return placed


# Wall-clock by default; --cpu counts this process's CPU time only, steadier on a busy machine.
CLOCK: Callable[[], float] = time.perf_counter


def timings(place: Callable[[random.Random], object], seeds: int) -> list[float]:
    """Return the milliseconds of one placement per seed."""
    out = []
    for seed in range(seeds):
        rng = random.Random(seed)
        start = CLOCK()
        place(rng)
        out.append((CLOCK() - start) * 1000)
    return out


def p95(values: list[float]) -> float:
    """Return the 95th percentile."""
    return sorted(values)[int(0.95 * (len(values) - 1))]


def main() -> None:
    """Print the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=1000, help="placements per fleet (default 1000)")
    parser.add_argument("--cpu", action="store_true", help="time CPU use of this process, not wall-clock")
    args = parser.parse_args()
    global CLOCK
    if args.cpu:
        CLOCK = time.process_time

    seas, source = airraid_fleets()
    fleets: list[tuple[str, int, list[Shape], bool]] = []
    for size, shapes in seas:
        twos = sum(1 for s in shapes if s.size == 2)
        fleets.append((f"air raid {size}×{size} ({twos} ship-two{'s' if twos > 1 else ''})", size, shapes, False))
    fleets.append(
        ("Sjøslag 10×10 (4,3,3,2,2,2,1,1,1,1)", 10, [S("X" * n) for n in (4, 3, 3, 2, 2, 2, 1, 1, 1, 1)], False)
    )
    fleets.append(("Zeeslag 10×10 (5,4,3,3,2) touching", 10, [S("X" * n) for n in (5, 4, 3, 3, 2)], True))

    print(f"Random placement, {args.seeds} seeds per fleet; air-raid shapes {source}.")
    print(f"Clock: {'CPU time of this process' if args.cpu else 'wall-clock'}.")
    print("cold = first call with an empty cache (the per-fleet plan is built then).")
    print()
    header = (
        f"{'fleet':42} {'method':>7} {'cold':>8} {'median':>8} {'p95':>8} "
        f"{'naive med':>10} {'naive p95':>10} {'speed-up':>9}"
    )
    print(header)
    print("-" * len(header))
    for name, size, shapes, touching in fleets:
        grid = Grid(size)
        placement._clear_caches()
        start = CLOCK()
        random_fleet(grid, shapes, touching=touching, rng=random.Random(-1))
        cold = (CLOCK() - start) * 1000
        # The lambdas run inside timings(), within this iteration, so they see this fleet.
        ours = timings(lambda rng: random_fleet(grid, shapes, touching=touching, rng=rng), args.seeds)  # noqa: B023
        naive = timings(lambda rng: naive_fleet(grid, shapes, touching, rng), max(50, args.seeds // 5))  # noqa: B023
        method = "uniform" if sampling_is_uniform(grid, shapes, touching=touching) else "search"
        ratio = statistics.median(naive) / statistics.median(ours)
        print(
            f"{name:42} {method:>7} {cold:7.2f}ms {statistics.median(ours):6.2f}ms {p95(ours):6.2f}ms "
            f"{statistics.median(naive):8.2f}ms {p95(naive):8.2f}ms {ratio:8.1f}×"
        )

    print()
    print("Impossible fleets: time to the refusal, cold cache, for fleet_fits and for random_fleet.")
    carrier, tug, three, two = S("XXXX/.X.."), S("XX/XX"), S("XXX"), S("XX")
    airraid7 = seas[0][1]
    overfull: list[tuple[str, int, list[Shape], bool]] = [
        ("air raid 7×7 + 4 ship-twos", 7, airraid7 + [two] * 4, False),
        ("5-long ship on 4×4", 4, [S("XXXXX")], False),
        ("carrier on 3×3", 3, [carrier], False),
        ("Sjøslag fleet on 6×6", 6, [S("X" * n) for n in (4, 3, 3, 2, 2, 2, 1, 1, 1, 1)], False),
        ("Zeeslag fleet three times on 7×7, touching", 7, [S("X" * n) for n in (5, 4, 3, 3, 2)] * 3, True),
        ("*37 singles on 12×12", 12, [S("X")] * 37, False),
        ("*19 ship-threes on 12×12", 12, [three] * 19, False),
        ("*3 carriers on 5×5", 5, [carrier] * 3, False),
        ("*25 L-fours on 10×10, touching", 10, [S("XXX/X..")] * 25, True),
        ("*25 cruisers on 10×10, touching", 10, [S("XXXX")] * 25, True),
        ("*5 tugs on 7×7", 7, [tug] * 5, False),
        ("*9 carriers on 10×10", 10, [carrier] * 9, False),
        ("*15 S-fours on 12×12", 12, [S("XX./.XX")] * 15, False),
        ("*9 carriers on 7×7, touching", 7, [carrier] * 9, True),
        ("*34 S-fours on 12×12, touching", 12, [S("XX./.XX")] * 34, True),
        ("*24 carriers on 11×11, touching", 11, [carrier] * 24, True),
    ]
    print("(* passes the area bound: with no touching the ships grown by a 2×2 block fit the")
    print(" (n+1)² board by area, with touching the squares fit the n² sea)")
    print()
    print(f"{'fleet':40} {'fits':>9} {'random':>9}  reason")
    worst = 0.0
    for name, size, shapes, touching in overfull:
        grid = Grid(size)
        placement._clear_caches()
        start = CLOCK()
        reason = fleet_fits(grid, shapes, touching=touching)
        fits_ms = (CLOCK() - start) * 1000
        placement._clear_caches()
        start = CLOCK()
        try:
            random_fleet(grid, shapes, touching=touching, rng=random.Random(0))
            refused = "PLACED?!"
        except Impossible as exc:
            refused = exc.message
        random_ms = (CLOCK() - start) * 1000
        assert reason is not None and refused == reason, (name, reason, refused)
        worst = max(worst, fits_ms, random_ms)
        print(f"{name:40} {fits_ms:7.1f}ms {random_ms:7.1f}ms  {reason}")
    print(f"slowest refusal: {worst:.0f} ms")


if __name__ == "__main__":
    main()
