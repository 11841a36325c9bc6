// The team base phone: three tabs, Sea, Orders, Live (shared ux.md).
//
// The page (templates/games/team.html) hands over its first view in
// script#page-data ({game, role, seq, view, api}); after that every accepted
// action anywhere pushes a fresh `view` (the exact JSON of
// airraid.view_for(state, team:X)) and this script draws it again. Actions go
// out through conn.send(): queued while offline, acknowledged with {ok, …} or
// {ok: false, message}; the answer is shown on the result line in the
// action bar, where the thumb is.
//
//   Sea     setup: the sea editor (sea-editor.js), "Lock sea"; locked: the sea
//           read-only and "Unlock"; in play: our sea with hits, sunk ships,
//           water shots and the planes on each ship.
//   Orders  planning: the defender, then the order form (pilot → plane →
//           corridor → target → Add), this round's orders, "Print slips";
//           airborne: each order's state and its next dogfight.
//   Live    the round timer, bombers at our base (the defender resolves them
//           here: WATER / ALREADY HIT / FIGHT and the throws), the score of
//           both seas, the latest events; the winner when the game is over.
//
// Pure helpers are exported for the Node checks in tests/test_team_page.py.

import { Connection, bindBadge } from './conn.js';
import { Countdown, SoundCues, soundButton, ScreenWake } from './timer.js';
import { SeaGrid, parseSquare, squareName } from './sea.js';
import { SeaEditor } from './sea-editor.js';
import { scannerAvailable, startScanner } from './scan.js';
import { t, tn, pageLang } from './i18n.js';
import { el } from './dom.js';

// ------------------------------------------------------------ pure helpers

/** The view's round clock (seconds) as a Countdown state (ms), or null. */
export function timerState(round) {
  if (!round || round.phase !== 'airborne') return null;
  if (round.running && Number.isFinite(round.deadline)) return { deadline: round.deadline * 1000 };
  if (Number.isFinite(round.left)) return { paused: true, remaining: round.left * 1000 };
  return null;
}

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


const $ = (id) => document.getElementById(id);

