// The Vestorsjø board: the server draws the map once (coast, hexes, ports, piers, names) into
// <svg id="vs-board">; this module draws the pieces, highlights and port counters over it from
// each view, and pans and zooms it (drag, pinch, wheel, buttons).
//
// Geometry is the map contract's (docs/maps.md), scaled by `unit` SVG units per hex step:
// pointy-top "odd-r" hexes, the centre of hex (col, row) at ((col + 0.5·(row & 1))·unit,
// row·√3/2·unit); a corner (submarines stand there) is the middle of its three hexes.
//
// Words come from the page (t() of lib/i18n.js), never from here: the caller hands in
// `names` (what to call a piece, a side) and the formatted chances.

const NS = 'http://www.w3.org/2000/svg';
const R3 = Math.sqrt(3);

/** Make an SVG element with attributes (no innerHTML: names come from data). */
export function svgEl(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'text') node.textContent = v;
    else node.setAttribute(k, String(v));
  }
  for (const c of children.flat(Infinity)) if (c) node.append(c);
  return node;
}

/** Parse a hex name ("F12") into {col, row} (zero-based). */
export function parseHex(name) {
  const m = /^([A-Z])(\d{1,3})$/.exec(String(name).trim().toUpperCase());
  if (!m) return null;
  return { col: m[1].charCodeAt(0) - 65, row: Number(m[2]) - 1 };
}

/** The centre of a hex in board units. */
export function hexXY(name, unit) {
  const h = parseHex(name);
  return [(h.col + 0.5 * (h.row & 1)) * unit, (h.row * R3 / 2) * unit];
}

/** The place of a piece: a hex's centre, or a corner ("F12/G12/F13") as the middle of its hexes. */
export function placeXY(place, unit) {
  if (!String(place).includes('/')) return hexXY(place, unit);
  const pts = String(place).split('/').map((p) => hexXY(p, unit));
  return [pts.reduce((s, p) => s + p[0], 0) / pts.length, pts.reduce((s, p) => s + p[1], 0) / pts.length];
}

/** The outline of a hex as a path. */
export function hexPath(name, unit, shrink = 1) {
  const [x, y] = hexXY(name, unit);
  const r = (unit / R3) * shrink;
  const pts = [];
  for (let i = 0; i < 6; i++) {
    const a = (Math.PI / 180) * (60 * i - 90);
    pts.push(`${(x + r * Math.cos(a)).toFixed(2)} ${(y + r * Math.sin(a)).toFixed(2)}`);
  }
  return `M${pts.join('L')}Z`;
}

/** The class letter's key, the side marker shape: the page turns them into words and glyphs. */
export const SIDE_GLYPH = { scania: '■', zealand: '●' };

/** A piece's number within its class ("scania.frigate-2" → 2), or '' for the only one. */
export function pieceNumber(id) {
  const m = /-(\d+)$/.exec(id);
  return m ? m[1] : '';
}

// ------------------------------------------------------------------ pan and zoom

/**
 * Pan and zoom an SVG by its viewBox. `box` is the whole board [x, y, w, h] in board units.
 * onTap(x, y, event) gets taps (not drags) in board units; onZoom(ppu) after every change
 * (ppu: screen pixels per board unit), so constant-size labels can follow.
 */
