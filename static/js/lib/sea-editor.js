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
// How it feels (shared ux.md): tap a ship in the tray (one chip per kind, "×4"
// when four wait), tap the square for its anchor (the ship's first square,
// reading left to right, top to bottom); tap a placed ship to select it, and
// rotate / mirror / remove buttons appear in the row above the sea, never over
// a square; drag a placed ship to move it. A ship never hangs off the sea: it
// is pushed back inside. Squares the check names glow red (is-touching) with
// the reasons listed underneath. A sea whose squares would be under 44 px on
// this screen (10×10 on a phone) shows a window of 48 px squares instead, with
// an overview of the whole sea beside the tools (zoomLayout below).
//
// Keyboard: the tray chips and tools are buttons; the sea is one Tab stop whose
// arrow keys move the focus (a zoomed window follows it), Enter or Space taps;
// on the overview, the arrow keys move the window a page and Enter steps on.
//
// Strings (i18n.js keys; the page's i18n block must carry them):
//   editor.tray, editor.random, editor.clear, editor.rotate, editor.mirror,
//   editor.remove, editor.hint_pick, editor.hint_place, editor.hint_selected,
//   editor.all_placed, editor.left (plural, {n}), editor.placed ({ship}, {square}),
//   editor.moved ({ship}, {square}), editor.removed ({ship}), editor.cleared,
//   editor.random_done, editor.checking, editor.check_failed ({message}),
//   editor.sea_ok, editor.shape_label ({ship}, {size}), editor.map ({from}, {to})

import { SeaGrid, squareName, parseSquare } from './sea.js';
import { t, tn } from './i18n.js';
import { el } from './dom.js';

