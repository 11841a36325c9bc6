// The referee's dashboard (templates/games/referee.html).
//
// Everything that changes is drawn from the referee view (airraid.view_for
// with the referee role, see docs/web-contract.md) whenever a new one arrives
// over conn.js. Every button sends one air-raid action and says the result
// right under the clock ("Hit! Sharks at C4", "Refused: …").
//
// This script holds the page's context (below) and wires the panels in
// referee/: control (clock and the big button), attention (what waits for the
// referee), corridors, teams (with the ledger), log (with Void) and devices.
// The words of the log live in words.js, shared with the projector.

import { connectPage, requestJson } from '../lib/conn.js';
import { t } from '../lib/i18n.js';
import { el, readJson, $, resultLine } from '../lib/dom.js';
import { applyTeamColours, describeEvent, describeNote, tidyNotes } from './words.js';
import * as control from './referee/control.js';
import * as attention from './referee/attention.js';
import * as corridors from './referee/corridors.js';
import * as teams from './referee/teams.js';
import * as log from './referee/log.js';
import * as devices from './referee/devices.js';

/**
 * A plane's label by the rules' own rule (Order.label): the team letter and the order's number in
 * its round ("2A3" is A3); ids of games stored before orders were numbered fall back to the
 * corridor's block of numbers. Only for an order of an earlier round, which the view no longer
 * lists with its label.
 */
function planeLabel(ruleset, d, orderId) {
  const m = /^[1-9][0-9]*([AB])([1-9][0-9]*)$/.exec(orderId || '');
  if (m && m[1] === d.team) return `${d.team}${m[2]}`;
  const index = ((ruleset && ruleset.corridors) || []).indexOf(d.corridor);
  if (index < 0 || !d.position || !ruleset.corridor_limit) return null;
  return `${d.team}${index * ruleset.corridor_limit + d.position}`;
}

// What a result line says first: the outcome, then how it came about.
const SAY_RANK = { game_over: 0, sunk: 1, hit: 2, dogfight: 3, bombing_result: 4, bombing: 5, shot_down: 6, void: 7, conflict: 7, reported: 8, round_started: 8, round_ended: 8 };

/** The log rows of an ack's events. */
function rowsFor(ctx, result) {
  const seqs = new Set(((result && result.events) || []).map((e) => e.seq));
  return (ctx.view.log || []).filter((r) => seqs.has(r.seq));
}

/** What an accepted entry did, in words, for the result line. */
function sayEvents(ctx, result) {
  const rows = rowsFor(ctx, result);
  const notes = rows.flatMap((r) => tidyNotes(r.notes || []).filter((n) => n.type !== 'landed'));
  if (!notes.length) return rows.flatMap((r) => describeEvent(r, ctx.view, ctx.orders)).slice(0, 2).join(' · ');
  const ranked = notes.map((n, i) => [SAY_RANK[n.type] ?? 9, i, n]).sort((x, y) => x[0] - y[0] || x[1] - y[1]).slice(0, 2);
  ranked.sort((x, y) => x[1] - y[1]);
  return ranked.map(([, , n]) => describeNote(n, ctx.view, ctx.orders)).join(' · ');
}

function kindOfResult(ctx, result) {
  const notes = rowsFor(ctx, result).flatMap((r) => r.notes || []);
  if (notes.some((n) => n.type === 'sunk')) return 'sunk';
  if (notes.some((n) => n.type === 'hit')) return 'hit';
  if (notes.some((n) => n.type === 'bombing' && n.answer === 'water')) return 'water';
  if (notes.some((n) => n.type === 'bombing' && n.answer === 'fight')) return 'fight';
  return 'ok';
}

/** The result line, repeated as a toast when it is out of sight (far down the page: devices,
 *  end game). `said.at` is when it last spoke. */
function refereeLine(said) {
  return resultLine($('result'), {
    after: (text, kind) => {
      if (text === undefined) return;   // cleared
      said.at = Date.now();
      const box = $('result').getBoundingClientRect();
      const toasts = $('toasts');
      if (toasts && (box.bottom < 0 || box.top > window.innerHeight)) {
        const toast = el('p', { class: 'result toast', role: 'status', dataset: { kind } }, text);
        toasts.append(toast);
        setTimeout(() => toast.remove(), 6000);
      }
    },
  });
}

