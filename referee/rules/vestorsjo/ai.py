"""The Vestorsjø computer opponent: it picks one action at a time for the side to move.

`choose_action(state, level, rng, legal)` returns one action of `legal(state, role)` (the grouped
`legal_actions`, handed in so that this module needs nothing from `moves`), or `end_turn`.

- **easy** (depth 0): uniformly at random among the moves, shots and `end_turn` it may send.
- **normal** (depth 1): greedy: the action whose expected value (over the die, each outcome of
  the shot's row weighed by its faces) is best, or `end_turn` when no action improves on the
  position as it is.
- **strong** (depth 2): the best sequence of two of its turn's actions (expectimax: each outcome
  of a first shot followed by the best second action, or stopping there). The six best first
  shots and the six best first moves (by their own value) are searched; second actions are the
  six likeliest shots the changed position offers and the eight best first-layer moves. Its first
  action is played; the next is searched again from the position that follows (so a shot's
  result is seen before the moves that follow it).

The position's value, for the side to move (`evaluate`): the worth of the pieces (a destroyer 12,
a frigate 7, a corvette and a submarine 4; half of it goes with the hits, so a sinking is worth
more than its hits), the progress towards two enemy strategic ports (each port by its own ship:
one point a hex nearer, 8 more for standing in it, 6 for each count of the hold it will have had;
a port an enemy piece stands in counts 25 hexes farther off; two ports held long enough win), the
same for the enemy (so it blocks its own strategic ports and sinks the enemy's holders), less
the damage the enemy's next turn can be expected to do (each enemy piece's best shot, from where
it is or after one move, within its four actions, never more than a target is worth: damaged
pieces flee out of range and submarines' prey into ports), plus a third of what its own pieces
could do next turn, and its submarines a little nearer the enemy's ships.

Pure and deterministic: chance only from `rng`, which breaks ties among equally good actions.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..errors import MalformedAction, Msg
from ..events import JSON, Role
from .board import Board, Port
from .hexes import Hex, Vertex
from .ruleset import Row, VestorsjoRuleset, other
from .state import ATTACK, FIRE, MOVE, State

END_TURN = "end_turn"
LEVELS: dict[str, int] = {"easy": 0, "normal": 1, "strong": 2}
"""The computer's levels and the depth each searches."""
Legal = Callable[[State, Role], list[JSON]]

WORTH = {"destroyer": 12.0, "frigate": 7.0, "corvette": 4.0, "submarine": 4.0}
"""A piece's worth undamaged; half of it is lost with its hits, the other half when it sinks."""
DEFAULT_WORTH = 4.0
APPROACH = 40.0  # the value of a ship at a port's door, less STEP per hex it is away
STEP = 1.0
BLOCKED = 25.0  # an enemy piece in the port: as if this many hexes farther (it must leave or sink first)
HOLD = 8.0  # standing in the port, on top of APPROACH
HELD = 6.0  # each count of the hold it will have had
WIN = 1000.0
THREAT = 1.0  # the enemy's expected damage next turn, at full weight: it will happen
OFFENCE = 0.35  # ours next turn: the enemy moves first
SUB_CLOSE = 0.3  # a submarine, per hex between it and the nearest enemy ship at sea
FIRST_MOVES = 6  # strong: how many of the best first moves are searched a layer deeper
FIRST_STRIKES = 6  # … and of the best first shots
SECOND_MOVES = 8  # strong: how many of the best first-layer moves are tried second
SECOND_STRIKES = 6  # … and of the shots the position then offers (the likeliest damage first)
EPSILON = 1e-9


# --- A light copy of the position -----------------------------------------------------------


