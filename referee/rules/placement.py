"""Seeded random fleet placement on a square sea, and the check that a fleet fits at all.

Public: `random_fleet`, `fleet_fits`, `sampling_is_uniform`, the `Impossible` refusal, and the
work `Budget` with its `UNDECIDED` answer.

Work budget. Packing polyominoes is NP-complete: a 2 KB ruleset can ask for a search that runs
for hours. Every search step is paid from a `Budget` of work units (one unit per search state,
plus its share of the bounds computed there), counted, not timed: the rules core may not read
the clock, and a count gives the same answer on every machine and in every replay. When the
budget is spent, `fleet_fits` answers `UNDECIDED` ("could not decide in time") and
`random_fleet` raises `Undecided`; a failed search leaves no memo behind, so asking again gives
the same answer. `SEARCH_BUDGET` is half again what the hardest refusal of bench/placement.py
needs (24 carriers on 11×11, 330,000 units) and is spent in 0.6 to 2.3 s of CPU here (220,000
to 950,000 units a second: few kinds of ship are the slow case).

Representation. A sea is an n×n grid held in a Python int used as a bitset: square (col, row)
is bit row·(n+1) + col. The unused column n keeps shapes from wrapping into the next row when a
mask is shifted, and is the right-hand edge of the "grown" board of the no-touching bounds.
Identical ships (same set of orientations) form one kind; the state of a search is one int.

Necessary conditions (`_Sea.shortfall`), applied to the whole sea and to every search state:
every remaining kind still has a spot; the squares add up; with no touching, every ship grown
by one square right and down (Minkowski sum with a 2×2 block) must lie without overlap in the
(n+1)×(n+1) board, so the grown areas add up too; and for 13 colourings of that board (the four
"every other row and column" lattices, which is the "no two ships share a 2×2 block" argument,
every other row, column, chessboard, every third row or column) the number of coloured squares
the ships can cover, a subset-sum over each kind's possible counts, must fit between what the
free region forces and allows (this also catches parity arguments like "25 L-tetrominoes cannot
tile 10×10"). The region is the squares some remaining ship could still cover (forward checking,
bit-parallel per orientation), not just the free squares.

Exhaustive search (`_Sea.can`): cells are taken in reading order; at each free cell either
nothing starts there or one remaining ship does (its first square in reading order). A state
is (cell, blocked bits from that cell on, ships left per kind): identical ships are never tried
in two orders, and failed states are memoised, with "more ships left" also marked failed. This
is complete: `fleet_fits` says None exactly when some legal fleet exists.

How `random_fleet` draws, decided per sea, fleet and fixed ships without using the caller's rng
(a pilot run with a private fixed seed), and cached:

1. "reject" when the pilot accepts 3 fleets within 300,000 spot draws. Each ship, largest
   first, takes one of ALL its spots (those clear of `fixed` ships) uniformly via
   getrandbits; a clash with an earlier ship discards the whole draw and starts again. Every
   legal fleet has the same chance, Π 1/spots, so the result is EXACTLY uniform over legal
   fleets, ships told apart by fleet position (two identical ships swapped are two fleets,
   equally likely). Acceptance, computed from exact counts: 3.4e-4 for the 7×7 air-raid fleet
   (773,192 fleets in 2.28e9 proposals), 3.1e-4 to 3.4e-4 for 8×8 to 10×10, 2.56e-4 for
   Sjøslag (1.86e15 unlabelled fleets ×2!·3!·4! in 2.09e21 proposals): a few thousand tries
   that mostly fail at the second or third ship, about 1-2 ms.
2. "table" when rejection is too slow (a nearly full sea): the search above counts the
   completions of every state exactly (Python ints) and the fleet is drawn cell by cell with
   probability proportional to the counts; identical ships then get their fleet positions by
   a shuffle. Also EXACTLY uniform. Building the table costs up to about 3 s once (at most
   `_TABLE_LIMIT` states); a draw costs well under 1 ms.
3. "search" when the table would exceed `_TABLE_LIMIT` states: a depth-first search with the
   options at each cell in random order (and the failure memo) finds a fleet. Complete and
   repeatable, NOT uniform. `sampling_is_uniform` tells whether a fleet is in this case.

Randomness comes only from `rng`; dicts and lists are iterated in a fixed order, so the same
rng state gives the same fleet. Proving a fleet impossible takes milliseconds when a bound
applies and at most a few seconds of search for packings a few squares short of perfect (see
bench/placement.py); packing polyominoes is NP-complete, so no bound holds for every fleet.
"""

from __future__ import annotations

import random
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import lru_cache

from .errors import Msg, RulesError
from .grid import Cells, Grid, Shape, Square


class Impossible(RulesError):
    """A fleet that cannot be placed on the sea; the message says why."""

    code = "impossible"


class Undecided(Impossible):
    """A fleet search that ran out of its work budget before it had an answer."""

    code = "undecided"


UNDECIDED = Msg("could not decide in time whether this fleet fits; make the sea larger or the fleet smaller")
UNPLACED = Msg("could not place this fleet in time; make the sea larger or the fleet smaller")

