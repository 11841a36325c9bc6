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
//   Sea     setup: the sea editor (lib/sea-editor.js), "Lock sea"; locked: the sea
//           read-only and "Unlock"; in play: our sea with hits, sunk ships,
//           water shots and the planes on each ship.
//   Orders  planning: the defender, then the order form (pilot → plane →
//           corridor → target → Add), this round's orders, "Print slips";
//           airborne: each order's state and its next dogfight.
//   Live    the round timer, bombers at our base (the defender resolves them
//           here: WATER / ALREADY HIT / FIGHT and the throws; offline the phone
//           answers from its own sea, marked as not yet sent, until the server's
//           answer replaces it), the score of both seas, the latest events; the
//           winner when the game is over.
//

import { connectPage, postJson as postToApi } from '../lib/conn.js';
import { SoundCues, soundButton } from '../lib/timer.js';
import { t, pageLang } from '../lib/i18n.js';
import { el, $, resultLine } from '../lib/dom.js';
import { tabForPhase, stageKey } from './team/helpers.js';
import { makeWords } from './team/words.js';
import * as seaTab from './team/sea-tab.js';
import * as ordersTab from './team/orders-tab.js';
import * as liveTab from './team/live-tab.js';

const TABS = ['sea', 'orders', 'live'];

// The bottom bar is drawn only when it holds something: a result or a control.
function updateBar() {
  const bar = document.querySelector('.actionbar');
  if (!bar) return;
  const result = $('result');
  const visible = (node) => !node.closest('[hidden]');
  const controls = [...bar.querySelectorAll('.bar-group button, .bar-group input')].some(visible);
  bar.classList.toggle('is-empty', !controls && !(result && result.textContent.trim()));
}

/** The three tabs (the tab_buttons macro): click and arrow keys, each tab's panel and bar group,
 *  and a count on a tab. Returns {show(id, {focus}), setCount(tab, n, alert)}. */
