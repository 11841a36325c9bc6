// A Battleship board in sea-grid cells, and who plays now: pure parts shared by the player's
// page (play.js) and the projector (watch.js); tests/test_battleship_web.py runs them under Node.

import { readSquare } from '../lib/sea-editor.js';

/** Map a square name to {col, row} in the ruleset's convention. */
export function at(name, letters) {
  return readSquare(name, letters);
}

/** The player whose screen a pass-and-play phone should show now. */
export function expectedPlayer(view) {
  if (view.phase === 'placing') {
    const order = [view.first, view.first === 'A' ? 'B' : 'A'];
    return order.find((p) => !view.players[p].placed) || view.first;
  }
  return view.turn || view.me;
}

/**
 * The cells of the enemy sea as this player knows it: each called square with
 * what it was told, marked ring squares, and the squares of sunk ships
 * grouped (from the "sunk" shot along its line of hits) so a sunk ship reads
 * as one dark outlined shape.
 */
export function enemyCells(board, letters, revealShips = false, volleys = []) {
  const cells = new Map();
  const key = (p) => `${p.col},${p.row}`;
  // Salvo totals: a volley told "no hits" was all water, one told "all hits" all hit.
  const deduced = new Map();
  for (const v of volleys) {
    if (v.shots.every((s) => s.result)) continue;
    if (v.hits === 0) for (const s of v.shots) deduced.set(s.square, 'miss');
    if (v.hits === v.shots.length) for (const s of v.shots) deduced.set(s.square, 'hit');
  }
  const shots = (board.shots || []).map((s) => (s.result || !deduced.has(s.square) ? s : { ...s, result: deduced.get(s.square) }));
  const hitAt = new Map();
  for (const s of shots) {
    const p = at(s.square, letters);
    if (!p) continue;
    if (s.result === 'hit' || s.result === 'sunk') hitAt.set(key(p), { ...p, ship: s.ship, result: s.result });
    const state = s.result === 'miss' ? 'miss' : s.result === 'hit' ? 'hit' : s.result === 'sunk' ? 'sunk' : 'water';
    // Already shot: water and untold squares are dimmed; a hit keeps its full ✕ so it reads at a glance.
    const flags = state === 'hit' || state === 'sunk' ? [] : ['dimmed'];
    if (!s.result) flags.push('highlight'); // a salvo square whose result was not told
    cells.set(key(p), { col: p.col, row: p.row, state, flags, note: s.ship || '' });
  }
  // Sunk ships: from each "sunk" square, the longer straight run of hits through it
  // (ships are straight lines; a named ship keeps to squares named the same).
  let n = 0;
  const same = (q, ship) => hitAt.has(key(q)) && (!ship || !hitAt.get(key(q)).ship || hitAt.get(key(q)).ship === ship);
  for (const s of shots) {
    if (s.result !== 'sunk') continue;
    const p = at(s.square, letters);
    if (!p) continue;
    const runs = [[[1, 0], [-1, 0]], [[0, 1], [0, -1]]].map((dirs) => {
      const run = [p];
      for (const [dc, dr] of dirs) {
        let q = { col: p.col + dc, row: p.row + dr };
        while (same(q, s.ship)) { run.push(q); q = { col: q.col + dc, row: q.row + dr }; }
      }
      return run;
    });
    const group = runs[0].length >= runs[1].length ? runs[0] : runs[1];
    const id = `x${n++}`;
    for (const q of group) {
      const c = cells.get(key(q));
      if (c) { c.state = 'sunk'; c.ship = id; }
    }
  }
  for (const sq of board.marked || []) {
    const p = at(sq, letters);
    if (p && !cells.has(key(p))) cells.set(key(p), { col: p.col, row: p.row, state: 'miss', flags: ['dimmed'] });
  }
  if (revealShips) {
    for (const ship of board.ships || []) {
      for (const sq of ship.squares) {
        const p = at(sq, letters);
        const c = cells.get(key(p));
        if (!c) cells.set(key(p), { col: p.col, row: p.row, state: 'ship', ship: ship.id, note: ship.name });
        else { c.ship = ship.id; if (ship.sunk) c.state = 'sunk'; }
      }
    }
  }
  return [...cells.values()];
}

/** The cells of a player's own sea: its ships (hit, sunk) and every shot at it. */
export function ownCells(board, letters) {
  const cells = new Map();
  const key = (p) => `${p.col},${p.row}`;
  const struck = new Set((board.shots || []).map((s) => s.square));
  for (const ship of board.ships || []) {
    for (const sq of ship.squares) {
      const p = at(sq, letters);
      const state = ship.sunk ? 'sunk' : struck.has(sq) ? 'hit' : 'ship';
      cells.set(key(p), { col: p.col, row: p.row, state, ship: ship.id, note: ship.name });
    }
  }
  for (const s of board.shots || []) {
    const p = at(s.square, letters);
    if (p && !cells.has(key(p))) cells.set(key(p), { col: p.col, row: p.row, state: 'miss' });
  }
  for (const sq of board.marked || []) {
    const p = at(sq, letters);
    if (p && !cells.has(key(p))) cells.set(key(p), { col: p.col, row: p.row, state: 'miss', flags: ['dimmed'] });
  }
  return [...cells.values()];
}

/** Kind ids -> [{kind, title, n}] in fleet order, for "still afloat" lists. */
export function countKinds(kinds, fleet) {
  const out = [];
  for (const k of fleet) {
    if (out.find((r) => r.kind === k.kind)) continue;
    const n = kinds.filter((x) => x === k.kind).length;
    out.push({ kind: k.kind, title: k.title || k.name, size: k.size, n });
  }
  return out;
}
