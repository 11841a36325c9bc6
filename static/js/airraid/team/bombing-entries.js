// The bombings in flight at our base, for the bombing card (bombing.js): this phone's entries,
// announcing a bomber, the fight's throws, and the server's answers replacing the phone's.
//
// Offline the bomber must not wait at the screen: the phone answers from its own sea (the
// view's ships and hits, as the server would: helpers.js localAnswer), marks the answer as "from
// this phone, not yet sent" and queues the entry (conn.js's outbox) as it does online. The phone
// cannot see which square a bomber aims at before the server answers, so a bomber picked by its
// chip or slip needs the square it names to be answered offline. A fight's throws are queued too,
// with a provisional text only: the server decides. When a queued entry is settled, the server's
// answer replaces the phone's, and a disagreement or a refusal is said on the card.
//
// An entry (in ctx.ui.local): {id, order, label, corridor, byOrder, square, answer, unsure, ship,
// stage, picks, report, sent, refused}. stage: 'waiting' (online, the server answers), 'square'
// (offline, the bomber's square is asked), 'which' (offline fight by square: which bomber?),
// 'fight' (offline throws), 'done'. report: the queued throws {id, result, sent, moot}.
// Every function takes the team page's context (../team.js).

import { t } from '../../lib/i18n.js';
import { $ } from '../../lib/dom.js';
import { bombingStep, findNote, localAnswer, fightResult, wouldSink } from './helpers.js';

export const word = (answer) => t(`team.verdict.${answer}`);
export const inFlight = (e) => !e.sent || Boolean(e.report && !e.report.sent);

const queuedActions = (ctx) => ctx.conn.pending().map((e) => e.action || {});
const bomberOf = (ctx, order) => (ctx.view.bombers_at_base || []).find((b) => b.order === order) || null;

export function chipText(ctx, b) {
  return b.corridor ? t('team.bomber_chip', { label: b.label, corridor: ctx.words.corridorName(b.corridor) }) : b.label;
}

export const entryName = (ctx, e) => (e.label ? chipText(ctx, e) : t('team.a_bomber'));

export function setBomber(ctx, e, order) {
  const b = bomberOf(ctx, order);
  e.order = order;
  e.label = b ? b.label : e.label || order;
  e.corridor = b ? b.corridor : e.corridor || null;
}

/** Bombers still to announce: not answered by the server, not queued by this phone. */
export function openBombers(ctx) {
  const taken = new Set(queuedActions(ctx).filter((a) => a.type === 'announce_bombing' && a.order).map((a) => a.order));
  for (const e of ctx.ui.local) if (!e.sent && e.order) taken.add(e.order);
  return (ctx.view.bombers_at_base || []).filter((b) => !b.answer && !taken.has(b.order));
}

/** Fights the server knows of whose throws are not entered yet. */
export function serverFights(ctx) {
  const reported = new Set(queuedActions(ctx).filter((a) => a.type === 'report_bombing').map((a) => a.order));
  for (const e of ctx.ui.local) if (e.order && (e.stage === 'fight' || (e.report && !e.report.sent))) reported.add(e.order);
  return (ctx.view.bombers_at_base || []).filter((b) => b.answer === 'fight' && !reported.has(b.order));
}

/** This phone's bombings whose outcome the server has not told yet (for localAnswer). */
function earlierThan(ctx, entry) {
  return ctx.ui.local.filter((e) => e !== entry && inFlight(e) && e.square && e.answer)
    .map((e) => ({ square: e.square, answer: e.answer, result: e.report ? e.report.result : null }));
}

function newEntry(ctx, id, which) {
  const e = { id, order: null, label: null, corridor: null, byOrder: Boolean(which.order), square: null, answer: null, unsure: false, ship: null, stage: 'waiting', picks: [], report: null, sent: false, refused: false };
  if (which.order) setBomber(ctx, e, which.order);
  ctx.ui.local.push(e);
  return e;
}

export function marksFor(e) {
  return [
    e.unsure ? t('team.unsure_pending', { square: e.square }) : null,
    e.sent ? null : e.byOrder ? t('team.check_order', { label: e.label }) : t('team.check_target', { square: e.square }),
  ];
}

