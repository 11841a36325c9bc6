// Bombers at our base, on the Live tab: the defender announces each one (a chip, the typed
// square or the scanned slip) and gets WATER / ALREADY HIT / FIGHT; a fight is entered throw by
// throw in the action bar, and its verdict stays on the card until dismissed.
//
// This module draws the card and wires its controls; the bombings in flight (this phone's
// entries, offline answers, the server's answers replacing them) are bombing-entries.js's.

import { t, tn } from '../../lib/i18n.js';
import { el, $ } from '../../lib/dom.js';
import { scannerAvailable, startScanner } from '../../lib/scan.js';
import { bombingStep, orderFromSlip, cleanSquare } from './helpers.js';
import {
  announce, answerLocally, chipText, entryName, fightPick, inFlight, marksFor, openBombers, serverFights, setBomber, watchConnection, word,
} from './bombing-entries.js';

/** What the card shows: {mode, focus, fight, open, queue}. mode: 'fight' | 'which' | 'square' |
 *  'verdict' | 'open' | null; focus: this phone's entry on the card; fight: the server's fight. */
function cardState(ctx) {
  const { ui } = ctx;
  ui.local = ui.local.filter((e) => inFlight(e) || e === ui.focus || (ui.verdict && ui.verdict.entry === e));
  const open = openBombers(ctx);
  const fights = serverFights(ctx);
  const f = ui.focus;
  // A fight's throws on their way to the server keep the fight on the card meanwhile.
  const focus = f && (['square', 'which', 'fight'].includes(f.stage) || (f.stage === 'waiting' && f.report)) ? f : null;
  if (ui.fight.order && !fights.some((b) => b.order === ui.fight.order)) ui.fight = { order: null, picks: [] };
  if (!ui.fight.order && fights.length) ui.fight = { order: fights[0].order, picks: [] };
  const fight = focus ? null : fights.find((b) => b.order === ui.fight.order);
  if (fight) ui.verdict = null;   // a new fight replaces an old verdict
  const queue = ui.local.filter((e) => inFlight(e) && e.stage !== 'waiting' && e !== focus && !(ui.verdict && ui.verdict.entry === e));
  const mode = focus ? (focus.stage === 'waiting' ? 'fight' : focus.stage) : fight ? 'fight' : ui.verdict ? 'verdict' : open.length ? 'open' : null;
  return { mode, focus, fight, open, queue };
}

/** The big verdict (WATER / ALREADY HIT / FIGHT …), marked when this phone said it, not the server. */
function showVerdict(answer, { local = false, unsure = false, marks = [] } = {}) {
  const verdictEl = $('verdict');
  verdictEl.hidden = false;
  verdictEl.dataset.kind = answer;
  verdictEl.textContent = word(answer) + (unsure ? '?' : '');
  if (local) {
    verdictEl.dataset.local = 'true';
    const markEl = $('verdict-mark');
    markEl.hidden = false;
    markEl.replaceChildren(el('strong', { text: t('team.local_mark') }), ...marks.filter(Boolean).map((m) => el('span', { text: ` ${m}` })));
  }
}

/** The card's words and chips for its mode. */
function paintMode(ctx, { mode, focus, fight, open }) {
  const { ui } = ctx;
  const textEl = $('bombing-text');
  const stepEl = $('bombing-step');
  const bomberChips = (onPick) => $('bomber-chips').replaceChildren(...open.map((b) => el('button', {
    type: 'button', class: 'chip', 'data-key': `bomber-${b.order}`, onclick: () => onPick(b),
  }, chipText(ctx, b))));
  if (mode === 'fight') {
    const e = focus;
    const square = e ? e.square : fight.target;
    const ship = e && e.ship ? ctx.view.sea.ships.find((s) => s.id === e.ship) : ctx.words.shipAt(square);
    if (e && !e.sent) showVerdict('fight', { local: true, unsure: e.unsure, marks: marksFor(e) });
    else showVerdict('fight');
    textEl.textContent = t('team.fight_text', { label: e ? entryName(ctx, e) : fight.label, square, ship: ship ? ctx.words.shipLabel(ship) : '?' });
    const s = bombingStep(e ? e.picks : ui.fight.picks);
    stepEl.textContent = s.ask === 'choice' ? t('team.fight_choice') : s.ask === 'second' ? t('team.fight_second') : t('team.fight_first');
    stepEl.hidden = false;
  } else if (mode === 'which') {
    showVerdict('fight', { local: true, unsure: focus.unsure, marks: marksFor(focus) });
    textEl.textContent = t('team.which_bomber', { square: focus.square });
    $('bomber-picks').hidden = false;
    bomberChips((b) => { setBomber(ctx, focus, b.order); focus.stage = 'fight'; ctx.render(); });
  } else if (mode === 'square') {
    textEl.textContent = t('team.ask_square', { label: entryName(ctx, focus) });
  } else if (mode === 'verdict') {
    const v = ui.verdict;
    showVerdict(v.answer, { local: Boolean(v.local), unsure: Boolean(v.unsure), marks: v.marks || [] });
    textEl.textContent = v.text || '';
  } else if (mode === 'open') {
    textEl.textContent = tn('team.bombers_waiting', open.length, { n: open.length });
    stepEl.textContent = t('team.bombers_ask');
    stepEl.hidden = false;
    $('bomber-picks').hidden = false;
    // Labels are unique in a round (A1–A3 upper, A4–A6 middle, A7–A9 lower); the corridor
    // beside them is what the defender sees on the slip and hears from the pilot.
    bomberChips((b) => announce(ctx, { order: b.order }));
  }
}