export class BoardView {
  constructor(svg, box, { onTap = () => {}, onZoom = () => {}, onResize = null, maxPpu = 12 } = {}) {
    this.svg = svg;
    this.box = box;
    this.onTap = onTap;
    this.onZoom = onZoom;
    this.onResize = onResize;
    this.maxPpu = maxPpu;
    this.touched = false; // the player panned or zoomed: a resize keeps their view
    this.cx = box[0] + box[2] / 2;
    this.cy = box[1] + box[3] / 2;
    this.ppu = 1;
    this.pointers = new Map();
    this.moved = false;
    this.pinch = null;
    svg.addEventListener('pointerdown', (e) => this._down(e));
    svg.addEventListener('pointermove', (e) => this._move(e));
    svg.addEventListener('pointerup', (e) => this._up(e));
    svg.addEventListener('pointercancel', (e) => { this.pointers.delete(e.pointerId); this.pinch = null; });
    svg.addEventListener('wheel', (e) => {
      e.preventDefault();
      this.touched = true;
      const [x, y] = this.toBoard(e.clientX, e.clientY);
      this.zoomAt(Math.exp(-e.deltaY * 0.0015), x, y);
    }, { passive: false });
    const resized = () => { if (this.onResize) this.onResize(); else this.apply(); };
    if (typeof ResizeObserver === 'function') new ResizeObserver(resized).observe(svg);
    else window.addEventListener('resize', resized);
  }

  size() {
    const r = this.svg.getBoundingClientRect();
    return [Math.max(1, r.width), Math.max(1, r.height)];
  }

  /** The smallest zoom: the whole board in view. */
  minPpu() {
    const [w, h] = this.size();
    return Math.min(w / this.box[2], h / this.box[3]);
  }

  apply() {
    const [w, h] = this.size();
    this.ppu = Math.min(this.maxPpu, Math.max(this.minPpu(), this.ppu));
    const vw = w / this.ppu;
    const vh = h / this.ppu;
    // Keep the board on screen: its centre may not leave the view.
    const [bx, by, bw, bh] = this.box;
    const slackX = Math.max(0, (bw - vw) / 2);
    const slackY = Math.max(0, (bh - vh) / 2);
    this.cx = Math.min(bx + bw / 2 + slackX, Math.max(bx + bw / 2 - slackX, this.cx));
    this.cy = Math.min(by + bh / 2 + slackY, Math.max(by + bh / 2 - slackY, this.cy));
    this.svg.setAttribute('viewBox', `${(this.cx - vw / 2).toFixed(2)} ${(this.cy - vh / 2).toFixed(2)} ${vw.toFixed(2)} ${vh.toFixed(2)}`);
    this.onZoom(this.ppu);
  }

  /** Show a region [x0, y0, x1, y1] as large as fits, but never below `minPx` pixels per hex. */
  fit(region, { minPpu = 0, maxPpu = Infinity, pad = 0 } = {}) {
    const [w, h] = this.size();
    const [x0, y0, x1, y1] = region;
    const rw = Math.max(1, x1 - x0 + 2 * pad);
    const rh = Math.max(1, y1 - y0 + 2 * pad);
    this.ppu = Math.min(maxPpu, Math.max(minPpu, Math.min(w / rw, h / rh)));
    this.cx = (x0 + x1) / 2;
    this.cy = (y0 + y1) / 2;
    this.apply();
  }

  whole() { this.fit([this.box[0], this.box[1], this.box[0] + this.box[2], this.box[1] + this.box[3]]); }

  centreOn(x, y) { this.cx = x; this.cy = y; this.apply(); }

  zoomAt(factor, x, y) {
    const before = this.ppu;
    this.ppu = Math.min(this.maxPpu, Math.max(this.minPpu(), this.ppu * factor));
    const k = before / this.ppu;
    // The board point under the finger stays under it.
    this.cx = x + (this.cx - x) * k;
    this.cy = y + (this.cy - y) * k;
    this.apply();
  }

  zoomBy(factor) { this.touched = true; this.zoomAt(factor, this.cx, this.cy); }

  toBoard(clientX, clientY) {
    const m = this.svg.getScreenCTM();
    if (!m) return [0, 0];
    const p = new DOMPoint(clientX, clientY).matrixTransform(m.inverse());
    return [p.x, p.y];
  }

