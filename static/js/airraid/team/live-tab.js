// The Live tab: the round timer, the bombers at our base (bombing.js), the score of both
// seas, the latest events in words, and the winner when the game is over.

import { t, pageLang } from '../../lib/i18n.js';
import { el, $ } from '../../lib/dom.js';
import { Countdown, ScreenWake, formatMs } from '../../lib/timer.js';
import { timerState } from './helpers.js';
import { fleetList } from './sea-tab.js';
import * as bombing from './bombing.js';
import { RoundMoment } from '../moment.js';

/** Mount the Live tab; ctx is the page context (see ../team.js). */
export function mount(ctx) {
  const { kindName, shipLabel, ownShipName, shipAt, corridorName, planeName, teamName, holderName, planesText } = ctx.words;
  const bombingCard = bombing.mount(ctx);
  const wake = new ScreenWake();
  const moment = new RoundMoment();
  const countdown = new Countdown($('timer'), {
    now: () => ctx.conn.serverNow(), labelEl: $('timer-label'), cues: ctx.cues, onEnd: () => moment.timeUp(ctx.view),
  });

  function renderTimer() {
    const r = ctx.view.round || {};
    moment.see(ctx.view);
    countdown.set(timerState(r));
    let head;
    if (ctx.view.phase === 'setup') head = t('team.round_none');
    else if (ctx.view.phase === 'over') head = t('team.round_over');
    else if (r.phase === 'airborne') head = t(r.running ? 'team.round_airborne' : 'team.round_paused', { n: r.round });
    else head = t('team.round_planning', { n: r.round });
    $('round-head').textContent = head;
    if (ctx.view.phase === 'playing' && r.phase === 'airborne') wake.enable(); else wake.disable();
  }

  function facts(pairs) {
    return el('dl', { class: 'facts' }, pairs.flatMap(([k, v]) => [el('dt', { text: k }), el('dd', { text: v })]));
  }

  function renderSummary() {
    const us = ctx.view.teams[ctx.team];
    const them = ctx.view.teams[ctx.enemy];
    const led = ctx.view.ledger || {};
    const plane = (k) => (led[k] ? led[k].on_ships : us.planes[k]);
    const inAir = (led.fighter ? led.fighter.in_air : 0) + (led.bomber ? led.bomber.in_air : 0);
    const hitsOn = (team) => Object.values(team.shots || {}).filter((x) => x === 'hit' || x === 'sunk').length;
    const sunkNames = (team, own) => (team.sunk || []).map((s) => (own ? ownShipName(s.ship) : kindName(s.kind))).join(', ');
    $('us-facts').replaceChildren(facts([
      [t('team.fact_afloat'), t('team.n_of_m', { n: us.ships_afloat, m: us.ships_total })],
      [t('team.fact_hit'), String((ctx.view.sea.hits || []).length)],
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
    if (ctx.view.phase !== 'setup') fleetList(ctx, $('live-fleet'));
    $('live-fleet').hidden = ctx.view.phase === 'setup';
    const tro = ctx.view.trophies || [];
    $('trophy-list').replaceChildren(...tro.map((x) => el('li', { text: t('team.trophy_line', { plane: planeName(x.kind), round: x.round, holder: holderName(x.holder) }) })));
    $('trophy-list').hidden = !tro.length;
  }

  // The latest events in words, newest first.
  function describe(n) {
    const me = n.team === ctx.team;
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
      case 'round_length': return t('team.ev.round_length', { length: formatMs((n.seconds || 0) * 1000), round: n.round });
      case 'voided': case 'void': return t('team.ev.voided');
      default: return null;
    }
  }
  function baseOf(team) {
    return team === ctx.team ? t('team.our_base') : t('team.their_base', { team: teamName(team) });
  }
  function pilotOf(orderId) {
    const all = [...(ctx.view.orders || []), ...(ctx.view.past_orders || [])];
    const o = all.find((x) => x.id === orderId);
    return o && o.pilot ? `${o.pilot} (${o.label})` : orderId;
  }

  function renderEvents() {
    const items = [];
    const rows = ctx.view.log || [];
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
    const over = ctx.view.phase === 'over' && ctx.view.outcome;
    $('outcome-card').hidden = !over;
    if (!over) return;
    const w = ctx.view.outcome.winner;
    $('outcome-title').textContent = w === null || w === undefined ? t('team.outcome_draw') : t('team.outcome_winner', { team: teamName(w) });
    $('outcome-sub').textContent = w === null || w === undefined ? '' : w === ctx.team ? t('team.outcome_we_win') : t('team.outcome_they_win');
    $('outcome-card').dataset.result = w === null || w === undefined ? 'draw' : w === ctx.team ? 'win' : 'loss';
    $('outcome-detail').textContent = ctx.view.outcome.detail || '';
    $('log-json').href = `${ctx.api}/log.json`;
    $('log-csv').href = `${ctx.api}/log.csv`;
  }

  function renderLive() {
    renderOutcome();
    renderTimer();
    bombingCard.render();
    renderSummary();
    renderEvents();
    $('timer-card').hidden = ctx.view.phase === 'over';
  }

  return { render: renderLive };
}
