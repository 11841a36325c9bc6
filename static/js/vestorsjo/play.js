// A Vestorsjø player's page: tap a piece, see where it may go and what it may hit (each target
// with its hit chance), tap to act; four action pips; End turn, Undo, Surrender; the log of
// every roll; the port counters; the outcome.
//
// The server sends this page the view of its role (vestorsjo.view_for): the whole game (it hides
// nothing) and the legal actions of the role, which drive every highlight. Every action goes
// out through conn.send() (Socket.IO) and comes back as a fresh view.
//
// Pass-and-play (page.hotseat): the device is the player of the side to move; when the turn
// passes, the page resyncs so that the server settles its role again and sends the mover's view.
//
// The page context (start() below) is handed to each panel: the map (mountBoard), the status
// line (paintStatus), the piece card (paintInfo), the ports, the log, the end card, and the
// action bar (mountBar). `ctx.view` is replaced by every update; `ctx.ui` is the page's own
// state (the selected piece, the aimed shot, an action on its way).

import { connectPage } from '../lib/conn.js';
import { t } from '../lib/i18n.js';
import { el, $, resultLine } from '../lib/dom.js';
import { BoardView, SIDE_GLYPH, drawPortMarks, drawRange, drawMoves, drawPieces, drawTags, hexXY, keepLabelsIn, nearest, pieceNumber, placeXY, regionOf, standing } from './board.js';
import { paintDrags } from './drags.js';
import { paintTables } from './tables.js';
import { Words } from './words.js';

const KIND_OF = { fire: 'fire', attack_submarine: 'attack_submarine' };

// ------------------------------------------------------------ what the role may do

const myTurn = (view) => !view.outcome && view.turn && view.turn === view.me;
const has = (view, type) => view.actions.find((a) => a.type === type) || null;

function actionsOf(view, pid) {
  const found = { move: null, fire: null, attack_submarine: null };
  for (const a of view.actions) if (a.piece === pid && a.type in found) found[a.type] = a;
  return found;
}

function offersOf(view, pid) {
  const offers = new Map();
  const acts = actionsOf(view, pid);
  for (const kind of ['fire', 'attack_submarine']) {
    for (const offer of acts[kind]?.targets || []) offers.set(offer.target, { kind, offer });
  }
  return offers;
}

const movable = (view) => new Set(view.actions.filter((a) => a.piece).map((a) => a.piece));
const pieceOf = (view, id) => view.pieces.find((p) => p.id === id && !p.removed) || null;

// ------------------------------------------------------------ narration

/** What changed between two views, said on the result line. */
function narrate(ctx, before, after) {
  const { say, words } = ctx;
  const fresh = after.rolls.slice(before.rolls.length);
  if (after.pending && !before.pending) {
    const p = after.pending;
    if (has(after, 'confirm_roll')) say(t('vs.confirm_q', { shooter: words.piece(p.piece), target: words.piece(p.target), pips: p.pips }), 'fight');
    else say(t('vs.wait_confirm', { side: words.side(after.turn === 'scania' ? 'zealand' : 'scania'), pips: p.pips }), 'queued');
    return;
  }
  if (before.pending && !after.pending && !fresh.length) {
    say(t('vs.disputed', { side: words.side(after.turn === 'scania' ? 'zealand' : 'scania') }), 'refused');
    return;
  }
  if (after.outcome && !before.outcome) {
    say(words.outcomeTitle(after.outcome), after.outcome.winner ? 'ok' : 'fight', after.outcome.detail || '');
    return;
  }
  if (fresh.length) {
    const last = fresh[fresh.length - 1];
    say(words.roll(last), words.rollKind(last));
    return;
  }
  if (after.turn && before.turn !== after.turn) {
    if (ctx.hotseat) say(t('vs.hand_over', { side: words.side(after.turn) }), 'ok');
    else if (after.turn === after.me) say(t('vs.your_turn'), 'ok');
    else say(t('vs.their_turn', { side: words.side(after.turn) }), 'ok');
  }
}