class Unit:
    """One piece as the search sees it; never changed once made (children share the unchanged ones)."""

    __slots__ = (
        "before",
        "cls",
        "corner",
        "done",
        "hexes",
        "hits",
        "id",
        "place",
        "port",
        "q",
        "r",
        "removed",
        "safe",
        "side",
        "sub",
        "sunk",
    )

    def __init__(
        self,
        ctx: Context,
        pid: str,
        side: str,
        cls: str,
        place: str,
        hits: int,
        before: int,
        sunk: bool,
        removed: bool,
        done: frozenset[str],
    ) -> None:
        self.id, self.side, self.cls, self.place = pid, side, cls, place
        self.hits, self.before, self.sunk, self.removed, self.done = hits, before, sunk, removed, done
        self.sub = cls == "submarine"
        board = ctx.board
        self.corner: Vertex | None = None
        if self.sub:
            v = Vertex.parse(place)
            self.corner = v
            self.hexes: tuple[Hex, ...] = v.hexes
            names = [p.name for p in board.ports_of(v)]
        else:
            h = Hex.parse(place)
            self.hexes = (h,)
            port = board.port_at.get(h)
            names = [port.name] if port else []
        self.q, self.r = self.hexes[0].axial()
        self.port = bool(names)
        self.safe = any(n in ctx.rs.safe_ports for n in names)
        ctx.keep.append(self)

    def but(
        self,
        ctx: Context,
        *,
        place: str | None = None,
        hits: int | None = None,
        sunk: bool | None = None,
        done: frozenset[str] | None = None,
    ) -> Unit:
        """Return a copy with some fields changed."""
        return Unit(
            ctx,
            self.id,
            self.side,
            self.cls,
            self.place if place is None else place,
            self.hits if hits is None else hits,
            self.before,
            self.sunk if sunk is None else sunk,
            self.removed,
            self.done if done is None else done,
        )


Units = dict[str, Unit]


@dataclass
class Tables:
    """What never changes on a board: each strategic port's distance, by side and class, from every hex."""

    distance: dict[tuple[str, str, str], dict[Hex, int]]


_TABLES: dict[tuple[int, int], tuple[Board, VestorsjoRuleset, Tables]] = {}


def _tables(board: Board, rs: VestorsjoRuleset) -> Tables:
    key = (id(board), id(rs))
    found = _TABLES.get(key)
    if found is not None and found[0] is board and found[1] is rs:
        return found[2]
    distance: dict[tuple[str, str, str], dict[Hex, int]] = {}
    for port in board.ports:
        if not port.strategic:
            continue
        side = other(port.side)
        for cls in rs.classes.values():
            if not cls.warship or not board.ship_may_stand(port.hex, side, cls.id, rs):
                continue
            # Moving is symmetric: the hexes a ship may stand on, outward from the port.
            seen = {port.hex: 0}
            frontier = [port.hex]
            while frontier:
                nxt = []
                for h in frontier:
                    for n in board.ship_steps(h):
                        if n not in seen and board.ship_may_stand(n, side, cls.id, rs):
                            seen[n] = seen[h] + 1
                            nxt.append(n)
                frontier = nxt
            distance[(port.name, side, cls.id)] = seen
    tables = Tables(distance)
    if len(_TABLES) > 16:
        _TABLES.clear()
    _TABLES[key] = (board, rs, tables)
    return tables


class Context:
    """One decision: whose it is, the board and ruleset, the hold counters, and caches."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.rs = state.ruleset
        self.board = state.board
        self.me = state.turn
        self.opp = other(state.turn)
        self.held = dict(state.held)
        self.tables = _tables(self.board, self.rs)
        self.keep: list[Unit] = []  # keeps every unit alive, so the caches' ids stay theirs
        self.pairs: dict[tuple[int, int, bool], tuple[float, float]] = {}
        self.losses: dict[tuple[Row, str, int], float] = {}
        self.attack_ports: dict[str, list[Port]] = {
            side: [p for p in self.board.ports if p.strategic and p.side != side] for side in (self.me, self.opp)
        }
        self.sub_rows = (
            self.rs.submarine_attacks_ship,
            self.rs.ship_attacks_submarine,
            self.rs.submarine_attacks_submarine,
        )

    def units(self) -> Units:
        """Return the state's pieces on the board as units."""
        return {
            p.id: Unit(self, p.id, p.side, p.cls, p.place, p.hits, p.before, p.sunk, p.removed, frozenset(p.done))
            for p in self.state.pieces.values()
            if not p.removed
        }

    def worth(self, cls: str, hits: int) -> float:
        """Return what a piece of a class with some hits is worth (nothing once sunk)."""
        defence = self.rs.classes[cls].defence
        if hits >= defence:
            return 0.0
        full = WORTH.get(cls, DEFAULT_WORTH)
        return full * (0.5 + 0.5 * (defence - hits) / defence)

    def loss(self, row: Row, cls: str, hits: int) -> float:
        """Return the worth a target is expected to lose to one die on a row."""
        key = (row, cls, hits)
        known = self.losses.get(key)
        if known is None:
            now = self.worth(cls, hits)
            known = sum(now - self.worth(cls, hits + h) for h in row) / len(row)
            self.losses[key] = known
        return known


