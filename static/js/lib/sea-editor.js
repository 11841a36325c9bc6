// The sea editor: place a fleet by hand on a grid, with live feedback.
//
// WHY a separate module: the air-raid team base places its ships here, and
// the board modes (Zeeslag, Sjøslag, Vestorsjø) will place theirs the same
// way. So it knows nothing of air raids: it gets the ship kinds with their
// shapes, the fleet (one kind id per ship), the grid size, and a `check`
// callback that asks the server whether the sea is legal.
//
//   import { SeaEditor } from './sea-editor.js';
//   const editor = new SeaEditor(document.getElementById('editor'), {
//     cols: 7, rows: 7, label: 'Your sea',
//     kinds: { cruiser: { name: 'cruiser', shape: 'XXXX' }, tug: { name: 'tug', shape: 'XX/XX' } },
//     fleet: ['cruiser', 'tug'],
//     ships: [],                                   // or a draft: [{kind, squares: ['A1', …]}]
//     mirror: true,                                // mirror images allowed
//     check: async (ships) => ({ ok, problems: [{ message, ships, squares }] }),
//     onChange: (ships) => saveDraft(ships),       // after every change
//     onStatus: ({ complete, ok, checking, problems, left }) => …,
//     onSay: (text, kind) => showResult(text, kind),
//     onRandom: async () => ships,                 // optional: shows a "Random" button
//     letters: 'columns',                          // "B6" = column B, row 6; 'rows': row B, column 6
//     columnLabels: ['A', …], rowLabels: ['1', …], // optional edge labels (the view's sea.columns/rows)
//   });
//   editor.ships()   // [{id: 'A', kind, squares: ['A1', …]}] in fleet order
//
// How it feels (shared ux.md): tap a ship in the tray, tap the square for its
// anchor (the ship's first square, reading left to right, top to bottom);
// tap a placed ship to select it, and rotate / mirror / remove buttons appear
// beside it; drag a placed ship to move it. A ship never hangs off the sea:
// it is pushed back inside. Squares the check names glow red (is-touching)
// with the reasons listed underneath.
//
// Strings (i18n.js keys; the page's i18n block must carry them):
//   editor.tray, editor.random, editor.clear, editor.rotate, editor.mirror,
//   editor.remove, editor.hint_pick, editor.hint_place, editor.hint_selected,
//   editor.all_placed, editor.left (plural, {n}), editor.placed ({ship}, {square}),
//   editor.moved ({ship}, {square}), editor.removed ({ship}), editor.cleared,
//   editor.random_done, editor.checking, editor.check_failed ({message}),
//   editor.sea_ok, editor.shape_label ({ship}, {size})

import { SeaGrid, squareName, parseSquare } from './sea.js';
import { t, tn } from './i18n.js';
import { el } from './dom.js';

/** EDITOR_KEYS: every i18n key this module asks for (tests check the page carries them). */
export const EDITOR_KEYS = [
  'editor.tray', 'editor.random', 'editor.clear', 'editor.rotate', 'editor.mirror', 'editor.remove',
  'editor.hint_pick', 'editor.hint_place', 'editor.hint_selected', 'editor.all_placed', 'editor.left',
  'editor.placed', 'editor.moved', 'editor.removed', 'editor.cleared', 'editor.random_done',
  'editor.checking', 'editor.check_failed', 'editor.sea_ok', 'editor.shape_label',
];

// ------------------------------------------------------------- pure shape maths

/** Shift cells so the smallest column and row are 0, sorted in reading order. */
export function normaliseCells(cells) {
  const minC = Math.min(...cells.map(([c]) => c));
  const minR = Math.min(...cells.map(([, r]) => r));
  return cells.map(([c, r]) => [c - minC, r - minR]).sort((a, b) => a[1] - b[1] || a[0] - b[0]);
}

