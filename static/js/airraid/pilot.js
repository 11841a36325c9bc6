// The pilot's page (/s/<slip>): one order, one next action.
//
// WHY a state machine for the report: the ux goal is "report a dogfight in at
// most 3 taps" from a phone held in one hand in a corridor. The rules decide
// how many taps a dogfight needs (airraid.judge_dogfight):
//   - same kinds: one throw                              → 1 tap
//   - two bombers may both pass instead                  → 1 tap
//   - fighter vs bomber, the fighter won the first throw → 1 tap
//   - fighter lost it: its pilot chooses Pass            → 2 taps
//                                  or Fight again + throw → 3 taps
// so the page asks exactly the next question and sends as soon as the answer
// decides the dogfight. "I won / I lost" are said from the pilot's own side and
// translated here into throws [{winner: "A"|"B"}] of the two teams.
//
// The other pilot confirms (one tap) or says "That's wrong", which sends their
// own, differing report; the server then flags a conflict for the referee.
//
// The pure functions below are exported for tests (Node); the page itself
// starts only when the page data block is present.

import { connectPage } from '../lib/conn.js';
import { Countdown, ScreenWake, SoundCues, soundButton, roundClock } from '../lib/timer.js';
import { t } from '../lib/i18n.js';
import { el, $, resultLine } from '../lib/dom.js';
import { RoundMoment } from './moment.js';

// ------------------------------------------------------------ pure helpers

export const otherSide = (side) => (side === 'A' ? 'B' : 'A');

export function kindName(kind) {
  return kind === 'fighter' || kind === 'bomber' ? t(`pilot.kind.${kind}`) : String(kind ?? '');
}

export function corridorName(corridor) {
  return ['upper', 'middle', 'lower'].includes(corridor) ? t(`pilot.corridor.${corridor}`) : String(corridor ?? '');
}

export function planeName(plane) {
  return t('pilot.plane', { label: plane.label, kind: kindName(plane.kind) });
}

/**
 * The next step of a dogfight report, from the taps so far.
 *   picks: taps in order, each 'won' | 'lost' | 'both_pass' | 'pass' | 'continue'
 * Returns {ask: 'first', bombers} | {ask: 'choice', chooser: 'me'|'them'} |
 * {ask: 'second'} | {done: true, throws, choice}.
 * Throws are written for the two teams: {winner: 'A'|'B'}.
 */
export function dogfightStep(myKind, theirKind, mySide, picks = []) {
  const win = (pick) => ({ winner: pick === 'won' ? mySide : otherSide(mySide) });
  const bombers = myKind === 'bomber' && theirKind === 'bomber';
  if (picks.length === 0) return { ask: 'first', bombers };
  const [first, second, third] = picks;
  if (first === 'both_pass') return { done: true, throws: [], choice: 'pass' };
  if (myKind === theirKind) return { done: true, throws: [win(first)], choice: null };
  const fighterIsMe = myKind === 'fighter';
  const fighterLost = fighterIsMe ? first === 'lost' : first === 'won';
  if (!fighterLost) return { done: true, throws: [win(first)], choice: null };
  if (picks.length === 1) return { ask: 'choice', chooser: fighterIsMe ? 'me' : 'them' };
  if (second === 'pass') return { done: true, throws: [win(first)], choice: 'pass' };
  if (picks.length === 2) return { ask: 'second' };
  return { done: true, throws: [win(first), win(third)], choice: 'continue' };
}

/** Who is shot down by a report (mirror of airraid.judge_dogfight, for reports
 * built by dogfightStep): side 'A' | 'B' | null, and whether they passed.
 * The loser of the last decisive throw is shot down, unless someone passed. */
export function judge(throws, choice) {
  if (choice === 'pass') return { loser: null, passed: true };
  const decisive = (throws || []).map((x) => x && x.winner).filter((w) => w === 'A' || w === 'B');
  const last = decisive[decisive.length - 1];
  return { loser: last ? otherSide(last) : null, passed: false };
}

/**
 * A report in words, from this pilot's side.
 *   report: {throws, choice, passed, loser: 'me'|'them'|null}
 *   ctx: {mySide, myKind, theirKind, label}   label: the other plane, "B2"
 * Returns {what, detail}: "B2 won — you are shot down", "first throw: B2 won · …".
 */
