// Bombers at our base, on the Live tab: the defender announces each one (a chip, the typed
// square or the scanned slip) and gets WATER / ALREADY HIT / FIGHT; a fight is entered throw by
// throw in the action bar, and its verdict stays on the card until dismissed.

import { t, tn } from '../../lib/i18n.js';
import { el, $ } from '../../lib/dom.js';
import { scannerAvailable, startScanner } from '../../lib/scan.js';
import { bombingStep, findNote, orderFromSlip, cleanSquare } from './helpers.js';

/** Mount the bombing card; ctx is the page context (see ../team.js). */
export function mount(ctx) {
  const { kindName, shipLabel, ownShipName, shipAt, corridorName, planeName, teamName, holderName, planesText } = ctx.words;
  const VERDICT_KIND = { water: 'water', already_hit: 'water', fight: 'fight', hit: 'hit', sunk: 'sunk', left: 'ok', shot_down: 'ok' };

  function renderBombing() {
    const waiting = ctx.view.bombers_at_base || [];
    const fights = waiting.filter((b) => b.answer === 'fight');
    const open = waiting.filter((b) => !b.answer);
    if (ctx.ui.fight.order && !fights.some((b) => b.order === ctx.ui.fight.order)) ctx.ui.fight = { order: null, picks: [] };
    if (!ctx.ui.fight.order && fights.length) ctx.ui.fight = { order: fights[0].order, picks: [] };
    const fight = fights.find((b) => b.order === ctx.ui.fight.order);
    if (fight) ctx.ui.verdict = null;   // a new fight replaces an old verdict

    const card = $('bombing-card');
    const verdictEl = $('verdict');
    const textEl = $('bombing-text');
    card.hidden = !(fight || open.length || ctx.ui.verdict);
    card.dataset.kind = fight ? 'fight' : ctx.ui.verdict ? ctx.ui.verdict.answer : 'waiting';
    $('bombing-dismiss').hidden = !(ctx.ui.verdict && !fight);
    $('bomber-picks').hidden = true;
    if (!open.length || fight || ctx.ui.verdict) { $('scan-slip').hidden = true; if (scanner) stopScan(); }

    if (fight) {
      verdictEl.hidden = false;
      verdictEl.dataset.kind = 'fight';
      verdictEl.textContent = t('team.verdict.fight');
      const ship = shipAt(fight.target);
      const s = bombingStep(ctx.ui.fight.picks);
      textEl.textContent = t('team.fight_text', { label: fight.label, square: fight.target, ship: ship ? shipLabel(ship) : '?' });
      $('bombing-step').textContent = s.ask === 'choice' ? t('team.fight_choice') : s.ask === 'second' ? t('team.fight_second') : t('team.fight_first');
      $('bombing-step').hidden = false;
    } else if (ctx.ui.verdict) {
      const v = ctx.ui.verdict;
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
      const s = bombingStep(ctx.ui.fight.picks);
      $('throw-buttons').hidden = s.ask === 'choice';
      $('choice-buttons').hidden = s.ask !== 'choice';
      $('fight-back').hidden = !ctx.ui.fight.picks.length;
    }
    bar.classList.toggle('has-fight', Boolean(fight));
    ctx.setCount('live', waiting.length, true);
  }

  async function announce(which, label) {
    if (ctx.ui.busy) return;
    ctx.ui.busy = true;
    const res = await ctx.act({ type: 'announce_bombing', ...which });
    ctx.ui.busy = false;
    if (!res) { ctx.render(); return; }
    const v = res.view || ctx.view;
    const note = findNote(v, (n) => n.type === 'bombing' && n.team === ctx.team && (which.order ? n.order === which.order : n.square === which.target));
    if (note) {
      if (note.answer === 'fight') {
        ctx.ui.fight = { order: note.order, picks: [] };
        ctx.say(t('team.say_fight', { label: note.label, square: note.square }), 'fight');
      } else {
        const text = note.answer === 'water' ? t('team.water_text', { label: note.label, square: note.square }) : t('team.already_text', { label: note.label, square: note.square });
        ctx.ui.verdict = { answer: note.answer, text };
        ctx.say(note.answer === 'water' ? t('team.say_water', { square: note.square }) : t('team.say_already', { square: note.square }), 'water');
      }
    }
    $('bomb-square').value = '';
    ctx.render();
  }

  // Scan the bomber's slip (only where the camera is allowed: https or localhost).
  let scanner = null;
  async function stopScan() {
    if (scanner) { try { scanner.stop(); } catch { /* already stopped */ } }
    scanner = null;
    $('scan-box').hidden = true;
    $('scan-slip').hidden = !scannerAvailable() || !(ctx.view.bombers_at_base || []).some((b) => !b.answer);
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
    announce({ target: sq });
  });

  async function fightPick(pick) {
    if (ctx.ui.busy || !ctx.ui.fight.order) return;
    const picks = [...ctx.ui.fight.picks, pick];
    const s = bombingStep(picks);
    if (!s.done) { ctx.ui.fight.picks = picks; ctx.render(); return; }
    ctx.ui.busy = true;
    const order = ctx.ui.fight.order;
    const res = await ctx.act({ type: 'report_bombing', order, throws: s.throws, ...(s.choice ? { choice: s.choice } : {}) });
    ctx.ui.busy = false;
    if (!res) { ctx.ui.fight.picks = []; ctx.render(); return; }
    const v = res.view || ctx.view;
    const note = findNote(v, (n) => n.type === 'bombing_result' && n.order === order);
    const result = note ? note.result : null;
    const square = note ? note.square : '';
    let answer = result;
    let text = '';
    if (result === 'hit') {
      const hit = findNote(v, (n) => n.type === 'hit' && n.team === ctx.team && n.square === square);
      const sunk = hit && findNote(v, (n) => n.type === 'sunk' && n.team === ctx.team && n.ship === hit.ship);
      const name = hit ? ownShipName(hit.ship) : '';
      if (sunk) { answer = 'sunk'; text = t('team.sunk_text', { ship: name }); ctx.say(t('team.say_sunk', { ship: name }), 'sunk'); }
      else { text = t('team.hit_text', { ship: name, square }); ctx.say(t('team.say_hit', { ship: name, square }), 'hit'); }
    } else if (result === 'left') {
      text = t('team.left_text', { label: note.label }); ctx.say(t('team.say_left'), 'ok');
    } else if (result === 'shot_down') {
      text = t('team.shot_down_text', { label: note.label }); ctx.say(t('team.say_shot_down'), 'ok');
    }
    ctx.ui.fight = { order: null, picks: [] };
    if (answer) ctx.ui.verdict = { answer, text };
    ctx.render();
  }
  for (const b of document.querySelectorAll('[data-throw]')) b.addEventListener('click', () => fightPick(b.dataset.throw));
  $('fight-back').addEventListener('click', () => { ctx.ui.fight.picks = ctx.ui.fight.picks.slice(0, -1); ctx.render(); });
  $('bombing-dismiss').addEventListener('click', () => { ctx.ui.verdict = null; ctx.render(); });

  return { render: renderBombing };
}