// ------------------------------------------------------------ taps: select, aim, move, strike

function onTap(ctx, x, y) {
  const { view, ui, unit: U, board } = ctx;
  if (ui.busy || view.outcome) return;
  const reach = (px) => px / board.ppu;
  const candidates = [];
  for (const p of standing(view)) {
    const [px, py] = placeXY(p.place, U);
    const sub = p.on === 'vertex';
    candidates.push({ kind: 'piece', id: p.id, x: px, y: py, reach: Math.max(U * (sub ? 0.3 : 0.5), reach(sub ? 20 : 26)) });
  }
  const acts = ui.selected ? actionsOf(view, ui.selected) : null;
  for (const to of acts?.move?.to || []) {
    const [px, py] = placeXY(to, U);
    candidates.push({ kind: 'move', to, x: px, y: py, reach: to.includes('/') ? Math.max(U * 0.3, reach(20)) : U * 0.56 });
  }
  const hit = nearest(x, y, candidates);
  if (!hit) { select(ctx, null); return; }
  if (hit.kind === 'move') { move(ctx, ui.selected, hit.to); return; }
  tapPiece(ctx, hit.id);
}

function tapPiece(ctx, id) {
  const { selected } = ctx.ui;
  if (selected && offersOf(ctx.view, selected).has(id)) { aimAt(ctx, selected, id); return; }
  select(ctx, selected === id ? null : id);
  if (ctx.ui.selected === id) bringIntoView(ctx, id);
}

/** Pan (and if need be zoom out, never below a tappable size) so a piece and all it may reach are on screen. */
function bringIntoView(ctx, id) {
  const { view } = ctx;
  const p = pieceOf(view, id);
  if (!p) return;
  const acts = actionsOf(view, id);
  const places = [p.place, ...(acts.move?.to || [])];
  for (const tid of offersOf(view, id).keys()) { const q = pieceOf(view, tid); if (q) places.push(q.place); }
  showPlaces(ctx, places);
}

/** Pan (and if need be zoom out, never below a tappable size) so some places are on screen. */
function showPlaces(ctx, places) {
  const { board, unit: U } = ctx;
  const region = regionOf(places, U);
  if (!region) return;
  const [w, h] = board.size();
  const pad = U * 0.8;
  const fitsAt = (ppu) => (region[2] - region[0] + 2 * pad) * ppu <= w && (region[3] - region[1] + 2 * pad) * ppu <= h;
  const vw = w / board.ppu;
  const vh = h / board.ppu;
  const inView = region[0] - pad >= board.cx - vw / 2 && region[2] + pad <= board.cx + vw / 2
    && region[1] - pad >= board.cy - vh / 2 && region[3] + pad <= board.cy + vh / 2;
  if (inView) return;
  board.touched = true;
  if (fitsAt(board.ppu)) { board.centreOn((region[0] + region[2]) / 2, (region[1] + region[3]) / 2); return; }
  // A tappable hex is 36 px: zoom out that far at most, else the piece and its nearest reach.
  board.fit(region, { minPpu: Math.min(board.ppu, 36 / U), maxPpu: board.ppu, pad });
}

function select(ctx, id, { centre = false } = {}) {
  const { view, ui, say, words } = ctx;
  ui.selected = id;
  ui.aim = null;
  const p = id ? pieceOf(view, id) : null;
  if (p) {
    const acts = actionsOf(view, id);
    const offers = offersOf(view, id);
    if (!myTurn(view) && view.turn) say(t('vs.wait_turn', { side: words.side(view.turn) }), 'refused');
    else if (p.side !== view.turn) say(words.label(p), 'ok');
    else if (!acts.move && !offers.size) say(t('vs.piece_done', { piece: words.piece(id) }), 'ok');
    else say(words.piece(id), 'ok', [acts.move ? t('vs.tap_move') : '', offers.size ? t('vs.tap_target') : ''].filter(Boolean).join(' · '));
    if (centre) { const [x, y] = placeXY(p.place, ctx.unit); ctx.board.touched = true; ctx.board.centreOn(x, y); }
  }
  ctx.render();
}

