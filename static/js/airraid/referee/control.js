// The control card: round and phase, the countdown with its cues, the one big button and why
// it waits, the timer buttons, the slips link, and the end-game and forfeit buttons.

import { t } from '../../lib/i18n.js';
import { $ } from '../../lib/dom.js';
import { Countdown, SoundCues, soundButton, formatMs } from '../../lib/timer.js';
import { teamName } from '../words.js';
import { askReason, confirmAction } from './dialog.js';
import { RoundMoment } from '../moment.js';

/** Mount on the control card; ctx is the dashboard's context (game, view, conn, legal, act). */
export function mount(ctx) {
  const mainBtn = $('main-action');
  const mainWhy = $('main-why');
  const timerEl = $('timer');
  const timerLabel = $('timer-label');
  let lastRoundKey = null;
  const cues = new SoundCues({ speak: true });
  const moment = new RoundMoment();
  soundButton($('sound'), cues);
  // Whether the projector will sound 0:00 (it tells the server; the server tells the referees).
  const showScreens = (screens) => {
    const box = $('projector-sound');
    const n = (screens && screens.projectors) || 0;
    const on = (screens && screens.sound_on) || 0;
    box.hidden = n === 0;
    if (!n) return;
    if (n > 1) box.textContent = t('ref.projectors_sound', { on, n });
    else box.textContent = t(on ? 'ref.projector_sound_on' : 'ref.projector_sound_off');
    box.dataset.sound = on === n ? 'on' : 'off';
  };
  ctx.conn.on('screens', showScreens);
  ctx.conn.on('resynced', (reply) => showScreens(reply.screens));
  const countdown = new Countdown(timerEl, {
    now: () => ctx.conn.serverNow(),
    cues,
    onTick: (_ms, state) => showTimerState(state),
    onEnd: () => moment.timeUp(ctx.view),
  });

  function showTimerState(state) {
    const r = ctx.view.round || {};
    let words = '';
    if (ctx.view.phase === 'over') words = t('ref.phase.over');
    else if (state === 'paused') words = t('timer.paused');
    else if (state === 'over') words = t('timer.over');
    else if (state === 'warning' || state === 'ending') words = t('timer.last_minute');
    else if (r.phase === 'planning') words = t('ref.round_length');
    if (timerLabel) timerLabel.textContent = words;
    const end = $('t-end');
    if (end) end.classList.toggle('is-urgent', state === 'over');
    if (state === 'over' && ctx.view.round && ctx.view.round.phase === 'airborne' && mainWhy) mainWhy.textContent = stillOpen();
  }

  /** After 0:00: what keeps the round in the air, in words, for the one button beside it. */
  function stillOpen() {
    const open = ctx.view.open || {};
    const parts = [];
    if (open.dogfights) parts.push(t('ref.open_dogfights', { n: open.dogfights }));
    if (open.bombings) parts.push(t('ref.open_bombings', { n: open.bombings }));
    if (open.disputes) parts.push(t('ref.open_disputes', { n: open.disputes }));
    if (!parts.length) return t('ref.time_up_none');
    return t('ref.time_up_open', { open: parts.join(', ') });
  }

  function renderControl() {
    const r = ctx.view.round || {};
    moment.see(ctx.view);
    const phase = ctx.view.phase === 'playing' ? r.phase : ctx.view.phase;
    $('round-number').textContent = r.round ? t('ref.round', { n: r.round }) : '';
    let phaseText = t(`ref.phase.${phase}`);
    if (ctx.view.phase === 'over' && ctx.view.outcome) {
      const o = ctx.view.outcome;
      phaseText = `${o.winner ? t('ref.outcome_win', { team: teamName(ctx.view, o.winner) }) : t('ref.outcome_draw')} — ${o.detail || ''}`;
    }
    $('round-phase').textContent = phaseText;
    document.body.dataset.phase = phase || '';

    // The countdown: the view gives the deadline in seconds since the epoch.
    const key = `${r.round}:${r.phase}`;
    const announce = lastRoundKey !== null && lastRoundKey !== key && r.phase === 'airborne';
    lastRoundKey = key;
    if (ctx.view.phase === 'playing' && r.phase === 'airborne') {
      if (r.running && Number.isFinite(r.deadline)) countdown.set({ deadline: r.deadline * 1000 }, { announce });
      else countdown.set({ paused: true, remaining: (r.left || 0) * 1000 }, { announce: false });
    } else {
      countdown.set(null, { announce: false });
      // Between rounds the clock shows the next round's length.
      if (ctx.view.phase === 'playing' && r.seconds) { timerEl.textContent = formatMs(r.seconds * 1000); }
      showTimerState('idle');
    }

    // The one big button.
    let label = '';
    let action = null;
    let why = '';
    let kind = 'primary';
    if (ctx.view.phase === 'setup') {
      label = t('ref.start_game');
      action = ctx.legal('start_game') ? { type: 'start_game' } : null;
      const waiting = ['A', 'B'].filter((x) => !(ctx.view.teams[x] || {}).locked).map((x) => teamName(ctx.view, x));
      if (waiting.length) why = t('ref.wait_seas', { teams: waiting.join(t('ref.and')) });
    } else if (ctx.view.phase === 'playing' && r.phase === 'planning') {
      label = t('ref.start_round', { n: r.round });
      action = ctx.legal('start_round') ? { type: 'start_round' } : null;
      const missing = ['A', 'B'].filter((x) => !(ctx.view.defenders || {})[x]).map((x) => teamName(ctx.view, x));
      if (missing.length) why = t('ref.wait_defender', { teams: missing.join(t('ref.and')) });
    } else if (ctx.view.phase === 'playing' && r.phase === 'airborne') {
      if (ctx.legal('pause_timer')) { label = t('ref.pause'); action = { type: 'pause_timer' }; kind = ''; }
      else if (ctx.legal('resume_timer')) { label = t('ref.resume'); action = { type: 'resume_timer' }; kind = 'ok'; }
    }
    mainBtn.hidden = !label;
    mainBtn.textContent = label;
    mainBtn.disabled = !action;
    mainBtn.className = `btn btn-big${kind ? ` btn-${kind}` : ''}`;
    mainBtn.onclick = action ? () => ctx.act(action, { button: mainBtn }) : null;
    if (!(r.phase === 'airborne' && countdown.stateName() === 'over')) mainWhy.textContent = why;

    const airborne = ctx.view.phase === 'playing' && r.phase === 'airborne';
    $('timer-buttons').hidden = !airborne;
    $('t-minus').disabled = !ctx.legal('adjust_timer') || ((countdown.remainingMs() || 0) < 30000);
    $('t-plus').disabled = !ctx.legal('adjust_timer');
    $('t-end').disabled = !ctx.legal('end_round');

    showRoundLength(r);

    const slips = $('slips-link');
    if (ctx.view.phase === 'playing' && r.phase === 'planning' && r.round) {
      slips.hidden = false;
      slips.href = `/g/${encodeURIComponent(ctx.game)}/slips?round=${r.round}`;
      slips.textContent = t('ref.slips', { n: r.round });
    } else slips.hidden = true;

    document.getElementById('corridors-card').hidden = ctx.view.phase === 'setup';
    const endCard = $('end-game').closest('section');
    // Once the game is under way: a forfeit is taken in setup too, but a card of it there only confuses.
    endCard.hidden = !ctx.legal('end_game');
    $('end-game').disabled = !ctx.legal('end_game');
    for (const b of document.querySelectorAll('[data-forfeit]')) b.disabled = !ctx.legal('forfeit');
  }

  // --- the length of the rounds to come: between rounds, or for the next ones while one flies
  const lengthSelect = $('round-length');
  function showRoundLength(r) {
    const field = $('round-length-field');
    field.hidden = !ctx.legal('set_round_length') || ctx.view.phase === 'over';
    const seconds = Number(r.next_seconds) || 0;
    if (!seconds || document.activeElement === lengthSelect) return;
    if (![...lengthSelect.options].some((o) => Number(o.value) === seconds)) {
      // A length the new-game form allowed but this list lacks (a ruleset's own): listed too.
      const option = document.createElement('option');
      option.value = String(seconds);
      option.textContent = formatMs(seconds * 1000);
      lengthSelect.append(option);
    }
    lengthSelect.value = String(seconds);
  }
  lengthSelect.addEventListener('change', async () => {
    await ctx.act({ type: 'set_round_length', seconds: Number(lengthSelect.value) }, { button: lengthSelect });
    lengthSelect.blur();
    showRoundLength(ctx.view.round || {});
  });

  // --- a practice game: the pace of the simulated players
  for (const button of document.querySelectorAll('[data-pace]')) {
    button.addEventListener('click', async () => {
      try {
        await ctx.request('POST', `${ctx.api}/practice`, { seconds: Number(button.dataset.pace) });
        for (const b of document.querySelectorAll('[data-pace]')) b.setAttribute('aria-pressed', b === button ? 'true' : 'false');
        ctx.say(t('ref.sent'), 'ok');
      } catch (err) {
        ctx.say(t('ref.refused', { message: err.message }), 'refused');
      }
    });
  }

  // --- end game and forfeit
  $('end-game').addEventListener('click', async (ev) => {
    const button = ev.currentTarget;
    const reason = await askReason(ctx, { title: t('ref.end_title'), text: t('ref.end_text'), ok: t('ref.end_ok'), required: false });
    if (reason === null) return;
    const action = { type: 'end_game' };
    if (reason) action.reason = reason;
    await ctx.act(action, { button });
  });
  for (const button of document.querySelectorAll('[data-forfeit]')) {
    button.addEventListener('click', async () => {
      const team = button.dataset.forfeit;
      const reason = await askReason(ctx, { title: t('ref.forfeit_title', { team: teamName(ctx.view, team) }), text: t('ref.forfeit_text'), ok: t('ref.forfeit_ok') });
      if (reason) await ctx.act({ type: 'forfeit', team, reason }, { button });
    });
  }

  // --- timer buttons
  for (const button of document.querySelectorAll('[data-adjust]')) {
    button.addEventListener('click', () => ctx.act({ type: 'adjust_timer', seconds: Number(button.dataset.adjust) }, { button }));
  }
  $('t-end').addEventListener('click', async (ev) => {
    const button = ev.currentTarget;
    // One click must not end a round by mistake: say what happens to the planes still out.
    const out = (ctx.view.orders || []).filter((o) => o.status === "airborne" || o.status === "bombing").length;
    const ok = await confirmAction(ctx, {
      title: t('ref.end_round_title', { n: (ctx.view.round || {}).round }),
      text: out ? t('ref.end_round_text_out', { n: out }) : t('ref.end_round_text'),
      ok: t('ref.end_round_ok'),
    });
    if (ok) await ctx.act({ type: 'end_round' }, { button });
  });

  return { render: renderControl };
}
