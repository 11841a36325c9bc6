// A sea grid: the sea editor, the target mini-grid and the live sea all use it.
//
// WHY one component: the three screens must draw a square the same way, so a
// player who learned "✕ on a filled square is a hit" on one screen reads it on
// every other. The look lives in app.css (.sea, .sea-cell, .is-*); this module
// only builds the DOM, keeps it in step with the data, and reports taps.
//
//   import { SeaGrid } from './sea.js';
//   const sea = new SeaGrid(document.getElementById('sea'), {
//     cols: 10, rows: 10,
//     cells: [
//       { square: 'C4', state: 'hit', ship: 'cruiser-1', note: 'cruiser' },
//       { col: 0, row: 0, state: 'miss', flags: ['dimmed'] },
//     ],
//     onTap: (cell) => console.log(cell.name, cell.state),   // "C4 hit"
//   });
//   sea.update([{ square: 'D4', state: 'miss' }]);
//   sea.setFlag('selected', ['C4'], { exclusive: true });
//
// Cell data: {col, row} (zero-based) or {square: 'C4'}; state: one of STATES
// (default water); flags: a list from FLAGS (or booleans: {dimmed: true});
// ship: an id shared by the squares of one ship (draws the ship's outline);
// note: extra words for screen readers ("cruiser").

import { t } from './i18n.js';

export const STATES = ['water', 'ship', 'hit', 'miss', 'sunk'];
export const FLAGS = ['dimmed', 'selected', 'touching', 'highlight'];
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Column letter(s) for a zero-based index: 0 -> A, 25 -> Z, 26 -> AA. */
export function colName(col) {
  let n = col + 1;
  let s = '';
  while (n > 0) {
    const r = (n - 1) % 26;
    s = LETTERS[r] + s;
    n = Math.floor((n - 1) / 26);
  }
  return s;
}

/** The game's name of a square: column letter, row number from 1 ("C4"). */
export function squareName(col, row) {
  return `${colName(col)}${row + 1}`;
}

/** "C4" -> {col: 2, row: 3}; null when it is not a square name. */
export function parseSquare(name) {
  const m = /^\s*([A-Za-z]{1,2})\s*(\d{1,3})\s*$/.exec(String(name));
  if (!m) return null;
  let col = 0;
  for (const ch of m[1].toUpperCase()) col = col * 26 + (ch.charCodeAt(0) - 64);
  return { col: col - 1, row: Number(m[2]) - 1 };
}

/** Normalise one cell record to {col, row, state, flags:Set, ship, note}. */
export function normaliseCell(cell) {
  let { col, row } = cell;
  if ((col === undefined || row === undefined) && cell.square) {
    const p = parseSquare(cell.square);
    if (p) ({ col, row } = p);
  }
  const flags = new Set(Array.isArray(cell.flags) ? cell.flags : []);
  for (const f of FLAGS) if (cell[f] === true) flags.add(f);
  const state = STATES.includes(cell.state) ? cell.state : 'water';
  return { col, row, state, flags, ship: cell.ship ?? null, note: cell.note ?? '' };
}

/**
 * Which sides of each ship square border something that is not the same
 * ship: those sides get a heavy line, so a ship reads as one outlined shape.
 * Pure: takes normalised cells, returns Map "col,row" -> ['t','r','b','l'].
 */
export function shipEdges(cells) {
  const owner = new Map();
  for (const c of cells) if (c.ship !== null && c.ship !== undefined) owner.set(`${c.col},${c.row}`, c.ship);
  const out = new Map();
  for (const c of cells) {
    if (c.ship === null || c.ship === undefined) continue;
    const sides = [];
    if (owner.get(`${c.col},${c.row - 1}`) !== c.ship) sides.push('t');
    if (owner.get(`${c.col + 1},${c.row}`) !== c.ship) sides.push('r');
    if (owner.get(`${c.col},${c.row + 1}`) !== c.ship) sides.push('b');
    if (owner.get(`${c.col - 1},${c.row}`) !== c.ship) sides.push('l');
    out.set(`${c.col},${c.row}`, sides);
  }
  return out;
}