function aimAt(ctx, pid, tid) {
  const found = offersOf(ctx.view, pid).get(tid);
  if (!found) return;
  ctx.ui.aim = { piece: pid, target: tid, kind: found.kind, offer: found.offer };
  ctx.render();
}

async function move(ctx, pid, to) {
  const res = await ctx.send({ type: 'move', piece: pid, to });
  if (res) {
    ctx.say(t('vs.moved', { piece: ctx.words.piece(pid), to }), 'ok', has(ctx.view, 'undo') ? t('vs.undo_hint') : '');
    // Stay on the piece: it may still fire this turn.
    if (!pieceOf(ctx.view, pid)) ctx.ui.selected = null;
    ctx.render();
  }
}

async function strike(ctx, pips = null) {
  const { aim } = ctx.ui;
  if (!aim) return;
  const action = { type: KIND_OF[aim.kind], piece: aim.piece, target: aim.target };
  if (pips !== null) action.pips = pips;
  ctx.ui.aim = null;
  ctx.paintBar();
  await ctx.send(action);
}

// ------------------------------------------------------------ the map

/** The map (board.js BoardView: pan and zoom), the pieces, their moves and hit chances, the
 *  port tags, and the zoom buttons. Returns {render, fitFirst, view}. */
function mountBoard(ctx) {
  const U = ctx.unit;
  const svg = $('vs-board');
  const layers = { moves: $('vs-moves'), pieces: $('vs-pieces'), tags: $('vs-tags') };
  const labels = $('vs-labels');
  const coords = $('vs-coords');
  // The names over the pieces (under the chances): placed clear of them, or, a strategic port's
  // with no free place, readable over them (keepLabelsIn).
  layers.pieces.after(labels);
  let fitted = false;

  function onZoom(ppu) {
    labels.setAttribute('font-size', (12.5 / ppu).toFixed(3));
    coords.setAttribute('font-size', (11 / ppu).toFixed(3));
    layers.tags.setAttribute('font-size', (14 / ppu).toFixed(3));
    svg.classList.toggle('is-far', ppu * U < 30);
    relabel();
  }

  // The names are placed again once a frame at most (a pan or a pinch calls onZoom at every move).
  let relabelling = false;
  function relabel() {
    if (relabelling) return;
    relabelling = true;
    requestAnimationFrame(() => {
      relabelling = false;
      keepLabelsIn(labels, ctx.page.box, U, standing(ctx.view).map((p) => p.place));
    });
  }

  const boardView = new BoardView(svg, ctx.page.box, {
    onTap: (x, y) => onTap(ctx, x, y),
    onZoom,
    onResize: () => { if (!boardView.touched) { fitted = false; fitStart(); } },
  });

  function fitStart() {
    fitted = true;
    if (!boardView) return;
    const { view } = ctx;
    // Both fleets if they fit at a tappable size (36 px a hex), else the side to move's.
    const side = view.turn || view.me;
    const all = regionOf(standing(view).map((p) => p.place), U);
    if (!all) { boardView.whole(); return; }
    boardView.fit(all, { maxPpu: 5.5, pad: U * 1.3 });
    if (boardView.ppu >= 3.6) return;
    const mine = regionOf(standing(view).filter((p) => p.side === side).map((p) => p.place), U) || all;
    boardView.fit(mine, { minPpu: 3.6, maxPpu: 5.5, pad: U * 1.3 });
  }

  function paintBoard() {
    const { view, ui, words } = ctx;
    const { selected, aim } = ui;
    const offers = selected ? offersOf(view, selected) : new Map();
    const targets = new Map([...offers].map(([id, o]) => [id, words.pct(o.offer.chance)]));
    drawPieces(layers.pieces, view, {
      unit: U,
      letter: (p) => words.letter(p),
      label: (p) => words.label(p),
      selected,
      movable: myTurn(view) ? movable(view) : new Set(),
      targets,
    });
    const acts = selected ? actionsOf(view, selected) : null;
    drawMoves(layers.moves, acts?.move?.to || [], U);
    // How far the selected ship fires now: the gunnery table's ranges for the damage it fires with.
    const ship = selected ? pieceOf(view, selected) : null;
    const table = ship && ship.on === 'hex' ? view.ruleset.gunnery[ship.class] : null;
    drawRange($('vs-range'), ship && !ship.removed ? ship.place : null, table ? (table[ship.damage_for_fire] || []).length : 0, U);
    const tags = [];
    for (const [id, text] of targets) {
      const p = pieceOf(view, id);
      if (!p) continue;
      const [x, y] = placeXY(p.place, U);
      tags.push({ x, y: y - U * (p.on === 'vertex' ? 0.42 : 0.62), text, kind: aim && aim.target === id ? 'is-chance is-aimed' : 'is-chance', id: `chance-${id}` });
    }
    for (const port of view.board.ports) {
      if (!port.strategic || !port.holder) continue;
      const [x, y] = hexXY(port.hex, U);
      tags.push({ x, y: y + U * 0.95, text: `${SIDE_GLYPH[port.holder]} ${port.held}/${port.needed}`, kind: `is-hold side-${port.holder}`, id: `hold-${port.name}` });
    }
    drawTags(layers.tags, tags);
    drawPortMarks($('vs-portmarks'), view, U, (cls) => t(`vs.letter_${cls}`));
    relabel();
  }

  $('vs-zoom-in').addEventListener('click', () => boardView.zoomBy(1.4));
  $('vs-zoom-out').addEventListener('click', () => boardView.zoomBy(1 / 1.4));
  $('vs-zoom-all').addEventListener('click', () => boardView.whole());
  $('vs-zoom-mine').addEventListener('click', () => { fitted = false; fitStart(); boardView.touched = true; });

  return { render: paintBoard, fitFirst() { if (!fitted) fitStart(); }, view: boardView };
}