export function describeReport(report, ctx) {
  const { mySide, myKind, theirKind, label } = ctx;
  const bombers = myKind === 'bomber' && theirKind === 'bomber';
  const chooser = myKind === 'fighter' && theirKind === 'bomber' ? 'you' : 'them';
  let what;
  if (report.passed) {
    what = bombers ? t('pilot.out.both_passed') : t(chooser === 'you' ? 'pilot.out.you_passed' : 'pilot.out.they_passed', { label });
  } else if (report.loser === 'them') {
    what = t('pilot.out.you_won', { label });
  } else if (report.loser === 'me') {
    what = t('pilot.out.they_won', { label });
  } else {
    what = '';
  }
  const parts = [];
  const decisive = (report.throws || []).map((x) => x && x.winner).filter((w) => w === 'A' || w === 'B');
  if (!(bombers && report.passed)) {
    decisive.forEach((w, i) => {
      if (i > 1) return;
      const who = w === mySide ? 'you' : 'them';
      parts.push(t(`pilot.throw${i + 1}_${who}`, { label }));
      if (i === 0 && (report.choice === 'pass' || report.choice === 'continue')) {
        const key = report.choice === 'pass' ? 'pass' : 'again';
        parts.push(t(`pilot.chose_${key}_${chooser}`, { label }));
      }
    });
  }
  return { what, detail: parts.join(' · ') };
}

/** The server's view of a pending report (airraid._duel_view), made relative to this order. */
export function reportFromDuel(duel, myOrderId) {
  let loser = null;
  if (duel.shot_down) loser = duel.shot_down === myOrderId ? 'me' : 'them';
  return { throws: duel.throws, choice: duel.choice, passed: Boolean(duel.passed), loser };
}

/** Our own taps as a report relative to this order. */
export function reportFromStep(done, mySide) {
  const { loser, passed } = judge(done.throws, done.choice);
  return { throws: done.throws, choice: done.choice, passed, loser: loser === null ? null : (loser === mySide ? 'me' : 'them') };
}

/** The order's state in words: {headline, detail, tone}. tone: fight | wait | go | down | done | plain. */
export function statusOf(view) {
  const o = view.order;
  const nx = view.next;
  const target = o.target || '';
  const corridor = corridorName(o.corridor);
  if (nx && nx.status === 'due' && view.current) {
    const label = nx.opponent.label;
    const reported = nx.reported_by || [];
    let more = t('pilot.meet_detail');
    if (nx.conflict) more = t('pilot.conflict_detail');
    else if (reported.includes(view.role)) more = t('pilot.waiting_confirm', { label });
    else if (reported.length) more = t('pilot.check_report', { label });
    return { headline: t('pilot.meet', { plane: planeName(nx.opponent) }), detail: more, tone: 'fight' };
  }
  if (nx && nx.status === 'waiting' && view.current) {
    return {
      headline: t('pilot.next', { plane: planeName(nx.opponent) }),
      detail: t('pilot.waiting_detail', { label: nx.opponent.label }),
      tone: 'wait',
    };
  }
  const bombing = view.bombing;
  switch (o.status) {
    case 'planned':
      return { headline: t('pilot.status.planned'), detail: t('pilot.status.planned_detail', { n: o.position, corridor }), tone: 'plain' };
    case 'airborne':
      return { headline: t('pilot.status.airborne'), detail: t('pilot.status.airborne_detail', { corridor }), tone: 'go' };
    case 'bombing':
      if (bombing && bombing.answer === 'fight' && !bombing.result) {
        return { headline: t('pilot.status.bomb_fight', { target }), detail: t('pilot.status.bomb_fight_detail'), tone: 'fight' };
      }
      return { headline: t('pilot.status.through_bomb', { target }), detail: t('pilot.status.through_bomb_detail', { target }), tone: 'go' };
    case 'shot_down': {
      const by = o.shot_down_by || '';
      const detail = by.startsWith('ship:')
        ? t('pilot.status.shot_down_by_ship', { ship: by.slice(5) })
        : (by ? t('pilot.status.shot_down_by', { who: by }) : '');
      return { headline: t('pilot.status.shot_down'), detail, tone: 'down' };
    }
    case 'landed': {
      if (!o.landed_on) return { headline: t('pilot.status.lost'), detail: t('pilot.status.lost_detail'), tone: 'down' };
      const lands = t('pilot.status.lands_on', { ship: o.landed_on_name || o.landed_on });
      if (o.kind === 'bomber' && bombing && bombing.result && ['hit', 'water', 'already_hit', 'left'].includes(bombing.result)) {
        const said = bombing.result === 'hit' && bombing.sunk ? 'sunk' : bombing.result;
        return { headline: t(`pilot.status.bombed_${said}`, { target }), detail: lands, tone: bombing.result === 'hit' ? 'hit' : 'done' };
      }
      const stillOut = view.current && view.round && view.round.phase === 'airborne';
      if (o.kind === 'fighter' && stillOut) return { headline: t('pilot.status.through_home'), detail: lands, tone: 'done' };
      return { headline: t('pilot.status.landed', { ship: o.landed_on_name || o.landed_on }), detail: '', tone: 'done' };
    }
    default:
      return { headline: String(o.status), detail: '', tone: 'plain' };
  }
}