function mountTabs(ctx, { onShow }) {
  function show(id, { focus = false } = {}) {
    if (!TABS.includes(id)) return;
    ctx.ui.tab = id;
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
    onShow(id);
    updateBar();
  }
  for (const tab of TABS) {
    const btn = $(`tab-${tab}`);
    if (!btn) continue;
    btn.addEventListener('click', () => show(tab));
    btn.addEventListener('keydown', (ev) => {
      const i = TABS.indexOf(tab);
      const next = { ArrowRight: TABS[(i + 1) % 3], ArrowLeft: TABS[(i + 2) % 3], Home: TABS[0], End: TABS[2] }[ev.key];
      if (next) { ev.preventDefault(); show(next, { focus: true }); }
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
  return { show, setCount };
}

function stageWords(v) {
  if (v.phase === 'over') return t('team.round_over');
  if (v.phase === 'setup') return t('team.round_none');
  if (v.round.phase !== 'airborne') return t('team.round_planning', { n: v.round.round });
  // A paused round is not "in the air" for the bar: it says so until the clock runs again.
  return v.round.running ? t('team.ev.round_started', { n: v.round.round }) : t('team.round_paused', { n: v.round.round });
}

/** Whether the round's clock runs: a pause or a resume changes the bar's words too. */
function clockKey(v) {
  return v && v.round && v.round.phase === 'airborne' ? String(Boolean(v.round.running)) : '';
}

/** Take a pushed view: draw it; on a new stage of the game, the tab that fits it and its words
 *  on the result line; for a new bomber at our base, the Live tab and a call for the defender. */
function apply(ctx, v) {
  if (!v || v.mode !== 'airraid') return;
  if (Number.isFinite(v.version) && Number.isFinite(ctx.view.version) && v.version < ctx.view.version) return;
  const before = stageKey(ctx.view);
  const clockBefore = clockKey(ctx.view);
  const bombersBefore = (ctx.view.bombers_at_base || []).length;
  ctx.view = v;
  // A bombing's verdict belongs to its round: a new round, or the end of the game, clears it.
  if (stageKey(v) !== before) ctx.ui.verdict = null;
  ctx.render();
  const after = stageKey(ctx.view);
  if (after !== before) {
    ctx.showTab(tabForPhase(ctx.view));
    ctx.say(stageWords(ctx.view), 'ok');
  } else if (clockKey(ctx.view) !== clockBefore) {
    ctx.say(stageWords(ctx.view), 'ok');
  }
  const bombers = (ctx.view.bombers_at_base || []).length;
  if (bombers > bombersBefore) {
    // A bomber at our base: the defender's phone calls for attention.
    ctx.showTab('live');
    ctx.say(t('team.say_bomber'), 'fight');
    if (navigator.vibrate) { try { navigator.vibrate([120, 80, 120]); } catch { /* not allowed */ } }
    ctx.cues.beep(880, 150);
    ctx.cues.beep(660, 200, { at: 0.2 });
  }
}

function start() {
  const page = JSON.parse($('page-data').textContent);
  const game = page.game;
  const team = page.view.team || String(page.role || '').split(':')[1];

  /** What every tab shares. `view` is replaced by each update; `ui` is this page's own state. */
  const ctx = {
    game,
    api: page.api || `/api/games/${game}`,
    team,
    enemy: team === 'A' ? 'B' : 'A',
    lang: pageLang().toLowerCase().split('-')[0],
    view: page.view,
    ui: {
      tab: null,
      stage: null,
      bombers: 0,
      form: { pilot: null, ship: null, kind: null, corridor: null, position: null, target: null },
      fight: { order: null, picks: [] },
      verdict: null,
      // Bombings this phone answered or queued itself (team/bombing.js), and the one on the card.
      local: [],
      focus: null,
      notices: [],
      busy: false,
    },
    cues: new SoundCues({ speak: false }),
    // The result line in the action bar, where the thumb is. Server messages and ship names
    // start in lower case ("tug touches cruiser at …"); a tick beside "offline" would read as
    // "saved on the server": offline, news is neutral.
    say: resultLine($('result'), { capitalise: true, kindFor: (kind) => (kind === 'ok' && !ctx.conn.online ? 'info' : kind), after: updateBar }),
    act,
    queue,
    postJson: (path, body) => postToApi(`${ctx.api}${path}`, body),
    render,
  };
  ctx.words = makeWords(ctx);
  ctx.conn = connectPage({ game, initialSeq: page.seq ?? page.view.version ?? -1 },
    { say: ctx.say, onView: (v) => apply(ctx, v), refusedKey: 'team.refused', queuedKey: 'team.queued' });
  const { conn, ui, cues, say } = ctx;
  soundButton($('sound'), cues);
  conn.on('status', ({ state }) => {
    // CSS turns the page's ticks neutral while offline (app.css, .team-page[data-conn]).
    document.body.dataset.conn = state;
    if (state === 'offline' && say.kind() === 'ok') say.kind('info');
  });

  /** Send an action; show a refusal as "Refused: …"; resolve with the ack or null. */
  async function act(action) {
    if (!conn.online) say(t('team.queued'), 'queued');
    const res = await conn.send(action);
    if (!res || res.ok === false) {
      say(t('team.refused', { message: (res && (res.message || res.error)) || '?' }), 'refused');
      return null;
    }
    if (res.view) apply(ctx, res.view);
    return res;
  }

  /** Queue an action without waiting: {id (its client id), done (resolves with the ack)}. */
  function queue(action) {
    const done = conn.send(action);
    return { id: done.clientId, done };
  }

  const tabs = mountTabs(ctx, { onShow: (id) => { if (id === 'sea') sea.shown(); } });
  ctx.showTab = tabs.show;
  ctx.setCount = tabs.setCount;
  const sea = seaTab.mount(ctx);
  const orders = ordersTab.mount(ctx);
  const live = liveTab.mount(ctx);

  function render() {
    // Keep the keyboard focus on the same control across a redraw.
    const active = document.activeElement;
    const key = active && active.dataset ? active.dataset.key : null;
    sea.render();
    orders.render();
    live.render();
    updateBar();
    if (key) {
      const again = document.querySelector(`[data-key="${CSS.escape(key)}"]`);
      if (again && again !== active) again.focus();
    }
  }

  render();
  const fromHash = location.hash.replace('#', '');
  tabs.show(TABS.includes(fromHash) ? fromHash : tabForPhase(ctx.view));
  conn.start();
  // For tests and debugging in the browser console.
  window.teamPage = { conn, get view() { return ctx.view; }, ui, get editor() { return sea.editor; } };
}

if (typeof document !== 'undefined' && document.getElementById('page-data')) start();