/** "XXXX/.X.." -> [[0,0],[1,0],[2,0],[3,0],[1,1]] (X or # is ship, anything else water). */
export function parseShape(text) {
  const cells = [];
  String(text).trim().split('/').forEach((line, r) => {
    [...line.trim()].forEach((ch, c) => { if (ch === 'X' || ch === 'x' || ch === '#') cells.push([c, r]); });
  });
  if (!cells.length) throw new Error(`shape ${text} has no X`);
  return normaliseCells(cells);
}

/** A quarter turn clockwise. */
export function rotateCells(cells) {
  return normaliseCells(cells.map(([c, r]) => [-r, c]));
}

/** The mirror image (left <-> right). */
export function mirrorCells(cells) {
  return normaliseCells(cells.map(([c, r]) => [-c, r]));
}

/** Width and height of a normalised shape. */
export function extent(cells) {
  return { w: Math.max(...cells.map(([c]) => c)) + 1, h: Math.max(...cells.map(([, r]) => r)) + 1 };
}

/** A square's name in a grid's convention: letters = 'columns' ("B6" is column B, row 6,
 *  as in the air raid) or 'rows' ("B6" is row B, column 6, the classic Zeeslag board). */
export function nameSquare(col, row, letters = 'columns') {
  return letters === 'rows' ? squareName(row, col) : squareName(col, row);
}

/** "B6" -> {col, row} in a grid's convention; null when it is not a square name. */
export function readSquare(name, letters = 'columns') {
  const p = parseSquare(name);
  if (!p) return null;
  return letters === 'rows' ? { col: p.row, row: p.col } : p;
}

/** Squares -> {col, row, cells}: the bounding box's corner and the normalised shape. */
export function fromSquares(squares, letters = 'columns') {
  const pts = squares.map((s) => (typeof s === 'string' ? readSquare(s, letters) : s)).filter(Boolean);
  if (!pts.length) return null;
  const col = Math.min(...pts.map((p) => p.col));
  const row = Math.min(...pts.map((p) => p.row));
  return { col, row, cells: normaliseCells(pts.map((p) => [p.col, p.row])) };
}

/** The squares a placed ship covers, as {col,row}. */
export function coveredSquares(ship) {
  return ship.cells.map(([c, r]) => ({ col: ship.col + c, row: ship.row + r }));
}

/** Keep a ship's bounding box inside the sea (a ship never hangs off the edge). */
export function clampInside(ship, cols, rows) {
  const { w, h } = extent(ship.cells);
  return {
    ...ship,
    col: Math.max(0, Math.min(cols - w, ship.col)),
    row: Math.max(0, Math.min(rows - h, ship.row)),
  };
}

/** Put a shape so that its first square (reading order) lands on (col, row), then clamp. */
export function anchorAt(cells, col, row, cols, rows) {
  const [fc, fr] = cells[0];
  return clampInside({ cells, col: col - fc, row: row - fr }, cols, rows);
}

/** Turn or mirror a ship about its middle, so it stays where the eye left it. */
export function transformInPlace(ship, how, cols, rows) {
  const before = extent(ship.cells);
  const cells = how === 'mirror' ? mirrorCells(ship.cells) : rotateCells(ship.cells);
  const after = extent(cells);
  const col = ship.col + Math.round((before.w - after.w) / 2);
  const row = ship.row + Math.round((before.h - after.h) / 2);
  return clampInside({ ...ship, cells, col, row }, cols, rows);
}