  _down(e) {
    this.svg.setPointerCapture?.(e.pointerId);
    this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY, x0: e.clientX, y0: e.clientY });
    if (this.pointers.size === 1) this.moved = false;
    if (this.pointers.size === 2) {
      const [a, b] = [...this.pointers.values()];
      this.pinch = { d: Math.hypot(a.x - b.x, a.y - b.y), ppu: this.ppu };
      this.moved = true;
      this.touched = true;
    }
  }

  _move(e) {
    const p = this.pointers.get(e.pointerId);
    if (!p) return;
    const dx = e.clientX - p.x;
    const dy = e.clientY - p.y;
    p.x = e.clientX;
    p.y = e.clientY;
    if (this.pointers.size >= 2 && this.pinch) {
      const [a, b] = [...this.pointers.values()];
      const d = Math.hypot(a.x - b.x, a.y - b.y);
      const [mx, my] = this.toBoard((a.x + b.x) / 2, (a.y + b.y) / 2);
      this.zoomAt((this.pinch.ppu * (d / Math.max(1, this.pinch.d))) / this.ppu, mx, my);
      return;
    }
    if (!this.moved && Math.hypot(e.clientX - p.x0, e.clientY - p.y0) < 8) return;
    this.moved = true;
    this.touched = true;
    this.cx -= dx / this.ppu;
    this.cy -= dy / this.ppu;
    this.apply();
  }

  _up(e) {
    const had = this.pointers.has(e.pointerId);
    this.pointers.delete(e.pointerId);
    if (this.pointers.size < 2) this.pinch = null;
    if (had && !this.moved && this.pointers.size === 0) {
      const [x, y] = this.toBoard(e.clientX, e.clientY);
      this.onTap(x, y, e);
    }
  }
}

// ------------------------------------------------------------------ drawing a view

/** The standing pieces of a view (sunk ones stand one last turn; removed ones are gone). */
export function standing(view) {
  return view.pieces.filter((p) => !p.removed);
}