# Work units of one search (see the module's docstring).
SEARCH_BUDGET = 500_000
# Work units of building one counting table (a state costs one unit per kind and one more):
# past them, as past `_TABLE_LIMIT` states, placement falls back to the search.
_TABLE_BUDGET = 600_000
# Draws a rejection sampler may spend on one fleet after its pilot accepted (expected: a few
# thousand); past them the fleet comes from the search instead.
_REJECT_DRAWS = 3_000_000  # ten pilots' worth


class _OutOfWork(Exception):
    """A `Budget` was spent."""


class Budget:
    """Work units a search may still spend; one budget may be shared by several searches."""

    def __init__(self, units: int | None = None) -> None:
        self.left = SEARCH_BUDGET if units is None else units

    def spend(self, units: int) -> None:
        """Pay for some work; raise _OutOfWork once the budget is spent."""
        self.left -= units
        if self.left < 0:
            raise _OutOfWork

    @property
    def spent(self) -> bool:
        """Tell whether the budget ran out."""
        return self.left < 0


# Draws the pilot may spend before rejection is declared too slow, and the fleets it must accept.
_PILOT_DRAWS = 300_000
_PILOT_ACCEPTS = 3
_PILOT_SEED = 0x5EA
# States of the exact counting table beyond which placement gives up uniformity.
_TABLE_LIMIT = 150_000
# Places with failed search states a sea keeps during one search, and between calls.
_FAILED_LIMIT = 400_000
_FAILED_KEPT = 20_000
# Shifts of the subset sums of `_Sea.need` that cost about one work unit.
_NEED_SHIFTS = 8
# Count codes up to which failed states also rule out every state with more ships left.
_DOMINANCE_CODES = 1024
# Plans kept between calls (one per sea, fleet and set of fixed ships), and table states in all.
_PLANS_KEPT = 64
_TABLES_KEPT = 300_000
_PLANS: OrderedDict[tuple[object, ...], _Plan] = OrderedDict()
_PLANS_LOCK = threading.Lock()
# Answers of `fleet_fits` kept (a ruleset is checked again on every replay of its game).
_ANSWERS_KEPT = 256
_ANSWERS: OrderedDict[tuple[object, ...], str | None] = OrderedDict()
_ANSWERS_LOCK = threading.Lock()


class _OverBudget(Exception):
    """The counting table grew past `_TABLE_LIMIT`."""


class _Plan:
    """How one sea, fleet and set of fixed ships is sampled."""

    def __init__(
        self,
        method: str,
        table: dict[int, int] | None = None,
        ships: list[tuple[list[tuple[int, int]], int, int]] | None = None,
    ) -> None:
        self.method = method  # "reject", "table" or "search"
        self.table = table
        self.ships = ships  # for "reject": per ship its spots, their number and bit width