// ------------------------------------------------------------ the status line, the piece card, ports, log, end

function paintStatus(ctx) {
  const { view, words } = ctx;
  const turn = view.turn;
  const mark = $('vs-turn-mark');
  mark.className = `vs-side-mark side-${turn || 'none'}`;
  mark.textContent = turn ? SIDE_GLYPH[turn] : '✓';
  $('vs-turn-text').textContent = view.outcome ? words.outcomeTitle(view.outcome)
    : ctx.hotseat ? t('vs.to_move', { side: words.side(turn) })
      : turn === view.me ? t('vs.your_turn_side', { side: words.side(turn) }) : t('vs.their_turn', { side: words.side(turn) });
  $('vs-round').textContent = t('vs.round', { round: view.round });
  const per = view.ruleset.actions_per_turn;
  // Filled: actions still to use (from the left); hollow: used.
  const left = view.outcome ? per : view.actions_left;
  const pips = [];
  for (let i = 0; i < per; i++) pips.push(el('span', { class: i < left ? 'vs-act' : 'vs-act is-used', 'aria-hidden': 'true' }));
  $('vs-acts').replaceChildren(...pips);
  $('vs-acts').setAttribute('aria-label', t('vs.actions_left', { left: view.actions_left, total: per }));
  $('vs-acts-text').textContent = view.outcome ? '' : t('vs.actions_left', { left: view.actions_left, total: per });
}

