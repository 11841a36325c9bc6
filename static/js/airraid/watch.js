// The projector (templates/games/watch.html): the public view only, big.
//
// A third of the screen is the countdown; below it each team's score and the
// squares shot at its sea, and the latest events in words. When the game is
// over a winner banner replaces the clock. Sound cues need one tap (browsers
// block audio until then); the screen is kept awake where the browser allows.

import { connectPage } from '../lib/conn.js';
import { Countdown, SoundCues, soundButton, ScreenWake, formatMs } from '../lib/timer.js';
import { SeaGrid } from '../lib/sea.js';
import { t } from '../lib/i18n.js';
import { el, readJson, $ } from '../lib/dom.js';
import { teamName, applyTeamColours, describeEvent, shipKindName as shipWord } from './words.js';
import { RoundMoment } from './moment.js';

const page = readJson('page-data', {});
let view = page.view || {};
let lastRoundKey = null;
const seas = {};

// `as: 'public'` asks the server for the public view even when this browser also holds the
// referee's cookie (the projector is often a second window on the referee's laptop).
// A batch of events without its view: ask for what was missed.
const conn = connectPage({ game: page.game, initialSeq: Number.isFinite(page.seq) ? page.seq : -1, extra: { as: 'public' } }, {
  onView: (v, type) => { if (v || type === 'view') render(v); else conn.resync(); },
});
const cues = new SoundCues({ speak: true });
const soundBtn = $('sound');
// The referee's dashboard shows whether this projector will sound 0:00: it is told every change,
// and again after every resync (a restarted server knows nothing of it).
soundButton(soundBtn, cues, { onChange: (on) => conn.tell('sound', { on }) });
conn.on('resynced', () => conn.tell('sound', { on: cues.enabled }));
const wake = new ScreenWake();
wake.enable();
// Wake Lock may need a user gesture on some browsers: try again on the first tap.
document.addEventListener('pointerdown', () => wake.enable(), { once: true });

const timerEl = $('timer');
const timerLabel = $('timer-label');
const moment = new RoundMoment();
const countdown = new Countdown(timerEl, {
  now: () => conn.serverNow(),
  cues,
  onTick: (_ms, state) => label(state),
  onEnd: () => moment.timeUp(view),
});

function label(state) {
  const r = view.round || {};
  let words = '';
  if (view.phase === 'over') words = t('ref.phase.over');
  else if (state === 'paused') words = t('timer.paused');
  else if (state === 'over') words = t('timer.over');
  else if (state === 'warning' || state === 'ending') words = t('timer.last_minute');
  if (timerLabel) timerLabel.textContent = words;
}


/** The public sea of a team: squares the enemy bombed (hit, water) and sunk ships. */
function publicCells(info) {
  const cells = new Map();
  for (const [sq, what] of Object.entries(info.shots || {})) {
    cells.set(sq, { square: sq, state: what === 'water' ? 'miss' : what === 'sunk' ? 'sunk' : 'hit' });
  }
  for (const ship of info.sunk || []) {
    for (const sq of ship.squares || []) cells.set(sq, { square: sq, state: 'sunk', ship: ship.ship, note: shipWord(ship.kind) });
  }
  return [...cells.values()];
}

// The notes the public may read, and the fields stripped from them: the same rules as the
// server's public view (airraid._note_view), applied again here in case this page is handed
// a richer view (a referee's browser showing the projector).
const PUBLIC_NOTES = new Set(['game_created', 'game_started', 'sea_locked', 'round_started', 'round_ended', 'dogfight',
  'shot_down', 'through', 'bombing', 'bombing_result', 'hit', 'sunk', 'game_over', 'timer', 'round_length', 'voided', 'void']);
const SECRET_FIELDS = ['a', 'b', 'order', 'corridor', 'by'];

export function publicNote(note, over) {
  if (over) return note;
  if (!PUBLIC_NOTES.has(note.type)) return null;
  const out = { ...note };
  if (note.type === 'hit') delete out.ship;
  if (['dogfight', 'shot_down', 'through', 'bombing', 'bombing_result'].includes(note.type)) for (const k of SECRET_FIELDS) delete out[k];
  return out;
}

/** Reduce any view to what the projector may show (a public view passes unchanged). */
export function publicView(v) {
  if (!v || v.role === 'public') return v;
  const over = v.phase === 'over';
  const log = [];
  for (const row of v.log || []) {
    const notes = (row.notes || []).map((n) => publicNote(n, over)).filter(Boolean);
    if (notes.length) log.push({ seq: row.seq, kind: row.kind, at: row.at, notes });
  }
  const { mode, version, phase, ruleset, round, teams, outcome } = v;
  return { mode, version, phase, role: 'public', ruleset, round, teams, outcome, log: log.slice(-12) };
}