def _touch(a: Unit, b: Unit) -> bool:
    return a.corner is not None and b.corner is not None and a.corner.touches(b.corner)


def _near(a: Iterable[Hex], b: Iterable[Hex]) -> int:
    return min(x.distance(y) for x in a for y in b)


# --- The value of a position ------------------------------------------------------------------


def _ports(ctx: Context, units: Units, side: str) -> tuple[float, bool]:
    """Return a side's progress towards two enemy strategic ports, and whether it wins at its holds' next count."""
    rs = ctx.rs
    ships = [u for u in units.values() if u.side == side and not u.sub and not u.sunk]
    blockers = {u.hexes[0] for u in units.values() if u.side != side and not u.sub}
    options: list[list[tuple[float, str]]] = []
    won = 0
    for port in ctx.attack_ports[side]:
        holder = next((u for u in ships if u.hexes[0] == port.hex), None)
        if holder is not None:
            held = min(rs.rounds_to_hold, ctx.held.get(port.name, 0) + 1)
            won += held >= rs.rounds_to_hold
            options.append([(APPROACH + HOLD + HELD * held, holder.id)])
            continue
        extra = BLOCKED if port.hex in blockers else 0.0
        found = []
        for u in ships:
            dmap = ctx.tables.distance.get((port.name, side, u.cls))
            d = dmap.get(u.hexes[0]) if dmap is not None else None
            if d is not None:
                found.append((APPROACH - STEP * (d + extra), u.id))
        found.sort(reverse=True)
        options.append(found[:3])
    best = 0.0
    need = min(rs.ports_needed, len(options))
    if need == 1:
        best = max((o[0][0] for o in options if o), default=0.0)
    else:
        for i in range(len(options)):
            for j in range(i + 1, len(options)):
                for va, a in options[i]:
                    for vb, b in options[j]:
                        if a != b and va + vb > best:
                            best = va + vb
    return best, won >= rs.ports_needed


def _pair(ctx: Context, s: Unit, t: Unit, enemy_turn: bool) -> tuple[float, float]:
    """Return what a shooter's best die at a target is worth: from where it is, and after one move."""
    key = (id(s), id(t), enemy_turn)
    known = ctx.pairs.get(key)
    if known is not None:
        return known
    rs = ctx.rs
    steps = 0 if s.sunk else rs.classes[s.cls].steps_with(s.hits)
    now = moved = 0.0
    if s.sub:
        if not t.port:
            if t.sub:
                gap = _near(s.hexes, t.hexes)
                row = ctx.sub_rows[2]
                if _touch(s, t):
                    now = ctx.loss(row, t.cls, t.hits)
                elif gap <= 1 and steps:
                    moved = ctx.loss(row, t.cls, t.hits)
            else:
                gap = min(t.hexes[0].distance(h) for h in s.hexes)
                row = ctx.sub_rows[0]
                if gap == 0:
                    now = ctx.loss(row, t.cls, t.hits)
                elif gap <= 1 and steps:
                    moved = ctx.loss(row, t.cls, t.hits)
    elif t.sub:
        if not t.safe:
            gap = min(s.hexes[0].distance(h) for h in t.hexes)
            row = ctx.sub_rows[1]
            if gap == 0:
                now = ctx.loss(row, t.cls, t.hits)
            elif gap <= steps:
                moved = ctx.loss(row, t.cls, t.hits)
    else:
        damage = s.before if enemy_turn else s.hits
        dq, dr = s.q - t.q, s.r - t.r
        d = (abs(dq) + abs(dr) + abs(dq + dr)) // 2
        row_now = rs.gunnery_row(s.cls, damage, d)
        if row_now is not None:
            now = ctx.loss(row_now, t.cls, t.hits)
        if steps and d > 1:
            row_moved = rs.gunnery_row(s.cls, damage, max(1, d - steps))
            if row_moved is not None:
                moved = ctx.loss(row_moved, t.cls, t.hits)
    found = (now, moved)
    ctx.pairs[key] = found
    return found