/** Words for a cell, for aria-label: "C4 hit, cruiser, selected". */
export function describeCell(cell, name = squareName) {
  const parts = [`${name(cell.col, cell.row)} ${t(`sea.${cell.state}`)}`];
  if (cell.note) parts.push(cell.note);
  for (const f of FLAGS) if (cell.flags.has(f)) parts.push(t(`sea.${f}`));
  return parts.join(', ');
}

export class SeaGrid {
  /**
   * container: an element to fill (its children are replaced).
   * options:
   *   cols, rows      size (required)
   *   cells           cell records (squares not listed are water)
   *   label           accessible name of the grid ("Your sea")
   *   mini            smaller variant (target mini-grid)
   *   letters         'columns' (default: "C4" is column C, row 4) or 'rows'
   *                   ("B6" is row B, column 6: Zeeslag); names in data-square and labels
   *   onTap(cell, ev) called for a tap or Enter/Space on a square; cell is
   *                   {col, row, name, state, flags:[...], ship, note}.
   *                   Dimmed squares are reported too (so the page can say
   *                   "Already shot at C4"). No onTap: a read-only picture.
   *   canDrag(cell)   true where a drag may start (placed ships in the editor)
   *   onDrag({phase: 'move'|'end'|'cancel', from, over})  squares as cells
   */
  constructor(container, options) {
    this.el = container;
    this.options = { ...options };
    this.cells = new Map();   // "col,row" -> normalised cell
    this.buttons = new Map(); // "col,row" -> element
    this._focusKey = null;
    this._drag = null;
    this._suppressClick = false;
    this._onClick = (ev) => this._click(ev);
    this._onKey = (ev) => this._key(ev);
    this._onDown = (ev) => this._pointerDown(ev);
    this._onMove = (ev) => this._pointerMove(ev);
    this._onUp = (ev) => this._pointerUp(ev);
    this._onCancel = () => this._pointerEnd('cancel');
    this.el.addEventListener('click', this._onClick);
    this.el.addEventListener('keydown', this._onKey);
    this.el.addEventListener('pointerdown', this._onDown);
    this.render(options);
  }

  get interactive() { return typeof this.options.onTap === 'function'; }

  /** Build the grid anew (size or everything changed). */
  render(data = {}) {
    Object.assign(this.options, data);
    const { cols, rows, label, mini } = this.options;
    if (!(cols > 0 && rows > 0)) throw new Error('SeaGrid needs cols and rows');
    const el = this.el;
    el.classList.add('sea');
    el.classList.toggle('sea--mini', Boolean(mini));
    el.classList.toggle('sea--readonly', !this.interactive);
    el.dataset.cols = String(cols);
    el.dataset.rows = String(rows);
    // Sizes up to 26 are matched in CSS by data-cols; beyond that the CSSOM
    // (allowed by the CSP, unlike a style="" attribute).
    if (cols > 26) el.style.setProperty('--cols', String(cols));
    el.setAttribute('role', 'group');
    if (label) el.setAttribute('aria-label', label);

    this.cells.clear();
    this.buttons.clear();
    for (let row = 0; row < rows; row++) {
      for (let col = 0; col < cols; col++) {
        this.cells.set(`${col},${row}`, normaliseCell({ col, row }));
      }
    }
    for (const raw of this.options.cells || []) {
      const c = normaliseCell(raw);
      if (this.cells.has(`${c.col},${c.row}`)) this.cells.set(`${c.col},${c.row}`, c);
    }

    const frag = document.createDocumentFragment();
    const corner = document.createElement('span');
    corner.className = 'sea-corner';
    corner.setAttribute('aria-hidden', 'true');
    frag.append(corner);
    for (let col = 0; col < cols; col++) frag.append(this._label(colName(col), 'col'));
    for (let row = 0; row < rows; row++) {
      frag.append(this._label(String(row + 1), 'row'));
      for (let col = 0; col < cols; col++) {
        const node = document.createElement(this.interactive ? 'button' : 'span');
        if (this.interactive) {
          node.type = 'button';
          node.tabIndex = -1;
        } else {
          node.setAttribute('role', 'img');
        }
        node.dataset.col = String(col);
        node.dataset.row = String(row);
        node.dataset.square = this._name(col, row);
        this.buttons.set(`${col},${row}`, node);
        frag.append(node);
      }
    }
    // A key press that changes the sea rebuilds it: the square that had the focus keeps it,
    // so a keyboard player goes on where they were.
    const hadFocus = this.interactive && el.contains(document.activeElement);
    el.replaceChildren(frag);
    this._paintAll();
    if (this.interactive) {
      const keep = this._focusKey && this.buttons.has(this._focusKey) ? this._focusKey : '0,0';
      this._setFocusable(keep);
      if (hadFocus) this.buttons.get(keep).focus({ preventScroll: true });
    }
    return this;
  }

