// Bombers at our base, on the Live tab: the defender announces each one (a chip, the typed
// square or the scanned slip) and gets WATER / ALREADY HIT / FIGHT; a fight is entered throw by
// throw in the action bar, and its verdict stays on the card until dismissed.
//
// Offline the bomber must not wait at the screen: the phone answers from its own sea (the
// view's ships and hits, as the server would: helpers.js localAnswer), marks the answer as "from
// this phone, not yet sent" and queues the entry (conn.js's outbox) as it does online. The phone
// cannot see which square a bomber aims at before the server answers, so a bomber picked by its
// chip or slip needs the square it names to be answered offline. A fight's throws are queued too,
// with a provisional text only: the server decides. When a queued entry is settled, the server's
// answer replaces the phone's, and a disagreement or a refusal is said on the card.

import { t, tn } from '../../lib/i18n.js';
import { el, $ } from '../../lib/dom.js';
import { scannerAvailable, startScanner } from '../../lib/scan.js';
import { bombingStep, findNote, orderFromSlip, cleanSquare, localAnswer, fightResult, wouldSink } from './helpers.js';

/** Mount the bombing card; ctx is the page context (see ../team.js). */
export function mount(ctx) {
  const { shipLabel, ownShipName, shipAt, corridorName } = ctx.words;
  const ui = ctx.ui;
  const word = (answer) => t(`team.verdict.${answer}`);

  // ------------------------------------------------------------ the bombings in flight

  // An entry: {id, order, label, corridor, byOrder, square, answer, unsure, ship, stage, picks,
  // report, sent, refused}. stage: 'waiting' (online, the server answers), 'square' (offline,
  // the bomber's square is asked), 'which' (offline fight by square: which bomber?), 'fight'
  // (offline throws), 'done'. report: the queued throws {id, result, sent, moot}.
  const queuedActions = () => ctx.conn.pending().map((e) => e.action || {});
  const bomberOf = (order) => (ctx.view.bombers_at_base || []).find((b) => b.order === order) || null;
  const chipText = (b) => (b.corridor ? t('team.bomber_chip', { label: b.label, corridor: corridorName(b.corridor) }) : b.label);
  const entryName = (e) => (e.label ? chipText(e) : t('team.a_bomber'));
  const inFlight = (e) => !e.sent || Boolean(e.report && !e.report.sent);

  function setBomber(e, order) {
    const b = bomberOf(order);
    e.order = order;
    e.label = b ? b.label : e.label || order;
    e.corridor = b ? b.corridor : e.corridor || null;
  }

  /** Bombers still to announce: not answered by the server, not queued by this phone. */
  function openBombers() {
    const taken = new Set(queuedActions().filter((a) => a.type === 'announce_bombing' && a.order).map((a) => a.order));
    for (const e of ui.local) if (!e.sent && e.order) taken.add(e.order);
    return (ctx.view.bombers_at_base || []).filter((b) => !b.answer && !taken.has(b.order));
  }

  /** Fights the server knows of whose throws are not entered yet. */
  function serverFights() {
    const reported = new Set(queuedActions().filter((a) => a.type === 'report_bombing').map((a) => a.order));
    for (const e of ui.local) if (e.order && (e.stage === 'fight' || (e.report && !e.report.sent))) reported.add(e.order);
    return (ctx.view.bombers_at_base || []).filter((b) => b.answer === 'fight' && !reported.has(b.order));
  }

  /** This phone's bombings whose outcome the server has not told yet (for localAnswer). */
  function earlierThan(entry) {
    return ui.local.filter((e) => e !== entry && inFlight(e) && e.square && e.answer)
      .map((e) => ({ square: e.square, answer: e.answer, result: e.report ? e.report.result : null }));
  }

  function newEntry(id, which) {
    const e = { id, order: null, label: null, corridor: null, byOrder: Boolean(which.order), square: null, answer: null, unsure: false, ship: null, stage: 'waiting', picks: [], report: null, sent: false, refused: false };
    if (which.order) setBomber(e, which.order);
    ui.local.push(e);
    return e;
  }

  // --------------------------------------------------------------------- drawing

  function renderBombing() {
    ui.local = ui.local.filter((e) => inFlight(e) || e === ui.focus || (ui.verdict && ui.verdict.entry === e));
    const waiting = ctx.view.bombers_at_base || [];
    const open = openBombers();
    const fights = serverFights();
    const f = ui.focus;
    // A fight's throws on their way to the server keep the fight on the card meanwhile.
    const focus = f && (['square', 'which', 'fight'].includes(f.stage) || (f.stage === 'waiting' && f.report)) ? f : null;
    if (ui.fight.order && !fights.some((b) => b.order === ui.fight.order)) ui.fight = { order: null, picks: [] };
    if (!ui.fight.order && fights.length) ui.fight = { order: fights[0].order, picks: [] };
    const fight = focus ? null : fights.find((b) => b.order === ui.fight.order);
    if (fight) ui.verdict = null;   // a new fight replaces an old verdict
    const queue = ui.local.filter((e) => inFlight(e) && e.stage !== 'waiting' && e !== focus && !(ui.verdict && ui.verdict.entry === e));
    const mode = focus ? (focus.stage === 'waiting' ? 'fight' : focus.stage) : fight ? 'fight' : ui.verdict ? 'verdict' : open.length ? 'open' : null;

    const card = $('bombing-card');
    const verdictEl = $('verdict');
    const markEl = $('verdict-mark');
    const textEl = $('bombing-text');
    const stepEl = $('bombing-step');
    card.hidden = !(mode || ui.notices.length || queue.length);
    card.dataset.kind = mode === 'fight' || mode === 'which' ? 'fight' : mode === 'verdict' ? ui.verdict.answer : 'waiting';
    $('bombing-dismiss').hidden = mode !== 'verdict';
    // Offline, the defender may leave an entry to the server's answer instead of finishing it here.
    $('bombing-later').hidden = !(focus && !focus.sent && ['square', 'which', 'fight'].includes(focus.stage));
    $('bomber-picks').hidden = true;
    markEl.hidden = true;
    verdictEl.hidden = true;
    delete verdictEl.dataset.local;
    stepEl.hidden = true;
    textEl.textContent = '';
    if (mode !== 'open') { $('scan-slip').hidden = true; if (scanner) stopScan(); }

    // Where the server disagreed with this phone or refused its entry: said until read.
    $('bombing-notice').hidden = !ui.notices.length;
    $('notice-list').replaceChildren(...ui.notices.map((text) => el('li', { text })));

    function showVerdict(answer, { local = false, unsure = false, marks = [] } = {}) {
      verdictEl.hidden = false;
      verdictEl.dataset.kind = answer;
      verdictEl.textContent = word(answer) + (unsure ? '?' : '');
      if (local) {
        verdictEl.dataset.local = 'true';
        markEl.hidden = false;
        markEl.replaceChildren(el('strong', { text: t('team.local_mark') }), ...marks.filter(Boolean).map((m) => el('span', { text: ` ${m}` })));
      }
    }
    if (mode === 'fight') {
      const e = focus;
      const square = e ? e.square : fight.target;
      const ship = e && e.ship ? ctx.view.sea.ships.find((s) => s.id === e.ship) : shipAt(square);
      const picks = e ? e.picks : ui.fight.picks;
      if (e && !e.sent) showVerdict('fight', { local: true, unsure: e.unsure, marks: marksFor(e) });
      else showVerdict('fight');
      textEl.textContent = t('team.fight_text', { label: e ? entryName(e) : fight.label, square, ship: ship ? shipLabel(ship) : '?' });
      const s = bombingStep(picks);
      stepEl.textContent = s.ask === 'choice' ? t('team.fight_choice') : s.ask === 'second' ? t('team.fight_second') : t('team.fight_first');
      stepEl.hidden = false;
    } else if (mode === 'which') {
      showVerdict('fight', { local: true, unsure: focus.unsure, marks: marksFor(focus) });
      textEl.textContent = t('team.which_bomber', { square: focus.square });
      $('bomber-picks').hidden = false;
      $('bomber-chips').replaceChildren(...open.map((b) => el('button', {
        type: 'button', class: 'chip', 'data-key': `bomber-${b.order}`,
        onclick: () => { setBomber(focus, b.order); focus.stage = 'fight'; ctx.render(); },
      }, chipText(b))));
    } else if (mode === 'square') {
      textEl.textContent = t('team.ask_square', { label: entryName(focus) });
    } else if (mode === 'verdict') {
      const v = ui.verdict;
      showVerdict(v.answer, { local: Boolean(v.local), unsure: Boolean(v.unsure), marks: v.marks || [] });
      textEl.textContent = v.text || '';
    } else if (mode === 'open') {
      textEl.textContent = tn('team.bombers_waiting', open.length, { n: open.length });
      stepEl.textContent = t('team.bombers_ask');
      stepEl.hidden = false;
      $('bomber-picks').hidden = false;
      if (!scanner) $('scan-slip').hidden = !scannerAvailable();
      // Labels are unique in a round (A1–A3 upper, A4–A6 middle, A7–A9 lower); the corridor
      // beside them is what the defender sees on the slip and hears from the pilot.
      $('bomber-chips').replaceChildren(...open.map((b) => el('button', {
        type: 'button', class: 'chip', 'data-key': `bomber-${b.order}`,
        onclick: () => announce({ order: b.order }),
      }, chipText(b))));
    }

    // What this phone has queued and the server has not answered yet.
    $('bombing-queue').hidden = !queue.length;
    $('bombing-queue-list').replaceChildren(...queue.map((e) => {
      const answer = e.report ? `${word(e.report.result)}?` : e.answer ? word(e.answer) + (e.unsure ? '?' : '') : null;
      return el('li', { 'data-order': e.order || '' }, answer
        ? t('team.queue_line', { bomber: entryName(e), square: e.square || '?', answer })
        : t('team.queue_no_square', { bomber: entryName(e) }));
    }));

    // The action bar: the square input, or the throw buttons.
    const bar = $('bar-live');
    const throwing = mode === 'fight';
    $('announce-form').hidden = !(mode === 'square' || mode === 'open');
    $('bar-fight').hidden = !throwing;
    if (throwing) {
      const s = bombingStep(focus ? focus.picks : ui.fight.picks);
      $('throw-buttons').hidden = s.ask === 'choice';
      $('choice-buttons').hidden = s.ask !== 'choice';
      $('fight-back').hidden = !(focus ? focus.picks : ui.fight.picks).length;
    }
    bar.classList.toggle('has-fight', throwing);
    ctx.setCount('live', waiting.length, true);
  }

  /** Say on the card (and the result line) where the server's answer is not the phone's. */
  function notify(text) {
    ui.notices = [...ui.notices, text];
    ctx.say(text, 'refused');
  }

  // ------------------------------------------------------------------ announcing

  /** Announce a bomber ({order}) or a square ({target}); offline, answer from our own sea. */
  function announce(which) {
    if (ui.busy) return;
    ui.verdict = null;
    const { id, done } = ctx.queue({ type: 'announce_bombing', ...which });
    const e = newEntry(id, which);
    done.then((reply) => settleAnnounce(e, reply));
    if (ctx.conn.online) {
      // Online the server answers within a moment: wait for it, as before.
      ui.busy = true;
      ui.focus = e;
      e.pendingSquare = which.target || null;
      ctx.render();
      return;
    }
    goLocal(e, which.target || null);
  }

  /** Answer an entry from this phone (offline): at once for a square, else ask for it. */
  function goLocal(e, square) {
    ui.busy = false;
    if (square) { answerLocally(e, square); return; }
    e.stage = 'square';
    ui.focus = e;
    ctx.say(t('team.queued_bomber', { label: entryName(e) }), 'queued');
    ctx.render();
    $('bomb-square').focus();
  }

  // The connection dropped while the server's answer was awaited: the phone answers itself.
  ctx.conn.on('status', ({ state }) => {
    const e = ui.focus;
    if (state !== 'offline' || !e || e.stage !== 'waiting' || e.sent) return;
    if (e.report) { reportLocally(e); return; }
    goLocal(e, e.pendingSquare);
  });

  function answerLocally(e, square) {
    const a = localAnswer(ctx.view.sea, square, earlierThan(e));
    Object.assign(e, { square, answer: a.answer, unsure: a.unsure, ship: a.ship });
    if (!e.order) {
      // Typed, with a single bomber waiting: it is that one (the server matches it by square).
      const open = openBombers();
      if (open.length === 1) setBomber(e, open[0].order);
    }
    $('bomb-square').value = '';
    if (a.answer === 'fight') {
      e.stage = e.order ? 'fight' : 'which';
      ui.focus = e;
      ui.verdict = null;
      ctx.say(t('team.say_fight', { label: entryName(e), square }), 'fight', t('team.not_sent'));
    } else {
      e.stage = 'done';
      ui.focus = null;
      const label = entryName(e);
      ui.verdict = {
        answer: a.answer, entry: e, local: true, unsure: a.unsure, marks: marksFor(e),
        text: a.answer === 'water' ? t('team.water_text', { label, square }) : t('team.already_text', { label, square }),
      };
      ctx.say(a.answer === 'water' ? t('team.say_water', { square }) : t('team.say_already', { square }), 'water', t('team.not_sent'));
    }
    ctx.render();
  }

  function marksFor(e) {
    return [
      e.unsure ? t('team.unsure_pending', { square: e.square }) : null,
      e.sent ? null : e.byOrder ? t('team.check_order', { label: e.label }) : t('team.check_target', { square: e.square }),
    ];
  }

  /** The server settled an announcement: its answer replaces the phone's. */
  function settleAnnounce(e, reply) {
    e.sent = true;
    const waited = e.stage === 'waiting';
    if (waited) ui.busy = false;
    const mine = ui.focus === e || (ui.verdict && ui.verdict.entry === e);
    if (!reply || reply.ok === false) {
      e.refused = true;
      const message = (reply && (reply.message || reply.error)) || '?';
      if (ui.focus === e) ui.focus = null;
      if (waited) {
        ctx.say(t('team.refused', { message }), 'refused');
      } else {
        const text = e.answer
          ? t('team.server_refused', { square: e.square, message, local: word(e.answer) })
          : t('team.server_refused_bomber', { label: entryName(e), message });
        notify(text);
        if (mine) ui.verdict = { answer: 'refused', entry: e, text: '' };
      }
      if (e.report) e.report.moot = true;   // its throws are refused too: this says why
      ctx.render();
      return;
    }
    const v = reply.view || ctx.view;
    const note = answerNote(v, reply, (n) => n.type === 'bombing' && n.team === ctx.team
      && (reply.order || e.order ? n.order === (reply.order || e.order) : n.square === e.square));
    if (!note) { if (waited) { e.stage = 'done'; ui.focus = null; } ctx.render(); return; }
    if (e.order !== note.order) setBomber(e, note.order);
    e.label = note.label;
    const label = note.label;
    const square = note.square;
    const server = note.answer;
    const local = e.answer;
    if (local && e.square && square !== e.square) {
      notify(t('team.server_other_square', { answer: word(server), label, square, typed: e.square }));
    } else if (local && server !== local) {
      notify(t('team.server_differs', { answer: word(server), label, square, local: word(local) }));
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

  /** The note an answer made: the one of the answer's own event, else the newest that fits. */
  function answerNote(v, reply, test) {
    const seqs = new Set(((reply && reply.events) || []).map((x) => x.seq).filter(Number.isFinite));
    return (seqs.size && findNote(v, (n, row) => seqs.has(row.seq) && test(n))) || findNote(v, test);
  }

  // ---------------------------------------------------------------------- the fight

  function fightPick(pick) {
    if (ui.busy) return;
    const e = ui.focus && ui.focus.stage === 'fight' ? ui.focus : null;
    const picks = [...(e ? e.picks : ui.fight.picks), pick];
    const s = bombingStep(picks);
    if (!s.done) { if (e) e.picks = picks; else ui.fight.picks = picks; ctx.render(); return; }
    let entry = e;
    if (!entry) {
      // A fight the server answered: its throws become an entry of their own.
      const b = bomberOf(ui.fight.order);
      if (!b) return;
      entry = newEntry(null, { order: b.order });
      Object.assign(entry, { square: b.target, answer: 'fight', ship: (shipAt(b.target) || {}).id || null, sent: true });
      ui.fight = { order: null, picks: [] };
    }
    entry.picks = picks;
    const action = { type: 'report_bombing', order: entry.order, throws: s.throws, ...(s.choice ? { choice: s.choice } : {}) };
    const { id, done } = ctx.queue(action);
    const result = fightResult(s);
    const sunk = result === 'hit' && wouldSink(ctx.view.sea, entry.square, provisionalHits(entry));
    entry.report = { id, result: sunk ? 'sunk' : result, sent: false, moot: false };
    done.then((reply) => settleReport(entry, reply));
    if (ctx.conn.online) {
      ui.busy = true;
      entry.stage = 'waiting';
      ui.focus = entry;
      ctx.render();
      return;
    }
    reportLocally(entry);
  }

  function provisionalHits(entry) {
    return ui.local.filter((x) => x !== entry && x.report && !x.report.sent && ['hit', 'sunk'].includes(x.report.result)).map((x) => x.square);
  }

  /** Offline throws: a provisional verdict, never a certain one. */
  function reportLocally(e) {
    ui.busy = false;
    e.stage = 'done';
    ui.focus = null;
    const r = e.report.result;
    const ship = ownShipName(e.ship || '');
    const label = entryName(e);
    const text = r === 'hit' ? t('team.provisional_hit', { ship, square: e.square })
      : r === 'sunk' ? t('team.provisional_sunk', { ship })
        : r === 'left' ? t('team.provisional_left', { label }) : t('team.provisional_shot_down', { label });
    ui.verdict = { answer: r, entry: e, local: true, unsure: true, text, marks: [e.sent ? null : marksFor(e)[1]] };
    ctx.say(t('team.provisional'), 'queued');
    ctx.render();
  }

  /** The server settled a fight's throws: its result replaces the provisional one. */
  function settleReport(e, reply) {
    e.report.sent = true;
    const waited = e.stage === 'waiting';
    if (waited) { ui.busy = false; ui.focus = null; e.stage = 'done'; }
    const mine = waited || (ui.verdict && ui.verdict.entry === e);
    if (!reply || reply.ok === false) {
      const message = (reply && (reply.message || reply.error)) || '?';
      if (waited) {
        ctx.say(t('team.refused', { message }), 'refused');
      } else if (!e.report.moot) {
        notify(t('team.server_refused_throws', { label: entryName(e), message }));
        if (mine) ui.verdict = { answer: 'refused', entry: e, text: '' };
      }
      ctx.render();
      return;
    }
    const v = reply.view || ctx.view;
    const note = answerNote(v, reply, (n) => n.type === 'bombing_result' && n.order === e.order);
    if (!note) { ctx.render(); return; }
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
    if (!waited && answer !== e.report.result) {
      notify(t('team.server_result_differs', { result: word(answer), label: note.label, square, local: word(e.report.result) }));
    } else {
      ctx.say(said, answer === 'hit' || answer === 'sunk' ? answer : 'water');
    }
    if (mine || !ui.verdict) ui.verdict = { answer, text, entry: e };
    ctx.render();
  }

  // ------------------------------------------------------------------- the controls

  // Scan the bomber's slip (only where the camera is allowed: https or localhost).
  let scanner = null;
  async function stopScan() {
    if (scanner) { try { scanner.stop(); } catch { /* already stopped */ } }
    scanner = null;
    $('scan-box').hidden = true;
    $('scan-slip').hidden = !scannerAvailable() || !openBombers().length;
  }
  $('scan-slip').addEventListener('click', async () => {
    $('scan-box').hidden = false;
    $('scan-slip').hidden = true;
    try {
      scanner = await startScanner($('scan-video'), {
        onResult: (text) => {
          const order = orderFromSlip(text, ctx.game);
          if (!order) { ctx.say(t('team.scan_foreign'), 'refused'); return; }
          stopScan();
          announce({ order });
        },
        onError: () => ctx.say(t('team.scan_failed'), 'error'),
      });
    } catch {
      stopScan();
    }
  });
  $('scan-stop').addEventListener('click', stopScan);

  $('announce-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const size = (ctx.view.sea && ctx.view.sea.size) || 26;
    const sq = cleanSquare($('bomb-square').value, size, size);
    if (!sq) { ctx.say(t('team.square_invalid', { text: $('bomb-square').value || '–' }), 'refused'); $('bomb-square').focus(); return; }
    if (ui.focus && ui.focus.stage === 'square') { answerLocally(ui.focus, sq); return; }
    announce({ target: sq });
  });

  for (const b of document.querySelectorAll('[data-throw]')) b.addEventListener('click', () => fightPick(b.dataset.throw));
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

  return { render: renderBombing };
}