/** Say on the card (and the result line) where the server's answer is not the phone's. */
function notify(ctx, text) {
  ctx.ui.notices = [...ctx.ui.notices, text];
  ctx.say(text, 'refused');
}

/** The note an answer made: the one of the answer's own event, else the newest that fits. */
function answerNote(v, reply, test) {
  const seqs = new Set(((reply && reply.events) || []).map((x) => x.seq).filter(Number.isFinite));
  return (seqs.size && findNote(v, (n, row) => seqs.has(row.seq) && test(n))) || findNote(v, test);
}

// ------------------------------------------------------------------ announcing

/** Announce a bomber ({order}) or a square ({target}); offline, answer from our own sea. */
export function announce(ctx, which) {
  const { ui } = ctx;
  if (ui.busy) return;
  ui.verdict = null;
  const { id, done } = ctx.queue({ type: 'announce_bombing', ...which });
  const e = newEntry(ctx, id, which);
  done.then((reply) => settleAnnounce(ctx, e, reply));
  if (ctx.conn.online) {
    // Online the server answers within a moment: wait for it, as before.
    ui.busy = true;
    ui.focus = e;
    e.pendingSquare = which.target || null;
    ctx.render();
    return;
  }
  goLocal(ctx, e, which.target || null);
}

/** Answer an entry from this phone (offline): at once for a square, else ask for it. */
function goLocal(ctx, e, square) {
  const { ui } = ctx;
  ui.busy = false;
  if (square) { answerLocally(ctx, e, square); return; }
  e.stage = 'square';
  ui.focus = e;
  ctx.say(t('team.queued_bomber', { label: entryName(ctx, e) }), 'queued');
  ctx.render();
  $('bomb-square').focus();
}

/** The connection dropped while the server's answer was awaited: the phone answers itself. */
export function watchConnection(ctx) {
  ctx.conn.on('status', ({ state }) => {
    const e = ctx.ui.focus;
    if (state !== 'offline' || !e || e.stage !== 'waiting' || e.sent) return;
    if (e.report) { reportLocally(ctx, e); return; }
    goLocal(ctx, e, e.pendingSquare);
  });
}

export function answerLocally(ctx, e, square) {
  const { ui } = ctx;
  const a = localAnswer(ctx.view.sea, square, earlierThan(ctx, e));
  Object.assign(e, { square, answer: a.answer, unsure: a.unsure, ship: a.ship });
  if (!e.order) {
    // Typed, with a single bomber waiting: it is that one (the server matches it by square).
    const open = openBombers(ctx);
    if (open.length === 1) setBomber(ctx, e, open[0].order);
  }
  $('bomb-square').value = '';
  if (a.answer === 'fight') {
    e.stage = e.order ? 'fight' : 'which';
    ui.focus = e;
    ui.verdict = null;
    ctx.say(t('team.say_fight', { label: entryName(ctx, e), square }), 'fight', t('team.not_sent'));
  } else {
    e.stage = 'done';
    ui.focus = null;
    const label = entryName(ctx, e);
    ui.verdict = {
      answer: a.answer, entry: e, local: true, unsure: a.unsure, marks: marksFor(e),
      text: a.answer === 'water' ? t('team.water_text', { label, square }) : t('team.already_text', { label, square }),
    };
    ctx.say(a.answer === 'water' ? t('team.say_water', { square }) : t('team.say_already', { square }), 'water', t('team.not_sent'));
  }
  ctx.render();
}

/** The server refused an announcement: say why, where the defender looks. */
function refusedAnnounce(ctx, e, reply, { waited, mine }) {
  const { ui } = ctx;
  e.refused = true;
  const message = (reply && (reply.message || reply.error)) || '?';
  if (ui.focus === e) ui.focus = null;
  if (waited) {
    ctx.say(t('team.refused', { message }), 'refused');
  } else {
    const text = e.answer
      ? t('team.server_refused', { square: e.square, message, local: word(e.answer) })
      : t('team.server_refused_bomber', { label: entryName(ctx, e), message });
    notify(ctx, text);
    if (mine) ui.verdict = { answer: 'refused', entry: e, text: '' };
  }
  if (e.report) e.report.moot = true;   // its throws are refused too: this says why
  ctx.render();
}