def _fire_power(ctx: Context, units: Units, shooters: str, enemy_turn: bool) -> float:
    """Return the damage a side's next turn may be expected to do: each piece's best die, within its actions."""
    options: list[tuple[float, int, str, str]] = []
    targets = [u for u in units.values() if u.side != shooters and not u.sunk]
    if not targets:
        return 0.0
    for s in units.values():
        if s.side != shooters or (s.sunk and not enemy_turn):
            continue  # our sunk pieces are gone by our next turn; the enemy's fire once more
        best: tuple[float, int, str] | None = None
        for t in targets:
            now, moved = _pair(ctx, s, t, enemy_turn)
            if now > 0 and (best is None or now > best[0] * best[1]):
                best = (now, 1, t.id)
            if moved > 0 and (best is None or moved / 2 > best[0] / best[1]):
                best = (moved, 2, t.id)
        if best is not None:
            options.append((best[0] / best[1], best[1], best[2], s.id))
    options.sort(reverse=True)
    left = ctx.rs.actions_per_turn
    room = {t.id: ctx.worth(t.cls, t.hits) for t in targets}
    total = 0.0
    for rate, cost, tid, _ in options:
        if cost > left:
            continue
        value = min(rate * cost, room[tid])
        room[tid] -= value
        total += value
        left -= cost
        if left <= 0:
            break
    return total


def evaluate(ctx: Context, units: Units) -> float:
    """Return the value of a position for the side to move (see the module's description)."""
    me, opp = ctx.me, ctx.opp
    material = 0.0
    for u in units.values():
        if not u.sunk:
            w = ctx.worth(u.cls, u.hits)
            material += w if u.side == me else -w
    mine, i_win = _ports(ctx, units, me)
    theirs, they_win = _ports(ctx, units, opp)
    if i_win != they_win:
        return WIN + material if i_win else -WIN + material
    threat = _fire_power(ctx, units, opp, enemy_turn=True)
    offence = _fire_power(ctx, units, me, enemy_turn=False)
    hunt = 0.0
    prey = [u.hexes[0] for u in units.values() if u.side == opp and not u.sub and not u.sunk and not u.port]
    if prey:
        for u in units.values():
            if u.side == me and u.sub and not u.sunk:
                hunt -= SUB_CLOSE * _near(u.hexes, prey)
    return material + mine - theirs - THREAT * threat + OFFENCE * offence + hunt


# --- The search -------------------------------------------------------------------------------


@dataclass
class Option:
    """One action the search weighs: the action and its outcomes (probability, position after)."""

    action: JSON
    outcomes: list[tuple[float, Units]]
    value: float = 0.0


def _after_move(ctx: Context, units: Units, pid: str, to: str) -> Units:
    child = dict(units)
    u = units[pid]
    child[pid] = u.but(ctx, place=to, done=u.done | {MOVE})
    return child


def _after_strike(ctx: Context, units: Units, kind: str, pid: str, tid: str, row: Row) -> list[tuple[float, Units]]:
    """Return the positions a shot leads to, one per number of hits on the row, with their probability."""
    counts: dict[int, int] = {}
    for h in row:
        counts[h] = counts.get(h, 0) + 1
    shooter, target = units[pid], units[tid]
    done = shooter.but(ctx, done=shooter.done | {kind})
    defence = ctx.rs.classes[target.cls].defence
    out = []
    for hits, n in sorted(counts.items()):
        child = dict(units)
        child[pid] = done
        if hits:
            total = min(defence, target.hits + hits)
            child[tid] = target.but(ctx, hits=total, sunk=target.sunk or total >= defence)
        out.append((n / len(row), child))
    return out


def _options(ctx: Context, state: State, legal: Legal) -> list[Option]:
    """Return the options of the root: every move and shot the rules list now, each with its outcomes."""
    units = ctx.units()
    role = Role("player", state.turn)
    out = []
    for entry in legal(state, role):
        kind = entry["type"]
        if kind == MOVE:
            for to in entry["to"]:
                action = {"type": MOVE, "piece": entry["piece"], "to": to}
                out.append(Option(action, [(1.0, _after_move(ctx, units, entry["piece"], to))]))
        elif kind in (FIRE, ATTACK):
            for t in entry["targets"]:
                if t["target"] not in units:
                    continue
                action = {"type": kind, "piece": entry["piece"], "target": t["target"]}
                row = tuple(int(h) for h in t["row"])
                out.append(Option(action, _after_strike(ctx, units, kind, entry["piece"], t["target"], row)))
    return out


