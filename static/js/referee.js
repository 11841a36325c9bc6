// The referee's dashboard (templates/games/referee.html).
//
// Everything that changes is drawn from the referee view (airraid.view_for
// with the referee role, see docs/web-contract.md) whenever a new one arrives
// over conn.js. Every button sends one air-raid action and says the result
// right under the clock ("Hit! Sharks at C4", "Refused: …").
//
// The note describer (describeNote) is exported for the projector page, which
// shows the same events in the same words. Importing this module does not
// start the dashboard: that only happens on the page that has #page-data and
// body.page-referee.

import { Connection, bindBadge } from './conn.js';
import { Countdown, SoundCues, soundButton, formatMs } from './timer.js';
import { SeaGrid } from './sea.js';
import { t, pageLang } from './i18n.js';

// ------------------------------------------------------------------ helpers

/** Build an element: h('p', {class: 'x', dataset: {a: 1}, onclick: fn}, 'text', child). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'text') el.textContent = v;
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export function readJson(id, fallback = null) {
  const el = document.getElementById(id);
  if (!el) return fallback;
  try { return JSON.parse(el.textContent || 'null') ?? fallback; } catch { return fallback; }
}

/** A team's symbol + letter (the same as the team_mark macro). */
export function teamMark(team) {
  const t0 = String(team || '').toUpperCase();
  const symbol = { A: '▲', B: '●' }[t0] || '■';
  return h('span', { class: `team-mark team-${t0.toLowerCase()}`, role: 'img', 'aria-label': t0 }, `${symbol} ${t0}`);
}

/** Text colour (black or white) that reads on a background colour. */
export function inkFor(hex) {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(String(hex || ''));
  if (!m) return '#000000';
  const lin = (c) => { const s = parseInt(c, 16) / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; };
  const L = 0.2126 * lin(m[1]) + 0.7152 * lin(m[2]) + 0.0722 * lin(m[3]);
  return L > 0.179 ? '#000000' : '#ffffff';
}

const DEFAULT_COLOURS = { A: '#0072b2', B: '#e69f00' };

/** Use the teams' chosen colours for every .team-a/.team-b on the page (CSSOM: CSP-safe). */
export function applyTeamColours(teams) {
  const root = document.documentElement.style;
  for (const id of ['A', 'B']) {
    const colour = teams && teams[id] && teams[id].colour;
    const lower = id.toLowerCase();
    if (colour && colour.toLowerCase() !== DEFAULT_COLOURS[id]) {
      root.setProperty(`--team-${lower}`, colour);
      root.setProperty(`--team-${lower}-ink`, inkFor(colour));
    } else {
      root.removeProperty(`--team-${lower}`);
      root.removeProperty(`--team-${lower}-ink`);
    }
  }
}

export function teamName(view, team) {
  return (view && view.teams && view.teams[team] && view.teams[team].name) || team || '';
}

export function corridorName(c) {
  const key = `corridor.${c}`;
  const s = t(key);
  return s === key ? String(c) : s;
}

export function shipKindName(kind) {
  const key = `ship.${kind}`;
  const s = t(key);
  return s === key ? String(kind || '') : s;
}

export function kindName(kind) {
  const key = `kind.${kind}`;
  const s = t(key);
  return s === key ? String(kind) : s;
}

/** The team letter of an order id like "2B3" (round, team, serial). */
export function orderTeam(orderId) {
  const m = /^\d+([A-Z])\d+$/.exec(String(orderId || ''));
  return m ? m[1] : null;
}

/** A ship's name: from the sea view (referee) or the ship letter. */
function shipName(view, team, shipId) {
  const sea = view && view.seas && view.seas[team];
  const ship = sea && sea.ships && sea.ships.find((s) => s.id === shipId);
  return ship ? `${ship.name} ${shipId}` : String(shipId || '');
}

/** Who did something, in words: "referee", "Eagles base", "pilot A1 (Ada)". */
function byWords(view, by, orders) {
  const [kind, subject] = String(by || '').split(':');
  if (kind === 'team') return t('ref.by.team', { team: teamName(view, subject) });
  if (kind === 'pilot') {
    const o = orders[subject];
    return t('ref.by.pilot', { plane: o ? `${o.label}${o.pilot ? ` ${o.pilot}` : ''}` : subject });
  }
  if (kind === 'referee') return t('ref.by.referee');
  if (kind === 'clock') return t('ref.by.clock');
  return String(by || '');
}

function holderWords(holder) {
  const s = String(holder || '');
  return s.startsWith('ship:') ? s.slice(5) : s;
}

/**
 * One narration note of the log in words. Works for the referee (all fields)
 * and the public view (order ids, corridors and pilots stripped).
 * orders: {id: order view} when known (current round), for pilot names.
 */