/** The countdown's state from the view's round: the one of every page. */
export const timerState = roundClock;

export function roundLine(round) {
  if (!round || !round.round) return '';
  if (round.phase === 'planning') return t('pilot.round_planning', { n: round.round });
  if (round.phase === 'closed') return t('pilot.round_over', { n: round.round });
  return t('pilot.round', { n: round.round });
}

// ------------------------------------------------------------------ page
//
// The server draws the page first (templates/games/pilot.html: the banner, the order, the state
// in words, the round), so it reads before this script has come over a slow link. The script
// then only updates what the server drew, and only where it changed (setText, the banner's
// result line), and fills the one part the server leaves empty: the report in the thumb bar.
// startPage() holds the page context and hands it to the panels: the banner (paintBanner), the
// state in words (paintStatus), the clock (mountClock) and the dogfight report (mountReport).

/** Write a node's text only when it changes: a live region says again whatever is written. */
function setText(node, text) {
  if (node && node.textContent !== text) node.textContent = text;
}

/** What the banner says ({kind, text, more}), or null: nothing, the banner is hidden. */
function bannerOf(view, gone) {
  if (gone) return { kind: 'error', text: t('pilot.gone'), more: t('pilot.gone_detail') };
  if (view.phase === 'over') {
    const w = view.outcome && view.outcome.winner;
    const more = w && view.teams && view.teams[w] ? t('pilot.over_won', { team: view.teams[w].name }) : (view.outcome ? t('pilot.over_draw') : '');
    return { kind: 'ok', text: t('pilot.over'), more };
  }
  if (!view.current) return { kind: 'refused', text: t('pilot.used', { n: view.order.round }), more: t('pilot.used_detail') };
  return null;
}

const bannerKey = (said) => (said ? `${said.kind}|${[said.text, said.more].filter(Boolean).join(' ')}` : '');

/** The key of the banner as the server drew it (its words, in a line). */
function drawnBannerKey(node) {
  if (!node || !node.dataset.kind) return '';
  return `${node.dataset.kind}|${node.textContent.replace(/\s+/g, ' ').trim()}`;
}

/** The banner: a used slip, the game over, the order gone. Said first, in words, never hidden. */
function paintBanner(ctx) {
  const { banner } = ctx.els;
  if (!banner) return;
  const said = bannerOf(ctx.view, ctx.ui.gone);
  const key = bannerKey(said);
  if (key !== ctx.ui.banner) {
    ctx.ui.banner = key;
    if (said) ctx.bannerLine(said.text, said.kind, said.more);
    else ctx.bannerLine.clear();
  }
  banner.hidden = said === null;
  document.body.classList.toggle('pilot-used', Boolean(said) && said.kind !== 'ok');
  document.body.classList.toggle('pilot-is-gone', ctx.ui.gone);
}

/** The order's state in words (headline, detail), and its tone for the CSS. */
function paintStatus(ctx) {
  const { headline, detail, now } = ctx.els;
  const s = statusOf(ctx.view);
  setText(headline, s.headline);
  setText(detail, s.detail);
  now.dataset.tone = s.tone;
  now.dataset.status = ctx.view.order.status;
}