/** The pieces that may still act, as buttons: a quick way to one on a big map. */
function pieceChips(ctx) {
  const { view, words } = ctx;
  const ready = movable(view);
  const mine = standing(view).filter((q) => q.side === view.turn);
  return [
    el('h3', { class: 'vs-info-title', text: t('vs.your_pieces', { side: words.side(view.turn) }) }),
    el('div', { class: 'vs-chips' }, mine.map((q) => el('button', {
      type: 'button',
      class: ready.has(q.id) ? `btn vs-chip side-${q.side}` : `btn vs-chip side-${q.side} is-done`,
      'data-select': q.id,
      'aria-label': words.label(q),
      onclick: () => select(ctx, q.id, { centre: true }),
    }, el('span', { class: `vs-side-mark side-${q.side}`, 'aria-hidden': 'true', text: words.letter(q) }),
    el('span', { text: `${pieceNumber(q.id)} ${q.sunk ? '✕' : `${q.hits}/${q.defence}`}` })))),
  ];
}

/** The selected piece's card (its facts and targets), else the pieces that may act. */
function paintInfo(ctx) {
  const { view, ui, words } = ctx;
  const box = $('vs-info');
  const p = ui.selected ? pieceOf(view, ui.selected) : null;
  if (!p) {
    if (!myTurn(view)) {
      box.replaceChildren(el('p', { class: 'muted', text: view.outcome ? '' : t('vs.wait_turn', { side: words.side(view.turn) }) }));
      return;
    }
    box.replaceChildren(...pieceChips(ctx));
    return;
  }
  const facts = [
    [t('vs.damage'), words.damage(p)],
    [t('vs.steps'), p.sunk ? t('vs.cannot_move') : t('vs.steps_n', { n: p.steps })],
  ];
  if (p.in_port.length) facts.push([t('vs.in_port'), p.in_port.join(', ')]);
  if (p.done.length) facts.push([t('vs.done'), p.done.map((k) => t(`vs.done_${k}`)).join(', ')]);
  const offers = [...offersOf(view, p.id)];
  box.replaceChildren(...[
    el('h3', { class: 'vs-info-title' }, el('span', { class: `vs-side-mark side-${p.side}`, 'aria-hidden': 'true', text: SIDE_GLYPH[p.side] }), ` ${words.piece(p.id)}`),
    el('dl', { class: 'facts' }, facts.map(([k, v]) => [el('dt', { text: k }), el('dd', { text: v })])),
    offers.length ? el('ul', { class: 'vs-targets' }, offers.map(([tid, { kind, offer }]) => el('li', {},
      el('button', {
        type: 'button', class: ui.aim && ui.aim.target === tid ? 'btn vs-target-btn is-aimed' : 'btn vs-target-btn', 'data-target': tid,
        onclick: () => aimAt(ctx, p.id, tid),
        text: t(kind === 'fire' ? 'vs.target_fire' : 'vs.target_attack', { target: words.piece(tid), chance: words.pct(offer.chance) })
          + (offer.table === 'gunnery' ? ` · ${t('vs.n_hexes', { n: offer.distance })}` : ''),
      })))) : null,
  ].filter(Boolean));
}

function paintPorts(ctx) {
  const { view, words } = ctx;
  const rows = view.board.ports.filter((port) => port.strategic).map((port) => el('li', { class: port.holder ? `is-held side-${port.holder}` : '' },
    el('span', { class: 'vs-port-star', 'aria-hidden': 'true', text: port.holder ? SIDE_GLYPH[port.holder] : '★' }),
    el('span', { text: words.hold(port) })));
  $('vs-ports').replaceChildren(...rows);
}

function paintLog(ctx) {
  const { view, words } = ctx;
  const rolls = [...view.rolls].reverse();
  $('vs-log').replaceChildren(...(rolls.length ? rolls.map((r) => el('li', { class: `vs-roll is-${words.rollKind(r)}`, 'data-seq': String(r.seq) },
    el('span', { class: 'vs-roll-round', text: t('vs.round_short', { round: r.round }) }),
    el('span', { class: `vs-side-mark side-${r.side}`, 'aria-hidden': 'true', text: SIDE_GLYPH[r.side] }),
    el('span', { text: words.roll(r) }))) : [el('li', { class: 'muted', text: t('vs.no_rolls') })]));
}

