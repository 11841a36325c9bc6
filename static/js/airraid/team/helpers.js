// The team page's pure helpers: no DOM, no state; tests/test_team_page.py runs them under Node.

import { parseSquare, squareName } from '../../lib/sea.js';

/** The view's round clock (seconds) as a Countdown state (ms), or null: the one of every page. */
export { roundClock as timerState } from '../../lib/timer.js';

/** Which tab a moment of the game belongs on. */
export function tabForPhase(view) {
  if (!view || view.phase === 'setup') return 'sea';
  if (view.phase === 'over') return 'live';
  return view.round && view.round.phase === 'airborne' ? 'live' : 'orders';
}

/** A key that changes when the game moves to another stage (to switch tabs once). */
export function stageKey(view) {
  if (!view || view.phase !== 'playing') return view ? view.phase : '';
  return `${view.round.round}:${view.round.phase}`;
}

/** Throws and choice of a bombing fight from the defender's taps:
 *  picks = ['bomber'] | ['ship', 'leave'] | ['ship', 'continue', 'bomber'|'ship'].
 *  Returns {done, throws, choice} or {ask: 'first'|'choice'|'second'}. */
export function bombingStep(picks) {
  const [first, choice, second] = picks;
  if (!first) return { ask: 'first' };
  if (first === 'bomber') return { done: true, throws: [{ winner: 'bomber' }], choice: null };
  if (!choice) return { ask: 'choice' };
  if (choice === 'leave') return { done: true, throws: [{ winner: 'ship' }], choice: 'leave' };
  if (!second) return { ask: 'second' };
  return { done: true, throws: [{ winner: 'ship' }, { winner: second }], choice: 'continue' };
}

/** The newest narration note matching a test, from a view's log. */
export function findNote(view, test) {
  const rows = (view && view.log) || [];
  for (let i = rows.length - 1; i >= 0; i--) {
    const notes = rows[i].notes || [];
    for (let j = notes.length - 1; j >= 0; j--) if (test(notes[j], rows[i])) return notes[j];
  }
  return null;
}

/** The order id in a scanned slip (a link ending in /s/<game>.<order>.<sig>, or the bare code),
 *  if the slip belongs to this game; else null. The server checks the signature and that
 *  the order is a bomber waiting at our base. */
export function orderFromSlip(text, game) {
  const m = /(?:^|\/s\/)([A-Za-z0-9_-]+)\.([A-Za-z0-9]+)\.([A-Za-z0-9_-]+)\s*$/.exec(String(text || '').trim());
  if (!m || m[1] !== game) return null;
  return m[2];
}

/** A square typed by a person ("c 4", "C4 ") → "C4", or null. */
export function cleanSquare(text, cols, rows) {
  const p = parseSquare(String(text || '').replace(/\s+/g, ''));
  if (!p || p.col < 0 || p.row < 0 || (cols && p.col >= cols) || (rows && p.row >= rows)) return null;
  return squareName(p.col, p.row);
}

/** The order form with anything the new options no longer allow dropped. */
export function sanitiseForm(form, options) {
  const f = { ...form };
  const o = options || {};
  if (f.pilot && !(o.pilots || []).includes(f.pilot)) f.pilot = null;
  const ship = (o.ships || []).find((s) => s.ship === f.ship);
  if (f.ship && (!ship || !(ship[f.kind] > 0))) { f.ship = null; f.kind = null; }
  const corridor = (o.corridors || []).find((c) => c.corridor === f.corridor);
  if (f.corridor && (!corridor || corridor.free <= 0)) { f.corridor = null; f.position = null; }
  if (corridor && corridor.free > 0 && !corridor.positions.includes(f.position)) f.position = corridor.positions[0];
  if (f.kind !== 'bomber') f.target = null;
  return f;
}

/** What the order form still needs, in order: 'pilot' | 'plane' | 'corridor' | 'target' | null. */
export function missingStep(form) {
  if (!form.pilot) return 'pilot';
  if (!form.ship || !form.kind) return 'plane';
  if (!form.corridor) return 'corridor';
  if (form.kind === 'bomber' && !form.target) return 'target';
  return null;
}

// ------------------------------------------------------------------- page

/** What the server will answer to a bomb on `square` of our own sea (view.sea), as
 *  referee/rules/airraid/moves.py _announce_bombing decides it: water where no ship is, already
 *  hit where the square is hit or its ship sunk, else fight. `earlier` are this phone's bombings
 *  whose outcome the server has not told yet ({square, answer, result}): a fight on the same
 *  square may have hit it meanwhile, so the answer is then unsure.
 *  Returns {answer, ship (id or null), unsure}. */
export function localAnswer(sea, square, earlier = []) {
  const ship = ((sea && sea.ships) || []).find((s) => (s.squares || []).includes(square)) || null;
  if (!ship) return { answer: 'water', ship: null, unsure: false };
  if (((sea && sea.hits) || []).includes(square) || ship.sunk) return { answer: 'already_hit', ship: ship.id, unsure: false };
  const before = (earlier || []).filter((e) => e.square === square && e.answer === 'fight');
  if (before.some((e) => e.result === 'hit' || e.result === 'sunk')) return { answer: 'already_hit', ship: ship.id, unsure: true };
  return { answer: 'fight', ship: ship.id, unsure: before.length > 0 };
}

/** A fight's result from its throws and choice (a done bombingStep), as corridors.py judge_bombing
 *  decides it: 'hit' | 'left' | 'shot_down'. */
export function fightResult(step) {
  const [first, second] = (step.throws || []).map((x) => x.winner);
  if (first === 'bomber') return 'hit';
  if (step.choice === 'leave') return 'left';
  return second === 'bomber' ? 'hit' : 'shot_down';
}

/** Whether a hit on `square` sinks its ship: every other square of it already hit
 *  (view.sea.hits, plus `moreHits` this phone has not sent yet). */
export function wouldSink(sea, square, moreHits = []) {
  const ship = ((sea && sea.ships) || []).find((s) => (s.squares || []).includes(square));
  if (!ship) return false;
  const hit = new Set([...((sea && sea.hits) || []), ...moreHits, square]);
  return ship.squares.every((s) => hit.has(s));
}