/** The round and its countdown, with the cues, the end-of-round moment and the screen kept on. */
function mountClock(ctx) {
  const cues = new SoundCues({ speak: true });
  soundButton($('sound'), cues);
  const moment = new RoundMoment();
  const countdown = new Countdown($('timer'), { now: () => ctx.conn.serverNow(), cues, labelEl: $('timer-label'), onEnd: () => moment.timeUp(ctx.view) });
  const wake = new ScreenWake();
  wake.enable();
  document.addEventListener('pointerdown', () => wake.enable(), { once: true, capture: true });
  return {
    see() { moment.see(ctx.view); },
    render() {
      setText($('pilot-round'), roundLine(ctx.view.round));
      countdown.set(ctx.view.phase === 'over' ? null : timerState(ctx.view.round));
    },
  };
}

// ------------------------------------------------------------ the dogfight report

function duelCtx(view, nx) {
  return { mySide: view.team, myKind: view.order.kind, theirKind: nx.opponent.kind, label: nx.opponent.label };
}

function bigButton(label, kind, onclick, extra = {}) {
  return el('button', { type: 'button', class: `btn btn-big${kind ? ` btn-${kind}` : ''}`, onclick, ...extra }, label);
}

/** The meeting on the panel changed: say how the one we were in was settled (by the other
 *  pilot's confirm or the referee), or that the referee voided it (it is due again). */
function meetingMoved(ctx, nx, key) {
  const { view, ui, say, decided } = ctx;
  if (ui.key && !ui.gone && view.current && view.round && view.round.phase === 'airborne') {
    const label = ui.label || '';
    decided.add(ui.key);
    if (view.order.status === 'shot_down') say(t('pilot.decided_down', { label }), 'hit');
    else say(t('pilot.decided', { label }), 'ok');
  }
  if (key && decided.has(key)) {
    decided.delete(key);
    say(t('pilot.voided_result', { label: nx.opponent.label }), 'refused');
  }
  Object.assign(ui, { key, picks: [], mode: 'report', sent: null, label: key ? nx.opponent.label : null });
}

/** The next question of the report, from the taps so far: {sig, children}. */
function askStep(ctx, nx, dctx, acts) {
  const { ui } = ctx;
  const { tap, pick } = acts;
  const step = dogfightStep(dctx.myKind, dctx.theirKind, dctx.mySide, ui.picks);
  const children = [];
  const wonLost = () => [bigButton(`✓ ${t('pilot.won')}`, 'ok', tap(() => pick('won')), { 'data-pick': 'won' }),
    bigButton(`✕ ${t('pilot.lost')}`, 'primary', tap(() => pick('lost')), { 'data-pick': 'lost' })];
  let ask;
  let buttons;
  if (step.ask === 'first') {
    ask = t('pilot.ask_first');
    buttons = wonLost();
  } else if (step.ask === 'choice') {
    ask = step.chooser === 'me' ? t('pilot.ask_choice_mine') : t('pilot.ask_choice_theirs', { label: dctx.label });
    buttons = [bigButton(t('pilot.pass'), '', tap(() => pick('pass')), { 'data-pick': 'pass' }),
      bigButton(t('pilot.fight_again'), 'primary', tap(() => pick('continue')), { 'data-pick': 'continue' })];
  } else {
    ask = t('pilot.ask_second');
    buttons = wonLost();
  }
  const head = el('div', { class: 'pilot-ask-row' });
  if (ui.picks.length || ui.mode === 'dispute') {
    head.append(el('button', {
      type: 'button', class: 'btn btn-ghost pilot-back', 'data-pick': 'back',
      onclick: () => { if (ui.picks.length) ui.picks.pop(); else ui.mode = 'report'; ctx.render(); },
    }, `← ${ui.picks.length ? t('pilot.back') : t('pilot.cancel')}`));
  }
  head.append(el('p', { class: 'pilot-ask', text: ask }));
  if (ui.mode === 'dispute' && !ui.picks.length) children.push(el('p', { class: 'pilot-dispute muted', text: t('pilot.dispute') }));
  children.push(head, el('div', { class: 'btn-row pilot-buttons' }, buttons));
  if (step.ask === 'first' && step.bombers) {
    children.push(el('button', { type: 'button', class: 'btn btn-block pilot-both-pass', 'data-pick': 'both_pass', onclick: tap(() => pick('both_pass')) }, t('pilot.both_pass')));
  }
  return { sig: `ask:${ui.mode}:${ui.picks.join(',')}`, children };
}

/** What the panel shows for a due meeting: the conflict, our report, our report on its way,
 *  theirs to confirm, or the next question. {sig, children}. */