/** EDITOR_KEYS: every i18n key this module asks for (tests check the page carries them). */
export const EDITOR_KEYS = [
  'editor.tray', 'editor.random', 'editor.clear', 'editor.rotate', 'editor.mirror', 'editor.remove',
  'editor.hint_pick', 'editor.hint_place', 'editor.hint_selected', 'editor.all_placed', 'editor.left',
  'editor.placed', 'editor.moved', 'editor.removed', 'editor.cleared', 'editor.random_done',
  'editor.checking', 'editor.check_failed', 'editor.sea_ok', 'editor.shape_label',
  'editor.map',
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

// ------------------------------------------------------------ zoom maths

/** A sea keeps its plain, whole grid while its squares are at least this wide (px). */
export const PLAIN_MIN = 44;
/** A zoomed sea's squares: the shared ux.md's tap target (px). */
export const ZOOM_CELL = 48;
/** The edge labels of a zoomed sea (px): the same numbers in app.css's maths. */
export const LABEL_W = 24;
export const LABEL_H = 20;
const MIN_ROWS = 4;

/**
 * How to show a sea of cols × rows in `width` px, with `height` px for its squares and labels:
 * {zoom: false} when every square can be at least PLAIN_MIN wide, else {zoom: true, cell,
 * viewCols, viewRows}: a window of viewCols × viewRows whole squares of `cell` px (at least
 * ZOOM_CELL) that the player moves over the sea.
 */
export function zoomLayout({ width, height = Infinity, cols, rows }) {
  const room = width - LABEL_W;
  if (room / cols >= PLAIN_MIN) return { zoom: false };
  const viewCols = Math.max(1, Math.min(cols, Math.floor(room / ZOOM_CELL)));
  const high = height - LABEL_H;
  const viewRows = Math.max(Math.min(MIN_ROWS, rows), Math.min(rows, Math.floor(high / ZOOM_CELL)));
  const cell = Math.floor(Math.max(ZOOM_CELL, Math.min(room / viewCols, high / viewRows)));
  return { zoom: true, cell, viewCols, viewRows };
}

/** The first squares of each window position along one side: pages that end at the edge. */
export function viewStops(size, view) {
  const stops = [];
  for (let at = 0; at < size - view; at += view) stops.push(at);
  stops.push(Math.max(0, size - view));
  return stops;
}

/** The window's next place in reading order (Enter on the overview): [col, row], back to the start after the last. */
export function nextView(col, row, view, cols, rows) {
  const stops = viewStops(rows, view.rows).flatMap((r) => viewStops(cols, view.cols).map((c) => [c, r]));
  return stops.find(([c, r]) => r > row || (r === row && c > col)) || stops[0];
}

/** How far a window must move (squares) to show [lo, hi] whole: 0 when it already does. */
export function revealShift(first, view, lo, hi) {
  if (hi - lo + 1 > view || lo < first) return lo - first;
  if (hi > first + view - 1) return hi - (first + view - 1);
  return 0;
}

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
    this.zoom = null;       // zoomLayout() of a sea too big for the screen, else null
    this._laidKey = '';
    this._build();
    if (this.o.ships && this.o.ships.length) this.setShips(this.o.ships, { quiet: true });
    else this._changed({ silent: true });
    this._onResize = () => this._layout();
    window.addEventListener('resize', this._onResize);
    // The page's body too (a line above the editor that fills in moves the sea down), and the
    // action bar, whose result line may grow past the room kept for it.
    this._observer = typeof ResizeObserver === 'function' ? new ResizeObserver(() => { this._layout(); this._fitRows(); }) : null;
    if (this._observer) {
      for (const node of [this.root, document.body, document.querySelector('.actionbar')]) if (node) this._observer.observe(node);
    }
    this._layout();
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

  /** The squares of a zoomed sea in view now: {col, row, cols, rows} (the whole sea when not zoomed). */
  view() {
    if (!this.zoom) return { col: 0, row: 0, cols: this.o.cols, rows: this.o.rows };
    const { cell, viewCols, shownRows } = this.zoom;
    return {
      col: Math.round(this.windowEl.scrollLeft / cell),
      row: Math.round(this.windowEl.scrollTop / cell),
      cols: viewCols,
      rows: shownRows,
    };
  }

  /** Move a zoomed sea's window so its top left square is (col, row), kept on the sea. */
  showAt(col, row) {
    if (!this.zoom) return;
    const { cell, viewCols, shownRows } = this.zoom;
    const c = Math.max(0, Math.min(this.o.cols - viewCols, col));
    const r = Math.max(0, Math.min(this.o.rows - shownRows, row));
    this.windowEl.scrollTo({ left: c * cell, top: r * cell, behavior: 'instant' });
    this._paintMapFrame();
  }

  destroy() {
    window.removeEventListener('resize', this._onResize);
    if (this._observer) this._observer.disconnect();
    clearTimeout(this._checkTimer);
    this.grid.destroy();
    this.root.replaceChildren();
  }

  // ---------------------------------------------------------------- building

  _build() {
    this.trayEl = el('div', { class: 'tray', role: 'group', 'aria-label': t('editor.tray'), onscroll: () => this._trayEdges() });
    this.trayHead = el('div', { class: 'editor-head' },
      el('h2', { class: 'editor-title', text: t('editor.tray') }),
      el('span', { class: 'editor-actions' },
        this.o.onRandom ? el('button', { type: 'button', class: 'btn', 'data-editor': 'random', onclick: () => this._random() }, t('editor.random')) : null,
        el('button', { type: 'button', class: 'btn btn-ghost', 'data-editor': 'clear', onclick: () => this.clear() }, t('editor.clear'))),
    );
    this.hintEl = el('p', { class: 'editor-hint muted', 'aria-live': 'polite' });
    this.seaEl = el('div', { class: 'sea-editor-grid' });
    // The selected ship's tools have a row of their own above the sea: a toolbar laid over the
    // squares beside the ship would cover the very squares its touching warnings are about.
    const tool = (name, icon, text, extra = '') => el('button', { type: 'button', class: `btn ${extra}`.trim(), 'data-tool': name, onclick: () => (name === 'remove' ? this._remove() : this._transform(name)) },
      el('span', { class: 'tool-icon', 'aria-hidden': 'true', text: icon }), el('span', { class: 'tool-name', text }));
    this.toolsEl = el('div', { class: 'ship-tools', role: 'toolbar', hidden: true },
      tool('rotate', '⟳', t('editor.rotate')),
      this.o.mirror ? tool('mirror', '⇋', t('editor.mirror')) : null,
      tool('remove', '✕', t('editor.remove'), 'btn-danger'),
    );
    // A zoomed sea's overview: the whole sea small, the part in view framed; a tap looks there.
    this.mapGrid = el('span', { class: 'sea-map-grid' });
    this.mapFrame = el('span', { class: 'sea-map-frame' });
    this.mapGrid.append(this.mapFrame);
    this.mapEl = el('button', { type: 'button', class: 'sea-map', 'data-editor': 'map', hidden: true,
      onclick: (ev) => this._mapTap(ev), onkeydown: (ev) => this._mapKey(ev) },
    el('span', { class: 'sea-map-box', 'aria-hidden': 'true' }, this.mapGrid));
    this.mapGrid.style.setProperty('--map-cols', String(this.o.cols));
    this.mapGrid.style.setProperty('--map-rows', String(this.o.rows));
    this.mapCells = [];
    for (let r = 0; r < this.o.rows; r++) for (let c = 0; c < this.o.cols; c++) this.mapCells.push(el('span'));
    this.mapGrid.prepend(...this.mapCells);
    this.contextEl = el('div', { class: 'editor-context' }, this.hintEl, this.toolsEl, this.mapEl);
    this.windowEl = el('div', { class: 'sea-window', onscroll: () => this._paintMapFrame() }, this.seaEl);
    this.stageEl = el('div', { class: 'sea-editor-stage' }, this.windowEl);
    this.problemsEl = el('ul', { class: 'sea-problems', 'aria-live': 'polite' });
    this.statusEl = el('p', { class: 'editor-status', role: 'status' });
    this.root.classList.add('sea-editor');
    this.root.replaceChildren(this.trayHead, this.trayEl, this.contextEl, this.stageEl, this.statusEl, this.problemsEl);
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

  // The tray holds one chip per kind of ship still to place, with how many ("×4"): ten ships
  // of four kinds fit one row, and the sea under it stays on the screen.
  _trayChip(kind, slots) {
    const cells = this.shapes[kind];
    const { w, h } = extent(cells);
    const pic = el('span', { class: 'tray-shape', 'aria-hidden': 'true' });
    pic.style.setProperty('--w', String(w));
    pic.style.setProperty('--h', String(h));
    const set = new Set(cells.map(([c, r]) => `${c},${r}`));
    for (let r = 0; r < h; r++) for (let c = 0; c < w; c++) pic.append(el('span', { class: set.has(`${c},${r}`) ? 'on' : '' }));
    const n = slots.length;
    // A board mode names a ship in its own language and the page's ("slagskip · battleship"):
    // one line each keeps the chip narrow.
    const name = (this.o.kinds[kind] && this.o.kinds[kind].name) || kind;
    const shape = t('editor.shape_label', { ship: name, size: cells.length });
    return el('button', {
      type: 'button', class: 'tray-ship', 'data-slot': slots[0], 'data-kind': kind, 'data-count': n,
      'aria-pressed': this.armed !== null && this.o.fleet[this.armed] === kind ? 'true' : 'false',
      'aria-label': n > 1 ? `${shape}, ${tn('editor.left', n, { n })}` : shape,
      disabled: this.disabled,
      onclick: () => this._arm(slots[0]),
    }, pic, el('span', { class: 'tray-name' }, name.split(' · ').flatMap((part, i) => [
      // The two languages' names a line each; the separator stays in the text (copy, search, tests).
      ...(i ? [el('span', { class: 'tray-sep', text: ' · ' })] : []), el('span', { text: part })])), n > 1 ? el('span', { class: 'tray-count', 'aria-hidden': 'true', text: `×${n}` }) : null);
  }

  // ---------------------------------------------------------------- painting

  _paint() {
    // The tray: one chip per kind still to place, in the fleet's order.
    const waiting = new Map();
    this.slots.forEach((s, i) => {
      if (s) return;
      const k = this.o.fleet[i];
      if (!waiting.has(k)) waiting.set(k, []);
      waiting.get(k).push(i);
    });
    const items = [...waiting].map(([kind, slots]) => this._trayChip(kind, slots));
    if (!items.length) items.push(el('p', { class: 'tray-done', text: t('editor.all_placed') }));
    const trayScroll = this.trayEl.scrollLeft;
    this.trayEl.replaceChildren(...items);
    this.trayEl.scrollLeft = trayScroll;
    this._trayEdges();

    const cells = [];
    const flagged = new Set();
    for (const p of this.problems) for (const sq of p.squares || []) flagged.add(sq);
    const mapped = new Map();
    this.slots.forEach((ship, i) => {
      const shown = this.preview && this.preview.slot === i ? this.preview.ship : ship;
      if (!shown) return;
      for (const p of coveredSquares(shown)) {
        const name = this._name(p.col, p.row);
        const flags = [];
        if (this.selected === i || (this.preview && this.preview.slot === i)) flags.push('selected');
        if (flagged.has(name) && !(this.preview && this.preview.slot === i)) flags.push('touching');
        cells.push({ col: p.col, row: p.row, state: 'ship', ship: `s${i}`, note: this.labels[i], flags });
        mapped.set(p.row * this.o.cols + p.col, flags.includes('touching') ? 'on bad' : flags.includes('selected') ? 'on sel' : 'on');
      }
    });
    this.grid.render({ cells });
    this._relabel();
    this.mapCells.forEach((node, i) => { node.className = mapped.get(i) || ''; });

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

  // The tools row shows while a placed ship is selected; it keeps its place either way.
  _placeTools() {
    const i = this.selected;
    const on = i !== null && Boolean(this.slots[i]) && !this.disabled;
    this.toolsEl.hidden = !on;
    this.contextEl.classList.toggle('has-tools', on);
    if (on) this.toolsEl.setAttribute('aria-label', this.hintEl.textContent);
    this._layout();
  }

  // A fade at the tray's edge says more chips wait there.
  _trayEdges() {
    const tr = this.trayEl;
    this.trayEl.classList.toggle('is-more', tr.scrollLeft + tr.clientWidth < tr.scrollWidth - 1);
  }

  // ------------------------------------------------------------------ zoom

  // On a phone a 10×10 sea's squares would be 31 px: too small to tap. Such a sea shows a
  // window of whole squares of at least 48 px, as tall as the screen leaves under the editor's
  // rows, and scrolls under its edge labels: swipe the water, tap the overview, or move with
  // the arrow keys (the focused square scrolls into view).
  _layout() {
    const width = this.stageEl.clientWidth;
    if (!width) return;
    // Laid out again only when the width, the screen's height or the place of the window on
    // the page changed (a shown tab, a turned phone, a status line above the editor filled
    // in): never because the action bar grew, which the height budget has allowed for.
    const top = Math.round(this.windowEl.getBoundingClientRect().top + window.scrollY);
    const key = `${width}|${top}|${this._screenHeight()}`;
    if (key === this._laidKey) return;
    this._laidKey = key;
    const before = this.zoom ? this.view() : null;
    const z = zoomLayout({ width, height: this._roomBelow(), cols: this.o.cols, rows: this.o.rows });
    this.zoom = z.zoom ? { ...z, shownRows: z.viewRows } : null;
    const w = this.windowEl;
    this.root.classList.toggle('is-zoomed', Boolean(this.zoom));
    w.classList.toggle('is-zoomed', Boolean(this.zoom));
    const vars = { '--z-cell': `${z.cell}px`, '--z-cols': String(z.viewCols), '--z-rows': String(z.viewRows), '--z-label': `${LABEL_W}px`, '--z-label-h': `${LABEL_H}px` };
    for (const [k, v] of Object.entries(vars)) {
      if (this.zoom) w.style.setProperty(k, v); else w.style.removeProperty(k);
    }
    this.mapEl.hidden = !this.zoom;
    if (this.zoom) {
      w.setAttribute('data-view', `${z.viewCols}x${z.viewRows}`);
      this._fitRows();
      if (before) this.showAt(before.col, before.row);
      this._paintMapFrame();
    } else {
      w.removeAttribute('data-view');
    }
  }

  // A result line longer than the room kept for it (a refusal with a second line) would
  // cover the window's last row: the window gives that row up until the line is shorter
  // again. Its squares do not move; the row it gave up is a swipe away.
  _fitRows() {
    const z = this.zoom;
    if (!z) return;
    const high = this._roomBelow({ now: true }) - LABEL_H;
    const rows = Math.max(Math.min(MIN_ROWS, this.o.rows), Math.min(z.viewRows, Math.floor(high / z.cell)));
    if (rows === z.shownRows) return;
    z.shownRows = rows;
    this.windowEl.style.setProperty('--z-rows', String(rows));
    this.windowEl.setAttribute('data-view', `${z.viewCols}x${rows}`);
    this._paintMapFrame();
  }

  // The height left for the sea's window when the editor's rows sit under the page's sticky
  // header, above its action bar and the result line that appears in it after the first tap.
  // Whatever stands between the header and the editor counts up to 120 px: a status line
  // stays on screen, a card above (an invite) is scrolled past.
  _roomBelow({ now = false } = {}) {
    const doc = (node) => node.getBoundingClientRect().top + window.scrollY;
    const header = document.querySelector('.topbar');
    const headerH = header ? header.getBoundingClientRect().height : 0;
    const rootTop = doc(this.root);
    const top = headerH + Math.min(Math.max(0, rootTop - headerH), 120) + (doc(this.windowEl) - rootTop);
    // The bar's main button may not be shown yet (or wrap to two lines later): count at least
    // a two-line button's bar, and two lines of result; `now`: the bar as it is.
    const bar = document.querySelector('.actionbar');
    const barH = bar ? bar.getBoundingClientRect().height : 0;
    let bottom = now || !bar ? barH : Math.max(barH, 100);
    const result = bar && bar.querySelector('.result');
    if (!now && result && !result.offsetHeight) bottom += 84;   // the result line and its gap
    return this._screenHeight() - top - bottom - 4;
  }

  // The layout viewport's height with a phone's address bar shown: it does not change when
  // the bar folds away on a scroll.
  _screenHeight() {
    const h = document.documentElement.clientHeight;
    return h ? Math.min(h, window.innerHeight) : window.innerHeight;
  }

  _paintMapFrame() {
    if (!this.zoom) return;
    const v = this.view();
    const f = this.mapFrame;
    f.style.setProperty('left', `${(100 * v.col) / this.o.cols}%`);
    f.style.setProperty('top', `${(100 * v.row) / this.o.rows}%`);
    f.style.setProperty('width', `${(100 * v.cols) / this.o.cols}%`);
    f.style.setProperty('height', `${(100 * v.rows) / this.o.rows}%`);
    const last = { col: Math.min(this.o.cols, v.col + v.cols) - 1, row: Math.min(this.o.rows, v.row + v.rows) - 1 };
    const words = t('editor.map', { from: this._name(v.col, v.row), to: this._name(last.col, last.row) });
    this.mapEl.setAttribute('aria-label', words);
    this.mapEl.title = words;
  }

  // A tap on the overview centres the window on that point; Enter or Space (no point)
  // steps to the next part of the sea, in reading order.
  _mapTap(ev) {
    if (!this.zoom || this.disabled) return;
    const v = this.view();
    if (ev.detail === 0) {
      const [c, r] = nextView(v.col, v.row, v, this.o.cols, this.o.rows);
      this.showAt(c, r);
      return;
    }
    const box = this.mapGrid.getBoundingClientRect();
    const col = Math.floor(((ev.clientX - box.left) / box.width) * this.o.cols);
    const row = Math.floor(((ev.clientY - box.top) / box.height) * this.o.rows);
    this.showAt(col - Math.floor(v.cols / 2), row - Math.floor(v.rows / 2));
  }

  _mapKey(ev) {
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (!this.zoom || !moves[ev.key]) return;
    ev.preventDefault();
    const v = this.view();
    this.showAt(v.col + moves[ev.key][0] * v.cols, v.row + moves[ev.key][1] * v.rows);
  }

  // Bring a ship wholly into view after it was placed, turned or moved.
  _reveal(i) {
    if (!this.zoom || !this.slots[i]) return;
    const sq = coveredSquares(this.slots[i]);
    const v = this.view();
    const dc = revealShift(v.col, v.cols, Math.min(...sq.map((p) => p.col)), Math.max(...sq.map((p) => p.col)));
    const dr = revealShift(v.row, v.rows, Math.min(...sq.map((p) => p.row)), Math.max(...sq.map((p) => p.row)));
    if (dc || dr) this.showAt(v.col + dc, v.row + dr);
  }

  // A ship dragged onto the window's edge nudges the window one square on, so a ship can
  // be dragged across the whole sea.
  _nudge(over) {
    if (!this.zoom) return;
    const v = this.view();
    const dc = over.col <= v.col && v.col > 0 ? -1 : over.col >= v.col + v.cols - 1 ? 1 : 0;
    const dr = over.row <= v.row && v.row > 0 ? -1 : over.row >= v.row + v.rows - 1 ? 1 : 0;
    if (dc || dr) this.showAt(v.col + dc, v.row + dr);
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

  // A chip stands for every ship of its kind still in the tray: a second tap puts it down.
  _arm(i) {
    if (this.disabled) return;
    const same = this.armed !== null && this.o.fleet[this.armed] === this.o.fleet[i];
    this.armed = same ? null : i;
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
      this._reveal(i);
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
    this._reveal(i);
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
      this._nudge(over);
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