/** The server settled an announcement: its answer replaces the phone's. */
function settleAnnounce(ctx, e, reply) {
  const { ui } = ctx;
  e.sent = true;
  const waited = e.stage === 'waiting';
  if (waited) ui.busy = false;
  const mine = ui.focus === e || (ui.verdict && ui.verdict.entry === e);
  if (!reply || reply.ok === false) { refusedAnnounce(ctx, e, reply, { waited, mine }); return; }
  const v = reply.view || ctx.view;
  const note = answerNote(v, reply, (n) => n.type === 'bombing' && n.team === ctx.team
    && (reply.order || e.order ? n.order === (reply.order || e.order) : n.square === e.square));
  if (!note) { if (waited) { e.stage = 'done'; ui.focus = null; } ctx.render(); return; }
  if (e.order !== note.order) setBomber(ctx, e, note.order);
  e.label = note.label;
  const label = note.label;
  const square = note.square;
  const server = note.answer;
  const local = e.answer;
  if (local && e.square && square !== e.square) {
    notify(ctx, t('team.server_other_square', { answer: word(server), label, square, typed: e.square }));
  } else if (local && server !== local) {
    notify(ctx, t('team.server_differs', { answer: word(server), label, square, local: word(local) }));
  } else if (local) {
    ctx.say(t('team.server_agrees', { answer: word(server), square }), server === 'fight' ? 'fight' : 'water');
  } else if (server === 'fight') {
    ctx.say(t('team.say_fight', { label, square }), 'fight');
  } else {
    ctx.say(server === 'water' ? t('team.say_water', { square }) : t('team.say_already', { square }), 'water');
  }
  if (server === 'fight') {
    if (e.report) {
      // The throws are queued behind it: the provisional verdict stays until they are settled.
    } else {
      // The fight goes on with the server's fight, keeping the throws tapped so far.
      const picks = ui.focus === e && e.stage === 'fight' ? e.picks : [];
      if (ui.focus === e) ui.focus = null;
      e.stage = 'done';
      ui.fight = { order: note.order, picks };
      if (mine) ui.verdict = null;
    }
  } else {
    if (e.report) e.report.moot = true;   // "the bombing is over": the notice says why
    if (ui.focus === e) ui.focus = null;
    e.stage = 'done';
    if (mine || !ui.verdict) {
      ui.verdict = {
        answer: server, entry: e,
        text: server === 'water' ? t('team.water_text', { label, square }) : t('team.already_text', { label, square }),
      };
    }
  }
  if (waited) $('bomb-square').value = '';
  ctx.render();
}

// ---------------------------------------------------------------------- the fight

/** One throw of the fight tapped (the bar's buttons); the last one sends the throws. */
export function fightPick(ctx, pick) {
  const { ui } = ctx;
  if (ui.busy) return;
  const e = ui.focus && ui.focus.stage === 'fight' ? ui.focus : null;
  const picks = [...(e ? e.picks : ui.fight.picks), pick];
  const s = bombingStep(picks);
  if (!s.done) { if (e) e.picks = picks; else ui.fight.picks = picks; ctx.render(); return; }
  let entry = e;
  if (!entry) {
    // A fight the server answered: its throws become an entry of their own.
    const b = bomberOf(ctx, ui.fight.order);
    if (!b) return;
    entry = newEntry(ctx, null, { order: b.order });
    Object.assign(entry, { square: b.target, answer: 'fight', ship: (ctx.words.shipAt(b.target) || {}).id || null, sent: true });
    ui.fight = { order: null, picks: [] };
  }
  entry.picks = picks;
  const action = { type: 'report_bombing', order: entry.order, throws: s.throws, ...(s.choice ? { choice: s.choice } : {}) };
  const { id, done } = ctx.queue(action);
  const result = fightResult(s);
  const sunk = result === 'hit' && wouldSink(ctx.view.sea, entry.square, provisionalHits(ctx, entry));
  entry.report = { id, result: sunk ? 'sunk' : result, sent: false, moot: false };
  done.then((reply) => settleReport(ctx, entry, reply));
  if (ctx.conn.online) {
    ui.busy = true;
    entry.stage = 'waiting';
    ui.focus = entry;
    ctx.render();
    return;
  }
  reportLocally(ctx, entry);
}