function render(v) {
  if (!v || typeof v !== 'object') return;
  v = publicView(v);
  view = v;
  moment.see(v);
  applyTeamColours(v.teams);
  const r = v.round || {};
  const phase = v.phase === 'playing' ? r.phase : v.phase;
  document.body.dataset.phase = phase || '';
  $('w-round').textContent = r.round ? t('ref.round', { n: r.round }) : '';
  $('w-phase').textContent = t(`ref.phase.${phase}`);

  const key = `${r.round}:${r.phase}`;
  const announce = lastRoundKey !== null && lastRoundKey !== key && r.phase === 'airborne';
  lastRoundKey = key;
  if (v.phase === 'playing' && r.phase === 'airborne') {
    if (r.running && Number.isFinite(r.deadline)) countdown.set({ deadline: r.deadline * 1000 }, { announce });
    else countdown.set({ paused: true, remaining: (r.left || 0) * 1000 }, { announce: false });
  } else {
    countdown.set(null, { announce: false });
    if (v.phase === 'playing' && r.seconds) {
      timerEl.textContent = formatMs(r.seconds * 1000);
      timerEl.dataset.chars = String(timerEl.textContent.length);
    }
    label('idle');
  }

  // Winner banner.
  const over = v.phase === 'over' && v.outcome;
  document.body.classList.toggle('is-over', Boolean(over));
  $('winner').hidden = !over;
  if (over) {
    const o = v.outcome;
    const winner = $('winner').querySelector('.watch-winner-name');
    winner.replaceChildren();
    if (o.winner) winner.append(el('span', { class: `team-mark team-${o.winner.toLowerCase()}` }, `${o.winner === 'A' ? '▲' : '●'} ${o.winner}`), ' ', t('ref.outcome_win', { team: teamName(v, o.winner) }));
    else winner.append(t('ref.outcome_draw'));
    $('winner-detail').textContent = o.detail || '';
    $('winner').className = `watch-winner${o.winner ? ` team-${o.winner.toLowerCase()}` : ''}`;
  }

  for (const team of ['A', 'B']) renderTeam(team);
  renderLog();
}

function renderTeam(team) {
  const info = (view.teams || {})[team] || {};
  for (const node of document.querySelectorAll(`[data-team-name="${team}"]`)) node.textContent = info.name || team;
  const planes = info.planes || {};
  const stats = document.querySelector(`[data-stats="${team}"]`);
  // Each pair in its own <div> (allowed in a <dl>) so the projector can set them in a row.
  const stat = (name, value, extra = '') => [el('div', { class: 'watch-stat' }, el('dt', {}, name), el('dd', { class: extra }, value))];
  const rows = [];
  if (view.phase === 'setup') {
    rows.push(...stat(t('ref.ships_afloat'), info.locked ? `✓ ${t('w.ready')}` : `… ${t('w.placing')}`));
  } else {
    rows.push(...stat(t('ref.ships_afloat'), `${info.ships_afloat ?? '–'} / ${info.ships_total ?? '–'}`, 'big'));
    rows.push(...stat(t('ref.squares_left'), info.squares_left ?? '–', 'big'));
    rows.push(...stat(t('w.fighters'), planes.fighter ?? 0, 'big'));
    rows.push(...stat(t('w.bombers'), planes.bomber ?? 0, 'big'));
    rows.push(...stat(t('ref.trophies'), info.trophies ?? 0, 'big'));
  }
  stats.replaceChildren(...rows);

  const size = info.size || 7;
  const box = $(`w-sea-${team}`);
  const cells = publicCells(info);
  if (!seas[team]) seas[team] = new SeaGrid(box, { cols: size, rows: size, cells, label: info.name || team, mini: true });
  else seas[team].render({ cols: size, rows: size, cells, label: info.name || team });

  const sunk = document.querySelector(`[data-sunk="${team}"]`);
  const names = (info.sunk || []).map((s) => shipWord(s.kind));
  sunk.textContent = names.length ? t('w.sunk', { ships: names.join(', ') }) : (view.phase === 'setup' ? '' : t('w.none_sunk'));
}

// What the room wants to hear about; bookkeeping (orders, landings) stays off the wall.
const PROJECTOR_NOTES = new Set(['game_created', 'sea_locked', 'game_started', 'round_started', 'round_ended', 'through',
  'dogfight', 'shot_down', 'bombing', 'bombing_result', 'hit', 'sunk', 'game_over', 'timer', 'round_length', 'void', 'voided']);

function renderLog() {
  const list = $('w-log');
  const items = [];
  for (const row of [...(view.log || [])].reverse()) {
    const notes = (row.notes || []).filter((n) => PROJECTOR_NOTES.has(n.type));
    if (!notes.some((n) => n.type !== 'voided')) continue;
    const words = describeEvent({ ...row, notes }, view, {});
    const kind = notes.some((n) => n.type === 'sunk') ? 'sunk' : notes.some((n) => n.type === 'hit') ? 'hit'
      : notes.some((n) => n.type === 'game_over') ? 'ok' : notes.some((n) => n.type === 'shot_down') ? 'fight' : '';
    const voided = notes.some((n) => n.type === 'voided');
    items.push(el('li', { class: `watch-log-row${voided ? ' is-voided' : ''}`, dataset: kind ? { kind } : {} },
      el('span', { class: 'watch-log-text' }, words.slice(-2).join(' · ')), voided ? ` ${t('w.voided')}` : ''));
    if (items.length >= 7) break;
  }
  list.replaceChildren(...(items.length ? items : [el('li', { class: 'muted' }, t('w.no_events'))]));
  fitLog(list);
}

/** Drop the oldest lines that would not fit whole in the card: a projector never shows half a line. */
function fitLog(list) {
  const card = list.closest('.watch-events');
  if (!card || getComputedStyle(card).overflow !== 'hidden') return;
  const bottom = card.getBoundingClientRect().bottom - parseFloat(getComputedStyle(card).paddingBottom || '0');
  while (list.children.length > 1 && list.lastElementChild.getBoundingClientRect().bottom > bottom + 0.5) {
    list.lastElementChild.remove();
  }
}
window.addEventListener('resize', () => renderLog());

render(view);
conn.start();