export function describeNote(note, view, orders = {}) {
  const team = (id) => teamName(view, id);
  const plane = (id, label) => {
    const o = id && orders[id];
    if (o && o.label) return `${o.label}${o.pilot ? ` (${o.pilot})` : ''}`;
    if (label) return o && o.pilot ? `${label} (${o.pilot})` : label;
    if (o && o.pilot) return `${o.pilot} (${kindName(o.kind)})`;
    return id || '?';
  };
  switch (note.type) {
    case 'game_created': return t('note.game_created');
    case 'sea_locked': return t('note.sea_locked', { team: team(note.team) });
    case 'game_started': return t('note.game_started');
    case 'order_added': return t('note.order_added', { team: team(note.team), plane: plane(note.order) });
    case 'order_removed': return t('note.order_removed', { team: team(note.team), plane: note.order });
    case 'round_started': return t('note.round_started', { round: note.round });
    case 'round_ended': return t('note.round_ended', { round: note.round });
    case 'through': {
      if (!note.corridor) return t(note.kind === 'bomber' ? 'note.through_bomber_public' : 'note.through_fighter_public', { team: team(note.team) });
      return t(note.kind === 'bomber' ? 'note.through_bomber' : 'note.through_fighter', {
        plane: plane(note.order, note.label), team: team(note.team), corridor: corridorName(note.corridor),
      });
    }
    case 'landed':
      return t(note.home ? 'note.landed' : 'note.landed_other', { plane: plane(note.order, note.label), ship: shipName(view, note.team, note.ship) });
    case 'lost': return t('note.lost', { plane: plane(note.order, note.label), why: note.why || '' });
    case 'shot_down':
      if (!note.by) return t('note.shot_down_public', { kind: kindName(note.kind), team: team(note.team) });
      return t('note.shot_down', { plane: plane(note.order, note.label), kind: kindName(note.kind), team: team(note.team), by: holderWords(note.by) });
    case 'dogfight': {
      let result;
      if (note.passed) result = t('duel.passed');
      else if (note.shot_down) {
        const loserTeam = orderTeam(note.shot_down);
        const label = note.shot_down === note.a ? note.a_label : note.shot_down === note.b ? note.b_label
          : (loserTeam === 'A' ? note.a_label : note.b_label);
        result = t('duel.shot_down', { plane: note.a ? plane(note.shot_down, label) : label });
      } else result = '';
      const a = note.a ? plane(note.a, note.a_label) : note.a_label;
      const b = note.b ? plane(note.b, note.b_label) : note.b_label;
      if (note.corridor) return t('note.dogfight_in', { corridor: corridorName(note.corridor), a, b, result });
      return t('note.dogfight', { a, b, result });
    }
    case 'reported':
      return t('note.reported', { by: byWords(view, note.by, orders), a: plane(note.a), b: plane(note.b) });
    case 'conflict': return t('note.conflict', { a: plane(note.a), b: plane(note.b) });
    case 'bombing':
      return t('note.bombing', { plane: plane(note.order, note.label), team: team(note.team), square: note.square, answer: t(`answer.${note.answer}`) });
    case 'bombing_result':
      return t('note.bombing_result', { team: team(note.team), square: note.square, result: t(`result.${note.result}`) });
    case 'hit': return t('note.hit', { team: team(note.team), square: note.square });
    case 'sunk': {
      const known = view && view.seas && view.seas[note.team] && (view.seas[note.team].ships || []).some((s) => s.id === note.ship);
      const ship = known ? shipName(view, note.team, note.ship) : shipKindName(note.kind || note.ship);
      const n = (note.fighters_lost || 0) + (note.bombers_lost || 0);
      return t(n ? 'note.sunk_planes' : 'note.sunk', { team: team(note.team), ship, n });
    }
    case 'game_over': {
      const result = note.winner ? t('ref.outcome_win', { team: team(note.winner) }) : t('ref.outcome_draw');
      return t('note.game_over', { result: note.detail ? `${result} (${note.detail})` : result });
    }
    case 'timer':
      if (note.running === false) return t('note.timer_paused', { left: formatMs((note.remaining || 0) * 1000) });
      if (note.remaining !== null && note.remaining !== undefined) return t('note.timer_set', { left: formatMs(note.remaining * 1000) });
      return t('note.timer_running');
    case 'voided': return t('note.voided');
    case 'void': return t('note.void', { target: note.target, reason: note.reason || '' });
    default: return t('note.other', { kind: String(note.type || '').replace(/_/g, ' ') });
  }
}

/**
 * The notes worth saying: "voided" is shown as a mark, and notes that repeat
 * another are dropped (a hit already says the bombing hit; a dogfight already
 * says who was shot down).
 */
export function tidyNotes(notes) {
  const has = (type, test = () => true) => notes.some((n) => n.type === type && test(n));
  return notes.filter((n) => {
    if (n.type === 'voided') return false;
    if (n.type === 'bombing_result' && n.result === 'hit' && has('hit')) return false;
    if (n.type === 'shot_down' && (has('dogfight') || has('bombing_result', (b) => b.result === 'shot_down'))) return false;
    if (n.type === 'hit' && has('sunk', (x) => x.team === n.team)) return false;
    return true;
  });
}

/** A log row (an event with its notes) in words; events without notes fall back to the action. */
export function describeEvent(row, view, orders = {}) {
  const notes = tidyNotes(row.notes || []);
  if (notes.length) return notes.map((n) => describeNote(n, view, orders));
  const d = row.data || {};
  switch (row.kind) {
    case 'set_defender': return [t('note.set_defender', { team: teamName(view, d.team), pilot: d.pilot })];
    case 'set_players': return [t('note.set_players', { team: teamName(view, d.team) })];
    case 'unlock_sea': return [t('note.unlock_sea', { team: teamName(view, d.team) })];
    case 'void': return [t('note.void', { target: d.seq, reason: d.reason || '' })];
    default: return [t('note.other', { kind: String(row.kind || '').replace(/_/g, ' ') })];
  }
}