def _strikes(ctx: Context, units: Units) -> list[tuple[str, str, str, Row]]:
    """Return the shots the side to move could take in a position of the search (for weighing, not for playing)."""
    rs = ctx.rs
    out = []
    for s in units.values():
        if s.side != ctx.me:
            continue
        for t in units.values():
            if t.side == ctx.me or t.sunk:
                continue
            kind = ATTACK if t.sub else FIRE
            if kind in s.done:
                continue
            row: Row | None = None
            if s.sub:
                if t.port:
                    continue
                if t.sub:
                    if _touch(s, t):
                        row = rs.submarine_attacks_submarine
                elif t.hexes[0] in s.hexes:
                    row = rs.submarine_attacks_ship
            elif t.sub:
                if not t.safe and s.hexes[0] in t.hexes:
                    row = rs.ship_attacks_submarine
            else:
                row = rs.gunnery_row(s.cls, s.before, s.hexes[0].distance(t.hexes[0]))
            if row is not None and any(row):
                out.append((kind, s.id, t.id, row))
    return out


def _best_second(ctx: Context, units: Units, moves: list[Option], left: int) -> float:
    """Return the best value a position reaches with one more action (or none)."""
    best = evaluate(ctx, units)
    if left <= 0:
        return best
    strikes = _strikes(ctx, units)
    if len(strikes) > SECOND_STRIKES:
        strikes.sort(key=lambda k: -ctx.loss(k[3], units[k[2]].cls, units[k[2]].hits))
        del strikes[SECOND_STRIKES:]
    for kind, pid, tid, row in strikes:
        value = sum(p * evaluate(ctx, child) for p, child in _after_strike(ctx, units, kind, pid, tid, row))
        best = max(best, value)
    taken = {u.place for u in units.values()}
    for option in moves:
        pid, to = option.action["piece"], option.action["to"]
        u = units[pid]
        if MOVE in u.done or to in taken:
            continue
        best = max(best, evaluate(ctx, _after_move(ctx, units, pid, to)))
    return best


def _pick(options: list[Option], stay: float, rng: random.Random) -> JSON:
    best = max((o.value for o in options), default=stay)
    if best <= stay + EPSILON:
        return {"type": END_TURN}
    ties = [o for o in options if o.value >= best - EPSILON]
    return dict(rng.choice(ties).action)


def _random(state: State, rng: random.Random, legal: Legal) -> JSON:
    flat: list[JSON] = [{"type": END_TURN}]
    for entry in legal(state, Role("player", state.turn)):
        kind = entry["type"]
        if kind == MOVE:
            flat.extend({"type": MOVE, "piece": entry["piece"], "to": to} for to in entry["to"])
        elif kind in (FIRE, ATTACK):
            flat.extend({"type": kind, "piece": entry["piece"], "target": t["target"]} for t in entry["targets"])
    return rng.choice(flat)


def depth_of(level: str | int) -> int:
    """Return the depth a level searches (a depth may be given as it is)."""
    if isinstance(level, int) and not isinstance(level, bool):
        return level
    if level not in LEVELS:
        raise MalformedAction(Msg("unknown computer level {level!r}", level=level))
    return LEVELS[str(level)]


def choose_action(state: State, level: str | int, rng: random.Random, legal: Legal) -> JSON:
    """Return the action the computer takes now for the side to move: a move, a shot, or ending the turn."""
    depth = depth_of(level)
    if depth <= 0:
        return _random(state, rng, legal)
    ctx = Context(state)
    if state.actions_left() <= 0:
        return {"type": END_TURN}
    options = _options(ctx, state, legal)
    root = ctx.units()
    stay = evaluate(ctx, root)
    for o in options:
        o.value = sum(p * evaluate(ctx, child) for p, child in o.outcomes)
    if depth == 1 or state.actions_left() <= 1:
        return _pick(options, stay, rng)
    moves = sorted((o for o in options if o.action["type"] == MOVE), key=lambda o: -o.value)
    strikes = sorted((o for o in options if o.action["type"] != MOVE), key=lambda o: -o.value)
    deeper = strikes[:FIRST_STRIKES] + moves[:FIRST_MOVES]
    second = moves[:SECOND_MOVES]
    left = state.actions_left() - 1
    for o in deeper:
        o.value = sum(p * _best_second(ctx, child, second, left) for p, child in o.outcomes)
    # The first-layer values of the moves not searched deeper stay below what the deeper ones reached.
    return _pick(deeper, stay, rng)


def value_of(state: State) -> float:
    """Return the value of a state's position for the side to move (for tests and the benchmark)."""
    ctx = Context(state)
    return evaluate(ctx, ctx.units())