/** What this phone has queued and the server has not answered yet. */
function paintQueue(ctx, queue) {
  $('bombing-queue').hidden = !queue.length;
  $('bombing-queue-list').replaceChildren(...queue.map((e) => {
    const answer = e.report ? `${word(e.report.result)}?` : e.answer ? word(e.answer) + (e.unsure ? '?' : '') : null;
    return el('li', { 'data-order': e.order || '' }, answer
      ? t('team.queue_line', { bomber: entryName(ctx, e), square: e.square || '?', answer })
      : t('team.queue_no_square', { bomber: entryName(ctx, e) }));
  }));
}

/** The action bar: the square input, or the throw buttons. */
function paintBar(ctx, { mode, focus }) {
  const throwing = mode === 'fight';
  $('announce-form').hidden = !(mode === 'square' || mode === 'open');
  $('bar-fight').hidden = !throwing;
  if (throwing) {
    const picks = focus ? focus.picks : ctx.ui.fight.picks;
    const s = bombingStep(picks);
    $('throw-buttons').hidden = s.ask === 'choice';
    $('choice-buttons').hidden = s.ask !== 'choice';
    $('fight-back').hidden = !picks.length;
  }
  $('bar-live').classList.toggle('has-fight', throwing);
}

/** Scan the bomber's slip (only where the camera is allowed: https or localhost).
 *  Returns {active(), stop()}. */
function mountScanner(ctx) {
  let scanner = null;
  async function stop() {
    if (scanner) { try { scanner.stop(); } catch { /* already stopped */ } }
    scanner = null;
    $('scan-box').hidden = true;
    $('scan-slip').hidden = !scannerAvailable() || !openBombers(ctx).length;
  }
  $('scan-slip').addEventListener('click', async () => {
    $('scan-box').hidden = false;
    $('scan-slip').hidden = true;
    try {
      scanner = await startScanner($('scan-video'), {
        onResult: (text) => {
          const order = orderFromSlip(text, ctx.game);
          if (!order) { ctx.say(t('team.scan_foreign'), 'refused'); return; }
          stop();
          announce(ctx, { order });
        },
        onError: () => ctx.say(t('team.scan_failed'), 'error'),
      });
    } catch {
      stop();
    }
  });
  $('scan-stop').addEventListener('click', stop);
  return { active: () => Boolean(scanner), stop };
}

/** The square typed in the bar, the throw buttons, and the card's buttons. */
function wireControls(ctx) {
  const { ui } = ctx;
  $('announce-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const size = (ctx.view.sea && ctx.view.sea.size) || 26;
    const sq = cleanSquare($('bomb-square').value, size, size);
    if (!sq) { ctx.say(t('team.square_invalid', { text: $('bomb-square').value || '–' }), 'refused'); $('bomb-square').focus(); return; }
    if (ui.focus && ui.focus.stage === 'square') { answerLocally(ctx, ui.focus, sq); return; }
    announce(ctx, { target: sq });
  });
  for (const b of document.querySelectorAll('[data-throw]')) b.addEventListener('click', () => fightPick(ctx, b.dataset.throw));
  $('fight-back').addEventListener('click', () => {
    const e = ui.focus && ui.focus.stage === 'fight' ? ui.focus : null;
    if (e) e.picks = e.picks.slice(0, -1); else ui.fight.picks = ui.fight.picks.slice(0, -1);
    ctx.render();
  });
  $('bombing-dismiss').addEventListener('click', () => { ui.verdict = null; ctx.render(); });
  $('notice-ok').addEventListener('click', () => { ui.notices = []; ctx.render(); });
  $('bombing-later').addEventListener('click', () => {
    if (ui.focus) { ui.focus.stage = 'done'; ui.focus.picks = []; ui.focus = null; }
    ctx.render();
  });
}

/** Mount the bombing card; ctx is the page context (see ../team.js). */
export function mount(ctx) {
  const { ui } = ctx;
  watchConnection(ctx);
  const scanner = mountScanner(ctx);
  wireControls(ctx);

  function renderBombing() {
    const state = cardState(ctx);
    const { mode, focus, queue } = state;
    const card = $('bombing-card');
    card.hidden = !(mode || ui.notices.length || queue.length);
    card.dataset.kind = mode === 'fight' || mode === 'which' ? 'fight' : mode === 'verdict' ? ui.verdict.answer : 'waiting';
    $('bombing-dismiss').hidden = mode !== 'verdict';
    // Offline, the defender may leave an entry to the server's answer instead of finishing it here.
    $('bombing-later').hidden = !(focus && !focus.sent && ['square', 'which', 'fight'].includes(focus.stage));
    $('bomber-picks').hidden = true;
    $('verdict-mark').hidden = true;
    $('verdict').hidden = true;
    delete $('verdict').dataset.local;
    $('bombing-step').hidden = true;
    $('bombing-text').textContent = '';
    if (mode !== 'open') { $('scan-slip').hidden = true; if (scanner.active()) scanner.stop(); }
    // Where the server disagreed with this phone or refused its entry: said until read.
    $('bombing-notice').hidden = !ui.notices.length;
    $('notice-list').replaceChildren(...ui.notices.map((text) => el('li', { text })));
    paintMode(ctx, state);
    if (mode === 'open' && !scanner.active()) $('scan-slip').hidden = !scannerAvailable();
    paintQueue(ctx, queue);
    paintBar(ctx, state);
    ctx.setCount('live', (ctx.view.bombers_at_base || []).length, true);
  }

  return { render: renderBombing };
}