function clockTime(at) {
  if (!Number.isFinite(at)) return '';
  try {
    return new Date(at * 1000).toLocaleTimeString(pageLang(), { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
  } catch {
    return new Date(at * 1000).toTimeString().slice(0, 8);
  }
}

function ago(seconds) {
  if (!Number.isFinite(seconds)) return t('ref.never');
  const s = Math.max(0, Math.round(seconds));
  if (s < 90) return t('ref.seconds_ago', { n: s });
  if (s < 5400) return t('ref.minutes_ago', { n: Math.round(s / 60) });
  return t('ref.hours_ago', { n: Math.round(s / 3600) });
}

// -------------------------------------------------------------- the page

function start() {
  const page = readJson('page-data', {});
  const csrf = readJson('csrf', '');
  const api = page.api || `/api/games/${page.game}`;
  let view = page.view || {};
  let orders = {};
  // Every order this page has seen (the view lists only the current round's), so the log
  // can name the planes of earlier rounds too.
  const seenOrders = {};
  let lastRoundKey = null;
  const pending = new Map();   // duel or bombing key -> {throws, choice, step}

  const $ = (id) => document.getElementById(id);
  const resultEl = $('result');
  const mainBtn = $('main-action');
  const mainWhy = $('main-why');
  const timerEl = $('timer');
  const timerLabel = $('timer-label');

  // ----- connection, clock, sound
  const conn = new Connection({ game: page.game, initialSeq: Number.isFinite(page.seq) ? page.seq : -1 });
  bindBadge(conn);
  const cues = new SoundCues({ speak: true });
  soundButton($('sound'), cues);
  const countdown = new Countdown(timerEl, {
    now: () => conn.serverNow(),
    cues,
    onTick: (_ms, state) => showTimerState(state),
  });

  function showTimerState(state) {
    const r = view.round || {};
    let words = '';
    if (view.phase === 'over') words = t('ref.phase.over');
    else if (state === 'paused') words = t('timer.paused');
    else if (state === 'over') words = t('timer.over');
    else if (state === 'warning' || state === 'ending') words = t('timer.last_minute');
    else if (r.phase === 'planning') words = t('ref.round_length');
    if (timerLabel) timerLabel.textContent = words;
    const end = $('t-end');
    if (end) end.classList.toggle('is-urgent', state === 'over');
    if (state === 'over' && view.round && view.round.phase === 'airborne' && mainWhy) mainWhy.textContent = t('ref.time_up');
  }

  // ----- saying what happened
  function say(kind, text) {
    if (!resultEl) return;
    resultEl.dataset.kind = kind;
    resultEl.textContent = text;
    // Far down the page (devices, end game) the result line is out of sight: repeat it as a toast.
    const box = resultEl.getBoundingClientRect();
    const toasts = $('toasts');
    if (toasts && (box.bottom < 0 || box.top > window.innerHeight)) {
      const toast = h('p', { class: 'result toast', role: 'status', dataset: { kind } }, text);
      toasts.append(toast);
      setTimeout(() => toast.remove(), 6000);
    }
  }

  /** Send one action; say the result; return the ack. */
  async function act(action, { button = null } = {}) {
    if (button) button.disabled = true;
    if (conn.state === 'offline') say('refused', t('ref.queued'));
    let result;
    try {
      result = await conn.send(action);
    } finally {
      if (button) button.disabled = false;
    }
    if (result && result.ok === false) {
      say('refused', t('ref.refused', { message: result.message || result.error || '' }));
    } else {
      if (result && result.view) render(result.view);
      say(kindOfResult(result), sayEvents(result) || t('ref.sent'));
    }
    return result;
  }

  function rowsFor(result) {
    const seqs = new Set(((result && result.events) || []).map((e) => e.seq));
    return (view.log || []).filter((r) => seqs.has(r.seq));
  }

  // What a result line says first: the outcome, then how it came about.
  const SAY_RANK = { game_over: 0, sunk: 1, hit: 2, dogfight: 3, bombing_result: 4, bombing: 5, shot_down: 6, void: 7, conflict: 7, reported: 8, round_started: 8, round_ended: 8 };

  function sayEvents(result) {
    const rows = rowsFor(result);
    const notes = rows.flatMap((r) => tidyNotes(r.notes || []).filter((n) => n.type !== 'landed'));
    if (!notes.length) return rows.flatMap((r) => describeEvent(r, view, orders)).slice(0, 2).join(' · ');
    const ranked = notes.map((n, i) => [SAY_RANK[n.type] ?? 9, i, n]).sort((x, y) => x[0] - y[0] || x[1] - y[1]).slice(0, 2);
    ranked.sort((x, y) => x[1] - y[1]);
    return ranked.map(([, , n]) => describeNote(n, view, orders)).join(' · ');
  }

  function kindOfResult(result) {
    const notes = rowsFor(result).flatMap((r) => r.notes || []);
    if (notes.some((n) => n.type === 'sunk')) return 'sunk';
    if (notes.some((n) => n.type === 'hit')) return 'hit';
    if (notes.some((n) => n.type === 'bombing' && n.answer === 'water')) return 'water';
    if (notes.some((n) => n.type === 'bombing' && n.answer === 'fight')) return 'fight';
    return 'ok';
  }

  conn.on('view', ({ view: v }) => { if (v) render(v); });
  conn.on('events', ({ view: v }) => { if (v) render(v); else refetch(); });
  conn.on('refused', ({ result }) => say('refused', t('ref.refused', { message: (result && result.message) || '' })));

  async function request(method, url, body) {
    const headers = { Accept: 'application/json' };
    if (csrf) headers['X-CSRF-Token'] = csrf;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(url, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
    let data = null;
    try { data = await res.json(); } catch { data = null; }
    if (!res.ok) {
      const message = (data && (data.message || data.error)) || t('ref.request_failed', { status: res.status });
      throw new Error(message);
    }
    return data;
  }

  let refetching = null;
  function refetch() {
    if (refetching) return refetching;
    refetching = request('GET', `${api}/view`).then((v) => { if (v) render(v); }).catch(() => {}).finally(() => { refetching = null; });
    return refetching;
  }

  // ----- the reason dialog (void, end game, forfeit)
  const dialog = $('reason-dialog');
  function askReason({ title, text, ok, required = true }) {
    return new Promise((resolve) => {
      if (!dialog || typeof dialog.showModal !== 'function') {
        // eslint-disable-next-line no-alert
        const answer = window.prompt(`${title}\n${text}`);
        resolve(answer === null ? null : answer.trim());
        return;
      }
      $('reason-title').textContent = title;
      $('reason-text').textContent = text;
      $('reason-ok').textContent = ok;
      const input = $('reason-input');
      input.value = '';
      input.required = required;
      const done = () => {
        dialog.removeEventListener('close', done);
        if (dialog.returnValue !== 'ok') { resolve(null); return; }
        const reason = input.value.trim();
        if (required && !reason) { say('refused', t('ref.reason_needed')); resolve(null); return; }
        resolve(reason);
      };
      dialog.returnValue = '';
      dialog.addEventListener('close', done);
      dialog.showModal();
      input.focus();
    });
  }

  // ----- rendering
  function legal(type, match = {}) {
    return (view.legal || []).find((a) => a.type === type && Object.entries(match).every(([k, v]) => a[k] === v)) || null;
  }

  function render(v) {
    if (!v || typeof v !== 'object') return;
    view = v;
    for (const row of v.log || []) {
      if (row.kind !== 'add_order') continue;
      const added = (row.notes || []).find((n) => n.type === 'order_added');
      if (added && !seenOrders[added.order]) {
        const d = row.data || {};
        seenOrders[added.order] = { id: added.order, team: d.team, pilot: d.pilot, kind: d.kind, corridor: d.corridor, label: d.position ? `${d.team}${d.position}` : null };
      }
    }
    for (const o of v.orders || []) seenOrders[o.id] = o;
    orders = { ...seenOrders };
    applyTeamColours(v.teams);
    renderControl();
    renderAttention();
    renderCorridors();
    for (const team of ['A', 'B']) renderTeam(team);
    renderLedger();
    renderLog();
  }

  function renderControl() {
    const r = view.round || {};
    const phase = view.phase === 'playing' ? r.phase : view.phase;
    $('round-number').textContent = r.round ? t('ref.round', { n: r.round }) : '';
    let phaseText = t(`ref.phase.${phase}`);
    if (view.phase === 'over' && view.outcome) {
      const o = view.outcome;
      phaseText = `${o.winner ? t('ref.outcome_win', { team: teamName(view, o.winner) }) : t('ref.outcome_draw')} — ${o.detail || ''}`;
    }
    $('round-phase').textContent = phaseText;
    document.body.dataset.phase = phase || '';

    // The countdown: the view gives the deadline in seconds since the epoch.
    const key = `${r.round}:${r.phase}`;
    const announce = lastRoundKey !== null && lastRoundKey !== key && r.phase === 'airborne';
    lastRoundKey = key;
    if (view.phase === 'playing' && r.phase === 'airborne') {
      if (r.running && Number.isFinite(r.deadline)) countdown.set({ deadline: r.deadline * 1000 }, { announce });
      else countdown.set({ paused: true, remaining: (r.left || 0) * 1000 }, { announce: false });
    } else {
      countdown.set(null, { announce: false });
      // Between rounds the clock shows the next round's length.
      if (view.phase === 'playing' && r.seconds) { timerEl.textContent = formatMs(r.seconds * 1000); }
      showTimerState('idle');
    }

    // The one big button.
    let label = '';
    let action = null;
    let why = '';
    let kind = 'primary';
    if (view.phase === 'setup') {
      label = t('ref.start_game');
      action = legal('start_game') ? { type: 'start_game' } : null;
      const waiting = ['A', 'B'].filter((x) => !(view.teams[x] || {}).locked).map((x) => teamName(view, x));
      if (waiting.length) why = t('ref.wait_seas', { teams: waiting.join(t('ref.and')) });
    } else if (view.phase === 'playing' && r.phase === 'planning') {
      label = t('ref.start_round', { n: r.round });
      action = legal('start_round') ? { type: 'start_round' } : null;
      const missing = ['A', 'B'].filter((x) => !(view.defenders || {})[x]).map((x) => teamName(view, x));
      if (missing.length) why = t('ref.wait_defender', { teams: missing.join(t('ref.and')) });
    } else if (view.phase === 'playing' && r.phase === 'airborne') {
      if (legal('pause_timer')) { label = t('ref.pause'); action = { type: 'pause_timer' }; kind = ''; }
      else if (legal('resume_timer')) { label = t('ref.resume'); action = { type: 'resume_timer' }; kind = 'ok'; }
    }
    mainBtn.hidden = !label;
    mainBtn.textContent = label;
    mainBtn.disabled = !action;
    mainBtn.className = `btn btn-big${kind ? ` btn-${kind}` : ''}`;
    mainBtn.onclick = action ? () => act(action, { button: mainBtn }) : null;
    if (!(r.phase === 'airborne' && countdown.stateName() === 'over')) mainWhy.textContent = why;

    const airborne = view.phase === 'playing' && r.phase === 'airborne';
    $('timer-buttons').hidden = !airborne;
    $('t-minus').disabled = !legal('adjust_timer') || ((countdown.remainingMs() || 0) < 30000);
    $('t-plus').disabled = !legal('adjust_timer');
    $('t-end').disabled = !legal('end_round');

    const slips = $('slips-link');
    if (view.phase === 'playing' && r.phase === 'planning' && r.round) {
      slips.hidden = false;
      slips.href = `/g/${page.game}/slips?round=${r.round}`;
      slips.textContent = t('ref.slips', { n: r.round });
    } else slips.hidden = true;

    document.getElementById('corridors-card').hidden = view.phase === 'setup';
    const endCard = $('end-game').closest('section');
    endCard.hidden = !legal('end_game') && !legal('forfeit');
    $('end-game').disabled = !legal('end_game');
    for (const b of document.querySelectorAll('[data-forfeit]')) b.disabled = !legal('forfeit');
  }

  function planeText(o, { pilot = true } = {}) {
    if (!o) return '?';
    return `${o.label} ${kindName(o.kind)}${pilot && o.pilot ? ` · ${o.pilot}` : ''}`;
  }

  function planeChip(o, extra = '') {
    return h('span', { class: `plane team-${String(o.team).toLowerCase()}`, dataset: { kind: o.kind, status: o.status } },
      teamMark(o.team), ' ', h('strong', {}, o.label), ' ', kindName(o.kind),
      o.pilot ? h('span', { class: 'muted' }, ` · ${o.pilot}`) : null, extra);
  }

  // --- attention: conflicts, reports, due dogfights, bombings
  function renderAttention() {
    const box = $('attention');
    const cards = [];
    const r = view.round || {};
    if (view.phase === 'playing' && r.phase === 'airborne') {
      const conflicts = new Set(view.conflicts || []);
      const due = (view.corridors || []).flatMap((c) => (c.meetings || []).filter((m) => m.status === 'due'));
      // Conflicts first, then reports waiting for a confirmation, then the rest.
      const rank = (m) => { const k = `${m.corridor}:${m.a}:${m.b}`; return conflicts.has(k) ? 0 : (view.reports || {})[k] ? 1 : 2; };
      due.sort((x, y) => rank(x) - rank(y));
      for (const m of due) cards.push(dogfightCard(m, conflicts));
      for (const act0 of (view.legal || []).filter((a) => a.type === 'announce_bombing' || a.type === 'report_bombing')) {
        cards.push(bombingCard(act0.order, act0.type));
      }
    } else if (view.phase === 'playing' && r.phase === 'planning') {
      cards.push(defendersCard());
    }
    box.replaceChildren(...cards);
    box.hidden = cards.length === 0;
  }

  /** Planning: each team's defender, pickable on the team's behalf. */
  function defendersCard() {
    const card = h('article', { class: 'card attn attn-defenders' },
      h('h3', { class: 'attn-title' }, h('span', { class: 'attn-kind' }, `⌂ ${t('ref.defenders')}`),
        h('span', { class: 'muted' }, t('ref.defenders_hint'))));
    const row = h('div', { class: 'defender-row' });
    for (const team of ['A', 'B']) {
      const defender = (view.defenders || {})[team] || '';
      const setDef = legal('set_defender', { team });
      const options = (setDef && setDef.options) || [];
      const select = h('select', { id: `defender-${team}`, disabled: !setDef, onchange: (ev) => {
        if (ev.target.value) act({ type: 'set_defender', team, pilot: ev.target.value }, { button: ev.target });
      } }, h('option', { value: '' }, t('ref.choose_defender')),
      options.map((p) => h('option', { value: p, selected: p === defender }, p)));
      row.append(h('label', { class: `defender-pick${defender ? '' : ' is-missing'}`, for: `defender-${team}` },
        teamMark(team), ' ', h('span', {}, teamName(view, team)), select));
    }
    card.append(row);
    return card;
  }

  function throwButtons(labels, onPick) {
    return h('div', { class: 'btn-row throw-row' }, labels.map(([text, value, cls]) =>
      h('button', { type: 'button', class: `btn ${cls || ''}`, onclick: (ev) => onPick(value, ev.currentTarget) }, text)));
  }

  function dogfightCard(m, conflicts) {
    const key = `${m.corridor}:${m.a}:${m.b}`;
    const a = orders[m.a] || { label: m.a, team: 'A', kind: '?' };
    const b = orders[m.b] || { label: m.b, team: 'B', kind: '?' };
    const reports = (view.reports || {})[key] || [];
    const conflict = conflicts.has(key);
    const st = pending.get(key) || { step: 'first', throws: [] };
    const card = h('article', { class: `card attn attn-dogfight${conflict ? ' is-conflict' : ''}${reports.length && !conflict ? ' is-reported' : ''}` });
    card.append(h('h3', { class: 'attn-title' },
      h('span', { class: 'attn-kind' }, conflict ? `⚠ ${t('ref.conflict')}` : reports.length ? `✓ ${t('ref.report')}` : `⚔ ${t('ref.dogfight')}`),
      h('span', { class: 'muted' }, t('ref.dogfight_in', { corridor: corridorName(m.corridor) }))));
    card.append(h('p', { class: 'attn-who' }, planeChip(a), h('span', { class: 'vs' }, ' vs '), planeChip(b)));
    if (conflict) card.append(h('p', { class: 'attn-text' }, t('ref.conflict_text', { a: a.label, b: b.label, corridor: corridorName(m.corridor) })));
    for (const rep of reports) {
      card.append(h('p', { class: 'attn-report' }, t('ref.report_text', { by: byWords(view, rep.by, orders), result: duelWords(rep.result) })));
    }
    if (reports.length && !conflict && legal('confirm_dogfight', { a: m.a, b: m.b })) {
      card.append(h('p', {}, h('button', { type: 'button', class: 'btn btn-ok btn-block', onclick: (ev) => act({ type: 'confirm_dogfight', a: m.a, b: m.b }, { button: ev.currentTarget }) },
        `✓ ${t('ref.confirm')}: ${duelWords(reports[0].result)}`)));
    }
    card.append(dogfightEntry(key, m, a, b, st));
    return card;
  }

  function duelWords(d) {
    if (!d) return '';
    if (d.passed) return t('duel.passed');
    if (d.shot_down) {
      const label = d.shot_down === d.a ? d.a_label : d.b_label;
      return t('duel.shot_down', { plane: label });
    }
    return '';
  }

  /** The throw-by-throw entry of a dogfight: at most three clicks. */
  function dogfightEntry(key, m, a, b, st) {
    const wrap = h('div', { class: 'entry' });
    const won = (o) => `${o.team === 'A' ? '▲' : '●'} ${t('ref.won', { plane: o.label })}`;
    const send = (throws, choice, button) => {
      const action = { type: 'report_dogfight', a: m.a, b: m.b, throws: throws.map((w) => ({ winner: w })) };
      if (choice) action.choice = choice;
      pending.delete(key);
      return act(action, { button });
    };
    const mixed = a.kind !== b.kind;
    const fighterSide = a.kind === 'fighter' ? 'A' : 'B';
    const bomberSide = fighterSide === 'A' ? 'B' : 'A';
    const side = (s) => (s === 'A' ? a : b);
    if (st.step === 'first') {
      wrap.append(h('p', { class: 'entry-q' }, t('ref.first_throw')));
      const buttons = [[won(a), 'A', 'team-a btn-team'], [won(b), 'B', 'team-b btn-team']];
      if (a.kind === 'bomber' && b.kind === 'bomber') buttons.push([t('ref.both_pass'), 'pass', 'btn-ghost-line']);
      wrap.append(throwButtons(buttons, (value, button) => {
        if (value === 'pass') return send([], 'pass', button);
        if (!mixed || value === fighterSide) return send([value], null, button);
        pending.set(key, { step: 'choice', throws: [value] });
        renderAttention();
        return null;
      }));
    } else if (st.step === 'choice') {
      const f = side(fighterSide);
      wrap.append(h('p', { class: 'entry-q' }, `${won(side(bomberSide))}. `, t('ref.fighter_choice', { plane: `${f.label}${f.pilot ? ` ${f.pilot}` : ''}` })));
      wrap.append(throwButtons([[t('ref.pass'), 'pass'], [t('ref.continue'), 'continue', 'btn-primary']], (value, button) => {
        if (value === 'pass') return send(st.throws, 'pass', button);
        pending.set(key, { step: 'second', throws: st.throws });
        renderAttention();
        return null;
      }));
    } else if (st.step === 'second') {
      wrap.append(h('p', { class: 'entry-q' }, t('ref.second_throw')));
      wrap.append(throwButtons([[won(a), 'A', 'team-a btn-team'], [won(b), 'B', 'team-b btn-team']],
        (value, button) => send([...st.throws, value], 'continue', button)));
    }
    if (st.step !== 'first') {
      wrap.append(h('button', { type: 'button', class: 'btn btn-ghost btn-small', onclick: () => { pending.delete(key); renderAttention(); } }, t('ref.undo')));
    }
    return wrap;
  }

  function bombingCard(orderId, type) {
    const o = orders[orderId] || { id: orderId, label: orderId, team: orderTeam(orderId) || '?', kind: 'bomber' };
    const defender = o.team === 'A' ? 'B' : 'A';
    const bombing = (view.bombings || []).find((x) => x.order === orderId);
    const square = (bombing && bombing.target) || o.target || '?';
    const key = `bomb:${orderId}`;
    const st = pending.get(key) || { step: 'first', throws: [] };
    const card = h('article', { class: `card attn attn-bombing team-${defender.toLowerCase()}` });
    card.append(h('h3', { class: 'attn-title' }, h('span', { class: 'attn-kind' }, `◎ ${t('ref.bombing')}`),
      h('span', { class: 'muted' }, t('ref.bombing_at', { team: teamName(view, defender) }))));
    card.append(h('p', { class: 'attn-who' }, planeChip(o), ' → ', teamMark(defender), ' ', h('span', { class: 'square-mid' }, square)));
    if (type === 'announce_bombing') {
      card.append(h('button', { type: 'button', class: 'btn btn-primary btn-block', onclick: (ev) => act({ type: 'announce_bombing', order: orderId }, { button: ev.currentTarget }) },
        t('ref.announce', { square })));
      return card;
    }
    const send = (throws, choice, button) => {
      const action = { type: 'report_bombing', order: orderId, throws: throws.map((w) => ({ winner: w })) };
      if (choice) action.choice = choice;
      pending.delete(key);
      return act(action, { button });
    };
    const wrap = h('div', { class: 'entry' });
    if (st.step === 'first') {
      wrap.append(h('p', { class: 'entry-q verdict-small' }, t('ref.fight_throw', { square })));
      wrap.append(throwButtons([[t('ref.bomber_won'), 'bomber', 'btn-primary'], [t('ref.ship_won'), 'ship']], (value, button) => {
        if (value === 'bomber') return send(['bomber'], null, button);
        pending.set(key, { step: 'choice', throws: ['ship'] });
        renderAttention();
        return null;
      }));
    } else if (st.step === 'choice') {
      wrap.append(h('p', { class: 'entry-q' }, `${t('ref.ship_won')}. `, t('ref.bomber_choice')));
      wrap.append(throwButtons([[t('ref.leave'), 'leave'], [t('ref.continue'), 'continue', 'btn-primary']], (value, button) => {
        if (value === 'leave') return send(st.throws, 'leave', button);
        pending.set(key, { step: 'second', throws: st.throws });
        renderAttention();
        return null;
      }));
    } else {
      wrap.append(h('p', { class: 'entry-q' }, t('ref.second_throw')));
      wrap.append(throwButtons([[t('ref.bomber_won'), 'bomber', 'btn-primary'], [t('ref.ship_won'), 'ship']],
        (value, button) => send([...st.throws, value], 'continue', button)));
    }
    if (st.step !== 'first') {
      wrap.append(h('button', { type: 'button', class: 'btn btn-ghost btn-small', onclick: () => { pending.delete(key); renderAttention(); } }, t('ref.undo')));
    }
    card.append(wrap);
    return card;
  }

  // --- corridor board
  const MEET_SYMBOL = { due: '⚔', waiting: '…', done: '✓', never: '—' };

  function renderCorridors() {
    const box = $('corridors');
    const r = view.round || {};
    const names = (view.ruleset && view.ruleset.corridors) || [];
    const boards = new Map((view.corridors || []).map((c) => [c.corridor, c]));
    const planned = r.phase === 'planning';
    const duels = new Map((view.duels || []).map((d) => [`${d.corridor}:${d.a}:${d.b}`, d]));
    const cols = names.map((name) => {
      const board = boards.get(name) || { corridor: name, a: [], b: [], meetings: [], through: [] };
      let aPlanes = board.a || [];
      let bPlanes = board.b || [];
      if (planned) {
        const here = (view.orders || []).filter((o) => o.corridor === name).sort((x, y) => x.position - y.position);
        aPlanes = here.filter((o) => o.team === 'A');
        bPlanes = here.filter((o) => o.team === 'B');
      }
      const col = h('article', { class: 'corridor' }, h('h3', { class: 'corridor-name' }, corridorName(name)));
      if (!aPlanes.length && !bPlanes.length) {
        col.append(h('p', { class: 'muted' }, t('ref.no_planes')));
        return col;
      }
      const sideList = (planes, team) => h('ol', { class: `plane-list team-${team.toLowerCase()}` },
        planes.map((o) => h('li', { dataset: { status: o.status } },
          h('span', { class: 'plane-line' }, teamMark(o.team), ' ', h('strong', {}, o.label), ' ', kindName(o.kind),
            o.target ? h('span', { class: 'plane-target mono' }, ` → ${o.target}`) : null),
          h('span', { class: 'plane-sub muted' }, o.pilot || '', ' · ', h('span', { class: 'status-word' }, t(`status.${o.status}`))),
          planned && legal('remove_order', { order: o.id })
            ? h('button', { type: 'button', class: 'btn btn-ghost btn-small', onclick: async (ev) => {
              // eslint-disable-next-line no-alert
              if (window.confirm(t('ref.confirm_remove', { plane: o.label, pilot: o.pilot || '' }))) await act({ type: 'remove_order', order: o.id }, { button: ev.currentTarget });
            } }, t('ref.remove'))
            : null)));
      col.append(h('div', { class: 'corridor-sides' }, sideList(aPlanes, 'A'), sideList(bPlanes, 'B')));
      if (!planned && aPlanes.length && bPlanes.length) {
        const table = h('table', { class: 'meet-grid' });
        table.append(h('caption', { class: 'sr-only' }, t('ref.meetings')));
        table.append(h('tr', {}, h('th', {}, ''), bPlanes.map((o) => h('th', { scope: 'col' }, teamMark('B'), ' ', o.label))));
        for (const ao of aPlanes) {
          const tr = h('tr', {}, h('th', { scope: 'row' }, teamMark('A'), ' ', ao.label));
          for (const bo of bPlanes) {
            const m = (board.meetings || []).find((x) => x.a === ao.id && x.b === bo.id);
            const status = m ? m.status : 'never';
            let detail = t(`meet.${status}`);
            if (status === 'done') {
              const d = duels.get(`${name}:${ao.id}:${bo.id}`);
              if (d) detail = d.passed ? t('duel.passed') : d.shot_down ? `✕ ${d.shot_down === ao.id ? ao.label : bo.label}` : detail;
            }
            tr.append(h('td', { class: 'meet', dataset: { status }, title: (m && m.reason) || '' },
              h('span', { class: 'meet-symbol', 'aria-hidden': 'true' }, MEET_SYMBOL[status] || ''), ' ', detail));
          }
          table.append(tr);
        }
        col.append(table);
      }
      const through = (board.through || []).map((id) => orders[id]).filter(Boolean);
      if (!planned && through.length) {
        col.append(h('p', { class: 'through' }, h('span', { class: 'muted' }, `${t('ref.through')}: `),
          through.map((o, i) => [i ? ', ' : '', teamMark(o.team), ' ', o.label])));
      }
      return col;
    });
    box.replaceChildren(...cols);
    $('corridors-title').textContent = planned ? `${t('ref.planned')}` : t('ref.meetings');
  }

  // --- teams: sea, facts, ships, roster
  const seas = {};

  function seaCells(sea) {
    const cells = [];
    const hits = new Set(sea.hits || []);
    for (const ship of sea.ships || []) {
      for (const sq of ship.squares) {
        cells.push({ square: sq, state: ship.sunk ? 'sunk' : hits.has(sq) ? 'hit' : 'ship', ship: ship.id, note: ship.name });
      }
    }
    const onShip = new Set(cells.map((c) => c.square));
    for (const [sq, what] of Object.entries(sea.shots || {})) {
      if (!onShip.has(sq) && what === 'water') cells.push({ square: sq, state: 'miss' });
    }
    return cells;
  }

  function renderTeam(team) {
    const info = (view.teams || {})[team] || {};
    const sea = (view.seas || {})[team] || { size: info.size || 7, ships: [] };
    const card = $(`team-${team}`);
    for (const el of card.querySelectorAll(`[data-team-name="${team}"]`)) el.textContent = info.name || team;
    const size = sea.size || info.size || 7;
    const seaEl = $(`sea-${team}`);
    const label = `${info.name || team}`;
    if (!seas[team]) seas[team] = new SeaGrid(seaEl, { cols: size, rows: size, cells: seaCells(sea), label, mini: true });
    else seas[team].render({ cols: size, rows: size, cells: seaCells(sea), label });

    // Setup: is the sea locked?
    const lock = card.querySelector(`[data-lock="${team}"]`);
    lock.replaceChildren();
    if (view.phase === 'setup') {
      lock.append(h('span', { class: `lock-state ${info.locked ? 'is-locked' : 'is-open'}` }, info.locked ? `✓ ${t('ref.locked')}` : `… ${t('ref.placing')}`));
      if (legal('unlock_sea', { team })) {
        lock.append(' ', h('button', { type: 'button', class: 'btn btn-ghost btn-small', onclick: (ev) => {
          // eslint-disable-next-line no-alert
          if (window.confirm(t('ref.confirm_unlock', { team: info.name || team }))) act({ type: 'unlock_sea', team }, { button: ev.currentTarget });
        } }, t('ref.unlock')));
      }
    }

    const facts = card.querySelector(`[data-facts="${team}"]`);
    const planes = info.planes || {};
    if (!info.locked) { facts.replaceChildren(); } else facts.replaceChildren(
      h('dt', {}, t('ref.ships_afloat')), h('dd', {}, `${info.ships_afloat ?? '–'} / ${info.ships_total ?? '–'}`),
      h('dt', {}, t('ref.squares_left')), h('dd', {}, info.squares_left ?? '–'),
      h('dt', {}, t('ref.planes')), h('dd', {}, t('ref.planes_value', { fighters: planes.fighter ?? 0, bombers: planes.bomber ?? 0 })),
      h('dt', {}, t('ref.trophies')), h('dd', {}, info.trophies ?? 0),
    );
    const ships = card.querySelector(`[data-ships="${team}"]`);
    ships.replaceChildren(...(sea.ships || []).map((s) => h('li', { class: s.sunk ? 'is-sunk' : '' },
      h('span', { class: 'ship-id mono' }, s.id), ' ', s.name, ' ',
      s.sunk ? h('span', { class: 'sunk-word' }, `✕ ${t('ref.sunk')}`) : h('span', { class: 'muted' }, t('ref.ship_stock', { fighters: s.fighters, bombers: s.bombers })))));

    // Roster and defender.
    const defender = (view.defenders || {})[team] || null;
    const box = card.querySelector(`[data-defender="${team}"]`);
    box.replaceChildren();
    if (view.phase === 'playing') {
      box.append(h('p', {}, `⌂ ${t('ref.defender')}: `, h('strong', {}, defender || t('ref.no_defender'))));
    }
    const flying = new Map((view.orders || []).filter((o) => o.team === team).map((o) => [o.pilot, o]));
    const roster = card.querySelector(`[data-roster="${team}"]`);
    roster.replaceChildren(...((view.rosters || {})[team] || []).map((p) => {
      const o = flying.get(p);
      let what = '';
      if (p === defender) what = `⌂ ${t('ref.defender')}`;
      else if (o) what = `✈ ${t('ref.flies', { plane: `${o.label} ${kindName(o.kind)}, ${corridorName(o.corridor)}` })} · ${t(`status.${o.status}`)}`;
      return h('li', { dataset: { role: p === defender ? 'defender' : o ? 'pilot' : 'base' } }, h('strong', {}, p), what ? h('span', { class: 'muted' }, ` ${what}`) : null);
    }));
  }

  // --- ledger and trophies
  function renderLedger() {
    const table = $('ledger');
    table.closest('section').hidden = view.phase === 'setup';
    const led = view.ledger || {};
    const cols = ['start', 'on_ships', 'in_air', 'lost', 'trophies'];
    const head = h('tr', {}, h('th', {}, ''), h('th', {}, t('ref.ledger.kind')), cols.map((c) => h('th', { class: 'num' }, t(`ref.ledger.${c}`))));
    const rows = [];
    let balanced = true;
    for (const team of ['A', 'B']) {
      for (const kind of ['fighter', 'bomber']) {
        const row = (led[team] || {})[kind];
        if (!row) continue;
        if (row.on_ships + row.in_air + row.lost + row.trophies !== row.start) balanced = false;
        rows.push(h('tr', {}, h('td', {}, kind === 'fighter' ? [teamMark(team), ' ', teamName(view, team)] : ''), h('td', {}, kindName(kind)),
          cols.map((c) => h('td', { class: 'num' }, row[c]))));
      }
    }
    table.replaceChildren(h('thead', {}, head), h('tbody', {}, rows));
    const list = $('trophies');
    const items = (view.trophies || []).map((tr) => h('li', {}, teamMark(tr.holder_team), ' ',
      t('ref.trophy', { holder: holderWords(tr.holder), team: teamName(view, tr.holder_team), kind: kindName(tr.kind), owner: teamName(view, tr.plane_team), round: tr.round })));
    const sum = h('li', { class: balanced ? 'ledger-ok' : 'ledger-bad' }, balanced ? `✓ ${t('ref.ledger.ok')}` : `! ${t('ref.ledger.bad')}`);
    list.replaceChildren(...(items.length ? items : [h('li', { class: 'muted' }, t('ref.no_trophies'))]), sum);
  }

  // --- live log with Void
  function renderLog() {
    const list = $('log');
    const rows = [...(view.log || [])].reverse();
    list.replaceChildren(...rows.map((row) => {
      const words = describeEvent(row, view, orders);
      const li = h('li', { class: `log-row${row.voided !== null && row.voided !== undefined ? ' is-voided' : ''}${row.skipped ? ' is-skipped' : ''}`, value: row.seq },
        h('span', { class: 'log-seq mono' }, `#${row.seq}`),
        h('span', { class: 'log-time mono muted' }, clockTime(row.at)),
        h('span', { class: 'log-by muted', title: row.device || '' }, byWords(view, row.by, orders), row.device ? ` · ${row.device}` : ''),
        h('span', { class: 'log-text' }, words.join(' · ')));
      if (row.voided !== null && row.voided !== undefined) li.append(h('span', { class: 'log-mark' }, t('ref.voided', { reason: row.voided || '–' })));
      if (row.skipped) li.append(h('span', { class: 'log-mark' }, t('ref.skipped', { reason: row.skipped })));
      const canVoid = row.seq > 1 && (row.voided === null || row.voided === undefined) && view.phase !== undefined;
      if (canVoid) {
        li.append(h('button', { type: 'button', class: 'btn btn-ghost btn-small log-void', 'aria-label': `${t('ref.void')} #${row.seq}`, onclick: async (ev) => {
          const button = ev.currentTarget;
          const reason = await askReason({ title: t('ref.void_title', { seq: row.seq }), text: `${words.join(' · ')}\n${t('ref.void_text')}`, ok: t('ref.void_ok') });
          if (reason) await act({ type: 'void', seq: row.seq, reason }, { button });
        } }, t('ref.void')));
      }
      return li;
    }));
  }

  // --- end game and forfeit
  $('end-game').addEventListener('click', async (ev) => {
    const button = ev.currentTarget;
    const reason = await askReason({ title: t('ref.end_title'), text: t('ref.end_text'), ok: t('ref.end_ok'), required: false });
    if (reason === null) return;
    const action = { type: 'end_game' };
    if (reason) action.reason = reason;
    await act(action, { button });
  });
  for (const button of document.querySelectorAll('[data-forfeit]')) {
    button.addEventListener('click', async () => {
      const team = button.dataset.forfeit;
      const reason = await askReason({ title: t('ref.forfeit_title', { team: teamName(view, team) }), text: t('ref.forfeit_text'), ok: t('ref.forfeit_ok') });
      if (reason) await act({ type: 'forfeit', team, reason }, { button });
    });
  }

  // --- timer buttons
  for (const button of document.querySelectorAll('[data-adjust]')) {
    button.addEventListener('click', () => act({ type: 'adjust_timer', seconds: Number(button.dataset.adjust) }, { button }));
  }
  $('t-end').addEventListener('click', (ev) => act({ type: 'end_round' }, { button: ev.currentTarget }));

  // --- join links
  for (const button of document.querySelectorAll('[data-reissue]')) {
    button.addEventListener('click', async () => {
      const team = button.dataset.reissue;
      // eslint-disable-next-line no-alert
      if (!window.confirm(t('ref.reissue_confirm', { team: teamName(view, team) }))) return;
      button.disabled = true;
      try {
        const data = await request('POST', `${api}/teams/${team}/join-link`);
        $(`join-url-${team}`).textContent = data.url || '';
        if (data.qr_svg) {
          // The server's own SVG (made by the qrcode package), as it renders it into the page.
          const box = $(`join-qr-${team}`);
          box.replaceChildren();
          box.insertAdjacentHTML('afterbegin', data.qr_svg);
          say('ok', t('ref.reissued', { team: teamName(view, team) }));
        } else {
          window.location.reload();
        }
      } catch (err) {
        say('refused', t('ref.refused', { message: err.message }));
      } finally {
        button.disabled = false;
      }
    });
  }

  // --- devices
  async function loadDevices() {
    const table = $('devices');
    let devices;
    try {
      devices = ((await request('GET', `${api}/devices`)) || {}).devices || [];
    } catch (err) {
      table.replaceChildren(h('li', { class: 'muted' }, err.message));
      return;
    }
    if (!devices.length) {
      table.replaceChildren(h('li', { class: 'muted' }, t('ref.devices_none')));
      return;
    }
    const now = Date.now() / 1000;
    devices.sort((x, y) => (x.revoked - y.revoked) || String(x.team).localeCompare(String(y.team)));
    table.replaceChildren(...devices.map((d) => {
      const input = h('input', { value: d.name || '', placeholder: t('ref.device_unnamed'), maxlength: 40, 'aria-label': t('ref.device_name'), disabled: d.revoked });
      const save = h('button', { type: 'button', class: 'btn btn-small', disabled: d.revoked, onclick: async () => {
        save.disabled = true;
        try { await request('POST', `${api}/devices/${encodeURIComponent(d.id)}`, { name: input.value.trim() }); say('ok', t('ref.sent')); } catch (err) { say('refused', t('ref.refused', { message: err.message })); }
        save.disabled = false;
      } }, t('ref.device_rename'));
      const revoke = d.revoked ? h('span', { class: 'device-revoked' }, `⊘ ${t('ref.device_revoked')}`) : h('button', { type: 'button', class: 'btn btn-small btn-danger', onclick: async () => {
        // eslint-disable-next-line no-alert
        if (!window.confirm(t('ref.device_confirm_revoke'))) return;
        try { await request('DELETE', `${api}/devices/${encodeURIComponent(d.id)}`); say('ok', t('ref.sent')); } catch (err) { say('refused', t('ref.refused', { message: err.message })); }
        loadDevices();
      } }, t('ref.device_revoke'));
      input.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') save.click(); });
      return h('li', { class: `device${d.revoked ? ' is-revoked' : ''}` },
        h('div', { class: 'device-name' }, teamMark(d.team), input, save),
        h('div', { class: 'device-meta' }, h('span', { class: 'muted' }, `${t('ref.device_seen')}: ${ago(Number.isFinite(d.last_seen_at) ? now - d.last_seen_at : NaN)}`), revoke));
    }));
  }
  $('devices-refresh').addEventListener('click', loadDevices);
  loadDevices();
  // Phones join without an event in the log; until the game starts, look for them often.
  const devicesEvery = () => (view && view.phase === 'setup' ? 4000 : 30000);
  let devicesAt = Date.now();
  setInterval(() => {
    if (Date.now() - devicesAt < devicesEvery()) return;
    if (document.visibilityState !== 'visible' || document.querySelector('.device-list input:focus')) return;
    devicesAt = Date.now();
    loadDevices();
  }, 1000);

  render(view);
  conn.start();
}

if (typeof document !== 'undefined' && document.body && document.body.classList.contains('page-referee') && document.getElementById('page-data')) {
  start();
}