/** The server's writes fail (disk full, database locked): a warning stays up until they succeed. */
function watchStore(conn, say) {
  const storeAlert = document.getElementById('store-alert');
  conn.on('store', ({ ok, since }) => {
    if (!storeAlert) return;
    const was = !storeAlert.hidden;
    if (!ok) {
      const time = new Date((since || Date.now() / 1000) * 1000).toLocaleTimeString(document.documentElement.lang || undefined, { hour: '2-digit', minute: '2-digit' });
      storeAlert.textContent = t('ref.store_failing', { time });
      storeAlert.hidden = false;
    } else {
      storeAlert.hidden = true;
      storeAlert.textContent = '';
      if (was) say(t('ref.store_ok'), 'ok');
    }
  });
}

function start() {
  const page = readJson('page-data', {});
  const csrf = readJson('csrf', '');
  // Every order this page has seen (the view lists only the current round's), so the log
  // can name the planes of earlier rounds too.
  const seenOrders = {};
  const said = { at: 0 };
  const say = refereeLine(said);

  /** What every panel shares: the latest view and the ways to act on it. */
  const ctx = {
    game: page.game,
    api: page.api || `/api/games/${page.game}`,
    view: page.view || {},
    orders: {},                // order id -> order view, this round's and every one seen before
    pending: new Map(),        // duel or bombing key -> {throws, choice, step}: a throw entry under way
    conn: connectPage({ game: page.game, initialSeq: Number.isFinite(page.seq) ? page.seq : -1 }, {
      say,
      onView: (v, type) => { if (v) render(v); else if (type === 'events') refetch(); },
      refusedKey: 'ref.refused',
      queuedKey: 'ref.queued',
    }),
    say,
    act,
    request,
    legal(type, match = {}) {
      return (ctx.view.legal || []).find((a) => a.type === type && Object.entries(match).every(([k, v]) => a[k] === v)) || null;
    },
  };
  const conn = ctx.conn;
  watchStore(conn, say);

  /** Send one action; say the result; return the ack. */
  async function act(action, { button = null } = {}) {
    if (button) button.disabled = true;
    if (conn.state === 'offline') say(t('ref.queued'), 'refused');
    let result;
    try {
      result = await conn.send(action);
    } finally {
      if (button) button.disabled = false;
    }
    if (result && result.ok === false) {
      say(t('ref.refused', { message: result.message || result.error || '' }), 'refused');
    } else {
      if (result && result.view) render(result.view);
      say(sayEvents(ctx, result) || t('ref.sent'), kindOfResult(ctx, result));
    }
    return result;
  }

  function request(method, url, body) {
    return requestJson(method, url, body, { csrf, fallback: (status) => t('ref.request_failed', { status }) });
  }

  let refetching = null;
  function refetch() {
    if (refetching) return refetching;
    refetching = request('GET', `${ctx.api}/view`).then((v) => { if (v) render(v); }).catch(() => {}).finally(() => { refetching = null; });
    return refetching;
  }

  const panels = [control.mount(ctx), attention.mount(ctx), corridors.mount(ctx), teams.mount(ctx), log.mount(ctx)];
  devices.mount(ctx);

  // The result line says what the referee's own last entry did: once the game has moved on to
  // another stage (a round started or ended elsewhere, the game over), that is stale and goes.
  let stage = null;
  function render(v) {
    if (!v || typeof v !== 'object') return;
    ctx.view = v;
    const r = v.round || {};
    const now = `${v.phase}:${r.round}:${r.phase}`;
    if (stage !== null && now !== stage && Date.now() - said.at > 1500) say.clear();
    stage = now;
    for (const row of v.log || []) {
      if (row.kind !== 'add_order') continue;
      const added = (row.notes || []).find((n) => n.type === 'order_added');
      if (added && !seenOrders[added.order]) {
        const d = row.data || {};
        seenOrders[added.order] = { id: added.order, team: d.team, pilot: d.pilot, kind: d.kind, corridor: d.corridor, label: planeLabel(v.ruleset, d, added.order) };
      }
    }
    for (const o of v.orders || []) seenOrders[o.id] = o;
    ctx.orders = { ...seenOrders };
    applyTeamColours(v.teams);
    for (const panel of panels) panel.render();
  }

  render(ctx.view);
  conn.start();
}

if (typeof document !== 'undefined' && document.body && document.body.classList.contains('page-referee') && document.getElementById('page-data')) {
  start();
}