function paintEnd(ctx) {
  const { view, words } = ctx;
  const end = $('vs-end');
  end.hidden = !view.outcome;
  if (!view.outcome) return;
  $('vs-end-title').textContent = words.outcomeTitle(view.outcome);
  $('vs-end-detail').textContent = view.outcome.detail || '';
  $('vs-surrender-box').hidden = true;
}

// ------------------------------------------------------------ the action bar

/** The aimed shot (its dice or its Fire button), Undo, End turn and Surrender. Returns {render}. */
function mountBar(ctx) {
  const { ui } = ctx;

  function paintBar() {
    const { view, words } = ctx;
    const { aim, busy } = ui;
    const over = Boolean(view.outcome);
    const pending = over ? null : view.pending;
    const confirming = Boolean(pending) && Boolean(has(view, 'confirm_roll'));
    $('vs-confirm').hidden = !confirming;
    $('vs-wait-confirm').hidden = !pending || confirming;
    if (pending) {
      const enemy = view.turn === 'scania' ? 'zealand' : 'scania';
      $('vs-confirm-text').textContent = t('vs.confirm_q', { shooter: words.piece(pending.piece), target: words.piece(pending.target), pips: pending.pips });
      $('vs-confirm-yes').textContent = t('vs.confirm_yes', { pips: pending.pips });
      $('vs-wait-confirm').textContent = t('vs.wait_confirm', { side: words.side(enemy), pips: pending.pips });
      for (const b of [$('vs-confirm-yes'), $('vs-confirm-no')]) b.disabled = busy;
    }
    $('vs-aim').hidden = !aim || over || Boolean(pending);
    $('vs-turn-buttons').hidden = Boolean(aim) || over || Boolean(pending);
    if (aim && !over) {
      const { offer, kind } = aim;
      const parts = [t(kind === 'fire' ? 'vs.aim_fire' : 'vs.aim_attack', { shooter: words.piece(aim.piece), target: words.piece(aim.target) })];
      if (offer.table === 'gunnery') parts.push(t('vs.n_hexes', { n: offer.distance }));
      parts.push(t('vs.chance', { chance: words.pct(offer.chance) }));
      $('vs-aim-text').textContent = parts.join(' · ');
      const physical = view.dice === 'physical';
      $('vs-dice').hidden = !physical;
      $('vs-dice-hint').hidden = !physical;
      const go = $('vs-strike');
      go.hidden = physical;
      go.textContent = t(kind === 'fire' ? 'vs.fire_go' : 'vs.attack_go', { chance: words.pct(offer.chance) });
      go.setAttribute('aria-disabled', busy ? 'true' : 'false');
      for (const b of document.querySelectorAll('[data-pips]')) b.disabled = busy;
    }
    const undo = $('vs-undo');
    undo.disabled = busy || !has(view, 'undo');
    undo.hidden = !has(view, 'undo');
    const end = $('vs-end-turn');
    end.disabled = busy || !has(view, 'end_turn');
    end.textContent = t('vs.end_turn');
    $('vs-surrender').disabled = over || !has(view, 'surrender');
  }

  $('vs-undo').addEventListener('click', async () => {
    const res = await ctx.send({ type: 'undo' });
    if (res) ctx.say(t('vs.undone'), 'ok');
  });
  $('vs-end-turn').addEventListener('click', async () => {
    ui.selected = null;
    ui.aim = null;
    await ctx.send({ type: 'end_turn' });
  });
  $('vs-cancel-aim').addEventListener('click', () => { ui.aim = null; ctx.render(); });
  $('vs-cancel-dice').addEventListener('click', () => { ui.aim = null; ctx.render(); });
  $('vs-confirm-yes').addEventListener('click', () => ctx.send({ type: 'confirm_roll' }));
  $('vs-confirm-no').addEventListener('click', () => ctx.send({ type: 'dispute_roll' }));
  $('vs-strike').addEventListener('click', () => strike(ctx, null));
  for (const b of document.querySelectorAll('[data-pips]')) b.addEventListener('click', () => strike(ctx, Number(b.dataset.pips)));
  $('vs-surrender').addEventListener('click', () => {
    $('vs-surrender-text').textContent = t('vs.surrender_confirm', { side: ctx.words.side(ctx.view.me) });
    $('vs-surrender-box').hidden = false;
    $('vs-surrender-yes').focus();
  });
  $('vs-surrender-no').addEventListener('click', () => { $('vs-surrender-box').hidden = true; });
  $('vs-surrender-yes').addEventListener('click', async () => {
    $('vs-surrender-box').hidden = true;
    await ctx.send({ type: 'surrender', side: ctx.view.me });
  });

  return { render: paintBar };
}