  /** Change some squares (same records as `cells`); others keep their state. */
  update(cells) {
    for (const raw of cells) {
      const c = normaliseCell(raw);
      if (this.cells.has(`${c.col},${c.row}`)) this.cells.set(`${c.col},${c.row}`, c);
    }
    this._paintAll();   // edges of neighbours may change too; 400 squares is cheap
    return this;
  }

  /** Turn a flag on for some squares ("C4" or {col,row}); exclusive clears it elsewhere. */
  setFlag(flag, squares, { on = true, exclusive = false } = {}) {
    if (exclusive) for (const c of this.cells.values()) c.flags.delete(flag);
    for (const sq of squares) {
      const p = typeof sq === 'string' ? parseSquare(sq) : sq;
      const c = p && this.cells.get(`${p.col},${p.row}`);
      if (!c) continue;
      if (on) c.flags.add(flag); else c.flags.delete(flag);
    }
    this._paintAll();
    return this;
  }

  clearFlag(flag) {
    for (const c of this.cells.values()) c.flags.delete(flag);
    this._paintAll();
    return this;
  }

  /** The element of a square. */
  cellElement(col, row) { return this.buttons.get(`${col},${row}`) || null; }

  /** The data of a square, as passed to onTap. */
  cellData(col, row) {
    const c = this.cells.get(`${col},${row}`);
    return c ? this._public(c) : null;
  }

  focusSquare(col, row) {
    const key = `${col},${row}`;
    if (!this.buttons.has(key)) return;
    this._setFocusable(key);
    this.buttons.get(key).focus();
  }

  destroy() {
    this.el.removeEventListener('click', this._onClick);
    this.el.removeEventListener('keydown', this._onKey);
    this.el.removeEventListener('pointerdown', this._onDown);
    this._pointerEnd('cancel');
    this.el.replaceChildren();
  }

  // ---------------------------------------------------------------- internals

  // Column and row labels are told apart so a zoomed sea (the sea editor on a
  // phone) can keep them in view while the squares scroll under them.
  _label(text, axis) {
    const s = document.createElement('span');
    s.className = `sea-label sea-label--${axis}`;
    s.setAttribute('aria-hidden', 'true');
    s.textContent = text;
    return s;
  }

  // The board modes name squares either way: letters = 'rows' makes "B6" row B, column 6.
  _name(col, row) {
    return this.options.letters === 'rows' ? squareName(row, col) : squareName(col, row);
  }

  _public(c) {
    return {
      col: c.col, row: c.row, name: this._name(c.col, c.row),
      state: c.state, flags: [...c.flags], ship: c.ship, note: c.note,
    };
  }

  _paintAll() {
    const edges = shipEdges([...this.cells.values()]);
    const canDrag = this.options.canDrag;
    for (const [key, c] of this.cells) {
      const node = this.buttons.get(key);
      if (!node) continue;
      const cls = ['sea-cell', `is-${c.state}`];
      for (const f of c.flags) cls.push(`is-${f}`);
      for (const side of edges.get(key) || []) cls.push(`edge-${side}`);
      if (this.interactive && canDrag && canDrag(this._public(c))) cls.push('is-draggable');
      node.className = cls.join(' ');
      node.setAttribute('aria-label', describeCell(c, (col, row) => this._name(col, row)));
      if (this.interactive) {
        if (c.flags.has('dimmed')) node.setAttribute('aria-disabled', 'true');
        else node.removeAttribute('aria-disabled');
        node.setAttribute('aria-pressed', c.flags.has('selected') ? 'true' : 'false');
      }
    }
  }