function provisionalHits(ctx, entry) {
  return ctx.ui.local.filter((x) => x !== entry && x.report && !x.report.sent && ['hit', 'sunk'].includes(x.report.result)).map((x) => x.square);
}

/** Offline throws: a provisional verdict, never a certain one. */
function reportLocally(ctx, e) {
  const { ui } = ctx;
  ui.busy = false;
  e.stage = 'done';
  ui.focus = null;
  const r = e.report.result;
  const ship = ctx.words.ownShipName(e.ship || '');
  const label = entryName(ctx, e);
  const text = r === 'hit' ? t('team.provisional_hit', { ship, square: e.square })
    : r === 'sunk' ? t('team.provisional_sunk', { ship })
      : r === 'left' ? t('team.provisional_left', { label }) : t('team.provisional_shot_down', { label });
  ui.verdict = { answer: r, entry: e, local: true, unsure: true, text, marks: [e.sent ? null : marksFor(e)[1]] };
  ctx.say(t('team.provisional'), 'queued');
  ctx.render();
}

/** The words of the server's result of a fight: {answer, text, said}. */
function resultWords(ctx, v, note) {
  const { ownShipName } = ctx.words;
  const square = note.square;
  let answer = note.result;
  let text = '';
  let said = '';
  if (note.result === 'hit') {
    const hit = findNote(v, (n) => n.type === 'hit' && n.team === ctx.team && n.square === square);
    const sunk = hit && findNote(v, (n) => n.type === 'sunk' && n.team === ctx.team && n.ship === hit.ship);
    const name = hit ? ownShipName(hit.ship) : '';
    if (sunk) { answer = 'sunk'; text = t('team.sunk_text', { ship: name }); said = t('team.say_sunk', { ship: name }); }
    else { text = t('team.hit_text', { ship: name, square }); said = t('team.say_hit', { ship: name, square }); }
  } else if (note.result === 'left') {
    text = t('team.left_text', { label: note.label }); said = t('team.say_left');
  } else if (note.result === 'shot_down') {
    text = t('team.shot_down_text', { label: note.label }); said = t('team.say_shot_down');
  }
  return { answer, text, said };
}

/** The server settled a fight's throws: its result replaces the provisional one. */
function settleReport(ctx, e, reply) {
  const { ui } = ctx;
  e.report.sent = true;
  const waited = e.stage === 'waiting';
  if (waited) { ui.busy = false; ui.focus = null; e.stage = 'done'; }
  const mine = waited || (ui.verdict && ui.verdict.entry === e);
  if (!reply || reply.ok === false) {
    const message = (reply && (reply.message || reply.error)) || '?';
    if (waited) {
      ctx.say(t('team.refused', { message }), 'refused');
    } else if (!e.report.moot) {
      notify(ctx, t('team.server_refused_throws', { label: entryName(ctx, e), message }));
      if (mine) ui.verdict = { answer: 'refused', entry: e, text: '' };
    }
    ctx.render();
    return;
  }
  const v = reply.view || ctx.view;
  const note = answerNote(v, reply, (n) => n.type === 'bombing_result' && n.order === e.order);
  if (!note) { ctx.render(); return; }
  const { answer, text, said } = resultWords(ctx, v, note);
  if (!waited && answer !== e.report.result) {
    notify(ctx, t('team.server_result_differs', { result: word(answer), label: note.label, square: note.square, local: word(e.report.result) }));
  } else {
    ctx.say(said, answer === 'hit' || answer === 'sunk' ? answer : 'water');
  }
  if (mine || !ui.verdict) ui.verdict = { answer, text, entry: e };
  ctx.render();
}