// ------------------------------------------------------------ the page

function start() {
  const page = JSON.parse($('page-data').textContent);
  /** What every panel shares. */
  const ctx = {
    page,
    unit: page.unit,
    hotseat: Boolean(page.hotseat),
    view: page.view,
    words: new Words(page.view),
    ui: { selected: null, aim: null, busy: false },
    say: resultLine($('result')),
    send,
    render,
    paintBar: () => bar.render(),
  };
  const board = mountBoard(ctx);
  ctx.board = board.view;
  const bar = mountBar(ctx);

  const conn = connectPage({ game: page.game, initialSeq: page.seq ?? -1 }, { say: ctx.say, onView: receive, refusedKey: 'vs.refused' });
  ctx.conn = conn;
  // The friend's phone took the Zealand seat: the invite (a QR code that now opens only the projector) goes.
  conn.on('seats', ({ taken }) => {
    const invite = document.getElementById('vs-invite');
    if (invite && taken === 'zealand') invite.hidden = true;
  });

  function receive(v) {
    if (!v || v.mode !== 'vestorsjo') return;
    const { view, ui } = ctx;
    if (v.version < view.version || (v.version === view.version && v.role === view.role)) return;
    const before = view;
    ctx.view = v;
    ctx.words.set(v);
    if (ui.selected && !pieceOf(v, ui.selected)) ui.selected = null;
    if (ui.aim && !offersOf(v, ui.aim.piece).has(ui.aim.target)) ui.aim = null;
    narrate(ctx, before, v);
    render();
    // A pass-and-play device is the side to move: when the turn passes, ask again as that side.
    if (ctx.hotseat && v.turn && v.me !== v.turn) conn.resync();
  }

  async function send(action) {
    if (ctx.ui.busy) return null;
    ctx.ui.busy = true;
    bar.render();
    const res = await conn.send({ ...action, version: ctx.view.version });
    ctx.ui.busy = false;
    if (!res || res.ok === false) {
      ctx.say(t('vs.refused', { message: (res && (res.message || res.error)) || '?' }), 'refused');
      bar.render();
      return null;
    }
    if (res.view) receive(res.view);
    bar.render(); // the push may have brought this view already (receive then skips it)
    return res;
  }

  function render() {
    paintStatus(ctx);
    board.render();
    paintInfo(ctx);
    paintPorts(ctx);
    paintDrags(ctx.view, ctx.words, ctx.unit, (places) => showPlaces(ctx, places));
    paintTables(ctx.view, ctx.ui, ctx.words);
    paintLog(ctx);
    paintEnd(ctx);
    bar.render();
    board.fitFirst();
  }

  document.addEventListener('keydown', (e) => { if (e.key === 'Escape' && (ctx.ui.aim || ctx.ui.selected)) select(ctx, null); });

  conn.start();
  render();
  const { view, words } = ctx;
  ctx.say(view.outcome ? words.outcomeTitle(view.outcome) : myTurn(view) ? t('vs.tap_piece') : t('vs.their_turn', { side: words.side(view.turn) }), 'ok');
}

if (document.getElementById('page-data')) start();