function start() {
  const dataEl = $('page-data');
  if (!dataEl) return;
  const page = JSON.parse(dataEl.textContent);
  const GAME = page.game;
  const API = page.api || `/api/games/${GAME}`;
  let view = page.view;
  const TEAM = view.team || String(page.role || '').split(':')[1];
  const ENEMY = TEAM === 'A' ? 'B' : 'A';
  const LANG = pageLang().toLowerCase().split('-')[0];
  const CSRF = (document.querySelector('[data-csrf]') || {}).dataset?.csrf || '';
  const DRAFT_KEY = `referee.sea.${GAME}.${TEAM}`;

  const ui = {
    tab: null,
    stage: null,
    bombers: 0,
    form: { pilot: null, ship: null, kind: null, corridor: null, position: null, target: null },
    fight: { order: null, picks: [] },
    verdict: null,
    busy: false,
  };

  // ------------------------------------------------------------ words

  const kindName = (kind) => {
    const k = (view.fleet_kinds || {})[kind];
    if (!k) return kind;
    return (k.names && k.names[LANG]) || k.name || kind;
  };
  // "ship-two 2" from the server becomes the kind's name in the page language plus the number.
  const shipLabel = (ship) => {
    if (!ship) return '';
    const n = /\s(\d+)$/.exec(ship.name || '');
    return n ? `${kindName(ship.kind)} ${n[1]}` : kindName(ship.kind);
  };
  const ownShip = (id) => ((view.sea && view.sea.ships) || []).find((s) => s.id === id);
  const ownShipName = (id) => (ownShip(id) ? shipLabel(ownShip(id)) : id);
  const shipAt = (square) => ((view.sea && view.sea.ships) || []).find((s) => s.squares.includes(square));
  const word = (key, fallback) => { const s = t(key); return s === key ? fallback : s; };
  const corridorName = (c) => word(`team.corridor.${c}`, c);
  const planeName = (k) => word(`team.plane.${k}`, k);
  const teamName = (id) => (view.teams && view.teams[id] && view.teams[id].name) || id;
  const holderName = (holder) => (String(holder).startsWith('ship:') ? t('team.by_ship', { ship: String(holder).slice(5) }) : holder);

  // -------------------------------------------------------- result line

  const resultEl = $('result');
  // Server messages and ship names start in lower case ("tug touches cruiser at …").
  const cap = (s) => (s ? String(s).charAt(0).toLocaleUpperCase() + String(s).slice(1) : '');
  function say(text, kind = 'ok', detail = '') {
    if (!resultEl) return;
    resultEl.dataset.kind = kind;
    resultEl.replaceChildren(...[el('span', { text: cap(text) }), detail ? el('span', { class: 'detail', text: detail }) : null].filter(Boolean));
    updateBar();
  }

  // The bottom bar is drawn only when it holds something: a result or a control.
  function updateBar() {
    const bar = document.querySelector('.actionbar');
    if (!bar) return;
    const visible = (node) => !node.closest('[hidden]');
    const controls = [...bar.querySelectorAll('.bar-group button, .bar-group input')].some(visible);
    bar.classList.toggle('is-empty', !controls && !(resultEl && resultEl.textContent.trim()));
  }

  // --------------------------------------------------------- connection

  const conn = new Connection({ game: GAME, initialSeq: page.seq ?? view.version ?? -1 });
  bindBadge(conn);
  conn.on('view', ({ view: v }) => apply(v));
  conn.on('events', ({ view: v }) => { if (v) apply(v); });
  // Also an entry queued on an earlier visit of this page and refused now.
  conn.on('refused', ({ result }) => say(t('team.refused', { message: result.message || result.error }), 'refused'));

  /** Send an action; show a refusal as "Refused: …"; resolve with the ack or null. */
  async function act(action) {
    if (!conn.socket || !conn.socket.connected) say(t('team.queued'), 'ok');
    const res = await conn.send(action);
    if (!res || res.ok === false) {
      say(t('team.refused', { message: (res && (res.message || res.error)) || '?' }), 'refused');
      return null;
    }
    if (res.view) apply(res.view);
    return res;
  }

  async function postJson(path, body) {
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
    if (CSRF) headers['X-CSRF-Token'] = CSRF;
    const r = await fetch(`${API}${path}`, { method: 'POST', headers, body: JSON.stringify(body), credentials: 'same-origin' });
    let data = null;
    try { data = await r.json(); } catch { /* not JSON */ }
    if (!r.ok) throw new Error((data && (data.message || data.error)) || `HTTP ${r.status}`);
    return data;
  }

  // --------------------------------------------------------------- tabs

  const TABS = ['sea', 'orders', 'live'];
  function showTab(id, { focus = false } = {}) {
    if (!TABS.includes(id)) return;
    ui.tab = id;
    for (const tab of TABS) {
      const btn = $(`tab-${tab}`);
      const panel = $(`panel-${tab}`);
      const bar = $(`bar-${tab}`);
      if (btn) { btn.setAttribute('aria-selected', tab === id ? 'true' : 'false'); btn.tabIndex = tab === id ? 0 : -1; }
      if (panel) panel.hidden = tab !== id;
      if (bar) bar.hidden = tab !== id;
    }
    if (focus && $(`tab-${id}`)) $(`tab-${id}`).focus();
    try { history.replaceState(null, '', `#${id}`); } catch { /* file: or sandbox */ }
    // The sea editor's buttons sit beside the selected ship: measure again once visible.
    if (id === 'sea' && editor) editor._placeTools();
    updateBar();
  }
  for (const tab of TABS) {
    const btn = $(`tab-${tab}`);
    if (!btn) continue;
    btn.addEventListener('click', () => showTab(tab));
    btn.addEventListener('keydown', (ev) => {
      const i = TABS.indexOf(tab);
      const next = { ArrowRight: TABS[(i + 1) % 3], ArrowLeft: TABS[(i + 2) % 3], Home: TABS[0], End: TABS[2] }[ev.key];
      if (next) { ev.preventDefault(); showTab(next, { focus: true }); }
    });
  }
  function setCount(tab, n, alert = false) {
    const btn = $(`tab-${tab}`);
    if (!btn) return;
    let badge = btn.querySelector('.count');
    if (!n) { if (badge) badge.remove(); return; }
    if (!badge) { badge = el('span', { class: 'count' }); btn.append(badge); }
    badge.textContent = alert ? `! ${n}` : String(n);
    badge.classList.toggle('is-alert', alert);
  }

  // ------------------------------------------------------------- sea tab

  let editor = null;
  let lockedGrid = null;
  let playGrid = null;
  let enemyGrid = null;
  let seaStatus = { complete: false, ok: false, checking: false, problems: [], left: 0, leftNames: [] };

  function loadDraft() {
    try { const d = JSON.parse(localStorage.getItem(DRAFT_KEY) || 'null'); return Array.isArray(d) ? d : null; } catch { return null; }
  }
  function saveDraft(ships) {
    try { localStorage.setItem(DRAFT_KEY, JSON.stringify(ships)); } catch { /* private mode: the draft lasts until reload */ }
  }

  function ensureEditor() {
    if (editor) return editor;
    const sea = view.sea;
    const kinds = {};
    for (const [k, v] of Object.entries(view.fleet_kinds || {})) kinds[k] = { name: kindName(k), shape: v.shape };
    editor = new SeaEditor($('sea-editor'), {
      cols: sea.size, rows: sea.size, label: t('team.sea_label'),
      columnLabels: sea.columns, rowLabels: sea.rows,
      kinds, fleet: sea.fleet || [], ships: loadDraft() || [],
      check: (ships) => postJson('/sea/check', { team: TEAM, ships }),
      onRandom: async () => (await postJson('/sea/random', { team: TEAM })).ships,
      onChange: saveDraft,
      onSay: (text, kind) => say(text, kind),
      onStatus: (s) => {
        const hadProblems = seaStatus.problems.length > 0;
        seaStatus = s;
        paintLockButton();
        // A finished check speaks on the result line, where the thumb is.
        if (s.checking || s.error) return;
        if (s.problems.length) {
          const more = s.problems.length - 1;
          say(s.problems[0].message, 'refused', more > 0 ? tn('team.more_problems', more, { n: more }) : '');
        } else if (s.ok) say(t('editor.sea_ok'), 'ok');
        else if (hadProblems) say(t('team.sea_fixed'), 'ok');
      },
    });
    return editor;
  }

  function paintLockButton() {
    const btn = $('lock-sea');
    if (!btn) return;
    const ready = seaStatus.complete && seaStatus.ok;
    btn.setAttribute('aria-disabled', ready && !ui.busy ? 'false' : 'true');
  }

  function ownSeaCells() {
    const sea = view.sea || {};
    const hits = new Set(sea.hits || []);
    const cells = [];
    for (const ship of sea.ships || []) {
      for (const sq of ship.squares) {
        cells.push({ square: sq, state: ship.sunk ? 'sunk' : hits.has(sq) ? 'hit' : 'ship', ship: ship.id, note: shipLabel(ship) });
      }
    }
    for (const [sq, what] of Object.entries(sea.shots || {})) if (what === 'water') cells.push({ square: sq, state: 'miss' });
    return cells;
  }

  // Our ships, one row each: the letter, the name, hit or sunk, and the planes on it.
  function fleetList(target) {
    const sea = view.sea || {};
    const hits = new Set(sea.hits || []);
    const rows = (sea.ships || []).map((ship) => {
      const hit = ship.squares.filter((s) => hits.has(s)).length;
      const state = ship.sunk ? 'sunk' : hit ? 'hit' : 'afloat';
      const words = ship.sunk ? t('team.ship_sunk') : hit ? tn('team.ship_hits', hit, { n: hit }) : t('team.ship_afloat');
      const planes = ship.sunk ? t('team.planes_lost') : planesText(ship.fighters, ship.bombers);
      return el('li', { class: 'fleet-ship', 'data-state': state },
        el('span', { class: 'ship-letter', text: ship.id }),
        el('span', { class: 'fleet-name', text: shipLabel(ship) }),
        el('span', { class: 'fleet-state', 'data-state': state, text: words }),
        el('span', { class: 'fleet-planes', text: planes }));
    });
    target.replaceChildren(el('ul', { class: 'fleet-list', 'aria-label': t('team.fleet_label') }, rows));
  }

  // The enemy sea as we know it: our bombings' results (all of it once the game is over).
  function enemySeaCells({ dimShots = false, target = null } = {}) {
    const es = view.enemy_sea || {};
    const sunkOf = {};
    for (const s of (view.teams[ENEMY].sunk || [])) for (const sq of s.squares) sunkOf[sq] = s.ship;
    const cells = [];
    const shots = es.shots || {};
    for (const ship of es.ships || []) {   // revealed when the game is over
      for (const sq of ship.squares) if (!shots[sq]) cells.push({ square: sq, state: 'ship', ship: ship.id });
    }
    for (const [sq, what] of Object.entries(shots)) {
      const state = what === 'water' ? 'miss' : what === 'sunk' ? 'sunk' : 'hit';
      const flags = [];
      if (dimShots) flags.push('dimmed');
      if (target === sq) flags.push('selected');
      cells.push({ square: sq, state, ship: sunkOf[sq] ?? null, flags });
    }
    return cells;
  }

  function renderSea() {
    const setup = view.phase === 'setup';
    const locked = view.teams[TEAM].locked;
    $('sea-edit').hidden = !(setup && !locked);
    $('sea-locked').hidden = !(setup && locked);
    $('sea-play').hidden = setup;
    $('enemy-play').hidden = setup;
    $('lock-sea').hidden = !(setup && !locked);
    $('unlock-sea').hidden = !(setup && locked && (view.legal || []).some((a) => a.type === 'unlock_sea'));
    const sea = view.sea || {};
    if (setup && !locked) {
      ensureEditor();
      editor.setDisabled(ui.busy);
      paintLockButton();
    } else if (setup && locked) {
      const opts = { cols: sea.size, rows: sea.size, label: t('team.sea_label'), cells: ownSeaCells() };
      if (!lockedGrid) lockedGrid = new SeaGrid($('locked-grid'), opts); else lockedGrid.render(opts);
    } else {
      const opts = { cols: sea.size, rows: sea.size, label: t('team.sea_label'), cells: ownSeaCells() };
      if (!playGrid) playGrid = new SeaGrid($('play-grid'), opts); else playGrid.render(opts);
      fleetList($('fleet-table'));
      const es = view.enemy_sea || {};
      const eopts = { cols: es.size, rows: es.size, mini: true, label: t('team.enemy_sea_label', { team: teamName(ENEMY) }), cells: enemySeaCells() };
      if (!enemyGrid) enemyGrid = new SeaGrid($('enemy-grid'), eopts); else enemyGrid.render(eopts);
      $('enemy-title').textContent = view.phase === 'over' ? t('team.enemy_sea_over', { team: teamName(ENEMY) }) : t('team.enemy_sea_title', { team: teamName(ENEMY) });
    }
  }

  $('lock-sea').addEventListener('click', async () => {
    if (ui.busy) return;
    const e = ensureEditor();
    if (!seaStatus.complete) {
      say(t('team.lock_need_ships', { ships: seaStatus.leftNames.join(', ') }), 'refused');
      return;
    }
    if (!seaStatus.ok) {
      const first = (seaStatus.problems[0] && seaStatus.problems[0].message) || seaStatus.error || t('editor.checking');
      say(t('team.lock_need_fix', { problem: first }), 'refused');
      return;
    }
    ui.busy = true;
    e.setDisabled(true);
    paintLockButton();
    const ships = e.ships().map(({ kind, squares }) => ({ kind, squares }));
    const res = await act({ type: 'lock_sea', team: TEAM, ships });
    ui.busy = false;
    e.setDisabled(false);
    paintLockButton();
    if (res) say(t('team.locked_ok'), 'ok');
    render();
  });

  $('unlock-sea').addEventListener('click', async () => {
    if (ui.busy) return;
    // The server forgets a sea it unlocks: keep it as the draft to change.
    const ships = ((view.sea && view.sea.ships) || []).map(({ kind, squares }) => ({ kind, squares }));
    if (ships.length) saveDraft(ships);
    ui.busy = true;
    const res = await act({ type: 'unlock_sea', team: TEAM });
    ui.busy = false;
    if (res) {
      if (editor && ships.length) editor.setShips(ships, { quiet: true });
      say(t('team.unlocked_ok'), 'ok');
    }
    render();
  });

  // ---------------------------------------------------------- orders tab

  let targetGrid = null;

  function orderLine(o) {
    return [planeName(o.kind), ownShipName(o.ship), `${corridorName(o.corridor)} ${o.position}`].join(' · ');
  }

  function orderStatus(o) {
    const n = o.next;
    if (o.status === 'airborne' && n) {
      const who = { pilot: o.pilot, label: n.opponent.label, kind: planeName(n.opponent.kind) };
      if (n.conflict) return { kind: 'refused', text: t('team.next_conflict', who) };
      if (n.status === 'due' && n.reported_by && n.reported_by.length) return { kind: 'fight', text: t('team.next_reported', who) };
      if (n.status === 'due') return { kind: 'fight', text: t('team.next_due', who) };
      return { kind: '', text: t('team.next_waiting', { ...who, reason: n.reason }) };
    }
    switch (o.status) {
      case 'planned': return { kind: '', text: t('team.status_planned') };
      case 'airborne': return { kind: '', text: t('team.status_airborne') };
      case 'bombing': return { kind: 'fight', text: t('team.status_bombing', { square: o.target }) };
      case 'landed': return { kind: 'ok', text: o.landed_on ? t('team.status_landed', { ship: ownShipName(o.landed_on) }) : t('team.status_lost') };
      case 'shot_down': return { kind: 'hit', text: t('team.status_shot_down', { by: holderName(o.shot_down_by || '?') }) };
      default: return { kind: '', text: o.status };
    }
  }

  function renderOrderList() {
    const orders = [...(view.orders || [])].sort((a, b) =>
      (view.ruleset.corridors.indexOf(a.corridor) - view.ruleset.corridors.indexOf(b.corridor)) || a.position - b.position);
    const planning = view.round && view.round.phase === 'planning';
    const removable = new Set((view.legal || []).filter((a) => a.type === 'remove_order').map((a) => a.order));
    $('orders-title').textContent = t('team.orders_title', { n: view.round.round });
    $('orders-locked').hidden = planning;
    const items = orders.map((o) => {
      const st = orderStatus(o);
      return el('li', { class: 'order-item', 'data-order': o.id },
        el('div', { class: 'order-main' },
          el('span', { class: 'order-label', text: o.label }),
          el('span', { class: 'order-pilot', text: o.pilot }),
          el('span', { class: 'order-line', text: orderLine(o) }),
          o.target ? el('span', { class: 'order-target', 'aria-label': `${t('team.target_word')} ${o.target}` }, el('span', { 'aria-hidden': 'true', text: '→ ' }), o.target) : null,
          planning ? null : el('span', { class: 'order-status', 'data-kind': st.kind, text: st.text })),
        planning && removable.has(o.id)
          ? el('button', {
            type: 'button', class: 'btn btn-ghost order-remove', 'data-key': `remove-${o.id}`,
            'aria-label': t('team.remove_order', { pilot: o.pilot }),
            onclick: async () => { const r = await act({ type: 'remove_order', order: o.id }); if (r) say(t('team.removed_ok', { pilot: o.pilot }), 'ok'); },
          }, el('span', { 'aria-hidden': 'true', text: '✕' }), el('span', { class: 'order-remove-word', text: t('team.remove') }))
          : null);
    });
    $('order-list').replaceChildren(...items);
    $('orders-empty').hidden = orders.length > 0;
    const print = $('print-slips');
    print.hidden = !orders.length;
    print.href = `/g/${encodeURIComponent(GAME)}/slips?round=${view.round.round}`;
  }

  function renderDefender() {
    const legal = (view.legal || []).find((a) => a.type === 'set_defender');
    const allowed = new Set(legal ? legal.options : []);
    const chips = (view.players || []).map((p) => el('button', {
      type: 'button', class: 'chip', 'data-key': `def-${p}`,
      'aria-pressed': view.defender === p ? 'true' : 'false',
      disabled: !allowed.has(p) && view.defender !== p,
      onclick: async () => {
        if (view.defender === p) return;
        const r = await act({ type: 'set_defender', team: TEAM, pilot: p });
        if (r) { ui.defenderOpen = false; say(t('team.defender_ok', { pilot: p }), 'ok'); renderOrders(); }
      },
    }, p));
    $('defender-chips').replaceChildren(...chips);
    $('defender-hint').hidden = Boolean(view.defender);
    $('defender-card').classList.toggle('needs-action', !view.defender);
    // Once chosen, the card folds to one line; "Change" opens the chips again.
    const folded = Boolean(view.defender) && !ui.defenderOpen;
    $('defender-chips').hidden = folded;
    $('defender-name').textContent = view.defender || '';
    $('defender-name').hidden = !view.defender;
    $('defender-change').hidden = !view.defender;
    $('defender-change').setAttribute('aria-expanded', folded ? 'false' : 'true');
  }

  function step(n, key, done) {
    const s = $(`step-${key}`);
    s.classList.toggle('is-done', Boolean(done));
    s.querySelector('.step-no').textContent = done ? '✓' : String(n);
  }

  function renderForm() {
    const o = view.options || {};
    const f = ui.form = sanitiseForm(ui.form, o);
    const noPilots = !(o.pilots || []).length;
    $('order-form').hidden = noPilots;
    $('no-pilots').hidden = !noPilots;
    if (noPilots) return;

    // 1. pilot
    $('pilot-chips').replaceChildren(...o.pilots.map((p) => el('button', {
      type: 'button', class: 'chip', 'data-key': `pilot-${p}`, 'aria-pressed': f.pilot === p ? 'true' : 'false',
      onclick: () => { const on = ui.form.pilot !== p; ui.form.pilot = on ? p : null; renderOrders(); if (on) nextStep(); },
    }, p)));
    step(1, 'pilot', f.pilot);

    // 2. plane: one row per ship, a chip for its fighters and one for its bombers
    // A grid: a row per ship, a column per kind; each button shows the planes left.
    $('plane-rows').replaceChildren(
      el('span', { class: 'plane-head', 'aria-hidden': 'true' }),
      el('span', { class: 'plane-head', 'aria-hidden': 'true', text: t('team.col_fighters') }),
      el('span', { class: 'plane-head', 'aria-hidden': 'true', text: t('team.col_bombers') }),
      ...(o.ships || []).flatMap((s) => [
        el('span', { class: 'plane-ship' }, el('span', { class: 'ship-letter', text: s.ship }), el('span', { text: shipLabel(s) })),
        ...['fighter', 'bomber'].map((k) => el('button', {
          type: 'button', class: 'plane-pick', 'data-key': `plane-${s.ship}-${k}`, 'data-kind': k,
          'aria-pressed': f.ship === s.ship && f.kind === k ? 'true' : 'false',
          'aria-label': t('team.plane_chip', { plane: planeName(k), ship: shipLabel(s), n: s[k] }),
          disabled: !(s[k] > 0),
          onclick: () => {
            const same = ui.form.ship === s.ship && ui.form.kind === k;
            ui.form.ship = same ? null : s.ship;
            ui.form.kind = same ? null : k;
            renderOrders();
            if (!same) nextStep();
          },
        }, el('span', { class: 'plane-count', text: String(s[k]) }))),
      ]));
    step(2, 'plane', f.ship && f.kind);

    // 3. corridor: three large buttons with their free slots; take-off position under them
    $('corridor-choices').replaceChildren(...(o.corridors || []).map((c) => el('button', {
      type: 'button', class: 'choice', 'data-key': `corr-${c.corridor}`, 'aria-pressed': f.corridor === c.corridor ? 'true' : 'false',
      disabled: c.free <= 0,
      onclick: () => { ui.form.corridor = c.corridor; ui.form.position = c.positions[0]; renderOrders(); nextStep(); },
    }, el('span', { class: 'big', text: corridorName(c.corridor) }),
    el('span', { class: 'small', text: c.free > 0 ? tn('team.free_slots', c.free, { n: c.free }) : t('team.corridor_full') }))));
    const corridor = (o.corridors || []).find((c) => c.corridor === f.corridor);
    $('position-row').hidden = !corridor || corridor.positions.length < 2;
    if (corridor) {
      $('position-chips').replaceChildren(...corridor.positions.map((p) => el('button', {
        type: 'button', class: 'chip chip-small', 'data-key': `pos-${p}`, 'aria-pressed': f.position === p ? 'true' : 'false',
        'aria-label': t('team.position_n', { n: p }),
        onclick: () => { ui.form.position = p; renderOrders(); },
      }, String(p))));
    }
    step(3, 'corridor', f.corridor);

    // 4. target (bombers): the enemy sea with our past results
    const bomber = f.kind === 'bomber';
    $('step-target').hidden = !bomber;
    if (bomber) {
      const es = view.enemy_sea || {};
      const size = es.size || o.target_size;
      const others = new Set((view.orders || []).filter((x) => x.target).map((x) => x.target));
      const cells = enemySeaCells({ dimShots: true, target: f.target });
      if (f.target && !es.shots?.[f.target]) cells.push({ square: f.target, flags: ['selected'] });
      for (const sq of others) if (sq !== f.target && !es.shots?.[sq]) cells.push({ square: sq, flags: ['highlight'], note: t('team.targeted') });
      const opts = { cols: size, rows: size, mini: true, label: t('team.enemy_sea_label', { team: teamName(ENEMY) }), cells, onTap: pickTarget };
      if (!targetGrid) targetGrid = new SeaGrid($('target-grid'), opts); else targetGrid.render(opts);
      $('target-picked').textContent = f.target || '–';
    }
    step(4, 'target', f.target);

    // the bar: what is still missing, or the order in words; then "Add"
    const missing = missingStep(f);
    const ship = (o.ships || []).find((s) => s.ship === f.ship);
    $('order-summary').textContent = missing
      ? t(`team.need_${missing}`)
      : [f.pilot, `${planeName(f.kind)} · ${shipLabel(ship)}`, `${corridorName(f.corridor)} ${f.position}`, f.target].filter(Boolean).join(' · ');
    $('order-summary').dataset.ready = missing ? 'false' : 'true';
    $('add-order').setAttribute('aria-disabled', missing || ui.busy ? 'true' : 'false');
  }

  // After a tap, bring the next open step into view (the form is long on a phone).
  function nextStep() {
    const missing = missingStep(ui.form);
    const node = missing ? $(`step-${missing}`) : $('add-order');
    if (!node || node.hidden || !missing) return;
    const reduce = window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
    const top = node.getBoundingClientRect().top;
    const bar = document.querySelector('.topbar');
    const offset = (bar ? bar.getBoundingClientRect().height : 0) + 8;
    window.scrollBy({ top: top - offset, behavior: reduce ? 'auto' : 'smooth' });
  }

  function pickTarget(cell) {
    ui.form.target = cell.name;
    const shot = (view.enemy_sea && view.enemy_sea.shots || {})[cell.name];
    if (shot === 'hit' || shot === 'sunk') say(t('team.target_already_hit', { square: cell.name }), 'refused');
    else if (shot === 'water') say(t('team.target_water', { square: cell.name }), 'water');
    else say(t('team.target_ok', { square: cell.name }), 'ok');
    renderOrders();
  }

  $('defender-change').addEventListener('click', () => { ui.defenderOpen = !ui.defenderOpen; renderOrders(); });

  $('add-order').addEventListener('click', async () => {
    const f = ui.form;
    const missing = missingStep(f);
    if (missing) { say(t(`team.need_${missing}`), 'refused'); return; }
    if (ui.busy) return;
    const action = { type: 'add_order', team: TEAM, pilot: f.pilot, kind: f.kind, ship: f.ship, corridor: f.corridor };
    if (f.position) action.position = f.position;
    if (f.kind === 'bomber') action.target = f.target;
    ui.busy = true;
    renderForm();
    const res = await act(action);
    ui.busy = false;
    if (res) {
      say(t('team.order_added', { pilot: f.pilot }), 'ok',
        [planeName(f.kind), ownShipName(f.ship), `${corridorName(f.corridor)} ${f.position}`, f.target].filter(Boolean).join(' · '));
      ui.form = { pilot: null, ship: null, kind: null, corridor: null, position: null, target: null };
    }
    render();
  });

  function renderOrders() {
    const planning = view.phase === 'playing' && view.round.phase === 'planning';
    const airborne = view.phase === 'playing' && view.round.phase === 'airborne';
    $('orders-idle').hidden = planning || airborne;
    $('orders-idle-text').textContent = view.phase === 'over' ? t('team.orders_over') : t('team.orders_wait');
    $('defender-card').hidden = !planning;
    $('form-card').hidden = !planning;
    $('list-card').hidden = !(planning || airborne);
    $('bar-orders-planning').hidden = !planning;
    if (planning) { renderDefender(); renderForm(); }
    if (planning || airborne) renderOrderList();
    setCount('orders', planning ? (view.orders || []).length : 0);
  }

  // ------------------------------------------------------------ live tab

  const cues = new SoundCues({ speak: false });
  soundButton($('sound'), cues);
  const wake = new ScreenWake();
  const countdown = new Countdown($('timer'), { now: () => conn.serverNow(), labelEl: $('timer-label'), cues });

  function renderTimer() {
    const r = view.round || {};
    countdown.set(timerState(r));
    let head;
    if (view.phase === 'setup') head = t('team.round_none');
    else if (view.phase === 'over') head = t('team.round_over');
    else if (r.phase === 'airborne') head = t(r.running ? 'team.round_airborne' : 'team.round_paused', { n: r.round });
    else head = t('team.round_planning', { n: r.round });
    $('round-head').textContent = head;
    if (view.phase === 'playing' && r.phase === 'airborne') wake.enable(); else wake.disable();
  }

  const VERDICT_KIND = { water: 'water', already_hit: 'water', fight: 'fight', hit: 'hit', sunk: 'sunk', left: 'ok', shot_down: 'ok' };

  function renderBombing() {
    const waiting = view.bombers_at_base || [];
    const fights = waiting.filter((b) => b.answer === 'fight');
    const open = waiting.filter((b) => !b.answer);
    if (ui.fight.order && !fights.some((b) => b.order === ui.fight.order)) ui.fight = { order: null, picks: [] };
    if (!ui.fight.order && fights.length) ui.fight = { order: fights[0].order, picks: [] };
    const fight = fights.find((b) => b.order === ui.fight.order);
    if (fight) ui.verdict = null;   // a new fight replaces an old verdict

    const card = $('bombing-card');
    const verdictEl = $('verdict');
    const textEl = $('bombing-text');
    card.hidden = !(fight || open.length || ui.verdict);
    card.dataset.kind = fight ? 'fight' : ui.verdict ? ui.verdict.answer : 'waiting';
    $('bombing-dismiss').hidden = !(ui.verdict && !fight);
    $('bomber-picks').hidden = true;
    if (!open.length || fight || ui.verdict) { $('scan-slip').hidden = true; if (scanner) stopScan(); }

    if (fight) {
      verdictEl.hidden = false;
      verdictEl.dataset.kind = 'fight';
      verdictEl.textContent = t('team.verdict.fight');
      const ship = shipAt(fight.target);
      const s = bombingStep(ui.fight.picks);
      textEl.textContent = t('team.fight_text', { label: fight.label, square: fight.target, ship: ship ? shipLabel(ship) : '?' });
      $('bombing-step').textContent = s.ask === 'choice' ? t('team.fight_choice') : s.ask === 'second' ? t('team.fight_second') : t('team.fight_first');
      $('bombing-step').hidden = false;
    } else if (ui.verdict) {
      const v = ui.verdict;
      verdictEl.hidden = false;
      verdictEl.dataset.kind = v.answer;
      verdictEl.textContent = t(`team.verdict.${v.answer}`);
      textEl.textContent = v.text || '';
      $('bombing-step').hidden = true;
    } else {
      verdictEl.hidden = true;
      textEl.textContent = tn('team.bombers_waiting', open.length, { n: open.length });
      $('bombing-step').textContent = t('team.bombers_ask');
      $('bombing-step').hidden = false;
      $('bomber-picks').hidden = false;
      if (!scanner) $('scan-slip').hidden = !scannerAvailable();
      const seen = {};
      const total = {};
      for (const b of open) total[b.label] = (total[b.label] || 0) + 1;
      $('bomber-chips').replaceChildren(...open.map((b) => {
        seen[b.label] = (seen[b.label] || 0) + 1;
        // Two bombers from different corridors can share a label (B1): number them.
        const text = total[b.label] > 1 ? `${b.label} · ${seen[b.label]}` : b.label;
        return el('button', {
          type: 'button', class: 'chip', 'data-key': `bomber-${b.order}`,
          onclick: () => announce({ order: b.order }, b.label),
        }, text);
      }));
    }

    // The action bar: the square input, or the throw buttons.
    const bar = $('bar-live');
    $('announce-form').hidden = !(open.length && !fight);
    $('bar-fight').hidden = !fight;
    if (fight) {
      const s = bombingStep(ui.fight.picks);
      $('throw-buttons').hidden = s.ask === 'choice';
      $('choice-buttons').hidden = s.ask !== 'choice';
      $('fight-back').hidden = !ui.fight.picks.length;
    }
    bar.classList.toggle('has-fight', Boolean(fight));
    setCount('live', waiting.length, true);
  }

  async function announce(which, label) {
    if (ui.busy) return;
    ui.busy = true;
    const res = await act({ type: 'announce_bombing', ...which });
    ui.busy = false;
    if (!res) { render(); return; }
    const v = res.view || view;
    const note = findNote(v, (n) => n.type === 'bombing' && n.team === TEAM && (which.order ? n.order === which.order : n.square === which.target));
    if (note) {
      if (note.answer === 'fight') {
        ui.fight = { order: note.order, picks: [] };
        say(t('team.say_fight', { label: note.label, square: note.square }), 'fight');
      } else {
        const text = note.answer === 'water' ? t('team.water_text', { label: note.label, square: note.square }) : t('team.already_text', { label: note.label, square: note.square });
        ui.verdict = { answer: note.answer, text };
        say(note.answer === 'water' ? t('team.say_water', { square: note.square }) : t('team.say_already', { square: note.square }), 'water');
      }
    }
    $('bomb-square').value = '';
    render();
  }

  // Scan the bomber's slip (only where the camera is allowed: https or localhost).
  let scanner = null;
  async function stopScan() {
    if (scanner) { try { scanner.stop(); } catch { /* already stopped */ } }
    scanner = null;
    $('scan-box').hidden = true;
    $('scan-slip').hidden = !scannerAvailable() || !(view.bombers_at_base || []).some((b) => !b.answer);
  }
  $('scan-slip').addEventListener('click', async () => {
    $('scan-box').hidden = false;
    $('scan-slip').hidden = true;
    try {
      scanner = await startScanner($('scan-video'), {
        onResult: (text) => {
          const order = orderFromSlip(text, GAME);
          if (!order) { say(t('team.scan_foreign'), 'refused'); return; }
          stopScan();
          announce({ order });
        },
        onError: () => say(t('team.scan_failed'), 'error'),
      });
    } catch {
      stopScan();
    }
  });
  $('scan-stop').addEventListener('click', stopScan);

  $('announce-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const size = (view.sea && view.sea.size) || 26;
    const sq = cleanSquare($('bomb-square').value, size, size);
    if (!sq) { say(t('team.square_invalid', { text: $('bomb-square').value || '–' }), 'refused'); $('bomb-square').focus(); return; }
    announce({ target: sq });
  });

  async function fightPick(pick) {
    if (ui.busy || !ui.fight.order) return;
    const picks = [...ui.fight.picks, pick];
    const s = bombingStep(picks);
    if (!s.done) { ui.fight.picks = picks; render(); return; }
    ui.busy = true;
    const order = ui.fight.order;
    const res = await act({ type: 'report_bombing', order, throws: s.throws, ...(s.choice ? { choice: s.choice } : {}) });
    ui.busy = false;
    if (!res) { ui.fight.picks = []; render(); return; }
    const v = res.view || view;
    const note = findNote(v, (n) => n.type === 'bombing_result' && n.order === order);
    const result = note ? note.result : null;
    const square = note ? note.square : '';
    let answer = result;
    let text = '';
    if (result === 'hit') {
      const hit = findNote(v, (n) => n.type === 'hit' && n.team === TEAM && n.square === square);
      const sunk = hit && findNote(v, (n) => n.type === 'sunk' && n.team === TEAM && n.ship === hit.ship);
      const name = hit ? ownShipName(hit.ship) : '';
      if (sunk) { answer = 'sunk'; text = t('team.sunk_text', { ship: name }); say(t('team.say_sunk', { ship: name }), 'sunk'); }
      else { text = t('team.hit_text', { ship: name, square }); say(t('team.say_hit', { ship: name, square }), 'hit'); }
    } else if (result === 'left') {
      text = t('team.left_text', { label: note.label }); say(t('team.say_left'), 'ok');
    } else if (result === 'shot_down') {
      text = t('team.shot_down_text', { label: note.label }); say(t('team.say_shot_down'), 'ok');
    }
    ui.fight = { order: null, picks: [] };
    if (answer) ui.verdict = { answer, text };
    render();
  }
  for (const b of document.querySelectorAll('[data-throw]')) b.addEventListener('click', () => fightPick(b.dataset.throw));
  $('fight-back').addEventListener('click', () => { ui.fight.picks = ui.fight.picks.slice(0, -1); render(); });
  $('bombing-dismiss').addEventListener('click', () => { ui.verdict = null; render(); });

  function facts(pairs) {
    return el('dl', { class: 'facts' }, pairs.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: v })]));
  }

  const planesText = (f, b) => `${tn('team.n_fighters', f, { n: f })} · ${tn('team.n_bombers', b, { n: b })}`;

  function renderSummary() {
    const us = view.teams[TEAM];
    const them = view.teams[ENEMY];
    const led = view.ledger || {};
    const plane = (k) => (led[k] ? led[k].on_ships : us.planes[k]);
    const inAir = (led.fighter ? led.fighter.in_air : 0) + (led.bomber ? led.bomber.in_air : 0);
    const hitsOn = (team) => Object.values(team.shots || {}).filter((x) => x === 'hit' || x === 'sunk').length;
    const sunkNames = (team, own) => (team.sunk || []).map((s) => (own ? ownShipName(s.ship) : kindName(s.kind))).join(', ');
    $('us-facts').replaceChildren(facts([
      [t('team.fact_afloat'), t('team.n_of_m', { n: us.ships_afloat, m: us.ships_total })],
      [t('team.fact_hit'), String((view.sea.hits || []).length)],
      [t('team.fact_sunk'), sunkNames(us, true) || '–'],
      [t('team.fact_planes'), planesText(plane('fighter'), plane('bomber'))],
      [t('team.fact_in_air'), String(inAir)],
      [t('team.fact_trophies'), String(us.trophies)],
    ]));
    $('them-facts').replaceChildren(facts([
      [t('team.fact_afloat'), t('team.n_of_m', { n: them.ships_afloat, m: them.ships_total })],
      [t('team.fact_hit'), String(hitsOn(them))],
      [t('team.fact_sunk'), sunkNames(them, false) || '–'],
      [t('team.fact_planes'), planesText(them.planes.fighter, them.planes.bomber)],
      [t('team.fact_trophies'), String(them.trophies)],
    ]));
    $('us-name').textContent = us.name;
    $('them-name').textContent = them.name;
    if (view.phase !== 'setup') fleetList($('live-fleet'));
    $('live-fleet').hidden = view.phase === 'setup';
    const tro = view.trophies || [];
    $('trophy-list').replaceChildren(...tro.map((x) => el('li', { text: t('team.trophy_line', { plane: planeName(x.kind), round: x.round, holder: holderName(x.holder) }) })));
    $('trophy-list').hidden = !tro.length;
  }

  // The latest events in words, newest first.
  function describe(n) {
    const me = n.team === TEAM;
    if (n.team && !me && ['order_added', 'order_removed', 'landed', 'lost'].includes(n.type)) return null;
    const p = { ...n, team_name: teamName(n.team), other: teamName(n.team === 'A' ? 'B' : 'A') };
    switch (n.type) {
      case 'sea_locked': return t('team.ev.sea_locked', p);
      case 'game_started': return t('team.ev.game_started');
      case 'order_added': return t('team.ev.order_added', { order: pilotOf(n.order) });
      case 'order_removed': return t('team.ev.order_removed', { order: n.order });
      case 'round_started': return t('team.ev.round_started', { n: n.round });
      case 'round_ended': return t('team.ev.round_ended', { n: n.round });
      case 'dogfight': {
        if (n.passed) return t('team.ev.dogfight_passed', { a: n.a_label, b: n.b_label });
        const loserTeam = String(n.shot_down || '').replace(/[0-9]/g, '').charAt(0);
        const loser = loserTeam === (n.a_label || '').charAt(0) ? n.a_label : n.b_label;
        return t('team.ev.dogfight', { a: n.a_label, b: n.b_label, loser });
      }
      case 'shot_down': return t('team.ev.shot_down', { label: n.label, plane: planeName(n.kind), by: holderName(n.by) });
      case 'through': return n.kind === 'bomber' ? t('team.ev.through_bomber', { label: n.label, base: baseOf(n.team === 'A' ? 'B' : 'A') }) : t('team.ev.through_fighter', { label: n.label });
      case 'bombing': return t(`team.ev.bombing_${n.answer}`, { label: n.label, square: n.square, base: baseOf(n.team) });
      case 'bombing_result': return t(`team.ev.result_${n.result}`, { label: n.label, square: n.square, base: baseOf(n.team) });
      case 'hit': return me && n.ship ? t('team.ev.hit_own', { square: n.square, ship: ownShipName(n.ship) }) : t('team.ev.hit', { square: n.square, team: p.team_name });
      case 'sunk': return me ? t('team.ev.sunk_own', { ship: ownShipName(n.ship) }) : t('team.ev.sunk', { ship: kindName(n.kind), team: p.team_name });
      case 'landed': return t('team.ev.landed', { order: pilotOf(n.order), ship: ownShipName(n.ship) });
      case 'lost': return t('team.ev.lost', { order: pilotOf(n.order) });
      case 'game_over': return n.winner ? t('team.ev.game_over', { team: teamName(n.winner) }) : t('team.ev.game_draw');
      case 'timer': return n.running ? t('team.ev.timer_running') : t('team.ev.timer_paused');
      case 'voided': case 'void': return t('team.ev.voided');
      default: return null;
    }
  }
  function baseOf(team) {
    return team === TEAM ? t('team.our_base') : t('team.their_base', { team: teamName(team) });
  }
  function pilotOf(orderId) {
    const all = [...(view.orders || []), ...(view.past_orders || [])];
    const o = all.find((x) => x.id === orderId);
    return o && o.pilot ? `${o.pilot} (${o.label})` : orderId;
  }

  function renderEvents() {
    const items = [];
    const rows = view.log || [];
    for (let i = rows.length - 1; i >= 0 && items.length < 12; i--) {
      const notes = rows[i].notes || [];
      for (let j = notes.length - 1; j >= 0 && items.length < 12; j--) {
        const text = describe(notes[j]);
        if (!text) continue;
        const at = new Date((rows[i].at || 0) * 1000);
        items.push(el('li', { 'data-type': notes[j].type },
          el('time', { class: 'muted mono', datetime: at.toISOString(), text: at.toLocaleTimeString(pageLang(), { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }) }),
          el('span', { text })));
      }
    }
    $('event-list').replaceChildren(...items);
    $('events-empty').hidden = items.length > 0;
  }

  function renderOutcome() {
    const over = view.phase === 'over' && view.outcome;
    $('outcome-card').hidden = !over;
    if (!over) return;
    const w = view.outcome.winner;
    $('outcome-title').textContent = w === null || w === undefined ? t('team.outcome_draw') : t('team.outcome_winner', { team: teamName(w) });
    $('outcome-sub').textContent = w === null || w === undefined ? '' : w === TEAM ? t('team.outcome_we_win') : t('team.outcome_they_win');
    $('outcome-card').dataset.result = w === null || w === undefined ? 'draw' : w === TEAM ? 'win' : 'loss';
    $('outcome-detail').textContent = view.outcome.detail || '';
    $('log-json').href = `${API}/log.json`;
    $('log-csv').href = `${API}/log.csv`;
  }

  function renderLive() {
    renderOutcome();
    renderTimer();
    renderBombing();
    renderSummary();
    renderEvents();
    $('timer-card').hidden = view.phase === 'over';
  }

  // ------------------------------------------------------------- drawing

  function render() {
    // Keep the keyboard focus on the same control across a redraw.
    const active = document.activeElement;
    const key = active && active.dataset ? active.dataset.key : null;
    renderSea();
    renderOrders();
    renderLive();
    updateBar();
    if (key) {
      const again = document.querySelector(`[data-key="${CSS.escape(key)}"]`);
      if (again && again !== active) again.focus();
    }
  }

  function stageWords(v) {
    if (v.phase === 'over') return t('team.round_over');
    if (v.phase === 'setup') return t('team.round_none');
    return v.round.phase === 'airborne' ? t('team.ev.round_started', { n: v.round.round }) : t('team.round_planning', { n: v.round.round });
  }

  function apply(v) {
    if (!v || v.mode !== 'airraid') return;
    if (Number.isFinite(v.version) && Number.isFinite(view.version) && v.version < view.version) return;
    const before = stageKey(view);
    const bombersBefore = (view.bombers_at_base || []).length;
    view = v;
    render();
    const after = stageKey(view);
    if (after !== before) {
      showTab(tabForPhase(view));
      say(stageWords(view), 'ok');
    }
    const bombers = (view.bombers_at_base || []).length;
    if (bombers > bombersBefore) {
      // A bomber at our base: the defender's phone calls for attention.
      showTab('live');
      say(t('team.say_bomber'), 'fight');
      if (navigator.vibrate) { try { navigator.vibrate([120, 80, 120]); } catch { /* not allowed */ } }
      cues.beep(880, 150);
      cues.beep(660, 200, { at: 0.2 });
    }
  }

  render();
  const fromHash = location.hash.replace('#', '');
  showTab(TABS.includes(fromHash) ? fromHash : tabForPhase(view));
  conn.start();
  // For tests and debugging in the browser console.
  window.teamPage = { conn, get view() { return view; }, ui, get editor() { return editor; } };
}

if (typeof document !== 'undefined' && document.getElementById('page-data')) start();