class _Sea:
    """A sea and a fleet of ship kinds compiled to bitmasks, with memoised search and counts."""

    def __init__(self, n: int, kinds: tuple[tuple[Cells, ...], ...], counts: tuple[int, ...], touching: bool):
        self.n = n
        self.width = width = n + 1
        self.end = end = n * width
        self.touching = touching
        self.counts = counts
        self.sizes = tuple(len(k[0]) for k in kinds)
        self.real = real = sum(1 << (r * width + c) for r in range(n) for c in range(n))
        self.padding = ((1 << end) - 1) & ~real
        self.real_from = [real >> i for i in range(end + 1)]

        # Mixed-radix code of the remaining ship counts: one int keeps the memo keys small.
        self.strides: list[int] = []
        stride = 1
        for c in counts:
            self.strides.append(stride)
            stride *= c + 1
        self.radix = [c + 1 for c in counts]
        self.states = stride
        self.full = sum(s * c for s, c in zip(self.strides, counts, strict=True))

        # The image board: the ships themselves, or grown by a 2×2 block when they may not touch.
        img_size = n if touching else n + 1
        lattice = Msg("in every other row and column")
        thirds = Msg("in every third column")
        third_rows = Msg("in every third row")
        patterns: list[tuple[Msg, Callable[[int, int], bool]]] = [
            (lattice, lambda x, y: x % 2 == 1 and y % 2 == 1),
            (lattice, lambda x, y: x % 2 == 0 and y % 2 == 0),
            (lattice, lambda x, y: x % 2 == 1 and y % 2 == 0),
            (lattice, lambda x, y: x % 2 == 0 and y % 2 == 1),
            (Msg("in every other column"), lambda x, y: x % 2 == 0),
            (Msg("in every other row"), lambda x, y: y % 2 == 0),
            (Msg("of one colour of a chessboard"), lambda x, y: (x + y) % 2 == 0),
            (thirds, lambda x, y: x % 3 == 0),
            (thirds, lambda x, y: x % 3 == 1),
            (thirds, lambda x, y: x % 3 == 2),
            (third_rows, lambda x, y: y % 3 == 0),
            (third_rows, lambda x, y: y % 3 == 1),
            (third_rows, lambda x, y: y % 3 == 2),
        ]
        self.colourings = [
            (sum(1 << (y * width + x) for y in range(img_size) for x in range(img_size) if test(x, y)), text)
            for text, test in patterns
        ]

        self.placements: list[list[tuple[int, int]]] = []  # per kind: (cells, blocked by it)
        self.shapes_at: list[list[tuple[int, tuple[int, ...]]]] = []  # per kind: (corners, offsets)
        # Per kind, for `reach`: the distinct offsets of its squares in any orientation; per
        # orientation its legal top-left corners and which offsets it uses; per offset, which
        # orientations use it. Shared offsets are shifted once.
        self.fits: list[
            tuple[tuple[int, ...], list[tuple[int, tuple[int, ...]]], list[tuple[int, tuple[int, ...]]]]
        ] = []
        anchors: list[list[tuple[int, int, int, int]]] = [[] for _ in range(end)]
        self.img_area: list[int] = []
        # Per kind and colouring: every count of coloured image squares one of its spots can have.
        self.tallies: list[list[tuple[int, ...]]] = []
        for k, orients in enumerate(kinds):
            spots: list[tuple[int, int]] = []
            fits: list[tuple[int, tuple[int, ...]]] = []
            for cells in orients:
                h = max(r for _, r in cells)
                w = max(c for c, _ in cells)
                offsets = tuple(sorted(r * width + c for c, r in cells))
                corners = 0
                for r0 in range(n - h):
                    for c0 in range(n - w):
                        corner = r0 * width + c0
                        corners |= 1 << corner
                        mask = sum(1 << (corner + d) for d in offsets)
                        block = mask if touching else self._halo(mask)
                        spots.append((mask, block))
                        first = corner + offsets[0]
                        anchors[first].append((k, mask >> first, block >> first, mask))
                if corners:
                    fits.append((corners, offsets))
            self.placements.append(spots)
            self.shapes_at.append(fits)
            shifts = tuple(sorted({d for _, offs in fits for d in offs}))
            self.fits.append(
                (
                    shifts,
                    [(corners, tuple(shifts.index(d) for d in offs)) for corners, offs in fits],
                    [(d, tuple(o for o, (_, offs) in enumerate(fits) if d in offs)) for d in shifts],
                )
            )
            self.img_area.append(self._image(self._shape_mask(orients[0])).bit_count())
            images = [self._image(m) for m, _ in spots]
            self.tallies.append(
                [tuple(sorted({(im & colour).bit_count() for im in images})) for colour, _ in self.colourings]
            )
        # Kind b covers kind a when every square of a lies in a copy of b inside a: wherever an a
        # fits, a b fits over each of its squares, so b's reach holds a's.
        self.covered_by: list[tuple[int, ...]] = []
        for a, orients_a in enumerate(kinds):
            shape_a = orients_a[0]
            self.covered_by.append(
                tuple(b for b, orients_b in enumerate(kinds) if b != a and self._inside(orients_b, shape_a))
            )
        # Larger kinds first at every cell: a dead end shows sooner.
        self.anchors = [tuple(sorted(a, key=lambda x: x[0])) for a in anchors]
        # Work units of one search state: the bounds shift the free squares once per kind.
        self.step = 1 + len(kinds)
        self.needs: dict[int, tuple[int, int, tuple[tuple[int, bool], ...], tuple[int, ...]]] = {}
        self.lefts: dict[int, tuple[bool, ...]] = {}
        # Failed states, by place (cell and blocked bits) then count code. A fleet that cannot
        # finish from a place cannot finish with more ships either, so while the count codes are
        # few each place keeps a bitset of failed codes closed upwards under "more ships".
        self.dominance = self.states <= _DOMINANCE_CODES
        self.deaths: dict[int, int] = {}
        self.failed: set[int] = set()
        self.ups: dict[int, int] = {}

    @staticmethod
    def _inside(orients: tuple[Cells, ...], shape: Cells) -> bool:
        """Tell whether copies of a kind lying inside `shape` cover every square of it."""
        covered: set[tuple[int, int]] = set()
        width = max(c for c, _ in shape)
        height = max(r for _, r in shape)
        for cells in orients:
            for dc in range(-max(c for c, _ in cells), width + 1):
                for dr in range(-max(r for _, r in cells), height + 1):
                    moved = {(c + dc, r + dr) for c, r in cells}
                    if moved <= shape:
                        covered |= moved
        return covered == set(shape)

    def _shape_mask(self, cells: Cells) -> int:
        return sum(1 << (r * self.width + c) for c, r in cells)

    def _halo(self, mask: int) -> int:
        """Return the squares of a mask and all eight neighbours of each, kept on the sea."""
        grown = mask | (mask << 1) | (mask >> 1)
        grown |= (grown << self.width) | (grown >> self.width)
        return grown & self.real

    def _image(self, mask: int) -> int:
        """Return a mask as the bounds see it: itself, or grown one square right and down."""
        if self.touching:
            return mask
        grown = mask | (mask << 1)
        return grown | (grown << self.width)

    def remaining(self, cnt: int) -> list[int]:
        """Decode a count code into ships left per kind."""
        return [(cnt // s) % r for s, r in zip(self.strides, self.radix, strict=True)]

    def left(self, cnt: int) -> tuple[bool, ...]:
        """Tell per kind whether a count code has a ship of it left."""
        got = self.lefts.get(cnt)
        if got is None:
            got = self.lefts[cnt] = tuple(c > 0 for c in self.remaining(cnt))
        return got

    def need(
        self, cnt: int, budget: Budget | None = None
    ) -> tuple[int, int, tuple[tuple[int, bool], ...], tuple[int, ...]]:
        """Return (squares, image squares, kinds left, reachable coloured sums) for a count code.

        The sums are bitsets: bit s is set when the remaining ships can cover exactly s coloured
        image squares between them, one entry per colouring.
        """
        got = self.needs.get(cnt)
        if got is None:
            left = self.remaining(cnt)
            if budget is not None:
                # The subset sums below shift once per colouring, ship left and tally: charged in proportion.
                budget.spend(1 + sum(c * len(self.tallies[k][0]) for k, c in enumerate(left)) // _NEED_SHIFTS)
            area = sum(c * s for c, s in zip(left, self.sizes, strict=True))
            img = sum(c * a for c, a in zip(left, self.img_area, strict=True))
            sums: list[int] = []
            for j in range(len(self.colourings)):
                reachable = 1
                for k, c in enumerate(left):
                    for _ in range(c):
                        step = 0
                        for t in self.tallies[k][j]:
                            step |= reachable << t
                        reachable = step
                sums.append(reachable)
            # A kind another remaining kind covers adds nothing to the union of `reach`.
            kinds = tuple((k, not any(left[b] for b in self.covered_by[k])) for k, c in enumerate(left) if c)
            got = (area, img, kinds, tuple(sums))
            self.needs[cnt] = got
        return got

    def key(self, i: int, win: int, cnt: int) -> int:
        """Pack a search state into one int."""
        return ((win * self.states + cnt) * (self.end + 1)) + i

    def reach(self, free: int, kind: int, cover: bool = True) -> int:
        """Return the squares that some spot of a kind lying wholly in `free` would cover.

        With `cover` false, only tell whether there is such a spot (nonzero) or not (zero).
        """
        if not cover:
            # Usually the first orientation already fits: no need to shift for all of them.
            for starts, offsets in self.shapes_at[kind]:
                for d in offsets:
                    starts &= free >> d
                    if not starts:
                        break
                else:
                    return starts
            return 0
        shifts, orients, users = self.fits[kind]
        shifted = [free >> d for d in shifts]
        found: list[int] = []
        for starts, uses in orients:
            for j in uses:
                starts &= shifted[j]
            found.append(starts)
        covered = 0
        for d, who in users:
            ends = 0
            for o in who:
                ends |= found[o]
            covered |= ends << d
        return covered

    def shortfall(
        self, free: int, need: tuple[int, int, tuple[tuple[int, bool], ...], tuple[int, ...]]
    ) -> tuple[str, int, int, int] | None:
        """Return why the ships of a `need` cannot fit in `free` (absolute bits), or None.

        The answer is (test, kind or colouring, have, need) for the message.
        """
        area, img, kinds, sums = need
        have = free.bit_count()
        if have < area:
            return ("area", 0, have, area)
        union = 0
        for k, cover in kinds:
            covered = self.reach(free, k, cover)
            if not covered:
                return ("spot", k, 0, 1)
            if cover:
                union |= covered
        have = union.bit_count()
        if have < area:
            return ("area", 0, have, area)
        return self._crowded(union, img, sums)

    def _crowded(self, room: int, img: int, sums: tuple[int, ...]) -> tuple[str, int, int, int] | None:
        """Return why ships needing `img` image squares and coloured `sums` cannot fit in `room`."""
        image = self._image(room)
        space = image.bit_count()
        if space < img:
            return ("image", 0, space, img)
        for j, (colour, _) in enumerate(self.colourings):
            # The images are disjoint inside `image`: they cover at most its coloured squares and
            # at most its plain ones, so the coloured total lies in [low, high].
            high = (image & colour).bit_count()
            low = max(0, img - (space - high))
            if high < low or not (sums[j] >> low) & ((1 << (high - low + 1)) - 1):
                return ("colour", j, high, low)
        return None

    def hopeless(self, i: int, win: int, cnt: int, budget: Budget) -> bool:
        """Tell whether a search state provably has no completion."""
        budget.spend(self.step)
        need = self.need(cnt, budget)
        free = ~win & self.real_from[i]
        if free.bit_count() < need[0]:
            return True
        return self.shortfall(free << i, need) is not None

    def up(self, cnt: int) -> int:
        """Return the bitset of count codes with at least as many ships of every kind as `cnt`."""
        got = self.ups.get(cnt)
        if got is None:
            got = 1 << cnt
            for k, c in enumerate(self.remaining(cnt)):
                if c < self.counts[k]:
                    got |= self.up(cnt + self.strides[k])
            self.ups[cnt] = got
        return got

    def dead(self, place: int, cnt: int) -> bool:
        """Tell whether the state (place, cnt) is known to fail."""
        if self.dominance:
            return bool((self.deaths.get(place, 0) >> cnt) & 1)
        return place * self.states + cnt in self.failed

    def trim(self) -> None:
        """Drop a large memo of failed states between calls, to bound memory."""
        if len(self.deaths) + len(self.failed) > _FAILED_KEPT:
            self.forget()

    def forget(self) -> None:
        """Drop the memo of failed states (after a spent budget: the same question must cost the same again)."""
        self.deaths.clear()
        self.failed.clear()

    def bury(self, places: Sequence[int], cnt: int) -> None:
        """Record that the states (place, cnt) fail, for every place given."""
        if len(self.deaths) + len(self.failed) > _FAILED_LIMIT:
            self.deaths.clear()
            self.failed.clear()
        if self.dominance:
            deaths = self.deaths
            up = self.up(cnt)
            for place in places:
                deaths[place] = deaths.get(place, 0) | up
        else:
            self.failed.update(place * self.states + cnt for place in places)

    def can(self, i: int, win: int, cnt: int, budget: Budget) -> bool:
        """Tell whether the remaining ships fit from this state (exhaustive, memoised, paid from `budget`)."""
        if cnt == 0:
            return True
        # Skipping a cell is a loop, not a recursion: the stack only grows by one frame per ship.
        chain: list[int] = []
        anchors = self.anchors
        strides = self.strides
        real_from = self.real_from
        end = self.end
        span = end + 1
        area, _, _, _ = need = self.need(cnt, budget)
        left = self.left(cnt)
        deaths = self.deaths if self.dominance else None
        step = self.step
        while True:
            if win & 1:
                jump = ((~win) & (win + 1)).bit_length() - 1
                i += jump
                win >>= jump
            if i >= end:
                break
            place = win * span + i
            if (deaths.get(place, 0) >> cnt) & 1 if deaths is not None else self.dead(place, cnt):
                break
            chain.append(place)
            budget.spend(step)
            free = ~win & real_from[i]
            if free.bit_count() < area or self.shortfall(free << i, need) is not None:
                break
            for k, mask, block, _ in anchors[i]:
                if left[k] and not mask & win and self.can(i + 1, (win | block) >> 1, cnt - strides[k], budget):
                    return True
            i += 1
            win >>= 1
        self.bury(chain, cnt)
        return False

    def count(self, i: int, win: int, cnt: int, table: dict[int, int], limit: int | None, budget: Budget) -> int:
        """Return how many ways the remaining ships complete this state (memoised in `table`)."""
        if cnt == 0:
            return 1
        anchors = self.anchors
        strides = self.strides
        radix = self.radix
        end = self.end
        chain: list[tuple[int, int]] = []
        total = 0
        while True:
            if win & 1:
                jump = ((~win) & (win + 1)).bit_length() - 1
                i += jump
                win >>= jump
            if i >= end:
                break
            key = self.key(i, win, cnt)
            known = table.get(key)
            if known is not None:
                total = known
                break
            if self.hopeless(i, win, cnt, budget):
                table[key] = 0
                break
            here = 0
            for k, mask, block, _ in anchors[i]:
                if not mask & win and (cnt // strides[k]) % radix[k]:
                    here += self.count(i + 1, (win | block) >> 1, cnt - strides[k], table, limit, budget)
            chain.append((key, here))
            i += 1
            win >>= 1
        for key, here in reversed(chain):
            total += here
            table[key] = total
        if limit is not None and len(table) > limit:
            raise _OverBudget
        return total

    def draw_table(self, win: int, table: dict[int, int], rng: random.Random) -> list[tuple[int, int]]:
        """Draw (kind, cells) for every ship, uniformly among all completions counted in `table`."""
        i, cnt = 0, self.full
        out: list[tuple[int, int]] = []
        strides = self.strides
        radix = self.radix
        # The table holds every state a draw visits: the budget is never touched.
        unlimited = Budget(1 << 62)
        while cnt:
            if win & 1:
                jump = ((~win) & (win + 1)).bit_length() - 1
                i += jump
                win >>= jump
            pick = rng.randrange(self.count(i, win, cnt, table, None, unlimited))
            for k, mask, block, cells in self.anchors[i]:
                if not mask & win and (cnt // strides[k]) % radix[k]:
                    after = (win | block) >> 1
                    ways = self.count(i + 1, after, cnt - strides[k], table, None, unlimited)
                    if pick < ways:
                        out.append((k, cells))
                        win = after
                        cnt -= strides[k]
                        break
                    pick -= ways
            else:
                win >>= 1
            i += 1
        return out

    def draw_search(self, win: int, rng: random.Random, budget: Budget) -> list[tuple[int, int]]:
        """Find (kind, cells) for every ship by depth-first search in random order (complete, not uniform)."""
        # An explicit stack: skipping a cell is one option among the ships, and a recursion per
        # cell could outgrow Python's stack on a large sea.
        strides = self.strides
        radix = self.radix
        span = self.end + 1
        out: list[tuple[int, int]] = []
        frames: list[tuple[int, int, int, int, list[tuple[int, int, int, int] | None]]] = []
        tried: list[int] = []
        i, cnt = 0, self.full
        while True:
            if cnt == 0:
                return out
            if win & 1:
                jump = ((~win) & (win + 1)).bit_length() - 1
                i += jump
                win >>= jump
            if i < self.end:
                key = win * span + i
                if not self.dead(key, cnt):
                    if self.hopeless(i, win, cnt, budget):
                        self.bury((key,), cnt)
                    else:
                        options: list[tuple[int, int, int, int] | None] = [
                            a for a in self.anchors[i] if not a[1] & win and (cnt // strides[a[0]]) % radix[a[0]]
                        ]
                        options.append(None)
                        rng.shuffle(options)
                        frames.append((i, win, cnt, key, options))
                        tried.append(0)
            while True:
                if not frames:
                    raise AssertionError("the fleet was checked to fit")
                at, at_win, at_cnt, at_key, options = frames[-1]
                step = tried[-1]
                if step and options[step - 1] is not None:
                    out.pop()  # the ship tried last led nowhere
                if step == len(options):
                    self.bury((at_key,), at_cnt)
                    frames.pop()
                    tried.pop()
                    continue
                tried[-1] = step + 1
                choice = options[step]
                if choice is None:
                    i, win, cnt = at + 1, at_win >> 1, at_cnt
                else:
                    k, _, block, cells = choice
                    out.append((k, cells))
                    i, win, cnt = at + 1, (at_win | block) >> 1, at_cnt - strides[k]
                break

    def reject(
        self, ships: Sequence[tuple[list[tuple[int, int]], int, int]], rng: random.Random, max_draws: int | None
    ) -> list[int] | None:
        """Draw every ship uniformly from its spots until none clash; None if `max_draws` runs out."""
        bits = rng.getrandbits
        draws = 0
        while max_draws is None or draws < max_draws:
            blocked = 0
            out: list[int] = []
            for spots, size, width in ships:
                j = bits(width)
                while j >= size:
                    j = bits(width)
                mask, block = spots[j]
                if mask & blocked:
                    break
                blocked |= block
                out.append(mask)
            else:
                return out
            draws += len(out) + 1
        return None


def _clear_caches() -> None:
    """Forget every compiled sea and plan (for tests and benchmarks of a cold start)."""
    _compile.cache_clear()
    with _PLANS_LOCK:
        _PLANS.clear()
    with _ANSWERS_LOCK:
        _ANSWERS.clear()


@lru_cache(maxsize=16)
def _compile(n: int, kinds: tuple[tuple[Cells, ...], ...], counts: tuple[int, ...], touching: bool) -> _Sea:
    return _Sea(n, kinds, counts, touching)


class _Fleet:
    """A fleet sorted into kinds of identical ships, with the compiled sea and fixed ships."""

    def __init__(
        self, grid: Grid, shapes: Sequence[Shape], touching: bool, mirror: bool, fixed: Sequence[frozenset[Square]]
    ):
        n = grid.size
        by_kind: dict[frozenset[Cells], list[int]] = {}
        orients: dict[frozenset[Cells], tuple[Cells, ...]] = {}
        for index, shape in enumerate(shapes):
            found = tuple(sorted(shape.orientations(mirror), key=sorted))
            key = frozenset(found)
            by_kind.setdefault(key, []).append(index)
            orients.setdefault(key, found)
        # A canonical kind order (largest first) so equal fleets share one compiled sea.
        order = sorted(by_kind, key=lambda k: (-len(next(iter(k))), sorted(sorted(o) for o in k)))
        self.members = [by_kind[k] for k in order]
        self.shapes = [shapes[m[0]] for m in self.members]
        self.sea_key = (n, tuple(orients[k] for k in order), tuple(len(m) for m in self.members), touching)
        self.sea = _compile(*self.sea_key)
        self.grid = grid
        self.touching = touching
        self.blocked = self.sea.padding | self._fixed_block(fixed)
        self.has_fixed = bool(fixed)

    def _fixed_block(self, fixed: Sequence[frozenset[Square]]) -> int:
        sea = self.sea
        blocked = 0
        taken = 0
        for ship in fixed:
            mask = 0
            for square in ship:
                if not self.grid.contains(square):
                    raise Impossible(
                        Msg(
                            "a ship already placed lies off the {n}×{n} sea at column {col}, row {row}",
                            n=sea.n,
                            col=square.col,
                            row=square.row,
                        )
                    )
                mask |= 1 << (square.row * sea.width + square.col)
            clash = mask & (taken if self.touching else blocked)
            if clash:
                where = self.grid.names(self._squares(clash))
                if mask & taken:
                    raise Impossible(Msg("ships already placed overlap at {squares}", squares=where))
                raise Impossible(Msg("ships already placed touch at {squares}", squares=where))
            taken |= mask
            blocked |= mask if self.touching else sea._halo(mask)
        return blocked

    def _squares(self, mask: int) -> list[Square]:
        width = self.sea.width
        out: list[Square] = []
        while mask:
            low = mask & -mask
            bit = low.bit_length() - 1
            out.append(Square(bit % width, bit // width))
            mask ^= low
        return out

    def reason(self, budget: Budget) -> str | None:
        """Return why the fleet cannot fit, or None when it can; raise _OutOfWork if `budget` runs out."""
        sea = self.sea
        n = sea.n
        if sea.full == 0:
            return None
        where = Msg("the free part of the sea") if self.has_fixed else Msg("a {n}×{n} sea", n=n)
        free = ~self.blocked & sea.real
        why = sea.shortfall(free, sea.need(sea.full, budget))
        if why is not None:
            return self._explain(why, free.bit_count(), where)
        try:
            fits = sea.can(0, self.blocked, sea.full, budget)
        except _OutOfWork:
            # The memo would let the same question get further next time: it must cost the same.
            sea.forget()
            raise
        if not fits:
            if self.touching:
                return Msg("no arrangement of the fleet fits on {where} without ships overlapping", where=where)
            return Msg(
                "no arrangement of the fleet fits on {where} without ships touching, not even at corners", where=where
            )
        return None

    def _explain(self, why: tuple[str, int, int, int], free: int, where: Msg) -> Msg:
        """Write a failed bound of `_Sea.shortfall` as a sentence."""
        sea = self.sea
        test, which, have, need = why
        if test == "spot":
            return Msg("a ship shaped {shape} does not fit on {where}", shape=self.shapes[which].to_text(), where=where)
        if test == "area":
            if have == free:
                return Msg("the fleet has {need} squares, {where} has {have}", need=need, where=where, have=have)
            return Msg(
                "the fleet has {need} squares, only {have} squares of {where} can hold one of its ships",
                need=need,
                have=have,
                where=where,
            )
        if test == "image":
            return Msg(
                "the fleet needs at least {need} squares of sea with its border, {where} has {have}",
                need=need,
                where=where,
                have=have,
            )
        high, low = have, need
        text = sea.colourings[which][1]
        sums = sea.need(sea.full)[3][which]
        least = (sums & -sums).bit_length() - 1
        most = sums.bit_length() - 1
        if which < 4 and least > high:
            if self.touching:
                return Msg(
                    "every 2×2 block of squares holds one square {marked}: "
                    "the fleet covers at least {least} of those, {where} has {high}",
                    marked=text,
                    least=least,
                    where=where,
                    high=high,
                )
            return Msg(
                "ships may not touch, so no two share a 2×2 block: the fleet needs at least {least} blocks, {where} has {high}",  # noqa: E501 - a translated message is one literal
                least=least,
                where=where,
                high=high,
            )
        if self.touching:
            marking = Msg("marking the squares {marked}", marked=text)
        else:
            marking = Msg(
                "marking the squares {marked} (each ship grown by one square right and down, for its border)",
                marked=text,
            )
        if least > high:
            return Msg(
                "{marking}, the fleet covers at least {least} marked squares, {where} has {high}",
                marking=marking,
                least=least,
                where=where,
                high=high,
            )
        if most < low:
            return Msg(
                "{marking}, the fleet covers at most {most} marked squares, but on {where} it must cover at least {low}",  # noqa: E501 - a translated message is one literal
                marking=marking,
                most=most,
                where=where,
                low=low,
            )
        if low == high:
            return Msg(
                "{marking}, the fleet must cover exactly {low} marked squares on {where}, and no mix of its ships' spots does",  # noqa: E501 - a translated message is one literal
                marking=marking,
                low=low,
                where=where,
            )
        return Msg(
            "{marking}, the fleet must cover between {low} and {high} marked squares on {where}, "
            "and no mix of its ships' spots does",
            marking=marking,
            low=low,
            high=high,
            where=where,
        )

    def plan(self, budget: Budget | None = None) -> _Plan:
        """Choose, without randomness, how this fleet is sampled; raise Impossible if it cannot fit.

        Raise Undecided when `budget` (by default `SEARCH_BUDGET`) runs out before the fleet is known to fit.
        """
        budget = budget or Budget()
        sea = self.sea
        key = (*self.sea_key, self.blocked)
        with _PLANS_LOCK:
            plan = _PLANS.get(key)
            if plan is not None:
                _PLANS.move_to_end(key)
                return plan
        try:
            why = self.reason(budget)
        except _OutOfWork:
            raise Undecided(UNDECIDED) from None
        if why is not None:
            raise Impossible(why)
        accepted = 0
        pilot = random.Random(_PILOT_SEED)
        ships = self.ships()
        draws = _PILOT_DRAWS
        # The pilot draws fleets with its own seed; only the choice of method depends on it.
        while accepted < _PILOT_ACCEPTS and sea.reject(ships, pilot, draws) is not None:
            accepted += 1
        if accepted >= _PILOT_ACCEPTS:
            plan = _Plan("reject", ships=ships)
        else:
            table: dict[int, int] = {}
            try:
                sea.count(0, self.blocked, sea.full, table, _TABLE_LIMIT, Budget(_TABLE_BUDGET))
                plan = _Plan("table", table=table)
            except (_OverBudget, _OutOfWork):
                plan = _Plan("search")
        with _PLANS_LOCK:
            _PLANS[key] = plan
            kept = sum(len(p.table or ()) for p in _PLANS.values())
            while len(_PLANS) > 1 and (len(_PLANS) > _PLANS_KEPT or kept > _TABLES_KEPT):
                _, dropped = _PLANS.popitem(last=False)
                kept -= len(dropped.table or ())
        return plan

    def ships(self) -> list[tuple[list[tuple[int, int]], int, int]]:
        """Return per ship, largest first: the spots clear of fixed ships, their number and bit width."""
        sea = self.sea
        out: list[tuple[list[tuple[int, int]], int, int]] = []
        for k, members in enumerate(self.members):
            spots = [s for s in sea.placements[k] if not s[0] & self.blocked]
            out.extend((spots, len(spots), max(1, (len(spots) - 1).bit_length())) for _ in members)
        return out

    def place(self, rng: random.Random, budget: Budget) -> list[frozenset[Square]]:
        """Place the fleet by the planned method; return each ship's squares in fleet order.

        Raise Undecided when `budget` runs out first.
        """
        sea = self.sea
        plan = self.plan(budget)
        result: list[frozenset[Square]] = [frozenset()] * sum(len(m) for m in self.members)
        if sea.full == 0:
            return result
        by_kind: list[list[int]] = [[] for _ in self.members]
        masks: list[int] | None = None
        if plan.method == "reject":
            assert plan.ships is not None
            # The pilot accepted within a fraction of these draws: running out is astronomically
            # rare, and then the search below still answers.
            masks = sea.reject(plan.ships, rng, _REJECT_DRAWS)
        if masks is not None:
            position = 0
            for k, members in enumerate(self.members):
                by_kind[k] = masks[position : position + len(members)]
                position += len(members)
        else:
            if plan.method == "table":
                assert plan.table is not None
                drawn = sea.draw_table(self.blocked, plan.table, rng)
            else:
                try:
                    drawn = sea.draw_search(self.blocked, rng, budget)
                except _OutOfWork:
                    raise Undecided(UNPLACED) from None
            for k, mask in drawn:
                by_kind[k].append(mask)
            for masks in by_kind:
                # Identical ships are one kind to the table: a shuffle gives each fleet position an equal share.
                rng.shuffle(masks)
        for members, masks in zip(self.members, by_kind, strict=True):
            for index, mask in zip(members, masks, strict=True):
                result[index] = frozenset(self._squares(mask))
        return result


def random_fleet(
    grid: Grid,
    shapes: Sequence[Shape],
    *,
    touching: bool,
    mirror: bool = True,
    rng: random.Random,
    fixed: Sequence[frozenset[Square]] = (),
    budget: Budget | None = None,
) -> list[frozenset[Square]]:
    """Place the fleet at random; raise Impossible with a reason when it cannot fit.

    `shapes` are the ships to place, in fleet order; `fixed` are ships already on the sea
    that the new ones must respect (not overlap and, unless `touching`, not touch). The result
    lists each new ship's squares in the order of `shapes`. Raise Undecided (an Impossible)
    when the search spends `budget` (by default `SEARCH_BUDGET`) before it has an answer.
    """
    fleet = _Fleet(grid, shapes, touching, mirror, fixed)
    try:
        return fleet.place(rng, budget or Budget())
    finally:
        fleet.sea.trim()


def fleet_fits(
    grid: Grid, shapes: Sequence[Shape], *, touching: bool, mirror: bool = True, budget: Budget | None = None
) -> str | None:
    """Return None when the fleet fits, or the reason it cannot.

    The reason is `UNDECIDED` when the search spends `budget` (by default `SEARCH_BUDGET`;
    several checks may share one) before it has an answer. Answers are remembered, so asking
    again costs nothing; an undecided one is not, and asking again costs the same.
    """
    key = (grid.size, tuple(shapes), touching, mirror)
    with _ANSWERS_LOCK:
        if key in _ANSWERS:
            _ANSWERS.move_to_end(key)
            return _ANSWERS[key]
    fleet = _Fleet(grid, shapes, touching, mirror, ())
    try:
        answer = fleet.reason(budget or Budget())
    except _OutOfWork:
        return UNDECIDED
    finally:
        fleet.sea.trim()
    with _ANSWERS_LOCK:
        _ANSWERS[key] = answer
        while len(_ANSWERS) > _ANSWERS_KEPT:
            _ANSWERS.popitem(last=False)
    return answer


def sampling_is_uniform(
    grid: Grid,
    shapes: Sequence[Shape],
    *,
    touching: bool,
    mirror: bool = True,
    fixed: Sequence[frozenset[Square]] = (),
) -> bool:
    """Tell whether random_fleet draws this fleet exactly uniformly; raise Impossible if it cannot fit."""
    fleet = _Fleet(grid, shapes, touching, mirror, fixed)
    try:
        return fleet.plan(Budget()).method != "search"
    finally:
        fleet.sea.trim()
