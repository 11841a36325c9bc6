"""Random fleet placement: legal, repeatable, complete, and uniform where it says so."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.rules import placement
from referee.rules.errors import Msg
from referee.rules.grid import Grid, Shape, Square
from referee.rules.placement import Impossible, fleet_fits, random_fleet, sampling_is_uniform

from ..speed import examples

S = Shape.from_text
CARRIER, CRUISER, TUG, THREE, TWO = S("XXXX/.X.."), S("XXXX"), S("XX/XX"), S("XXX"), S("XX")
AIRRAID = [CARRIER, CRUISER, TUG, THREE, TWO]
SJOSLAG = [S("X" * size) for size in (4, 3, 3, 2, 2, 2, 1, 1, 1, 1)]
ZEESLAG = [S("X" * size) for size in (5, 4, 3, 3, 2)]
POOL = ["X", "XX", "XXX", "XXXX", "XXXXX", "XX/XX", "XXXX/.X..", "XXX/X..", "XX./.XX", "XXX/.X."]


def assert_legal(
    grid: Grid,
    shapes: Sequence[Shape],
    ships: Sequence[frozenset[Square]],
    *,
    touching: bool,
    mirror: bool = True,
    fixed: Sequence[frozenset[Square]] = (),
) -> None:
    """Fail unless every ship is on the sea, has its shape, and keeps clear of the others."""
    assert len(ships) == len(shapes)
    for shape, ship in zip(shapes, ships, strict=True):
        assert all(grid.contains(s) for s in ship), ship
        assert shape.matches(ship, mirror), (shape.to_text(), sorted(ship))
    everything = list(ships) + list(fixed)
    for a, b in itertools.combinations(everything, 2):
        assert not a & b, "ships overlap"
        if not touching:
            assert not {n for s in a for n in s.neighbours8()} & b, "ships touch"


def chi_square_p(observed: Counter[object], cells: int, draws: int) -> float:
    """Return the upper-tail p-value of the chi-square statistic against a uniform law (Wilson–Hilferty)."""
    expected = draws / cells
    stat = sum((observed.get(c, 0) - expected) ** 2 / expected for c in range(cells))
    df = cells - 1
    z = ((stat / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))
    return 0.5 * math.erfc(z / math.sqrt(2))


def all_fleets(grid: Grid, shapes: Sequence[Shape], touching: bool) -> list[tuple[frozenset[Square], ...]]:
    """Enumerate every legal fleet (ships told apart by fleet position), by brute force."""
    spots: list[list[frozenset[Square]]] = []
    for shape in shapes:
        found = []
        for cells in shape.orientations(True):
            for c0, r0 in itertools.product(range(grid.size), repeat=2):
                squares = frozenset(Square(c0 + c, r0 + r) for c, r in cells)
                if all(grid.contains(s) for s in squares):
                    found.append(squares)
        spots.append(found)
    fleets: list[tuple[frozenset[Square], ...]] = []

    def clear(a: frozenset[Square], b: frozenset[Square]) -> bool:
        return not (a & b or (not touching and {n for s in a for n in s.neighbours8()} & b))

    def extend(placed: tuple[frozenset[Square], ...]) -> None:
        if len(placed) == len(shapes):
            fleets.append(placed)
            return
        for spot in spots[len(placed)]:
            if all(clear(spot, other) for other in placed):
                extend(placed + (spot,))

    extend(())
    return fleets


# --- Legal and repeatable ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "shapes", "touching"),
    [
        (7, AIRRAID, False),
        (8, AIRRAID + [TWO], False),
        (9, AIRRAID + [TWO] * 2, False),
        (10, AIRRAID + [TWO] * 3, False),
        (10, SJOSLAG, False),
        (10, ZEESLAG, True),
    ],
)
def test_standard_fleets_are_legal_repeatable_and_uniform(size: int, shapes: list[Shape], touching: bool) -> None:
    grid = Grid(size)
    assert fleet_fits(grid, shapes, touching=touching) is None
    assert sampling_is_uniform(grid, shapes, touching=touching)
    seas = set()
    for seed in range(20):
        ships = random_fleet(grid, shapes, touching=touching, rng=random.Random(seed))
        assert_legal(grid, shapes, ships, touching=touching)
        assert ships == random_fleet(grid, shapes, touching=touching, rng=random.Random(seed))
        seas.add(tuple(ships))
    assert len(seas) == 20


def test_same_seed_same_sea_even_from_a_cold_cache() -> None:
    grid = Grid(7)
    first = random_fleet(grid, AIRRAID, touching=False, rng=random.Random(42))
    placement._clear_caches()
    assert random_fleet(grid, AIRRAID, touching=False, rng=random.Random(42)) == first


def test_the_rng_state_is_what_counts() -> None:
    rng = random.Random(5)
    rng.random()
    state = rng.getstate()
    first = random_fleet(Grid(10), SJOSLAG, touching=False, rng=rng)
    rng.setstate(state)
    assert random_fleet(Grid(10), SJOSLAG, touching=False, rng=rng) == first


def test_an_empty_fleet_places_nothing() -> None:
    assert random_fleet(Grid(5), [], touching=False, rng=random.Random(1)) == []
    assert fleet_fits(Grid(5), [], touching=False) is None


def test_without_mirror_a_chiral_shape_keeps_its_hand() -> None:
    ell = S("XXX/X..")
    grid = Grid(6)
    for seed in range(30):
        ships = random_fleet(grid, [ell, ell, ell], touching=False, mirror=False, rng=random.Random(seed))
        assert_legal(grid, [ell] * 3, ships, touching=False, mirror=False)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    size=st.integers(3, 8),
    kinds=st.lists(st.sampled_from(POOL), min_size=1, max_size=6),
    touching=st.booleans(),
    mirror=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_any_fleet_is_placed_legally_or_refused_with_the_same_reason(
    size: int, kinds: list[str], touching: bool, mirror: bool, seed: int
) -> None:
    grid = Grid(size)
    shapes = [S(k) for k in kinds]
    reason = fleet_fits(grid, shapes, touching=touching, mirror=mirror)
    if reason is None:
        ships = random_fleet(grid, shapes, touching=touching, mirror=mirror, rng=random.Random(seed))
        assert_legal(grid, shapes, ships, touching=touching, mirror=mirror)
    else:
        with pytest.raises(Impossible) as refused:
            random_fleet(grid, shapes, touching=touching, mirror=mirror, rng=random.Random(seed))
        assert refused.value.message == reason
        assert refused.value.code == "impossible"


@settings(max_examples=examples(25), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.integers(4, 7))
def test_fits_agrees_with_brute_force(seed: int, size: int) -> None:
    rng = random.Random(seed)
    shapes = [S(rng.choice(["X", "XX", "XXX", "XX/XX", "XXX/X.."])) for _ in range(rng.randint(1, 3))]
    touching = rng.random() < 0.5
    grid = Grid(size)
    exists = bool(all_fleets(grid, shapes, touching)) if size <= 5 else None
    reason = fleet_fits(grid, shapes, touching=touching)
    if exists is not None:
        assert (reason is None) == exists


# --- Impossible fleets ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "shapes", "touching", "words"),
    [
        (4, [S("XXXXX")], False, "a ship shaped XXXXX does not fit on a 4×4 sea"),
        (3, [CARRIER], False, "a ship shaped XXXX/.X.. does not fit on a 3×3 sea"),
        (7, AIRRAID * 2, False, "the fleet needs at least 90 squares of sea with its border, a 7×7 sea has 64"),
        (3, [S("XXXX")], True, "does not fit"),
        (5, [S("X" * 5)] * 6, True, "the fleet has 30 squares, a 5×5 sea has 25"),
        (12, [TWO] * 29, False, "the fleet needs at least 174 squares of sea with its border, a 12×12 sea has 169"),
        (9, AIRRAID + [TWO] * 12, False, "with its border"),
    ],
)
def test_overfull_seas_are_refused_with_a_reason(size: int, shapes: list[Shape], touching: bool, words: str) -> None:
    grid = Grid(size)
    reason = fleet_fits(grid, shapes, touching=touching)
    assert reason is not None and words in reason
    assert isinstance(reason, Msg)  # translatable: template and values travel with it
    with pytest.raises(Impossible) as refused:
        random_fleet(grid, shapes, touching=touching, rng=random.Random(1))
    assert refused.value.message == reason


def _grown_area(shape: Shape) -> int:
    return len({(c + dc, r + dr) for c, r in shape.cells for dc in (0, 1) for dr in (0, 1)})


@pytest.mark.slow
@pytest.mark.parametrize(
    ("size", "shapes", "touching", "words"),
    [
        (4, [S("X")] * 5, False, "no two share a 2×2 block: the fleet needs at least 5 blocks, a 4×4 sea has 4"),
        (12, [S("X")] * 37, False, "the fleet needs at least 37 blocks, a 12×12 sea has 36"),
        (12, [THREE] * 19, False, "2×2 block"),
        (4, [TUG] * 2, False, "the fleet covers at least 6 marked squares, a 4×4 sea has 5"),
        (5, [CARRIER] * 3, False, "must cover exactly 18 marked squares"),
        (5, [TUG] * 5, True, "every 2×2 block of squares holds one square in every other row and column"),
        (10, [S("XXX/X..")] * 25, True, "marking the squares in every other column"),
        (10, [S("XXXX")] * 25, True, "marked squares"),
        # Only the exhaustive search refuses these.
        (
            7,
            [TUG] * 5,
            False,
            "no arrangement of the fleet fits on a 7×7 sea without ships touching, not even at corners",
        ),
        (10, [CARRIER] * 9, False, "no arrangement"),
        (12, [S("XX./.XX")] * 15, False, "no arrangement"),
        (7, [CARRIER] * 9, True, "no arrangement of the fleet fits on a 7×7 sea without ships overlapping"),
        (12, [S("XX./.XX")] * 34, True, "no arrangement"),
    ],
)
def test_overfull_seas_that_pass_the_area_bounds_are_refused(
    size: int, shapes: list[Shape], touching: bool, words: str
) -> None:
    grid = Grid(size)
    if touching:
        assert sum(s.size for s in shapes) <= size * size
    else:
        assert sum(_grown_area(s) for s in shapes) <= (size + 1) ** 2
    reason = fleet_fits(grid, shapes, touching=touching)
    assert reason is not None and words in reason
    with pytest.raises(Impossible) as refused:
        random_fleet(grid, shapes, touching=touching, rng=random.Random(1))
    assert refused.value.message == reason


@pytest.mark.slow
@pytest.mark.parametrize(
    ("size", "shapes", "touching"),
    [
        (4, [S("X")] * 4, False),
        (12, [S("X")] * 36, False),
        (12, [TWO] * 28, False),
        (5, [CARRIER] * 2, False),
        (7, [TUG] * 4, False),
        (10, [CARRIER] * 8, False),
        (5, [TUG] * 4, True),
        (7, [CARRIER] * 8, True),
        (12, [S("XXXXX")] * 28, True),
    ],
)
def test_full_seas_at_the_limit_are_still_placed(size: int, shapes: list[Shape], touching: bool) -> None:
    grid = Grid(size)
    assert fleet_fits(grid, shapes, touching=touching) is None
    ships = random_fleet(grid, shapes, touching=touching, rng=random.Random(3))
    assert_legal(grid, shapes, ships, touching=touching)


# --- Fixed ships ------------------------------------------------------------------------------


def test_fixed_ships_stay_clear_of_the_new_ones() -> None:
    grid = Grid(10)
    fixed = [
        frozenset({Square(0, 0), Square(1, 0), Square(2, 0), Square(3, 0)}),
        frozenset({Square(5, 5), Square(5, 6), Square(5, 7)}),
    ]
    rest = SJOSLAG[2:]
    for seed in range(20):
        ships = random_fleet(grid, rest, touching=False, rng=random.Random(seed), fixed=fixed)
        assert_legal(grid, rest, ships, touching=False, fixed=fixed)
        assert ships == random_fleet(grid, rest, touching=False, rng=random.Random(seed), fixed=fixed)


def test_fixed_ships_are_respected_on_a_nearly_full_sea_too() -> None:
    grid = Grid(7)
    fixed = [frozenset({Square(0, 0), Square(1, 0)})]
    singles = [S("X")] * 14
    assert sampling_is_uniform(grid, singles, touching=False, fixed=fixed)
    for seed in range(5):
        ships = random_fleet(grid, singles, touching=False, rng=random.Random(seed), fixed=fixed)
        assert_legal(grid, singles, ships, touching=False, fixed=fixed)
    with pytest.raises(Impossible, match="the free part of the sea"):
        random_fleet(grid, singles + [S("X")], touching=False, rng=random.Random(0), fixed=fixed)


def test_fixed_ships_can_make_a_fleet_impossible() -> None:
    grid = Grid(5)
    wall = [frozenset(Square(2, r) for r in range(5))]
    with pytest.raises(Impossible) as refused:
        random_fleet(grid, [CARRIER], touching=False, rng=random.Random(0), fixed=wall)
    assert refused.value.message == "a ship shaped XXXX/.X.. does not fit on the free part of the sea"
    # Touching allowed, the carrier fits beside the wall.
    ships = random_fleet(grid, [CARRIER], touching=True, rng=random.Random(0), fixed=wall)
    assert_legal(grid, [CARRIER], ships, touching=True, fixed=wall)


def test_fixed_ships_that_clash_are_refused() -> None:
    grid = Grid(6)
    a = frozenset({Square(0, 0), Square(1, 0)})
    b = frozenset({Square(2, 1)})
    with pytest.raises(Impossible, match="touch"):
        random_fleet(grid, [TWO], touching=False, rng=random.Random(0), fixed=[a, b])
    assert random_fleet(grid, [TWO], touching=True, rng=random.Random(0), fixed=[a, b])
    with pytest.raises(Impossible, match="overlap"):
        random_fleet(grid, [TWO], touching=True, rng=random.Random(0), fixed=[a, a])
    with pytest.raises(Impossible, match="off the"):
        random_fleet(grid, [TWO], touching=True, rng=random.Random(0), fixed=[frozenset({Square(6, 0)})])


# --- Uniformity -------------------------------------------------------------------------------


def _uniformity(size: int, shapes: list[Shape], touching: bool, draws: int, seed: int) -> tuple[int, float]:
    """Draw fleets and return (number of legal fleets, chi-square p-value against uniform)."""
    grid = Grid(size)
    fleets = all_fleets(grid, shapes, touching)
    index = {fleet: n for n, fleet in enumerate(fleets)}
    rng = random.Random(seed)
    seen: Counter[object] = Counter()
    for _ in range(draws):
        seen[index[tuple(random_fleet(grid, shapes, touching=touching, rng=rng))]] += 1
    return len(fleets), chi_square_p(seen, len(fleets), draws)


@pytest.mark.slow
def test_rejection_sampling_is_uniform_on_an_enumerable_sea() -> None:
    shapes = [THREE, TWO, S("X")]
    assert placement._Fleet(Grid(5), shapes, False, True, ()).plan().method == "reject"
    assert sampling_is_uniform(Grid(5), shapes, touching=False)
    cells, p = _uniformity(5, shapes, False, 40_000, seed=2024)
    assert cells == 3944
    assert p > 1e-4


@pytest.mark.slow
def test_identical_ships_are_uniform_over_fleet_positions_too() -> None:
    shapes = [TWO, TWO, S("X")]
    cells, p = _uniformity(4, shapes, False, 12_000, seed=7)
    assert cells == 600
    assert p > 1e-4


@pytest.mark.slow
def test_the_counting_table_is_uniform_too(monkeypatch: pytest.MonkeyPatch) -> None:
    # No pilot draws: rejection is never chosen, so the exact counting table samples.
    monkeypatch.setattr(placement, "_PILOT_DRAWS", 0)
    placement._clear_caches()
    try:
        shapes = [TWO, TWO, S("X")]
        assert placement._Fleet(Grid(4), shapes, False, True, ()).plan().method == "table"
        cells, p = _uniformity(4, shapes, False, 12_000, seed=11)
        assert cells == 600
        assert p > 1e-4
        cells, p = _uniformity(4, [THREE, TWO, S("X")], False, 5_000, seed=12)
        assert cells == 176
        assert p > 1e-4
    finally:
        placement._clear_caches()


def test_the_last_resort_search_is_legal_and_says_it_is_not_uniform(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(placement, "_PILOT_DRAWS", 0)
    monkeypatch.setattr(placement, "_TABLE_LIMIT", 0)
    placement._clear_caches()
    try:
        grid = Grid(7)
        assert not sampling_is_uniform(grid, AIRRAID, touching=False)
        for seed in range(10):
            ships = random_fleet(grid, AIRRAID, touching=False, rng=random.Random(seed))
            assert_legal(grid, AIRRAID, ships, touching=False)
            assert ships == random_fleet(grid, AIRRAID, touching=False, rng=random.Random(seed))
        ships = random_fleet(grid, [S("X")] * 16, touching=False, rng=random.Random(1))
        assert_legal(grid, [S("X")] * 16, ships, touching=False)
    finally:
        placement._clear_caches()