/** Names for the ships of a fleet: "ship-two 1", "ship-two 2" when a kind repeats. */
export function fleetLabels(fleet, kinds) {
  const total = {};
  for (const k of fleet) total[k] = (total[k] || 0) + 1;
  const seen = {};
  return fleet.map((k) => {
    seen[k] = (seen[k] || 0) + 1;
    const name = (kinds[k] && kinds[k].name) || k;
    return total[k] > 1 ? `${name} ${seen[k]}` : name;
  });
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

// ------------------------------------------------------------------ the editor


export class SeaEditor {
  constructor(root, options) {
    this.root = root;
    this.o = { mirror: true, letters: 'columns', ...options };
    this.shapes = {};
    for (const [k, v] of Object.entries(this.o.kinds)) this.shapes[k] = parseShape(v.shape);
    this.labels = fleetLabels(this.o.fleet, this.o.kinds);
    // One slot per ship of the fleet: null in the tray, else {col, row, cells}.
    this.slots = this.o.fleet.map(() => null);
    this.armed = null;      // slot index picked in the tray
    this.selected = null;   // slot index of the placed ship selected on the grid
    this.preview = null;    // {slot, ship} while dragging
    this.problems = [];
    this.checking = false;
    this.checkOk = null;
    this._checkSeq = 0;
    this._checkTimer = null;
    this.disabled = false;
    this._build();
    if (this.o.ships && this.o.ships.length) this.setShips(this.o.ships, { quiet: true });
    else this._changed({ silent: true });
    this._onResize = () => this._placeTools();
    window.addEventListener('resize', this._onResize);
  }

  // ------------------------------------------------------------ public API

  /** The placed ships in fleet order: [{id, kind, squares}], ids A, B, … by slot. */
  ships() {
    const out = [];
    this.slots.forEach((ship, i) => {
      if (!ship) return;
      out.push({ id: LETTERS[i] || String(i + 1), kind: this.o.fleet[i], squares: coveredSquares(ship).map((p) => this._name(p.col, p.row)) });
    });
    return out;
  }

  /** How many ships are still in the tray. */
  left() { return this.slots.filter((s) => !s).length; }

  /** Names of the ships still in the tray. */
  leftNames() { return this.slots.map((s, i) => (s ? null : this.labels[i])).filter(Boolean); }

  complete() { return this.left() === 0; }

  /** Replace the sea with ships [{kind, squares}] (a draft or a random fleet). */
  setShips(ships, { quiet = false } = {}) {
    this.slots = this.o.fleet.map(() => null);
    const free = this.o.fleet.map((k, i) => i);
    for (const s of ships || []) {
      const i = free.find((j) => this.o.fleet[j] === s.kind);
      const placed = fromSquares(s.squares || [], this.o.letters);
      if (i === undefined || !placed) continue;
      free.splice(free.indexOf(i), 1);
      this.slots[i] = clampInside(placed, this.o.cols, this.o.rows);
    }
    this.armed = null;
    this.selected = null;
    this._changed({ silent: quiet });
  }

  /** Everything back to the tray. */
  clear() {
    this.slots = this.o.fleet.map(() => null);
    this.armed = null;
    this.selected = null;
    this._changed();
    this._say(t('editor.cleared'), 'ok');
  }

  /** Freeze the editor (while a lock is on its way), or free it again. */
  setDisabled(on) {
    this.disabled = Boolean(on);
    this.root.classList.toggle('is-disabled', this.disabled);
    for (const b of this.root.querySelectorAll('button')) {
      if (!b.classList.contains('sea-cell')) b.disabled = this.disabled;
    }
    if (on) { this.selected = null; this.armed = null; this._paint(); }
  }

  destroy() {
    window.removeEventListener('resize', this._onResize);
    clearTimeout(this._checkTimer);
    this.grid.destroy();
    this.root.replaceChildren();
  }

  // ---------------------------------------------------------------- building

  _build() {
    this.trayEl = el('div', { class: 'tray', role: 'group', 'aria-label': t('editor.tray') });
    this.trayHead = el('div', { class: 'editor-head' },
      el('h2', { class: 'editor-title', text: t('editor.tray') }),
      el('span', { class: 'editor-actions' },
        this.o.onRandom ? el('button', { type: 'button', class: 'btn', 'data-editor': 'random', onclick: () => this._random() }, t('editor.random')) : null,
        el('button', { type: 'button', class: 'btn btn-ghost', 'data-editor': 'clear', onclick: () => this.clear() }, t('editor.clear'))),
    );
    this.hintEl = el('p', { class: 'editor-hint muted', 'aria-live': 'polite' });
    this.seaEl = el('div', { class: 'sea-editor-grid' });
    this.toolsEl = el('div', { class: 'ship-tools', role: 'toolbar', hidden: true },
      el('button', { type: 'button', class: 'btn', 'data-tool': 'rotate', onclick: () => this._transform('rotate') }, el('span', { 'aria-hidden': 'true', text: '⟳' }), t('editor.rotate')),
      this.o.mirror ? el('button', { type: 'button', class: 'btn', 'data-tool': 'mirror', onclick: () => this._transform('mirror') }, el('span', { 'aria-hidden': 'true', text: '⇋' }), t('editor.mirror')) : null,
      el('button', { type: 'button', class: 'btn btn-danger', 'data-tool': 'remove', onclick: () => this._remove() }, el('span', { 'aria-hidden': 'true', text: '✕' }), t('editor.remove')),
    );
    this.stageEl = el('div', { class: 'sea-editor-stage' }, this.seaEl, this.toolsEl);
    this.problemsEl = el('ul', { class: 'sea-problems', 'aria-live': 'polite' });
    this.statusEl = el('p', { class: 'editor-status', role: 'status' });
    this.root.classList.add('sea-editor');
    this.root.replaceChildren(this.trayHead, this.trayEl, this.hintEl, this.stageEl, this.statusEl, this.problemsEl);
    this.grid = new SeaGrid(this.seaEl, {
      cols: this.o.cols,
      rows: this.o.rows,
      label: this.o.label,
      letters: this.o.letters,
      onTap: (cell) => this._tap(cell),
      canDrag: (cell) => !this.disabled && cell.ship !== null && cell.ship !== undefined,
      onDrag: (d) => this._drag(d),
    });
  }

  _trayButton(i) {
    const kind = this.o.fleet[i];
    const cells = this.shapes[kind];
    const { w, h } = extent(cells);
    const pic = el('span', { class: 'tray-shape', 'aria-hidden': 'true' });
    pic.style.setProperty('--w', String(w));
    pic.style.setProperty('--h', String(h));
    const set = new Set(cells.map(([c, r]) => `${c},${r}`));
    for (let r = 0; r < h; r++) for (let c = 0; c < w; c++) pic.append(el('span', { class: set.has(`${c},${r}`) ? 'on' : '' }));
    return el('button', {
      type: 'button', class: 'tray-ship', 'data-slot': i, 'data-kind': kind,
      'aria-pressed': this.armed === i ? 'true' : 'false',
      'aria-label': t('editor.shape_label', { ship: this.labels[i], size: cells.length }),
      disabled: this.disabled,
      onclick: () => this._arm(i),
    }, pic, el('span', { class: 'tray-name', text: this.labels[i] }));
  }

  // ---------------------------------------------------------------- painting

  _paint() {
    // The tray: one button per ship still to place.
    const items = this.slots.map((s, i) => (s ? null : this._trayButton(i))).filter(Boolean);
    if (!items.length) items.push(el('p', { class: 'tray-done', text: t('editor.all_placed') }));
    this.trayEl.replaceChildren(...items);

    const cells = [];
    const flagged = new Set();
    for (const p of this.problems) for (const sq of p.squares || []) flagged.add(sq);
    this.slots.forEach((ship, i) => {
      const shown = this.preview && this.preview.slot === i ? this.preview.ship : ship;
      if (!shown) return;
      for (const p of coveredSquares(shown)) {
        const name = this._name(p.col, p.row);
        const flags = [];
        if (this.selected === i || (this.preview && this.preview.slot === i)) flags.push('selected');
        if (flagged.has(name) && !(this.preview && this.preview.slot === i)) flags.push('touching');
        cells.push({ col: p.col, row: p.row, state: 'ship', ship: `s${i}`, note: this.labels[i], flags });
      }
    });
    this.grid.render({ cells });
    this._relabel();

    // The hint says what the next tap does.
    let hint;
    if (this.armed !== null) hint = t('editor.hint_place', { ship: this.labels[this.armed] });
    else if (this.selected !== null) hint = t('editor.hint_selected', { ship: this.labels[this.selected] });
    else if (this.left()) hint = t('editor.hint_pick');
    else hint = '';
    this.hintEl.textContent = hint ? hint.charAt(0).toLocaleUpperCase() + hint.slice(1) : '';
    this.hintEl.hidden = !hint;

    // The problems, in words, under the sea. While ships are still in the
    // tray, a problem without squares is about the count: the tray says that.
    const shown = this.problems.filter((p) => (p.squares && p.squares.length) || this.complete());
    this.problemsEl.replaceChildren(...shown.map((p) => el('li', { text: p.message })));
    this.problemsEl.hidden = !shown.length;
    if (this.checking && !shown.length) this.statusEl.textContent = t('editor.checking');
    else if (this.checkError) this.statusEl.textContent = t('editor.check_failed', { message: this.checkError });
    else if (this.complete() && this.checkOk) this.statusEl.textContent = t('editor.sea_ok');
    else if (this.left()) this.statusEl.textContent = tn('editor.left', this.left(), { n: this.left() });
    else this.statusEl.textContent = '';
    this.statusEl.dataset.kind = this.complete() && this.checkOk ? 'ok' : (shown.length || this.checkError ? 'refused' : '');

    for (const b of this.root.querySelectorAll('[data-editor]')) b.disabled = this.disabled;
    this._placeTools();
  }

  // The rotate / mirror / remove buttons sit beside the selected ship: below
  // it, or above it when the ship is near the bottom of the sea.
  _placeTools() {
    const tools = this.toolsEl;
    const i = this.selected;
    if (i === null || !this.slots[i] || this.disabled || this.preview) { tools.hidden = true; return; }
    tools.hidden = false;
    const stage = this.stageEl.getBoundingClientRect();
    let top = Infinity; let bottom = -Infinity; let left = Infinity; let right = -Infinity;
    for (const p of coveredSquares(this.slots[i])) {
      const node = this.grid.cellElement(p.col, p.row);
      if (!node) continue;
      const r = node.getBoundingClientRect();
      top = Math.min(top, r.top); bottom = Math.max(bottom, r.bottom);
      left = Math.min(left, r.left); right = Math.max(right, r.right);
    }
    if (!Number.isFinite(top)) { tools.hidden = true; return; }
    const tb = tools.getBoundingClientRect();
    const gap = 6;
    let y = bottom - stage.top + gap;
    if (y + tb.height > stage.height && top - stage.top - gap - tb.height >= 0) y = top - stage.top - gap - tb.height;
    let x = (left + right) / 2 - stage.left - tb.width / 2;
    x = Math.max(0, Math.min(stage.width - tb.width, x));
    tools.style.setProperty('left', `${Math.round(x)}px`);
    tools.style.setProperty('top', `${Math.round(y)}px`);
    tools.dataset.side = y < top - stage.top ? 'above' : 'below';
  }

  // ---------------------------------------------------------------- actions

  _name(col, row) { return nameSquare(col, row, this.o.letters); }

  // The edge labels, when the page gives them (a "rows" sea reads 1… across, A… down).
  _relabel() {
    const { columnLabels, rowLabels, cols } = this.o;
    if (!columnLabels && !rowLabels) return;
    const labels = this.seaEl.querySelectorAll('.sea-label');
    labels.forEach((node, i) => {
      if (i < cols) { if (columnLabels && columnLabels[i] !== undefined) node.textContent = columnLabels[i]; }
      else if (rowLabels && rowLabels[i - cols] !== undefined) node.textContent = rowLabels[i - cols];
    });
  }

  _say(text, kind = 'ok') {
    if (this.o.onSay) this.o.onSay(text, kind);
  }

  _arm(i) {
    if (this.disabled) return;
    this.armed = this.armed === i ? null : i;
    this.selected = null;
    this._paint();
  }

  _tap(cell) {
    if (this.disabled) return;
    if (this.armed !== null) {
      const i = this.armed;
      this.slots[i] = anchorAt(this.shapes[this.o.fleet[i]], cell.col, cell.row, this.o.cols, this.o.rows);
      this.armed = null;
      this.selected = i;   // selected at once: the next tap may rotate it
      const first = coveredSquares(this.slots[i])[0];
      this._say(t('editor.placed', { ship: this.labels[i], square: this._name(first.col, first.row) }), 'ok');
      this._changed();
      return;
    }
    const slot = typeof cell.ship === 'string' && cell.ship.startsWith('s') ? Number(cell.ship.slice(1)) : null;
    this.selected = slot !== null && this.selected !== slot ? slot : null;
    this._paint();
  }

  _transform(how) {
    const i = this.selected;
    if (i === null || !this.slots[i] || this.disabled) return;
    this.slots[i] = transformInPlace(this.slots[i], how, this.o.cols, this.o.rows);
    this._changed();
  }

  _remove() {
    const i = this.selected;
    if (i === null || this.disabled) return;
    this.slots[i] = null;
    this.selected = null;
    this._say(t('editor.removed', { ship: this.labels[i] }), 'ok');
    this._changed();
  }

  _drag({ phase, from, over }) {
    const i = typeof from.ship === 'string' ? Number(from.ship.slice(1)) : null;
    if (i === null || !this.slots[i]) return;
    const ship = this.slots[i];
    const moved = clampInside({ ...ship, col: ship.col + over.col - from.col, row: ship.row + over.row - from.row }, this.o.cols, this.o.rows);
    if (phase === 'move') {
      this.preview = { slot: i, ship: moved };
      this.armed = null;
      this._paint();
      return;
    }
    this.preview = null;
    if (phase === 'end') {
      this.slots[i] = moved;
      this.selected = i;
      const first = coveredSquares(moved)[0];
      this._say(t('editor.moved', { ship: this.labels[i], square: this._name(first.col, first.row) }), 'ok');
      this._changed();
    } else {
      this._paint();
    }
  }

  async _random() {
    if (!this.o.onRandom || this.disabled) return;
    try {
      const ships = await this.o.onRandom();
      if (Array.isArray(ships)) {
        this.setShips(ships);
        this._say(t('editor.random_done'), 'ok');
      }
    } catch (err) {
      this._say(err && err.message ? err.message : String(err), 'error');
    }
  }

  // ------------------------------------------------------------- feedback

  _changed({ silent = false } = {}) {
    const ships = this.ships();
    if (!silent && this.o.onChange) this.o.onChange(ships);
    this.checkOk = null;
    this.checkError = null;
    this._scheduleCheck();
    this._paint();
    this._status();
  }

  _status() {
    if (!this.o.onStatus) return;
    this.o.onStatus({
      complete: this.complete(),
      left: this.left(),
      leftNames: this.leftNames(),
      ok: this.complete() && this.checkOk === true,
      checking: this.checking,
      problems: this.problems.filter((p) => (p.squares && p.squares.length) || this.complete()),
      error: this.checkError,
    });
  }

  // Every change is checked by the server (the one judge of a legal sea),
  // shortly after the last tap; an answer to an older sea is dropped.
  _scheduleCheck() {
    clearTimeout(this._checkTimer);
    if (!this.o.check) return;
    const ships = this.ships();
    if (!ships.length) { this.problems = []; this.checking = false; return; }
    this.checking = true;
    const seq = ++this._checkSeq;
    this._checkTimer = setTimeout(async () => {
      let result = null;
      let error = null;
      try {
        result = await this.o.check(ships);
      } catch (err) {
        error = err && err.message ? err.message : String(err);
      }
      if (seq !== this._checkSeq) return;
      this.checking = false;
      if (error) {
        this.checkError = error;
        this.checkOk = null;
      } else {
        this.problems = Array.isArray(result && result.problems) ? result.problems : [];
        this.checkOk = Boolean(result && result.ok);
      }
      this._paint();
      this._status();
    }, 120);
  }
}