function reportStep(ctx, nx, acts) {
  const { view, ui, me, orderId } = ctx;
  const dctx = duelCtx(view, nx);
  const reportedByMe = nx.reported_by.includes(me);
  const theirs = nx.pending.find((p) => p.by !== me);
  const mine = nx.pending.find((p) => p.by === me);
  const canConfirm = (view.legal || []).some((a) => a.type === 'confirm_dogfight' && a.a === nx.a && a.b === nx.b);
  const detailSpan = (text) => (text ? el('span', { class: 'detail', text }) : null);
  if (nx.conflict) {
    return { sig: 'conflict', children: [el('p', { class: 'result', 'data-kind': 'refused', text: t('pilot.conflict') })] };
  }
  if (reportedByMe && mine) {
    const d = describeReport(reportFromDuel(mine, orderId), dctx);
    // (What happens next, "waiting for A1 to confirm", is the status line's.)
    return { sig: 'mine', children: [el('p', { class: 'result', 'data-kind': 'ok' }, t('pilot.you_reported', { what: d.what }), detailSpan(d.detail))] };
  }
  if (ui.sent) {
    const more = ctx.conn.state === 'offline' ? t('pilot.queued') : [ui.sent.more, t('pilot.sending')].filter(Boolean).join(' — ');
    return { sig: 'sending', children: [el('p', { class: 'result', 'data-kind': 'ok' }, ui.sent.text, el('span', { class: 'detail', text: more }))] };
  }
  if (theirs && canConfirm && ui.mode !== 'dispute') {
    const d = describeReport(reportFromDuel(theirs, orderId), dctx);
    return {
      sig: `confirm:${theirs.by}`,
      children: [
        el('p', { class: 'result pilot-their-report', 'data-kind': 'fight' }, t('pilot.they_report', { label: dctx.label, what: d.what }), detailSpan(d.detail)),
        el('div', { class: 'btn-row pilot-buttons' },
          bigButton(t('pilot.confirm'), 'ok', acts.tap(() => acts.confirm(nx, d))),
          bigButton(t('pilot.wrong'), '', acts.tap(() => { ui.mode = 'dispute'; ui.picks = []; ctx.render(); }), { 'data-pick': 'wrong' })),
      ],
    };
  }
  return askStep(ctx, nx, dctx, acts);
}

/** The report panel in the thumb bar (#pilot-action): asks exactly the next question and sends
 *  as soon as the answer decides the dogfight. Returns {render}. */
function mountReport(ctx) {
  const { ui, say } = ctx;
  const panel = ctx.els.panel;

  function tap(fn) {
    return (ev) => {
      if (Date.now() < ui.guardUntil) { ev.preventDefault(); return; }
      ui.localTap = true;
      fn();
    };
  }

  function pick(what) {
    const nx = ctx.view.next;
    if (!nx) return;
    const dctx = duelCtx(ctx.view, nx);
    ui.picks.push(what);
    const step = dogfightStep(dctx.myKind, dctx.theirKind, dctx.mySide, ui.picks);
    if (!step.done) { say.clear(); ctx.render(); return; }
    const d = describeReport(reportFromStep(step, dctx.mySide), dctx);
    send({ type: 'report_dogfight', a: nx.a, b: nx.b, throws: step.throws, choice: step.choice }, t('pilot.sent', { what: d.what }), d.detail);
  }

  function confirm(nx, d) {
    send({ type: 'confirm_dogfight', a: nx.a, b: nx.b }, t('pilot.sent', { what: `${t('pilot.confirm')}: ${d.what}` }), '');
  }

  async function send(action, text, more) {
    const key = ui.key;
    ui.sent = { text, more };
    say.clear();
    ctx.render();
    const reply = await ctx.conn.send(action);
    if (reply && reply.ok === false) {
      if (ui.key === key) Object.assign(ui, { sent: null, picks: [], mode: 'report' });
      say(t('pilot.refused', { message: reply.message || reply.error || '' }), 'refused');
      ctx.render();
      ctx.checkGone();
      return;
    }
    if (reply && reply.view) ctx.take(reply.view);
    else ctx.render();
  }

  function render() {
    const { view } = ctx;
    const nx = view.next;
    const active = !ui.gone && view.current && view.phase !== 'over' && nx && nx.status === 'due';
    const key = active ? `${nx.a}:${nx.b}` : null;
    if (key !== ui.key) meetingMoved(ctx, nx, key);
    const { sig, children } = active ? reportStep(ctx, nx, { tap, pick, confirm }) : { sig: 'none', children: [] };
    panel.replaceChildren(...children);
    panel.hidden = children.length === 0;
    panel.dataset.step = sig;
    // A change that came from the server (not from this thumb) must not catch
    // a tap meant for the old buttons: "I won" may have become "Confirm".
    if (sig !== ui.sig && !ui.localTap && sig !== 'none' && ui.sig !== '') ui.guardUntil = Date.now() + 700;
    ui.sig = sig;
    ui.localTap = false;
    ctx.syncBar();
  }

  return { render };
}