/** Board region [x0, y0, x1, y1] around some places. */
export function regionOf(places, unit) {
  if (!places.length) return null;
  const pts = places.map((p) => placeXY(p, unit));
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/**
 * Draw the pieces into `layer`. opts: {unit, letter(piece) → 'D', label(piece) → text,
 * selected: id, movable: Set of ids, targets: Map id → tag text}.
 */
export function drawPieces(layer, view, opts) {
  const { unit, letter, label, selected = null, movable = new Set(), targets = new Map() } = opts;
  const nodes = [];
  // Ships first, submarines over them (they stand on the ships' corners).
  const pieces = standing(view).sort((a, b) => (a.on === b.on ? 0 : a.on === 'vertex' ? 1 : -1));
  for (const p of pieces) {
    const [x, y] = placeXY(p.place, unit);
    const sub = p.on === 'vertex';
    const r = unit * (sub ? 0.22 : 0.35);
    const classes = ['vs-piece', `side-${p.side}`, `cls-${p.class}`];
    if (p.sunk) classes.push('is-sunk');
    if (p.id === selected) classes.push('is-selected');
    if (movable.has(p.id)) classes.push('is-movable');
    if (targets.has(p.id)) classes.push('is-target');
    if (sub) classes.push('is-sub');
    const body = p.side === 'scania'
      ? svgEl('rect', { class: 'vs-body', x: -r, y: -r, width: 2 * r, height: 2 * r, rx: r * 0.3 })
      : svgEl('circle', { class: 'vs-body', r: r * 1.08 });
    const parts = [];
    if (targets.has(p.id)) parts.push(svgEl('circle', { class: 'vs-target-ring', r: r * 1.55 }));
    if (p.id === selected) parts.push(svgEl('circle', { class: 'vs-select-ring', r: r * 1.5 }));
    parts.push(body);
    parts.push(svgEl('text', { class: 'vs-letter', y: sub ? r * 0.38 : p.defence > 1 ? -r * 0.02 : r * 0.36, text: letter(p) }));
    if (p.defence > 1 && !sub) {
      // Damage: one pip per point of defence, filled for each hit.
      const step = (2 * r * 0.8) / p.defence;
      const pips = [];
      for (let i = 0; i < p.defence; i++) {
        pips.push(svgEl('circle', { class: i < p.hits ? 'vs-pip is-hit' : 'vs-pip', cx: (-r * 0.8 + step * (i + 0.5)).toFixed(2), cy: (r * 0.58).toFixed(2), r: Math.min(step * 0.38, r * 0.16).toFixed(2) }));
      }
      parts.push(svgEl('g', { class: 'vs-pips' }, pips));
    }
    if (p.sunk) parts.push(svgEl('path', { class: 'vs-sunk-x', d: `M${-r * 0.8} ${-r * 0.8}L${r * 0.8} ${r * 0.8}M${r * 0.8} ${-r * 0.8}L${-r * 0.8} ${r * 0.8}` }));
    parts.push(svgEl('title', { text: label(p) }));
    nodes.push(svgEl('g', { class: classes.join(' '), 'data-piece': p.id, transform: `translate(${x.toFixed(2)} ${y.toFixed(2)})`, role: 'img', 'aria-label': label(p) }, parts));
  }
  layer.replaceChildren(...nodes);
}

/** Draw where a selected piece may move: hexes (ships) or corners (submarines). */
export function drawMoves(layer, places, unit) {
  const nodes = [];
  for (const to of places) {
    if (to.includes('/')) {
      const [x, y] = placeXY(to, unit);
      nodes.push(svgEl('circle', { class: 'vs-move-v', cx: x.toFixed(2), cy: y.toFixed(2), r: (unit * 0.2).toFixed(2), 'data-to': to }));
    } else {
      const [x, y] = hexXY(to, unit);
      nodes.push(svgEl('g', { class: 'vs-move', 'data-to': to },
        svgEl('path', { d: hexPath(to, unit, 0.92) }),
        svgEl('circle', { cx: x.toFixed(2), cy: y.toFixed(2), r: (unit * 0.12).toFixed(2) })));
    }
  }
  layer.replaceChildren(...nodes);
}

/**
 * Draw text tags that keep their size on screen (the layer's font-size follows the zoom):
 * tags: [{x, y, text, kind}] in board units.
 */
export function drawTags(layer, tags) {
  layer.replaceChildren(...tags.map((tag) => svgEl('text', { class: `vs-tag ${tag.kind || ''}`, x: tag.x.toFixed(2), y: tag.y.toFixed(2), 'data-tag': tag.id || null, text: tag.text })));
}

/** Find what a tap in board units hit: the nearest candidate within its reach. */
export function nearest(x, y, candidates) {
  let best = null;
  let bestScore = Infinity;
  for (const c of candidates) {
    const d = Math.hypot(c.x - x, c.y - y);
    if (d > c.reach) continue;
    const score = d / c.reach;
    if (score < bestScore) { best = c; bestScore = score; }
  }
  return best;
}

/**
 * Place the port names so that none runs off the board, over another name, or under a piece.
 * Names keep their size on screen, so this runs again at every zoom (and after every view: pieces
 * move). Each name tries its own side of the port first, then the other side, then below and
 * above the hex; strategic ports and forts choose first. A minor port's name that finds no free
 * place is hidden until the zoom gives it one; a strategic one keeps its own place.
 * `pieces`: the places of the standing pieces (hexes and corners), or none.
 */
export function keepLabelsIn(group, box, unit, pieces = []) {
  // What is on screen: the view, where it is set (a name may stand beyond the map's edge, but not
  // beyond the screen's).
  const vb = group.ownerSVGElement?.viewBox?.baseVal;
  const left = vb && vb.width ? vb.x : box[0];
  const right = vb && vb.width ? vb.x + vb.width : box[0] + box[2];
  const blocked = pieces.map((place) => {
    const [x, y] = placeXY(place, unit);
    const r = unit * (place.includes('/') ? 0.25 : 0.4);
    return { x: x - r, y: y - r, width: 2 * r, height: 2 * r };
  });
  const overlaps = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
  const texts = [...group.querySelectorAll('text[data-port]')];
  const rank = (t) => (t.classList.contains('is-strategic') ? 0 : t.classList.contains('is-fort') ? 1 : 2);
  texts.sort((a, b) => rank(a) - rank(b));
  const placed = [];
  for (const text of texts) {
    if (!text.dataset.x) {
      text.dataset.x = text.getAttribute('x');
      text.dataset.y = text.getAttribute('y');
      text.dataset.anchor = text.getAttribute('text-anchor');
    }
    const x = Number(text.dataset.x);
    const y = Number(text.dataset.y);
    const anchor = text.dataset.anchor;
    // The port's hex centre, from where its name was put (referee/web/modes/vestorsjo/board.py).
    const cx = anchor === 'start' ? x - unit * 0.62 : anchor === 'end' ? x + unit * 0.62 : x;
    const cy = anchor === 'middle' ? y - unit * 0.95 : y;
    const east = ['start', cx + unit * 0.62, cy];
    const west = ['end', cx - unit * 0.62, cy];
    const below = ['middle', cx, cy + unit * 0.95];
    const above = ['middle', cx, cy - unit * 0.78];
    const tries = anchor === 'start' ? [east, west, below, above] : anchor === 'end' ? [west, east, below, above] : [below, above, east, west];
    text.removeAttribute('display');
    let chosen = null;
    // A strategic port's name must be read: when nothing else is free it may stand over pieces,
    // then over another name, rather than off the screen.
    const rounds = rank(text) === 0 ? [[placed, blocked], [placed], []] : [[placed, blocked]];
    for (const obstacles of rounds) {
      for (const [a, tx, ty] of tries) {
        text.setAttribute('text-anchor', a);
        text.setAttribute('x', tx.toFixed(2));
        text.setAttribute('y', ty.toFixed(2));
        let b;
        try { b = text.getBBox(); } catch { b = null; }
        if (!b) { chosen = true; break; }
        const inside = b.x >= left && b.x + b.width <= right;
        if (inside && !obstacles.some((boxes) => boxes.some((q) => overlaps(b, q)))) { chosen = b; break; }
      }
      if (chosen) break;
    }
    if (chosen) { if (chosen !== true) placed.push(chosen); continue; }
    if (rank(text) > 0) { text.setAttribute('display', 'none'); continue; }
    text.setAttribute('text-anchor', anchor);
    text.setAttribute('x', String(x));
    text.setAttribute('y', String(y));
    try { placed.push(text.getBBox()); } catch { /* not laid out */ }
  }
}

/**
 * The drags on the board: each move as a dashed line from where the piece stood (a ghost ring
 * there) to where it went, each shot or attack as a line from the shooter to its target. `acts`:
 * [{kind, piece, origin, to, at}] of one side's drag, in order; `kind` of the layer: 'is-last' (a
 * drag that ended: the other side's last, or one stepped back to) or 'is-now' (the drag under way).
 */
export function drawTrail(layer, view, acts, unit, side, kind) {
  const nodes = [];
  const placeOf = (id) => view.pieces.find((p) => p.id === id)?.place || null;
  acts.forEach((a, i) => {
    const cls = `vs-trail ${kind} side-${side}`;
    if (a.kind === 'move' && a.origin && a.to) {
      const [x0, y0] = placeXY(a.origin, unit);
      const [x1, y1] = placeXY(a.to, unit);
      nodes.push(svgEl('g', { class: `${cls} is-move`, 'data-trail': a.piece },
        svgEl('circle', { class: 'vs-trail-ghost', cx: x0.toFixed(2), cy: y0.toFixed(2), r: (unit * 0.3).toFixed(2) }),
        svgEl('line', { x1: x0.toFixed(2), y1: y0.toFixed(2), x2: x1.toFixed(2), y2: y1.toFixed(2) })));
      return;
    }
    if (!a.to) return;
    // Where the shooter and the target stood when it fired (kept with the shot; an older log's
    // shot has neither: the shooter stood before any later move of its own in the drag).
    const later = acts.slice(i + 1).find((b) => b.kind === 'move' && b.piece === a.piece);
    const from = a.origin || (later ? later.origin : placeOf(a.piece));
    const at = a.at || placeOf(a.to);
    if (!from || !at) return;
    const [x0, y0] = placeXY(from, unit);
    const [x1, y1] = placeXY(at, unit);
    nodes.push(svgEl('g', { class: `${cls} is-shot`, 'data-trail': a.piece },
      svgEl('line', { x1: x0.toFixed(2), y1: y0.toFixed(2), x2: x1.toFixed(2), y2: y1.toFixed(2) }),
      svgEl('circle', { class: 'vs-trail-hit', cx: x1.toFixed(2), cy: y1.toFixed(2), r: (unit * 0.46).toFixed(2) })));
  });
  layer.replaceChildren(...nodes);
}

/** The side whose drag `last_turn` is: the one not to move now (or, the game over, the one that moved last). */
export function lastSide(view) {
  if (view.turn) return view.turn === 'scania' ? 'zealand' : 'scania';
  const last = view.last_turn[0];
  return last ? (view.pieces.find((p) => p.id === last.piece)?.side || 'scania') : 'scania';
}

/**
 * What a port takes, drawn in its hex (board units, so it grows with the zoom): the letter of
 * the largest class its depth admits, low on the left, and a ringed U, low on the right, where
 * submarines are safe. `letter(cls)` is the page's letter of a class.
 */
export function drawPortMarks(layer, view, unit, letter) {
  const nodes = [];
  for (const port of view.board.ports) {
    const [x, y] = hexXY(port.hex, unit);
    const low = y + unit * 0.26;
    nodes.push(svgEl('g', { class: `vs-depth depth-${port.depth}`, 'data-depth': port.name },
      svgEl('rect', { x: (x - unit * 0.36).toFixed(2), y: (low - unit * 0.13).toFixed(2), width: (unit * 0.26).toFixed(2), height: (unit * 0.26).toFixed(2), rx: (unit * 0.05).toFixed(2) }),
      svgEl('text', { x: (x - unit * 0.23).toFixed(2), y: (low + unit * 0.085).toFixed(2), text: letter(port.depth) })));
    if (port.safe) {
      nodes.push(svgEl('g', { class: 'vs-safe', 'data-safe': port.name },
        svgEl('circle', { cx: (x + unit * 0.23).toFixed(2), cy: low.toFixed(2), r: (unit * 0.14).toFixed(2) }),
        svgEl('text', { x: (x + unit * 0.23).toFixed(2), y: (low + unit * 0.08).toFixed(2), text: letter('submarine') })));
    }
  }
  layer.replaceChildren(...nodes);
}

/**
 * Range rings around a ship: the hexes at 1, 2, … `reach` steps lie on hexagons through their
 * centres (pointy-top hexes neighbour at 0°, 60°, … 300°), each numbered on its corner up and to the right.
 */
export function drawRange(layer, place, reach, unit) {
  if (!place || !reach || place.includes('/')) { layer.replaceChildren(); return; }
  const [cx, cy] = hexXY(place, unit);
  const nodes = [];
  for (let d = 1; d <= reach; d++) {
    const pts = [];
    for (let k = 0; k < 6; k++) {
      const a = (Math.PI / 3) * k;
      pts.push(`${(cx + d * unit * Math.cos(a)).toFixed(2)},${(cy + d * unit * Math.sin(a)).toFixed(2)}`);
    }
    nodes.push(svgEl('polygon', { class: d === reach ? 'vs-range is-reach' : 'vs-range', points: pts.join(' ') }));
    // Numbered on the corner up and to the right (port names stand east and west of their hexes).
    const a = -Math.PI / 3;
    nodes.push(svgEl('text', { class: 'vs-range-n', x: (cx + d * unit * Math.cos(a)).toFixed(2), y: (cy + d * unit * Math.sin(a) + unit * 0.12).toFixed(2), text: String(d) }));
  }
  layer.replaceChildren(...nodes);
}
