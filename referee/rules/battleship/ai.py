"""The computer opponent for Battleship: where to fire next, and a random fleet of its own.

Public: `choose_shots`, `place_fleet`, `LEVELS`.

The AI reads only the volleys it fired (`shots.Volley`), so it never knows more than a player
is told. Two levels:

- "easy" is plain hunt/target: it hunts at random among the squares not yet shot and not
  marked as water, and after a hit fires at the unshot side neighbours of its hits (also those
  of ships already sunk: it keeps no notes). In salvo-totals rulesets every square of a volley
  that hit counts as a possible hit.
- "strong" fires where a ship most probably is, over the fleets still consistent with every
  answer. It deduces what the rules reveal: the ship named on a hit, a sunk ship's squares,
  water on the diagonals of every hit and around every sunk ship when ships may not touch, and
  the salvo totals. Per-shot rulesets: it draws whole fleets by sequential importance sampling
  (ships covering the hits first, then the others largest first, each uniform over its legal
  spots; the weight, the product of the numbers of choices, makes the estimate one over
  uniformly random legal fleets) and fires at the square most often occupied. Salvo totals:
  a Metropolis chain over whole fleets, annealed to the fleets that give every volley's
  reported totals, then walking among them. When no fleet can be drawn it falls back to
  per-ship probability density.

Squares are bits of a Python int, as in `placement`: square (col, row) is bit row·(n+1) + col;
the spare column keeps shifted ships from wrapping into the next row. All randomness comes from
the `rng` argument, and everything is iterated in a fixed order, so a seed repeats a game.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..grid import Cells, Grid, Square
from ..sea import SeaRules, Ship, random_sea
from ..shots import Volley

LEVELS = ("easy", "strong")
# Whole fleets drawn per decision (per-shot rulesets), and Metropolis steps per salvo decision.
SAMPLES = 400
CHAIN_STEPS = 6000
CHAINS = 4
# Hunt on a lattice when the smallest ship afloat allows it.
PARITY = True


def place_fleet(grid: Grid, rules: SeaRules, fleet: Sequence[str], rng: random.Random) -> list[Ship]:
    """Place the computer's fleet uniformly at random over all legal fleets."""
    return random_sea(grid, rules, fleet, rng)


def choose_shots(
    grid: Grid,
    rules: SeaRules,
    fleet: Sequence[str],
    volleys: Sequence[Volley],
    count: int,
    rng: random.Random,
    level: str = "strong",
    *,
    samples: int = SAMPLES,
) -> list[Square]:
    """Return `count` distinct squares to fire at next, never one already shot or known water.

    `fleet` is the enemy fleet as kind ids (one per ship), `volleys` every volley this player
    fired, as it was told. What the rules reveal is read from the volleys themselves (named
    ships, rings, totals); that ships may not touch comes from `rules.touching`. `samples`
    tunes the strong level's effort (fleets drawn per decision).
    """
    if level not in LEVELS:
        raise ValueError(f"level is one of {', '.join(LEVELS)}, not {level!r}")
    board = _board(grid.size, _kind_key(rules, fleet))
    know = _Knowledge(board, rules, fleet, volleys)
    candidates = [i for i in board.cells if not (know.shot >> i) & 1 and not (know.water >> i) & 1]
    if len(candidates) < count:
        # Nothing sensible left (cannot happen in a real game): fill with any unshot squares.
        spare = [i for i in board.cells if not (know.shot >> i) & 1 and i not in candidates]
        candidates += spare
    count = min(count, len(candidates))
    if level == "easy":
        picks = _hunt_target(board, know, candidates, count, rng)
    else:
        scores = _strong_scores(board, know, rng, samples)
        if PARITY and not know.open_hits and not know.totals:
            candidates = _parity(board, know, candidates, scores, count)
        picks = _best(candidates, scores, count, rng)
    return [board.square(i) for i in picks]


# --- The board ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Kind:
    """One ship kind compiled to bitmasks."""

    id: str
    size: int
    # Per orientation: offsets of its squares from its corner, its mask at corner 0, the
    # bitset of legal corners and the same as a list.
    orients: tuple[tuple[tuple[int, ...], int, int, tuple[int, ...]], ...]
    spots: tuple[int, ...]  # every legal spot's mask