// ------------------------------------------------------------ live data

/** What the thumb bar's words are about: when it changes, the old words are stale. */
function momentOf(v) {
  const nx = v.next;
  return [
    v.order.status,
    nx ? `${nx.a}:${nx.b}:${nx.status}` : '',
    v.bombing ? `${v.bombing.answer}:${v.bombing.result}` : '',
    v.round ? `${v.round.round}:${v.round.phase}` : '',
    v.phase,
  ].join('|');
}

function startPage() {
  const data = JSON.parse(document.getElementById('page-data').textContent);
  const orderId = data.view.order.id;
  const els = {
    headline: $('pilot-headline'), detail: $('pilot-detail'), now: $('pilot-now'),
    panel: $('pilot-action'), result: $('pilot-result'), banner: $('pilot-banner'),
  };
  const bar = document.querySelector('.actionbar');
  // The thumb bar is drawn only when it holds something.
  const syncBar = () => { if (bar) bar.hidden = els.panel.hidden && !els.result.textContent; };

  /** What every panel shares. `view` is replaced by each update. */
  const ctx = {
    data,
    me: data.role,                      // "pilot:1A2"
    orderId,
    view: data.view,
    els,
    // The report being tapped, for one meeting (key "a:b"); the order gone; a tap of this thumb.
    ui: { key: null, picks: [], mode: 'report', sent: null, guardUntil: 0, sig: '', gone: false, localTap: false, banner: drawnBannerKey($('pilot-banner-text')) },
    // The meetings this page said were decided: one that is due again was voided by the referee.
    decided: new Set(),
    say: resultLine(els.result, { after: syncBar }),
    bannerLine: resultLine($('pilot-banner-text')),
    syncBar,
    render,
    take,
    checkGone,
  };
  const { ui, say } = ctx;

  const conn = connectPage({
    game: data.game,
    initialSeq: data.seq,
    extra: { slip: data.slip },
    storageKey: `referee.outbox.${data.game}.${orderId}`,
  }, {
    say,
    // A push without a view (the order was removed or voided) sends us to ask why.
    onView: (v, type) => { if (v && v.order) take(v); else if (type === 'view') checkGone(); },
    refusedKey: 'pilot.refused',
  });
  ctx.conn = conn;
  const clock = mountClock(ctx);
  const report = mountReport(ctx);

  function render() {
    clock.see();
    paintBanner(ctx);
    paintStatus(ctx);
    clock.render();
    report.render();
  }

  function take(next) {
    if (!next || !next.order) return;
    const { view } = ctx;
    if (Number.isFinite(view.version) && Number.isFinite(next.version) && next.version < view.version) return;
    ui.gone = false;
    const before = momentOf(view);
    ctx.view = next;
    // The bar always says the current state: words about an earlier one go (the render may say new ones).
    if (momentOf(next) !== before) say.clear();
    render();
  }

  async function checkGone() {
    // A removed or voided order has no view any more: the server answers the
    // view request with an error, and pushes nothing to this page.
    try {
      const res = await fetch(`${data.api}/view?slip=${encodeURIComponent(data.slip)}`, { headers: { Accept: 'application/json' } });
      if (res.ok) { take(await res.json()); return; }
      if ([404, 409, 410].includes(res.status)) { ui.gone = true; render(); }
    } catch { /* offline: the badge says so */ }
  }

  let lastState = null;
  conn.on('status', ({ state }) => {
    if (state === 'synced' && lastState && lastState !== 'synced') checkGone();
    if (ui.sent) report.render();
    lastState = state;
  });
  document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'visible') checkGone(); });

  render();
  conn.start();
}

if (typeof document !== 'undefined' && document.getElementById('page-data') && document.getElementById('pilot-now')) {
  startPage();
}