  // Roving tabindex: the grid is one Tab stop, arrows move inside it.
  _setFocusable(key) {
    if (this._focusKey && this.buttons.has(this._focusKey)) this.buttons.get(this._focusKey).tabIndex = -1;
    this._focusKey = key;
    const node = this.buttons.get(key);
    if (node) node.tabIndex = 0;
  }

  _target(ev) {
    const node = ev.target instanceof Element ? ev.target.closest('.sea-cell') : null;
    if (!node || !this.el.contains(node)) return null;
    return { node, col: Number(node.dataset.col), row: Number(node.dataset.row) };
  }

  _click(ev) {
    if (!this.interactive) return;
    if (this._suppressClick) { this._suppressClick = false; return; }
    const hit = this._target(ev);
    if (!hit) return;
    this._setFocusable(`${hit.col},${hit.row}`);
    this.options.onTap(this.cellData(hit.col, hit.row), ev);
  }

  _key(ev) {
    const hit = this._target(ev);
    if (!hit) return;
    const moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    let col = hit.col;
    let row = hit.row;
    if (moves[ev.key]) {
      col = Math.min(this.options.cols - 1, Math.max(0, col + moves[ev.key][0]));
      row = Math.min(this.options.rows - 1, Math.max(0, row + moves[ev.key][1]));
    } else if (ev.key === 'Home') col = 0;
    else if (ev.key === 'End') col = this.options.cols - 1;
    else return;
    ev.preventDefault();
    this.focusSquare(col, row);
  }

  // Drag to move a placed ship (sea editor). Pointer events cover mouse,
  // touch and pen; draggable squares have touch-action: none (CSS) so the
  // page does not scroll under the finger, everything else still scrolls.
  _pointerDown(ev) {
    const { canDrag, onDrag } = this.options;
    if (!this.interactive || !canDrag || !onDrag || ev.button > 0) return;
    const hit = this._target(ev);
    if (!hit) return;
    const from = this.cellData(hit.col, hit.row);
    if (!canDrag(from)) return;
    this._drag = { from, over: from, moved: false, id: ev.pointerId };
    try { this.el.setPointerCapture(ev.pointerId); } catch { /* synthetic events */ }
    this.el.addEventListener('pointermove', this._onMove);
    this.el.addEventListener('pointerup', this._onUp);
    this.el.addEventListener('pointercancel', this._onCancel);
  }

  _pointerMove(ev) {
    const d = this._drag;
    if (!d || ev.pointerId !== d.id) return;
    // With pointer capture, ev.target stays the grid: find the square under
    // the finger by position instead.
    const under = document.elementFromPoint(ev.clientX, ev.clientY);
    const node = under && under.closest ? under.closest('.sea-cell') : null;
    if (!node || !this.el.contains(node)) return;
    const over = this.cellData(Number(node.dataset.col), Number(node.dataset.row));
    if (over.col === d.over.col && over.row === d.over.row) return;
    d.over = over;
    d.moved = true;
    this.options.onDrag({ phase: 'move', from: d.from, over });
  }

  _pointerUp(ev) {
    if (!this._drag || ev.pointerId !== this._drag.id) return;
    this._pointerEnd('end');
  }

  _pointerEnd(phase) {
    const d = this._drag;
    this.el.removeEventListener('pointermove', this._onMove);
    this.el.removeEventListener('pointerup', this._onUp);
    this.el.removeEventListener('pointercancel', this._onCancel);
    this._drag = null;
    if (!d) return;
    if (d.moved) {
      // A drag is not also a tap. Touch drags often fire no click at all,
      // so the guard expires on its own rather than eat the next real tap.
      this._suppressClick = phase === 'end';
      setTimeout(() => { this._suppressClick = false; }, 60);
      this.options.onDrag({ phase, from: d.from, over: d.over });
    }
  }
}

/** Shorthand: new SeaGrid(container, options). */
export function renderSea(container, options) {
  return new SeaGrid(container, options);
}