class _Board:
    """An n×n sea as bits, with each kind's spots."""

    def __init__(self, n: int, kinds: tuple[tuple[str, tuple[Cells, ...]], ...]) -> None:
        self.n = n
        self.w = w = n + 1
        self.cells = tuple(r * w + c for r in range(n) for c in range(n))
        self.real = sum(1 << i for i in self.cells)
        self.kinds: dict[str, _Kind] = {}
        for kind_id, orientations in kinds:
            orients = []
            spots: list[int] = []
            for cells in orientations:
                offsets = tuple(sorted(r * w + c for c, r in cells))
                shape = sum(1 << d for d in offsets)
                height = max(r for _, r in cells)
                width = max(c for c, _ in cells)
                corners = [r * w + c for r in range(n - height) for c in range(n - width)]
                orients.append((offsets, shape, sum(1 << x for x in corners), tuple(corners)))
                spots.extend(shape << x for x in corners)
            size = len(next(iter(orientations)))
            self.kinds[kind_id] = _Kind(kind_id, size, tuple(orients), tuple(spots))

    def index(self, square: Square) -> int:
        """Return a square's bit."""
        return square.row * self.w + square.col

    def square(self, index: int) -> Square:
        """Return the square of a bit."""
        return Square(index % self.w, index // self.w)

    def halo(self, mask: int) -> int:
        """Return a mask with its eight neighbours, kept on the sea."""
        grown = mask | (mask << 1) | (mask >> 1)
        return (grown | (grown << self.w) | (grown >> self.w)) & self.real

    def sides(self, mask: int) -> int:
        """Return the side neighbours of a mask's squares, kept on the sea, without the mask."""
        w = self.w
        return ((mask << 1) | (mask >> 1) | (mask << w) | (mask >> w)) & self.real & ~mask

    def bits(self, mask: int) -> list[int]:
        """List a mask's bits, lowest first."""
        out = []
        while mask:
            low = mask & -mask
            out.append(low.bit_length() - 1)
            mask ^= low
        return out


def _kind_key(rules: SeaRules, fleet: Sequence[str]) -> tuple[tuple[str, tuple[Cells, ...]], ...]:
    """Return the hashable description of the fleet's kinds that compiles a board."""
    return tuple((k, tuple(rules.kinds[k].shape.orientations(rules.mirror))) for k in sorted(set(fleet)))


@lru_cache(maxsize=32)
def _board(n: int, kinds: tuple[tuple[str, tuple[Cells, ...]], ...]) -> _Board:
    return _Board(n, kinds)


# --- What the volleys tell ------------------------------------------------------------------


class _Knowledge:
    """Everything the volleys reveal, as bitmasks."""

    def __init__(self, board: _Board, rules: SeaRules, fleet: Sequence[str], volleys: Sequence[Volley]) -> None:
        self.board = board
        self.touching = rules.touching
        self.shot = 0
        self.water = 0  # squares told or deduced empty
        self.given_water = 0  # misses and marked rings only (what the easy level uses)
        self.hits = 0
        self.named: dict[int, str] = {}  # hit bit -> kind named
        self.sunk_at: list[tuple[int, str]] = []  # (bit of the sinking shot, kind)
        self.totals: list[tuple[int, dict[str, int], tuple[str, ...]]] = []  # salvo volleys told as totals
        self.maybe_hit = 0  # squares of totals volleys that hit (easy level's guesses)
        for volley in volleys:
            mask = 0
            for shot in volley.shots:
                mask |= 1 << board.index(shot.square)
            self.shot |= mask
            for square in volley.ring:
                self.water |= 1 << board.index(square)
            if any(shot.result is None for shot in volley.shots):
                kinds: dict[str, int] = {}
                for kind in volley.ships_hit:
                    kinds[kind] = kinds.get(kind, 0) + 1
                self.totals.append((mask, kinds, tuple(volley.sunk)))
                if volley.hits == 0:
                    self.water |= mask
                else:
                    self.maybe_hit |= mask
                continue
            for shot in volley.shots:
                bit = board.index(shot.square)
                if shot.result == "miss":
                    self.water |= 1 << bit
                else:
                    self.hits |= 1 << bit
                    if shot.ship is not None:
                        self.named[bit] = shot.ship
                    if shot.result == "sunk" and shot.ship is not None:
                        self.sunk_at.append((bit, shot.ship))
        self.given_water = self.water
        self.sunk: list[tuple[str, int]] = []  # (kind, squares) of each sunk ship found
        self._find_sunk(fleet)
        sunk_squares = 0
        for _, mask in self.sunk:
            sunk_squares |= mask
        self.open_hits = self.hits & ~sunk_squares  # hits on ships still afloat
        if not self.touching:
            # Ships may not touch: the diagonals of a hit and the ring of a sunk ship are water.
            w = board.w
            for bit in board.bits(self.hits):
                for d in (w + 1, w - 1, -w + 1, -w - 1):
                    j = bit + d
                    if j >= 0 and (board.real >> j) & 1 and abs((j % w) - (bit % w)) == 1:
                        self.water |= 1 << j
            for _, mask in self.sunk:
                self.water |= board.halo(mask) & ~mask
        self.water &= ~self.hits
        left = list(fleet)
        for kind, _ in self.sunk:
            if kind in left:
                left.remove(kind)
        self.left = left  # kinds of the ships still afloat, one entry per ship

    def _find_sunk(self, fleet: Sequence[str]) -> None:
        """Find the squares of each sunk ship from the hits."""
        board = self.board
        taken = 0
        for bit, kind in self.sunk_at:
            found = 0
            if not self.touching:
                # Ships do not touch: the side-connected hits around the sinking shot are the ship.
                found = 1 << bit
                while True:
                    grown = found | (board.sides(found) & self.hits)
                    if grown == found:
                        break
                    found = grown
            elif fleet.count(kind) == 1 and self.named:
                found = sum(1 << b for b, k in self.named.items() if k == kind)
            size = board.kinds[kind].size if kind in board.kinds else 0
            if found.bit_count() != size:
                # Ambiguous (touching ships, not named): the first spot of that kind on free hits.
                allowed = self.hits & ~taken
                if self.named:
                    allowed &= ~sum(1 << b for b, k in self.named.items() if k != kind)
                spots = board.kinds[kind].spots if kind in board.kinds else ()
                found = next((s for s in spots if (s >> bit) & 1 and s & allowed == s), found)
            taken |= found
            self.sunk.append((kind, found))


# --- Easy: plain hunt/target ----------------------------------------------------------------


def _hunt_target(board: _Board, know: _Knowledge, candidates: list[int], count: int, rng: random.Random) -> list[int]:
    """Fire at the unshot side neighbours of hits first, else anywhere not known water."""
    allowed = [i for i in candidates if not (know.given_water >> i) & 1] if know.given_water else candidates
    near = board.sides(know.hits | know.maybe_hit)
    targets = [i for i in allowed if (near >> i) & 1]
    rest = [i for i in allowed if not (near >> i) & 1]
    rng.shuffle(targets)
    rng.shuffle(rest)
    return (targets + rest)[:count]


# --- Strong ---------------------------------------------------------------------------------


def _parity(board: _Board, know: _Knowledge, candidates: list[int], scores: dict[int, float], count: int) -> list[int]:
    """Keep hunting on one lattice class when every ship afloat is at least m long.

    Every straight ship m or more long covers a square of each class (row + column) mod m, so
    hunting one class finds every ship; the class is the one already shot most (it keeps the
    hunt on one lattice), ties going to the likelier one.
    """
    m = min(board.kinds[k].size for k in know.left) if know.left else 1
    if m < 2 or any(len(board.kinds[k].orients) > 2 for k in know.left):
        return candidates
    w = board.w
    shot_in = [0] * m
    for bit in board.bits(know.shot & ~know.hits):
        shot_in[(bit // w + bit % w) % m] += 1
    mass = [0.0] * m
    for i in candidates:
        mass[(i // w + i % w) % m] += scores.get(i, 0.0)
    best = max(range(m), key=lambda k: (shot_in[k], mass[k]))
    kept = [i for i in candidates if (i // w + i % w) % m == best and scores.get(i, 0.0) > 0]
    return kept if len(kept) >= count else candidates


def _best(candidates: list[int], scores: dict[int, float], count: int, rng: random.Random) -> list[int]:
    """Return the `count` candidates scoring highest, ties broken at random."""
    order = list(candidates)
    rng.shuffle(order)
    order.sort(key=lambda i: -scores.get(i, 0.0))
    return order[:count]


def _strong_scores(board: _Board, know: _Knowledge, rng: random.Random, samples: int) -> dict[int, float]:
    """Return, per square, how likely a ship lies there given everything told."""
    if know.totals:
        scores = _chain_scores(board, know, rng, samples)
    elif know.touching and not know.open_hits:
        # Hunting where ships may touch: measured over 2,000 classic games, per-ship density
        # sinks the fleet in as few shots as drawing whole fleets (median 44 both) at an
        # eighth of the cost, ships that may touch barely constraining each other. Targeting
        # hits still draws whole fleets: the density only guesses which ship a hit is on.
        scores = _density_scores(board, know)
    else:
        scores = _sampled_scores(board, know, rng, samples)
    if not scores:
        scores = _density_scores(board, know)
    return scores


def _groups(board: _Board, know: _Knowledge) -> list[tuple[int, tuple[str, ...]]]:
    """Split the hits on ships afloat into groups each lying on one ship, with the kinds allowed."""
    hits = know.open_hits
    kinds_left = tuple(sorted(set(know.left)))
    groups: list[tuple[int, tuple[str, ...]]] = []
    if not know.touching:
        # Side-connected hits lie on one ship (ships do not touch).
        while hits:
            part = hits & -hits
            while True:
                grown = part | (board.sides(part) & hits)
                if grown == part:
                    break
                part = grown
            hits &= ~part
            named = {know.named[b] for b in board.bits(part) if b in know.named}
            groups.append((part, tuple(sorted(named)) if named else kinds_left))
    else:
        by_kind: dict[str, int] = {}
        for bit in board.bits(hits):
            kind = know.named.get(bit)
            if kind is not None and know.left.count(kind) == 1:
                by_kind[kind] = by_kind.get(kind, 0) | (1 << bit)
            else:
                groups.append((1 << bit, (kind,) if kind is not None else kinds_left))
        groups.extend((mask, (kind,)) for kind, mask in sorted(by_kind.items()))
    # Bigger groups first: they have the fewest spots.
    groups.sort(key=lambda g: (-g[0].bit_count(), g[0]))
    return groups


def _sampled_scores(board: _Board, know: _Knowledge, rng: random.Random, samples: int) -> dict[int, float]:
    """Estimate each square's chance of a ship by importance-sampling whole consistent fleets."""
    groups = _groups(board, know)
    sunk_squares = 0
    for _, mask in know.sunk:
        sunk_squares |= mask
    # The sea the afloat ships may use: not water, not a sunk ship (nor, untouching, its ring).
    base = board.real & ~know.water & ~sunk_squares
    if not know.touching:
        for _, mask in know.sunk:
            base &= ~board.halo(mask)
    hits = know.open_hits
    # Spots each kind may take to cover a group: holding the group, on hits allowed to that
    # kind or unshot sea, not all shot (it would be sunk), and untouching, with no other group
    # partly beside it.
    options: list[list[tuple[str, list[int]]]] = []
    for mask, kinds in groups:
        per_kind = []
        for kind in kinds:
            if kind not in know.left:
                continue
            foreign = sum(1 << b for b, k in know.named.items() if k != kind)
            allowed = base & ~(foreign & hits)
            spots = [
                s
                for s in board.kinds[kind].spots
                if s & mask == mask
                and s & allowed == s
                and s & ~know.shot
                and (know.touching or board.halo(s) & hits & ~s == 0)
            ]
            if spots:
                per_kind.append((kind, spots))
        if not per_kind:
            return {}
        options.append(per_kind)
    order = sorted(set(know.left), key=lambda k: (-board.kinds[k].size, k))
    touching = know.touching
    acc: dict[int, float] = {}
    randrange = rng.randrange
    halo = board.halo
    for _ in range(samples):
        free = base
        left = {k: know.left.count(k) for k in order}
        weight = 1.0
        placed: list[int] = []
        covered = 0
        dead = False
        for (mask, _), per_kind in zip(groups, options, strict=False):
            if mask & covered == mask:
                continue
            choices = []
            total = 0
            for kind, spots in per_kind:
                if not left[kind]:
                    continue
                legal = [s for s in spots if s & free == s and (s & hits) & ~covered == s & hits]
                if legal:
                    choices.append((kind, legal))
                    total += left[kind] * len(legal)
            if not total:
                dead = True
                break
            weight *= total
            r = randrange(total)
            for kind, legal in choices:
                span = left[kind] * len(legal)
                if r < span:
                    spot = legal[r // left[kind]]
                    left[kind] -= 1
                    break
                r -= span
            placed.append(spot)
            covered |= spot & hits
            free &= ~(spot if touching else halo(spot))
        if dead or covered != hits:
            continue
        free &= ~hits
        for kind in order:
            info = board.kinds[kind]
            for _ in range(left[kind]):
                spot, ways = _draw(info, free, randrange)
                if not ways:
                    dead = True
                    break
                weight *= ways
                placed.append(spot)
                free &= ~(spot if touching else halo(spot))
            if dead:
                break
        if dead:
            continue
        for spot in placed:
            acc[spot] = acc.get(spot, 0.0) + weight
    return _spread(board, acc)


def _draw(kind: _Kind, free: int, randrange: Callable[[int], int]) -> tuple[int, int]:
    """Draw one spot of a kind uniformly among those inside `free`; return it and their number."""
    starts = []
    total = 0
    for offsets, _shape, corners, _ in kind.orients:
        s = corners
        for d in offsets:
            s &= free >> d
        c = s.bit_count()
        starts.append(s)
        total += c
    if not total:
        return 0, 0
    r = randrange(total)
    for (_, shape, _, corner_list), s in zip(kind.orients, starts, strict=True):
        c = s.bit_count()
        if r >= c:
            r -= c
            continue
        if c * 4 >= len(corner_list):
            # Dense: try random corners until a legal one (uniform among the legal ones).
            while True:
                x = corner_list[randrange(len(corner_list))]
                if (s >> x) & 1:
                    return shape << x, total
        for _ in range(r):
            s &= s - 1
        return shape << ((s & -s).bit_length() - 1), total
    raise AssertionError("unreachable")


def _spread(board: _Board, acc: dict[int, float]) -> dict[int, float]:
    """Turn weights per ship spot into weights per square."""
    scores: dict[int, float] = {}
    for spot, weight in acc.items():
        for bit in board.bits(spot):
            scores[bit] = scores.get(bit, 0.0) + weight
    return scores


def _density_scores(board: _Board, know: _Knowledge) -> dict[int, float]:
    """Score squares by how many spots of each ship afloat cover them (ships counted apart)."""
    acc: dict[int, float] = {}
    hits = know.open_hits
    sunk_squares = 0
    for _, mask in know.sunk:
        sunk_squares |= mask
    allowed_base = board.real & ~know.water & ~sunk_squares
    for kind in sorted(set(know.left)):
        foreign = sum(1 << b for b, k in know.named.items() if k != kind)
        allowed = allowed_base & ~(foreign & hits)
        for spot in board.kinds[kind].spots:
            if spot & allowed == spot and spot & ~know.shot:
                # Spots through hits on ships afloat are far likelier.
                acc[spot] = acc.get(spot, 0.0) + know.left.count(kind) * (50.0 ** (spot & hits).bit_count())
    return _spread(board, acc)


# --- Salvo totals: a Metropolis chain over whole fleets ---------------------------------------


def _chain_scores(board: _Board, know: _Knowledge, rng: random.Random, samples: int) -> dict[int, float]:
    """Estimate each square's chance of a ship over fleets matching every volley's totals.

    The energy of a fleet counts its disagreements with what was told: per volley and kind, the
    hits it would give against the hits reported; per kind, the volleys its ships would sink at
    against the sinkings reported; and ships overlapping (or touching, when they may not). Each
    chain moves one ship at a time to a random spot (Metropolis), warming up with a rising
    penalty, and then counts the fleets of energy 0 it walks through.
    """
    ships = sorted(know.left, key=lambda k: (-board.kinds[k].size, k))
    kinds = sorted(set(ships))
    volleys = know.totals
    masks = [v[0] for v in volleys]
    # Squares shot up to and including each volley: a ship sinks at the first volley covering it.
    upto = []
    shot = 0
    for mask in masks:
        shot |= mask
        upto.append(shot)
    never = len(volleys)
    told = [[v[1].get(k, 0) for v in volleys] for k in kinds]  # per kind, per volley
    sunk_told: list[list[int]] = [[] for _ in kinds]
    for t, (_, _, sunk) in enumerate(volleys):
        for k in sunk:
            if k in kinds:
                sunk_told[kinds.index(k)].append(t)
    allowed = board.real & ~know.water
    spots = [[s for s in board.kinds[k].spots if s & allowed == s] for k in kinds]
    if any(not options for options in spots):
        return {}
    kind_of = [kinds.index(k) for k in ships]
    same_kind = [[j for j, kj in enumerate(kind_of) if kj == ki] for ki in range(len(kinds))]
    touching = know.touching
    halo = board.halo
    span = range(len(masks))

    def sinks(spot: int) -> int:
        for t, u in enumerate(upto):
            if spot & u == spot:
                return t
        return never

    def sink_cost(ki: int, times: list[int]) -> int:
        want = sorted(sunk_told[ki])
        want += [never] * (len(times) - len(want))
        return 2 * sum(a != b for a, b in zip(sorted(times), want, strict=False))

    def clash(a: int, b: int) -> int:
        return 3 if a & (b if touching else halo(b)) else 0

    acc: dict[int, float] = {}
    steps = max(1, CHAIN_STEPS * samples // SAMPLES // CHAINS)
    warm = steps // 2
    randrange = rng.randrange
    random01 = rng.random
    exp = math.exp
    n_ships = len(ships)
    for _ in range(CHAINS):
        fleet = [spots[ki][randrange(len(spots[ki]))] for ki in kind_of]
        counts = [[0] * len(masks) for _ in kinds]
        for spot, ki in zip(fleet, kind_of, strict=True):
            row = counts[ki]
            for t in span:
                row[t] += (spot & masks[t]).bit_count()
        times = [sinks(spot) for spot in fleet]
        e = sum(abs(a - b) for ki in range(len(kinds)) for a, b in zip(counts[ki], told[ki], strict=False))
        e += sum(sink_cost(ki, [times[j] for j in same_kind[ki]]) for ki in range(len(kinds)))
        e += sum(clash(fleet[a], fleet[b]) for a in range(n_ships) for b in range(a + 1, n_ships))
        for step in range(steps):
            beta = 0.4 + 4.0 * step / warm if step < warm else 50.0
            i = randrange(n_ships)
            ki = kind_of[i]
            options = spots[ki]
            old = fleet[i]
            new = options[randrange(len(options))]
            if new == old:
                continue
            row = counts[ki]
            want = told[ki]
            delta = 0
            moved = []
            for t in span:
                m = masks[t]
                d = (new & m).bit_count() - (old & m).bit_count()
                if d:
                    c = row[t]
                    delta += abs(c + d - want[t]) - abs(c - want[t])
                    moved.append((t, d))
            new_time = sinks(new)
            if new_time != times[i]:
                group = same_kind[ki]
                before = [times[j] for j in group]
                after = [new_time if j == i else times[j] for j in group]
                delta += sink_cost(ki, after) - sink_cost(ki, before)
            for j in range(n_ships):
                if j != i:
                    delta += clash(new, fleet[j]) - clash(old, fleet[j])
            if delta <= 0 or random01() < exp(-beta * delta):
                fleet[i] = new
                times[i] = new_time
                for t, d in moved:
                    row[t] += d
                e += delta
            if e == 0 and step >= warm:
                for spot in fleet:
                    acc[spot] = acc.get(spot, 0.0) + 1.0
    return _spread(board, acc)
